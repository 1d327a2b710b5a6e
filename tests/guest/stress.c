// SPDX-License-Identifier: GPL-2.0
/*
 * Stress (run last): for a fixed time, storm workers fork, vfork, exec
 * (/proc/self/exe --stress-exec), spawn threads that exit and exit
 * immediately, while mutators add, remove and change tags of random live
 * or exiting pids through /proc/ptags, readers read them back in odd chunk
 * sizes and a lister reads the directory.  Afterwards every process is
 * reaped and we check: no unexpected errno, every read is valid SPEC §3.3
 * text, every exec'ed image held exactly what SPEC §9 says, listings were
 * sane (SPEC §3.2), and the counters read 0 (SPEC §8).
 *
 * Two levels (SPEC §12): each storm worker, tagged at level 0, then makes a
 * user namespace of its own, mounts level=own on STRESS_LV in a mount
 * namespace of its own and tags itself there too, so its children inherit,
 * prune and release two levels at once; a third of the mutators' writes and
 * of the readers' reads go through a storm worker's level mount instead of
 * /proc/ptags (/proc/STORM/root/...), and exec'ed images check both levels.
 *
 * STRESS_SECONDS in the environment overrides the duration (default 75).
 */
#define _GNU_SOURCE
#include <grp.h>
#include "guest.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define NSTORM 3
#define NMUT 2
#define NREAD 2
#define NLIST 1
#define NWORKERS (NSTORM + NMUT + NREAD + NLIST)
#define RING 128
#define MAXOUT 4
#define STRESS_LV "/tmp/stress-lv"	/* in each storm worker's mount namespace */

/* Tags of the storm workers, by type (names mutators never touch). */
static const char *storm_tags[NSTORM] = {
	"+@stable\n+w\n!w=x\n+u:1\n!u:1=val\n+@k2\n!k2=v\n",	/* mixed */
	"+w\n+u:1\n!u:1=val\n",					/* none kept */
	"+@stable\n+@k2\n!k2=v\n",				/* all kept */
};

struct shared {
	volatile int stop;
	volatile int ready;
	volatile pid_t ring[RING];
	unsigned long ring_pos;
	pid_t storm[NSTORM];
	long forks, vforks, execs, threads;
	long writes_ok, writes_gone, writes_bad;
	long reads_ok, reads_gone, reads_bad, parse_bad;
	long writes_lv_ok, reads_lv_ok;	/* through a storm worker's level */
	long listings, list_bad;
	long children_bad;
	char first[6][256];	/* first problem of each kind */
};

static struct shared *sh;

enum { P_WRITE, P_READ, P_PARSE, P_LIST, P_CHILD, P_OTHER };

static void add(long *c, long v)
{
	__atomic_fetch_add(c, v, __ATOMIC_RELAXED);
}

static void __attribute__((format(printf, 2, 3))) problem(int kind, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!sh->first[kind][0])
		snprintf(sh->first[kind], sizeof(sh->first[kind]), "%s", msg);
}

static void ring_push(pid_t pid)
{
	unsigned long i = __atomic_fetch_add(&sh->ring_pos, 1, __ATOMIC_RELAXED);

	sh->ring[i % RING] = pid;
}

static pid_t ring_pick(unsigned *seed)
{
	return sh->ring[rand_r(seed) % RING];
}

/*
 * SPEC §3.3: LINE = ["@"] NAME ["=" VALUE] "\n", sorted by NAME (memcmp,
 * prefix first), names unique.  Returns NULL when valid, else a reason.
 */
static const char *check_text(const char *b, size_t n)
{
	const char *prev = NULL, *p = b, *end = b + n;
	size_t prevlen = 0;

	if (n && b[n - 1] != '\n')
		return "no final newline";
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *name, *eq;
		size_t nlen, cmp;
		int c;

		if (nl == p)
			return "empty line";
		name = *p == '@' ? p + 1 : p;
		eq = memchr(name, '=', nl - name);
		nlen = (eq ? eq : nl) - name;
		if (nlen == 0)
			return "empty name";
		if (name[0] == '@')
			return "name starts with @";
		for (const char *q = name; q < nl; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				return "control byte";
		if (memchr(name, '*', nlen))
			return "* in name";
		if (name[nlen - 1] == ':')
			return "name ends with :";
		if (eq && eq + 1 == nl)
			return "empty value";
		if (prev) {
			cmp = prevlen < nlen ? prevlen : nlen;
			c = memcmp(prev, name, cmp);
			if (c > 0 || (c == 0 && prevlen >= nlen))
				return "not sorted / duplicate";
		}
		prev = name;
		prevlen = nlen;
		p = nl + 1;
	}
	return NULL;
}

static const char *check_pair(const char *text);

static bool has_line(const char *text, const char *line)
{
	size_t l = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && p[l] == '\n')
			return true;
		p += l;
	}
	return false;
}

/* A line whose name is @name or starts with @name (after an optional @). */
static bool has_name_prefix(const char *text, const char *name)
{
	const char *p = text;
	size_t l = strlen(name);

	while (*p) {
		const char *q = *p == '@' ? p + 1 : p;

		if (!strncmp(q, name, l))
			return true;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return false;
}

/* ------------------------------------------------------ the exec'ed image */

/* The tags at one level of an exec'ed image of storm @type: 0 or a code. */
static int exec_check(const char *path, int type)
{
	static char buf[1 << 16];
	ssize_t n = file_read(path, buf, sizeof(buf));

	if (n < 0)
		return 10;
	if (check_text(buf, n) || check_pair(buf))
		return 11;
	/* unkept tags are gone; kept ones keep their values */
	if (has_name_prefix(buf, "w") || has_name_prefix(buf, "u:"))
		return 12;
	if (type == 1 && (has_name_prefix(buf, "stable") || has_name_prefix(buf, "k2")))
		return 13;
	if (type != 1 && (!has_line(buf, "@stable") || !has_line(buf, "@k2=v")))
		return 14;
	return 0;
}

static int exec_image(int type)
{
	pid_t g;
	int rc;

	rc = exec_check(PT_ROOT "/self", type);
	if (!rc && (rc = exec_check(STRESS_LV "/self", type)))
		rc += 10;
	if (rc)
		return rc;
	if (getpid() % 4 == 0) {
		g = fork();
		if (g == 0)
			_exit(0);
		if (g > 0)
			waitpid(g, NULL, 0);
	}
	return 0;
}

/* ------------------------------------------------------------- storms */

static char *exec_argv[4];

static void *short_thread(void *arg)
{
	(void)arg;
	ring_push(gettid());
	usleep(500);
	return NULL;
}

static void *exec_thread(void *arg)
{
	(void)arg;
	execv("/proc/self/exe", exec_argv);
	_exit(124);
}

static void storm_reap(int *out, bool block)
{
	int st;
	pid_t p;

	while (*out > 0 && (p = waitpid(-1, &st, block ? 0 : WNOHANG)) > 0) {
		(*out)--;
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			add(&sh->children_bad, 1);
			problem(P_CHILD, "child %d: %s %d", (int)p,
				WIFEXITED(st) ? "exit" : "signal",
				WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		}
		block = false;
	}
}

/*
 * Our own user namespace (ids 0 mapped to ours), a mount namespace, its
 * level mounted on STRESS_LV, and @tags there: 0 or a step number.
 */
static int storm_level(const char *tags)
{
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return 1;
	if (file_write("/proc/self/setgroups", "deny\n") ||
	    file_write("/proc/self/uid_map", "0 0 1\n") ||
	    file_write("/proc/self/gid_map", "0 0 1\n"))
		return 2;
	if (mount("ptags", STRESS_LV, "ptags", 0, "level=own"))
		return 3;
	return file_write(STRESS_LV "/self", tags) ? 4 : 0;
}

static void storm(int type)
{
	unsigned seed = getpid() * 7919;
	char typebuf[8];
	int out = 0, err;
	pid_t p;

	err = pt_write(0, storm_tags[type]);
	if (err)
		problem(P_OTHER, "storm %d cannot tag itself: %s", type, strerror(err));
	err = storm_level(storm_tags[type]);
	if (err)
		problem(P_OTHER, "storm %d cannot tag itself at its own level: step %d (%s)",
			type, err, strerror(errno));
	snprintf(typebuf, sizeof(typebuf), "%d", type);
	exec_argv[0] = "stress";
	exec_argv[1] = "--stress-exec";
	exec_argv[2] = typebuf;
	exec_argv[3] = NULL;
	/*
	 * Publish our pid before saying we are ready: listers check the
	 * storm workers as soon as all are ready, and the parent's own store
	 * after fork() may come later.
	 */
	__atomic_store_n(&sh->storm[type], getpid(), __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&sh->ready, 1, __ATOMIC_SEQ_CST);

	while (!sh->stop) {
		int r = rand_r(&seed) % 7;

		if (r == 2) {
			p = vfork();
			if (p == 0) {
				execv("/proc/self/exe", exec_argv);
				_exit(120);
			}
			add(&sh->vforks, 1);
			add(&sh->execs, 1);
		} else {
			p = fork();
			if (p == 0) {
				pthread_t t[2];
				pid_t g;

				switch (r) {
				case 0:
					_exit(0);
				case 1:
					execv("/proc/self/exe", exec_argv);
					_exit(121);
				case 3:
					for (int i = 0; i < 2; i++)
						if (pthread_create(&t[i], NULL, short_thread, NULL))
							_exit(122);
					for (int i = 0; i < 2; i++)
						pthread_join(t[i], NULL);
					_exit(0);
				case 4:
					g = fork();
					if (g == 0)
						_exit(0);
					if (g < 0 || waitpid(g, NULL, 0) != g)
						_exit(123);
					_exit(0);
				case 6:
					/* exec from a non-leader thread */
					if (pthread_create(&t[0], NULL, exec_thread, NULL))
						_exit(125);
					for (;;)
						pause();
				default:
					usleep(rand_r(&seed) % 20000);
					_exit(0);
				}
			}
			if (r == 1 || r == 6)
				add(&sh->execs, 1);
			if (r == 3)
				add(&sh->threads, 2);
			if (r == 4)
				add(&sh->forks, 1);
		}
		if (p < 0) {
			problem(P_OTHER, "fork: %s", strerror(errno));
			usleep(10000);
			continue;
		}
		add(&sh->forks, 1);
		ring_push(p);
		out++;
		storm_reap(&out, out >= MAXOUT);
	}
	while (out > 0)
		storm_reap(&out, true);
}

/* ----------------------------------------------------------- mutators */

static pid_t pick_target(unsigned *seed)
{
	if (rand_r(seed) % 10 == 0)
		return sh->storm[rand_r(seed) % NSTORM];
	return ring_pick(seed);
}

/*
 * The entry of @pid: at level 0 two times in three, else at a storm
 * worker's level (ENOENT when @pid is not one of its processes); true for
 * the latter.
 */
static bool pick_path(char *path, size_t len, pid_t pid, unsigned *seed)
{
	if (rand_r(seed) % 3) {
		snprintf(path, len, PT_ROOT "/%d", (int)pid);
		return false;
	}
	snprintf(path, len, "/proc/%d/root" STRESS_LV "/%d",
		 (int)sh->storm[rand_r(seed) % NSTORM], (int)pid);
	return true;
}

static void mutator(void)
{
	unsigned seed = getpid() * 104729;
	char line[128], path[96];
	bool lv;

	while (!sh->stop) {
		pid_t pid = pick_target(&seed);
		int k = rand_r(&seed) % 8, err = 0, fd;
		ssize_t n;

		if (pid <= 0)
			continue;
		switch (rand_r(&seed) % 10) {
		case 8: case 9:
			/* the pair: always changed together (checked by readers) */
			snprintf(line, sizeof(line), "+st:pair:a\n+st:pair:b\n!st:pair:a=%d\n!st:pair:b=%d\n",
				 k, k);
			break;
		case 0: snprintf(line, sizeof(line), "+st:%d\n", k); break;
		case 1: snprintf(line, sizeof(line), "+@st:%d\n!st:%d=v%d\n", k, k, k); break;
		case 2: snprintf(line, sizeof(line), "-st:%d\n", k); break;
		case 3: snprintf(line, sizeof(line), "-st:*\n"); break;
		case 4: snprintf(line, sizeof(line), "-@st:*\n+st:x\n"); break;
		case 5: snprintf(line, sizeof(line), "+st:%d\n!st:%d=value %d\n-@st:%d\n", k, k, k, k); break;
		case 6: snprintf(line, sizeof(line), "+@st:*\n"); break;
		default: snprintf(line, sizeof(line), "+st:%d\n#c\n\n-st:%d\n", k, k); break;
		}
		lv = pick_path(path, sizeof(path), pid, &seed);
		fd = open(path, O_WRONLY);
		if (fd < 0) {
			err = errno;
		} else {
			/* sometimes hold the descriptor while the target may exit */
			if (rand_r(&seed) % 4 == 0)
				usleep(rand_r(&seed) % 2000);
			n = write(fd, line, strlen(line));
			if (n < 0)
				err = errno;
			else if ((size_t)n != strlen(line))
				err = EIO;
			close(fd);
		}
		if (!err) {
			add(lv ? &sh->writes_lv_ok : &sh->writes_ok, 1);
		} else if (err == ESRCH || err == ENOENT) {
			add(&sh->writes_gone, 1);
		} else {
			add(&sh->writes_bad, 1);
			problem(P_WRITE, "write [%.*s] to %d: %s", (int)strcspn(line, "\n"), line,
				(int)pid, strerror(err));
		}
	}
}

/* ------------------------------------------------------------ readers */

/* Find the line of tag @name: returns it (up to its newline) or NULL. */
static const char *find_tag(const char *text, const char *name, size_t *len)
{
	size_t l = strlen(name);
	const char *p = text;

	while (*p) {
		const char *q = *p == '@' ? p + 1 : p, *nl = strchr(p, '\n');

		if (!nl)
			break;
		if (!strncmp(q, name, l) && (q[l] == '=' || q[l] == '\n')) {
			*len = nl - p;
			return p;
		}
		p = nl + 1;
	}
	return NULL;
}

/*
 * SPEC §3.3/§3.4: st:pair:a and st:pair:b are only ever added, removed,
 * kept and valued together, in one write: a snapshot shows both or
 * neither, with the same keep flag and the same value.
 */
static const char *check_pair(const char *text)
{
	size_t la = 0, lb = 0;
	const char *a = find_tag(text, "st:pair:a", &la), *b = find_tag(text, "st:pair:b", &lb);

	if (!a && !b)
		return NULL;
	if (!a || !b)
		return "half of st:pair:* present";
	if ((*a == '@') != (*b == '@'))
		return "st:pair:a and st:pair:b keep flags differ";
	/* same length, same text after the name ("=VALUE" or nothing) */
	if (la != lb || memcmp(a + (*a == '@') + 9, b + (*b == '@') + 9, la - (*a == '@') - 9))
		return "st:pair:a and st:pair:b values differ";
	return NULL;
}

static void reader(void)
{
	static char buf[1 << 16];
	unsigned seed = getpid() * 15485863;
	char path[96];
	bool lv;

	while (!sh->stop) {
		pid_t pid = pick_target(&seed);
		size_t got = 0, chunk = 1 + rand_r(&seed) % 64;
		const char *why;
		int fd, err = 0;
		ssize_t n = 0;

		if (pid <= 0)
			continue;
		if (rand_r(&seed) % 3 == 0)
			chunk = sizeof(buf) - 1;
		lv = pick_path(path, sizeof(path), pid, &seed);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			err = errno;
		} else {
			while (got + chunk < sizeof(buf) && (n = read(fd, buf + got, chunk)) > 0)
				got += n;
			if (n < 0)
				err = errno;
			close(fd);
		}
		if (err == ESRCH || err == ENOENT) {
			add(&sh->reads_gone, 1);
			continue;
		}
		if (err) {
			add(&sh->reads_bad, 1);
			problem(P_READ, "read of %d: %s", (int)pid, strerror(err));
			continue;
		}
		add(lv ? &sh->reads_lv_ok : &sh->reads_ok, 1);
		buf[got] = 0;
		why = check_text(buf, got);
		if (!why)
			why = check_pair(buf);
		if (why) {
			add(&sh->parse_bad, 1);
			problem(P_PARSE, "tags of %d (%zu-byte reads): %s: [%.100s]", (int)pid, chunk, why, buf);
		}
	}
}

/* ------------------------------------------------------------- lister */

struct linux_dirent64_ {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* How often a second, one-buffer listing shows @pid (-1: error). */
static int relist_count(pid_t pid)
{
	static char buf[1 << 16];
	char name[16];
	int fd = open(PT_ROOT, O_RDONLY | O_DIRECTORY), c = 0;
	long n;

	if (fd < 0)
		return -1;
	snprintf(name, sizeof(name), "%d", (int)pid);
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct linux_dirent64_ *d = (void *)(buf + off);

			off += d->d_reclen;
			c += !strcmp(d->d_name, name);
		}
	close(fd);
	return n < 0 ? -1 : c;
}

static void lister(void)
{
	static pid_t seen[8192];
	unsigned seed = getpid();
	char dbuf[512];

	while (!sh->stop) {
		int fd = open(PT_ROOT, O_RDONLY | O_DIRECTORY), nseen = 0, dots = 0, self = 0;
		size_t bufsz = 64 + rand_r(&seed) % (sizeof(dbuf) - 64);
		bool bad = false, all_ready = sh->ready == NSTORM;
		long n;

		if (fd < 0) {
			add(&sh->list_bad, 1);
			problem(P_LIST, "open " PT_ROOT ": %s", strerror(errno));
			usleep(100000);
			continue;
		}
		while ((n = syscall(SYS_getdents64, fd, dbuf, bufsz)) > 0) {
			for (long off = 0; off < n;) {
				struct linux_dirent64_ *d = (void *)(dbuf + off);
				char *endp;
				long v;

				off += d->d_reclen;
				if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..")) {
					dots++;
					continue;
				}
				if (!strcmp(d->d_name, "self")) {
					self++;
					continue;
				}
				v = strtol(d->d_name, &endp, 10);
				if (*endp || v <= 0) {
					bad = true;
					problem(P_LIST, "unexpected entry %s", d->d_name);
					continue;
				}
				for (int i = 0; i < nseen; i++)
					if (seen[i] == v) {
						bad = true;
						problem(P_LIST, "pid %ld listed twice", v);
					}
				if (nseen < (int)(sizeof(seen) / sizeof(seen[0])))
					seen[nseen++] = v;
			}
		}
		if (n < 0) {
			bad = true;
			problem(P_LIST, "getdents64: %s", strerror(errno));
		}
		close(fd);
		if (dots != 2 || self != 1) {
			bad = true;
			problem(P_LIST, "listing has %d dot entries and %d self", dots, self);
		}
		/*
		 * The storm workers stay tagged from "ready" until "stop", when
		 * they exit: a listing that ended before stop must show each
		 * exactly once.  (One overlapping stop may rightly miss them.)
		 */
		if (all_ready && !__atomic_load_n(&sh->stop, __ATOMIC_SEQ_CST))
			for (int s = 0; s < NSTORM; s++) {
				int c = 0;

				for (int i = 0; i < nseen; i++)
					c += seen[i] == sh->storm[s];
				if (c != 1) {
					char tags[256];
					ssize_t len;
					int again;

					/*
					 * Diagnose at once: does the worker still
					 * read as tagged, and does a listing right
					 * now show it?
					 */
					again = relist_count(sh->storm[s]);
					len = pt_read(sh->storm[s], tags, sizeof(tags));
					bad = true;
					problem(P_LIST, "always-tagged storm worker %d listed %d times (buffer %zu, %d entries); at once after: read %zd bytes, listed %d times",
						(int)sh->storm[s], c, bufsz, nseen, len, again);
				}
			}
		add(&sh->listings, 1);
		if (bad)
			add(&sh->list_bad, 1);
	}
}

/* --------------------------------------------------------------- main */

static bool is_kthread(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long flags = 0;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* ") S ppid pgrp session tty tpgid flags" */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & 0x00200000;	/* PF_KTHREAD */
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool counters_zero(void)
{
	for (int i = 0; i < 500; i++) {
		if (pt_stat("live_sets") == 0 && pt_stat("tagged_processes") == 0 &&
		    pt_stat("bytes") == 0)
			return true;
		usleep(20000);
	}
	diag("live_sets %ld tagged_processes %ld bytes %ld", pt_stat("live_sets"),
	     pt_stat("tagged_processes"), pt_stat("bytes"));
	return false;
}

int main(int argc, char **argv)
{
	pid_t workers[NWORKERS];
	long pruned0, inh0, killed0, refused0;
	int seconds = 75, nw = 0, strays = 0, others = 0;
	const char *env = getenv("STRESS_SECONDS");
	double t0, t1;
	struct dirent *d;
	DIR *dir;

	if (argc == 3 && !strcmp(argv[1], "--stress-exec"))
		return exec_image(atoi(argv[2]));

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (env && atoi(env) > 0)
		seconds = atoi(env);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("subreaper");
	if (mkdir(STRESS_LV, 0755) && errno != EEXIST)
		die("mkdir " STRESS_LV);
	if (!counters_zero())
		diag("warning: counters not 0 at the start");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	memset(sh, 0, sizeof(*sh));
	pruned0 = pt_stat("pruned");
	inh0 = pt_stat("inherited");
	killed0 = pt_stat("killed");
	refused0 = pt_stat("refused");

	diag("stress: %d storm, %d mutator, %d reader, %d lister workers for %d s",
	     NSTORM, NMUT, NREAD, NLIST, seconds);
	t0 = now();
	fflush(stdout);
	for (int i = 0; i < NWORKERS; i++) {
		pid_t p = fork();

		if (p < 0)
			die("fork worker");
		if (p == 0) {
			if (i < NSTORM)
				storm(i);
			else if (i < NSTORM + NMUT)
				mutator();
			else if (i < NSTORM + NMUT + NREAD)
				reader();
			else
				lister();
			_exit(0);
		}
		if (i < NSTORM)
			sh->storm[i] = p;
		workers[nw++] = p;
	}
	sleep(seconds);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < nw; i++) {
		int st;

		if (waitpid(workers[i], &st, 0) != workers[i] || !WIFEXITED(st) || WEXITSTATUS(st)) {
			sh->children_bad++;
			problem(P_CHILD, "worker %d ended badly (status 0x%x)", i, st);
		}
	}
	/* orphans (reparented to us) */
	while (waitpid(-1, NULL, 0) > 0)
		;
	t1 = now();

	diag("duration %.1f s", t1 - t0);
	diag("processes forked %ld (vfork %ld), execs %ld, threads %ld",
	     sh->forks, sh->vforks, sh->execs, sh->threads);
	diag("writes %ld ok (%ld more at a storm worker's level), %ld to exited targets or outside the level, %ld unexpected",
	     sh->writes_ok, sh->writes_lv_ok, sh->writes_gone, sh->writes_bad);
	diag("reads %ld ok (%ld more at a storm worker's level), %ld of exited targets or outside the level, %ld unexpected errors; listings %ld",
	     sh->reads_ok, sh->reads_lv_ok, sh->reads_gone, sh->reads_bad, sh->listings);
	diag("counters: inherited %+ld, pruned %+ld, refused %+ld, killed %+ld",
	     pt_stat("inherited") - inh0, pt_stat("pruned") - pruned0,
	     pt_stat("refused") - refused0, pt_stat("killed") - killed0);
	for (int k = 0; k < 6; k++)
		if (sh->first[k][0])
			diag("first problem (kind %d): %s", k, sh->first[k]);

	ok(sh->ready == NSTORM, "setup: the storm workers tagged themselves");
	ok(sh->forks > 0 && sh->execs > 0 && sh->writes_ok > 0 && sh->reads_ok > 0 &&
	   sh->writes_lv_ok > 0 && sh->reads_lv_ok > 0 && sh->listings > 0,
	   "stress: every kind of work ran, at both levels");
	ok(sh->writes_bad == 0, "SPEC §7: concurrent writes fail only with ESRCH/ENOENT for exited targets (%ld other)",
	   sh->writes_bad);
	ok(sh->reads_bad == 0, "SPEC §3.2: concurrent reads fail only for exited targets (%ld other)", sh->reads_bad);
	ok(sh->parse_bad == 0,
	   "SPEC §3.3/§3.4: every read was valid sorted tag text showing whole transactions (%ld bad)",
	   sh->parse_bad);
	ok(sh->children_bad == 0,
	   "SPEC §9: every child and exec'ed image held exactly the expected tags and exited normally (%ld bad)",
	   sh->children_bad);
	ok(sh->list_bad == 0,
	   "SPEC §3.2: every listing had ., .., self, pids once, always-tagged workers exactly once (%ld bad of %ld)",
	   sh->list_bad, sh->listings);
	ok(pt_stat("pruned") > pruned0 && pt_stat("inherited") > inh0,
	   "SPEC §8: the inherited and pruned counters moved");
	ok(pt_stat("killed") == killed0, "SPEC §9: no process was killed by the fail-closed rule");

	/*
	 * A pid we wrote to may have been reused by a kernel thread: those
	 * stray tags are our doing, not the module's; note and remove them.
	 */
	dir = opendir(PT_ROOT);
	if (!dir)
		die("opendir");
	while ((d = readdir(dir))) {
		char *endp;
		long v = strtol(d->d_name, &endp, 10);

		if (*endp || v <= 0)
			continue;
		if (is_kthread(v)) {
			strays++;
			diag("kernel thread %ld got tags through pid reuse; removing them", v);
			pt_write(v, "-\n");
		} else {
			others++;
			diag("process %ld is still tagged after every worker was reaped", v);
		}
	}
	closedir(dir);
	ok(others == 0, "SPEC §9: no process is listed once every worker is reaped (%d; %d kernel-thread strays)",
	   others, strays);
	ok(counters_zero(), "SPEC §8: live_sets, tagged_processes and bytes read 0 after everything is reaped");
	return tap_done();
}
