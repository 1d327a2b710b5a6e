// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke test of the BPF peer, as root in a guest (never on a machine whose
 * kernel must not get BPF programs): load, tag ourselves, fork, fork from a
 * thread, exec with mixed, no and all kept tags, write another process,
 * unload; then load in a child process as the benchmark does
 * (bpf_peer_spawn()), use its map, unload.  TAP on stdout.
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
static struct peer_blob mine, got;

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

/* Tag i: "smoke:iiii" in its value, kept when keep(i). */
static void make_blob(struct peer_blob *b, int n, int (*keep)(int))
{
	char v[PEER_VALUE_SIZE];
	int i;

	bpf_peer_blob_init(b);
	for (i = 0; i < n; i++) {
		snprintf(v, sizeof(v), "smoke:%04d", i);
		if (bpf_peer_blob_add(b, v, strlen(v), keep(i)))
			abort();
	}
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

static bool same_tag(const struct peer_blob *a, __u32 i,
		     const struct peer_blob *b, __u32 j)
{
	return !memcmp(&a->value[i], &b->value[j], sizeof(a->value[i])) &&
	       a->keep[i] == b->keep[j];
}

static bool same_blob(const struct peer_blob *a, const struct peer_blob *b)
{
	__u32 i;

	if (a->count != b->count || a->nkept != b->nkept)
		return false;
	for (i = 0; i < a->count; i++)
		if (!same_tag(a, i, b, i))
			return false;
	return true;
}

/* @b after exec: its kept tags, in order, still kept. */
static void after_exec(const struct peer_blob *b, struct peer_blob *want)
{
	__u32 i;

	bpf_peer_blob_init(want);
	for (i = 0; i < b->count; i++)
		if (b->keep[i])
			bpf_peer_blob_add(want, b->value[i].bytes,
					  PEER_VALUE_SIZE, 1);
}

/*
 * In a child: exit 0 if the child's own blob is @want.  Runs in the
 * child's image, so the map fd is inherited.
 */
static int child_has(const struct peer_blob *want)
{
	int fd = pidfd_of(getpid());

	if (fd < 0 || bpf_peer_read(fd, &got))
		return 2;
	return same_blob(&got, want) ? 0 : 1;
}

static int fork_check(const struct peer_blob *want)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		_exit(child_has(want));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void *thread_fork(void *arg)
{
	return (void *)(long)fork_check(arg);
}

/*
 * Fork a child that execs ourselves (--after-exec); once it says it runs
 * the new image, read its blob into @b through its pidfd.
 */
static int exec_and_read(struct peer_blob *b)
{
	int ready[2], hold[2], pidfd, err, status;
	char w[16], h[16], c;
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
	err = pidfd < 0 ? -errno : 0;
	if (!err && read(ready[0], &c, 1) != 1)
		err = -EIO;	/* exec failed */
	if (!err)
		err = bpf_peer_read(pidfd, b);
	close(hold[1]);
	close(ready[0]);
	if (pidfd >= 0)
		close(pidfd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		err = err ?: -ECHILD;
	return err;
}

static void exec_case(int self, const char *what, int n, int (*keep)(int))
{
	static struct peer_blob want;
	int err;

	make_blob(&mine, n, keep);
	err = bpf_peer_write(self, &mine);
	after_exec(&mine, &want);
	if (!err)
		err = exec_and_read(&got);
	check(!err && same_blob(&got, &want),
	      "exec, %s: %u of %u tags left, in order (%s; want %u)", what,
	      err ? 0 : got.count, n, strerror(-err), want.count);
}

/* Tag a child parked on a pipe through its pidfd, read it back. */
static void write_other(void)
{
	int p[2], fd, err;
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
	make_blob(&mine, 10, keep_third);
	err = fd < 0 ? -errno : bpf_peer_write(fd, &mine);
	if (!err)
		err = bpf_peer_read(fd, &got);
	check(!err && same_blob(&got, &mine),
	      "write and read another process through its pidfd (%s)",
	      strerror(-err));
	close(p[1]);
	waitpid(pid, NULL, 0);
	if (fd >= 0)
		close(fd);
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

/* Loaded by a child process: the map works here as if loaded here. */
static void spawned(int self)
{
	int err, status;
	pid_t loader;

	err = bpf_peer_spawn();
	loader = bpf_peer_loader();
	if (!check(!err && loader > 0,
		   "load in a child process, which hands the map over (%s)",
		   strerror(-err)))
		return;
	make_blob(&mine, 3, keep_one);
	err = bpf_peer_write(self, &mine);
	if (!err)
		err = bpf_peer_read(self, &got);
	check(!err && same_blob(&got, &mine),
	      "loaded by a child: write 3 tags and read them back (%s)",
	      strerror(-err));
	status = err ? -1 : fork_check(&mine);
	check(status == 0, "loaded by a child: a fork has the 3 tags (child: %d)",
	      status);
	check(bpf_peer_lost() == 0, "the loader child counts no lost copy (%ld)",
	      bpf_peer_lost());
	bpf_peer_unload();
	check(kill(loader, 0) < 0 && errno == ESRCH,
	      "unloading ends and reaps the loader child");
	err = bpf_peer_read(self, &got);
	check(err == -ENODEV, "unloaded again (%s)", strerror(-err));
}

int main(int argc, char **argv)
{
	pthread_t t;
	void *ret;
	int self, err, status;

	if (argc == 4 && !strcmp(argv[1], "--after-exec"))
		return after_exec_child(argv);

	printf("TAP version 13\n# blob: %zu bytes, %d tags at most\n",
	       sizeof(struct peer_blob), PEER_MAX_TAGS);
	err = bpf_peer_load();
	if (!check(!err, "load: the programs pass the verifier and attach (%s)",
		   strerror(-err))) {
		printf("1..%d\n", test_no);
		return 1;
	}
	self = pidfd_of(getpid());

	/* Untagged: nothing to read, nothing inherited. */
	err = bpf_peer_read(self, &got);
	check(!err && got.count == 0, "untagged: read gives count 0 (%s)",
	      strerror(-err));
	make_blob(&mine, 0, keep_none);
	status = fork_check(&mine);
	check(status == 0, "untagged: the child has no blob (child: %d)",
	      status);

	/* Three tags, one kept. */
	make_blob(&mine, 3, keep_one);
	err = bpf_peer_write(self, &mine);
	check(!err, "write 3 tags, 1 kept (%s)", strerror(-err));
	err = bpf_peer_read(self, &got);
	check(!err && same_blob(&got, &mine), "read them back (%s)",
	      strerror(-err));
	status = fork_check(&mine);
	check(status == 0, "fork: the child has the 3 tags (child: %d)",
	      status);
	status = -1;
	if (!pthread_create(&t, NULL, thread_fork, &mine) &&
	    !pthread_join(t, &ret))
		status = (int)(long)ret;
	check(status == 0,
	      "fork from a second thread: the child has the 3 tags (child: %d)",
	      status);
	err = bpf_peer_read(self, &got);
	check(!err && same_blob(&got, &mine),
	      "the parent still has them after creating a thread (%s)",
	      strerror(-err));

	exec_case(self, "3 tags, 1 kept", 3, keep_one);
	exec_case(self, "3 tags, none kept", 3, keep_none);
	exec_case(self, "3 tags, all kept", 3, keep_all);
	exec_case(self, "the most tags, one in three kept", PEER_MAX_TAGS,
		  keep_third);

	/* The largest blob goes to a child whole. */
	make_blob(&mine, PEER_MAX_TAGS, keep_third);
	err = bpf_peer_write(self, &mine);
	status = err ? -1 : fork_check(&mine);
	check(status == 0, "fork with %d tags: the child has them all (child: %d)",
	      PEER_MAX_TAGS, status);

	write_other();

	/* The loader refuses what the exec program could not trust. */
	make_blob(&mine, 3, keep_one);
	mine.nkept = 3;
	err = bpf_peer_write(self, &mine);
	check(err == -EINVAL, "a blob whose nkept is wrong is refused (%s)",
	      strerror(-err));

	make_blob(&mine, 0, keep_none);
	err = bpf_peer_write(self, &mine);
	if (!err)
		err = bpf_peer_read(self, &got);
	check(!err && got.count == 0, "writing count 0 deletes the blob (%s)",
	      strerror(-err));
	check(bpf_peer_lost() == 0, "no fork lost its copy (%ld)",
	      bpf_peer_lost());

	bpf_peer_unload();
	err = bpf_peer_read(self, &got);
	check(err == -ENODEV, "unloaded (%s)", strerror(-err));

	spawned(self);
	printf("1..%d\n", test_no);
	return failures != 0;
}
