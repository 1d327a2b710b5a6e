/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the in-guest tests, on top of ../tap.h.  Each test
 * program is static, runs as root in the QEMU guest with ptags loaded and
 * mounted on /proc/ptags, prints TAP on stdout and exits non-zero when a
 * test failed.  Header-only so every test is one .c file; agent.h adds
 * command-driven child processes (agents) on top of it.
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
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/capability.h>

#define TAP_IMPLEMENTATION
#include "../tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PT_ROOT "/proc/ptags"
#define TRACEFS "/sys/kernel/tracing"

/* Where pt_path() finds entries: /proc/ptags unless a test says otherwise. */
static const char *pt_root = PT_ROOT;

static inline void pt_path(char *buf, size_t len, pid_t pid)
{
	if (pid)
		snprintf(buf, len, "%s/%d", pt_root, (int)pid);
	else
		snprintf(buf, len, "%s/self", pt_root);
}

/* ---------------------------------------------------------------- files */

/*
 * Write @s (@len bytes, as one write(2)) to the file @path.  Returns 0 on
 * success (and checks the full count was returned) or the errno.
 */
static inline int file_write_len(const char *path, const char *s, size_t len)
{
	ssize_t n;
	int fd, err = 0;

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

static inline int file_write(const char *path, const char *s)
{
	return file_write_len(path, s, strlen(s));
}

/*
 * Read the whole file @path into @buf (NUL-terminated, also on error).
 * Returns the length, or -errno.
 */
static inline ssize_t file_read(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n = 0;
	int fd;

	buf[0] = 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	if (n < 0)
		n = -errno;
	buf[got] = 0;
	close(fd);
	return n < 0 ? n : (ssize_t)got;
}

/* The number at the start of the file @path (sysfs, procfs); -1 on error. */
static inline long file_long(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd;

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

/* readlink() into @buf, NUL-terminated ("" on error); returns readlink's n. */
static inline ssize_t link_read(const char *path, char *buf, size_t len)
{
	ssize_t n = readlink(path, buf, len - 1);

	buf[n > 0 ? n : 0] = 0;
	return n;
}

/* @s with newlines shown as "\n", for one-line TAP names and diagnostics
 * (four rotating buffers, so one printf may show up to four). */
static inline const char *tap_esc(const char *s)
{
	static char buf[4][1024];
	static int k;
	char *b = buf[k++ % 4];
	size_t i = 0;

	for (; *s && i + 3 < sizeof(buf[0]); s++) {
		if (*s == '\n') {
			b[i++] = '\\';
			b[i++] = 'n';
		} else {
			b[i++] = *s;
		}
	}
	b[i] = 0;
	return b;
}

/* ---------------------------------------------------------------- ptags */

/*
 * Write @s (as one write(2)) to the tags of @pid (0: self).  Returns 0 on
 * success (and checks the full count was returned) or the errno.
 */
static inline int pt_write_len(pid_t pid, const char *s, size_t len)
{
	char path[4200];

	pt_path(path, sizeof(path), pid);
	return file_write_len(path, s, len);
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
	char path[4200];

	pt_path(path, sizeof(path), pid);
	return file_read(path, buf, len);
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
		diag("pid %d has tags [%s], expected [%s]", (int)pid,
		     tap_esc(buf), tap_esc(expect));
		return false;
	}
	return true;
}

/* Replace our own tags by the lines @tags (as root); bail out on failure. */
static inline void pt_reset(const char *tags)
{
	char s[4096];

	snprintf(s, sizeof(s), "-\n%s", tags);
	if (pt_write(0, s))
		die("reset tags to [%s]", tags);
}

/*
 * Common start of a test that acts from an untagged process: SIGPIPE
 * ignored, a 600 s watchdog, and bail out unless /proc/ptags is there and
 * this process has no tags.
 */
static inline void pt_start_untagged(void)
{
	signal(SIGPIPE, SIG_IGN);
	alarm(600);
	if (access(PT_ROOT "/self", F_OK))
		die("no " PT_ROOT);
	if (!pt_is(0, ""))
		die("the test process is tagged");
}

/* Number of tags (lines) of @pid, or -1 when they cannot be read. */
static inline int pt_lines(pid_t pid)
{
	static char buf[8 << 20];
	ssize_t n = pt_read(pid, buf, sizeof(buf));
	int lines = 0;

	if (n < 0)
		return -1;
	for (ssize_t i = 0; i < n; i++)
		lines += buf[i] == '\n';
	return lines;
}

#define PT_SYS "/sys/module/ptags/"

/* Read a counter from /sys/module/ptags/stats/NAME; -1 on error. */
static inline long pt_stat(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), PT_SYS "stats/%s", name);
	return file_long(path);
}

/* Read or set a module parameter; -1 on error. */
static inline long pt_param(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), PT_SYS "parameters/%s", name);
	return file_long(path);
}

/*
 * Wait up to 5 s until the counters live_sets, tagged_processes and bytes
 * read @live, @tagged and @bytes (-1: any value): tag sets are freed after
 * an RCU grace period.  Says what they read when they do not get there.
 */
static inline bool pt_counters_are(long live, long tagged, long bytes,
				   const char *what)
{
	long l = 0, t = 0, b = 0;
	int i;

	for (i = 0; i < 250; i++) {
		l = pt_stat("live_sets");
		t = pt_stat("tagged_processes");
		b = pt_stat("bytes");
		if (l == live && t == tagged && (bytes < 0 || b == bytes)) {
			if (i > 25)
				diag("%s: counters settled after %d ms", what, i * 20);
			return true;
		}
		usleep(20000);
	}
	diag("%s: live_sets %ld (want %ld), tagged_processes %ld (want %ld), bytes %ld (want %ld)",
	     what, l, live, t, tagged, b, bytes);
	return false;
}

/* Wait until no tag set is left in memory (start of a test). */
static inline void pt_quiesce(void)
{
	if (!pt_counters_are(0, 0, 0, "start"))
		diag("warning: counters not 0 before the test");
}

static inline int pt_set_param(const char *name, long value)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), PT_SYS "parameters/%s", name);
	snprintf(buf, sizeof(buf), "%ld\n", value);
	return file_write(path, buf);
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

/* fork() with stdout flushed first (no TAP line twice); dies on failure. */
static inline pid_t tap_fork(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	return pid;
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

	pid = tap_fork();
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Wait for the child @pid (retrying on EINTR).  Returns its exit status, or
 * 128 + the signal that ended it.
 */
static inline int wait_exit(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid %d", (int)pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * An idle child: it holds no descriptor but its end of a pipe and exits
 * when released (a byte arrives or every write end is closed).
 */
struct idler {
	pid_t pid;
	int go;		/* write end; -1 once released */
};

/* Start it; returns its pid (also in @s). */
static inline pid_t idler_start(struct idler *s)
{
	int p[2], fd;
	char c;

	if (pipe2(p, O_CLOEXEC))
		die("pipe");
	s->pid = tap_fork();
	if (s->pid == 0) {
		for (fd = 3; fd < 1024; fd++)
			if (fd != p[0])
				close(fd);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(p[0]);
	s->go = p[1];
	return s->pid;
}

/* Let it exit (a byte, not only EOF: other children may hold the pipe). */
static inline void idler_release(struct idler *s)
{
	char c = 1;

	if (s->go < 0)
		return;
	if (write(s->go, &c, 1) != 1)
		die("release idle child %d", (int)s->pid);
	close(s->go);
	s->go = -1;
}

/* Release it and wait until it is a zombie, without reaping it. */
static inline void idler_zombie(struct idler *s)
{
	siginfo_t si;

	idler_release(s);
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, s->pid, &si, WEXITED | WNOWAIT))
		die("waitid %d", (int)s->pid);
}

/* Release and reap it; its exit status as wait_exit() gives it. */
static inline int idler_reap(struct idler *s)
{
	idler_release(s);
	return wait_exit(s->pid);
}

/*
 * A running child that first calls @setup(@arg) (non-zero: it failed, and
 * so does the test) and then waits for SIGKILL.  Returns once the setup is
 * done.  Stop it with pt_stop().
 */
static inline pid_t pt_child(int (*setup)(void *), void *arg)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		die("pipe");
	pid = tap_fork();
	if (!pid) {
		close(p[0]);
		if (setup(arg) || write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		die("child %d did not start", (int)pid);
	close(p[0]);
	return pid;
}

static inline int pt_sleeper_setup(void *comm)
{
	if (comm)
		prctl(PR_SET_NAME, comm);
	return pt_write(0, "-\n");
}

/*
 * A running, untagged child named @comm (NULL: unchanged) that waits for
 * SIGKILL: a target for writes and listings.  Stop it with pt_stop().
 */
static inline pid_t pt_sleeper(const char *comm)
{
	return pt_child(pt_sleeper_setup, (void *)comm);
}

static inline void pt_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* tracefs on TRACEFS, mounted here if need be; false if the kernel has none. */
static inline bool tracefs_ready(void)
{
	mkdir(TRACEFS, 0755);
	return !access(TRACEFS "/trace", F_OK) ||
	       !mount("tracefs", TRACEFS, "tracefs", 0, NULL);
}

/* Empty the trace buffer (opening "trace" with O_TRUNC does): 0 or errno. */
static inline int trace_clear(void)
{
	int fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * The time stamp, in microseconds, of the first line of the trace text
 * @trace that holds @what (an event name and its fields), or -1.  A line
 * reads "TASK-PID [CPU] FLAGS SECONDS.MICROS: EVENT: FIELDS".
 */
static inline long long trace_stamp_us(const char *trace, const char *what)
{
	const char *p = strstr(trace, what), *q;
	unsigned long long s, us;

	if (!p || p - trace < 3 || p[-2] != ':')
		return -1;
	for (q = p - 2; q > trace && q[-1] != ' '; q--)
		;
	if (sscanf(q, "%llu.%6llu:", &s, &us) != 2)
		return -1;
	return (long long)(s * 1000000ULL + us);
}

#endif /* PTAGS_GUEST_H */
