// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.1 (the file system) and §3.2 (entries) against the real module:
 * the automatic /proc/ptags mount, a second instance, lookups of live,
 * threaded, zombie, reaped and malformed pids, the self link and the
 * directory listing.
 */
#define _GNU_SOURCE
#include <grp.h>	/* setgroups(), used by guest.h */
#include "guest.h"

#include <dirent.h>
#include <pthread.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define MNT2 "/tmp/s03_ptx"

/* ---------------------------------------------------------------- helpers */

/*
 * Type of the topmost mount at @dir according to /proc/self/mountinfo, or
 * "" when nothing is mounted there.
 */
static void mount_type(const char *dir, char *type, size_t len)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "r");

	type[0] = 0;
	if (!f)
		die("open mountinfo");
	while (fgets(line, sizeof(line), f)) {
		char mp[1024], fstype[256];
		char *sep;

		/* id parent maj:min root mountpoint ... - fstype source opts */
		if (sscanf(line, "%*s %*s %*s %*s %1023s", mp) != 1)
			continue;
		if (strcmp(mp, dir))
			continue;
		sep = strstr(line, " - ");
		if (!sep || sscanf(sep + 3, "%255s", fstype) != 1)
			continue;
		snprintf(type, len, "%s", fstype);
	}
	fclose(f);
}

static bool mounts_has(const char *dir, const char *fstype)
{
	char line[4096], mp[1024], ty[256];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		die("open /proc/mounts");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %1023s %255s", mp, ty) == 2 &&
		    !strcmp(mp, dir) && !strcmp(ty, fstype))
			found = true;
	fclose(f);
	return found;
}

/* errno of stat() on DIR/NAME (0 on success). */
static int lookup_err(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) ? errno : 0;
}

static int open_err(const char *dir, const char *name, int flags)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, flags);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

#define MAX_ENTS 256
struct listing {
	int n;
	char name[MAX_ENTS][256];
};

static void list_dir(const char *dir, struct listing *l)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	l->n = 0;
	if (!d)
		die("opendir %s", dir);
	while ((de = readdir(d))) {
		if (l->n == MAX_ENTS)
			die("too many entries in %s", dir);
		snprintf(l->name[l->n++], sizeof(l->name[0]), "%s", de->d_name);
	}
	closedir(d);
}

static int count_name(const struct listing *l, const char *name)
{
	int i, c = 0;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], name))
			c++;
	return c;
}

static int count_pid(const struct listing *l, pid_t pid)
{
	char s[32];

	snprintf(s, sizeof(s), "%d", (int)pid);
	return count_name(l, s);
}

static void show_listing(const struct listing *l)
{
	char buf[2048] = "";
	int i;

	for (i = 0; i < l->n; i++) {
		strncat(buf, l->name[i], sizeof(buf) - strlen(buf) - 2);
		strncat(buf, " ", sizeof(buf) - strlen(buf) - 1);
	}
	diag("listing: %s", buf);
}

/* A thread that reports its tid and what it sees, then waits. */
struct thr {
	pthread_t t;
	pid_t tid;
	char self_link[64];
	char self_tags[256];
	int ready[2];
	int go[2];
};

static void *thr_main(void *arg)
{
	struct thr *t = arg;
	char c = 1;

	t->tid = (pid_t)syscall(SYS_gettid);
	link_read(PT_ROOT "/self", t->self_link, sizeof(t->self_link));
	if (file_read(PT_ROOT "/self", t->self_tags, sizeof(t->self_tags)) < 0)
		strcpy(t->self_tags, "<error>");
	if (write(t->ready[1], &c, 1) != 1)
		return NULL;
	while (read(t->go[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* ------------------------------------------------------------------ tests */

static void test_mounts(void)
{
	char type[256], buf[512], buf2[512];
	long ref0, ref1, ref2;
	pid_t me = getpid();
	struct listing l;
	struct stat st;
	int err;

	mount_type(PT_ROOT, type, sizeof(type));
	ok(!strcmp(type, "ptags"),
	   "SPEC §3.1: /proc/ptags is a mount of type ptags after load (mountinfo says '%s')",
	   type);
	ok(mounts_has(PT_ROOT, "ptags"),
	   "SPEC §3.1: /proc/mounts lists /proc/ptags with type ptags");
	ok(stat(PT_ROOT, &st) == 0 && S_ISDIR(st.st_mode),
	   "SPEC §3.1: /proc/ptags is a directory");

	ref0 = file_long("/sys/module/ptags/refcnt");
	diag("module refcnt with only /proc/ptags mounted: %ld", ref0);

	if (mkdir(MNT2, 0755) && errno != EEXIST)
		die("mkdir " MNT2);
	err = mount("ptags", MNT2, "ptags", 0, NULL) ? errno : 0;
	if (!ok(err == 0, "SPEC §3.1: mount -t ptags ptags " MNT2 " succeeds (%s)",
		strerror(err)))
		return;
	mount_type(MNT2, type, sizeof(type));
	ok(!strcmp(type, "ptags"), "SPEC §3.1: the second instance is of type ptags ('%s')",
	   type);

	{
		struct stat a, b;

		if (!stat(PT_ROOT, &a) && !stat(MNT2, &b))
			diag("st_dev of /proc/ptags %lx, of the second instance %lx",
			     (unsigned long)a.st_dev, (unsigned long)b.st_dev);
	}
	ref1 = file_long("/sys/module/ptags/refcnt");
	diag("module refcnt with a second instance mounted: %ld", ref1);
	ok(ref1 >= 1 && ref1 >= ref0,
	   "SPEC §3.1: while a second instance is mounted the module is pinned (refcnt %ld, was %ld)",
	   ref1, ref0);

	/* Same tags through both instances, in both directions. */
	ok(pt_write(0, "+S03:mnt\n!S03:mnt=one\n") == 0, "SPEC §3.1: tag self through /proc/ptags");
	snprintf(buf, sizeof(buf), MNT2 "/%d", (int)me);
	ok(file_read(buf, buf2, sizeof(buf2)) >= 0 && !strcmp(buf2, "S03:mnt=one\n"),
	   "SPEC §3.1: the second instance shows the same tags for our pid ('%s')", buf2);
	ok(file_read(MNT2 "/self", buf2, sizeof(buf2)) >= 0 &&
	   !strcmp(buf2, "S03:mnt=one\n"),
	   "SPEC §3.1: the second instance's self reads our tags ('%s')", buf2);
	ok(file_write(buf, "+@S03:two\n") == 0 && pt_is(0, "S03:mnt=one\n@S03:two\n"),
	   "SPEC §3.1: a write through the second instance changes the same tag set");
	list_dir(MNT2, &l);
	ok(count_pid(&l, me) == 1 && count_name(&l, "self") == 1,
	   "SPEC §3.1/§3.2: the second instance lists self and our tagged pid once");
	ok(pt_write(0, "-\n") == 0 && pt_is(0, ""), "cleanup: untag self");
	list_dir(MNT2, &l);
	ok(count_pid(&l, me) == 0,
	   "SPEC §3.2: after untagging, the second instance no longer lists us");

	err = umount(MNT2) ? errno : 0;
	ok(err == 0, "SPEC §3.1: unmounting the second instance works (%s)", strerror(err));
	mount_type(MNT2, type, sizeof(type));
	ok(type[0] == 0, "SPEC §3.1: after umount nothing is mounted at " MNT2 " ('%s')", type);
	mount_type(PT_ROOT, type, sizeof(type));
	ok(!strcmp(type, "ptags"), "SPEC §3.1: /proc/ptags is still mounted after that umount");
	ok(pt_write(0, "+S03:after\n") == 0 && pt_is(0, "S03:after\n") &&
	   pt_write(0, "-\n") == 0 && pt_is(0, ""),
	   "SPEC §3.1: /proc/ptags still works after the second instance is gone");
	ref2 = file_long("/sys/module/ptags/refcnt");
	diag("module refcnt after umount: %ld", ref2);
	ok(ref2 == ref0, "SPEC §3.1: the refcount returns to its value before the second mount (%ld vs %ld)",
	   ref2, ref0);
	rmdir(MNT2);
}

static void test_self_and_untagged(void)
{
	char link[64], want[32], buf[256];
	struct idler s;
	struct listing l;
	struct stat st;
	pid_t me = getpid();
	ssize_t n;

	ok(lstat(PT_ROOT "/self", &st) == 0 && S_ISLNK(st.st_mode),
	   "SPEC §3.2: /proc/ptags/self is a symbolic link");
	n = link_read(PT_ROOT "/self", link, sizeof(link));
	snprintf(want, sizeof(want), "%d", (int)me);
	ok(n > 0 && !strcmp(link, want),
	   "SPEC §3.2: readlink(/proc/ptags/self) gives our tgid ('%s', want '%s')", link, want);
	ok(stat(PT_ROOT "/self", &st) == 0 && S_ISREG(st.st_mode),
	   "SPEC §3.2: /proc/ptags/self resolves to a regular file (our entry)");

	ok(pt_is(0, ""), "SPEC §3.2: our own untagged entry reads empty via self");
	ok(pt_write(0, "+S03:self\n") == 0 && pt_is(0, "S03:self\n") && pt_is(me, "S03:self\n"),
	   "SPEC §3.2: reading self gives our own tags (same as by pid)");
	ok(pt_write(0, "-\n") == 0, "cleanup: untag self");

	idler_start(&s);
	snprintf(buf, sizeof(buf), "%d", (int)s.pid);
	ok(lookup_err(PT_ROOT, buf) == 0,
	   "SPEC §3.2: /proc/ptags/PID exists for an untagged live process");
	{
		char path[64];

		snprintf(path, sizeof(path), PT_ROOT "/%d", (int)s.pid);
		ok(stat(path, &st) == 0 && S_ISREG(st.st_mode),
		   "SPEC §3.2: the entry of a live process is a regular file");
	}
	ok(pt_is(s.pid, ""), "SPEC §3.2: an untagged live process reads empty");
	list_dir(PT_ROOT, &l);
	ok(count_pid(&l, s.pid) == 0,
	   "SPEC §3.2: an untagged live process is not listed");
	idler_reap(&s);
	ok(lookup_err(PT_ROOT, buf) == ENOENT && open_err(PT_ROOT, buf, O_RDONLY) == ENOENT,
	   "SPEC §3.2: an exited and reaped pid fails lookup with ENOENT");
	ok(open_err(PT_ROOT, buf, O_WRONLY) == ENOENT,
	   "SPEC §3.2: opening a reaped pid for writing fails with ENOENT");
}

static void test_nonexistent(void)
{
	static const char *bad[] = {
		"0123", "abc", "-1", "4294967296", "4294967297", "0", "00",
		"+1", " 1", "1 ", "1a", "0x1", "2147483648", "99999999999999999999",
		"self2", "selfx", "Self", "..1", "1.", "",
	};
	char buf[32];
	long max;
	pid_t p;
	size_t i;

	max = file_long("/proc/sys/kernel/pid_max");
	if (max < 2)
		max = 32768;
	for (p = max - 1; p > 300; p--)
		if (kill(p, 0) && errno == ESRCH)
			break;
	snprintf(buf, sizeof(buf), "%d", (int)p);
	ok(lookup_err(PT_ROOT, buf) == ENOENT,
	   "SPEC §3.2: a pid with no process (%d) fails lookup with ENOENT", (int)p);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int e1, e2;

		if (!bad[i][0])
			continue;
		e1 = lookup_err(PT_ROOT, bad[i]);
		e2 = open_err(PT_ROOT, bad[i], O_RDWR | O_CREAT);
		ok(e1 == ENOENT && (e2 == ENOENT || e2 == EACCES || e2 == EPERM ||
				    e2 == EROFS),
		   "SPEC §3.2: name '%s' is not an entry (stat %s, open O_CREAT %s)", bad[i],
		   strerror(e1), strerror(e2));
	}
	ok(mkdir(PT_ROOT "/s03dir", 0755) != 0 && lookup_err(PT_ROOT, "s03dir") == ENOENT,
	   "SPEC §3.2: mkdir inside /proc/ptags fails and creates nothing");
}

static void test_threads(void)
{
	struct thr t;
	struct listing l;
	char want[32], path[64], c = 0;

	memset(&t, 0, sizeof(t));
	if (pipe(t.ready) || pipe(t.go))
		die("pipe");
	ok(pt_write(0, "+S03:thr\n!S03:thr=x\n") == 0, "setup: tag self before starting a thread");
	if (pthread_create(&t.t, NULL, thr_main, &t))
		die("pthread_create");
	if (read(t.ready[0], &c, 1) != 1)
		die("thread ready");
	diag("tid %d, tgid %d", (int)t.tid, (int)getpid());
	ok(t.tid != getpid(), "setup: the thread has its own tid");

	snprintf(want, sizeof(want), "%d", (int)getpid());
	ok(!strcmp(t.self_link, want),
	   "SPEC §3.2: readlink(self) from a thread gives the tgid ('%s', want '%s')",
	   t.self_link, want);
	ok(!strcmp(t.self_tags, "S03:thr=x\n"),
	   "SPEC §2/§3.2: a thread reading self sees the process's tags ('%s')", t.self_tags);
	snprintf(path, sizeof(path), "%d", (int)t.tid);
	ok(lookup_err(PT_ROOT, path) == 0, "SPEC §3.2: /proc/ptags/TID exists for a thread id");
	ok(pt_is(t.tid, "S03:thr=x\n"),
	   "SPEC §2/§3.2: /proc/ptags/TID reads the process's tags");
	ok(pt_write(t.tid, "+S03:via-tid\n") == 0,
	   "SPEC §2: writing through the tid succeeds");
	ok(pt_is(getpid(), "S03:thr=x\nS03:via-tid\n") &&
	   pt_is(t.tid, "S03:thr=x\nS03:via-tid\n"),
	   "SPEC §2: a write through the tid changed the process's tag set");
	list_dir(PT_ROOT, &l);
	ok(count_pid(&l, getpid()) == 1, "SPEC §3.2: the tagged process is listed once by tgid");
	if (!ok(count_pid(&l, t.tid) == 0,
		"SPEC §3.2: a thread id does not appear as its own entry"))
		show_listing(&l);

	if (write(t.go[1], &c, 1) != 1)
		die("thread go");
	pthread_join(t.t, NULL);
	close(t.ready[0]);
	close(t.ready[1]);
	close(t.go[0]);
	close(t.go[1]);
	/*
	 * pthread_join() returns when the kernel clears the tid, which is
	 * before the thread is fully gone: wait until procfs drops it too.
	 */
	{
		char tp[64];
		struct stat st;
		int i;

		snprintf(tp, sizeof(tp), "/proc/%d/task/%d", (int)getpid(), (int)t.tid);
		for (i = 0; i < 200 && stat(tp, &st) == 0; i++)
			usleep(10000);
		ok(i < 200, "setup: the thread is gone from /proc/%d/task", (int)getpid());
	}
	ok(lookup_err(PT_ROOT, path) == ENOENT,
	   "SPEC §3.2: after the thread exited, its tid fails lookup with ENOENT");
	ok(pt_is(0, "S03:thr=x\nS03:via-tid\n"),
	   "SPEC §2: the process keeps its tags when one of its threads exits");
	ok(pt_write(0, "-\n") == 0 && pt_is(0, ""), "cleanup: untag self");
}

/* Child whose main thread exits while a second thread lives on. */
static int leader_pipe_go[2], leader_pipe_ready[2];

static void *leader_worker(void *arg)
{
	char c = 1;

	(void)arg;
	if (write(leader_pipe_ready[1], &c, 1) != 1)
		_exit(3);
	while (read(leader_pipe_go[0], &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
	return NULL;
}

static void test_leader_exit(void)
{
	pid_t pid;
	char c, name[32];
	struct listing l;
	int status, i;

	if (pipe(leader_pipe_go) || pipe(leader_pipe_ready))
		die("pipe");
	pid = tap_fork();
	if (pid == 0) {
		pthread_t t;

		close(leader_pipe_go[1]);
		if (read(leader_pipe_go[0], &c, 1) != 1)	/* wait for tags */
			_exit(4);
		if (pthread_create(&t, NULL, leader_worker, NULL))
			_exit(5);
		syscall(SYS_exit, 0);	/* only the main thread exits */
		_exit(6);
	}
	close(leader_pipe_go[0]);
	close(leader_pipe_ready[1]);
	ok(pt_write(pid, "+S03:leader\n") == 0, "setup: root tags a child");
	c = 1;
	if (write(leader_pipe_go[1], &c, 1) != 1)
		die("go");
	if (read(leader_pipe_ready[0], &c, 1) != 1)
		die("worker ready");
	/* Wait until the main thread is gone (its /proc/PID/task entry). */
	for (i = 0; i < 200; i++) {
		char tp[64];
		struct stat st;

		snprintf(tp, sizeof(tp), "/proc/%d/task/%d", (int)pid, (int)pid);
		if (stat(tp, &st))
			break;
		usleep(10000);
	}
	snprintf(name, sizeof(name), "%d", (int)pid);
	ok(lookup_err(PT_ROOT, name) == 0 && pt_is(pid, "S03:leader\n"),
	   "SPEC §3.2: a process whose main thread exited but another thread lives keeps its entry and tags");
	list_dir(PT_ROOT, &l);
	ok(count_pid(&l, pid) == 1,
	   "SPEC §3.2: such a process is still listed (it is not a zombie)");
	close(leader_pipe_go[1]);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child with exited leader exited cleanly");
	close(leader_pipe_ready[0]);
	ok(lookup_err(PT_ROOT, name) == ENOENT, "SPEC §3.2: after full exit the entry is gone");
}

static void test_zombie_and_listing(void)
{
	struct idler k[4], z;
	struct listing l;
	char name[32];
	long tp0, tp1, tp2;
	int i, j, other = 0;
	bool only_expected = true;

	tp0 = pt_stat("tagged_processes");
	idler_start(&z);
	ok(pt_write(z.pid, "+S03:zombie\n+@S03:kept\n") == 0 && pt_is(z.pid, "@S03:kept\nS03:zombie\n"),
	   "setup: tag a child that will become a zombie");
	list_dir(PT_ROOT, &l);
	ok(count_pid(&l, z.pid) == 1, "SPEC §3.2: the tagged child is listed before it exits");
	tp1 = pt_stat("tagged_processes");
	idler_zombie(&z);
	snprintf(name, sizeof(name), "%d", (int)z.pid);
	{
		char tp[64];
		struct stat st;

		snprintf(tp, sizeof(tp), "/proc/%d", (int)z.pid);
		ok(stat(tp, &st) == 0, "setup: the exited child is a zombie (still in /proc)");
	}
	ok(lookup_err(PT_ROOT, name) == ENOENT,
	   "SPEC §3.2: a tagged zombie fails lookup with ENOENT");
	ok(open_err(PT_ROOT, name, O_RDONLY) == ENOENT && open_err(PT_ROOT, name, O_WRONLY) == ENOENT,
	   "SPEC §3.2: opening a zombie's entry fails with ENOENT");
	list_dir(PT_ROOT, &l);
	ok(count_pid(&l, z.pid) == 0, "SPEC §3.2: a tagged zombie is not listed");
	tp2 = pt_stat("tagged_processes");
	ok(tp1 == tp0 + 1 && tp2 == tp0,
	   "SPEC §3.2/§8: a zombie holds no tags (tagged_processes %ld -> %ld -> %ld)", tp0, tp1, tp2);
	idler_reap(&z);
	ok(lookup_err(PT_ROOT, name) == ENOENT, "SPEC §3.2: the reaped pid fails lookup too");

	/* Listing: tag k[0], k[2] and ourselves; k[1], k[3] stay untagged. */
	for (i = 0; i < 4; i++)
		idler_start(&k[i]);
	ok(pt_write(k[0].pid, "+S03:list\n") == 0 && pt_write(k[2].pid, "+@S03:list\n!S03:list=2\n") == 0 &&
	   pt_write(0, "+S03:me\n") == 0, "setup: tag two children and ourselves");
	list_dir(PT_ROOT, &l);
	show_listing(&l);
	ok(count_name(&l, ".") == 1 && count_name(&l, "..") == 1 && count_name(&l, "self") == 1,
	   "SPEC §3.2: the listing has '.', '..' and 'self' once each");
	ok(count_pid(&l, k[0].pid) == 1 && count_pid(&l, k[2].pid) == 1,
	   "SPEC §3.2: each tagged child appears exactly once");
	ok(count_pid(&l, getpid()) == 1, "SPEC §3.2: our own tagged tgid appears exactly once");
	ok(count_pid(&l, k[1].pid) == 0 && count_pid(&l, k[3].pid) == 0,
	   "SPEC §3.2: untagged children are not listed");
	for (j = 0; j < l.n; j++) {
		const char *n = l.name[j];
		char *end;
		long v;

		if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, "self"))
			continue;
		v = strtol(n, &end, 10);
		if (*end || v <= 0 || (n[0] == '0')) {
			only_expected = false;
			diag("unexpected entry '%s'", n);
			continue;
		}
		if (v != k[0].pid && v != k[2].pid && v != getpid()) {
			/* Any other listed pid must really be tagged. */
			other++;
			if (pt_is((pid_t)v, "")) {
				only_expected = false;
				diag("listed pid %ld has no tags", v);
			}
		}
	}
	ok(only_expected, "SPEC §3.2: nothing but '.', '..', 'self' and tagged tgids is listed");
	ok(other == 0, "SPEC §3.2: no other process is tagged in the guest (%d others)", other);

	/* Untag one child: it disappears from the listing. */
	ok(pt_write(k[0].pid, "-\n") == 0, "setup: untag one child");
	list_dir(PT_ROOT, &l);
	ok(count_pid(&l, k[0].pid) == 0 && count_pid(&l, k[2].pid) == 1,
	   "SPEC §3.2: an untagged process leaves the listing, the tagged one stays");
	snprintf(name, sizeof(name), "%d", (int)k[0].pid);
	ok(lookup_err(PT_ROOT, name) == 0 && pt_is(k[0].pid, ""),
	   "SPEC §3.2: the untagged child is still looked up (reads empty)");
	for (i = 0; i < 4; i++)
		idler_reap(&k[i]);
	ok(pt_write(0, "-\n") == 0 && pt_is(0, ""), "cleanup: untag self");
	list_dir(PT_ROOT, &l);
	ok(count_pid(&l, k[2].pid) == 0 && count_pid(&l, getpid()) == 0,
	   "SPEC §3.2: after exit and untagging, none of them is listed");
}

/*
 * A listing's inode numbers are stat's: ls -i, find -inum and du agree
 * with the entries they list (the same number for a process in every
 * listing and lookup of one mount).
 */
static void test_inode_numbers(void)
{
	char path[64], name[16];
	ino_t listed = 0, self = 0;
	struct stat st, sst, rst;
	struct dirent *d;
	DIR *dir;

	if (pt_write(0, "+ino\n"))
		die("tag self");
	snprintf(name, sizeof(name), "%d", (int)getpid());
	dir = opendir(PT_ROOT);
	if (!dir)
		die("opendir");
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, name))
			listed = d->d_ino;
		if (!strcmp(d->d_name, "self"))
			self = d->d_ino;
	}
	closedir(dir);
	if (lstat(PT_ROOT "/self", &sst) || stat(PT_ROOT, &rst))
		die("stat " PT_ROOT);
	ok(self == sst.st_ino && rst.st_ino != sst.st_ino && rst.st_ino != listed,
	   "the same for \"self\" (%lu, %lu), and the root's differs (%lu)",
	   (unsigned long)self, (unsigned long)sst.st_ino, (unsigned long)rst.st_ino);
	snprintf(path, sizeof(path), PT_ROOT "/%s", name);
	if (stat(path, &st))
		die("stat %s", path);
	ok(listed && st.st_ino == listed,
	   "SPEC §3.2: the listing's inode number of our entry is stat's (%lu, %lu)",
	   (unsigned long)listed, (unsigned long)st.st_ino);
	pt_write(0, "-\n");
}

int main(void)
{
	if (pt_write(0, "-\n"))
		die("cannot clear own tags");
	test_mounts();
	test_self_and_untagged();
	test_nonexistent();
	test_threads();
	test_leader_exit();
	test_zombie_and_listing();
	test_inode_numbers();
	pt_write(0, "-\n");
	return tap_done();
}
