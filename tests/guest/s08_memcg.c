// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §8: every allocation made for a caller is charged to the caller's
 * memory cgroup.  A reader in its own cgroup holds many half-read
 * snapshots of a large set, then many half-done listings of many tagged
 * processes: its cgroup's memory.current must grow by at least what those
 * hold, and fall back once the descriptors are closed.
 */
#include "guest.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#define CG		"/tmp/s08_cg"
#define CG_CHILD	CG "/reader"
#define NFDS		64
#define NPROCS		1000
#define NDIRS		200

static long cg_current(void)
{
	return file_long(CG_CHILD "/memory.current");
}

static bool cg_setup(void)
{
	mkdir(CG, 0755);
	if (mount("none", CG, "cgroup2", 0, NULL) && errno != EBUSY)
		return false;
	if (file_write(CG "/cgroup.subtree_control", "+memory\n"))
		return false;
	mkdir(CG_CHILD, 0755);
	return access(CG_CHILD "/memory.current", R_OK) == 0;
}

static void cg_enter(void)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (file_write(CG_CHILD "/cgroup.procs", pid))
		_exit(90);
}

/* Report a number to the parent through @fd. */
static void put_long(int fd, long v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		_exit(91);
}

static long get_long(int fd)
{
	long v = -1;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return v;
}

/*
 * Child: in the test cgroup, @n descriptors each opened and half used by
 * @open_one(@arg); reports how much the cgroup grew while they were open,
 * and after they were closed.
 */
static void hold(int n, int (*open_one)(void *), void *arg, int out)
{
	long before, during, after;
	int fds[NDIRS > NFDS ? NDIRS : NFDS], i;

	cg_enter();
	before = cg_current();
	for (i = 0; i < n; i++) {
		fds[i] = open_one(arg);
		if (fds[i] < 0)
			_exit(92);
	}
	during = cg_current();
	for (i = 0; i < n; i++)
		close(fds[i]);
	usleep(100000);
	after = cg_current();
	put_long(out, during - before);
	put_long(out, after - before);
	_exit(0);
}

/* A half-read snapshot of the process @arg. */
static int open_snapshot(void *arg)
{
	char path[64], c;
	int fd;

	pt_path(path, sizeof(path), *(pid_t *)arg);
	fd = open(path, O_RDONLY);
	if (fd >= 0 && read(fd, &c, 1) != 1)
		return -1;
	return fd;
}

/* A half-done listing: ".", ".." and "self" fit in 80 bytes, no pid. */
static int open_listing(void *arg)
{
	char buf[80];
	int fd = open(PT_ROOT, O_RDONLY | O_DIRECTORY);

	(void)arg;
	if (fd >= 0 && syscall(SYS_getdents64, fd, buf, sizeof(buf)) <= 0)
		return -1;
	return fd;
}

static int tree_setup(void *arg)
{
	int i, n = *(int *)arg;

	if (setpgid(0, 0) || pt_write(0, "+tree\n"))
		return 1;
	for (i = 0; i < n; i++)
		if (!fork())
			for (;;)
				pause();
	return 0;
}

static void run(const char *what, int n, int (*open_one)(void *), void *arg,
		long want)
{
	long held, after;
	int p[2], st;
	pid_t c;

	if (pipe(p))
		die("pipe");
	c = tap_fork();
	if (!c) {
		close(p[0]);
		hold(n, open_one, arg, p[1]);
	}
	close(p[1]);
	held = get_long(p[0]);
	after = get_long(p[0]);
	close(p[0]);
	st = wait_exit(c);
	diag("%s: the reader's cgroup grew by %ld bytes while they were open, %ld after closing (want at least %ld)",
	     what, held, after, want);
	ok(st == 0 && held >= want,
	   "SPEC §8: %s are charged to the reader's memory cgroup (%ld >= %ld bytes)",
	   what, held, want);
	ok(st == 0 && after < held - want / 2,
	   "SPEC §8: closing them gives that memory back (%ld after, %ld held)",
	   after, held);
}

int main(void)
{
	size_t cap = (size_t)pt_param("max_write") / 2, len = 0;
	char *buf = malloc(cap);
	pid_t target, tree;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!cg_setup()) {
		printf("ok 1 # SKIP no cgroup2 memory controller (errno %d)\n",
		       errno);
		return 0;
	}

	/* A 256 KiB set: 256 tags of 1000-byte names (and a newline). */
	target = pt_sleeper(NULL);
	for (i = 0; i < 256 && buf; i++) {
		len += snprintf(buf + len, cap - len, "+v%04d:", i);
		memset(buf + len, 'x', 992);
		len += 992;
		buf[len++] = '\n';
	}
	if (!buf || pt_write_len(target, buf, len))
		die("tagging the target");
	free(buf);
	run("half-read snapshots of a 256 KiB set", NFDS, open_snapshot,
	    &target, (long)NFDS * 256 * 1000 * 8 / 10);
	pt_stop(target);

	i = NPROCS;
	tree = pt_child(tree_setup, &i);
	run("half-done listings of 1000 tagged processes", NDIRS, open_listing,
	    NULL, (long)NDIRS * NPROCS * 4 * 8 / 10);
	kill(-tree, SIGKILL);
	pt_stop(tree);

	rmdir(CG_CHILD);
	umount2(CG, MNT_DETACH);
	rmdir(CG);
	return tap_done();
}
