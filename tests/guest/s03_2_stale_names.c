// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.2: /proc/ptags/N names the process that has pid N now.  A name
 * held open (a descriptor keeps its dentry) must not go on naming the old
 * process once N means another one: a thread that exited, or the tid a
 * non-leader exec gave up, whose number a new process then gets.
 */
#include "guest.h"

#include <pthread.h>
#include <sys/stat.h>

#define LAST_PID "/proc/sys/kernel/ns_last_pid"

/* A child that sleeps untagged at pid @want; 0 if it cannot be had. */
static pid_t sleeper_at(pid_t want)
{
	char b[32];
	pid_t pid;
	int tries;

	for (tries = 0; tries < 200; tries++) {
		snprintf(b, sizeof(b), "%d", (int)want - 1);
		if (file_write(LAST_PID, b))
			return 0;
		pid = pt_sleeper(NULL);
		if (pid == want)
			return pid;
		pt_stop(pid);
		usleep(10000);	/* the old holder may not be released yet */
	}
	return 0;
}

struct thread_arg {
	pid_t tid;
	int go[2];		/* the thread exits when this pipe has a byte */
	int ready[2];
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	char c = 'r';

	a->tid = gettid();
	if (write(a->ready[1], &c, 1) != 1 || read(a->go[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

/* Inode number of @path, 0 if it cannot be found. */
static ino_t ino_of(const char *path)
{
	struct stat sb;

	return stat(path, &sb) ? 0 : sb.st_ino;
}

/*
 * Process A (this child) opens the name of one of its threads and keeps
 * it; the thread exits and a new process V takes its number.  Then root
 * writes to and reads that name: both must reach V.  Exit status: 0 if
 * every check held, else a bit per failed check.
 */
static int thread_reuse(void *unused)
{
	static char buf[4096];
	struct thread_arg a;
	char path[64], self[64];
	pthread_t th;
	int fd, rc = 0;
	pid_t v;
	char c = 'g';

	(void)unused;
	if (pt_write(0, "-\n+S03:owner\n"))
		return 64;
	if (pipe(a.go) || pipe(a.ready) ||
	    pthread_create(&th, NULL, thread_main, &a) ||
	    read(a.ready[0], &c, 1) != 1)
		return 64;
	snprintf(path, sizeof(path), PT_ROOT "/%d", (int)a.tid);
	fd = open(path, O_RDONLY);	/* the name stays held */
	if (fd < 0)
		return 64;
	if (write(a.go[1], &c, 1) != 1 || pthread_join(th, NULL))
		return 64;
	v = sleeper_at(a.tid);
	if (!v)
		return 128;
	/* A's own entry, looked up afresh, for comparison. */
	snprintf(self, sizeof(self), PT_ROOT "/%d", (int)getpid());
	if (ino_of(path) == ino_of(self))
		rc |= 1;
	if (file_write(path, "+S03:victim\n"))
		rc |= 2;
	if (!pt_is(getpid(), "S03:owner\n"))
		rc |= 4;
	if (file_read(path, buf, sizeof(buf)) < 0 ||
	    strcmp(buf, "S03:victim\n"))
		rc |= 8;
	if (!pt_is(0, "S03:owner\n"))	/* "self" is still A */
		rc |= 16;
	pt_stop(v);
	close(fd);
	return rc;
}

static int exec_arg_go = -1;

static void *exec_thread(void *p)
{
	char fdarg[16];
	char c;

	(void)p;
	/* Wait until the name of our tid is held, then exec: we take over
	 * the leader's pid and our tid is free. */
	if (read(exec_arg_go, &c, 1) != 1)
		return NULL;
	snprintf(fdarg, sizeof(fdarg), "%d", exec_arg_go);
	execl("/proc/self/exe", "s03_2_stale_names", "--idle", fdarg,
	      (char *)NULL);
	return NULL;
}

/*
 * Process B's second thread T execs; the parent held the name of T's tid
 * across it.  A new process V takes T's old number: the name must reach V.
 */
static int exec_reuse(void)
{
	static char buf[4096];
	int go[2], tidp[2], rc = 0;
	char path[64];
	pid_t b, tid, v;
	int fd;

	if (pipe(go) || pipe(tidp))
		return 64;
	b = tap_fork();
	if (!b) {
		pthread_t th;
		pid_t t;

		close(tidp[0]);
		exec_arg_go = go[0];
		if (pt_write(0, "-\n+@S03:exec\n") ||
		    pthread_create(&th, NULL, exec_thread, NULL))
			_exit(1);
		/* The thread's tid, through /proc (we cannot ask it). */
		for (t = getpid() + 1; t < getpid() + 64; t++) {
			char p[64];

			snprintf(p, sizeof(p), "/proc/%d/task/%d", getpid(), t);
			if (!access(p, F_OK))
				break;
		}
		if (write(tidp[1], &t, sizeof(t)) != sizeof(t))
			_exit(1);
		for (;;)
			pause();
	}
	close(tidp[1]);
	if (read(tidp[0], &tid, sizeof(tid)) != sizeof(tid))
		return 64;
	snprintf(path, sizeof(path), PT_ROOT "/%d", (int)tid);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		pt_stop(b);
		return 64;
	}
	if (write(go[1], "g", 1) != 1)
		return 64;
	/* The exec is done once B's comm is its new name's. */
	for (int i = 0; i < 500; i++) {
		char comm[64] = "";

		snprintf(buf, sizeof(buf), "/proc/%d/cmdline", (int)b);
		file_read(buf, comm, sizeof(comm));
		if (!access(buf, F_OK) && comm[0] &&
		    !strcmp(comm + strlen(comm) + 1, "--idle"))
			break;
		usleep(10000);
	}
	v = sleeper_at(tid);
	if (!v) {
		pt_stop(b);
		return 128;
	}
	if (file_write(path, "+S03:victim\n"))
		rc |= 2;
	if (!pt_is(b, "@S03:exec\n"))
		rc |= 4;
	if (file_read(path, buf, sizeof(buf)) < 0 ||
	    strcmp(buf, "S03:victim\n"))
		rc |= 8;
	pt_stop(v);
	pt_stop(b);
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc == 3 && !strcmp(argv[1], "--idle")) {
		for (;;)
			pause();
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	pt_start_untagged();

	rc = run_child(thread_reuse, NULL);
	if (rc & 128)
		diag("no process could be given the thread's old pid");
	ok(rc == 0, "SPEC §3.2: a held name of an exited thread names the new process with that pid (0x%x)",
	   rc);
	ok(!(rc & 0x6),
	   "SPEC §3.2: a write through it changes the new process, not the thread's old one (0x%x)",
	   rc);

	rc = exec_reuse();
	if (rc & 128)
		diag("no process could be given the exec'ing thread's old tid");
	ok(rc == 0, "SPEC §3.2: a held name of the tid a non-leader exec gave up names the new process (0x%x)",
	   rc);
	return tap_done();
}
