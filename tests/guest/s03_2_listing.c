// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.2 under churn: "a process that stays tagged for the whole listing
 * appears exactly once".  A few processes stay tagged while others are
 * tagged and untagged (forked tagged, exiting at once; written to, then
 * emptied), which keeps the module's process table growing and shrinking,
 * and listings are read with small, varying buffers.
 */
#include "guest.h"

#include <sys/mman.h>
#include <time.h>

#define STABLE		4
#define CHURN		2
#define SECONDS		20

struct dirent64_ {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static volatile int *stop;

static pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		while (!*stop)
			pause();
		_exit(0);
	}
	return pid;
}

/* Fork tagged children that exit at once, and tag/untag ourselves. */
static void churn(void)
{
	unsigned int n = 0;
	pid_t pid;

	while (!*stop) {
		if (n++ % 2)
			pt_write(0, "+churn\n");
		else
			pt_write(0, "-\n");
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	_exit(0);
}

int main(void)
{
	pid_t stable[STABLE], churners[CHURN];
	long listings = 0, missed = 0, twice = 0;
	unsigned int seed = 1;
	char dbuf[600], path[64];
	time_t end;
	int i, s;

	stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stop == MAP_FAILED)
		die("mmap");
	for (i = 0; i < STABLE; i++) {
		stable[i] = spawn_sleeper();
		if (pt_write(stable[i], "+stable\n"))
			die("tag %d", stable[i]);
	}
	for (i = 0; i < CHURN; i++) {
		churners[i] = fork();
		if (churners[i] == 0)
			churn();
	}

	end = time(NULL) + SECONDS;
	while (time(NULL) < end) {
		int fd = open(PT_ROOT, O_RDONLY | O_DIRECTORY), count[STABLE] = { 0 };
		size_t bufsz = 48 + rand_r(&seed) % (sizeof(dbuf) - 48);
		long n;

		if (fd < 0)
			die("open " PT_ROOT);
		while ((n = syscall(SYS_getdents64, fd, dbuf, bufsz)) > 0) {
			for (long off = 0; off < n;) {
				struct dirent64_ *d = (void *)(dbuf + off);

				off += d->d_reclen;
				for (s = 0; s < STABLE; s++) {
					snprintf(path, sizeof(path), "%d", stable[s]);
					count[s] += !strcmp(d->d_name, path);
				}
			}
		}
		close(fd);
		listings++;
		for (s = 0; s < STABLE; s++) {
			if (!count[s] && !missed++)
				diag("listing %ld (buffer %zu) misses %d", listings,
				     bufsz, stable[s]);
			if (count[s] > 1 && !twice++)
				diag("listing %ld (buffer %zu) has %d %d times",
				     listings, bufsz, stable[s], count[s]);
		}
	}
	*stop = 1;
	for (i = 0; i < STABLE; i++)
		kill(stable[i], SIGTERM);
	for (i = 0; i < STABLE; i++)
		waitpid(stable[i], NULL, 0);
	for (i = 0; i < CHURN; i++)
		waitpid(churners[i], NULL, 0);
	ok(listings > 100, "setup: %ld listings under churn", listings);
	ok(!missed, "SPEC §3.2: always-tagged processes are in every listing (%ld misses)",
	   missed);
	ok(!twice, "SPEC §3.2: and appear only once (%ld duplicates)", twice);
	return tap_done();
}
