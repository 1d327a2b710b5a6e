// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the ptags test guest.
 *
 * Mounts the basic file systems, loads /ptags.ko the way an administrator
 * would (SPEC §3.1: after insmod returns, /proc/ptags is mounted), runs every
 * program in /tests (stress last) and checks that the module leaves nothing
 * behind and unloads.  Results are TAP on the second serial port, so the
 * kernel console on the first one stays separate; the host script reads
 * both.  The last line on the TAP port is DONE_MARKER: without it the host
 * knows the guest crashed or hung.
 *
 * Kernel command line (read from /proc/cmdline):
 *   pttests=a,b     run only these tests from /tests
 *   pttimeout=N     per-test timeout in seconds (default 300)
 *   ptdemo=1        run "/bin/sh /demo.sh" on the console instead
 *   ptbench=1       run /bench (make bench), its report on the TAP port
 *   ptbench=smoke   the same with BENCH_SMOKE_ONLY=1 in its environment:
 *                   only the BPF peer's smoke test (tests/bench/bench.c)
 *   ptbench=NAME    any other NAME: the same with BENCH_ONLY=NAME in its
 *                   environment, one section of the bench (smp, copy, mem)
 *   ptmodprobe=1    load with "modprobe ptags" (from /lib/modules)
 *   pttap=ttyS0     the TAP port (default ttyS1: arm64's virt machine has
 *                   one UART, the console; its TAP port is a PCI serial)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define TAP_TTY		"ttyS1"
#define TESTS_DIR	"/tests"
#define LAST_TEST	"stress"
#define DONE_MARKER	"# ptags-guest: done"
#define REAP_TIMEOUT	30

static FILE *tap;
static int tap_fd = -1;
static int failures;
static char cmdline[4096];
static unsigned int test_timeout = 300;
static volatile sig_atomic_t alarmed;

static char *const test_env[] = {
	"PATH=/bin", "HOME=/tmp", "TERM=dumb", "LANG=C", NULL
};
static char *const bench_smoke_env[] = {
	"PATH=/bin", "HOME=/tmp", "TERM=dumb", "LANG=C", "BENCH_SMOKE_ONLY=1",
	NULL
};
static char bench_only[32] = "BENCH_ONLY=";
static char *const bench_only_env[] = {
	"PATH=/bin", "HOME=/tmp", "TERM=dumb", "LANG=C", bench_only, NULL
};
/* What run() gives the programs it runs. */
static char *const *run_env = test_env;

static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(tap, fmt, ap);
	va_end(ap);
	fputc('\n', tap);
	fflush(tap);
}

static bool __attribute__((format(printf, 2, 3)))
result(bool cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(tap, "%sok - ", cond ? "" : "not ");
	va_start(ap, fmt);
	vfprintf(tap, fmt, ap);
	va_end(ap);
	fputc('\n', tap);
	fflush(tap);
	if (!cond)
		failures++;
	return cond;
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd >= 0) {
		ssize_t n = write(fd, s, strlen(s));

		(void)n;	/* best effort */
		close(fd);
	}
}

static ssize_t read_file(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((size_t)got + 1 < len &&
	       (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	buf[got] = 0;
	close(fd);
	return got;
}

/* Value of "key=" on the kernel command line, or NULL. */
static const char *param(const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	const char *p = cmdline;

	while ((p = strstr(p, key))) {
		if ((p == cmdline || p[-1] == ' ') && p[klen] == '=') {
			p += klen + 1;
			snprintf(buf, len, "%.*s", (int)strcspn(p, " \n"), p);
			return buf;
		}
		p += klen;
	}
	return NULL;
}

static bool selected(const char *name)
{
	char list[1024];
	const char *p;
	size_t len = strlen(name);

	if (!param("pttests", list, sizeof(list)))
		return true;
	for (p = list; *p; p += strcspn(p, ",")) {
		p += *p == ',';
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
	}
	return false;
}

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

/* Wait for @pid (or anything, when @pid is -1) until ECHILD or @secs. */
static int wait_for(pid_t pid, int *status, unsigned int secs)
{
	pid_t w;

	alarmed = 0;
	alarm(secs);
	for (;;) {
		w = waitpid(-1, status, 0);
		if (w < 0 && errno == EINTR && alarmed)
			break;
		if (w < 0 && errno == ECHILD)
			break;
		if (w > 0 && w == pid)
			break;
	}
	alarm(0);
	return w;
}

/*
 * Kill whatever a test left behind (any process but us) and reap it, so
 * that the next test, and the final counter check, start from a clean
 * system.
 */
static void reap_all(const char *name)
{
	int status;

	kill(-1, SIGKILL);
	if (wait_for(-1, &status, REAP_TIMEOUT) >= 0 || errno != ECHILD)
		result(false, "%s: leftover processes did not die in %d s",
		       name, REAP_TIMEOUT);
}

/*
 * Run @argv with stdout and stderr on @out, in /tmp and its own process
 * group; returns the wait status, or -1 on timeout.
 */
static int run(const char *name, char *const argv[], int out)
{
	int status = 0, in;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		result(false, "%s: fork: %s", name, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigset_t all;

		setpgid(0, 0);
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		in = open("/dev/null", O_RDONLY);
		dup2(in, 0);
		dup2(out, 1);
		dup2(out, 2);
		if (in > 2)
			close(in);
		if (chdir("/tmp"))
			_exit(126);
		execve(argv[0], argv, run_env);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	if (wait_for(pid, &status, test_timeout) != pid) {
		say("# %s: timed out after %u s, killing it", name, test_timeout);
		kill(-pid, SIGKILL);
		wait_for(pid, &status, REAP_TIMEOUT);
		status = -1;
	}
	reap_all(name);
	return status;
}

static void report(const char *name, int status)
{
	if (status == -1)
		result(false, "%s timed out", name);
	else if (WIFSIGNALED(status))
		result(false, "%s killed by signal %d", name, WTERMSIG(status));
	else
		result(WEXITSTATUS(status) == 0, "%s exited %d", name,
		       WEXITSTATUS(status));
}

static bool ptags_mounted(void)
{
	static char buf[1 << 16];
	char *line;

	if (read_file("/proc/mounts", buf, sizeof(buf)) < 0)
		return false;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char dev[256], dir[256], type[64];

		if (sscanf(line, "%255s %255s %63s", dev, dir, type) == 3 &&
		    !strcmp(dir, "/proc/ptags") && !strcmp(type, "ptags"))
			return true;
	}
	return false;
}

/*
 * ptmodprobe=1: the module is in /lib/modules (a DKMS install, depmod run):
 * load it the way a user does.
 */
static bool load_module(void)
{
	char cmd[64], val[8];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	const char *how = "insmod /ptags.ko";
	int status;

	if (param("ptmodprobe", val, sizeof(val)) && strcmp(val, "0"))
		how = "modprobe ptags";
	snprintf(cmd, sizeof(cmd), "%s && cat /proc/ptags/$$", how);
	say("# --- load");
	status = run("load", argv, tap_fd);
	if (!result(status == 0, "%s exited %d", cmd,
		    status == -1 ? -1 : WEXITSTATUS(status)))
		return false;
	return result(ptags_mounted(), "/proc/ptags is a ptags mount after %s", how);
}

static int filter(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Sort in byte order, LAST_TEST after everything else. */
static int order(const struct dirent **a, const struct dirent **b)
{
	bool la = !strcmp((*a)->d_name, LAST_TEST);
	bool lb = !strcmp((*b)->d_name, LAST_TEST);

	if (la != lb)
		return la - lb;
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void run_tests(void)
{
	struct dirent **names;
	char path[512];
	int i, n;

	n = scandir(TESTS_DIR, &names, filter, order);
	if (n < 0) {
		say("# no %s directory", TESTS_DIR);
		return;
	}
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char *argv[] = { path, NULL };

		snprintf(path, sizeof(path), TESTS_DIR "/%s", name);
		if (selected(name) && access(path, X_OK) == 0) {
			say("# --- %s", name);
			report(name, run(name, argv, tap_fd));
			if (access("/sys/module/ptags", F_OK) || !ptags_mounted())
				result(false, "%s left ptags unloaded or /proc/ptags unmounted",
				       name);
		}
		free(names[i]);
	}
	free(names);
}

/* Counters that must be back to 0 once nothing is tagged (SPEC §8). */
static void check_counters(void)
{
	static const char *const names[] = {
		"tagged_processes", "live_sets", "bytes",
	};
	const unsigned int n = sizeof(names) / sizeof(names[0]);
	char path[128], buf[3][64];
	unsigned int i, zero, try;

	/* Sets may be freed after an RCU grace period: allow 5 s. */
	for (try = 0; try < 100; try++) {
		for (i = zero = 0; i < n; i++) {
			snprintf(path, sizeof(path),
				 "/sys/module/ptags/stats/%s", names[i]);
			if (read_file(path, buf[i], sizeof(buf[i])) < 0)
				strcpy(buf[i], "unreadable");
			buf[i][strcspn(buf[i], "\n")] = 0;
			zero += !strcmp(buf[i], "0");
		}
		if (zero == n)
			break;
		usleep(50000);
	}
	for (i = 0; i < n; i++)
		result(!strcmp(buf[i], "0"), "stats/%s reads 0 at the end (%s)",
		       names[i], buf[i]);
}

static void unload_module(void)
{
	int err;

	err = umount2("/proc/ptags", 0) ? errno : 0;
	result(!err, "umount /proc/ptags (%s)", strerror(err));
	err = syscall(SYS_delete_module, "ptags", O_NONBLOCK) ? errno : 0;
	result(!err, "delete_module(ptags) (%s)", strerror(err));
	err = access("/sys/module/ptags", F_OK) ? errno : 0;
	result(err == ENOENT, "/sys/module/ptags is gone");
}

static void demo(void)
{
	char *argv[] = { "/bin/sh", "/demo.sh", NULL };
	int status;

	/* The demo talks to the console; the TAP port only gets the verdict. */
	status = run("demo", argv, 1);
	report("demo", status);
}

static void bench(void)
{
	char *argv[] = { "/bench", NULL };
	char val[8];

	if (param("ptbench", val, sizeof(val)) && !strcmp(val, "smoke")) {
		run_env = bench_smoke_env;
	} else if (strcmp(val, "1")) {
		snprintf(bench_only + 11, sizeof(bench_only) - 11, "%s", val);
		run_env = bench_only_env;
	}
	/* The benchmark loads and unloads the modules it compares itself. */
	report("bench", run("bench", argv, tap_fd));
	run_env = test_env;
}

/*
 * Debug kernels (make check-debug) have kmemleak.  Before the module loads,
 * scan once and forget what the boot left (still "quiet": the scan's
 * summary stays off the console); after the module is gone, scan again:
 * anything reported then is a leak of the run.  Objects younger than 5 s
 * are never reported, hence the wait.
 */
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"
static bool kmemleak;

static void kmemleak_begin(void)
{
	mkdir("/sys/kernel/debug", 0755);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	kmemleak = access(KMEMLEAK, W_OK) == 0;
	if (kmemleak) {
		write_file(KMEMLEAK, "scan");
		write_file(KMEMLEAK, "clear");
	}
}

static void kmemleak_end(void)
{
	static char report[16384];
	char *line, *save;
	ssize_t n;

	if (!kmemleak)
		return;
	sleep(6);
	write_file(KMEMLEAK, "scan");
	write_file(KMEMLEAK, "scan");
	n = read_file(KMEMLEAK, report, sizeof(report));
	if (!result(n == 0, "kmemleak: no suspected leak after the run (%zd bytes of report)",
		    n))
		for (line = strtok_r(report, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			say("# %s", line);
}

static void setup(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct termios tio;
	char val[32], tty[48];
	int fd;

	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir("/tmp", 01777);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	setenv("PATH", "/bin", 1);

	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	cmdline[strcspn(cmdline, "\n")] = 0;
	snprintf(tty, sizeof(tty), "/dev/%s",
		 param("pttap", val, sizeof(val)) ?: TAP_TTY);
	tap_fd = open(tty, O_RDWR | O_NOCTTY);
	if (tap_fd < 0) {
		fprintf(stderr, "init: %s: %s\n", tty, strerror(errno));
		tap_fd = 1;
	} else if (!tcgetattr(tap_fd, &tio)) {
		cfmakeraw(&tio);	/* no \r\n translation */
		tcsetattr(tap_fd, TCSANOW, &tio);
	}
	tap = fdopen(dup(tap_fd), "w");

	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: alarm breaks waitpid */
	if (param("pttimeout", val, sizeof(val)))
		test_timeout = strtoul(val, NULL, 10) ?: test_timeout;
	kmemleak_begin();
	/* Booted "quiet": from here on, every kernel message reaches the log. */
	write_file("/proc/sys/kernel/printk", "8");
}

int main(void)
{
	char val[8];

	setup();
	say("# ptags guest: %s", cmdline);
	if (param("ptdemo", val, sizeof(val)) && strcmp(val, "0"))
		demo();
	else if (param("ptbench", val, sizeof(val)) && strcmp(val, "0"))
		bench();
	else if (load_module()) {
		run_tests();
		check_counters();
		unload_module();
		kmemleak_end();
	}
	say("# %d failure(s)", failures);
	say(DONE_MARKER);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
