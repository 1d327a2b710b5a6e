/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tiny TAP harness and helpers shared by the in-guest tests.  Each test
 * program is static, runs as root in the QEMU guest with ptags loaded and
 * mounted on /proc/ptags, prints TAP on stdout and exits non-zero when a
 * test failed.  Header-only so every test is one .c file.
 */
#ifndef PTAGS_GUEST_H
#define PTAGS_GUEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/capability.h>

#define PT_ROOT "/proc/ptags"

static int tap_count;
static int tap_failures;

/* ok(cond, "name %d", ...): one TAP result; returns cond. */
static inline bool __attribute__((format(printf, 2, 3)))
ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		tap_failures++;
	return cond;
}

static inline void __attribute__((format(printf, 1, 2)))
diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Print the plan and return the exit status for main(). */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	fflush(stdout);
	return tap_failures ? 1 : 0;
}

/* Abort the whole program: a setup step failed. */
#define die(...) do { printf("Bail out! "); printf(__VA_ARGS__); \
	printf(" (errno %d: %s)\n", errno, strerror(errno)); fflush(stdout); exit(2); } while (0)

static inline void pt_path(char *buf, size_t len, pid_t pid)
{
	if (pid)
		snprintf(buf, len, PT_ROOT "/%d", (int)pid);
	else
		snprintf(buf, len, PT_ROOT "/self");
}

/*
 * Write @s (as one write(2)) to the tags of @pid (0: self).  Returns 0 on
 * success (and checks the full count was returned) or the errno.
 */
static inline int pt_write_len(pid_t pid, const char *s, size_t len)
{
	char path[64];
	ssize_t n;
	int fd, err = 0;

	pt_path(path, sizeof(path), pid);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	n = write(fd, s, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	close(fd);
	return err;
}

static inline int pt_write(pid_t pid, const char *s)
{
	return pt_write_len(pid, s, strlen(s));
}

/* Write to an open descriptor; 0 or errno. */
static inline int pt_fdwrite(int fd, const char *s)
{
	ssize_t n = write(fd, s, strlen(s));

	if (n < 0)
		return errno;
	return (size_t)n == strlen(s) ? 0 : EIO;
}

/*
 * Read all tags of @pid (0: self) into @buf (NUL-terminated).  Returns the
 * length, or -errno.
 */
static inline ssize_t pt_read(pid_t pid, char *buf, size_t len)
{
	char path[64];
	size_t got = 0;
	ssize_t n;
	int fd;

	pt_path(path, sizeof(path), pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	buf[got] = 0;
	close(fd);
	return got;
}

/* True when the tags of @pid read exactly @expect. */
static inline bool pt_is(pid_t pid, const char *expect)
{
	static char buf[1 << 16];
	ssize_t n = pt_read(pid, buf, sizeof(buf));

	if (n < 0) {
		diag("read of pid %d failed: %s", (int)pid, strerror(-n));
		return false;
	}
	if (strcmp(buf, expect)) {
		diag("pid %d has tags [%s], expected [%s]", (int)pid, buf, expect);
		return false;
	}
	return true;
}

/* Read a counter from /sys/module/ptags/stats/NAME; -1 on error. */
static inline long pt_stat(const char *name)
{
	char path[128], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/ptags/stats/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/* Read or set a module parameter; -1 on error. */
static inline long pt_param(const char *name)
{
	char path[128], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/ptags/parameters/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

static inline int pt_set_param(const char *name, long value)
{
	char path[128], buf[64];
	int fd, len, err = 0;

	snprintf(path, sizeof(path), "/sys/module/ptags/parameters/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	len = snprintf(buf, sizeof(buf), "%ld\n", value);
	if (write(fd, buf, len) != len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/*
 * Become an unprivileged process: uid/gid @uid, no capabilities at all
 * (effective, permitted, inheritable, bounding, ambient).  Returns 0 when
 * the capability is verifiably gone.
 */
static inline int drop_privileges(uid_t uid)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int cap;

	for (cap = 0; cap <= 63; cap++)
		prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -1;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data))
		return -1;
	if (syscall(SYS_capget, &hdr, data))
		return -1;
	if (data[0].effective || data[0].permitted || data[1].effective ||
	    data[1].permitted)
		return -1;
	if (prctl(PR_CAPBSET_READ, CAP_MAC_ADMIN, 0, 0, 0) != 0)
		return -1;
	return 0;
}

/*
 * Run @fn(@arg) in a child process and return its exit status (0..255),
 * or -1 if it died of a signal.  The child's TAP lines share our counter
 * only through its exit status, so children should not call ok(): they
 * return 0 for success or a small code the parent checks.
 */
static inline int run_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif /* PTAGS_GUEST_H */
