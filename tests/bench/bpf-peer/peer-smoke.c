// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke test of the BPF peer, as root in a guest (never on a machine whose
 * kernel must not get BPF programs): load, tag ourselves, fork, fork from a
 * thread, exec with mixed, no and all kept tags, write another process,
 * count the sets that references keep alive, unload; then load in a child
 * process as the benchmark does (bpf_peer_spawn()), use its maps, unload.
 * TAP on stdout.
 *
 *   peer-smoke                         the test
 *   peer-smoke --after-exec W H        (internal) what a child execs: say
 *                                      "ready" on fd W, wait for EOF on H
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "peer.h"

static int test_no, failures;

#define SMOKE_MAX	2000
static struct peer_tag mine[SMOKE_MAX], want[SMOKE_MAX];
static unsigned int nmine, nwant;
static char names[SMOKE_MAX][16], values[SMOKE_MAX][40];
static unsigned char got[1 << 20];

static bool check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++test_no);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures += !ok;
	return ok;
}

static int pidfd_of(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

/* Tag i: name "smoke:iiii", a value of i % 33 bytes; kept when keep(i). */
static void make_tags(unsigned int n, int (*keep)(int))
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "smoke:%04u", i);
		memset(values[i], 'a' + i % 26, sizeof(values[i]));
		mine[i] = (struct peer_tag){
			.name = names[i], .name_len = strlen(names[i]),
			.value = values[i], .value_len = i % 33,
			.keep = keep(i),
		};
	}
	nmine = n;
}

/* What the process has after exec: the kept tags, in order. */
static void after_exec(void)
{
	unsigned int i;

	for (i = nwant = 0; i < nmine; i++)
		if (mine[i].keep)
			want[nwant++] = mine[i];
}

static void want_mine(void)
{
	memcpy(want, mine, nmine * sizeof(mine[0]));
	nwant = nmine;
}

/* Whether @len bytes of records in got are exactly want[]. */
static bool got_want(ssize_t len)
{
	struct peer_tag t;
	size_t off = 0;
	unsigned int i;

	if (len < 0)
		return false;
	for (i = 0; bpf_peer_next(got, len, &off, &t); i++)
		if (i >= nwant || t.name_len != want[i].name_len ||
		    memcmp(t.name, want[i].name, t.name_len) ||
		    t.value_len != want[i].value_len ||
		    memcmp(t.value, want[i].value, t.value_len) ||
		    t.keep != want[i].keep)
			return false;
	return i == nwant && off == (size_t)len;
}

/*
 * In a child: exit 0 if the child's own tags are want[].  Runs in the
 * child's image, so the maps are inherited.
 */
static int child_has(void)
{
	int fd = pidfd_of(getpid());

	if (fd < 0)
		return 2;
	return got_want(bpf_peer_read(fd, got, sizeof(got))) ? 0 : 1;
}

static int fork_check(void)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		_exit(child_has());
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void *thread_fork(void *arg)
{
	return (void *)(long)fork_check();
}

static int keep_one(int i)
{
	return i == 1;
}

static int keep_none(int i)
{
	return 0;
}

static int keep_all(int i)
{
	return 1;
}

static int keep_third(int i)
{
	return i % 3 == 0;
}

/*
 * Fork a child that execs ourselves (--after-exec); once it says it runs
 * the new image, read its tags into got through its pidfd; their length.
 */
static ssize_t exec_and_read(void)
{
	int ready[2], hold[2], pidfd, status;
	char w[16], h[16], c;
	ssize_t len;
	pid_t pid;

	if (pipe(ready) || pipe(hold))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		snprintf(w, sizeof(w), "%d", ready[1]);
		snprintf(h, sizeof(h), "%d", hold[0]);
		close(ready[0]);
		close(hold[1]);
		execl("/proc/self/exe", "peer-smoke", "--after-exec", w, h,
		      (char *)NULL);
		_exit(127);
	}
	close(ready[1]);
	close(hold[0]);
	pidfd = pidfd_of(pid);
	len = pidfd < 0 ? -errno : 0;
	if (!len && read(ready[0], &c, 1) != 1)
		len = -EIO;	/* exec failed */
	if (!len)
		len = bpf_peer_read(pidfd, got, sizeof(got));
	close(hold[1]);
	close(ready[0]);
	if (pidfd >= 0)
		close(pidfd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		len = len < 0 ? len : -ECHILD;
	return len;
}

static void exec_case(int self, const char *what, int n, int (*keep)(int))
{
	ssize_t len;
	int err;

	make_tags(n, keep);
	err = bpf_peer_write(self, mine, nmine);
	after_exec();
	len = err ?: exec_and_read();
	check(got_want(len), "exec, %s: the %u kept of %d tags left, in order (%s)",
	      what, nwant, n, len < 0 ? strerror(-len) : "read");
}

/* The sets alive: what live references hold (the writer reaps first). */
static unsigned int live_sets(void)
{
	struct peer_stats st;
	unsigned int n = 0;
	size_t bytes;

	bpf_peer_reap();
	if (bpf_peer_stats(&st, &n, &bytes))
		return ~0u;
	return n;
}

/*
 * live_sets() once it is @want, or after a second: the release program
 * runs an RCU grace period after a child is reaped.
 */
static unsigned int live_sets_settled(unsigned int want)
{
	unsigned int n;
	int i;

	for (i = 0; (n = live_sets()) != want && i < 100; i++)
		usleep(10000);
	return n;
}

/* Tag a child parked on a pipe through its pidfd, read it back. */
static void write_other(void)
{
	int p[2], fd, err;
	ssize_t len;
	pid_t pid;
	char c;

	if (pipe(p))
		return (void)check(false, "pipe");
	fflush(stdout);
	pid = fork();
	if (!pid) {
		close(p[1]);
		_exit(read(p[0], &c, 1) < 0);
	}
	close(p[0]);
	fd = pidfd_of(pid);
	make_tags(10, keep_third);
	want_mine();
	err = fd < 0 ? -errno : bpf_peer_write(fd, mine, nmine);
	len = err ?: bpf_peer_read(fd, got, sizeof(got));
	check(got_want(len),
	      "write and read another process through its pidfd (%s)",
	      len < 0 ? strerror(-len) : "read");
	close(p[1]);
	waitpid(pid, NULL, 0);
	if (fd >= 0)
		close(fd);
}

/*
 * References are exact: children that exited and were reaped leave no set
 * alive; a forked child holding the parent's sets keeps them until it is
 * reaped, and a rewrite of the parent frees the old ones only then.
 */
static void refs_case(int self)
{
	unsigned int before, held, after;
	int p[2], k;
	pid_t pid[4];
	char c;

	make_tags(5, keep_one);
	bpf_peer_write(self, mine, nmine);
	before = live_sets_settled(2);
	if (pipe(p))
		return (void)check(false, "pipe");
	fflush(stdout);
	for (k = 0; k < 4; k++) {
		pid[k] = fork();
		if (!pid[k]) {
			close(p[1]);
			_exit(read(p[0], &c, 1) < 0);
		}
	}
	close(p[0]);
	make_tags(7, keep_none);
	bpf_peer_write(self, mine, nmine);	/* the old pair stays held */
	held = live_sets();
	close(p[1]);
	for (k = 0; k < 4; k++)
		waitpid(pid[k], NULL, 0);
	after = live_sets_settled(1);
	check(before == 2 && held == 3 && after == 1,
	      "references: 5 tags, 1 kept: %u sets (want 2); rewritten with 4 children holding the old ones: %u (3); children reaped: %u (1)",
	      before, held, after);
}

static int after_exec_child(char **argv)
{
	int w = atoi(argv[2]), h = atoi(argv[3]);
	char c;

	if (write(w, "r", 1) != 1)
		return 1;
	while (read(h, &c, 1) > 0)
		;
	return 0;
}

/* Loaded by a child process: the maps work here as if loaded here. */
static void spawned(int self)
{
	struct peer_stats st;
	unsigned int nsets;
	size_t bytes;
	int status;
	ssize_t len;
	pid_t loader;
	int err;

	err = bpf_peer_spawn();
	loader = bpf_peer_loader();
	if (!check(!err && loader > 0,
		   "load in a child process, which hands the maps over (%s)",
		   strerror(-err)))
		return;
	make_tags(3, keep_one);
	want_mine();
	err = bpf_peer_write(self, mine, nmine);
	len = err ?: bpf_peer_read(self, got, sizeof(got));
	check(got_want(len), "loaded by a child: write 3 tags and read them back (%s)",
	      len < 0 ? strerror(-len) : "read");
	status = len < 0 ? -1 : fork_check();
	check(status == 0, "loaded by a child: a fork has the 3 tags (child: %d)",
	      status);
	err = bpf_peer_stats(&st, &nsets, &bytes);
	check(!err && !st.lost && !st.unref,
	      "loaded by a child: no lost copy, no unknown reference (%s)",
	      strerror(-err));
	bpf_peer_unload();
	check(kill(loader, 0) < 0 && errno == ESRCH,
	      "unloading ends and reaps the loader child");
	len = bpf_peer_read(self, got, sizeof(got));
	check(len == -ENODEV, "unloaded again (%s)", strerror(-len));
}

int main(int argc, char **argv)
{
	struct peer_stats st;
	unsigned int nsets;
	size_t bytes;
	pthread_t t;
	ssize_t len;
	void *ret;
	int self, err, status;

	if (argc == 4 && !strcmp(argv[1], "--after-exec"))
		return after_exec_child(argv);

	printf("TAP version 13\n# handle %zu bytes, %u set ids, arena %u bytes\n",
	       sizeof(struct peer_handle), PEER_SETS - 1, PEER_ARENA_BYTES);
	err = bpf_peer_load();
	if (!check(!err, "load: the programs pass the verifier and attach (%s)",
		   strerror(-err))) {
		printf("1..%d\n", test_no);
		return 1;
	}
	self = pidfd_of(getpid());

	/* Untagged: nothing to read, nothing inherited. */
	len = bpf_peer_read(self, got, sizeof(got));
	check(len == 0, "untagged: read gives no tag (%zd)", len);
	nwant = 0;
	status = fork_check();
	check(status == 0, "untagged: the child has no tag (child: %d)",
	      status);

	/* Three tags, one kept. */
	make_tags(3, keep_one);
	want_mine();
	err = bpf_peer_write(self, mine, nmine);
	check(!err, "write 3 tags, 1 kept (%s)", strerror(-err));
	len = bpf_peer_read(self, got, sizeof(got));
	check(got_want(len), "read them back, names and values (%zd bytes)", len);
	status = fork_check();
	check(status == 0, "fork: the child has the 3 tags (child: %d)",
	      status);
	status = -1;
	if (!pthread_create(&t, NULL, thread_fork, NULL) &&
	    !pthread_join(t, &ret))
		status = (int)(long)ret;
	check(status == 0,
	      "fork from a second thread: the child has the 3 tags (child: %d)",
	      status);
	len = bpf_peer_read(self, got, sizeof(got));
	check(got_want(len),
	      "the parent still has them after creating a thread (%zd)", len);

	exec_case(self, "3 tags, 1 kept", 3, keep_one);
	exec_case(self, "3 tags, none kept", 3, keep_none);
	exec_case(self, "3 tags, all kept", 3, keep_all);
	exec_case(self, "1000 tags, one in three kept", 1000, keep_third);

	/* The largest set goes to a child whole. */
	make_tags(SMOKE_MAX, keep_third);
	want_mine();
	err = bpf_peer_write(self, mine, nmine);
	status = err ? -1 : fork_check();
	check(status == 0, "fork with %d tags: the child has them all (child: %d)",
	      SMOKE_MAX, status);

	write_other();
	refs_case(self);

	nmine = 0;
	err = bpf_peer_write(self, mine, 0);
	len = err ?: bpf_peer_read(self, got, sizeof(got));
	check(len == 0, "writing no tag removes the handle (%zd)", len);
	nsets = live_sets_settled(0);
	check(nsets == 0, "and no set is left once reaped (%u)", nsets);
	err = bpf_peer_stats(&st, &nsets, &bytes);
	check(!err && !st.lost && !st.unref && !bytes,
	      "no fork lost its copy (%llu), no reference unknown (%llu), arena empty (%zu bytes)",
	      (unsigned long long)st.lost, (unsigned long long)st.unref,
	      bytes);

	bpf_peer_unload();
	len = bpf_peer_read(self, got, sizeof(got));
	check(len == -ENODEV, "unloaded (%s)", strerror(-len));

	spawned(self);
	printf("1..%d\n", test_no);
	return failures != 0;
}
