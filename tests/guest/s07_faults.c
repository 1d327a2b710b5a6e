// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §7 ENOMEM and §9 fail closed, under injected allocation failures.
 *
 * With CONFIG_FAULT_INJECTION, /proc/self/task/TID/fail-nth makes the Nth
 * fault-injection point this task passes from now on fail.  With failslab
 * told not to ignore sleeping allocations, every slab allocation the task
 * makes is such a point: the module's entry and set allocations, its write
 * buffer, and all the kernel's own allocations on the same path.  For
 * N = 1, 2, ... each operation below is repeated until it completes
 * without reaching the Nth point, so every allocation on its path fails
 * once:
 *
 *  - write: the result is success with exactly the new tags, or ENOMEM
 *    with the tags unchanged (read back);
 *  - fork by a tagged process (non-sleeping allocations only, see
 *    fork_storm()): fork fails, or the child runs with exactly its
 *    parent's tags, or the child is killed before it runs any user code
 *    (SPEC §9) and stats/killed counts it;
 *  - execve by a tagged process: execve fails and nothing changed, or the
 *    new image runs with exactly the kept tags.
 *
 * The fork hook allocates its entry from a mempool, so one failure there
 * only takes an entry from the reserve.  The kill of SPEC §9 needs the
 * reserve gone: booted with slub_debug=A,ptags_proc (make check-debug),
 * failslab can fail every allocation from that cache and nothing else
 * (cache filter); then a tagged process forks more children than the
 * reserve holds, and those beyond it must be killed before they run.
 *
 * On a kernel without fault injection the program skips (TAP "1..0 #
 * SKIP"); "make check-debug" runs it on the debug kernel.  The debug run
 * also scans kmemleak afterwards; the counters must read 0 as always.
 */
#define _GNU_SOURCE
#include "guest.h"

#include <sys/sysinfo.h>

#include <sys/mount.h>
#include <sys/stat.h>

#define BIG		65536
#define MAX_POINTS	2000
#define DBG		"/sys/kernel/debug"

static int nth_fd = -1;
static char self_exe[] = "/proc/self/exe";

/* ---------------------------------------------------------------- fail-nth */

static int nth_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/fail-nth",
		 (int)gettid());
	return open(path, O_RDWR | O_CLOEXEC);
}

static void nth_set(unsigned int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%u", n);

	if (pwrite(nth_fd, b, len, 0) != len)
		die("write fail-nth");
}

/* What is left of the countdown: 0 once the failure was injected. */
static unsigned int nth_left(void)
{
	char b[16];
	ssize_t n = pread(nth_fd, b, sizeof(b) - 1, 0);

	if (n <= 0)
		die("read fail-nth");
	b[n] = 0;
	return (unsigned int)strtoul(b, NULL, 10);
}

static bool knob(const char *path, const char *value)
{
	int err = file_write(path, value);

	if (err)
		diag("%s <- %s: %s", path, value, strerror(err));
	return !err;
}

/*
 * Every slab allocation counts (failslab normally skips those that may
 * sleep); page allocations never do (min-order above any order), so no
 * "page allocation failure" warning is provoked; no message per failure.
 */
static bool injection_setup(void)
{
	mkdir(DBG, 0755);
	if (access(DBG "/failslab", F_OK))
		mount("debugfs", DBG, "debugfs", 0, NULL);
	return knob(DBG "/failslab/ignore-gfp-wait", "N") &&
	       knob(DBG "/failslab/verbose", "0") &&
	       knob(DBG "/fail_page_alloc/min-order", "11") &&
	       knob(DBG "/fail_page_alloc/verbose", "0");
}

static void injection_reset(void)
{
	knob(DBG "/failslab/ignore-gfp-wait", "Y");
	knob(DBG "/fail_page_alloc/min-order", "1");
}

/* ---------------------------------------------------------------- writes */

struct wcase {
	const char *name;
	const char *setup;	/* privileged write that makes the "before" */
	const char *txn;	/* the write under test */
	const char *after;	/* its result */
};

static const struct wcase wcases[] = {
	{ "first tags of an untagged process", "-\n",
	  "+A\n+@B\n!A=1\n", "A=1\n@B\n" },
	{ "change of a tagged process", "-\n+A\n!A=1\n+@B\n",
	  "-A\n+C\n!B=22\n+@S:k\n", "@B=22\nC\n@S:k\n" },
	{ "removal of every tag", "-\n+A\n+B\n", "-\n", "" },
	{ "guarded change", "-\n+R\n", "?R\n-R\n+G\n", "G\n" },
};

static void write_case(const struct wcase *c, pid_t pid)
{
	static char before[BIG], after[BIG];
	unsigned int n, points = 0, enomem = 0, bad = 0;
	char path[64];
	size_t len = strlen(c->txn);

	pt_path(path, sizeof(path), pid);
	for (n = 1; n <= MAX_POINTS; n++) {
		unsigned int left;
		ssize_t r;
		int fd, e;

		if (pt_write(pid, c->setup))
			die("setup write");
		pt_read(pid, before, sizeof(before));
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			die("open %s", path);
		nth_set(n);
		r = write(fd, c->txn, len);
		e = errno;
		left = nth_left();
		nth_set(0);
		close(fd);
		pt_read(pid, after, sizeof(after));

		if (r == (ssize_t)len) {
			if (strcmp(after, c->after)) {
				diag("%s, failure %u: success but tags [%s]",
				     c->name, n, tap_esc(after));
				bad++;
			}
		} else if (r < 0 && e == ENOMEM) {
			enomem++;
			if (strcmp(after, before)) {
				diag("%s, failure %u: ENOMEM but tags [%s], were [%s]",
				     c->name, n, tap_esc(after), tap_esc(before));
				bad++;
			}
		} else {
			diag("%s, failure %u: write returned %zd (%s)", c->name,
			     n, r, r < 0 ? strerror(e) : "short");
			bad++;
		}
		if (left)
			break;	/* fewer than n points on this path */
		points++;
	}
	ok(n <= MAX_POINTS && !bad && enomem > 0,
	   "§7: %s: each of %u allocation failures gives success or ENOMEM with the tags unchanged (%u ENOMEM)",
	   c->name, points, enomem);
}

/* ---------------------------------------------------------------- fork */

#define PARENT_TAGS	"S:a=1\n@S:k=2\n"
#define KEPT_TAGS	"@S:k=2\n"

/* The child: say it runs, then check its tags.  Exit 0 when right. */
static int fork_child(int rep)
{
	static char tags[BIG];
	ssize_t n;
	int tries;

	if (write(rep, "R", 1) != 1)
		return 3;
	for (tries = 0; tries < 3; tries++) {
		n = pt_read(0, tags, sizeof(tags));
		if (n != -ENOMEM)
			break;
	}
	if (n < 0)
		return 4;
	return strcmp(tags, PARENT_TAGS) ? 1 : 0;
}

/*
 * Only allocations that cannot sleep fail here: those are the module's on
 * this path (its hook runs with preemption disabled).  The kernel's own
 * sleeping allocations in fork (the vmalloc'ed stack among them) would
 * only add their warn_alloc() stack dumps to the console.
 */
static void fork_storm(void)
{
	unsigned int n, points = 0, failed = 0, killed = 0, right = 0, bad = 0;
	long k0 = pt_stat("killed");

	if (!knob(DBG "/failslab/ignore-gfp-wait", "Y"))
		die("failslab setup");

	for (n = 1; n <= MAX_POINTS; n++) {
		unsigned int left;
		int p[2], st;
		pid_t pid;
		char c;

		if (pipe2(p, O_CLOEXEC))
			die("pipe");
		fflush(stdout);
		nth_set(n);
		pid = fork();
		if (pid == 0) {
			close(p[0]);
			_exit(fork_child(p[1]));
		}
		left = nth_left();
		nth_set(0);
		close(p[1]);
		if (pid < 0) {
			if (errno != ENOMEM && errno != EAGAIN) {
				diag("fork, failure %u: %s", n, strerror(errno));
				bad++;
			}
			failed++;
		} else {
			bool ran = read(p[0], &c, 1) == 1;

			st = wait_exit(pid);
			if (st == 128 + SIGKILL && !ran) {
				killed++;
			} else if (st == 0 && ran) {
				right++;
			} else {
				diag("fork, failure %u: child %s, status %d",
				     n, ran ? "ran" : "did not run", st);
				bad++;
			}
		}
		close(p[0]);
		if (left)
			break;
		points++;
	}
	knob(DBG "/failslab/ignore-gfp-wait", "N");
	ok(n <= MAX_POINTS && !bad,
	   "§9: fork under %u non-sleeping allocation failures: %u forks failed, %u children right, %u killed before running, none wrong",
	   points, failed, right, killed);
	ok(pt_stat("killed") - k0 == killed,
	   "§8: stats/killed counts the %u children killed (%ld)", killed,
	   pt_stat("killed") - k0);
}

/*
 * Every allocation from the module's entry cache fails: the first children
 * of a tagged process take the per-CPU reserve (which cannot be refilled
 * now), the rest are killed before they run; the survivors have the right
 * tags.
 */
#define POOL_PER_CPU	64	/* PTAGS_POOL_SIZE in module/table/table.c */
#define POOL_CHILDREN	1024
#define CACHE_FLAG	"/sys/kernel/slab/ptags_proc/failslab"

static void pool_exhaustion(void)
{
	static pid_t pids[POOL_CHILDREN];
	static int ran[POOL_CHILDREN];
	unsigned int reserve = POOL_PER_CPU * get_nprocs_conf();
	unsigned int i, n = reserve + 32, killed = 0, right = 0, bad = 0;
	int go[2];
	long k0 = pt_stat("killed");
	char flag[8] = "";

	file_read(CACHE_FLAG, flag, sizeof(flag));
	if (flag[0] != '1') {
		ok(true, "# SKIP %s is not set (boot with slub_debug=A,ptags_proc)",
		   CACHE_FLAG);
		return;
	}
	if (pipe2(go, O_CLOEXEC))
		die("pipe");
	if (!knob(DBG "/failslab/cache-filter", "Y") ||
	    !knob(DBG "/failslab/task-filter", "N") ||
	    !knob(DBG "/failslab/interval", "1") ||
	    !knob(DBG "/failslab/times", "-1") ||
	    !knob(DBG "/failslab/probability", "100"))
		die("failslab setup");
	if (n > POOL_CHILDREN)
		n = POOL_CHILDREN;
	for (i = 0; i < n; i++) {
		int p[2];
		char c;

		if (pipe2(p, O_CLOEXEC))
			die("pipe");
		fflush(stdout);
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0) {
			close(p[0]);
			close(go[1]);
			if (write(p[1], "R", 1) != 1)
				_exit(3);
			/* Hold the entry until the parent has forked all. */
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(fork_child(p[1]));
		}
		close(p[1]);
		ran[i] = p[0];
	}
	knob(DBG "/failslab/probability", "0");
	close(go[1]);
	for (i = 0; i < n; i++) {
		char c;
		bool r = read(ran[i], &c, 1) == 1;
		int st = wait_exit(pids[i]);

		close(ran[i]);
		if (st == 128 + SIGKILL && !r) {
			killed++;
		} else if (st == 0 && r) {
			right++;
		} else {
			diag("child %u %s, status %d", i, r ? "ran" : "did not run",
			     st);
			bad++;
		}
	}
	close(go[0]);
	knob(DBG "/failslab/cache-filter", "N");
	knob(DBG "/failslab/times", "1");
	ok(!bad && killed > 0 && right > 0 && right <= reserve,
	   "§9: with the entry cache failing, %u children of a tagged process ran with its tags (the reserve), %u were killed before running",
	   right, killed);
	ok(pt_stat("killed") - k0 == killed,
	   "§8: stats/killed counts them (%ld)", pt_stat("killed") - k0);
}

/* ---------------------------------------------------------------- exec */

/* The exec'ed image (--report FD): its fail-nth countdown and tags. */
static int report_main(char **argv)
{
	static char tags[BIG], out[BIG + 64];
	int fd = atoi(argv[2]), tries, len;
	unsigned int left = 0;
	ssize_t n = -1;

	for (tries = 0; tries < 3 && nth_fd < 0; tries++)
		nth_fd = nth_open();
	if (nth_fd >= 0) {
		left = nth_left();
		nth_set(0);
	}
	for (tries = 0; tries < 3; tries++) {
		n = pt_read(0, tags, sizeof(tags));
		if (n != -ENOMEM)
			break;
	}
	if (n < 0)
		len = snprintf(out, sizeof(out), "%u\nERROR %s\n", left,
			       strerror(-n));
	else
		len = snprintf(out, sizeof(out), "%u\n%s", left, tags);
	return write(fd, out, len) == len ? 0 : 1;
}

static void exec_storm(void)
{
	static char out[BIG + 64];
	unsigned int n, points = 0, failed = 0, right = 0, bad = 0, lost = 0;
	bool done = false;

	for (n = 1; n <= MAX_POINTS && !done; n++) {
		int p[2], st;
		ssize_t got = 0, r;
		pid_t pid;

		if (pipe(p))
			die("pipe");
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			static char tags[BIG];
			char fdarg[16];
			char *argv[] = { "s07_faults", "--report", fdarg, NULL };
			int e;

			close(p[0]);
			snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
			nth_fd = nth_open();
			if (nth_fd < 0)
				_exit(5);
			nth_set(n);
			execv(self_exe, argv);
			e = errno;
			nth_set(0);
			/* Failed: the same tags as before (§9). */
			pt_read(0, tags, sizeof(tags));
			snprintf(out, sizeof(out), "F %s\n%s", strerror(e), tags);
			_exit(write(p[1], out, strlen(out)) > 0 ? 0 : 6);
		}
		close(p[1]);
		while ((r = read(p[0], out + got, sizeof(out) - 1 - got)) > 0)
			got += r;
		out[got] = 0;
		close(p[0]);
		st = wait_exit(pid);

		if (!strncmp(out, "F ", 2)) {
			char *tags = strchr(out, '\n') + 1;

			failed++;
			if (strcmp(tags, PARENT_TAGS)) {
				diag("exec, failure %u: failed (%s) but tags [%s]",
				     n, out + 2, tap_esc(tags));
				bad++;
			}
		} else if (got > 0) {
			char *tags = strchr(out, '\n');

			if (tags && !strcmp(tags + 1, KEPT_TAGS)) {
				right++;
			} else {
				diag("exec, failure %u: new image reports [%s]",
				     n, tap_esc(out));
				bad++;
			}
			/* The countdown outlived the exec: all points seen. */
			done = strtoul(out, NULL, 10) != 0;
		} else {
			/* The new image failed before main() (libc start-up
			 * under an injected failure): it ran no ptags code. */
			lost++;
			if (st == 0) {
				diag("exec, failure %u: no report, status 0", n);
				bad++;
			}
		}
		if (!done)
			points++;
	}
	ok(done && !bad,
	   "§9: execve under %u allocation failures: %u failed with the tags unchanged, %u images ran with exactly the kept tags, %u died in libc start-up, none wrong",
	   points, failed, right, lost);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	struct idler idle;
	size_t i;

	if (argc == 3 && !strcmp(argv[1], "--report"))
		return report_main(argv);

	setvbuf(stdout, NULL, _IOLBF, 0);
	nth_fd = nth_open();
	if (nth_fd < 0) {
		printf("1..0 # SKIP no /proc/self/task/TID/fail-nth (kernel without CONFIG_FAULT_INJECTION)\n");
		return 0;
	}
	if (!injection_setup()) {
		printf("1..0 # SKIP no failslab in debugfs (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)\n");
		return 0;
	}
	if (pt_stat("killed") < 0)
		die("no ptags counters");

	idler_start(&idle);
	for (i = 0; i < sizeof(wcases) / sizeof(wcases[0]); i++)
		write_case(&wcases[i], idle.pid);
	idler_reap(&idle);

	if (pt_write(0, "-\n+S:a\n!S:a=1\n+@S:k\n!S:k=2\n") ||
	    !pt_is(0, PARENT_TAGS))
		die("tag myself");
	fork_storm();
	exec_storm();
	pool_exhaustion();
	if (pt_write(0, "-\n"))
		die("untag myself");
	injection_reset();
	return tap_done();
}
