// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §8: memory an open descriptor needs is its caller's own, never a
 * process's tag set kept alive: once no process is tagged, live_sets,
 * tagged_processes and bytes read 0 even while descriptors are open (here:
 * a half-read snapshot, a file opened for writing by a tagged opener, a
 * half-done listing).  SPEC §3.3 still holds: the open read continues its
 * snapshot.
 */
#include "guest.h"

#include <dirent.h>
#include <sys/syscall.h>

static void test_read_snapshot(void)
{
	pid_t p = pt_sleeper(NULL);
	char path[64], buf[64];
	ssize_t n1, n2;
	int fd;

	pt_quiesce();
	if (pt_write(p, "+first\n+second\n!second=value\n"))
		die("tagging");
	pt_path(path, sizeof(path), p);
	fd = open(path, O_RDONLY);
	n1 = read(fd, buf, 3);		/* takes the snapshot */
	if (pt_write(p, "-\n"))
		die("untagging");
	ok(n1 == 3 && pt_counters_are(0, 0, 0, "half-read snapshot"),
	   "SPEC §8: a half-read snapshot keeps no tag set alive once the process is untagged");
	n2 = read(fd, buf + 3, sizeof(buf) - 4);
	buf[n2 > 0 ? 3 + n2 : 3] = 0;
	ok(n2 > 0 && !strcmp(buf, "first\nsecond=value\n"),
	   "SPEC §3.3: the open read still continues its snapshot (\"%s\")",
	   tap_esc(buf));
	close(fd);
	pt_stop(p);
}

/* A child opens @target for writing while tagged with @tags, then drops them. */
static void opener_case(const char *tags, long live_while_open)
{
	pid_t target = pt_sleeper(NULL);
	int rel[2], rdy[2], fd, st;
	char path[64], c;
	pid_t child;

	pt_quiesce();
	if (pipe(rel) || pipe(rdy))
		die("pipe");
	child = tap_fork();
	if (!child) {
		close(rel[1]);
		close(rdy[0]);
		pt_path(path, sizeof(path), target);
		if (pt_write(0, tags))
			_exit(1);
		fd = open(path, O_WRONLY);
		if (fd < 0 || pt_write(0, "-\n"))
			_exit(2);
		/* untagged, with the file open: tell the parent and wait */
		if (write(rdy[1], "r", 1) != 1 || read(rel[0], &c, 1) < 0)
			_exit(3);
		_exit(0);
	}
	close(rel[0]);
	close(rdy[1]);
	if (read(rdy[0], &c, 1) != 1)
		die("opener child did not get ready");
	ok(pt_counters_are(live_while_open, 0, -1, "opener"),
	   "SPEC §8/§5.5: a file opened for writing by a process tagged \"%s\" holds %ld set(s) once the opener is untagged",
	   tap_esc(tags), live_while_open);
	close(rel[1]);
	close(rdy[0]);
	st = wait_exit(child);
	ok(st == 0 && pt_counters_are(0, 0, 0, "opener closed"),
	   "SPEC §8: and none after it closed (status %d)", st);
	pt_stop(target);
}

static void test_listing(void)
{
	pid_t p = pt_sleeper(NULL);
	char buf[256];
	long n;
	int fd;

	pt_quiesce();
	if (pt_write(p, "+listed\n"))
		die("tagging");
	fd = open(PT_ROOT, O_RDONLY | O_DIRECTORY);
	/* one small getdents: ".", ".." and "self" fit, the pids wait */
	n = syscall(SYS_getdents64, fd, buf, 80);
	if (pt_write(p, "-\n"))
		die("untagging");
	ok(n > 0 && pt_counters_are(0, 0, 0, "half-done listing"),
	   "SPEC §8: a half-done listing keeps no tag set alive (getdents %ld)",
	   n);
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		;
	ok(n == 0, "SPEC §3.2: the listing then runs to its end");
	close(fd);
	pt_stop(p);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_read_snapshot();
	opener_case("+plain\n", 0);
	opener_case("+ptags:app:add\n+other\n", 1);
	test_listing();
	return tap_done();
}
