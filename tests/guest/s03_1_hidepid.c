// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.1 hidepid= and gid=: a ptags mount shows no more than a procfs
 * mount with the same options.  Two tagged processes of uids 1000 and 1001;
 * readers of uid 1000 (with and without the exempt group), and root.
 */
#include "guest.h"

#include "ptags.h"

#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define MNT	"/tmp/s03_1_hidepid"
#define EXEMPT	2000

static pid_t mine, theirs;

static int become(void *uid)
{
	uid_t u = (uid_t)(long)uid;

	return setresgid(u, u, u) || setresuid(u, u, u);
}

/* A tagged process running as @uid. */
static pid_t tagged_as(uid_t uid, const char *tags)
{
	pid_t pid = pt_child(become, (void *)(long)uid);

	if (pt_write(pid, tags))
		die("tagging %d", (int)pid);
	return pid;
}

/* Does a listing of MNT show @pid? */
static bool listed(pid_t pid)
{
	char name[16];
	struct dirent *d;
	bool found = false;
	DIR *dp = opendir(MNT);

	if (!dp)
		return false;
	snprintf(name, sizeof(name), "%d", (int)pid);
	while ((d = readdir(dp)))
		if (!strcmp(d->d_name, name))
			found = true;
	closedir(dp);
	return found;
}

/* 0 if the entry of @pid can be looked up, else the errno. */
static int lookup(pid_t pid)
{
	char path[64];
	struct stat sb;

	snprintf(path, sizeof(path), MNT "/%d", (int)pid);
	return stat(path, &sb) ? errno : 0;
}

/* 0 if the entry of @pid reads, else the errno. */
static int readable(pid_t pid)
{
	char path[64], buf[64];
	int fd, err = 0;

	snprintf(path, sizeof(path), MNT "/%d", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno;
	if (read(fd, buf, sizeof(buf)) < 0)
		err = errno;
	close(fd);
	return err;
}

/*
 * What a reader of uid 1000 (in group EXEMPT when @exempt) sees of
 * "theirs", as bits: 1 listed, 2 looked up, 4 read; 8 if it also sees its
 * own process fully (else the whole answer is suspect).
 */
static int view(void *arg)
{
	bool exempt = arg != NULL;
	gid_t groups[1] = { EXEMPT };
	int bits = 0;

	if (setgroups(exempt ? 1 : 0, groups) || become((void *)1000L))
		return 100;
	if (listed(theirs))
		bits |= 1;
	if (!lookup(theirs))
		bits |= 2;
	if (!readable(theirs))
		bits |= 4;
	if (listed(mine) && !lookup(mine) && !readable(mine))
		bits |= 8;
	return bits;
}

static void remount(const char *opts)
{
	if (mount("ptags", MNT, "ptags", MS_REMOUNT, opts))
		die("remount %s", opts);
}

/* Do /proc/mounts' options of MNT contain @want? */
static bool shows(const char *want)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " " MNT " ") && strstr(line, want))
			found = true;
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	int v, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mine = tagged_as(1000, "+a\n");
	theirs = tagged_as(1001, "+b\n");
	mkdir(MNT, 0755);

	err = mount("ptags", MNT, "ptags", 0, "hidepid=invisible") ? errno : 0;
	ok(err == 0, "SPEC §3.1: mount -t ptags -o hidepid=invisible (%s)",
	   strerror(err));
	if (err)
		return tap_done();
	ok(shows("hidepid=invisible"), "SPEC §3.1: /proc/mounts shows hidepid=invisible");

	v = run_child(view, NULL);
	ok(v == 8, "SPEC §3.1: hidepid=invisible: another user's process is not listed, not found, not read; one's own is (0x%x)",
	   v);
	v = run_child(view, (void *)1);
	ok(v == 8, "SPEC §3.1: hidepid=invisible: the default gid (0) does not exempt group %d (0x%x)",
	   EXEMPT, v);
	remount("gid=2000");
	v = run_child(view, (void *)1);
	ok(v == 15 && shows("gid=2000"),
	   "SPEC §3.1: gid=%d exempts its members (0x%x)", EXEMPT, v);
	v = run_child(view, NULL);
	ok(v == 8, "SPEC §3.1: and nobody else (0x%x)", v);
	ok(listed(theirs) && !lookup(theirs) && !readable(theirs),
	   "SPEC §3.1: root (CAP_SYS_PTRACE) sees every process");

	remount("hidepid=noaccess");
	v = run_child(view, NULL);
	ok(v == (1 | 2 | 8), "SPEC §3.1: hidepid=noaccess: listed and looked up, not read (0x%x)",
	   v);
	{
		char path[64];
		int fd;

		snprintf(path, sizeof(path), MNT "/%d", (int)theirs);
		fflush(stdout);
		if (!fork()) {
			if (become((void *)1000L))
				_exit(100);
			fd = open(path, O_RDONLY);
			_exit(fd < 0 ? errno : 0);
		}
		v = wait_exit(-1);
		ok(v == EACCES, "SPEC §3.1: hidepid=noaccess: the read is refused with EACCES (%s)",
		   strerror(v));
		/* "?b" would answer 0 or ENOENT: a write-only open reads too. */
		fflush(stdout);
		if (!fork()) {
			if (become((void *)1000L))
				_exit(100);
			fd = open(path, O_WRONLY);
			_exit(fd < 0 ? errno : 0);
		}
		v = wait_exit(-1);
		ok(v == EACCES, "SPEC §3.1: hidepid=noaccess: a write-only open is refused too, so ?NAME cannot probe (%s)",
		   strerror(v));
		/* libptags lists what it may read, as ptags ps must. */
		fflush(stdout);
		if (!fork()) {
			struct ptags_listing *l = NULL;
			struct ptags_root *root;
			int e;

			if (become((void *)1000L))
				_exit(100);
			e = ptags_root_openat(AT_FDCWD, MNT, 0, &root);
			e = e ?: ptags_root_list(root, NULL, 0, &l);
			if (e)
				_exit(-e);
			e = ptags_listing_count(l) == 1 &&
			    ptags_listing_pid(l, 0) == mine ? 0 : 101;
			_exit(e);
		}
		v = wait_exit(-1);
		ok(v == 0, "hidepid=noaccess: uid 1000's ptags_root_list() succeeds with its own process only (%s)",
		   v == 101 ? "other processes" : strerror(v));
	}

	remount("hidepid=off");
	v = run_child(view, NULL);
	ok(v == 15 && !shows("hidepid="), "SPEC §3.1: hidepid=off shows everything again (0x%x)", v);
	remount("hidepid=2");
	ok(shows("hidepid=invisible") && run_child(view, NULL) == 8,
	   "SPEC §3.1: hidepid=2 is invisible");
	err = mount("ptags", MNT, "ptags", MS_REMOUNT, "hidepid=ptraceable") ? errno : 0;
	ok(err == EINVAL, "SPEC §3.1: hidepid= takes off/noaccess/invisible or 0/1/2 only (%s)",
	   strerror(err));
	err = mount("ptags", MNT, "ptags", MS_REMOUNT, "gid=x") ? errno : 0;
	ok(err == EINVAL, "SPEC §3.1: gid= takes a number (%s)", strerror(err));

	{
		char path[64];
		struct stat sb;

		snprintf(path, sizeof(path), PT_ROOT "/%d", (int)theirs);
		fflush(stdout);
		if (!fork()) {
			if (become((void *)1000L))
				_exit(100);
			_exit(stat(path, &sb) ? errno : 0);
		}
		v = wait_exit(-1);
	}
	ok(v == 0, "SPEC §3.1: each mount has its own options: /proc/ptags shows the process (%s)",
	   strerror(v));

	umount2(MNT, MNT_DETACH);
	rmdir(MNT);
	pt_write(mine, "-\n");
	pt_write(theirs, "-\n");
	pt_stop(mine);
	pt_stop(theirs);
	return tap_done();
}
