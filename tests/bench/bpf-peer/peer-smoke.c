// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke test of the BPF peer, as root in a guest (never on a machine whose
 * kernel must not get BPF programs): load, tag ourselves, fork, fork from a
 * thread, exec with mixed, no and all kept tags, write another process,
 * count the sets that references keep alive, read while the writer reuses
 * the slots read, write new children while they are being forked, unload;
 * then load in a child process as the benchmark does (bpf_peer_spawn()),
 * use its maps, unload.  TAP on stdout.
 *
 *   peer-smoke                         the test
 *   peer-smoke --after-exec W H        (internal) what a child execs: say
 *                                      "ready" on fd W, wait for EOF on H
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
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

/*
 * Reads racing the reuse of what they read (bpf_peer_read()): a thread
 * reads our tags while we replace them, reaping after every write so that
 * the set's slot and its arena chunk are reused at once (both are handed
 * out last in, first out).  Versions 0 and 1 have the same length and
 * differ in every value byte; version 2 does not fit the reader's buffer.
 * A read must give one version whole, -ERANGE (version 2, or a length
 * read while it was live), or -EAGAIN; never a mix, never a crash.
 */
#define TORN_TAGS	300
#define TORN_BIG	900
#define TORN_WRITES	150

static struct peer_tag torn_tags[3][TORN_BIG];
static const unsigned int torn_n[3] = { TORN_TAGS, TORN_TAGS, TORN_BIG };
static char torn_names[TORN_BIG][16], torn_values[3][32];
static unsigned char torn_buf[TORN_BIG * 64];
static size_t torn_size;
static int torn_fd;
static bool torn_stop;
static unsigned long torn_got[2], torn_range, torn_again, torn_bad;

static void torn_make(void)
{
	unsigned int i, v;

	for (i = 0; i < TORN_BIG; i++)
		snprintf(torn_names[i], sizeof(torn_names[i]), "torn:%04u", i);
	for (v = 0; v < 3; v++) {
		memset(torn_values[v], 'A' + v, sizeof(torn_values[v]));
		for (i = 0; i < torn_n[v]; i++)
			torn_tags[v][i] = (struct peer_tag){
				.name = torn_names[i],
				.name_len = strlen(torn_names[i]),
				.value = torn_values[v],
				.value_len = 1 + i % 32,
				.keep = v == 1 && i % 3 == 0,
			};
	}
}

/* Whether @len bytes of records in @buf are exactly version @v. */
static bool torn_is(const unsigned char *buf, ssize_t len, unsigned int v)
{
	const struct peer_tag *w = torn_tags[v];
	struct peer_tag t;
	size_t off = 0;
	unsigned int i;

	for (i = 0; bpf_peer_next(buf, len, &off, &t); i++)
		if (i >= torn_n[v] || t.name_len != w[i].name_len ||
		    memcmp(t.name, w[i].name, t.name_len) ||
		    t.value_len != w[i].value_len ||
		    memcmp(t.value, w[i].value, t.value_len) ||
		    t.keep != w[i].keep)
			return false;
	return i == torn_n[v] && off == (size_t)len;
}

static void *torn_reader(void *arg)
{
	ssize_t len;

	while (!__atomic_load_n(&torn_stop, __ATOMIC_ACQUIRE)) {
		len = bpf_peer_read(torn_fd, torn_buf, torn_size);
		if (len == -ERANGE)
			torn_range++;
		else if (len == -EAGAIN)
			torn_again++;
		else if (len > 0 && torn_is(torn_buf, len, 0))
			torn_got[0]++;
		else if (len > 0 && torn_is(torn_buf, len, 1))
			torn_got[1]++;
		else
			torn_bad++;
	}
	return NULL;
}

static void torn_reads(int self)
{
	int err = 0, i, reaped = 0;
	pthread_t t;
	ssize_t len;

	torn_make();
	torn_fd = self;
	err = bpf_peer_write(self, torn_tags[0], torn_n[0]);
	len = err ?: bpf_peer_read(self, got, sizeof(got));
	if (!check(len > 0 && torn_is(got, len, 0),
		   "torn reads: version 0 written and read back (%zd)", len))
		return;
	torn_size = len;	/* versions 0 and 1 fit, 2 does not */
	torn_stop = false;
	if (pthread_create(&t, NULL, torn_reader, NULL))
		return (void)check(false, "torn reads: pthread_create");
	for (i = 1; i <= TORN_WRITES && !err; i++) {
		err = bpf_peer_write(self, torn_tags[i % 3], torn_n[i % 3]);
		if (bpf_peer_reap() > 0)
			reaped++;
		/* Let the reader run between writes on one CPU too. */
		if (!(i % 8))
			sched_yield();
	}
	__atomic_store_n(&torn_stop, true, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	check(!err && !torn_bad && torn_got[0] + torn_got[1] > 0,
	      "torn reads: %d writes reusing the slot read (%d reaps): %lu reads of version 0, %lu of 1, %lu -ERANGE, %lu -EAGAIN, %lu wrong (%s)",
	      TORN_WRITES, reaped, torn_got[0], torn_got[1], torn_range,
	      torn_again, torn_bad, strerror(-err));
}

/*
 * The writer racing a fork (bpf_peer_write(), peer_fork): a thread forks
 * children that wait for EOF on a pipe, while we guess each next child's
 * pid, open its pidfd as soon as the pid exists (from attach_pid() on, before
 * the fork program runs) and write its tags; between those writes we rewrite
 * our own handle, which every fork reads.  References must balance: once the
 * children are reaped, only our own last set is left, and no program lost or
 * could not drop a reference.  How often a write lands inside a fork depends
 * on the CPUs (rarely on one): the line says, as raced (the fork program
 * found our handle and dropped its references) and retried (our update
 * found the fork's handle, or the fork's storage, made since our lookup).
 */
#define RACE_FORKS	500

static struct {
	pid_t pid[RACE_FORKS];
	pid_t base;		/* the forker's tid: the pid before the first */
	int n;			/* children forked so far */
	int hold[2];
	int err;
	bool done;
} race;

static void *race_forker(void *arg)
{
	pid_t pid;
	char c;
	int i;

	__atomic_store_n(&race.base, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELEASE);
	for (i = 0; i < RACE_FORKS; i++) {
		pid = fork();
		if (pid < 0) {
			race.err = errno;
			break;
		}
		if (!pid) {
			close(race.hold[1]);
			while (read(race.hold[0], &c, 1) > 0)
				;
			_exit(0);
		}
		race.pid[i] = pid;
		__atomic_store_n(&race.n, i + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&race.done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void fork_race(int self)
{
	static struct peer_tag child_tags[3], self_tags[2][4];
	static char tag_names[4][16];
	unsigned int nsets, written = 0, werr = 0, k, i;
	int n, fd, err = 0, last = 0, lasterr = 0;
	struct peer_stats st;
	pid_t guess, base;
	size_t bytes;
	pthread_t t;

	for (k = 0; k < 4; k++) {
		snprintf(tag_names[k], sizeof(tag_names[k]), "race:%u", k);
		for (i = 0; i < 2; i++)
			self_tags[i][k] = (struct peer_tag){
				.name = tag_names[k],
				.name_len = strlen(tag_names[k]),
				.value = i ? "b" : "a", .value_len = 1,
				.keep = k == 0,
			};
		if (k < 3)
			child_tags[k] = (struct peer_tag){
				.name = tag_names[k],
				.name_len = strlen(tag_names[k]),
				.value = "child", .value_len = 5,
				.keep = k == 1,
			};
	}
	memset(&race, 0, sizeof(race));
	if (pipe(race.hold))
		return (void)check(false, "fork race: pipe");
	err = bpf_peer_write(self, self_tags[0], 4);
	fflush(stdout);
	if (err || pthread_create(&t, NULL, race_forker, NULL)) {
		close(race.hold[0]);
		close(race.hold[1]);
		return (void)check(false, "fork race: start (%s)",
				   strerror(-err));
	}
	while (!(base = __atomic_load_n(&race.base, __ATOMIC_ACQUIRE)))
		sched_yield();
	for (k = 0; !__atomic_load_n(&race.done, __ATOMIC_ACQUIRE); k++) {
		n = __atomic_load_n(&race.n, __ATOMIC_ACQUIRE);
		guess = (n ? race.pid[n - 1] : base) + 1;
		if (guess > last) {
			fd = pidfd_of(guess);
			if (fd >= 0) {
				err = bpf_peer_write(fd, child_tags, 3);
				if (err) {
					werr++;
					lasterr = err;
				}
				written++;
				last = guess;
				close(fd);
			}
		}
		if (!(k % 64)) {
			err = bpf_peer_write(self, self_tags[k / 64 % 2], 4);
			if (err) {
				werr++;
				lasterr = err;
			}
			bpf_peer_reap();
		}
		if (!(k % 256))
			sched_yield();	/* one CPU: let the forker on */
	}
	pthread_join(t, NULL);
	close(race.hold[0]);
	close(race.hold[1]);
	for (i = 0; i < (unsigned int)race.n; i++)
		waitpid(race.pid[i], NULL, 0);
	/* One set of ours left: 4 tags, none kept. */
	for (k = 0; k < 4; k++)
		self_tags[0][k].keep = false;
	err = bpf_peer_write(self, self_tags[0], 4);
	nsets = err ? ~0u : live_sets_settled(1);
	err = bpf_peer_stats(&st, &i, &bytes);
	check(!race.err && race.n == RACE_FORKS && !werr && nsets == 1 &&
	      !err && !st.lost && !st.unref && !st.busy,
	      "fork race: %d children forked by a thread, %u of them written as they were forked (%u writes failed, last %s): %u set left (want 1); lost %llu, unref %llu, busy %llu; forks that found the writer's handle %llu, writes retried %llu",
	      race.n, written, werr, strerror(-lasterr), nsets,
	      (unsigned long long)st.lost, (unsigned long long)st.unref,
	      (unsigned long long)st.busy,
	      (unsigned long long)st.raced, (unsigned long long)st.retried);
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
	check(!err && !st.lost && !st.unref && !st.busy,
	      "loaded by a child: no lost copy, no unknown reference, no busy lock (%s)",
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
	torn_reads(self);
	fork_race(self);

	nmine = 0;
	err = bpf_peer_write(self, mine, 0);
	len = err ?: bpf_peer_read(self, got, sizeof(got));
	check(len == 0, "writing no tag removes the handle (%zd)", len);
	nsets = live_sets_settled(0);
	check(nsets == 0, "and no set is left once reaped (%u)", nsets);
	err = bpf_peer_stats(&st, &nsets, &bytes);
	check(!err && !st.lost && !st.unref && !st.busy && !bytes,
	      "no fork lost its copy (%llu), no reference unknown (%llu), no helper refused by a busy task storage lock (%llu), arena empty (%zu bytes)",
	      (unsigned long long)st.lost, (unsigned long long)st.unref,
	      (unsigned long long)st.busy, bytes);

	bpf_peer_unload();
	len = bpf_peer_read(self, got, sizeof(got));
	check(len == -ENODEV, "unloaded (%s)", strerror(-len));

	spawned(self);
	printf("1..%d\n", test_no);
	return failures != 0;
}
