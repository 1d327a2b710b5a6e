// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.2-§3.4 and §7 at the edges an attacker picks (docs/SECURITY.md):
 *
 *  - pid reuse: a descriptor opened on a process that exited never reaches
 *    the process that got its pid number afterwards;
 *  - user-copy bounds: writes from and reads into unmapped or kernel
 *    addresses, buffers that end in an unmapped page, huge counts and
 *    offsets: EFAULT, E2BIG, EINVAL or 0, never a change of tags, never a
 *    kernel report (the debug kernel's KASAN watches the copies).
 */
#define _GNU_SOURCE
#include "guest.h"

#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>

#define LAST_PID "/proc/sys/kernel/ns_last_pid"

/* ---------------------------------------------------------------- pid reuse */

/* Fork an idler whose pid is @want (via ns_last_pid); false if another
 * process took it first every time. */
static bool idler_at(struct idler *s, pid_t want)
{
	char b[32];
	int tries;

	for (tries = 0; tries < 20; tries++) {
		snprintf(b, sizeof(b), "%d", (int)want - 1);
		if (file_write(LAST_PID, b))
			return false;
		idler_start(s);
		if (s->pid == want)
			return true;
		idler_reap(s);
	}
	return false;
}

static void test_pid_reuse(void)
{
	static char buf[4096];
	struct idler a, b;
	char path[64];
	int fw, fr, err;
	ssize_t n;

	idler_start(&a);
	if (pt_write(a.pid, "+B03:old\n"))
		die("tag the first process");
	pt_path(path, sizeof(path), a.pid);
	fw = open(path, O_WRONLY);
	fr = open(path, O_RDONLY);
	if (fw < 0 || fr < 0)
		die("open %s", path);
	idler_reap(&a);

	if (!idler_at(&b, a.pid)) {
		ok(true, "# SKIP could not get pid %d again through %s",
		   (int)a.pid, LAST_PID);
		close(fw);
		close(fr);
		return;
	}
	if (pt_write(b.pid, "+B03:new\n"))
		die("tag the second process");

	err = pt_fdwrite(fw, "+B03:evil\n");
	ok((err == ESRCH || err == ENOENT) && pt_is(b.pid, "B03:new\n"),
	   "SPEC §3.2/§7: a write through a descriptor of an exited process fails (%s) and does not reach the process that reused its pid %d",
	   strerror(err), (int)b.pid);
	n = pread(fr, buf, sizeof(buf) - 1, 0);
	err = n < 0 ? errno : 0;
	if (n >= 0)
		buf[n] = 0;
	ok(n < 0 && (err == ESRCH || err == ENOENT),
	   "SPEC §3.2: a read through that descriptor fails (%s), it does not show the new process's tags",
	   n < 0 ? strerror(err) : tap_esc(buf));
	ok(pt_is(b.pid, "B03:new\n"),
	   "SPEC §3.2: a fresh open of /proc/ptags/%d reaches the new process",
	   (int)b.pid);
	close(fw);
	close(fr);
	idler_reap(&b);
}

/* ---------------------------------------------------------------- user copies */

static void test_user_copy(void)
{
	static char buf[4096];
	long page = sysconf(_SC_PAGESIZE);
	const char *line = "+B03:x\n";
	size_t len = strlen(line);
	/* volatile: the compiler must not see through these addresses */
	char *volatile null = NULL;
	char *volatile kernel = (char *)0xffff888000000000UL;
	char *map;
	ssize_t n;
	int fd, err;

	/*
	 * Low (a hint at 4 GiB): the 2 GiB write below must pass the VFS's
	 * access_ok() on [map, map + 2 GiB) to reach ptags.  On arm64 the
	 * mmap area ends just under 2^48, the end of the user address space,
	 * and a mapping there made the VFS answer EFAULT first.
	 */
	map = mmap((void *)(1UL << 32), 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || munmap(map + page, page))
		die("mmap");
	if (pt_write(0, "-\n+B03:a\n+B03:b\n!B03:b=0123456789\n+@B03:c\n"))
		die("tag myself");
	fd = open(PT_ROOT "/self", O_RDWR);
	if (fd < 0)
		die("open self");

	/* Writes. */
	memcpy(map + page - len, line, len);
	n = write(fd, map + page - len + 1, len);
	err = errno;
	ok(n < 0 && err == EFAULT && pt_is(0, "B03:a\nB03:b=0123456789\n@B03:c\n"),
	   "SPEC §7: a write whose last byte is in an unmapped page -> EFAULT, nothing changes (%s)",
	   n < 0 ? strerror(err) : "succeeded");
	n = write(fd, null, 16);
	err = errno;
	ok(n < 0 && err == EFAULT, "a write from address 0 -> EFAULT (%s)",
	   n < 0 ? strerror(err) : "succeeded");
	n = write(fd, kernel, 16);
	err = errno;
	ok(n < 0 && err == EFAULT, "a write from a kernel address -> EFAULT (%s)",
	   n < 0 ? strerror(err) : "succeeded");
	n = write(fd, map, SIZE_MAX / 2);
	err = errno;
	ok(n < 0 && (err == EFAULT || err == E2BIG),
	   "a write of SIZE_MAX/2 bytes -> EFAULT (the VFS) or E2BIG (%s)",
	   n < 0 ? strerror(err) : "succeeded");
	n = write(fd, map, (size_t)INT_MAX & ~(size_t)4095);
	err = errno;
	ok(n < 0 && err == E2BIG,
	   "SPEC §3.4: a write of 2 GiB - 4 KiB (the most the VFS passes on) from a short mapping -> E2BIG before any copy (%s)",
	   n < 0 ? strerror(err) : "succeeded");
	n = write(fd, map, (size_t)pt_param("max_write") + 1);
	err = errno;
	ok(n < 0 && err == E2BIG,
	   "SPEC §3.4: max_write+1 bytes from a short mapping -> E2BIG, not EFAULT (%s)",
	   n < 0 ? strerror(err) : "succeeded");
	n = write(fd, map + page - len, len);
	ok(n == (ssize_t)len && pt_is(0, "B03:a\nB03:b=0123456789\n@B03:c\nB03:x\n"),
	   "a write that ends exactly at the end of a mapping works");
	ok(write(fd, map, 0) == 0 &&
	   pt_is(0, "B03:a\nB03:b=0123456789\n@B03:c\nB03:x\n"),
	   "a write of 0 bytes returns 0 and changes nothing");

	/* Reads. */
	n = pread(fd, null, 100, 0);
	err = errno;
	ok(n < 0 && err == EFAULT, "a read into address 0 -> EFAULT (%s)",
	   n < 0 ? strerror(err) : "succeeded");
	n = pread(fd, kernel, 100, 0);
	err = errno;
	ok(n < 0 && err == EFAULT, "a read into a kernel address -> EFAULT (%s)",
	   n < 0 ? strerror(err) : "succeeded");
	n = pread(fd, map + page - 5, 100, 0);
	err = errno;
	ok((n < 0 && err == EFAULT) ||
	   (n == 5 && !memcmp(map + page - 5, "B03:a", 5)),
	   "a read into a buffer that runs into an unmapped page -> EFAULT or the bytes that fit (%zd)",
	   n);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	ok(!strcmp(buf, "B03:a\nB03:b=0123456789\n@B03:c\nB03:x\n"),
	   "SPEC §3.3: after the faults a read at 0 returns the whole text");
	n = pread(fd, buf, 100, (off_t)1 << 62);
	ok(n == 0, "a read at offset 2^62 returns 0 (%zd)", n);
	n = pread(fd, buf, 100, LLONG_MAX);
	err = errno;
	ok(n == 0 || (n < 0 && err == EINVAL),
	   "a read at offset LLONG_MAX returns 0 or EINVAL (%zd)", n);
	n = pread(fd, buf, 100, -1);
	err = errno;
	ok(n < 0 && err == EINVAL, "a read at offset -1 -> EINVAL (%s)",
	   n < 0 ? strerror(err) : "succeeded");
	ok(lseek(fd, (off_t)1 << 40, SEEK_SET) == (off_t)1 << 40 &&
	   read(fd, buf, 100) == 0,
	   "lseek far past the end, then read: 0 bytes");

	close(fd);
	munmap(map, page);
	if (pt_write(0, "-\n"))
		die("untag myself");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_pid_reuse();
	test_user_copy();
	return tap_done();
}
