// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §9 "module removed" and §3.1 under load: the module is unmounted and
 * removed while tagged processes fork, exec and exit and a writer keeps
 * changing their tags, then loaded again, several times.  Nothing may crash
 * or warn (the harness checks the kernel log), every load starts with every
 * process untagged, and the counters end at zero.
 */
#include "guest.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>

#define WORKERS		3
#define CYCLES		6
#define PHASE_MS	700

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Forks children that exit at once or exec themselves, until told to stop. */
static int worker(const char *self)
{
	char *argv[] = { (char *)self, "--exit", NULL };
	unsigned int n = 0;
	pid_t pid;

	signal(SIGTERM, on_term);
	while (!stop) {
		pid = (n++ % 3) ? fork() : vfork();
		if (pid == 0) {
			if (n % 2)
				execv(self, argv);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	return 0;
}

/* Rewrites the tags of the workers (and of itself) through /proc/ptags. */
static int writer(pid_t *pids)
{
	static const char *const lines[] = {
		"+w:a\n!w:a=1\n", "-w:a\n", "+@w:k\n", "-@w:k\n+w:b\n", "-w:*\n",
	};
	unsigned int n = 0;

	signal(SIGTERM, on_term);
	while (!stop) {
		const char *l = lines[n % 5];

		/* Failures are expected while the module comes and goes. */
		pt_write(pids[n % WORKERS], l);
		n++;
	}
	return 0;
}

static pid_t spawn(int (*fn)(const char *), const char *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

static int load(void)
{
	int fd = open("/ptags.ko", O_RDONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, "", 0))
		err = errno;
	close(fd);
	return err;
}

/* Lazy unmount (files may be open), then retry removal until it works. */
static int unload(int *tries)
{
	int i;

	if (umount2(PT_ROOT, MNT_DETACH))
		return errno;
	for (i = 1; i <= 2000; i++) {
		if (!syscall(SYS_delete_module, "ptags", O_NONBLOCK)) {
			*tries = i;
			return 0;
		}
		if (errno != EAGAIN && errno != EBUSY)
			return errno;
		sleep_ms(5);
	}
	return ETIMEDOUT;
}

static bool mounted(void)
{
	struct stat a, b;

	return !stat("/proc", &a) && !stat(PT_ROOT, &b) && a.st_dev != b.st_dev;
}

int main(int argc, char **argv)
{
	pid_t pids[WORKERS], wpid;
	int cycle, i, err, tries = 0, status;
	bool all_ok = true;
	long tagged;
	char buf[256];

	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return 0;

	for (cycle = 0; cycle < CYCLES; cycle++) {
		/* Tag ourselves: every worker and its children inherit. */
		err = pt_write(0, "+storm\n+@storm:kept\n!storm:kept=v\n");
		if (!ok(!err, "SPEC §9: cycle %d: tag the storm's parent (%s)",
			cycle, strerror(err)))
			break;
		for (i = 0; i < WORKERS; i++)
			pids[i] = spawn(worker, "/proc/self/exe");
		wpid = fork();
		if (wpid == 0)
			_exit(writer(pids));
		sleep_ms(PHASE_MS);
		tagged = pt_stat("tagged_processes");
		all_ok &= ok(tagged > WORKERS,
			     "SPEC §9: cycle %d: the storm runs tagged (%ld tagged processes)",
			     cycle, tagged);

		/* Remove the module in the middle of the storm. */
		err = unload(&tries);
		all_ok &= ok(!err, "SPEC §9: cycle %d: unmount and remove during a fork/exec/exit storm with writes (%s, %d tries)",
			     cycle, strerror(err), tries);
		sleep_ms(PHASE_MS / 2);

		/* Load it again while the storm goes on. */
		err = load();
		all_ok &= ok(!err && mounted(),
			     "SPEC §3.1: cycle %d: load again during the storm mounts %s (%s)",
			     cycle, PT_ROOT, strerror(err));
		all_ok &= ok(pt_read(0, buf, sizeof(buf)) == 0,
			     "SPEC §9: cycle %d: after the reload this process starts untagged",
			     cycle);
		sleep_ms(PHASE_MS);

		kill(wpid, SIGTERM);
		for (i = 0; i < WORKERS; i++)
			kill(pids[i], SIGTERM);
		waitpid(wpid, &status, 0);
		for (i = 0; i < WORKERS; i++)
			waitpid(pids[i], &status, 0);
		pt_write(0, "-\n");
	}
	ok(all_ok, "SPEC §9: %d load/unload cycles under load", CYCLES);
	ok(pt_stat("tagged_processes") == 0 && pt_stat("live_sets") == 0 &&
	   pt_stat("bytes") == 0,
	   "SPEC §8: counters are zero once the storm is over");
	return tap_done();
}
