// SPDX-License-Identifier: GPL-2.0
/*
 * What ptags costs, measured inside one QEMU boot whose clock counts
 * instructions (-icount shift=0), so every configuration is compared with
 * the others under identical conditions.  Run as /bench by the guest's init
 * (make bench); it loads and unloads the modules itself:
 *
 *   /kprobe_floor.ko  empty kprobes where a kprobe design would hook
 *   /ptags_floor.ko   ptags's own tracepoint probes, built empty
 *   /ptags.ko         ptags
 *
 * Prints a table of medians and ratios to the first configuration, the
 * memory figures, and one line per target: "target ... met" or "missed".
 *
 * BENCH_SMOKE_ONLY=1 in the environment (the guest's init passes it on for
 * ptbench=smoke, which guest-test.sh --bench sets from BENCH_SMOKE_ONLY):
 * only the BPF peer's smoke test and a check of its programs' counters,
 * then stop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include "bench.h"
#ifdef PTAGS_BPF_PEER
#include "peer.h"
#endif

#define PROC_ENTRY_BYTES 96	/* sizeof(struct ptags_proc), module/table/internal.h */
#define BENCH_PATH	"/bench"

extern char **environ;
static char *noop_argv[] = { BENCH_PATH, "--noop", NULL };

static void op_vfork_exec(void *arg)
{
	pid_t pid = vfork();

	if (!pid) {
		execve(BENCH_PATH, noop_argv, environ);
		_exit(127);
	}
	reap(pid);
}

static void op_spawn(void *arg)
{
	pid_t pid;

	if (posix_spawn(&pid, BENCH_PATH, NULL, NULL, noop_argv, environ))
		fail("posix_spawn");
	reap(pid);
}

static void *thread_fn(void *arg)
{
	return arg;
}

static void op_thread(void *arg)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread_fn, NULL) || pthread_join(t, NULL))
		fail("thread");
}

/* The listing again on an open directory: from offset 0 to the end. */
static void op_relist(void *arg)
{
	list_fd(*(int *)arg);
}

/* A whole read of /proc/ptags/PID as cat does it: open, read, close. */
static void op_read_path(void *arg)
{
	int fd = open(arg, O_RDONLY);

	if (fd < 0)
		fail("open entry");
	op_read(&fd);
	close(fd);
}

struct writes {
	int fd;
	const char *text[2];
	size_t len[2];
	int next;
};

/* Alternate two transactions that undo each other. */
static void op_write(void *arg)
{
	struct writes *w = arg;
	int i = w->next;

	if (write(w->fd, w->text[i], w->len[i]) != (ssize_t)w->len[i])
		fail("write");
	w->next = !i;
}

/* A write, then the directory watcher's read of its event (SPEC §3.5). */
struct watched_writes {
	struct writes w;
	int in;			/* inotify, watching /proc/ptags */
};

static void op_write_seen(void *arg)
{
	struct watched_writes *ww = arg;
	char buf[4096];

	op_write(&ww->w);
	if (read(ww->in, buf, sizeof(buf)) <= 0)
		fail("read inotify");
}

static int dir_watch(void)
{
	int in = inotify_init1(IN_CLOEXEC);

	if (in < 0 || inotify_add_watch(in, "/proc/ptags",
					IN_CREATE | IN_DELETE | IN_MODIFY) < 0)
		fail("inotify on /proc/ptags");
	return in;
}

/*
 * SPEC §3.5, §8: the most one user can make the watch worker do for one
 * change of one scope (a level and a pid namespace): the module's limit of
 * WATCH_SCOPE_MAX instances per scope, each with a directory watch, all in
 * a user and mount namespace of a child's own.
 */
#define WATCH_SCOPE_MAX	64
#define WATCH_SCOPE_DIR	"/wscope"

struct watch_scope {
	struct writes w;
	int in;
	int need;		/* events one write makes */
};

/* A write to our own entry, then until every watcher has its event. */
static void op_write_seen_all(void *arg)
{
	struct watch_scope *ws = arg;
	char buf[1 << 14] __attribute__((aligned(8)));
	int got = 0;
	ssize_t n;
	char *q;

	op_write(&ws->w);
	while (got < ws->need) {
		n = read(ws->in, buf, sizeof(buf));
		if (n <= 0)
			fail("read inotify");
		for (q = buf; q < buf + n; got++)
			q += sizeof(struct inotify_event) +
			     ((struct inotify_event *)q)->len;
	}
}

/* Watch the directories of mounts 0 .. @n - 1: an inotify descriptor. */
static int watch_mounts(int n)
{
	int in = inotify_init1(IN_CLOEXEC), i;
	char dir[64];

	for (i = 0; in >= 0 && i < n; i++) {
		snprintf(dir, sizeof(dir), WATCH_SCOPE_DIR "/m%d", i);
		if (inotify_add_watch(in, dir, IN_CREATE | IN_MODIFY) < 0)
			fail("inotify on a level=own mount");
	}
	if (in < 0)
		fail("inotify_init1");
	return in;
}

/* *@res: [0] with every instance watched, [1] with one. */
static void watch_scope_run(void *arg, void *res)
{
	struct watch_scope ws = { .w.next = 0 };
	double *us = res;
	char dir[64];
	int i;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) ||
	    file_write("/proc/self/setgroups", "deny") ||
	    file_write("/proc/self/uid_map", "0 0 1") ||
	    file_write("/proc/self/gid_map", "0 0 1") ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", WATCH_SCOPE_DIR, "tmpfs", 0, NULL))
		fail("a user and mount namespace of our own");
	for (i = 0; i < WATCH_SCOPE_MAX; i++) {
		snprintf(dir, sizeof(dir), WATCH_SCOPE_DIR "/m%d", i);
		if (mkdir(dir, 0755) ||
		    mount("ptags", dir, "ptags", 0, "level=own"))
			fail("mount level=own");
	}
	ws.w.fd = open(WATCH_SCOPE_DIR "/m0/self", O_WRONLY);
	if (ws.w.fd < 0 || write(ws.w.fd, "+base\n", 6) != 6)
		fail("tag ourselves at our own level");
	ws.w.text[0] = "+bench:w\n";
	ws.w.text[1] = "-bench:w\n";
	ws.w.len[0] = ws.w.len[1] = strlen(ws.w.text[0]);
	ws.in = watch_mounts(WATCH_SCOPE_MAX);
	ws.need = WATCH_SCOPE_MAX;
	us[0] = measure(op_write_seen_all, &ws, 100);
	close(ws.in);
	ws.in = watch_mounts(1);
	ws.need = 1;
	us[1] = measure(op_write_seen_all, &ws, 100);
}

static char tagtext[1 << 18];

/* In tagtext: the write that leaves exactly @n tags bench:NNNN; its length. */
static size_t tag_text(int n, bool keep)
{
	char *text = tagtext;
	size_t len;
	int i;

	len = snprintf(text, sizeof(tagtext), "-\n");
	for (i = 0; i < n; i++)
		len += snprintf(text + len, sizeof(tagtext) - len,
				"+%sbench:%04d\n!bench:%04d=%032d\n",
				keep ? "@" : "", i, i, i);
	return len;
}

/* Give ourselves exactly @n tags bench:NNNN with 32-byte values. */
static void tag_self(int n, bool keep)
{
	tags_write(tagtext, tag_text(n, keep));
}

/* Children that wait on a pipe: @k of them, inheriting our tags. */
static int park_children(int k, pid_t *pids)
{
	int p[2], i;
	char c;

	if (pipe(p))
		fail("pipe");
	for (i = 0; i < k; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			fail("fork");
		if (!pids[i]) {
			close(p[1]);
			if (read(p[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
	}
	close(p[0]);
	return p[1];
}

static void release_children(int fd, int k, pid_t *pids)
{
	int i;

	close(fd);
	for (i = 0; i < k; i++)
		reap(pids[i]);
}

enum { OP_FORK, OP_EXEC, OP_SPAWN, OP_THREAD, NR_OPS };
/*
 * SPEC §3.4 worst case (docs/SECURITY.md §7.5): a target holding max_tags
 * tags whose names are 1000 bytes with 498 colons, written by an
 * unprivileged child holding @rights, @lines copies of @line in one write.
 * Returns the guest time of that write in us.
 */
#define WORST_NAME	1000
#define WORST_MAX_WRITE	(1 << 20)

static char *worst_buf;

/* A child holding @ntags such names; *@release lets it go. */
static pid_t worst_target(int ntags, int *release)
{
	size_t len = 0;
	char path[64];
	int i, fd, k;
	pid_t pid;

	*release = park_children(1, &pid);
	snprintf(path, sizeof(path), "/proc/ptags/%d", (int)pid);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		fail("open worst target");
	for (i = 0; i <= ntags; i++) {
		if (i == ntags || len + WORST_NAME + 2 > WORST_MAX_WRITE) {
			if (write(fd, worst_buf, len) != (ssize_t)len)
				fail("tag worst target");
			len = 0;
		}
		if (i == ntags)
			break;
		len += sprintf(worst_buf + len, "+t:%04d", i);
		for (k = 6; k + 2 <= WORST_NAME; k += 2) {
			worst_buf[len++] = ':';
			worst_buf[len++] = 'a';
		}
		worst_buf[len++] = '\n';
	}
	close(fd);
	return pid;
}

/*
 * @fn(@arg) in a child that first takes the tags @rights and then becomes
 * uid 65534 (no CAP_MAC_ADMIN); its result, or -1.
 */
struct nobody {
	const char *rights;
	double (*fn)(void *);
	void *arg;
};

static void nobody_run(void *arg, void *res)
{
	const struct nobody *nb = arg;

	if (*nb->rights)
		tags_write(nb->rights, strlen(nb->rights));
	if (setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		_exit(1);
	*(double *)res = nb->fn(nb->arg);
}

static double as_nobody(const char *rights, double (*fn)(void *), void *arg)
{
	struct nobody nb = { .rights = rights, .fn = fn, .arg = arg };
	double v;

	return in_child(nobody_run, &nb, &v, sizeof(v)) ? v : -1;
}

struct worst {
	pid_t target;
	size_t len;
};

/* One write of worst_buf to the target: its guest time in us. */
static double worst_once(void *arg)
{
	const struct worst *w = arg;
	char path[64];
	double t0;
	int fd;

	snprintf(path, sizeof(path), "/proc/ptags/%d", (int)w->target);
	fd = open(path, O_WRONLY);
	t0 = now_us();
	if (fd < 0 || write(fd, worst_buf, w->len) != (ssize_t)w->len)
		return -1;
	return now_us() - t0;
}

static double worst_write(pid_t target, const char *rights, const char *line,
			  long lines)
{
	struct worst w = { .target = target };
	size_t l = strlen(line);
	long i;

	for (i = 0; i < lines; i++, w.len += l)
		memcpy(worst_buf + w.len, line, l);
	return as_nobody(rights, worst_once, &w);
}

/* The median one-line write of @arg (struct writes) to our own entry. */
static double write_median(void *arg)
{
	struct writes *w = arg;
	double us;

	w->fd = open("/proc/ptags/self", O_WRONLY);
	if (w->fd < 0)
		return -1;
	us = measure(op_write, w, 400);
	close(w->fd);
	return us;
}

static const char *const op_names[NR_OPS] = {
	"fork+exit+wait", "vfork+exec+wait", "posix_spawn+wait",
	"thread create+join",
};
static void (*const op_fns[NR_OPS])(void *) = {
	op_fork, op_vfork_exec, op_spawn, op_thread,
};
static const int op_n[NR_OPS] = { 400, 150, 150, 400 };

/*
 * Method (docs/PERFORMANCE.md, "Method"): every configuration is measured
 * once per round, ROUNDS rounds in one boot, each time ROUND_REPS runs of
 * op_n[] calls (the round's figure is their median).  Within a round the
 * configurations come in groups (one module or peer loaded); "base" is
 * measured before and after every group, and a configuration's ratio in
 * that round is to the mean of those two.  A figure is the median over
 * the rounds, with the spread (lowest to highest round); a target is met
 * only if its worst round meets it.
 */
#define ROUNDS		4
#define ROUND_REPS	3
#define MAX_CONFIGS	24

static struct config {
	char name[40];
	double us[ROUNDS][NR_OPS];	/* the round's median */
	double base[ROUNDS][NR_OPS];	/* base around its group */
} configs[MAX_CONFIGS];
static int nconfigs, round_no;
/* Measured since the last base, waiting for the one after them. */
static struct config *pending[MAX_CONFIGS];
static int npending;
static double base_before[NR_OPS];
/* Every base measurement: ROUNDS times (groups + 1). */
#define MAX_BASES	(ROUNDS * 8)
static double bases[MAX_BASES][NR_OPS];
static int nbases;

static struct config *config_of(const char *name)
{
	int i;

	for (i = 0; i < nconfigs; i++)
		if (!strcmp(configs[i].name, name))
			return &configs[i];
	if (nconfigs == MAX_CONFIGS) {
		errno = 0;
		fail("too many configurations");
	}
	snprintf(configs[nconfigs].name, sizeof(configs[0].name), "%s", name);
	return &configs[nconfigs++];
}

static void run_config(const char *name)
{
	struct config *c = config_of(name);
	int op;

	for (op = 0; op < NR_OPS; op++)
		c->us[round_no][op] = measure_reps(op_fns[op], NULL, op_n[op],
						   ROUND_REPS);
	pending[npending++] = c;
	printf("# round %d: measured %s\n", round_no + 1, name);
	fflush(stdout);
}

/* Base, closing the group measured since the last one. */
static void run_base(void)
{
	double b[NR_OPS];
	int op, i;

	for (op = 0; op < NR_OPS; op++)
		b[op] = measure_reps(op_fns[op], NULL, op_n[op], ROUND_REPS);
	for (i = 0; i < npending; i++)
		for (op = 0; op < NR_OPS; op++)
			pending[i]->base[round_no][op] =
				(base_before[op] + b[op]) / 2;
	npending = 0;
	memcpy(base_before, b, sizeof(b));
	if (nbases < MAX_BASES)
		memcpy(bases[nbases++], b, sizeof(b));
}

static const struct config *find(const char *name)
{
	int i;

	for (i = 0; i < nconfigs; i++)
		if (!strcmp(configs[i].name, name))
			return &configs[i];
	printf("bench: no configuration %s\n", name);
	exit(1);
}

struct spread {
	double med, lo, hi;
};

static struct spread spread_of(double *v, int n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	return (struct spread){ .med = n % 2 ? v[n / 2] :
				(v[n / 2 - 1] + v[n / 2]) / 2,
				.lo = v[0], .hi = v[n - 1] };
}

/* @c's time for @op over the rounds. */
static struct spread time_of(const struct config *c, int op)
{
	double v[ROUNDS];
	int r;

	for (r = 0; r < ROUNDS; r++)
		v[r] = c->us[r][op];
	return spread_of(v, ROUNDS);
}

/* @c / the base around it, per round. */
static struct spread ratio_of(const struct config *c, int op)
{
	double v[ROUNDS];
	int r;

	for (r = 0; r < ROUNDS; r++)
		v[r] = c->us[r][op] / c->base[r][op];
	return spread_of(v, ROUNDS);
}

/* @a / @b, per round (both measured in every round). */
static struct spread ratio_to(const struct config *a, const struct config *b,
			      int op)
{
	double v[ROUNDS];
	int r;

	for (r = 0; r < ROUNDS; r++)
		v[r] = a->us[r][op] / b->us[r][op];
	return spread_of(v, ROUNDS);
}

#ifdef PTAGS_BPF_PEER
/*
 * Extras over base compared, round by round: whether in every round @b's
 * extra (its time less its base) is positive and @a's at most @limit times
 * it.  *@worst: the largest @a / @b extra ratio of the rounds, infinity
 * for a round where @b's extra is not positive.
 */
static bool extra_within(const struct config *a, const struct config *b,
			 int op, double limit, double *worst)
{
	double ea, eb, v;
	bool met = true;
	int r;

	*worst = -INFINITY;
	for (r = 0; r < ROUNDS; r++) {
		ea = a->us[r][op] - a->base[r][op];
		eb = b->us[r][op] - b->base[r][op];
		v = eb > 0 ? ea / eb : INFINITY;
		if (!(eb > 0 && ea <= limit * eb))
			met = false;
		if (v > *worst)
			*worst = v;
	}
	return met;
}
#endif

/* Every base measurement / their median: base's own spread. */
static struct spread base_spread(int op)
{
	double v[MAX_BASES], w[MAX_BASES];
	struct spread s;
	int i;

	for (i = 0; i < nbases; i++)
		v[i] = w[i] = bases[i][op];
	s = spread_of(v, nbases);
	for (i = 0; i < nbases; i++)
		w[i] /= s.med;
	return spread_of(w, nbases);
}

/*
 * What the clock makes of bulk copies: -icount counts instructions, and a
 * string instruction's count depends on how QEMU splits it, whatever the
 * bytes it moves.  One 64 KiB copy three ways; printed, not judged.
 */
#define COPY_PROBE	(64 << 10)

struct copy_probe {
	int how;		/* 0 memcpy, 1 rep movsb, 2 rep movsq */
};

static void op_copy(void *arg)
{
	const struct copy_probe *cp = arg;
	unsigned char *dst = (unsigned char *)readbuf + sizeof(readbuf) / 2;
	const unsigned char *src = (const unsigned char *)readbuf;
	size_t n = COPY_PROBE;

	if (cp->how == 0) {
		memcpy(dst, src, n);
		__asm__ volatile("" : : "r"(dst) : "memory");
		return;
	}
#ifdef __x86_64__
	if (cp->how == 1) {
		__asm__ volatile("rep movsb"
				 : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	} else {
		n /= 8;
		__asm__ volatile("rep movsq"
				 : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	}
#endif
}

static double copy_us[3];

static void copy_probe_run(void)
{
	struct copy_probe cp;

	for (cp.how = 0; cp.how < 3; cp.how++)
		copy_us[cp.how] = measure(op_copy, &cp, 100);
}

/*
 * True memory (issue 24): what @n children of a tagged parent add to the
 * kernel's slab, against the same children of the untagged parent.
 * @tag(true) tags this process, @tag(false) untags it.  Three rounds of
 * untagged then tagged; each reading is /proc/meminfo's Slab with the
 * children parked, after 200 ms for RCU to free what the last round left.
 * Bytes per child: the median tagged reading less the median untagged.
 */
#define MEM_CHILDREN	4000

static pid_t mem_pids[MEM_CHILDREN];

/*
 * What memory_run() reads as well (below): the memory controller's
 * figures of the bench's group, -1 where there is none.
 */
#define CG_ROOT		"/sys/fs/cgroup"
#define CG_BENCH	CG_ROOT "/ptbench"

/* A field of the group's memory.stat, in bytes, or -1. */
static long cg_stat(const char *key)
{
	char buf[8192];
	size_t k = strlen(key);
	const char *p;

	if (file_read(CG_BENCH "/memory.stat", buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, k) && p[k] == ' ')
			return strtol(p + k + 1, NULL, 10);
	return -1;
}

struct mem_reading {
	long slab_kb;		/* /proc/meminfo's Slab */
	long current;		/* the group's memory.current */
	long cg_slab, cg_stack;	/* its memory.stat slab, kernel_stack */
	long counter;		/* ptags's memory counter */
};

static void mem_read(struct mem_reading *m)
{
	m->slab_kb = meminfo_kb("Slab:");
	m->current = file_long(CG_BENCH "/memory.current");
	m->cg_slab = cg_stat("slab");
	m->cg_stack = cg_stat("kernel_stack");
	m->counter = stat_read("memory");
}

/*
 * @k children parked: the readings with them into *@with, and, unless
 * @before is NULL, just before them into *@before.
 */
static void mem_with_children(int k, struct mem_reading *before,
			      struct mem_reading *with)
{
	int fd;

	usleep(200000);
	if (before)
		mem_read(before);
	fd = park_children(k, mem_pids);
	usleep(200000);
	mem_read(with);
	release_children(fd, k, mem_pids);
}

static long slab_with_children(void)
{
	struct mem_reading m;

	mem_with_children(MEM_CHILDREN, NULL, &m);
	return m.slab_kb;
}

static double slab_per_child(void (*tag)(bool on))
{
	double v[2][3];
	int r, t;

	for (r = 0; r < 3; r++)
		for (t = 0; t < 2; t++) {
			tag(t);
			v[t][r] = slab_with_children();
		}
	tag(false);
	return (spread_of(v[1], 3).med - spread_of(v[0], 3).med) * 1024 /
	       MEM_CHILDREN;
}

/* For slab_per_child(): nothing (the noise), ptags. */
static void tag_nothing(bool on)
{
	(void)on;
}

static void tag_ptags(bool on)
{
	if (on)
		tag_self(100, false);
	else
		tags_write("-\n", 2);
}


#ifdef PTAGS_BPF_PEER
/*
 * Of process @pid (0: this one): the resident memory (VmRSS) in kB, and
 * into *@maps the number of mappings.  Read into the stack, no stdio: the
 * measurement must not allocate.
 */
static long rss_kb(pid_t pid, long *maps)
{
	char path[64], buf[4096], *p;
	long kb = -1;
	ssize_t n;
	int fd;

	if (!pid)
		pid = getpid();
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = 0;
		p = strstr(buf, "\nVmRSS:");
		if (p)
			kb = strtol(p + 7, NULL, 10);
	}
	if (!maps)
		return kb;
	*maps = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return kb;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (p = buf; p < buf + n; p++)
			*maps += *p == '\n';
	close(fd);
	return kb;
}

#endif

#ifdef PTAGS_BPF_PEER
/*
 * The BPF peer (tests/bench/bpf-peer): what a BPF engineer would build
 * instead on a stock kernel, a handle per process in task storage naming
 * shared, reference-counted sets.  Measured with ptags unloaded, in the
 * same boot.  A child process loads it (bpf_peer_spawn()): libbpf's
 * allocations would stay in this process and make every later fork dearer.
 *
 * The tags written and the records read back live in readbuf, which main()
 * touched before the first configuration and which nothing else uses
 * meanwhile: buffers of their own would add resident memory to this
 * process, and a fork copies the page table entries of each resident page.
 */
#define PEER_N		1000
struct peer_buf {
	struct peer_tag tags[PEER_N];
	char names[PEER_N][16];
	char values[PEER_N][33];
	unsigned char got[PEER_N * 64];
};
_Static_assert(sizeof(struct peer_buf) <= sizeof(readbuf),
	       "readbuf holds the peer's buffers");
static struct peer_buf *const pb = (struct peer_buf *)readbuf;
static int peer_n;
static double peer_write_us[3], peer_read_us[3], peer_slab_child;
/* The programs' counters, summed over the loads. */
static struct peer_stats peer_counts;
static int peer_loads;
/* Before loading, loaded, after unloading; the loader's. */
static long peer_rss_kb[4], peer_maps[3];

/* The bench's tags as tag_self() writes them: bench:NNNN, 32-byte values. */
static void peer_tags(int n, bool keep)
{
	int i;

	for (i = 0; i < n; i++) {
		snprintf(pb->names[i], sizeof(pb->names[i]), "bench:%04d", i);
		snprintf(pb->values[i], sizeof(pb->values[i]), "%032d", i);
		pb->tags[i] = (struct peer_tag){
			.name = pb->names[i], .name_len = 10,
			.value = pb->values[i], .value_len = 32, .keep = keep,
		};
	}
	peer_n = n;
}

static void peer_tag_self(int pidfd, int n, bool keep)
{
	peer_tags(n, keep);
	if (bpf_peer_write(pidfd, pb->tags, n))
		fail("bpf_peer_write");
}

static int peer_pidfd;

static void tag_peer(bool on)
{
	peer_tag_self(peer_pidfd, on ? 100 : 0, false);
}

static void op_peer_write(void *arg)
{
	if (bpf_peer_write(*(int *)arg, pb->tags, peer_n))
		fail("bpf_peer_write");
}

static void op_peer_read(void *arg)
{
	ssize_t len = bpf_peer_read(*(int *)arg, pb->got, sizeof(pb->got));

	if (len != (ssize_t)peer_n * 56)	/* 8 + 10 + 32, 8-aligned */
		fail("bpf_peer_read");
}

/* The peer's smoke test (peer-smoke.c) first: its TAP goes to ours. */
static void peer_smoke(void)
{
	char *argv[] = { "/peer-smoke", NULL };
	int status;
	pid_t pid;

	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) ||
	    waitpid(pid, &status, 0) != pid)
		fail("run /peer-smoke");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = 0;
		fail("the BPF peer's smoke test failed");
	}
}

/* Add the counters of the peer loaded now to peer_counts. */
static void peer_count(void)
{
	struct peer_stats st;
	unsigned int nsets;
	size_t bytes;

	if (bpf_peer_stats(&st, &nsets, &bytes))
		fail("bpf_peer_stats");
	peer_counts.lost += st.lost;
	peer_counts.unref += st.unref;
	peer_counts.busy += st.busy;
	peer_counts.dead += st.dead;
	peer_counts.raced += st.raced;
	peer_counts.retried += st.retried;
	peer_loads++;
}

/*
 * The counters, and a TAP line that fails the run (guest-test.sh) unless
 * no fork lost its copy and no reference was unknown.  A helper refused
 * by 6.1's busy task storage lock (peer.bpf.c) is a leak or a lost copy
 * the program can only count: reported, as a limitation of the peer on
 * that kernel (6.2 and later look a handle up without that lock), not a
 * failure of the run, which would leave no figures at all on 6.1.
 */
static void peer_report_counts(void)
{
	const struct peer_stats *c = &peer_counts;

	printf("bpf peer: its programs' counters over %d loads: lost %llu, unref %llu, busy %llu, dead %llu, raced %llu; the writer's retried %llu\n",
	       peer_loads, (unsigned long long)c->lost,
	       (unsigned long long)c->unref, (unsigned long long)c->busy,
	       (unsigned long long)c->dead,
	       (unsigned long long)c->raced, (unsigned long long)c->retried);
	printf("%sok - bpf peer: no fork lost its copy (%llu), no reference unknown (%llu)\n",
	       c->lost || c->unref ? "not " : "",
	       (unsigned long long)c->lost, (unsigned long long)c->unref);
	if (c->busy)
		printf("# bpf peer: %llu helper calls refused by the busy task storage lock, each a leaked reference or a lost copy (a limitation of the peer on this kernel)\n",
		       (unsigned long long)c->busy);
}

/*
 * BENCH_SMOKE_ONLY: the smoke test, then one load as a round's (in a
 * child), whose programs see tagged forks, threads, execs and releases;
 * its counters.
 */
static int peer_smoke_only(void)
{
	int pidfd, i;

	peer_smoke();
	if (bpf_peer_spawn())
		fail("bpf_peer_spawn");
	pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		fail("pidfd_open");
	peer_tag_self(pidfd, 100, false);
	measure(op_fork, NULL, 50);
	measure(op_thread, NULL, 20);
	for (i = 0; i < 3; i++)
		op_peer_read(&pidfd);
	peer_tag_self(pidfd, 100, true);
	measure(op_vfork_exec, NULL, 20);
	peer_tag_self(pidfd, 0, false);
	close(pidfd);
	/* The releases run in RCU callbacks after the reaps. */
	usleep(100000);
	peer_count();
	bpf_peer_unload();
	peer_report_counts();
	printf("bench: done (BENCH_SMOKE_ONLY: the BPF peer's smoke test and counters only)\n");
	return 0;
}

/* One round's peer group: load, the configurations, unload. */
static void bench_bpf_peer(void)
{
	static const int n[] = { 1, 100, 1000 };
	bool first = round_no == 0, last = round_no == ROUNDS - 1;
	char name[40];
	int pidfd, i;

	/*
	 * A fork's cost grows with the parent's memory: the peer loads in a
	 * child (libbpf reads the kernel's BTF for CO-RE), this process only
	 * maps the two arrays (the figures printed show what that changed).
	 */
	if (first)
		peer_rss_kb[0] = rss_kb(0, &peer_maps[0]);
	if (bpf_peer_spawn())
		fail("bpf_peer_spawn");
	if (first) {
		peer_rss_kb[1] = rss_kb(0, &peer_maps[1]);
		peer_rss_kb[3] = rss_kb(bpf_peer_loader(), NULL);
	}
	pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		fail("pidfd_open");
	run_config("bpf peer, untagged");
	for (i = 0; i < 3; i++) {
		peer_tag_self(pidfd, n[i], false);
		snprintf(name, sizeof(name), "bpf peer, %d tags", n[i]);
		run_config(name);
		if (!last)
			continue;
		/* A write gives the whole set; a read copies it out. */
		peer_write_us[i] = measure(op_peer_write, &pidfd, 200);
		peer_read_us[i] = measure(op_peer_read, &pidfd, 200);
	}
	peer_tag_self(pidfd, 1000, true);
	run_config("bpf peer, 1000 tags kept");
	if (last) {
		peer_pidfd = pidfd;
		peer_slab_child = slab_per_child(tag_peer);
	}
	/* Counted, and judged at the end (peer_report_counts()). */
	peer_count();
	close(pidfd);
	bpf_peer_unload();
	if (first)
		peer_rss_kb[2] = rss_kb(0, &peer_maps[2]);
}
#endif


/*
 * pidfs extended attributes (Linux 6.17+): trusted.* attributes set on a
 * process through a pidfd by root, the stock kernel's nearest thing to a
 * tag.  Measured after ptags, with it unloaded; a kernel without them gets
 * one line in the report.
 */
#define XATTR_N		1000	/* the most attributes measured */
#define XATTR_MEM_N	10000	/* for the memory figure, above slab noise */
#define XATTR_VALUE	32

static struct {
	int err;		/* the probe's errno, 0: supported */
	int n[3];		/* attributes measured: 1, 100, 1000 or fewer */
	int max_err;		/* why fewer than XATTR_N could be set */
	double create_us[3], remove_us[3];	/* all n, from none / to none */
	double replace_us[3], get_us[3], list_us[3];	/* one call */
	double fork_us[2];	/* none held, n[2] held */
	long mem_kb;		/* Slab growth with XATTR_MEM_N attributes */
	int child_err;		/* fgetxattr on a child's pidfd */
	long child_list;	/* flistxattr size on a child's pidfd */
	int nobody_err[2];	/* uid 65534: set its own, read the bench's */
	int userns_err[2];	/* root of a new user namespace: the same */
} px;

struct xattr_op {
	int pidfd;
	int n;			/* attributes held */
	int next;		/* the one the next replace changes */
	ssize_t list_size;	/* what flistxattr() returns */
	char value[XATTR_VALUE + 1];
};

static char xattr_names[1 << 16];

static void xattr_name(char *buf, size_t size, int i)
{
	snprintf(buf, size, "trusted.bench.%04d", i);
}

/* Create attributes @from..@to-1; returns where it stopped (errno set). */
static int xattr_fill(int pidfd, int from, int to)
{
	char name[32], value[XATTR_VALUE + 1];
	int i;

	for (i = from; i < to; i++) {
		xattr_name(name, sizeof(name), i);
		snprintf(value, sizeof(value), "%032d", i);
		if (fsetxattr(pidfd, name, value, XATTR_VALUE, XATTR_CREATE))
			break;
	}
	return i;
}

static void xattr_clear(int pidfd, int n)
{
	char name[32];
	int i;

	for (i = 0; i < n; i++) {
		xattr_name(name, sizeof(name), i);
		if (fremovexattr(pidfd, name))
			fail("fremovexattr");
	}
}

/* Medians over REPS: creating @n attributes from none, removing them. */
static void xattr_fill_median(int pidfd, int n, double *create, double *remove)
{
	double c[REPS], r[REPS], t0;
	int i;

	for (i = 0; i < REPS; i++) {
		t0 = now_us();
		if (xattr_fill(pidfd, 0, n) != n)
			fail("fsetxattr");
		c[i] = now_us() - t0;
		t0 = now_us();
		xattr_clear(pidfd, n);
		r[i] = now_us() - t0;
	}
	qsort(c, REPS, sizeof(c[0]), cmp_double);
	qsort(r, REPS, sizeof(r[0]), cmp_double);
	*create = c[REPS / 2];
	*remove = r[REPS / 2];
}

/* Replace the value of one of the n attributes, each in turn. */
static void op_xattr_replace(void *arg)
{
	struct xattr_op *x = arg;
	char name[32];

	xattr_name(name, sizeof(name), x->next);
	x->value[0] ^= 1;
	if (fsetxattr(x->pidfd, name, x->value, XATTR_VALUE, XATTR_REPLACE))
		fail("fsetxattr replace");
	x->next = (x->next + 1) % x->n;
}

/* Read the middle one of the n attributes. */
static void op_xattr_get(void *arg)
{
	struct xattr_op *x = arg;
	char name[32], value[XATTR_VALUE];

	xattr_name(name, sizeof(name), x->n / 2);
	if (fgetxattr(x->pidfd, name, value, sizeof(value)) != XATTR_VALUE)
		fail("fgetxattr");
}

static void op_xattr_list(void *arg)
{
	struct xattr_op *x = arg;

	/* A buffer of their size: the kernel allocates one as large. */
	if (flistxattr(x->pidfd, xattr_names, x->list_size) != x->list_size)
		fail("flistxattr");
}

/* /proc/meminfo's Slab, in kB. */
static long slab_kb(void)
{
	return meminfo_kb("Slab:");
}

/*
 * In a child, as uid 65534 (@userns false) or as root of a new user
 * namespace: set an attribute on its own pidfd, and read one of the
 * bench's through @pidfd.  The two errnos (0: it could), -1 if unknown.
 */
struct stranger {
	bool userns;
	int pidfd;
};

static void stranger_run(void *arg, void *res)
{
	const struct stranger *s = arg;
	char name[32], value[XATTR_VALUE];
	int *e = res, me;

	if (s->userns ? unshare(CLONE_NEWUSER) :
	    setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		_exit(1);
	me = syscall(SYS_pidfd_open, getpid(), 0);
	e[0] = me < 0 || fsetxattr(me, "trusted.bench.mine", "x", 1, 0) ?
	       errno : 0;
	xattr_name(name, sizeof(name), 0);
	e[1] = fgetxattr(s->pidfd, name, value, sizeof(value)) < 0 ? errno : 0;
}

static void xattr_stranger(bool userns, int pidfd, int err[2])
{
	struct stranger s = { .userns = userns, .pidfd = pidfd };
	int e[2];

	if (in_child(stranger_run, &s, e, sizeof(e))) {
		err[0] = e[0];
		err[1] = e[1];
	} else {
		err[0] = -1;
		err[1] = -1;
	}
}

static void bench_pidfs_xattrs(void)
{
	static const int want[] = { 1, 100, XATTR_N };
	struct xattr_op x = { .value = "00000000000000000000000000000000" };
	char name[32], value[XATTR_VALUE];
	int i, max, fd;
	pid_t child;
	long kb;

	memset(xattr_names, 1, sizeof(xattr_names));
	x.pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	if (x.pidfd < 0) {
		px.err = errno;
		return;
	}
	if (fsetxattr(x.pidfd, "trusted.ptags_bench_probe", "x", 1, 0)) {
		px.err = errno;
		close(x.pidfd);
		return;
	}
	if (fremovexattr(x.pidfd, "trusted.ptags_bench_probe"))
		fail("fremovexattr");

	/* How many the kernel takes, up to XATTR_N. */
	max = xattr_fill(x.pidfd, 0, XATTR_N);
	px.max_err = max < XATTR_N ? errno : 0;
	xattr_clear(x.pidfd, max);
	if (!max) {
		px.err = px.max_err;
		close(x.pidfd);
		return;
	}
	for (i = 0; i < 3; i++) {
		px.n[i] = want[i] < max ? want[i] : max;
		xattr_fill_median(x.pidfd, px.n[i], &px.create_us[i],
				  &px.remove_us[i]);
		if (xattr_fill(x.pidfd, 0, px.n[i]) != px.n[i])
			fail("fsetxattr");
		x.n = px.n[i];
		x.next = 0;
		px.replace_us[i] = measure(op_xattr_replace, &x, 200);
		px.get_us[i] = measure(op_xattr_get, &x, 200);
		x.list_size = flistxattr(x.pidfd, NULL, 0);
		if (x.list_size < 0)
			fail("flistxattr");
		px.list_us[i] = measure(op_xattr_list, &x, 100);
		xattr_clear(x.pidfd, px.n[i]);
	}

	/* Fork: none held, then n[2]. */
	px.fork_us[0] = measure(op_fork, NULL, op_n[OP_FORK]);
	if (xattr_fill(x.pidfd, 0, px.n[2]) != px.n[2])
		fail("fsetxattr");
	px.fork_us[1] = measure(op_fork, NULL, op_n[OP_FORK]);

	/* Semantics: a child inherits none; who may set and read them. */
	fd = park_children(1, &child);
	i = syscall(SYS_pidfd_open, child, 0);
	if (i < 0)
		fail("pidfd_open child");
	xattr_name(name, sizeof(name), 0);
	px.child_err = fgetxattr(i, name, value, sizeof(value)) < 0 ? errno : 0;
	px.child_list = flistxattr(i, xattr_names, sizeof(xattr_names));
	close(i);
	release_children(fd, 1, &child);
	xattr_stranger(false, x.pidfd, px.nobody_err);
	xattr_stranger(true, x.pidfd, px.userns_err);
	xattr_clear(x.pidfd, px.n[2]);

	/* Memory: Slab before and with XATTR_MEM_N (coarse). */
	kb = slab_kb();
	i = xattr_fill(x.pidfd, 0, XATTR_MEM_N);
	px.mem_kb = i == XATTR_MEM_N ? slab_kb() - kb : -1;
	xattr_clear(x.pidfd, i);
	close(x.pidfd);
}

static const char *errno_name(int e)
{
	const char *s = e > 0 ? strerrorname_np(e) : NULL;

	return !e ? "none" : s ? s : "?";
}

static void report_pidfs_xattrs(void)
{
	int i;

	if (px.err == EOPNOTSUPP) {
		printf("pidfs xattrs: not supported by this kernel (%s)\n\n",
		       errno_name(px.err));
		return;
	}
	if (px.err) {
		printf("pidfs xattrs: the probe failed (%s)\n\n",
		       errno_name(px.err));
		return;
	}
	if (px.max_err)
		printf("pidfs xattrs: the kernel refused attribute %d (%s): measured up to %d\n",
		       px.n[2] + 1, errno_name(px.max_err), px.n[2]);
	printf("pidfs xattrs (trusted.bench.NNNN, 32-byte values, on our own pidfd), create all from none:");
	for (i = 0; i < 3; i++)
		printf("%s %d: %.2f us (%.2f us per fsetxattr)", i ? "," : "",
		       px.n[i], px.create_us[i], px.create_us[i] / px.n[i]);
	printf("\npidfs xattrs, remove all:");
	for (i = 0; i < 3; i++)
		printf("%s %d: %.2f us (%.2f us per fremovexattr)", i ? "," : "",
		       px.n[i], px.remove_us[i], px.remove_us[i] / px.n[i]);
	printf("\npidfs xattrs, fsetxattr replacing one value: %d set %.2f us, %d set %.2f us, %d set %.2f us\n",
	       px.n[0], px.replace_us[0], px.n[1], px.replace_us[1],
	       px.n[2], px.replace_us[2]);
	printf("pidfs xattrs, fgetxattr of one:              %d set %.2f us, %d set %.2f us, %d set %.2f us\n",
	       px.n[0], px.get_us[0], px.n[1], px.get_us[1], px.n[2],
	       px.get_us[2]);
	printf("pidfs xattrs, flistxattr of all (a buffer of their size): %d set %.2f us, %d set %.2f us, %d set %.2f us\n",
	       px.n[0], px.list_us[0], px.n[1], px.list_us[1], px.n[2],
	       px.list_us[2]);
	printf("pidfs xattrs, fork+exit+wait: none held %.2f us, %d held %.2f us (x%.4f)\n",
	       px.fork_us[0], px.n[2], px.fork_us[1],
	       px.fork_us[1] / px.fork_us[0]);
	if (px.mem_kb >= 0)
		printf("pidfs xattrs, memory: Slab grew by %ld kB with %d attributes (%.0f bytes each; /proc/meminfo, coarse)\n",
		       px.mem_kb, XATTR_MEM_N,
		       px.mem_kb * 1024.0 / XATTR_MEM_N);
	printf("pidfs xattrs, semantics: a child %s them (fgetxattr on its pidfd: %s, flistxattr: %ld bytes); uid 65534 setting one on its own pidfd: %s, reading the bench's: %s; root of a new user namespace setting its own: %s, reading the bench's: %s\n\n",
	       px.child_err == ENODATA && !px.child_list ?
	       "does not inherit" : "inherits",
	       errno_name(px.child_err), px.child_list,
	       errno_name(px.nobody_err[0]), errno_name(px.nobody_err[1]),
	       errno_name(px.userns_err[0]), errno_name(px.userns_err[1]));
}

static long median_long(long *v, int n)
{
	double d[8];
	int i;

	for (i = 0; i < n; i++)
		d[i] = v[i];
	return spread_of(d, n).med;
}

/*
 * Memory by memcg (issue 24): the bench moves into a cgroup v2 group of its
 * own with the memory controller (CG_BENCH), parks K children there (they
 * are charged to it: it forks them), and reads the group's memory.current
 * and memory.stat, /proc/meminfo's Slab and ptags's counter just before
 * them and with them (mem_with_children(), as the slab figure above).
 * Configurations: ptags untagged, 1 tag, 100 tags, 100 tags with a
 * directory watcher that never reads (its events queued), and the BPF
 * peer untagged, 1 tag, 100 tags.  Then the bench's own set of 1, 100 and
 * 1000 tags, a read snapshot held open and a listing held open.
 */
#define CG_ROUNDS	3
#define CG_KS		2
#define CG_CONFIGS	4
#define CG_FIELDS	5	/* current, cg_slab, cg_stack, Slab, counter */

static const int cg_k[CG_KS] = { 200, 1000 };
static const char *const cg_field_names[CG_FIELDS] = {
	"memory.current", "memcg slab", "memcg kernel_stack", "Slab",
	"ptags counter",
};

struct cg_table {
	const char *who;
	int nconfigs;
	const char *names[CG_CONFIGS];
	/* per child, with less before: each round's, then the median */
	double v[CG_KS][CG_CONFIGS][CG_FIELDS][CG_ROUNDS];
	double med[CG_KS][CG_CONFIGS][CG_FIELDS];
};

static struct {
	int err;		/* why there is no group, 0: there is */
	const char *failed;	/* the step that failed */
	struct cg_table ptags;
#ifdef PTAGS_BPF_PEER
	struct cg_table peer;
#endif
	long set_current[3], set_slab[3], set_counter[3];
	long snap_current, snap_len, list_current;
	char cache[256];	/* struct ptags_proc's slab cache */
} mc;

static int cg_setup(void)
{
	char pid[16];

	mc.failed = "mount cgroup2 at " CG_ROOT;
	if (access(CG_ROOT "/cgroup.controllers", F_OK) &&
	    mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL))
		return errno;
	mc.failed = "+memory in " CG_ROOT "/cgroup.subtree_control";
	errno = file_write(CG_ROOT "/cgroup.subtree_control", "+memory");
	if (errno)
		return errno;
	mc.failed = "mkdir " CG_BENCH;
	if (mkdir(CG_BENCH, 0755) && errno != EEXIST)
		return errno;
	mc.failed = CG_BENCH "/memory.current";
	if (access(CG_BENCH "/memory.current", F_OK))
		return errno;
	mc.failed = "move into " CG_BENCH;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	errno = file_write(CG_BENCH "/cgroup.procs", pid);
	return errno;
}

static void cg_leave(void)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (file_write(CG_ROOT "/cgroup.procs", pid))
		fail("move back to " CG_ROOT);
}

static int cg_watch = -1;

/* Configuration @t of ptags: untagged, 1 tag, 100, 100 watched. */
static void cg_tag_ptags(int t)
{
	if (cg_watch >= 0) {
		close(cg_watch);
		cg_watch = -1;
	}
	if (!t)
		tags_write("-\n", 2);
	else
		tag_self(t == 1 ? 1 : 100, false);
	if (t == 3)
		cg_watch = dir_watch();
}

#ifdef PTAGS_BPF_PEER
static void cg_tag_peer(int t)
{
	peer_tag_self(peer_pidfd, t == 0 ? 0 : t == 1 ? 1 : 100, false);
}
#endif

/* Rounds of every K and configuration, interleaved; medians. */
static void cg_measure(struct cg_table *tb, void (*tag)(int t))
{
	struct mem_reading b, w;
	double d[CG_FIELDS];
	int r, k, t, f;

	for (r = 0; r < CG_ROUNDS; r++)
		for (k = 0; k < CG_KS; k++)
			for (t = 0; t < tb->nconfigs; t++) {
				tag(t);
				mem_with_children(cg_k[k], &b, &w);
				d[0] = w.current - b.current;
				d[1] = w.cg_slab - b.cg_slab;
				d[2] = w.cg_stack - b.cg_stack;
				d[3] = (w.slab_kb - b.slab_kb) * 1024.0;
				d[4] = w.counter - b.counter;
				for (f = 0; f < CG_FIELDS; f++)
					tb->v[k][t][f][r] = d[f] / cg_k[k];
			}
	tag(0);
	for (k = 0; k < CG_KS; k++)
		for (t = 0; t < tb->nconfigs; t++)
			for (f = 0; f < CG_FIELDS; f++)
				tb->med[k][t][f] =
					spread_of(tb->v[k][t][f], CG_ROUNDS).med;
}

/* struct ptags_proc's cache: its sizes, and what SLUB merged it with. */
static void cg_cache(void)
{
	const char *d = "/sys/kernel/slab/ptags_proc";
	char path[96], alias[128];
	long v[4];
	int i;
	static const char *const f[] = {
		"object_size", "slab_size", "objs_per_slab", "aliases",
	};

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", d, f[i]);
		v[i] = file_long(path);
	}
	link_read(d, alias, sizeof(alias));
	snprintf(mc.cache, sizeof(mc.cache),
		 "object_size %ld, slab_size %ld, %ld per slab, %ld aliases (%s)",
		 v[0], v[1], v[2], v[3],
		 *alias ? alias : "a cache of its own");
}

static void memory_run(void)
{
	struct mem_reading b, w;
	static const int nset[] = { 1, 100, 1000 };
	long cur[CG_ROUNDS], slab[CG_ROUNDS], cnt[CG_ROUNDS];
	char buf[4096];
	int i, r, fd;

	mc.err = cg_setup();
	if (mc.err)
		return;
	module_load("/ptags.ko");
	cg_cache();
	mc.ptags = (struct cg_table){
		.who = "ptags", .nconfigs = 4,
		.names = { "untagged", "1 tag", "100 tags",
			   "100 tags, watched" },
	};
	cg_measure(&mc.ptags, cg_tag_ptags);

	/* The bench's own set, from untagged: medians of 3. */
	for (i = 0; i < 3; i++) {
		for (r = 0; r < CG_ROUNDS; r++) {
			tags_write("-\n", 2);
			usleep(200000);
			mem_read(&b);
			tag_self(nset[i], false);
			usleep(200000);
			mem_read(&w);
			cur[r] = w.current - b.current;
			slab[r] = w.cg_slab - b.cg_slab;
			cnt[r] = w.counter - b.counter;
		}
		mc.set_current[i] = median_long(cur, CG_ROUNDS);
		mc.set_slab[i] = median_long(slab, CG_ROUNDS);
		mc.set_counter[i] = median_long(cnt, CG_ROUNDS);
	}

	/* A read of the 1000-tag entry, its snapshot held by the open file. */
	fd = open("/proc/ptags/self", O_RDONLY);
	if (fd < 0)
		fail("open self");
	usleep(200000);
	mem_read(&b);
	mc.snap_len = pread(fd, readbuf, sizeof(readbuf), 0);
	mem_read(&w);
	mc.snap_current = w.current - b.current;
	close(fd);

	/* A listing of 1000 tagged children, started and held open. */
	tag_self(1, false);
	i = park_children(1000, mem_pids);
	fd = open("/proc/ptags", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		fail("open /proc/ptags");
	usleep(200000);
	mem_read(&b);
	if (syscall(SYS_getdents64, fd, buf, sizeof(buf)) < 0)
		fail("getdents64");
	mem_read(&w);
	mc.list_current = w.current - b.current;
	close(fd);
	release_children(i, 1000, mem_pids);
	tags_write("-\n", 2);
	module_unload("ptags", true);

#ifdef PTAGS_BPF_PEER
	if (bpf_peer_spawn())
		fail("bpf_peer_spawn");
	peer_pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	if (peer_pidfd < 0)
		fail("pidfd_open");
	mc.peer = (struct cg_table){
		.who = "bpf peer", .nconfigs = 3,
		.names = { "untagged", "1 tag", "100 tags" },
	};
	cg_measure(&mc.peer, cg_tag_peer);
	peer_count();
	close(peer_pidfd);
	bpf_peer_unload();
#endif
	cg_leave();
}

/* What kmalloc() (SLUB, 4 KiB pages) makes of a request of @n bytes. */
static long kmalloc_size(long n)
{
	long s = 8;

	if (n <= 0)
		return 0;
	if (n > 8192) {
		for (s = 4096; s < n; s *= 2)
			;
		return s;
	}
	if (n > 64 && n <= 96)
		return 96;
	if (n > 128 && n <= 192)
		return 192;
	while (s < n)
		s *= 2;
	return s;
}

static void cg_table_report(const struct cg_table *tb)
{
	int k, t, f;

	for (k = 0; k < CG_KS; k++)
		for (t = 0; t < tb->nconfigs; t++) {
			printf("memcg, %s, %s, per child of %d parked:", tb->who,
			       tb->names[t], cg_k[k]);
			for (f = 0; f < CG_FIELDS; f++)
				printf("%s %s %.1f", f ? "," : "",
				       cg_field_names[f], tb->med[k][t][f]);
			printf(" bytes\n");
		}
	for (k = 0; k < CG_KS; k++)
		for (t = 1; t < tb->nconfigs; t++) {
			struct spread s;
			double v[CG_ROUNDS];
			int r;

			printf("memcg, %s, %s less untagged, per child of %d parked:",
			       tb->who, tb->names[t], cg_k[k]);
			for (f = 0; f < CG_FIELDS; f++) {
				for (r = 0; r < CG_ROUNDS; r++)
					v[r] = tb->v[k][t][f][r] -
					       tb->v[k][0][f][r];
				s = spread_of(v, CG_ROUNDS);
				printf("%s %s %.1f [%.1f, %.1f]", f ? "," : "",
				       cg_field_names[f],
				       tb->med[k][t][f] - tb->med[k][0][f],
				       s.lo, s.hi);
			}
			printf(" bytes\n");
		}
}

static void memory_report(void)
{
	static const int nset[] = { 1, 100, 1000 };
	int i;

	if (mc.err) {
		printf("memcg: no figures: %s: %s\n\n", mc.failed,
		       strerror(mc.err));
		return;
	}
	printf("# memcg: the bench in a cgroup v2 group of its own (" CG_BENCH ", +memory), K children parked there; each figure is the reading with them less the reading just before, per child, the median of %d rounds (the \"less untagged\" lines: round by round, median [lowest, highest])\n",
	       CG_ROUNDS);
	printf("# memcg: memory.current counts pages charged to the group (page granularity, and up to 64 pages per CPU charged ahead of use), including the children's own kernel stacks, task structs, page tables and pipe ends: per child it is mostly the child itself, so the figure that matters is tagged less untagged; memory.stat splits out slab and kernel_stack; Slab is /proc/meminfo's, the whole machine's, in kB; the ptags counter is /sys/module/ptags/stats/memory\n");
	printf("# memcg: an entry a fork takes comes from ptags's per-CPU reserve (module/table/table.c), whose refill is not charged to a memory cgroup; sets, snapshots and listings are allocated with GFP_KERNEL_ACCOUNT\n");
	printf("memcg: struct ptags_proc's slab cache: %s\n", mc.cache);
	cg_table_report(&mc.ptags);
	for (i = 0; i < 3; i++)
		printf("memcg, the bench's own set of %4d tags (32-byte values), from untagged, median of %d: memory.current %ld, memcg slab %ld, ptags counter %ld bytes (kmalloc of the counter less one %d-byte entry: %ld bytes)\n",
		       nset[i], CG_ROUNDS, mc.set_current[i], mc.set_slab[i],
		       mc.set_counter[i], PROC_ENTRY_BYTES,
		       kmalloc_size(mc.set_counter[i] - PROC_ENTRY_BYTES));
	printf("memcg, a read of a 1000-tag entry (%ld bytes) with its snapshot held by the open file: memory.current %ld bytes (kmalloc of the text: %ld)\n",
	       mc.snap_len, mc.snap_current, kmalloc_size(mc.snap_len));
	printf("memcg, a listing of /proc/ptags with 1000 tagged children, one getdents64 of 4 KiB, held open: memory.current %ld bytes\n",
	       mc.list_current);
#ifdef PTAGS_BPF_PEER
	cg_table_report(&mc.peer);
#endif
	printf("\n");
}

/*
 * BENCH_ONLY=smp: four vCPUs, multi-threaded TCG, no icount (guest-test.sh
 * BENCH_ONLY=smp): wall-clock times, on a host that may have fewer CPUs
 * than the guest (its count comes as pthostcpus= on the command line).
 * SMP_ROUNDS rounds; in each, base (ptags not loaded), then ptags loaded
 * with each configuration, then base again; a ratio is to the mean of the
 * two bases around it, as in main()'s table.  Measured, each the median of
 * 3 runs: a fork storm (SMP_CPUS threads of one process, each forking,
 * exiting and waiting STORM_N times: they share the process's set), a
 * shell loop (busybox sh running this program, which exits at once, EXEC_N
 * times) and make -j4's shape (SMP_CPUS such shells at once; no make: the
 * guest has none), all in a child of the bench; and writers.
 * ptags is loaded and unloaded only while the bench runs alone (see
 * guest-test.sh on multi-threaded TCG and code patching).
 */
#define SMP_CPUS	4
#define SMP_ROUNDS	5
#define STORM_N		100
#define EXEC_N		25
#define WRITES_N	200	/* "+wN", "-wN" pairs per writer */
#define LEVEL_DIR	"/lvl1"

enum { SM_STORM, SM_SHELL, SM_MAKE, NR_SM };
static const char *const sm_names[NR_SM] = {
	"fork storm, 4 threads of one process",
	"shell loop, busybox sh, per exec",
	"make -j4's shape, 4 shell loops at once",
};

static void *storm_thread(void *arg)
{
	int i;

	for (i = 0; i < STORM_N; i++)
		op_fork(arg);
	return NULL;
}

/* Wall time per fork of the storm. */
static double fork_storm(void)
{
	pthread_t t[SMP_CPUS];
	double t0 = now_us();
	int i;

	for (i = 0; i < SMP_CPUS; i++)
		if (pthread_create(&t[i], NULL, storm_thread, NULL))
			fail("pthread_create");
	for (i = 0; i < SMP_CPUS; i++)
		pthread_join(t[i], NULL);
	return (now_us() - t0) / (SMP_CPUS * STORM_N);
}

/*
 * Wall time per exec of a shell loop: busybox's sh (Debian's
 * busybox-static, the guest's /bin/sh) running this program EXEC_N times,
 * one after the other; the shell's own exec is counted in.
 */
static double exec_loop(void)
{
	char cmd[160], *argv[] = { "/bin/sh", "-c", cmd, NULL };
	int status;
	double t0;
	pid_t pid;

	snprintf(cmd, sizeof(cmd),
		 "i=0; while [ $i -lt %d ]; do %s --noop || exit 1; i=$((i + 1)); done",
		 EXEC_N, BENCH_PATH);
	t0 = now_us();
	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		errno = 0;
		fail("the shell loop");
	}
	return (now_us() - t0) / EXEC_N;
}

/*
 * @n processes started at once, each returning @fn(@i, @arg): the wall
 * time from their start to the last result; *@mean, their results' mean.
 */
static double gang(int n, double (*fn)(int i, void *arg), void *arg,
		   double *mean)
{
	int go[2], res[2], i;
	pid_t pids[SMP_CPUS];
	double t0, v, sum = 0;
	char c;

	if (n > SMP_CPUS || pipe(go) || pipe(res))
		fail("gang");
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			fail("fork");
		if (!pids[i]) {
			close(go[1]);
			close(res[0]);
			if (read(go[0], &c, 1) < 0)
				_exit(1);
			v = fn(i, arg);
			_exit(write(res[1], &v, sizeof(v)) != sizeof(v));
		}
	}
	close(go[0]);
	close(res[1]);
	t0 = now_us();
	close(go[1]);
	for (i = 0; i < n; i++) {
		if (read(res[0], &v, sizeof(v)) != sizeof(v))
			fail("a gang member failed");
		sum += v;
	}
	t0 = now_us() - t0;
	close(res[0]);
	for (i = 0; i < n; i++)
		reap(pids[i]);
	if (mean)
		*mean = sum / n;
	return t0;
}

static double exec_worker(int i, void *arg)
{
	return exec_loop();
}

static double make_j4(void)
{
	return gang(SMP_CPUS, exec_worker, NULL, NULL) / (SMP_CPUS * EXEC_N);
}

static double median3(double (*fn)(void))
{
	double v[3];
	int i;

	for (i = 0; i < 3; i++)
		v[i] = fn();
	return spread_of(v, 3).med;
}

struct smp_run {
	int level;		/* 1: tagged at a level of its own */
	int tags;		/* at that level; 0: as the bench is */
	bool keep, watch;
};

/* A user and mount namespace, ptags mounted level=own, @n tags there. */
static void level_own(int n, bool keep)
{
	int fd;
	size_t len;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) ||
	    file_write("/proc/self/setgroups", "deny") ||
	    file_write("/proc/self/uid_map", "0 0 1") ||
	    file_write("/proc/self/gid_map", "0 0 1") ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", LEVEL_DIR, "tmpfs", 0, NULL) ||
	    mkdir(LEVEL_DIR "/p", 0755) ||
	    mount("ptags", LEVEL_DIR "/p", "ptags", 0, "level=own"))
		fail("a user namespace with ptags mounted level=own");
	len = tag_text(n, keep);
	fd = open(LEVEL_DIR "/p/self", O_WRONLY);
	if (fd < 0 || write(fd, tagtext, len) != (ssize_t)len)
		fail("tag ourselves at level 1");
	close(fd);
}

static void smp_runner(void *arg, void *res)
{
	const struct smp_run *sr = arg;
	double *v = res;
	int in = -1;

	if (sr->level)
		level_own(sr->tags, sr->keep);
	if (sr->watch)
		in = dir_watch();
	v[SM_STORM] = median3(fork_storm);
	v[SM_SHELL] = median3(exec_loop);
	v[SM_MAKE] = median3(make_j4);
	if (in >= 0)
		close(in);
}

#define SMP_CONFIGS	8

static struct smp_config {
	char name[48];
	double us[SMP_ROUNDS][NR_SM];
	double base[SMP_ROUNDS][NR_SM];
} smp_configs[SMP_CONFIGS];
static int smp_nconfigs, smp_npending;
static double smp_base_before[NR_SM];
static double smp_bases[SMP_ROUNDS + 1][NR_SM];
static int smp_nbases;

static void smp_measure(const struct smp_run *sr, double *v)
{
	if (!in_child(smp_runner, (void *)sr, v, NR_SM * sizeof(*v))) {
		errno = 0;
		fail("a measurement of the smp bench");
	}
}

static void smp_config(const char *name, const struct smp_run *sr)
{
	struct smp_config *c = NULL;
	int i;

	for (i = 0; i < smp_nconfigs; i++)
		if (!strcmp(smp_configs[i].name, name))
			c = &smp_configs[i];
	if (!c) {
		if (smp_nconfigs == SMP_CONFIGS) {
			errno = 0;
			fail("too many smp configurations");
		}
		c = &smp_configs[smp_nconfigs++];
		snprintf(c->name, sizeof(c->name), "%s", name);
	}
	smp_measure(sr, c->us[round_no]);
	smp_npending++;
	printf("# smp round %d: measured %s\n", round_no + 1, name);
}

static void smp_base(void)
{
	static const struct smp_run none;
	double b[NR_SM];
	int i, m;

	smp_measure(&none, b);
	/* The configurations measured since the last base: the last ones. */
	for (i = smp_nconfigs - smp_npending; i < smp_nconfigs; i++)
		for (m = 0; m < NR_SM; m++)
			smp_configs[i].base[round_no][m] =
				(smp_base_before[m] + b[m]) / 2;
	smp_npending = 0;
	memcpy(smp_base_before, b, sizeof(b));
	memcpy(smp_bases[smp_nbases++], b, sizeof(b));
}

/* Writers: per-write time, each round; [0] 1 own, [1] 4 own, [2] 1 to a shared target, [3] 4 to it. */
static double smp_writes[4][SMP_ROUNDS];

struct wr_target {
	char path[32];
};

static double writer(int i, void *arg)
{
	const struct wr_target *t = arg;
	char add[16], del[16];
	int fd, j, la, ld;
	double t0;

	la = snprintf(add, sizeof(add), "+w%d\n", i);
	ld = snprintf(del, sizeof(del), "-w%d\n", i);
	fd = open(t->path, O_WRONLY);
	if (fd < 0)
		fail(t->path);
	t0 = now_us();
	for (j = 0; j < WRITES_N; j++)
		if (write(fd, add, la) != la || write(fd, del, ld) != ld)
			fail("a writer's write");
	t0 = now_us() - t0;
	close(fd);
	return t0 / (2 * WRITES_N);
}

static void smp_writers(void)
{
	struct wr_target own = { .path = "/proc/ptags/self" }, shared;
	double mean;
	pid_t target;
	int fd, k;

	fd = park_children(1, &target);
	snprintf(shared.path, sizeof(shared.path), "/proc/ptags/%d",
		 (int)target);
	for (k = 0; k < 4; k++) {
		gang(k % 2 ? SMP_CPUS : 1, writer, k < 2 ? &own : &shared,
		     &mean);
		smp_writes[k][round_no] = mean;
	}
	release_children(fd, 1, &target);
}

static struct spread smp_ratio(const struct smp_config *c, int m)
{
	double v[SMP_ROUNDS];
	int r;

	for (r = 0; r < SMP_ROUNDS; r++)
		v[r] = c->us[r][m] / c->base[r][m];
	return spread_of(v, SMP_ROUNDS);
}

static int smp_main(void)
{
	/* Level 0: the runner has the bench's tags. */
	static const struct smp_run level0, watched = { .watch = true },
		level1 = { .level = 1, .tags = 100, .keep = true };
	char cmd[4096], *p;
	long host = -1;
	double v[SMP_ROUNDS], w[SMP_ROUNDS];
	struct spread s, b;
	int i, m, r;

	if (file_read("/proc/cmdline", cmd, sizeof(cmd)) > 0 &&
	    (p = strstr(cmd, "pthostcpus=")))
		host = strtol(p + 11, NULL, 10);
	printf("# smp: %ld vCPUs, multi-threaded TCG without icount, on a host with %ld CPUs%s: every time here is wall clock, shared with whatever else the host runs, so noisy; %d rounds, base before and after each round's configurations\n",
	       sysconf(_SC_NPROCESSORS_ONLN), host,
	       host >= 0 && host < SMP_CPUS ? " (fewer than the vCPUs)" : "",
	       SMP_ROUNDS);
	printf("# smp: the shell loop is busybox's sh (the guest's /bin/sh) running this program, which exits at once, %d times; make -j4's shape is %d such shells at once (the guest has no make); the shell's exec prunes unkept tags, so with \"100 tags\" the programs it runs are untagged\n",
	       EXEC_N, SMP_CPUS);
	if (mkdir(LEVEL_DIR, 0755) && errno != EEXIST)
		fail("mkdir " LEVEL_DIR);
	memset(tagtext, 1, sizeof(tagtext));
	/* Warm up, as main() does. */
	for (i = 0; i < 2; i++) {
		static const struct smp_run none;

		smp_measure(&none, v);
	}
	round_no = 0;
	smp_base();
	for (round_no = 0; round_no < SMP_ROUNDS; round_no++) {
		module_load("/ptags.ko");
		smp_config("ptags, untagged", &level0);
		tag_self(1, true);
		smp_config("ptags, 1 tag kept", &level0);
		tag_self(100, false);
		smp_config("ptags, 100 tags", &level0);
		smp_writers();
		tag_self(100, true);
		smp_config("ptags, 100 tags kept", &level0);
		tag_self(100, true);
		smp_config("ptags, 100 tags kept, watched", &watched);
		tags_write("-\n", 2);
		smp_config("ptags, level 1: 100 tags kept", &level1);
		module_unload("ptags", true);
		smp_base();
	}
	round_no = SMP_ROUNDS - 1;

	printf("\nsmp: %d rounds; per configuration and operation: the median wall time over the rounds, and its ratio to the base measured around it in each round, median [lowest, highest]\n",
	       SMP_ROUNDS);
	printf("%-30s", "configuration");
	for (m = 0; m < NR_SM; m++)
		printf(" | %-44s", sm_names[m]);
	printf("\n%-30s", "base");
	for (m = 0; m < NR_SM; m++) {
		{
			double all[SMP_ROUNDS + 1], rel[SMP_ROUNDS + 1];

			for (i = 0; i < smp_nbases; i++)
				all[i] = rel[i] = smp_bases[i][m];
			b = spread_of(all, smp_nbases);
			for (i = 0; i < smp_nbases; i++)
				rel[i] /= b.med;
			s = spread_of(rel, smp_nbases);
		}
		printf(" | %9.1f us x1 [%.4f, %.4f]", b.med, s.lo, s.hi);
		if (m == SM_STORM)
			printf(" %7.0f forks/s", 1e6 / b.med);
		else
			printf(" %7.0f execs/s", 1e6 / b.med);
	}
	printf(" (%d base runs: each / their median)\n", smp_nbases);
	for (i = 0; i < smp_nconfigs; i++) {
		const struct smp_config *c = &smp_configs[i];

		printf("%-30s", c->name);
		for (m = 0; m < NR_SM; m++) {
			for (r = 0; r < SMP_ROUNDS; r++)
				v[r] = c->us[r][m];
			b = spread_of(v, SMP_ROUNDS);
			s = smp_ratio(c, m);
			printf(" | %9.1f us x%.4f [%.4f, %.4f] %7.0f %s/s",
			       b.med, s.med, s.lo, s.hi, 1e6 / b.med,
			       m == SM_STORM ? "forks" : "execs");
		}
		printf("\n");
	}
	printf("\nsmp writers, per write (\"+wN\" and \"-wN\" in turn, each writer its own tag; the bench's 100 tags inherited), median over the rounds [lowest, highest]:\n");
	for (i = 0; i < 4; i++) {
		static const char *const what[] = {
			"1 process, to its own entry",
			"4 processes at once, each to its own entry",
			"1 process, to another process's entry",
			"4 processes at once, to that one entry",
		};

		memcpy(v, smp_writes[i], sizeof(v));
		s = spread_of(v, SMP_ROUNDS);
		printf("smp writers, %-44s %8.2f us [%.2f, %.2f]", what[i],
		       s.med, s.lo, s.hi);
		if (i % 2) {
			for (r = 0; r < SMP_ROUNDS; r++)
				w[r] = smp_writes[i][r] / smp_writes[i - 1][r];
			b = spread_of(w, SMP_ROUNDS);
			printf(", x%.4f [%.4f, %.4f] of 1 process alone",
			       b.med, b.lo, b.hi);
		}
		printf("\n");
	}
	printf("\n");
	for (i = 0; i < smp_nconfigs; i++) {
		const struct smp_config *c = &smp_configs[i];
		char what[80];

		if (strcmp(c->name, "ptags, 1 tag kept") &&
		    strcmp(c->name, "ptags, 100 tags"))
			continue;
		s = smp_ratio(c, SM_STORM);
		snprintf(what, sizeof(what),
			 "fork storm on 4 vCPUs, %s / base <= 1.02",
			 c->name + 7);
		target(s.hi <= 1.02, what, s.hi, 1.02);
	}
	printf("bench: done, %d target(s) missed\n", failures);
	return 0;
}

/* The read and write rows (main(); BENCH_ONLY=copy). */
struct rw_rows {
	double read_us[3], readpath_us, write1_us, write100_us;
	char self_path[32];
};

/*
 * On @fd, our own entry open for reading and writing: reads with 1, 100
 * and 1000 tags, then one-line and 100-line writes on a 100-tag set; *@w
 * is left as the 100-line writes left it.
 */
static void rw_measure(int fd, struct writes *w, struct rw_rows *rw)
{
	static char add[1 << 13], del[1 << 13];
	size_t la = 0, ld = 0;
	int i;

	for (i = 0; i < 3; i++) {
		tag_self(i == 0 ? 1 : i == 1 ? 100 : 1000, false);
		rw->read_us[i] = measure(op_read, &fd, 200);
		if (i)
			continue;
		snprintf(rw->self_path, sizeof(rw->self_path),
			 "/proc/ptags/%d", (int)getpid());
		rw->readpath_us = measure(op_read_path, rw->self_path, 200);
	}
	tag_self(100, false);
	w->fd = fd;
	w->next = 0;
	w->text[0] = "+bench:w\n";
	w->text[1] = "-bench:w\n";
	w->len[0] = w->len[1] = strlen(w->text[0]);
	rw->write1_us = measure(op_write, w, 400);
	for (i = 0; i < 100; i++) {
		la += snprintf(add + la, sizeof(add) - la, "+bench:x:%03d\n", i);
		ld += snprintf(del + ld, sizeof(del) - ld, "-bench:x:%03d\n", i);
	}
	w->text[0] = add;
	w->text[1] = del;
	w->len[0] = la;
	w->len[1] = ld;
	w->next = 0;
	rw->write100_us = measure(op_write, w, 100);
}

static void rw_report(const struct rw_rows *rw)
{
	printf("\nread /proc/ptags/PID:   1 tag %.2f us, 100 tags %.2f us, 1000 tags %.2f us\n",
	       rw->read_us[0], rw->read_us[1], rw->read_us[2]);
	printf("open, read, close /proc/ptags/PID of 1 tag: %.2f us\n",
	       rw->readpath_us);
	printf("write on a 100-tag set: 1 line %.2f us, 100 lines %.2f us\n",
	       rw->write1_us, rw->write100_us);
}

/*
 * BENCH_ONLY=copy: the rows bulk copies dominate under icount (the copy
 * probe, reads and writes, one write of a whole 1000-tag set, and the BPF
 * peer's writes and reads), for a
 * boot on a CPU model without ERMS and FSRM (guest-test.sh: -cpu
 * BENCH_COPY_CPU).  The CPU's flags as the guest sees them come first.
 */
static bool cpu_flag(const char *flags, const char *name)
{
	size_t n = strlen(name);
	const char *p = flags;

	while ((p = strstr(p, name))) {
		if (p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static void op_tag1000(void *arg)
{
	tags_write(tagtext, *(size_t *)arg);
}

static int copy_main(void)
{
	static char info[1 << 16];
	struct rw_rows rw;
	struct writes w;
	char *flags;
	double big_us;
	size_t len;
	int fd, i, op;

	memset(tagtext, 1, sizeof(tagtext));
	memset(readbuf, 1, sizeof(readbuf));
	if (file_read("/proc/cpuinfo", info, sizeof(info)) <= 0 ||
	    !(flags = strstr(info, "\nflags")))
		fail("/proc/cpuinfo");
	*strchrnul(flags + 1, '\n') = 0;
	printf("# copy: the copy-heavy rows only, under icount; the CPU as the guest sees it (/proc/cpuinfo): erms %s, fsrm %s, avx2 %s, avx512f %s\n",
	       cpu_flag(flags, "erms") ? "yes" : "no",
	       cpu_flag(flags, "fsrm") ? "yes" : "no",
	       cpu_flag(flags, "avx2") ? "yes" : "no",
	       cpu_flag(flags, "avx512f") ? "yes" : "no");
	/* Warm up, as main() does, but for fork and exec only. */
	for (i = 0; i < 3; i++)
		for (op = 0; op < 2; op++)
			measure(op_fns[op], NULL, op_n[op]);
	copy_probe_run();
	module_load("/ptags.ko");
	fd = open("/proc/ptags/self", O_RDWR);
	if (fd < 0)
		fail("open self");
	rw_measure(fd, &w, &rw);
	close(fd);
	len = tag_text(1000, false);
	big_us = measure(op_tag1000, &len, 20);
	tags_write("-\n", 2);
	module_unload("ptags", true);

	printf("icount and bulk copies: one 64 KiB copy by memcpy %.2f us, by rep movsb %.2f us, by rep movsq %.2f us\n",
	       copy_us[0], copy_us[1], copy_us[2]);
	rw_report(&rw);
	printf("write of a whole 1000-tag set (32-byte values), %zu bytes in one write, over the same set: %.2f us\n",
	       len, big_us);
#ifdef PTAGS_BPF_PEER
	{
		static const int n[] = { 1, 100, 1000 };
		int pidfd;

		/* The peer's write and read, whose 1000-tag read is a copy. */
		if (bpf_peer_spawn())
			fail("bpf_peer_spawn");
		pidfd = syscall(SYS_pidfd_open, getpid(), 0);
		if (pidfd < 0)
			fail("pidfd_open");
		for (i = 0; i < 3; i++) {
			peer_tag_self(pidfd, n[i], false);
			peer_write_us[i] = measure(op_peer_write, &pidfd, 200);
			peer_read_us[i] = measure(op_peer_read, &pidfd, 200);
		}
		peer_tag_self(pidfd, 0, false);
		close(pidfd);
		bpf_peer_unload();
		printf("bpf peer write by pidfd: 1 tag %.2f us, 100 tags %.2f us, 1000 tags %.2f us\n",
		       peer_write_us[0], peer_write_us[1], peer_write_us[2]);
		printf("bpf peer read by pidfd:  1 tag %.2f us, 100 tags %.2f us, 1000 tags %.2f us\n",
		       peer_read_us[0], peer_read_us[1], peer_read_us[2]);
	}
#endif
	printf("bench: done (BENCH_ONLY=copy: the copy probe, reads and writes only)\n");
	return 0;
}

static int mem_main(void)
{
	memset(tagtext, 1, sizeof(tagtext));
	memset(readbuf, 1, sizeof(readbuf));
	memset(mem_pids, 1, sizeof(mem_pids));
	memory_run();
	memory_report();
	printf("bench: done (BENCH_ONLY=mem: memory by memcg only)\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const int ntags[] = { 1, 10, 100, 1000 };
	static const int nfork[] = { 1, 100, 1000 };
	static const int nlist[] = { 10, 1000, 10000 };
	static pid_t pids[10000];
	double read_us[3], write1_us, list_us[3], write1r_us;
	double write1_seen_us, readpath_us = 0, relist_us = 0, scope_us[2];
	struct rw_rows rw;
	double worst_no1, worst_noN, worst_r1, worst_r2, worst_rN, worst_g1, worst_gN;
	double worst_noM, worst_rM, worst_gM;
	pid_t worst;
	int worst_fd;
	long mem_set[4], bytes_set[4], mem0, mem_parent, mem_children;
	double bmed[NR_OPS], slab_child, slab_noise;
	const struct config *c;
	struct spread r;
	char name[40];
	struct writes w;
	const char *smoke, *only;
	int i, k, fd, op;

	if (argc > 1 && !strcmp(argv[1], "--noop"))
		return 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	only = getenv("BENCH_ONLY");
	if (only && !strcmp(only, "smp"))
		return smp_main();
	if (only && !strcmp(only, "copy"))
		return copy_main();
	if (only && !strcmp(only, "mem"))
		return mem_main();
	if (only && *only) {
		printf("bench: BENCH_ONLY=%s: not smp, copy or mem\n", only);
		return 1;
	}
	smoke = getenv("BENCH_SMOKE_ONLY");
	if (smoke && *smoke && strcmp(smoke, "0")) {
#ifdef PTAGS_BPF_PEER
		return peer_smoke_only();
#else
		printf("bench: BENCH_SMOKE_ONLY, but built without the BPF peer: nothing to run\n");
		return 0;
#endif
	}

	/*
	 * Touch every buffer now: a fork's cost grows with the parent's
	 * resident memory, which must not differ between configurations.
	 */
	memset(tagtext, 1, sizeof(tagtext));
	memset(readbuf, 1, sizeof(readbuf));
	memset(mem_pids, 1, sizeof(mem_pids));

	/*
	 * A freshly booted guest's fork cost climbs for the first few thousand
	 * forks, then stays flat (seen: 265 us, then 362 us, whether or not a
	 * module was loaded).  Warm up past that; "base, end" shows the drift.
	 */
	for (i = 0; i < 3; i++)
		for (op = 0; op < NR_OPS; op++)
			measure(op_fns[op], NULL, op_n[op]);
#ifdef PTAGS_BPF_PEER
	/*
	 * The peer's writer state (its free set indexes, 64 kB) becomes resident
	 * at its first load and stays: load it once before the first base,
	 * or round 1's bases would be measured with a smaller process.
	 */
	if (bpf_peer_spawn())
		fail("bpf_peer_spawn");
	bpf_peer_unload();
#endif

	/* Configurations of the hooks, interleaved (see run_config()). */
#ifdef PTAGS_BPF_PEER
	peer_smoke();
#endif
	run_base();
	for (round_no = 0; round_no < ROUNDS; round_no++) {
		module_load("/ptags_floor.ko");
		run_config("ptags floor");
		module_unload("ptags", true);
		run_base();
		module_load("/kprobe_floor.ko");
		run_config("kprobe floor");
		module_unload("kprobe_floor", false);
		run_base();
		module_load("/ptags.ko");
		run_config("ptags, untagged");
		for (i = 0; i < 3; i++) {
			for (k = 0; k < 2; k++) {
				tag_self(nfork[i], k);
				snprintf(name, sizeof(name), "ptags, %d tags%s",
					 nfork[i], k ? " kept" : "");
				run_config(name);
			}
		}
		/* The same forks with a directory watcher that never reads. */
		tag_self(100, false);
		fd = dir_watch();
		run_config("ptags, 100 tags, watched");
		close(fd);
		module_unload("ptags", true);
		run_base();
#ifdef PTAGS_BPF_PEER
		bench_bpf_peer();
		run_base();
#endif
	}
	round_no = ROUNDS - 1;
	module_load("/ptags.ko");

	/* Reading and writing. */
	fd = open("/proc/ptags/self", O_RDWR);
	if (fd < 0)
		fail("open self");
	rw_measure(fd, &w, &rw);
	memcpy(read_us, rw.read_us, sizeof(read_us));
	readpath_us = rw.readpath_us;
	write1_us = rw.write1_us;
	/* One change with one watcher: the write, and until it has the event. */
	{
		struct watched_writes ww = { .w = w };

		ww.w.text[0] = "+bench:w\n";
		ww.w.text[1] = "-bench:w\n";
		ww.w.len[0] = ww.w.len[1] = strlen(ww.w.text[0]);
		/* Start without bench:w, so that every write changes the set. */
		if (write(ww.w.fd, "-bench:w\n", 9) < 0)
			fail("remove bench:w");
		ww.w.next = 0;
		ww.in = dir_watch();
		write1_seen_us = measure(op_write_seen, &ww, 400);
		close(ww.in);
	}
	if (mkdir(WATCH_SCOPE_DIR, 0755) ||
	    !in_child(watch_scope_run, NULL, scope_us, sizeof(scope_us)))
		fail("watch worst case");
	close(fd);
	/*
	 * The same line by an unprivileged writer whose rights come from
	 * tags (the child inherits the 100 tags and takes the two rights).
	 */
	w.text[0] = "+bench:w\n";
	w.text[1] = "-bench:w\n";
	w.len[0] = w.len[1] = strlen(w.text[0]);
	w.next = 0;
	write1r_us = as_nobody("+ptags:bench:add\n+ptags:bench:sub\n",
			       write_median, &w);

	/* SPEC §3.4 worst case: max_tags names of 1000 bytes, 498 colons. */
	worst_buf = malloc(WORST_MAX_WRITE);
	if (!worst_buf)
		fail("malloc");
	tags_write("-\n", 2);
	worst = worst_target(4000, &worst_fd);
	worst_no1 = worst_write(worst, "", "-\n", 1);
	worst_noN = worst_write(worst, "", "-\n", 10001);
	/* And a whole max_write of each: measured, not extrapolated. */
	worst_noM = worst_write(worst, "", "-\n", WORST_MAX_WRITE / 2);
	worst_r1 = worst_write(worst, "+ptags:app:add\n+ptags:app:others\n",
			       "+@\n", 1);
	worst_r2 = worst_write(worst, "+ptags:app:add\n+ptags:app:others\n",
			       "+@\n", 2);
	worst_rN = worst_write(worst, "+ptags:app:add\n+ptags:app:others\n",
			       "+@\n", 101);
	worst_rM = worst_write(worst, "+ptags:app:add\n+ptags:app:others\n",
			       "+@\n", WORST_MAX_WRITE / 3);
	/* Every tag kept first, so that "+@" lines look at all, change none. */
	{
		char path[64];

		snprintf(path, sizeof(path), "/proc/ptags/%d", (int)worst);
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, "+@\n", 3) != 3)
			fail("keep the worst target's tags");
		close(fd);
	}
	worst_g1 = worst_write(worst, "+ptags:add\n+ptags:others\n", "+@\n", 1);
	worst_gN = worst_write(worst, "+ptags:add\n+ptags:others\n", "+@\n", 101);
	worst_gM = worst_write(worst, "+ptags:add\n+ptags:others\n", "+@\n",
			       WORST_MAX_WRITE / 3);
	release_children(worst_fd, 1, &worst);
	free(worst_buf);

	/*
	 * Listing with k tagged processes; with 10, also again and again on
	 * one open descriptor, as a read of an entry is measured above.
	 */
	tag_self(1, false);
	for (i = 0; i < 3; i++) {
		fd = park_children(nlist[i], pids);
		list_us[i] = measure(op_list, NULL, i == 2 ? 3 : 20);
		if (!i) {
			k = open("/proc/ptags", O_RDONLY | O_DIRECTORY);
			if (k < 0)
				fail("open /proc/ptags");
			relist_us = measure(op_relist, &k, 200);
			close(k);
		}
		release_children(fd, nlist[i], pids);
	}

	/* Memory: one set of n tags; 10000 children sharing a 100-tag set. */
	tags_write("-\n", 2);
	mem0 = stat_read("memory");
	for (i = 0; i < 4; i++) {
		tag_self(ntags[i], false);
		mem_set[i] = stat_read("memory") - mem0;
		bytes_set[i] = stat_read("bytes");
	}
	tag_self(100, false);
	mem_parent = stat_read("memory") - mem0;
	fd = park_children(10000, pids);
	mem_children = stat_read("memory") - mem0 - mem_parent;
	release_children(fd, 10000, pids);
	tags_write("-\n", 2);
	slab_child = slab_per_child(tag_ptags);
	module_unload("ptags", true);
	slab_noise = slab_per_child(tag_nothing);
	copy_probe_run();
	bench_pidfs_xattrs();
	memory_run();

	/* Report. */
	for (op = 0; op < NR_OPS; op++) {
		double v[MAX_BASES];

		for (i = 0; i < nbases; i++)
			v[i] = bases[i][op];
		bmed[op] = spread_of(v, nbases).med;
	}
	printf("\n%d rounds; per configuration and operation: the median time over the rounds, and its ratio to the base measured around it in each round, median [lowest, highest]\n",
	       ROUNDS);
	printf("%-26s", "configuration");
	for (op = 0; op < NR_OPS; op++)
		printf(" | %-34s", op_names[op]);
	printf("\n%-26s", "base");
	for (op = 0; op < NR_OPS; op++) {
		struct spread b = base_spread(op);

		printf(" | %9.2f us x1 [%.4f, %.4f]  ", bmed[op], b.lo, b.hi);
	}
	printf(" (%d base runs: each / their median)\n", nbases);
	for (i = 0; i < nconfigs; i++) {
		c = &configs[i];
		printf("%-26s", c->name);
		for (op = 0; op < NR_OPS; op++) {
			struct spread t = time_of(c, op), r = ratio_of(c, op);

			printf(" | %9.2f us x%.4f [%.4f, %.4f]", t.med, r.med,
			       r.lo, r.hi);
		}
		printf("\n");
	}
	rw_report(&rw);
	printf("one-line write on a 100-tag set by a writer with rights (ptags:bench:add/sub): %.2f us\n",
	       write1r_us);
	printf("one-line write on a 100-tag set with a directory watcher, until it has read the event: %.2f us (%.2f us more than the write alone)\n",
	       write1_seen_us, write1_seen_us - write1_us);
	printf("watch worst case: a one-line write at one's own level with %d watched instances of it (the most a level and pid namespace may have), until all %d events are read: %.2f us; with 1 watched instance: %.2f us (%.2f us per further instance; a process is in at most 33 pid namespaces)\n",
	       WATCH_SCOPE_MAX, WATCH_SCOPE_MAX, scope_us[0], scope_us[1],
	       (scope_us[0] - scope_us[1]) / (WATCH_SCOPE_MAX - 1));
	printf("worst-case write, no right, \"-\" lines over 4000 names of 1000 bytes: 1 line %.1f us, 10001 lines %.1f us (%.3f us per further line), 1 MiB (%d lines) %.1f ms\n",
	       worst_no1, worst_noN, (worst_noN - worst_no1) / 10000,
	       WORST_MAX_WRITE / 2, worst_noM / 1000);
	printf("worst-case write, ptags:app:add+others, \"+@\" lines over the same: 1 line %.1f us, 2 lines %.1f us, 101 lines %.1f us (%.3f us per further line), 1 MiB (%d lines) %.1f ms\n",
	       worst_r1, worst_r2, worst_rN, (worst_rN - worst_r1) / 100,
	       WORST_MAX_WRITE / 3, worst_rM / 1000);
	printf("worst-case write, ptags:add+others, \"+@\" lines over the same: 1 line %.1f us, 101 lines %.1f us (%.3f us per further line), 1 MiB (%d lines) %.1f ms\n",
	       worst_g1, worst_gN, (worst_gN - worst_g1) / 100,
	       WORST_MAX_WRITE / 3, worst_gM / 1000);
	printf("list /proc/ptags:       10 tagged %.1f us, 1000 tagged %.1f us, 10000 tagged %.1f us\n",
	       list_us[0], list_us[1], list_us[2]);
	printf("list /proc/ptags again on an open descriptor (lseek to 0, getdents64 to the end), 10 tagged: %.2f us (read of a 1-tag entry on an open descriptor: %.2f us)\n",
	       relist_us, read_us[0]);
	for (i = 0; i < 4; i++)
		printf("memory of a set of %4d tags (32-byte values): %ld bytes (%ld of names and values)\n",
		       ntags[i], mem_set[i], bytes_set[i]);
	printf("memory of 10000 children of a 100-tag parent: %ld bytes (parent's set %ld bytes; %.1f bytes per child)\n",
	       mem_children, mem_parent, mem_children / 10000.0);
#ifdef __x86_64__
	printf("icount and bulk copies: one 64 KiB copy by memcpy %.2f us, by rep movsb %.2f us, by rep movsq %.2f us\n",
	       copy_us[0], copy_us[1], copy_us[2]);
#endif
	printf("slab per child of a 100-tag parent, %d children (/proc/meminfo Slab, tagged less untagged, medians of 3): ptags %.1f bytes (its counter: %.1f); nothing loaded, the same measurement: %.1f bytes (the noise)\n\n",
	       MEM_CHILDREN, slab_child, mem_children / 10000.0, slab_noise);

#ifdef PTAGS_BPF_PEER
	printf("bpf peer: a handle of %zu bytes per process in task storage naming shared, reference-counted sets (tests/bench/bpf-peer/peer.h); a write builds the whole new set (and its kept subset) in the mapped arena, a read copies it out:\n",
	       sizeof(struct peer_handle));
	printf("bpf peer write by pidfd: 1 tag %.2f us, 100 tags %.2f us, 1000 tags %.2f us\n",
	       peer_write_us[0], peer_write_us[1], peer_write_us[2]);
	printf("bpf peer read by pidfd:  1 tag %.2f us, 100 tags %.2f us, 1000 tags %.2f us\n",
	       peer_read_us[0], peer_read_us[1], peer_read_us[2]);
	printf("bpf peer: slab per child of a 100-tag parent, measured as for ptags: %.1f bytes\n",
	       peer_slab_child);
	printf("bpf peer: loaded by a child process forked from the bench (its resident memory %ld kB, the pages it shares with the bench included); the bench's resident memory %ld kB before loading, %ld kB loaded, %ld kB unloaded; its mappings %ld, %ld, %ld\n",
	       peer_rss_kb[3], peer_rss_kb[0], peer_rss_kb[1], peer_rss_kb[2],
	       peer_maps[0], peer_maps[1], peer_maps[2]);
	peer_report_counts();
	printf("\n");
#endif

	report_pidfs_xattrs();
	/* Targets: the worst round must meet them (ratio_of()'s .hi). */
	c = find("ptags, untagged");
	r = ratio_of(c, OP_FORK);
	target(r.hi <= 1.005, "untagged fork+exit+wait / base <= 1.005", r.hi,
	       1.005);
	target(r.med <= base_spread(OP_FORK).hi,
	       "untagged fork+exit+wait / base, median within base's spread",
	       r.med, base_spread(OP_FORK).hi);
	r = ratio_to(c, find("ptags floor"), OP_FORK);
	target(r.hi <= 1.002, "untagged fork+exit+wait / floor <= 1.002", r.hi,
	       1.002);
	r = ratio_of(find("ptags, 1000 tags"), OP_FORK);
	target(r.hi <= 1.02, "1000 tags fork+exit+wait / base <= 1.02", r.hi,
	       1.02);
	r = ratio_of(find("ptags, 1000 tags kept"), OP_EXEC);
	target(r.hi <= 1.02, "1000 kept tags vfork+exec+wait / base <= 1.02",
	       r.hi, 1.02);
	r = ratio_of(find("ptags, 1000 tags"), OP_EXEC);
	target(r.hi <= 1.05, "1000 unkept tags vfork+exec+wait / base <= 1.05",
	       r.hi, 1.05);
	target(read_us[1] < bmed[OP_FORK],
	       "read of 100 tags / fork+exit+wait < 1",
	       read_us[1] / bmed[OP_FORK], 1);
	target(write1_us < bmed[OP_FORK],
	       "one-line write / fork+exit+wait < 1",
	       write1_us / bmed[OP_FORK], 1);
	/*
	 * Bookkeeping per child: one process entry (struct ptags_proc, 96
	 * bytes on x86-64); the set itself is shared, not copied.
	 */
	target(mem_children < 2 * mem_parent + 10000L * PROC_ENTRY_BYTES,
	       "10000 children: bytes / (2 x parent set + 96 B per child) < 1",
	       (double)mem_children / (2 * mem_parent + 10000L * PROC_ENTRY_BYTES), 1);
	target(slab_child <= 128, "slab per tagged child <= 128 bytes",
	       slab_child, 128);
	/*
	 * Issue 14: a listing costs what it lists, not the table's size.  Both
	 * sides as a reader does them: open, getdents or read, close.
	 */
	target(list_us[0] <= 2 * readpath_us,
	       "listing 10 tagged / open+read+close of a 1-tag entry <= 2",
	       list_us[0] / readpath_us, 2);
#ifdef PTAGS_BPF_PEER
	/* Against the peer, round by round. */
	r = ratio_to(find("ptags, untagged"), find("bpf peer, untagged"),
		     OP_FORK);
	target(r.hi <= 1.002, "untagged fork: ptags / bpf peer <= 1.002", r.hi,
	       1.002);
	/*
	 * Each round: ptags' extra over base at most half the peer's, and the
	 * peer's positive; the worst round's ratio printed (inf: a round
	 * where the peer cost nothing over base).
	 */
	for (i = 0; i < 2; i++) {
		const char *n = i ? "1000 tags" : "1 tags";
		char what[80];
		double worst;
		bool met;

		snprintf(name, sizeof(name), "ptags, %s", n);
		c = find(name);
		snprintf(name, sizeof(name), "bpf peer, %s", n);
		met = extra_within(c, find(name), OP_FORK, 0.5, &worst);
		snprintf(what, sizeof(what),
			 "%s fork, over base: ptags / bpf peer <= 0.5", n);
		target(met, what, worst, 0.5);
	}
#endif
	memory_report();
	printf("bench: done, %d target(s) missed\n", failures);
	return 0;
}
