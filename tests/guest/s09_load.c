// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §9 module rows and §3.1: the module cannot be removed while any
 * ptags instance is mounted; once every instance is unmounted it can, and
 * every tag set is released (the counters vanish with /sys/module/ptags);
 * loading it again mounts /proc/ptags with no other step and every
 * existing process, including one tagged before, starts untagged.
 *
 * Leaves the module loaded and /proc/ptags mounted.
 */
#define _GNU_SOURCE
#include <grp.h>
#include "guest.h"

#include <dirent.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#define MNT2 "/tmp/s09_ptags2"

static int unload(void)
{
	return syscall(SYS_delete_module, "ptags", O_NONBLOCK) ? errno : 0;
}

static int load_with(const char *params)
{
	int fd = open("/ptags.ko", O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, params, 0))
		err = errno;
	close(fd);
	return err;
}

static int load(void)
{
	return load_with("");
}

static bool exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

static bool busy(int err)
{
	return err == EBUSY || err == EAGAIN || err == EWOULDBLOCK;
}

/* Do the options of the mount on @dir (per /proc/mounts) contain @opt? */
static bool mounted_with(const char *dir, const char *opt)
{
	char line[1024], mp[512], opts[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %511s %*s %511s", mp, opts) == 2 &&
		    !strcmp(mp, dir) && strstr(opts, opt))
			found = true;
	if (f)
		fclose(f);
	return found;
}

/* Is a file system of type "ptags" mounted on @dir (per mountinfo)? */
static bool mounted_ptags(const char *dir)
{
	char line[1024], mp[512], *dash, fstype[64];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		die("mountinfo");
	while (fgets(line, sizeof(line), f)) {
		/* id parent maj:min root mountpoint ... - fstype source opts */
		if (sscanf(line, "%*d %*d %*s %*s %511s", mp) != 1)
			continue;
		dash = strstr(line, " - ");
		if (!dash || sscanf(dash + 3, "%63s", fstype) != 1)
			continue;
		if (!strcmp(mp, dir) && !strcmp(fstype, "ptags"))
			found = true;
	}
	fclose(f);
	return found;
}

static bool fs_registered(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "r");

	if (!f)
		die("/proc/filesystems");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "\tptags\n"))
			found = true;
	fclose(f);
	return found;
}

/* Entries of a ptags directory other than ".", "..", "self". */
static int other_entries(const char *dir)
{
	struct dirent *d;
	int n = 0;
	DIR *dp = opendir(dir);

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..") &&
		    strcmp(d->d_name, "self")) {
			diag("%s lists %s", dir, d->d_name);
			n++;
		}
	closedir(dp);
	return n;
}

/* @tagged processes with @live sets (bytes 0 when none is live). */
static bool counters_are(long tagged, long live)
{
	return pt_counters_are(live, tagged, live ? -1 : 0, "s09_load");
}

/* Make sure we leave the module loaded and mounted, whatever happened. */
static void restore(void)
{
	if (!exists("/sys/module/ptags")) {
		int err = load();

		if (err)
			die("cannot reload ptags: %s", strerror(err));
	}
	umount2(MNT2, MNT_DETACH);
	if (!mounted_ptags("/proc/ptags")) {
		mkdir("/proc/ptags", 0555);
		if (mount("ptags", "/proc/ptags", "ptags", 0, NULL))
			die("cannot remount /proc/ptags");
	}
}

/*
 * Make "modprobe ptags" and the alias lookup of request_module() able to
 * find the module, as an installed module would be: /lib/modules/RELEASE
 * with depmod's indexes.  A modprobe test run (ptmodprobe=1) has them.
 */
static void install_for_modprobe(void)
{
	char dir[256], cmd[1024];
	struct utsname u;

	if (uname(&u))
		die("uname");
	snprintf(dir, sizeof(dir), "/lib/modules/%s", u.release);
	snprintf(cmd, sizeof(cmd), "%s/modules.dep", dir);
	if (exists(cmd))
		return;
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/extra && cp /ptags.ko %s/extra/ && depmod -b / %s",
		 dir, dir, u.release);
	if (system(cmd))
		die("%s", cmd);
}

/* A child: mount -t ptags on a fresh directory; 0 or the errno. */
static int try_mount(void *arg)
{
	bool userns = arg != NULL;
	char dir[64];

	if (userns) {
		/* "unshare -Urmpf mount -t ptags ..." by an unprivileged user */
		uid_t uid = 65534;
		char map[64];
		int fd;

		pid_t c;
		int st;

		/* dumpable again after setuid, or /proc/self is root's */
		if (drop_privileges(uid) || prctl(PR_SET_DUMPABLE, 1) ||
		    unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID))
			return 100;
		fd = open("/proc/self/setgroups", O_WRONLY);
		if (fd < 0 || write(fd, "deny", 4) != 4)
			return 101;
		close(fd);
		snprintf(map, sizeof(map), "0 %u 1", uid);
		fd = open("/proc/self/uid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0)
			return 102;
		close(fd);
		if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL))
			return 103;
		/* the mount is made by pid 1 of the new pid namespace (-f) */
		c = fork();
		if (c < 0)
			return 105;
		if (c)
			return waitpid(c, &st, 0) == c && WIFEXITED(st) ?
			       WEXITSTATUS(st) : 106;
	}
	/* an unprivileged user mounts over a directory it cannot create */
	snprintf(dir, sizeof(dir), userns ? "/tmp" : "/tmp/s09_autoload");
	if (!userns && mkdir(dir, 0777) && errno != EEXIST)
		return 104;
	if (mount("ptags", dir, "ptags", 0, NULL) == 0) {
		umount2(dir, MNT_DETACH);
		return 0;
	}
	return errno;
}

/* SPEC §3.1: a mount attempt never loads the module. */
static void test_no_autoload(void)
{
	int st;

	install_for_modprobe();
	st = run_child(try_mount, (void *)1);
	ok(st == ENODEV && !exists("/sys/module/ptags"),
	   "SPEC §3.1: an unprivileged mount -t ptags in a new user namespace does not load the module (errno %d, loaded %d)",
	   st, exists("/sys/module/ptags"));
	st = run_child(try_mount, NULL);
	ok(st == ENODEV && !exists("/sys/module/ptags"),
	   "SPEC §3.1: root's mount -t ptags does not load the module either (errno %d, loaded %d)",
	   st, exists("/sys/module/ptags"));
	if (exists("/sys/module/ptags")) {
		/* leave it as the test expects it: unloaded */
		umount2("/proc/ptags", MNT_DETACH);
		usleep(100000);
		unload();
	}
}

/*
 * The automatic mount runs mount(8); put a script in its place for one
 * load.  @body is the script's text after "#!/bin/sh".
 */
#define MOUNT_BIN	"/bin/mount"
#define MOUNT_REAL	"/bin/mount.s09-real"

static void fake_mount(const char *body)
{
	char text[256];
	int fd;

	if (rename(MOUNT_BIN, MOUNT_REAL))
		die("rename " MOUNT_BIN);
	snprintf(text, sizeof(text), "#!/bin/sh\n%s\n", body);
	fd = open(MOUNT_BIN, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("write " MOUNT_BIN);
	close(fd);
}

static void real_mount(void)
{
	unlink(MOUNT_BIN);
	if (rename(MOUNT_REAL, MOUNT_BIN))
		die("restore " MOUNT_BIN);
}

/* Child: an unprivileged user's mount in a new user namespace; 0 or errno. */
static int userns_mount(void *arg)
{
	(void)arg;
	return try_mount((void *)1);
}

/* Is "cannot mount /proc/ptags: mount(8) exited with status 32" in dmesg? */
static bool logged(const char *what)
{
	char buf[1 << 16];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	bool found = false;
	ssize_t n;

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		buf[n] = 0;
		if (strstr(buf, what))
			found = true;
	}
	close(fd);
	return found;
}

/*
 * SPEC §3.1 and issue 9: the file system type is registered last, only
 * the load's own mount can create an instance while the load runs, and a
 * failed automatic mount fails the load with a clear message, leaving
 * nothing behind.  Runs with the module unloaded; leaves it unloaded.
 */
static void test_load_order(void)
{
	int err, st, p[2];
	pid_t c;

	/* mount(8) fails: the load fails, says why, leaves nothing. */
	fake_mount("exit 32");
	err = load();
	real_mount();
	ok(err == EIO && !exists("/sys/module/ptags") && !fs_registered() &&
	   !mounted_ptags("/proc/ptags"),
	   "issue 9: a failed automatic mount fails the load, nothing left behind (%s)",
	   strerror(err));
	ok(logged("cannot mount /proc/ptags: mount(8) exited with status 32"),
	   "issue 9: the kernel log says why the load failed");

	/*
	 * A slow mount(8): while the load waits for it, an unprivileged
	 * user-namespace mount is refused (the type is registered, the load
	 * not complete).
	 */
	if (pipe(p))
		die("pipe");
	fake_mount("sleep 2; exec /bin/busybox mount \"$@\"");
	c = tap_fork();
	if (!c) {
		close(p[0]);
		err = load();
		if (write(p[1], &err, sizeof(err)) != sizeof(err))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	while (!fs_registered() && waitpid(c, NULL, WNOHANG) == 0)
		usleep(10000);
	st = run_child(userns_mount, NULL);
	if (read(p[0], &err, sizeof(err)) != sizeof(err))
		err = -1;
	close(p[0]);
	wait_exit(c);
	real_mount();
	ok(st == EAGAIN,
	   "issue 9: while the load runs, an unprivileged mount gets EAGAIN, not an instance (%d: %s)",
	   st, strerror(st));
	ok(err == 0 && mounted_ptags("/proc/ptags"),
	   "issue 9: and the load itself completes (%s)", strerror(err));

	/* table_bits is chosen from memory like threads-max (issue 9). */
	{
		long bits = pt_param("table_bits"), kb = 0, want16, want32;
		char line[128];
		FILE *f = fopen("/proc/meminfo", "r");

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "MemTotal: %ld kB", &kb) == 1)
				break;
		if (f)
			fclose(f);
		/* threads-max = memory / (8 * THREAD_SIZE): 16 KiB, 32 KiB with KASAN */
		for (want16 = 0; (1L << (want16 + 1)) <= kb / 128; want16++)
			;
		for (want32 = 0; (1L << (want32 + 1)) <= kb / 256; want32++)
			;
		ok(bits == want16 || bits == want32,
		   "issue 9: table_bits is sized from memory (%ld; %ld kB gives %ld)",
		   bits, kb, want16);
	}

	if (umount2("/proc/ptags", 0) || unload())
		die("unload after test_load_order");
}

#define CHAIN_KIDS 40

/* The errno of uid 65534's open of stats/longest_chain; 0 if it opens. */
static int chain_as_nobody(void *arg)
{
	int fd;

	(void)arg;
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return 255;
	fd = open("/sys/module/ptags/stats/longest_chain", O_RDONLY);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

/*
 * stats/longest_chain (issue 24): the entries in the table's longest
 * bucket chain, counted at the read.  With table_bits=4 (16 buckets), 40
 * tagged processes must put at least 3 in one bucket.  Called unloaded;
 * returns unloaded.
 */
static void test_chains(void)
{
	long none, most, after;
	pid_t kids[CHAIN_KIDS];
	struct stat st;
	int w[CHAIN_KIDS], i, err, tagged = 0;
	char c;

	err = load_with("table_bits=4");
	ok(err == 0 && pt_param("table_bits") == 4,
	   "issue 24: loads with table_bits=4 (%s)", strerror(err));
	if (err)
		return;
	none = pt_stat("longest_chain");
	for (i = 0; i < CHAIN_KIDS; i++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC))
			die("pipe");
		kids[i] = tap_fork();
		if (kids[i] == 0) {
			while (i--)
				close(w[i]);	/* only the parent holds them */
			close(p[1]);
			_exit(read(p[0], &c, 1) < 0);
		}
		close(p[0]);
		w[i] = p[1];
		tagged += pt_write(kids[i], "+chain\n") == 0;
	}
	most = pt_stat("longest_chain");
	for (i = 0; i < CHAIN_KIDS; i++) {
		close(w[i]);
		wait_exit(kids[i]);
	}
	after = pt_stat("longest_chain");
	ok(none == 0, "issue 24: stats/longest_chain reads 0 with nothing tagged (%ld)", none);
	/* All 40 in one of 16 buckets: a chance of 16^-39. */
	ok(tagged == CHAIN_KIDS && most >= (CHAIN_KIDS + 15) / 16 && most < CHAIN_KIDS,
	   "issue 24: %d tagged processes in 16 buckets: the longest chain holds %d to %d (%ld)",
	   tagged, (CHAIN_KIDS + 15) / 16, CHAIN_KIDS - 1, most);
	ok(after == 0, "issue 24: and 0 again once they exited (%ld)", after);
	if (stat("/sys/module/ptags/stats/longest_chain", &st))
		st.st_mode = 0;
	ok((st.st_mode & 0777) == 0400,
	   "issue 24: longest_chain walks every bucket, so only root reads it (mode %o)",
	   st.st_mode & 0777);
	err = run_child(chain_as_nobody, NULL);
	ok(err == EACCES, "issue 24: uid 65534 cannot open longest_chain (%s)", strerror(err));
	if (umount2("/proc/ptags", 0) || unload())
		die("unload after test_chains");
}

/* A child that blocks until its pipe closes, then exits @code. */
static pid_t sleeper(int *wfd)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		die("pipe");
	pid = tap_fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) < 0)
			_exit(3);
		/* after the reload: we start untagged and a fork still works */
		if (!pt_is(0, ""))
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

int main(void)
{
	int w1, w2, err, fd, st;
	pid_t c1, c2, p;
	char buf[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!mounted_ptags("/proc/ptags"))
		die("/proc/ptags is not mounted at start");

	if (!counters_are(0, 0))
		diag("warning: counters not 0 at the start");
	/* Tagged processes alive across the unload. */
	c1 = sleeper(&w1);
	c2 = sleeper(&w2);
	if (pt_write(c1, "+@a\n!a=xyz\n+@k\n") || pt_write(c2, "+b\n") ||
	    pt_write(0, "+me\n"))
		die("tagging");
	ok(counters_are(3, 3), "setup: three tagged processes");
	/* a non-default parameter, to see the reload start from defaults */
	ok(pt_set_param("max_tags", 7) == 0 && pt_param("max_tags") == 7, "setup: max_tags set to 7");

	err = unload();
	ok(busy(err), "SPEC §3.1: delete_module fails while /proc/ptags is mounted (EBUSY/EAGAIN, got %s)", strerror(err));
	if (!err) {
		restore();
		goto out;
	}
	ok(exists("/sys/module/ptags") && pt_is(c1, "@a=xyz\n@k\n"),
	   "SPEC §3.1: the refused removal leaves the module and the tags in place");

	/* A second instance. */
	mkdir(MNT2, 0755);
	err = mount("ptags", MNT2, "ptags", 0, NULL) ? errno : 0;
	ok(err == 0, "SPEC §3.1: mount -t ptags mounts a second instance (%s)", strerror(err));
	snprintf(buf, sizeof(buf), MNT2 "/%d", (int)c1);
	fd = open(buf, O_RDONLY);
	ok(fd >= 0, "SPEC §3.1: the second instance serves the tagged process");
	if (fd >= 0)
		close(fd);

	err = umount2("/proc/ptags", 0) ? errno : 0;
	ok(err == 0, "SPEC §3.1: umount /proc/ptags (%s)", strerror(err));
	err = unload();
	ok(busy(err), "SPEC §3.1: delete_module still fails while a second instance is mounted (got %s)", strerror(err));
	ok(exists("/sys/module/ptags"), "SPEC §3.1: the module is still loaded");
	err = umount2(MNT2, 0) ? errno : 0;
	ok(err == 0, "SPEC §3.1: umount the second instance (%s)", strerror(err));

	ok(pt_stat("tagged_processes") == 3, "SPEC §9: unmounting alone releases no tag (tagged_processes %ld)",
	   pt_stat("tagged_processes"));

	err = unload();
	ok(err == 0, "SPEC §3.1: once every instance is unmounted delete_module succeeds (%s)", strerror(err));
	if (err) {
		restore();
		goto out;
	}
	ok(!exists("/sys/module/ptags") && pt_stat("live_sets") == -1,
	   "SPEC §9: module removed: its counters vanish with /sys/module/ptags");
	ok(!fs_registered(), "SPEC §3.1: the ptags file system type is unregistered");
	snprintf(buf, sizeof(buf), "/proc/ptags/%d", (int)c1);
	ok(!exists(buf), "SPEC §9: no /proc/ptags entry while unloaded");

	/* Processes keep working without the module. */
	fflush(stdout);
	p = fork();
	if (p == 0) {
		char *argv[] = { "true", NULL };

		execv("/bin/true", argv);
		_exit(127);
	}
	ok(p > 0 && wait_exit(p) == 0, "SPEC §9: fork+exec of a formerly tagged process works while unloaded");

	test_no_autoload();

	/* Reload under a /proc with hidepid: /proc/ptags takes its options. */
	if (mount("proc", "/proc", "proc", MS_REMOUNT, "hidepid=invisible,gid=4242"))
		die("remount /proc with hidepid");
	err = load();
	ok(err == 0, "SPEC §3.1: finit_module(/ptags.ko) loads the module again (%s)", strerror(err));
	if (err)
		die("reload failed: %s", strerror(err));
	ok(mounted_with("/proc/ptags", "hidepid=invisible") &&
	   mounted_with("/proc/ptags", "gid=4242"),
	   "SPEC §3.1: the automatic mount takes hidepid= and gid= from /proc");
	if (mount("proc", "/proc", "proc", MS_REMOUNT, "hidepid=off,gid=0"))
		die("remount /proc without hidepid");
	/* fails on a module without the options: the check below says so */
	mount("ptags", "/proc/ptags", "ptags", MS_REMOUNT, "hidepid=off,gid=0");
	ok(!mounted_with("/proc/ptags", "hidepid="), "setup: /proc/ptags back to hidepid=off");
	ok(mounted_ptags("/proc/ptags"), "SPEC §3.1: after loading, /proc/ptags is mounted with no other step");
	ok(exists("/proc/ptags/self"), "SPEC §3.1: /proc/ptags/self exists right after loading");
	ok(pt_is(c1, "") && pt_is(c2, "") && pt_is(0, ""),
	   "SPEC §9: module loaded: every existing process, including those tagged before, starts untagged");
	ok(other_entries("/proc/ptags") == 0, "SPEC §9/§3.2: the fresh listing shows no tagged process");
	ok(counters_are(0, 0), "SPEC §8/§9: fresh counters live_sets, tagged_processes, bytes read 0");
	ok(pt_param("max_tags") == 4000, "SPEC §8: the reloaded module starts from the default max_tags (got %ld)",
	   pt_param("max_tags"));
	ok(pt_write(c1, "+again\n") == 0 && pt_is(c1, "again\n") && counters_are(1, 1),
	   "SPEC §9: the reloaded module tags processes again");
	if (pt_write(c1, "-\n"))
		die("untag");

	/* The children see themselves untagged and exit normally. */
	close(w1);
	close(w2);
	w1 = w2 = -1;
	st = wait_exit(c1);
	ok(st == 0, "SPEC §9: a process tagged before the reload reads itself untagged (status %d)", st);
	st = wait_exit(c2);
	ok(st == 0, "SPEC §9: the second one too (status %d)", st);

	/* A lazily detached mount with an open file still pins the module. */
	fd = open("/proc/ptags/self", O_RDONLY);
	if (fd < 0)
		die("open /proc/ptags/self");
	err = umount2("/proc/ptags", MNT_DETACH) ? errno : 0;
	ok(err == 0, "setup: lazy umount of /proc/ptags with a file open (%s)", strerror(err));
	err = unload();
	ok(busy(err), "SPEC §3.1: an open file of a detached instance keeps the module (got %s)", strerror(err));
	ok(read(fd, buf, sizeof(buf)) >= 0, "SPEC §3.1: the open file still reads");
	close(fd);
	/* fput is deferred to the return to user space: done by now */
	err = unload();
	if (busy(err)) {
		usleep(200000);
		err = unload();
	}
	ok(err == 0, "SPEC §3.1: after the last file closes the module can be removed (%s)", strerror(err));
	if (err == 0)
		test_load_order();
	if (err == 0)
		test_chains();
	if (err == 0) {
		err = load();
		ok(err == 0 && mounted_ptags("/proc/ptags"), "SPEC §3.1: loaded and mounted again (%s)",
		   strerror(err));
	}
out:
	restore();
	if (w1 >= 0) {
		pt_write(c1, "-\n");
		pt_write(c2, "-\n");
		pt_write(0, "-\n");
		close(w1);
		close(w2);
		wait_exit(c1);
		wait_exit(c2);
	}
	ok(mounted_ptags("/proc/ptags") && exists("/sys/module/ptags"),
	   "cleanup: module loaded and /proc/ptags mounted at the end");
	ok(counters_are(0, 0), "cleanup: no tagged process left");
	rmdir(MNT2);
	return tap_done();
}
