// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.5, watching: poll() on an entry (POLLPRI after a change, re-armed
 * by a read from offset 0, POLLHUP at exit), inotify on an entry (IN_MODIFY
 * for a write through another mount and for an exec that pruned tags,
 * IN_DELETE_SELF at exit) and on the directory (IN_CREATE for a write and
 * for a fork of a tagged parent, IN_MODIFY, IN_DELETE for untagging and
 * exit), in the initial mount and in a pid-namespace mount; no event for a
 * write that changed nothing or a guard; a watcher that never reads while
 * 20 000 events happen.  libptags's watch API and "ptags watch --json".
 */
#include "guest.h"

#include "ptags.h"

#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define SECOND	"/tmp/w_second"

/* The events read from @fd within @ms: mask of all, and the names seen. */
struct seen {
	unsigned int mask;
	int count;
	char names[64][16];
	unsigned int masks[64];
};

static void drain(int fd, int ms, struct seen *s)
{
	char buf[65536] __attribute__((aligned(8)));
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;
	char *q;

	memset(s, 0, sizeof(*s));
	while (poll(&p, 1, ms) == 1) {
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (q = buf; q < buf + n;) {
			struct inotify_event *e = (struct inotify_event *)q;

			s->mask |= e->mask;
			if (s->count < 64) {
				snprintf(s->names[s->count], 16, "%s", e->len ? e->name : "");
				s->masks[s->count] = e->mask;
			}
			s->count++;
			q += sizeof(*e) + e->len;
		}
		ms = 200;	/* then wait for stragglers only briefly */
	}
}

/* Did @s hold @mask for the name @nr (0: the watched entry itself)? */
static bool has(const struct seen *s, unsigned int mask, pid_t nr)
{
	char name[16] = "";
	int i;

	if (nr)
		snprintf(name, sizeof(name), "%d", (int)nr);
	for (i = 0; i < s->count && i < 64; i++)
		if ((s->masks[i] & mask) && !strcmp(s->names[i], name))
			return true;
	return false;
}

/* poll() for POLLPRI only: POLLIN is always there (SPEC §3.5). */
static short poll_entry(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };

	if (poll(&p, 1, ms) < 0)
		return -1;
	return p.revents;
}

static void test_poll(void)
{
	char path[64], buf[256];
	pid_t a = pt_sleeper(NULL);
	short r;
	int fd;

	pt_write(a, "+W:a\n");
	pt_path(path, sizeof(path), a);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open %s", path);
	{
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };

		ok(poll(&p, 1, 0) == 1 && p.revents == (POLLIN | POLLOUT),
		   "poll: always readable and writable (0x%x)", p.revents);
	}
	r = poll_entry(fd, 300);
	ok(r == 0, "poll: no POLLPRI before any change (0x%x)", r);
	pt_write(a, "+W:b\n");
	r = poll_entry(fd, 3000);
	ok(r == POLLPRI, "poll: POLLPRI after a change (0x%x)", r);
	r = poll_entry(fd, 0);
	ok(r == POLLPRI, "poll: POLLPRI stays until a read from offset 0");
	if (pread(fd, buf, sizeof(buf), 1) <= 0)
		die("pread at 1");
	r = poll_entry(fd, 300);
	ok(r == POLLPRI, "poll: a read from a later offset does not re-arm it (0x%x)", r);
	if (pread(fd, buf, sizeof(buf), 0) < 0)
		die("pread");
	r = poll_entry(fd, 300);
	ok(r == 0, "poll: a read from offset 0 re-arms it (0x%x)", r);
	pt_write(a, "+W:b\n");
	pt_write(a, "?W:a\n");
	pt_write(a, "-W:absent\n");
	r = poll_entry(fd, 500);
	ok(r == 0, "poll: no POLLPRI for a write that changed nothing or a guard (0x%x)", r);
	pt_stop(a);
	r = poll_entry(fd, 3000);
	ok(r & POLLHUP, "poll: POLLHUP once the process exited (0x%x)", r);
	close(fd);
}

/*
 * A one-shot watch holds the entry's inode alone: delivering IN_DELETE_SELF
 * destroys the watch, which drops the inode from inside the delivery.
 * Then inotify must still work (closing a watch waits for fsnotify's SRCU).
 */
static void test_oneshot_exit(void)
{
	char path[64];
	struct seen s;
	pid_t a = pt_sleeper(NULL);
	int in, in2;

	pt_path(path, sizeof(path), a);
	in = inotify_init1(IN_NONBLOCK);
	if (in < 0 || inotify_add_watch(in, path, IN_DELETE_SELF | IN_ONESHOT) < 0)
		die("inotify on %s", path);
	pt_stop(a);
	drain(in, 3000, &s);
	ok(has(&s, IN_DELETE_SELF, 0), "one-shot entry watch: IN_DELETE_SELF at exit (mask 0x%x)", s.mask);
	/* Both need fsnotify's mark reaper to make progress. */
	in2 = inotify_init1(IN_NONBLOCK);
	if (in2 < 0 || inotify_add_watch(in2, PT_ROOT, IN_CREATE) < 0)
		die("inotify on " PT_ROOT);
	close(in2);
	close(in);
	ok(true, "one-shot entry watch: inotify descriptors still close afterwards");
}

static pid_t thread_tid;

static void *thread_idle(void *arg)
{
	(void)arg;
	__atomic_store_n(&thread_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	for (;;)
		pause();
	return NULL;
}

/* A thread's entry is its process's: it sees the process's changes. */
static void test_thread_entry(void)
{
	char path[64];
	struct seen s;
	pthread_t t;
	int in;

	if (pthread_create(&t, NULL, thread_idle, NULL))
		die("pthread_create");
	while (!__atomic_load_n(&thread_tid, __ATOMIC_SEQ_CST))
		usleep(1000);
	snprintf(path, sizeof(path), PT_ROOT "/%d", (int)thread_tid);
	in = inotify_init1(IN_NONBLOCK);
	if (in < 0 || inotify_add_watch(in, path, IN_MODIFY) < 0)
		die("inotify on %s", path);
	pt_write(0, "+W:thread\n");
	drain(in, 3000, &s);
	ok(has(&s, IN_MODIFY, 0), "a thread's entry (%s): IN_MODIFY when its process's tags change", path);
	pt_write(0, "-W:thread\n");
	close(in);
}

/* A child holding an unkept tag execs: its entry's watcher sees IN_MODIFY. */
static void test_entry_inotify(void)
{
	char path[64], second[64];
	struct seen s;
	int in, p[2];
	pid_t a = pt_sleeper(NULL), c;
	char go;

	mkdir(SECOND, 0755);
	if (mount("ptags", SECOND, "ptags", 0, NULL))
		die("mount " SECOND);
	pt_write(a, "+W:x\n");
	pt_path(path, sizeof(path), a);
	in = inotify_init1(IN_NONBLOCK);
	if (in < 0 || inotify_add_watch(in, path, IN_MODIFY | IN_DELETE_SELF) < 0)
		die("inotify on %s", path);
	snprintf(second, sizeof(second), SECOND "/%d", (int)a);
	if (file_write(second, "+W:y\n"))
		die("write %s", second);
	drain(in, 3000, &s);
	ok(has(&s, IN_MODIFY, 0), "entry watch: IN_MODIFY for a write through another mount (%d events)",
	   s.count);
	file_write(second, "+W:y\n");
	file_write(second, "?W:x\n");
	drain(in, 500, &s);
	ok(s.count == 0, "entry watch: nothing for a write that changed nothing or a guard (%d)", s.count);
	pt_stop(a);
	drain(in, 3000, &s);
	ok(has(&s, IN_DELETE_SELF, 0), "entry watch: IN_DELETE_SELF at exit (mask 0x%x)", s.mask);
	close(in);

	/* exec pruning */
	if (pipe(p))
		die("pipe");
	fflush(stdout);
	c = fork();
	if (!c) {
		close(p[1]);
		if (read(p[0], &go, 1) != 1)
			_exit(1);
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(1);
	}
	close(p[0]);
	pt_write(c, "+W:unkept\n+@W:kept\n");
	pt_path(path, sizeof(path), c);
	in = inotify_init1(IN_NONBLOCK);
	if (in < 0 || inotify_add_watch(in, path, IN_MODIFY) < 0)
		die("inotify on %s", path);
	if (write(p[1], "x", 1) != 1)
		die("go");
	drain(in, 3000, &s);
	ok(has(&s, IN_MODIFY, 0) && pt_is(c, "@W:kept\n"),
	   "entry watch: IN_MODIFY for an exec that pruned an unkept tag (%d events)", s.count);
	close(in);
	close(p[1]);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	umount(SECOND);
}

/* Tag itself, fork a child that lives a moment, wait for it. */
static int fork_tagged(void)
{
	if (pt_write(0, "-\n+W:parent\n"))
		return 1;
	if (fork() == 0) {
		usleep(300000);
		_exit(0);
	}
	wait(NULL);
	return 0;
}

/* Directory watches in @root (a mount of the pid namespace @self lives in). */
static int dir_checks(const char *root, bool report)
{
	struct seen s;
	pid_t a;
	int in, bits = 0, st;

	in = inotify_init1(IN_NONBLOCK);
	if (in < 0 || inotify_add_watch(in, root, IN_CREATE | IN_DELETE | IN_MODIFY) < 0)
		return -1;
	a = pt_sleeper(NULL);
	drain(in, 300, &s);		/* nothing: it is untagged */
	pt_write(a, "+W:d\n");
	drain(in, 3000, &s);
	bits |= has(&s, IN_CREATE, a) ? 1 : 0;
	pt_write(a, "+W:e\n");
	drain(in, 3000, &s);
	bits |= has(&s, IN_MODIFY, a) && !has(&s, IN_CREATE, a) ? 2 : 0;
	if (report && !(bits & 2))
		diag("modify: %d events, first 0x%x '%s' (pid %d)", s.count, s.masks[0], s.names[0], (int)a);
	pt_write(a, "+W:e\n?W:d\n");
	drain(in, 500, &s);
	bits |= s.count == 0 ? 4 : 0;
	if (report && s.count)
		diag("no-op write: %d events, first 0x%x '%s'", s.count, s.masks[0], s.names[0]);
	pt_write(a, "-\n");
	drain(in, 3000, &s);
	bits |= has(&s, IN_DELETE, a) ? 8 : 0;
	pt_write(a, "+W:f\n");
	drain(in, 3000, &s);
	pt_stop(a);
	drain(in, 3000, &s);
	bits |= has(&s, IN_DELETE, a) ? 16 : 0;
	/* A tagged parent forks: its child appears, then leaves. */
	a = tap_fork();
	if (!a)
		_exit(fork_tagged());
	st = wait_exit(a);
	drain(in, 3000, &s);
	{
		int i, creates = 0, deletes = 0;

		for (i = 0; i < s.count && i < 64; i++) {
			if (!strcmp(s.names[i], "") || atoi(s.names[i]) == a)
				continue;
			creates += !!(s.masks[i] & IN_CREATE);
			deletes += !!(s.masks[i] & IN_DELETE);
		}
		bits |= !st && creates == 1 && deletes == 1 ? 32 : 0;
		if (report)
			diag("fork of a tagged parent: %d events, %d create and %d delete for the child",
			     s.count, creates, deletes);
	}
	close(in);
	return bits;
}

static void dir_report(const char *where, int bits)
{
	ok(bits >= 0 && (bits & 1), "%s: IN_CREATE when a process becomes tagged by a write", where);
	ok(bits >= 0 && (bits & 2), "%s: IN_MODIFY (name = pid) when its set changes", where);
	ok(bits >= 0 && (bits & 4), "%s: nothing for a write that changed nothing or a guard", where);
	ok(bits >= 0 && (bits & 8), "%s: IN_DELETE when its last tag is removed", where);
	ok(bits >= 0 && (bits & 16), "%s: IN_DELETE when a tagged process exits", where);
	ok(bits >= 0 && (bits & 32), "%s: IN_CREATE and IN_DELETE for the child of a tagged parent", where);
}

static int pidns_dir(void *arg)
{
	pid_t c;
	int st;

	(void)arg;
	if (unshare(CLONE_NEWPID | CLONE_NEWNS))
		return 200;
	c = fork();
	if (c) {
		waitpid(c, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 201;
	}
	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	if (mount("proc", "/proc", "proc", 0, NULL))
		_exit(202);
	mkdir("/proc/ptags", 0755);
	if (mount("ptags", "/proc/ptags", "ptags", 0, NULL))
		_exit(203);
	st = dir_checks("/proc/ptags", false);
	_exit(st < 0 ? 204 : st);
}

/* A watcher that never reads while 20 000 events happen. */
static void test_storm(void)
{
	long before = pt_stat("memory");
	char ev[64];
	struct seen s;
	pid_t a = pt_sleeper(NULL);
	int in, i, fd, q = 0;
	char path[64];

	in = inotify_init1(IN_NONBLOCK);
	if (in < 0 || inotify_add_watch(in, PT_ROOT, IN_CREATE | IN_DELETE | IN_MODIFY) < 0)
		die("inotify on " PT_ROOT);
	pt_path(path, sizeof(path), a);
	fd = open(path, O_WRONLY);
	for (i = 0; i < 10000; i++) {
		if (pt_fdwrite(fd, "+W:s\n") || pt_fdwrite(fd, "-W:s\n"))
			break;
	}
	close(fd);
	ok(i == 10000, "storm: 10 000 tag/untag rounds written (%d)", i);
	usleep(500000);
	drain(in, 2000, &s);
	for (i = 0; i < 64 && i < s.count; i++)
		q |= !!(s.masks[i] & IN_Q_OVERFLOW);
	q |= !!(s.mask & IN_Q_OVERFLOW);
	snprintf(ev, sizeof(ev), "%d events read", s.count);
	ok(s.count <= 16385 && s.count > 1000,
	   "storm: inotify's own queue holds them (%s, max_queued_events %ld%s)", ev,
	   file_long("/proc/sys/fs/inotify/max_queued_events"), q ? ", IN_Q_OVERFLOW" : "");
	pt_stop(a);
	pt_quiesce();
	ok(pt_stat("memory") <= before, "storm: the module's memory is back where it was (%ld -> %ld)",
	   before, pt_stat("memory"));
	close(in);
}

/* The next event of @w within @ms: what, or -1. */
static int lib_next(struct ptags_watch *w, pid_t *pid, int ms)
{
	struct pollfd p = { .fd = ptags_watch_fd(w), .events = POLLIN };
	unsigned int what;
	int r;

	for (;;) {
		r = ptags_watch_next(w, pid, &what);
		if (r == 1)
			return what;
		if (r < 0 || poll(&p, 1, ms) != 1)
			return -1;
	}
}

/* Open descriptors of this process. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static void test_lib_watch(void)
{
	struct ptags_root *root;
	struct ptags_watch *w, *w2;
	pid_t a = pt_sleeper(NULL), b = pt_sleeper(NULL), got = 0;
	int pfd, r, what, fds;

	if (ptags_root_openat(AT_FDCWD, NULL, 0, &root) ||
	    ptags_watch_open(root, PTAGS_WATCH_ALL, &w) || ptags_watch_open(root, 0, &w2))
		die("ptags_watch_open");
	pt_write(a, "+L:x\n");
	what = lib_next(w, &got, 3000);
	ok(what == PTAGS_WATCH_TAGGED && got == a, "lib: tagged (%s, %d)", ptags_watch_what(what), (int)got);
	pt_write(a, "+L:y\n");
	what = lib_next(w, &got, 3000);
	ok(what == PTAGS_WATCH_CHANGED && got == a, "lib: changed (%s)", ptags_watch_what(what));
	pt_write(a, "-\n");
	what = lib_next(w, &got, 3000);
	ok(what == PTAGS_WATCH_UNTAGGED && got == a, "lib: untagged (%s)", ptags_watch_what(what));
	pt_write(a, "+L:z\n");
	lib_next(w, &got, 3000);
	pt_stop(a);
	what = lib_next(w, &got, 3000);
	ok(what == PTAGS_WATCH_EXITED && got == a, "lib: exited (%s)", ptags_watch_what(what));

	pfd = syscall(SYS_pidfd_open, b, 0);
	fds = count_fds();
	r = ptags_watch_pidfd(w2, pfd);
	ok(r == 0, "lib: watch a process by pidfd (%d)", r);
	r = ptags_watch_pidfd(w2, pfd);
	ok(r == 0, "lib: watching it again is no error (%d)", r);
	pt_write(b, "+L:b\n");
	what = lib_next(w2, &got, 3000);
	ok(what == PTAGS_WATCH_CHANGED && got == b, "lib: its change (%s)", ptags_watch_what(what));
	what = lib_next(w2, &got, 300);
	ok(what <= 0, "lib: reported once, though watched twice (then %s)", ptags_watch_what(what));
	pt_stop(b);
	what = lib_next(w2, &got, 3000);
	ok(what == PTAGS_WATCH_EXITED && got == b, "lib: its exit (%s)", ptags_watch_what(what));
	what = lib_next(w2, &got, 300);
	ok(what <= 0, "lib: its exit reported once (then %s)", ptags_watch_what(what));
	ok(count_fds() == fds, "lib: once it exited, the watch holds no descriptor of it (%d more)",
	   count_fds() - fds);
	r = ptags_watch_pidfd(w2, pfd);
	ok(r == -ESRCH, "lib: watching an exited pidfd: -ESRCH (%d)", r);
	close(pfd);
	ptags_watch_close(w);
	ptags_watch_close(w2);
	ptags_root_close(root);
}

/* "ptags watch --json W:cli" while a process is tagged, changed, untagged. */
static void test_cli_watch(void)
{
	char out[4096], want[128];
	pid_t a = pt_sleeper(NULL), o = pt_sleeper(NULL), watcher;
	int fd, st, lines = 0, shaped = 0;
	char *line, *save;
	ssize_t n;

	fflush(stdout);
	watcher = fork();
	if (!watcher) {
		fd = open("/tmp/w_cli.json", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(120);
		execl("/bin/ptags", "ptags", "watch", "--json", "W:cli", (char *)NULL);
		_exit(121);
	}
	usleep(500000);
	pt_write(a, "+W:cli\n!W:cli=1\n");
	usleep(300000);
	pt_write(o, "+W:other\n");
	usleep(300000);
	pt_write(a, "!W:cli=2\n");
	usleep(300000);
	pt_write(a, "-W:cli\n");
	usleep(500000);
	kill(watcher, SIGINT);
	st = wait_exit(watcher);
	n = file_read("/tmp/w_cli.json", out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		static const char *const events[] = { "tagged", "changed", "untagged" };
		static const char *const tags[] = {
			"[{\"name\":\"W:cli\",\"value\":\"1\",\"keep\":false}]",
			"[{\"name\":\"W:cli\",\"value\":\"2\",\"keep\":false}]",
			"[]",
		};

		snprintf(want, sizeof(want), "\"pid\":%d,\"event\":\"%s\",\"tags\":%s}",
			 (int)a, lines < 3 ? events[lines] : "?", lines < 3 ? tags[lines] : "?");
		if (!strncmp(line, "{\"time\":\"", 9) && strlen(line) > strlen(want) &&
		    !strcmp(line + strlen(line) - strlen(want), want))
			shaped++;
		else
			diag("ptags watch line %d: %s (want ...%s)", lines + 1, line, want);
		lines++;
	}
	ok(st == 0 && lines == 3 && shaped == 3,
	   "ptags watch --json W:cli: tagged, changed, untagged; not the other process (exit %d, %d lines, %d as expected)",
	   st, lines, shaped);
	pt_stop(a);
	pt_stop(o);
}

int main(void)
{
	int bits;

	pt_write(0, "-\n");
	test_poll();
	test_entry_inotify();
	test_oneshot_exit();
	test_thread_entry();
	bits = dir_checks(PT_ROOT, true);
	dir_report("directory watch, initial mount", bits);
	bits = run_child(pidns_dir, NULL);
	dir_report("directory watch, a child pid namespace's mount", bits >= 0 && bits < 64 ? bits : -1);
	if (bits >= 64)
		diag("pid namespace child: status %d", bits);
	test_storm();
	test_lib_watch();
	test_cli_watch();
	return tap_done();
}
