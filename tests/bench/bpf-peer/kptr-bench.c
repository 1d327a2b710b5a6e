// SPDX-License-Identifier: GPL-2.0
/*
 * The kptr peer (kptr.h) in a guest, as root (never on a machine whose
 * kernel must not get BPF programs): its checks, then fork+exit+wait
 * timed with nothing loaded, the handle peer (peer.h) and the kptr peer
 * loaded, interleaved.  TAP on stdout.
 *
 *   kptr-bench             the checks and the timing (ROUNDS rounds)
 *   kptr-bench --check     the checks only (also when called kptr-check)
 *   kptr-bench --exec-wait W H
 *                          (internal) what a checked child execs: say
 *                          "x" on fd W, wait for EOF on fd H
 *
 * Run by scripts/guest-test.sh as a GUEST_BINS test, where PID 1 has
 * loaded ptags: its hooks are unloaded first (ptags' fork and exit hooks
 * would be in every figure) and loaded again at the end.  The figures
 * want the bench's clock (one vCPU, icount), which QEMU_EXTRA gives:
 *
 *   make -C tests/bench/bpf-peer BUILD=$PWD/build/bpf-peer kptr
 *   KVER=7.2.13+deb14-amd64 BUILD=$PWD/build/kptr-guest TESTS=kptr-bench \
 *     GUEST_BINS=$PWD/build/bpf-peer/kptr-bench TEST_TIMEOUT=2800 \
 *     QEMU_EXTRA="-icount shift=0 -smp 1" scripts/guest-test.sh
 *
 * The checks, for each of the two objects (the fork taking its reference
 * by exchange, kptr.bpf.o, or by a direct load, kptr-direct.bpf.o): a
 * write gives the records written; a forked child's storage names its
 * parent's two sets (the writer's serials) with their records, 3 and
 * MAX_TAGS tags (the most a set holds, kptr.h), kept or not, and one more
 * is refused; after an exec, the child's set is the kept set; a
 * thread gets nothing of its own; after 200 tagged forks and exits and a
 * last write of nothing, every set the writer made was freed
 * (counted by kptr_drop), no fork lost its copy, no acquire failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kptr.h"
#include "peer.h"
#include "kptr.skel.h"
#include "kptr-direct.skel.h"
#include "kptr-lsm.skel.h"

#define ROUNDS		5
#define MAX_TAGS	(KPTR_SET_BYTES / 56)	/* 72 of the bench's */
#define BIG_TAGS	1000	/* kptr-lsm.bpf.o holds 1377 */
#define SAMPLES		101	/* fork+exit+wait per configuration */

static int test_no, failures;
static const char *self = "/proc/self/exe";

static bool check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++test_no);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures += !ok;
	return ok;
}

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(2);
}

/* One loaded kptr peer, whichever object. */
struct kp {
	const char *name;
	void *skel;
	void (*destroy)(void *skel);
	int write_fd, read_fd;
	struct kptr_stage *stage;
	struct kptr_out *out;
	struct kptr_stats *st;
	__u64 *freed_prog;
	bool hook_sees_prog;	/* kptr_drop sees the programs' drops */
};

static void destroy_xchg(void *s) { kptr_bpf__destroy(s); }
static void destroy_direct(void *s) { kptr_direct_bpf__destroy(s); }
static void destroy_lsm(void *s) { kptr_lsm_bpf__destroy(s); }

enum variant { XCHG, DIRECT, LSM };
static const char *const variant_name[] = { "kptr xchg", "kptr direct", "kptr lsm" };

static char verifier_log[1 << 20];

/* Open, load (with the verifier's log on failure), attach. */
#define KP_LOAD(kp, type, label)						\
	do {									\
		struct type *s = type##__open();				\
		int e;								\
		if (!s)								\
			return -errno;						\
		bpf_program__set_log_buf(s->progs.kptr_write, verifier_log,	\
					 sizeof(verifier_log));			\
		e = type##__load(s);						\
		if (!e)								\
			e = type##__attach(s);					\
		if (e) {							\
			type##__destroy(s);					\
			return e;						\
		}								\
		(kp)->name = label;						\
		(kp)->skel = s;							\
		(kp)->write_fd = bpf_program__fd(s->progs.kptr_write);	\
		(kp)->read_fd = bpf_program__fd(s->progs.kptr_read);		\
		(kp)->stage = &s->bss->stage;					\
		(kp)->out = &s->bss->out;					\
		(kp)->st = &s->bss->stats;					\
		(kp)->freed_prog = &s->bss->sets_freed_prog;			\
	} while (0)

static int kp_load(struct kp *kp, enum variant v)
{
	memset(kp, 0, sizeof(*kp));
	if (v == LSM) {
		KP_LOAD(kp, kptr_lsm_bpf, "kptr lsm");
		kp->destroy = destroy_lsm;
	} else if (v == DIRECT) {
		KP_LOAD(kp, kptr_direct_bpf, "kptr direct");
		kp->destroy = destroy_direct;
	} else {
		KP_LOAD(kp, kptr_bpf, "kptr xchg");
		kp->destroy = destroy_xchg;
	}
	return 0;
}

static int kp_run(int fd, pid_t pid)
{
	struct kptr_args a = { .pid = pid };
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = &a, .ctx_size_in = sizeof(a));
	int err = bpf_prog_test_run_opts(fd, &o);

	return err ? -errno : a.ret;
}

/* Tag i: "bench:iiii" = 32 digits, as the bench's; kept when keep(i). */
static void recs(struct kptr_recs *r, int n, int first, bool (*keep)(int))
{
	unsigned char *p = (unsigned char *)r->w;
	int i;

	r->ntags = 0;
	r->len = 0;
	for (i = first; i < first + n; i++) {
		struct peer_rec h = { .name_len = 10, .value_len = 32,
				      .keep = keep ? keep(i) : 0 };
		char buf[48];

		if (keep && !keep(i))
			continue;
		memcpy(p + r->len, &h, sizeof(h));
		snprintf(buf, sizeof(buf), "bench:%04d%032d", i % 10000, i);
		memcpy(p + r->len + 8, buf, 42);
		memset(p + r->len + 50, 0, 6);
		r->len += 56;
		r->ntags++;
	}
}

static bool all(int i) { return true; }
static bool odd(int i) { return i & 1; }

/* Give @pid @n tags from @first, the kept ones of @keep (NULL: none). */
static int kp_write(struct kp *kp, pid_t pid, int n, int first, bool (*keep)(int))
{
	struct kptr_stage *s = kp->stage;

	recs(&s->set, n, first, NULL);
	s->kept_same = keep == all && n;
	if (keep && keep != all)
		recs(&s->kept, n, first, keep);
	else
		s->kept.ntags = s->kept.len = 0;
	return kp_run(kp->write_fd, pid);
}

static bool same_recs(const struct kptr_recs *a, const struct kptr_recs *b)
{
	return a->ntags == b->ntags && a->len == b->len &&
	       !memcmp(a->w, b->w, a->len);
}

static __u64 sets_freed(struct kp *kp)
{
	return kp->st->sets_freed + (kp->hook_sees_prog ? 0 : *kp->freed_prog);
}

/* A child that waits for EOF on a pipe; its pid, the write end in *@hold. */
static pid_t parked_child(int *hold)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(p[1]);
		while (read(p[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(p[0]);
	*hold = p[1];
	return pid;
}

static void reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
}

static void *thread_fn(void *arg)
{
	return arg;
}

static void check_peer(enum variant v)
{
	const int most = v == LSM ? BIG_TAGS : MAX_TAGS;
	static struct kptr_recs want_set, want_kept;
	__u64 set_id, kept_id, made;
	struct kp kp;
	pid_t me = getpid(), pid;
	int err, hold, i, p[2], h[2];
	char c;

	err = kp_load(&kp, v);
	if (!check(!err, "%s: loads and attaches (%d)", variant_name[v], err)) {
		size_t n = strlen(verifier_log);

		printf("# verifier log (kptr_write), its end:\n%s\n",
		       verifier_log + (n > 6000 ? n - 6000 : 0));
		return;
	}

	/* Does kptr_drop see a program's bpf_obj_drop()? */
	err = kp_write(&kp, me, 1, 0, NULL);
	err = err ?: kp_write(&kp, me, 0, 0, NULL);
	check(!err && *kp.freed_prog == 1 && kp.st->sets_made == 1,
	      "%s: a set made and dropped by the writer (%d; sets made %llu, last drops by programs %llu, seen by kptr_drop %llu)",
	      kp.name, err, (unsigned long long)kp.st->sets_made,
	      (unsigned long long)*kp.freed_prog, (unsigned long long)kp.st->sets_freed);
	kp.hook_sees_prog = kp.st->sets_freed == 1;
	printf("# %s: kptr_drop %s the programs' drops\n", kp.name,
	       kp.hook_sees_prog ? "sees" : "does not see");

	/* 3 tags, the odd one kept; read back. */
	err = kp_write(&kp, me, 3, 0, odd);
	recs(&want_set, 3, 0, NULL);
	recs(&want_kept, 3, 0, odd);
	err = err ?: kp_run(kp.read_fd, me);
	check(!err && kp.out->has_storage && same_recs(&kp.out->set, &want_set) &&
	      same_recs(&kp.out->kept, &want_kept) && !kp.out->same,
	      "%s: a write of 3 tags, 1 kept, reads back (%d; %u and %u tags)", kp.name,
	      err, kp.out->set.ntags, kp.out->kept.ntags);
	set_id = kp.out->set_id;
	kept_id = kp.out->kept_id;

	/* A child names both sets. */
	pid = parked_child(&hold);
	err = kp_run(kp.read_fd, pid);
	check(!err && kp.out->set_id == set_id && kp.out->kept_id == kept_id &&
	      same_recs(&kp.out->set, &want_set) && same_recs(&kp.out->kept, &want_kept),
	      "%s: a forked child names its parent's sets (%d; ids %llu %llu, want %llu %llu)",
	      kp.name, err, (unsigned long long)kp.out->set_id,
	      (unsigned long long)kp.out->kept_id, (unsigned long long)set_id,
	      (unsigned long long)kept_id);
	close(hold);
	reap(pid);

	/* After exec, the kept set. */
	if (pipe(p) || pipe(h))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		char w[16], hh[16];

		close(p[0]);
		close(h[1]);
		snprintf(w, sizeof(w), "%d", p[1]);
		snprintf(hh, sizeof(hh), "%d", h[0]);
		execl(self, "kptr-bench", "--exec-wait", w, hh, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	close(h[0]);
	if (read(p[0], &c, 1) != 1)
		die("exec'ed child");
	err = kp_run(kp.read_fd, pid);
	check(!err && kp.out->set_id == kept_id && kp.out->kept_id == kept_id &&
	      kp.out->same && same_recs(&kp.out->set, &want_kept),
	      "%s: after exec, the child's set is the kept set (%d; ids %llu %llu, want %llu)",
	      kp.name, err, (unsigned long long)kp.out->set_id,
	      (unsigned long long)kp.out->kept_id, (unsigned long long)kept_id);
	close(h[1]);
	close(p[0]);
	reap(pid);

	/* A thread: nothing of its own, the process keeps its sets. */
	{
		pthread_t t;

		if (pthread_create(&t, NULL, thread_fn, NULL) || pthread_join(t, NULL))
			die("pthread");
		err = kp_run(kp.read_fd, me);
		check(!err && kp.out->set_id == set_id, "%s: a thread leaves the sets alone",
		      kp.name);
	}

	/* One too many. */
	i = (v == LSM ? KPTR_BIG_BYTES : KPTR_SET_BYTES) / 56 + 1;
	err = kp_write(&kp, me, i, 0, NULL);
	check(err == -7, "%s: %d tags are refused (%d)", kp.name, i, err);

	/* The most, all kept: one set for both. */
	err = kp_write(&kp, me, most, 0, all);
	recs(&want_set, most, 0, NULL);
	err = err ?: kp_run(kp.read_fd, me);
	set_id = kp.out->set_id;
	check(!err && kp.out->same && same_recs(&kp.out->set, &want_set) &&
	      same_recs(&kp.out->kept, &want_set),
	      "%s: %d tags (%u bytes), all kept, read back (%d; %u tags)",
	      kp.name, most, want_set.len, err, kp.out->set.ntags);
	pid = parked_child(&hold);
	err = kp_run(kp.read_fd, pid);
	check(!err && kp.out->set_id == set_id && kp.out->same &&
	      same_recs(&kp.out->set, &want_set),
	      "%s: a child names the %d-tag set (%d)", kp.name, most, err);
	close(hold);
	reap(pid);

	/* A storm of tagged forks and exits, then nothing left. */
	err = kp_write(&kp, me, 50, 7, odd);
	for (i = 0; i < 200; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid)
			_exit(0);
		reap(pid);
	}
	err = err ?: kp_write(&kp, me, 0, 0, NULL);
	/* Task storage is freed in an RCU callback after the reap. */
	for (i = 0; i < 100; i++) {
		made = kp.st->sets_made;
		if (sets_freed(&kp) == made && kp.st->chunks_freed == kp.st->chunks_made)
			break;
		usleep(20000);
	}
	check(!err && sets_freed(&kp) == kp.st->sets_made &&
	      kp.st->chunks_freed == kp.st->chunks_made,
	      "%s: every set made was freed (%d; %llu of %llu: %llu by the task storage, %llu by the programs; chunks %llu of %llu)",
	      kp.name, err, (unsigned long long)sets_freed(&kp),
	      (unsigned long long)kp.st->sets_made,
	      (unsigned long long)kp.st->sets_freed,
	      (unsigned long long)*kp.freed_prog,
	      (unsigned long long)kp.st->chunks_freed,
	      (unsigned long long)kp.st->chunks_made);
	check(!kp.st->lost && !kp.st->noref && !kp.st->nomem,
	      "%s: no fork lost its copy, no acquire or allocation failed (lost %llu, noref %llu, nomem %llu; forks %llu, execs %llu, raced %llu)",
	      kp.name, (unsigned long long)kp.st->lost,
	      (unsigned long long)kp.st->noref, (unsigned long long)kp.st->nomem,
	      (unsigned long long)kp.st->forks, (unsigned long long)kp.st->execs,
	      (unsigned long long)kp.st->raced);
	kp.destroy(kp.skel);
}

/* ---- timing ---- */

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of SAMPLES fork+exit+wait, in µs. */
static double fork_median(void)
{
	static double t[SAMPLES];
	int i;

	for (i = 0; i < SAMPLES; i++) {
		double t0 = now_ns();
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid)
			_exit(0);
		reap(pid);
		t[i] = (now_ns() - t0) / 1000;
	}
	qsort(t, SAMPLES, sizeof(t[0]), cmp_double);
	return t[SAMPLES / 2];
}

/*
 * The kptr peer loaded by a helper child (so that this process's memory,
 * which a fork copies the page tables of, stays as it was), which gives
 * this process @n tags (none kept) and holds the programs until EOF.
 */
struct helper {
	pid_t pid;
	int hold;
};

static int helper_start(struct helper *hp, enum variant v, int n)
{
	int ready[2], hold[2];
	pid_t parent = getpid();
	char c = 0;

	if (pipe(ready) || pipe(hold))
		die("pipe");
	hp->pid = fork();
	if (hp->pid < 0)
		die("fork");
	if (!hp->pid) {
		struct kp kp;
		int err;

		close(ready[0]);
		close(hold[1]);
		err = kp_load(&kp, v);
		if (!err)
			err = kp_write(&kp, parent, n, 0, NULL);
		c = err ? 'E' : 'R';
		if (write(ready[1], &c, 1) != 1)
			_exit(3);
		if (err)
			_exit(4);
		while (read(hold[0], &c, 1) > 0)
			;
		err = kp_write(&kp, parent, 0, 0, NULL);
		usleep(50000);
		/* The timed forks went through the fork program. */
		if (kp.st->forks < SAMPLES)
			printf("# helper: %llu forks copied, fewer than the %d timed\n",
			       (unsigned long long)kp.st->forks, SAMPLES);
		if (err || kp.st->lost || kp.st->noref || kp.st->nomem ||
		    kp.st->forks < SAMPLES) {
			printf("# helper: err %d lost %llu noref %llu nomem %llu\n", err,
			       (unsigned long long)kp.st->lost,
			       (unsigned long long)kp.st->noref,
			       (unsigned long long)kp.st->nomem);
			_exit(5);
		}
		kp.destroy(kp.skel);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	hp->hold = hold[1];
	if (read(ready[0], &c, 1) != 1 || c != 'R') {
		close(ready[0]);
		return -1;
	}
	close(ready[0]);
	return 0;
}

static bool helper_stop(struct helper *hp)
{
	int status;

	close(hp->hold);
	if (waitpid(hp->pid, &status, 0) != hp->pid)
		die("waitpid helper");
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

enum config { BASE, HANDLE1, KPTR1, KPTRMAX, DIRECT1, DIRECTMAX, LSM1, LSMBIG, NCONFIGS };
static const char *const config_name[NCONFIGS] = {
	"base (nothing loaded)", "handle peer, 1 tag", "kptr peer (xchg), 1 tag",
	"kptr peer (xchg), 72 tags", "kptr peer (direct), 1 tag",
	"kptr peer (direct), 72 tags", "kptr peer (lsm), 1 tag",
	"kptr peer (lsm), 1000 tags",
};

static double run_config(enum config c, int pidfd, bool *ok)
{
	struct peer_tag tag = { .name = "bench:0000", .name_len = 10,
				.value = "00000000000000000000000000000000",
				.value_len = 32 };
	struct helper hp;
	double t = -1;

	switch (c) {
	case BASE:
		return fork_median();
	case HANDLE1:
		if (bpf_peer_spawn() || bpf_peer_write(pidfd, &tag, 1)) {
			*ok = false;
			return -1;
		}
		t = fork_median();
		if (bpf_peer_write(pidfd, NULL, 0))
			*ok = false;
		bpf_peer_unload();
		return t;
	default:
		if (helper_start(&hp, c >= LSM1 ? LSM : c >= DIRECT1 ? DIRECT : XCHG,
				 c == LSMBIG ? BIG_TAGS :
				 c == KPTRMAX || c == DIRECTMAX ? MAX_TAGS : 1)) {
			*ok = false;
			helper_stop(&hp);
			return -1;
		}
		t = fork_median();
		if (!helper_stop(&hp))
			*ok = false;
		return t;
	}
}

static void timing(void)
{
	static double base[ROUNDS][NCONFIGS], peer[ROUNDS][NCONFIGS];
	static const enum config order[] = { HANDLE1, KPTR1, KPTRMAX, DIRECT1, DIRECTMAX, LSM1, LSMBIG };
	const int norder = sizeof(order) / sizeof(order[0]);
	int pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	bool ok = true;
	int r, i;

	if (pidfd < 0)
		die("pidfd_open");
	/* Warm up: page cache, slab, the first load's BTF parse. */
	run_config(BASE, pidfd, &ok);
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < norder; i++) {
			base[r][order[i]] = run_config(BASE, pidfd, &ok);
			peer[r][order[i]] = run_config(order[i], pidfd, &ok);
			printf("# round %d: base %.2f us, %s %.2f us\n", r,
			       base[r][order[i]], config_name[order[i]], peer[r][order[i]]);
		}
	}
	check(ok, "every timed configuration loaded, wrote and unloaded cleanly");
	printf("# fork+exit+wait, median of %d per sample, %d rounds, A B A B;\n"
	       "# ratio to the base sample just before: median [min, max]\n", SAMPLES, ROUNDS);
	for (i = 0; i < norder; i++) {
		double q[ROUNDS], b[ROUNDS], p[ROUNDS];

		for (r = 0; r < ROUNDS; r++) {
			q[r] = peer[r][order[i]] / base[r][order[i]];
			b[r] = base[r][order[i]];
			p[r] = peer[r][order[i]];
		}
		qsort(q, ROUNDS, sizeof(q[0]), cmp_double);
		qsort(b, ROUNDS, sizeof(b[0]), cmp_double);
		qsort(p, ROUNDS, sizeof(p[0]), cmp_double);
		printf("# %-32s %8.2f us (base %8.2f us)  ratio %.3f [%.3f, %.3f]\n",
		       config_name[order[i]], p[ROUNDS / 2], b[ROUNDS / 2],
		       q[ROUNDS / 2], q[0], q[ROUNDS - 1]);
	}
	close(pidfd);
}

/* ptags' hooks would be in every figure: out while we run. */
static bool ptags_out(void)
{
	if (access("/sys/module/ptags", F_OK))
		return false;
	if (umount2("/proc/ptags", 0) && errno != EINVAL && errno != ENOENT)
		die("umount /proc/ptags");
	if (syscall(SYS_delete_module, "ptags", O_NONBLOCK))
		die("delete_module(ptags)");
	return true;
}

static void ptags_back(void)
{
	check(system("insmod /ptags.ko") == 0 && !access("/sys/module/ptags", F_OK),
	      "ptags loaded again");
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	bool check_only = (argc > 1 && !strcmp(argv[1], "--check")) ||
			  !strcmp(base ? base + 1 : argv[0], "kptr-check");
	bool had_ptags;

	if (argc == 4 && !strcmp(argv[1], "--exec-wait")) {
		char c = 'x';

		if (write(atoi(argv[2]), &c, 1) != 1)
			return 1;
		while (read(atoi(argv[3]), &c, 1) > 0)
			;
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# %ld CPU(s) online\n", sysconf(_SC_NPROCESSORS_ONLN));
	had_ptags = ptags_out();
	printf("# ptags %s\n", had_ptags ? "unloaded for the run" : "was not loaded");
	/* The checks in a child: this process's memory stays small. */
	{
		pid_t pid = fork();
		int status;

		if (pid < 0)
			die("fork");
		if (!pid) {
			check_peer(XCHG);
			check_peer(DIRECT);
			check_peer(LSM);
			fflush(stdout);
			_exit(failures ? 1 : 0);
		}
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
		test_no = 33;	/* after the child's 3 x 11 */
		check(WIFEXITED(status) && !WEXITSTATUS(status), "the checks passed");
	}
	if (!check_only)
		timing();
	if (had_ptags)
		ptags_back();
	return failures ? 1 : 0;
}
