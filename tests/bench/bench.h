/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks run in a guest share (bench.c, scale.c): the clock,
 * the median of repeated runs, fork+exit+wait, loading ptags.ko and reading
 * its counters.  Each program is one file plus this header, built static.
 */
#ifndef PTAGS_BENCH_H
#define PTAGS_BENCH_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../guest/guest.h"	/* file_long(), file_write() */

#define REPS		7

static inline void fail(const char *what)
{
	printf("bench: %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(1);
}

static inline double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median over @reps (at most REPS) runs of the mean time of @n calls. */
static inline double measure_reps(void (*fn)(void *), void *arg, int n,
				  int reps)
{
	double v[REPS], t0;
	int r, i;

	fn(arg);	/* warm up */
	for (r = 0; r < reps; r++) {
		t0 = now_us();
		for (i = 0; i < n; i++)
			fn(arg);
		v[r] = (now_us() - t0) / n;
	}
	qsort(v, reps, sizeof(v[0]), cmp_double);
	return v[reps / 2];
}

static inline double measure(void (*fn)(void *), void *arg, int n)
{
	return measure_reps(fn, arg, n, REPS);
}

static inline void reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		fail("wait");
}

static inline void op_fork(void *arg)
{
	pid_t pid = fork();

	(void)arg;
	if (!pid)
		_exit(0);
	reap(pid);
}

/* Load the module at @path with parameters @params ("" for none). */
static inline void module_load_params(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || syscall(SYS_finit_module, fd, params, 0))
		fail(path);
	close(fd);
}

static inline void module_load(const char *path)
{
	module_load_params(path, "");
}

/* Unload @name; ptags's file system, if @mounted, goes first. */
static inline void module_unload(const char *name, int mounted)
{
	if (mounted && umount2("/proc/ptags", 0))
		fail("umount /proc/ptags");
	if (syscall(SYS_delete_module, name, O_NONBLOCK))
		fail("delete_module");
}

/* A line of /proc/meminfo ("Slab:", "KernelStack:"...), in kB, or -1. */
static inline long meminfo_kb(const char *key)
{
	char line[128], name[32];
	long kb, found = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && found < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %ld", name, &kb) == 2 &&
		    !strcmp(name, key))
			found = kb;
	if (f)
		fclose(f);
	return found;
}

/* One line per target of the issues: met or missed, counted. */
static int failures;

static inline void target(int met, const char *what, double value,
			  double limit)
{
	printf("target %-62s %9.4f (limit %.4f) %s\n", what, value, limit,
	       met ? "met" : "MISSED");
	if (!met)
		failures++;
}

/* One of ptags's counters (/sys/module/ptags/stats), or -1. */
static inline long stat_read(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/ptags/stats/%s", name);
	return file_long(path);
}

/* Write @text to our own entry in one write. */
static inline void tags_write(const char *text, size_t len)
{
	int fd = open("/proc/ptags/self", O_WRONLY);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		fail("tag self");
	close(fd);
}

/*
 * Read a whole entry from offset 0 (a fresh snapshot) on an open fd.  The
 * buffer is 64-byte aligned: bench.c also keeps the BPF peer's blobs there.
 */
static char readbuf[1 << 20] __attribute__((aligned(64)));

static inline void op_read(void *arg)
{
	int fd = *(int *)arg;
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, readbuf, sizeof(readbuf), off)) > 0)
		off += n;
	if (n < 0)
		fail("read");
}

/* The directory @fd listed from offset 0 to its end. */
static inline void list_fd(int fd)
{
	char buf[1 << 16];
	long n;

	if (lseek(fd, 0, SEEK_SET))
		fail("rewind /proc/ptags");
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		fail("getdents64");
}

/* List /proc/ptags: open, getdents until the end, close. */
static inline void op_list(void *arg)
{
	int fd = open("/proc/ptags", O_RDONLY | O_DIRECTORY);

	(void)arg;
	if (fd < 0)
		fail("open /proc/ptags");
	list_fd(fd);
	close(fd);
}

/*
 * @fn(@arg, @res) in a child, whose @len bytes of @res come back to us.
 * False if they did not (the child failed before sending them).
 */
static inline int in_child(void (*fn)(void *arg, void *res), void *arg,
			   void *res, size_t len)
{
	int p[2], got;
	pid_t pid;

	if (pipe(p))
		fail("pipe");
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (!pid) {
		close(p[0]);
		fn(arg, res);
		_exit(write(p[1], res, len) != (ssize_t)len);
	}
	close(p[1]);
	got = read(p[0], res, len) == (ssize_t)len;
	close(p[0]);
	reap(pid);
	return got;
}

#endif /* PTAGS_BENCH_H */
