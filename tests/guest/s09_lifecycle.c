// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §9 life cycle, against the real module: fork/vfork/clone/clone3
 * copy the tag set, threads share it, execve/execveat prune unkept tags,
 * failed execs and credential/namespace changes change nothing, the exit
 * of the last thread releases the set.
 *
 * The program re-executes itself (/proc/self/exe --report FD) to observe
 * the tags of an exec'ed image: that image writes "PID\nTAGS" to FD.
 */
#define _GNU_SOURCE
#include <grp.h>
#include "guest.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <linux/sched.h>

#define BIG 65536

static char self_exe[] = "/proc/self/exe";

/* ---------------------------------------------------------------- helpers */

struct ctr {
	long live, tagged, bytes, pruned, inherited;
};

static struct ctr ctr_now(void)
{
	struct ctr c = {
		.live = pt_stat("live_sets"),
		.tagged = pt_stat("tagged_processes"),
		.bytes = pt_stat("bytes"),
		.pruned = pt_stat("pruned"),
		.inherited = pt_stat("inherited"),
	};
	return c;
}

/* The three "usage" counters equal those of @b (pt_counters_are() polls). */
static bool ctr_back(struct ctr b, const char *what)
{
	return pt_counters_are(b.live, b.tagged, b.bytes, what);
}

static ssize_t read_all(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got + 1 < len) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	buf[got] = 0;
	return got;
}

static bool listed(pid_t pid)
{
	struct dirent *d;
	bool found = false;
	char want[32];
	DIR *dir;

	snprintf(want, sizeof(want), "%d", (int)pid);
	dir = opendir(PT_ROOT);
	if (!dir)
		die("opendir " PT_ROOT);
	while ((d = readdir(dir)))
		if (!strcmp(d->d_name, want))
			found = true;
	closedir(dir);
	return found;
}

/* errno of open(/proc/ptags/PID), 0 when it opened. */
static int lookup_errno(pid_t pid)
{
	char path[64];
	int fd;

	pt_path(path, sizeof(path), pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static bool self_is(const char *expect)
{
	return pt_is(0, expect);
}

static void untag_self(void)
{
	int err = pt_write(0, "-\n");

	if (err)
		die("cannot untag myself: %s", strerror(err));
}

/*
 * A child that waits for one byte on a pipe, then runs @fn.  g_rep is the
 * write end of a report pipe (not close-on-exec) the child may use.
 */
struct kid {
	pid_t pid;
	int go;		/* parent: write end of the "go" pipe */
	int rep;	/* parent: read end of the report pipe */
};

static int g_rep = -1;

static struct kid spawn(int (*fn)(void *), void *arg)
{
	int go[2], rep[2];
	struct kid k;
	char c;

	if (pipe2(go, O_CLOEXEC) || pipe(rep))
		die("pipe");
	k.pid = tap_fork();
	if (k.pid == 0) {
		close(go[1]);
		close(rep[0]);
		g_rep = rep[1];
		if (read(go[0], &c, 1) != 1)
			_exit(99);
		close(go[0]);
		_exit(fn(arg));
	}
	close(go[0]);
	close(rep[1]);
	k.go = go[1];
	k.rep = rep[0];
	return k;
}

static void release(struct kid *k)
{
	if (write(k->go, "g", 1) != 1)
		die("release");
	close(k->go);
	k->go = -1;
}

/* Release @k, read its report until EOF, reap it; returns its status. */
static int finish(struct kid *k, char *rep, size_t len)
{
	int st;

	if (k->go >= 0)
		release(k);
	read_all(k->rep, rep, len);
	close(k->rep);
	st = wait_exit(k->pid);
	return st;
}

static void report_argv(char **argv, char *fdbuf, int fd)
{
	snprintf(fdbuf, 16, "%d", fd);
	argv[0] = "s09_lifecycle";
	argv[1] = "--report";
	argv[2] = fdbuf;
	argv[3] = NULL;
}

/* The exec'ed image: write "PID\nTAGS" to the fd named in argv[2]. */
static int report_main(char **argv)
{
	static char tags[BIG], out[BIG + 64];
	int fd = atoi(argv[2]);
	ssize_t n = pt_read(0, tags, sizeof(tags));
	int len;

	if (n < 0)
		len = snprintf(out, sizeof(out), "%d\nERROR %s\n", (int)getpid(),
			       strerror(-n));
	else
		len = snprintf(out, sizeof(out), "%d\n%s", (int)getpid(), tags);
	if (write(fd, out, len) != len)
		return 1;
	return 0;
}

/* Check a report "PID\nTAGS" against @pid and @tags. */
static bool report_is(const char *rep, pid_t pid, const char *tags)
{
	char head[32];

	snprintf(head, sizeof(head), "%d\n", (int)pid);
	if (strncmp(rep, head, strlen(head))) {
		diag("report [%s] does not start with pid %d", tap_esc(rep), (int)pid);
		return false;
	}
	if (strcmp(rep + strlen(head), tags)) {
		diag("exec'ed image has tags [%s], expected [%s]",
		     tap_esc(rep + strlen(head)), tap_esc(tags));
		return false;
	}
	return true;
}

/* ---------------------------------------------- fork, clone, clone3 copy */

enum how { HOW_FORK, HOW_CLONE, HOW_CLONE3 };
static const char *how_name[] = { "fork", "clone(SIGCHLD)", "clone3" };

static pid_t create(enum how how)
{
	struct clone_args ca;

	fflush(stdout);
	switch (how) {
	case HOW_FORK:
		return fork();
	case HOW_CLONE:
		return syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
	case HOW_CLONE3:
		memset(&ca, 0, sizeof(ca));
		ca.exit_signal = SIGCHLD;
		return syscall(SYS_clone3, &ca, sizeof(ca));
	}
	return -1;
}

#define E0 "a=1\nb\n@k=kv\n"
#define E0_WRITE "+@k\n!k=kv\n+a\n!a=1\n+b\n"

static void test_copy(enum how how)
{
	const char *hn = how_name[how];
	struct ctr base = ctr_now();
	int go[2], back[2];
	char c;
	pid_t pid;
	long inh;

	if (pt_write(0, E0_WRITE))
		die("tag myself");
	if (pipe(go) || pipe(back))
		die("pipe");
	inh = pt_stat("inherited");
	pid = create(how);
	if (pid < 0) {
		if (how == HOW_CLONE3 && errno == ENOSYS) {
			ok(true, "# SKIP clone3 not available");
			close(go[0]); close(go[1]); close(back[0]); close(back[1]);
			untag_self();
			return;
		}
		die("%s", hn);
	}
	if (pid == 0) {
		int rc = 0;

		close(go[1]);
		close(back[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(99);
		/* parent meanwhile did +p -a on itself and +c on us */
		if (!pt_is(0, "a=1\nb\nc\n@k=kv\n"))
			rc = 1;
		else if (pt_write(0, "+fromchild\n-b\n"))
			rc = 2;
		if (write(back[1], "x", 1) != 1)
			rc = 3;
		/* wait for the parent to check itself before exiting */
		if (read(go[0], &c, 1) < 0)
			rc = 4;
		_exit(rc);
	}
	close(go[0]);
	close(back[1]);

	ok(pt_is(pid, E0), "SPEC §9: %s child starts with a copy of the parent's tags (names, values, keep flags)", hn);
	ok(pt_stat("inherited") == inh + 1, "SPEC §8: %s of a tagged process increments inherited by 1 (%ld -> %ld)",
	   hn, inh, pt_stat("inherited"));
	ok(pt_write(0, "+p\n-a\n") == 0 && self_is("b\n@k=kv\np\n") && pt_is(pid, E0),
	   "SPEC §9: %s: a later change to the parent does not reach the child", hn);
	ok(pt_write(pid, "+c\n") == 0 && pt_is(pid, "a=1\nb\nc\n@k=kv\n") && self_is("b\n@k=kv\np\n"),
	   "SPEC §9: %s: a change to the child does not reach the parent", hn);
	if (write(go[1], "g", 1) != 1)
		die("write");
	if (read(back[0], &c, 1) != 1)
		c = 0;
	ok(self_is("b\n@k=kv\np\n") && pt_is(pid, "a=1\nc\nfromchild\n@k=kv\n"),
	   "SPEC §9: %s: the child's own write changes only the child", hn);
	if (write(go[1], "g", 1) != 1)
		die("write");
	close(go[1]);
	close(back[0]);
	ok(wait_exit(pid) == 0, "SPEC §9: %s child saw its copy unaffected by the parent's later changes", hn);
	untag_self();
	ok(ctr_back(base, hn), "SPEC §8/§9: after the %s child exits and the parent is untagged the counters are back", hn);
}

/* ------------------------------------------------------------------ vfork */

static char vbuf[BIG];
static volatile int vres;

static void test_vfork(void)
{
	struct ctr base = ctr_now();
	char *argv[4], fdbuf[16], rep[BIG];
	int p[2], fd;
	ssize_t n;
	pid_t pid;

	if (pt_write(0, E0_WRITE))
		die("tag myself");
	memset(vbuf, 0, sizeof(vbuf));
	vres = -1;
	fflush(stdout);
	pid = vfork();
	if (pid < 0)
		die("vfork");
	if (pid == 0) {
		/* shares our memory: read into vbuf, then change our own copy */
		fd = open(PT_ROOT "/self", O_RDWR);
		if (fd < 0)
			_exit(1);
		n = read(fd, vbuf, sizeof(vbuf) - 1);
		if (n < 0)
			_exit(2);
		vres = write(fd, "+vchild\n-b\n", 11) == 11 ? 0 : errno;
		close(fd);
		_exit(0);
	}
	ok(wait_exit(pid) == 0 && !strcmp(vbuf, E0),
	   "SPEC §9: vfork child starts with a copy of the parent's tags (got [%s])", tap_esc(vbuf));
	ok(vres == 0 && self_is(E0), "SPEC §9: vfork+_exit: the child's change to its own tags does not reach the parent");

	/* vfork + exec */
	if (pipe(p))
		die("pipe");
	report_argv(argv, fdbuf, p[1]);
	fflush(stdout);
	pid = vfork();
	if (pid < 0)
		die("vfork");
	if (pid == 0) {
		execv(self_exe, argv);
		_exit(127);
	}
	close(p[1]);
	read_all(p[0], rep, sizeof(rep));
	close(p[0]);
	ok(wait_exit(pid) == 0 && report_is(rep, pid, "@k=kv\n"),
	   "SPEC §9: vfork+execve: the new image holds only the kept tags with their values");
	ok(self_is(E0), "SPEC §9: vfork+execve: the parent's tags are unchanged");
	untag_self();
	ok(ctr_back(base, "vfork"), "SPEC §8/§9: counters back after the vfork children exit");
}

/* ---------------------------------------------------------------- threads */

struct th {
	int go[2], done[2];
	pid_t tid;
	int err;
	char seen[BIG];
};

static void *thread_fn(void *arg)
{
	struct th *t = arg;
	char c;

	t->tid = gettid();
	if (write(t->done[1], "r", 1) != 1)
		return NULL;
	/* step 1: the main thread wrote +t1 through our tid */
	if (read(t->go[0], &c, 1) != 1)
		return NULL;
	if (pt_read(t->tid, t->seen, sizeof(t->seen)) < 0)
		t->seen[0] = 0;
	t->err = pt_write(t->tid, "+t2\n");
	if (write(t->done[1], "r", 1) != 1)
		return NULL;
	return NULL;
}

static void test_threads(void)
{
	struct ctr base = ctr_now();
	static struct th t;
	char self_seen[BIG];
	pthread_t pt;
	char c;

	memset(&t, 0, sizeof(t));
	if (pipe(t.go) || pipe(t.done))
		die("pipe");
	if (pt_write(0, "+pre\n"))
		die("tag myself");
	if (pthread_create(&pt, NULL, thread_fn, &t))
		die("pthread_create");
	if (read(t.done[0], &c, 1) != 1)
		die("thread");
	ok(t.tid != getpid() && pt_is(t.tid, "pre\n"),
	   "SPEC §2/§9: a new thread shares its process's tags (read through its tid %d)", (int)t.tid);
	ok(pt_write(t.tid, "+t1\n") == 0 && self_is("pre\nt1\n"),
	   "SPEC §2: a write through the thread's tid changes the process's tags (seen through the tgid)");
	if (write(t.go[1], "g", 1) != 1 || read(t.done[0], &c, 1) != 1)
		die("thread step");
	ok(!strcmp(t.seen, "pre\nt1\n"), "SPEC §9: a tag written after the thread's creation is seen by the thread (got [%s])", tap_esc(t.seen));
	ok(t.err == 0 && self_is("pre\nt1\nt2\n"),
	   "SPEC §2: the thread's write through its own tid is seen through the tgid");
	ok(listed(getpid()) && !listed(t.tid), "SPEC §3.2: the listing shows the tgid, not the thread id");
	pthread_join(pt, NULL);
	ok(self_is("pre\nt1\nt2\n"), "SPEC §9: a process whose non-leader thread exited keeps its tags");
	if (pt_read(0, self_seen, sizeof(self_seen)) < 0)
		self_seen[0] = 0;
	close(t.go[0]); close(t.go[1]); close(t.done[0]); close(t.done[1]);
	untag_self();
	ok(ctr_back(base, "threads"), "SPEC §8: counters back after untagging the threaded process");
}

/* Concurrent transactions on one tag set lose no update. */
#define CW_THREADS 6
#define CW_TAGS 40

struct cw {
	pid_t target;
	int id;
	int errs;
};

static void *cw_thread(void *arg)
{
	struct cw *c = arg;
	pid_t target = c->target ? c->target : gettid();
	char line[64];

	for (int i = 0; i < CW_TAGS; i++) {
		snprintf(line, sizeof(line), "+c%d:%02d\n!c%d:%02d=%d\n", c->id, i, c->id, i, i);
		if (pt_write(target, line))
			c->errs++;
	}
	return NULL;
}

static void test_concurrent_writes(void)
{
	struct ctr base = ctr_now();
	struct cw cw[CW_THREADS];
	pthread_t t[CW_THREADS];
	int errs = 0, i, n, st;
	pid_t kids[3];

	/* threads of this process write, through their own tids, to us */
	for (i = 0; i < CW_THREADS; i++) {
		cw[i] = (struct cw){ .target = 0, .id = i };
		if (pthread_create(&t[i], NULL, cw_thread, &cw[i]))
			die("pthread_create");
	}
	for (i = 0; i < CW_THREADS; i++) {
		pthread_join(t[i], NULL);
		errs += cw[i].errs;
	}
	n = pt_lines(0);
	ok(errs == 0 && n == CW_THREADS * CW_TAGS,
	   "SPEC §2/§3.4: %d threads writing their process's tags concurrently lose no update (%d of %d tags, %d errors)",
	   CW_THREADS, n, CW_THREADS * CW_TAGS, errs);
	untag_self();

	/* several processes write concurrently to one other process */
	fflush(stdout);
	for (i = 0; i < 3; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			die("fork");
		if (kids[i] == 0) {
			struct cw c = { .target = getppid(), .id = i };

			cw_thread(&c);
			_exit(c.errs ? 1 : 0);
		}
	}
	errs = 0;
	for (i = 0; i < 3; i++) {
		st = wait_exit(kids[i]);
		errs += st != 0;
	}
	n = pt_lines(0);
	ok(errs == 0 && n == 3 * CW_TAGS,
	   "SPEC §3.4: 3 processes writing one target concurrently lose no update (%d of %d tags)", n, 3 * CW_TAGS);
	untag_self();
	ok(ctr_back(base, "concurrent writes"), "SPEC §8: counters back after the concurrent writes");
}

/* ------------------------------------------------------------------- exec */

static int exec_report_fn(void *arg)
{
	char *argv[4], fdbuf[16];

	(void)arg;
	report_argv(argv, fdbuf, g_rep);
	execv(self_exe, argv);
	return 127;
}

static int execveat_report_fn(void *arg)
{
	char *argv[4], fdbuf[16];
	extern char **environ;
	int fd = open(self_exe, O_RDONLY | O_CLOEXEC);

	(void)arg;
	if (fd < 0)
		return 126;
	report_argv(argv, fdbuf, g_rep);
	syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
	return 127;
}

static void exec_case(int (*fn)(void *), const char *name, const char *tags,
		      const char *expect, long pruned_delta)
{
	struct ctr base = ctr_now();
	char rep[BIG];
	struct kid k;
	long pr;
	int st;

	k = spawn(fn, NULL);
	if (pt_write(k.pid, tags))
		die("tag child");
	pr = pt_stat("pruned");
	st = finish(&k, rep, sizeof(rep));
	ok(st == 0 && report_is(rep, k.pid, expect),
	   "SPEC §9: %s with tags [%s]: the new program holds exactly the kept tags [%s]", name, tap_esc(tags), tap_esc(expect));
	ok(pt_stat("pruned") == pr + pruned_delta,
	   "SPEC §8: %s: pruned increased by %ld (%ld -> %ld)", name, pruned_delta, pr, pt_stat("pruned"));
	ok(ctr_back(base, name), "SPEC §8/§9: counters back after the exec'ed child exits (%s)", name);
}

/* Failed exec: argument selects the path; expected errno encoded. */
struct failexec {
	const char *path;
	int err;
};

static int failexec_fn(void *arg)
{
	struct failexec *f = arg;
	char *argv[] = { "x", NULL };

	execv(f->path, argv);
	if (errno != f->err)
		return 10;
	if (!pt_is(0, "a=1\nb\n@k=kv\n"))
		return 11;
	/* the process is still the same and can be written */
	if (pt_write(0, "+after\n") || !pt_is(0, "a=1\nafter\nb\n@k=kv\n"))
		return 12;
	return 0;
}

static void test_failed_exec(void)
{
	static const unsigned char junk[] = { 0x01, 0x02, 0x03, 0x04, 'j', 'u', 'n', 'k', '\n' };
	struct failexec cases[] = {
		{ "/nonexistent/program", ENOENT },
		{ "/tmp/s09_noexec", ENOEXEC },
		{ "/tmp/s09_noperm", EACCES },
	};
	struct ctr base = ctr_now();
	unsigned i;
	int fd;

	fd = open("/tmp/s09_noexec", O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write(fd, junk, sizeof(junk)) != (ssize_t)sizeof(junk))
		die("create /tmp/s09_noexec");
	close(fd);
	fd = open("/tmp/s09_noperm", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "#!/bin/sh\n", 10) != 10)
		die("create /tmp/s09_noperm");
	close(fd);
	chmod("/tmp/s09_noperm", 0644);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char rep[16];
		struct kid k = spawn(failexec_fn, &cases[i]);
		long pr;
		int st;

		if (pt_write(k.pid, E0_WRITE))
			die("tag child");
		pr = pt_stat("pruned");
		st = finish(&k, rep, sizeof(rep));
		ok(st == 0, "SPEC §9: failed execve (%s) changes nothing: tags intact (child status %d)",
		   strerror(cases[i].err), st);
		ok(pt_stat("pruned") == pr, "SPEC §8: failed execve (%s) does not count as pruned",
		   strerror(cases[i].err));
	}
	unlink("/tmp/s09_noexec");
	unlink("/tmp/s09_noperm");
	ok(ctr_back(base, "failed exec"), "SPEC §8/§9: counters back after the failed-exec children exit");
}

/* Exec from a non-leader thread. */
static void *exec_thread(void *arg)
{
	(void)arg;
	exec_report_fn(NULL);
	_exit(127);
}

static int thread_exec_fn(void *arg)
{
	pthread_t t;

	(void)arg;
	if (pthread_create(&t, NULL, exec_thread, NULL))
		return 126;
	for (;;)
		pause();
}

/* ------------------------------------------ credentials and namespaces */

static int creds_fn(void *arg)
{
	const char *tags = "a=1\n@k\n";
	int fd;

	(void)arg;
	if (unshare(CLONE_NEWNS))
		return 20;
	if (!pt_is(0, tags))
		return 1;
	if (unshare(CLONE_NEWUTS | CLONE_NEWIPC))
		return 21;
	if (!pt_is(0, tags))
		return 2;
	fd = open("/proc/1/ns/uts", O_RDONLY);
	if (fd < 0 || setns(fd, CLONE_NEWUTS))
		return 22;
	close(fd);
	if (!pt_is(0, tags))
		return 3;
	if (drop_privileges(65534))
		return 23;
	if (!pt_is(0, tags))
		return 4;
	if (unshare(CLONE_NEWUSER) == 0 && !pt_is(0, tags))
		return 5;
	return 0;
}

/* -------------------------------------------------------------- exit */

static int exit_fn(void *arg)
{
	(void)arg;
	return 0;
}

static void test_zombie(void)
{
	struct ctr base = ctr_now();
	struct kid k = spawn(exit_fn, NULL);
	char path[64], rep[8];
	siginfo_t si;
	struct stat sb;

	if (pt_write(k.pid, "+a\n!a=xyz\n+@k\n"))
		die("tag child");
	ok(listed(k.pid), "SPEC §3.2: the tagged child is listed");
	release(&k);
	read_all(k.rep, rep, sizeof(rep));
	close(k.rep);
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, k.pid, &si, WEXITED | WNOWAIT))
		die("waitid");
	snprintf(path, sizeof(path), "/proc/%d", (int)k.pid);
	ok(stat(path, &sb) == 0, "setup: the exited child is a zombie (still in /proc)");
	ok(lookup_errno(k.pid) == ENOENT,
	   "SPEC §3.2/§9: the zombie's entry fails with ENOENT before reaping (got %s)", strerror(lookup_errno(k.pid)));
	ok(!listed(k.pid), "SPEC §3.2: the zombie is not listed");
	ok(pt_write(k.pid, "+x\n") == ENOENT, "SPEC §3.2: a write to the zombie's entry fails ENOENT");
	ok(ctr_back(base, "zombie"), "SPEC §8/§9: the last thread's exit releases the tags: counters back before reaping");
	wait_exit(k.pid);
	ok(ctr_back(base, "reaped"), "SPEC §8: counters still back after reaping");
}

/* A tagged child forks a grandchild (shared set) and exits. */
static int forker_fn(void *arg)
{
	pid_t g;
	char c;

	(void)arg;
	g = fork();
	if (g < 0)
		return 1;
	if (g == 0) {
		/* wait until the parent test closes the report pipe side */
		if (read(g_rep, &c, 1) < 0) { /* write end: read fails */ }
		pause();
		_exit(0);
	}
	if (write(g_rep, &g, sizeof(g)) != sizeof(g))
		return 2;
	return 0;
}

static void test_shared_exit(void)
{
	struct ctr base = ctr_now();
	struct kid k = spawn(forker_fn, NULL);
	pid_t g = 0;
	struct ctr c;

	if (pt_write(k.pid, "+a\n!a=xyz\n"))
		die("tag child");
	release(&k);
	if (read(k.rep, &g, sizeof(g)) != sizeof(g))
		die("grandchild pid");
	close(k.rep);
	ok(wait_exit(k.pid) == 0, "setup: tagged child forked a grandchild and exited");
	c = base;
	c.tagged += 1;
	c.live += 1;
	c.bytes += 4;
	ok(pt_is(g, "a=xyz\n") && ctr_back(c, "grandchild alive"),
	   "SPEC §9/§8: the parent's exit does not release the set its child still holds (tagged +1, live +1, bytes +4)");
	kill(g, SIGKILL);
	/* reparented to us (subreaper) */
	wait_exit(g);
	ok(ctr_back(base, "grandchild"), "SPEC §8/§9: counters back after the grandchild is killed");
}

/* The leader calls pthread_exit while another thread lives. */
static int leader_go = -1;

static void *survivor(void *arg)
{
	char c;

	(void)arg;
	if (read(leader_go, &c, 1) < 0)
		_exit(3);
	if (!pt_is(0, "a\nafter\n@k\n"))
		_exit(4);
	exit(0);
}

struct leader_arg {
	int fd;
};

static int leader_fn(void *arg)
{
	struct leader_arg *la = arg;
	pthread_t t;

	leader_go = la->fd;
	if (pthread_create(&t, NULL, survivor, NULL))
		return 1;
	pthread_exit(NULL);
}

static char proc_state(pid_t pid, pid_t tid)
{
	char path[96], buf[512], *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

static void test_leader_exit(void)
{
	struct ctr base = ctr_now();
	struct leader_arg la;
	int gp[2], i;
	struct kid k;
	char rep[8];

	if (pipe(gp))
		die("pipe");
	la.fd = gp[0];
	k = spawn(leader_fn, &la);
	close(gp[0]);
	if (pt_write(k.pid, "+a\n+@k\n"))
		die("tag child");
	release(&k);
	for (i = 0; i < 500 && proc_state(k.pid, k.pid) != 'Z'; i++)
		usleep(10000);
	ok(proc_state(k.pid, k.pid) == 'Z', "setup: the leader thread exited (state Z) while another thread lives");
	ok(pt_is(k.pid, "a\n@k\n") && listed(k.pid),
	   "SPEC §9: leader pthread_exit with a live thread: the process keeps its tags and stays listed");
	ok(pt_write(k.pid, "+after\n") == 0 && pt_is(k.pid, "a\nafter\n@k\n"),
	   "SPEC §9: the process whose leader exited can still be written through its tgid");
	if (write(gp[1], "g", 1) != 1)
		die("write");
	close(gp[1]);
	read_all(k.rep, rep, sizeof(rep));
	close(k.rep);
	ok(wait_exit(k.pid) == 0, "SPEC §9: the surviving thread sees the process's tags");
	ok(ctr_back(base, "leader exit"), "SPEC §8/§9: counters back after the last thread exits");
}

int main(int argc, char **argv)
{
	struct ctr base;
	char rep[BIG];
	struct kid k;
	long pr;
	int st;

	if (argc == 3 && !strcmp(argv[1], "--report"))
		return report_main(argv);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("subreaper");
	if (pt_stat("live_sets") < 0)
		die("no ptags counters");
	pt_quiesce();
	if (!self_is(""))
		die("this test must start untagged");

	test_copy(HOW_FORK);
	test_copy(HOW_CLONE);
	test_copy(HOW_CLONE3);
	test_vfork();
	test_threads();
	test_concurrent_writes();

	exec_case(exec_report_fn, "execve", "+a\n!a=1\n+@k\n!k=kv\n+@k2\n+z\n", "@k=kv\n@k2\n", 1);
	exec_case(exec_report_fn, "execve (all kept)", "+@k\n!k=v w\n+@l\n", "@k=v w\n@l\n", 0);
	exec_case(exec_report_fn, "execve (none kept)", "+a\n!a=1\n+b\n", "", 1);
	exec_case(execveat_report_fn, "execveat(AT_EMPTY_PATH)", "+a\n+@k\n!k=kv\n", "@k=kv\n", 1);
	test_failed_exec();

	/* exec from a non-leader thread */
	base = ctr_now();
	k = spawn(thread_exec_fn, NULL);
	if (pt_write(k.pid, "+a\n!a=1\n+@k\n!k=kv\n"))
		die("tag child");
	pr = pt_stat("pruned");
	st = finish(&k, rep, sizeof(rep));
	ok(st == 0 && report_is(rep, k.pid, "@k=kv\n"),
	   "SPEC §9: execve from a non-leader thread keeps the thread-group id and prunes the unkept tags");
	ok(pt_stat("pruned") == pr + 1, "SPEC §8: execve from a non-leader thread is pruned exactly once (%ld -> %ld)",
	   pr, pt_stat("pruned"));
	ok(ctr_back(base, "thread exec"), "SPEC §8/§9: counters back after the thread-exec child exits");

	/* setuid, capabilities, unshare, setns */
	base = ctr_now();
	k = spawn(creds_fn, NULL);
	if (pt_write(k.pid, "+a\n!a=1\n+@k\n"))
		die("tag child");
	st = finish(&k, rep, sizeof(rep));
	ok(st == 0, "SPEC §9: unshare(NEWNS, NEWUTS|NEWIPC), setns(UTS), setuid + capability drop, unshare(NEWUSER) change no tag (child status %d)", st);
	ok(ctr_back(base, "creds"), "SPEC §8: counters back after the credentials child exits");

	test_zombie();
	test_shared_exit();
	test_leader_exit();

	ok(self_is(""), "cleanup: this test process is untagged at the end");
	return tap_done();
}
