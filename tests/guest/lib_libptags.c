// SPDX-License-Identifier: GPL-2.0
/*
 * libptags against the real module: reading, queries, every transaction
 * helper (SPEC §3.4), errors with nothing changed (SPEC §7), listing
 * (SPEC §3.2), a second root, and the peer check of a unix socket with a
 * tagged, an untagged, an exited and a pid-reusing peer.  Root handles and
 * pidfds: reads, commits and listings that never reach a process reusing
 * a pid, roots of another pid namespace, handles shared by threads.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "guest.h"
#include "ptags.h"

/* Commit a fresh transaction built by @build to @pid; returns the error. */
static int commit(pid_t pid, int (*build)(struct ptags_txn *))
{
	struct ptags_txn *t = ptags_txn_new();
	int err;

	if (!t)
		die("ptags_txn_new");
	build(t);
	err = ptags_txn_commit(t, pid);
	ptags_txn_free(t);
	return err;
}

static int b_setup(struct ptags_txn *t)
{
	ptags_txn_add(t, "S:x");
	ptags_txn_add_kept(t, "K:a");
	ptags_txn_add(t, "MGR:ID");
	return ptags_txn_set_value(t, "MGR:ID", "abc");
}

static int b_keep_name(struct ptags_txn *t) { return ptags_txn_keep(t, "S:x"); }
static int b_unkeep_pat(struct ptags_txn *t) { return ptags_txn_unkeep(t, "K:*"); }
static int b_keep_absent(struct ptags_txn *t) { return ptags_txn_keep(t, "nope"); }
static int b_clear(struct ptags_txn *t) { return ptags_txn_clear_value(t, "MGR:ID"); }
static int b_rm_pat(struct ptags_txn *t) { return ptags_txn_remove(t, "S:*"); }
static int b_rm_name(struct ptags_txn *t) { return ptags_txn_remove(t, "K:a"); }
static int b_keep_all(struct ptags_txn *t) { return ptags_txn_keep_all(t); }
static int b_keep_pat(struct ptags_txn *t) { return ptags_txn_keep(t, "MGR:*"); }
static int b_unkeep_name(struct ptags_txn *t) { return ptags_txn_unkeep(t, "MGR:ID"); }
static int b_unkeep_all(struct ptags_txn *t) { return ptags_txn_unkeep_all(t); }
static int b_rm_all(struct ptags_txn *t) { return ptags_txn_remove_all(t); }
static int b_add_kept(struct ptags_txn *t) { return ptags_txn_add_kept(t, "A"); }
static int b_add_b(struct ptags_txn *t) { return ptags_txn_add(t, "B"); }

static int b_guard_fail(struct ptags_txn *t)
{
	ptags_txn_require(t, "absent");
	return ptags_txn_add(t, "g");
}

static int b_guard_ok(struct ptags_txn *t)
{
	ptags_txn_require(t, "A");
	ptags_txn_require(t, NULL);
	ptags_txn_require_kept(t, "A");
	return ptags_txn_add(t, "g");
}

static int b_guard_kept_fail(struct ptags_txn *t)
{
	ptags_txn_require_kept(t, "B");
	return ptags_txn_add(t, "h");
}

static int b_guard_anykept_fail(struct ptags_txn *t)
{
	ptags_txn_require_kept(t, NULL);
	return ptags_txn_add(t, "h");
}

static int b_set_absent(struct ptags_txn *t) { return ptags_txn_set_value(t, "zz", "v"); }

static int b_huge_value(struct ptags_txn *t)
{
	static char big[PTAGS_VALUE_MAX + 2];

	memset(big, 'v', PTAGS_VALUE_MAX + 1);
	ptags_txn_add(t, "C");
	return ptags_txn_set_value(t, "C", big);
}

static int b_bad_name(struct ptags_txn *t)
{
	ptags_txn_add(t, "C");
	return ptags_txn_add(t, "bad*name");
}

static int b_add_sy(struct ptags_txn *t) { return ptags_txn_add(t, "S:y"); }

static void test_read_and_txn(void)
{
	const struct ptags_tag *tag;
	struct ptags_set *set;
	pid_t a = pt_sleeper(NULL);
	int r;

	r = ptags_read(a, &set);
	ok(r == 0 && ptags_set_count(set) == 0, "read: a new process has no tags");
	ptags_set_free(set);
	ok(commit(a, b_setup) == 0 && pt_is(a, "@K:a\nMGR:ID=abc\nS:x\n"),
	   "txn: add, add_kept, add + set_value in one write");
	r = ptags_read(a, &set);
	ok(r == 0 && ptags_set_count(set) == 3, "read: three tags");
	tag = ptags_set_find(set, "MGR:ID");
	ok(tag && tag->value && !strcmp(tag->value, "abc") && !tag->keep, "read: value parsed");
	tag = ptags_set_tag(set, 0);
	ok(tag && !strcmp(tag->name, "K:a") && tag->keep && !tag->value, "read: keep flag parsed");
	ptags_set_free(set);
	ok(ptags_has(a, "S:*") == 1 && ptags_has(a, "MGR:ID=abc") == 1 &&
	   ptags_has(a, "MGR:ID=x") == 0 && ptags_has(a, "T:*") == 0 && ptags_has(a, "K:a") == 1,
	   "has: pattern, NAME=VALUE, name");
	ok(commit(a, b_keep_name) == 0 && pt_is(a, "@K:a\nMGR:ID=abc\n@S:x\n"), "txn: keep NAME");
	ok(commit(a, b_unkeep_pat) == 0 && pt_is(a, "K:a\nMGR:ID=abc\n@S:x\n"),
	   "txn: unkeep PATTERN");
	ok(commit(a, b_keep_absent) == -ENOENT && pt_is(a, "K:a\nMGR:ID=abc\n@S:x\n"),
	   "txn: keep of an absent tag is -ENOENT, nothing changes");
	ok(commit(a, b_clear) == 0 && pt_is(a, "K:a\nMGR:ID\n@S:x\n"), "txn: clear_value");
	ok(commit(a, b_rm_pat) == 0 && pt_is(a, "K:a\nMGR:ID\n"), "txn: remove PATTERN");
	ok(commit(a, b_keep_all) == 0 && pt_is(a, "@K:a\n@MGR:ID\n"), "txn: keep_all");
	ok(commit(a, b_unkeep_name) == 0 && pt_is(a, "@K:a\nMGR:ID\n"), "txn: unkeep NAME");
	ok(commit(a, b_keep_pat) == 0 && pt_is(a, "@K:a\n@MGR:ID\n"), "txn: keep PATTERN");
	ok(commit(a, b_unkeep_all) == 0 && pt_is(a, "K:a\nMGR:ID\n"), "txn: unkeep_all");
	ok(commit(a, b_rm_name) == 0 && pt_is(a, "MGR:ID\n"), "txn: remove NAME");
	ok(commit(a, b_rm_all) == 0 && pt_is(a, ""), "txn: remove_all");
	ok(commit(a, b_add_kept) == 0 && commit(a, b_add_b) == 0 && pt_is(a, "@A\nB\n"),
	   "txn: two more commits");
	ok(commit(a, b_guard_fail) == -ENOENT && pt_is(a, "@A\nB\n"),
	   "txn: a failed require guard is -ENOENT and nothing changes");
	ok(commit(a, b_guard_ok) == 0 && pt_is(a, "@A\nB\ng\n"), "txn: guards that hold");
	ok(commit(a, b_guard_kept_fail) == -ENOENT && pt_is(a, "@A\nB\ng\n"),
	   "txn: require_kept of an unkept tag is -ENOENT");
	ok(commit(a, b_set_absent) == -ENOENT && pt_is(a, "@A\nB\ng\n"),
	   "txn: set_value on an absent tag is -ENOENT, nothing changes");
	ok(commit(a, b_huge_value) == -EINVAL && pt_is(a, "@A\nB\ng\n"),
	   "txn: a value of 32701 bytes is -EINVAL, nothing written");
	ok(commit(a, b_bad_name) == -EINVAL && pt_is(a, "@A\nB\ng\n"),
	   "txn: a bad name is -EINVAL, nothing written");
	ok(commit(a, b_rm_all) == 0 && commit(a, b_add_b) == 0 &&
	   commit(a, b_guard_anykept_fail) == -ENOENT && pt_is(a, "B\n"),
	   "txn: require_kept(any) without kept tags is -ENOENT");
	pt_stop(a);
}

static void test_raw_and_limits(void)
{
	long max = pt_param("max_write"), max_tags = pt_param("max_tags");
	pid_t a = pt_sleeper(NULL);
	char *big, *huge;
	size_t n;
	int r;

	pt_write(a, "+A\n");
	ok(ptags_max_write() == max && max > 0, "max_write: %ld", ptags_max_write());
	ok(ptags_write_text(a, "?A\n+B\n", 6) == 0 && pt_is(a, "A\nB\n"),
	   "write_text: raw protocol text, one write");
	ok(ptags_write_text(a, "+a*\n", 4) == -EINVAL && pt_is(a, "A\nB\n"),
	   "write_text: module refuses a bad name with -EINVAL, nothing changes");
	ok(ptags_write_text(a, "+C", 2) == -EINVAL && pt_is(a, "A\nB\n"),
	   "write_text: missing final newline -EINVAL");
	huge = malloc(PTAGS_VALUE_MAX + 64);
	n = (size_t)sprintf(huge, "!A=");
	memset(huge + n, 'v', PTAGS_VALUE_MAX + 1);
	n += PTAGS_VALUE_MAX + 1;
	huge[n++] = '\n';
	ok(ptags_write_text(a, huge, n) == -EINVAL && pt_is(a, "A\nB\n"),
	   "write_text: a 32701-byte value is -EINVAL from the module, nothing changes");
	free(huge);
	big = malloc(max + 2);
	memset(big, '#', max + 1);
	big[max] = '\n';
	r = ptags_write_text(a, big, max + 1);
	ok(r == -E2BIG && pt_is(a, "A\nB\n"), "write_text: max_write + 1 bytes is -E2BIG (%d)", r);
	free(big);
	if (!pt_set_param("max_tags", 2)) {
		r = ptags_write_text(a, "+C\n", 3);
		ok(r == -ECANCELED && pt_is(a, "A\nB\n"), "a third tag with max_tags=2: -ECANCELED");
		pt_set_param("max_tags", max_tags);
	}
	pt_stop(a);
	r = ptags_write_text(a, "+A\n", 3);
	ok(r == -ESRCH, "write to a reaped process: -ESRCH (%d)", r);
	{
		struct ptags_set *set = NULL;

		ok(ptags_read(a, &set) == -ESRCH && !set, "read of a reaped process: -ESRCH");
	}
	ok(ptags_has(a, "A") == -ESRCH, "has of a reaped process: -ESRCH");
}

static int child_unpriv(void *arg)
{
	pid_t target = *(pid_t *)arg;
	char buf[256];
	int r;

	if (drop_privileges(65534))
		return 10;
	r = commit(0, b_add_sy);
	if (r != -EPERM)
		return 11;
	ptags_explain(buf, sizeof(buf), r, PTAGS_OP_ADD, "S:y", 0);
	if (strcmp(buf, "the writer needs ptags:S:add, or CAP_MAC_ADMIN"))
		return 12;
	r = commit(target, b_add_sy);
	if (r != -EPERM)
		return 13;
	return 0;
}

static int child_rights(void *arg)
{
	pid_t target = *(pid_t *)arg;

	if (pt_write(0, "-\n+ptags:S:add\n") || drop_privileges(65534))
		return 10;
	if (commit(0, b_add_sy))
		return 11;
	if (commit(target, b_add_sy) != -EPERM)
		return 12;
	return 0;
}

static int child_rights_others(void *arg)
{
	pid_t target = *(pid_t *)arg;

	if (pt_write(0, "-\n+ptags:S:add\n+ptags:S:others\n") || drop_privileges(65534))
		return 10;
	return commit(target, b_add_sy) ? 11 : 0;
}

static void test_perms(void)
{
	pid_t a = pt_sleeper(NULL);
	int r;

	r = run_child(child_unpriv, &a);
	ok(r == 0 && pt_is(a, ""), "SPEC §5: unprivileged commit -EPERM on self and other, explained (%d)", r);
	r = run_child(child_rights, &a);
	ok(r == 0 && pt_is(a, ""), "SPEC §5.2: ptags:S:add lets a process add S:y to itself only (%d)", r);
	r = run_child(child_rights_others, &a);
	ok(r == 0 && pt_is(a, "S:y\n"), "SPEC §5.3: with ptags:S:others also to another (%d)", r);
	pt_stop(a);
}

static void test_list(void)
{
	pid_t a = pt_sleeper(NULL), b = pt_sleeper(NULL);
	struct ptags_proc *procs;
	size_t n, i;
	int r, seen = 0;

	pt_write(a, "+MGR:CONTAINER_ID\n!MGR:CONTAINER_ID=t1\n");
	pt_write(b, "+MGR:CONTAINER_ID\n!MGR:CONTAINER_ID=t2\n+S:z\n");
	r = ptags_list("MGR:CONTAINER_ID=t1", &procs, &n);
	ok(r == 0 && n == 1 && procs[0].pid == a && ptags_set_count(procs[0].tags) == 1,
	   "list NAME=VALUE: exactly the process in container t1 (%d, %zu)", r, n);
	ptags_list_free(procs, n);
	r = ptags_list("MGR:*", &procs, &n);
	ok(r == 0 && n == 2 && procs[0].pid == (a < b ? a : b) && procs[1].pid == (a < b ? b : a),
	   "list PATTERN: both, sorted by pid");
	ptags_list_free(procs, n);
	r = ptags_list(NULL, &procs, &n);
	for (i = 0; r == 0 && i < n; i++)
		seen += procs[i].pid == a || procs[i].pid == b;
	ok(r == 0 && seen == 2, "list all: includes both");
	ptags_list_free(procs, n);
	r = ptags_list("S:z", &procs, &n);
	ok(r == 0 && n == 1 && procs[0].pid == b, "list name: only b");
	ptags_list_free(procs, n);
	ok(ptags_list("bad*", &procs, &n) == -EINVAL, "list: invalid filter -EINVAL");
	pt_stop(a);
	r = ptags_list("MGR:*", &procs, &n);
	ok(r == 0 && n == 1 && procs[0].pid == b, "list: an exited process is gone");
	ptags_list_free(procs, n);
	pt_stop(b);
}

static void test_root(void)
{
	struct ptags_set *set;
	pid_t a = pt_sleeper(NULL);
	int r;

	pt_write(a, "+R\n");
	ok(!strcmp(ptags_root(), "/proc/ptags"), "default root /proc/ptags");
	mkdir("/tmp/pt2", 0755);
	if (mount("ptags", "/tmp/pt2", "ptags", 0, NULL)) {
		ok(false, "mount a second ptags instance: %s", strerror(errno));
		pt_stop(a);
		return;
	}
	ptags_set_root("/tmp/pt2");
	r = ptags_read(a, &set);
	ok(r == 0 && ptags_set_count(set) == 1 && !strcmp(ptags_root(), "/tmp/pt2"),
	   "ptags_set_root: reads through another mount");
	ptags_set_free(set);
	ptags_set_root("/tmp/nothing-here");
	ok(ptags_read(a, &set) == -ENODEV, "a missing root: -ENODEV");
	ptags_set_root(NULL);
	setenv("PTAGS_ROOT", "/tmp/pt2", 1);
	ok(!strcmp(ptags_root(), "/tmp/pt2") && ptags_has(a, "R") == 1, "PTAGS_ROOT");
	unsetenv("PTAGS_ROOT");
	umount("/tmp/pt2");
	pt_stop(a);
}

/* ---- root handles and pidfds ---- */

static int pidfd_of(pid_t pid)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0)
		die("pidfd_open %d", (int)pid);
	return fd;
}

static bool pidfd_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* A sleeper at pid @want (via ns_last_pid), or at whatever pid it gets. */
static pid_t sleeper_at(pid_t want)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");

	if (f) {
		fprintf(f, "%d", (int)want - 1);
		fclose(f);
	}
	return pt_sleeper(NULL);
}

static int commit_text(const struct ptags_root *root, int pidfd, const char *name,
		       const char *value)
{
	struct ptags_txn *t = ptags_txn_new();
	int err;

	if (!t)
		die("ptags_txn_new");
	ptags_txn_add(t, name);
	ptags_txn_set_value(t, name, value);
	err = ptags_pidfd_commit(root, pidfd, t);
	ptags_txn_free(t);
	return err;
}

/*
 * A container's own procfs has an empty ptags directory (the module's
 * mount point exists in every procfs): libptags must say "not available",
 * not "no such process" and not an empty listing.
 */
static int empty_root_run(void *arg)
{
	struct ptags_proc *procs;
	struct ptags_set *set;
	size_t n;
	int r;

	(void)arg;
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mkdir("/tmp/proc2", 0755) ||
	    mount("proc", "/tmp/proc2", "proc", 0, NULL))
		return 1;
	if (ptags_set_root("/tmp/proc2/ptags"))
		return 2;
	r = ptags_read(getpid(), &set);
	if (r != -ENODEV)
		return 10 + (r == -ESRCH);
	r = ptags_has(getpid(), "x");
	if (r != -ENODEV)
		return 20 + (r == -ESRCH);
	r = ptags_list(NULL, &procs, &n);
	if (r != -ENODEV)
		return 30 + !r;
	return 0;
}

static void test_empty_root(void)
{
	int rc = run_child(empty_root_run, NULL);

	ok(rc == 0, "a procfs's empty ptags directory as the root: read, has and list are -ENODEV (status %d: 11, 21 ESRCH, 31 an empty listing)",
	   rc);
}

static void test_pidfd(void)
{
	struct ptags_root *root, *bad = (void *)1;
	struct ptags_listing *l;
	struct ptags_set *set;
	pid_t a, b;
	int pfd, lfd, r;

	mkdir("/tmp/pt_empty", 0755);
	r = ptags_root_openat(AT_FDCWD, "/tmp/pt_empty", 0, &bad);
	ok(r == -ENODEV && !bad, "root_openat: a plain directory (an empty mount point): -ENODEV (%d)", r);
	ok(ptags_root_openat(AT_FDCWD, NULL, 2, &root) == -EINVAL, "root_openat: unknown flags -EINVAL");
	r = ptags_root_openat(AT_FDCWD, NULL, 0, &root);
	if (!ok(r == 0 && ptags_root_fd(root) >= 0, "root_openat(NULL): /proc/ptags (%d)", r))
		return;

	a = pt_sleeper(NULL);
	pfd = pidfd_of(a);
	r = commit_text(root, pfd, "MGR:ID", "c1");
	ok(r == 0 && ptags_has(a, "MGR:ID=c1") == 1, "pidfd_commit: the pidfd's process is tagged (%d)", r);
	r = ptags_pidfd_read(root, pfd, &set);
	ok(r == 0 && ptags_set_count(set) == 1 && !strcmp(ptags_set_tag(set, 0)->value, "c1"),
	   "pidfd_read: its tags (%d)", r);
	ptags_set_free(set);
	r = ptags_root_read(root, a, &set);
	ok(r == 0 && ptags_set_count(set) == 1, "root_read by pid (%d)", r);
	ptags_set_free(set);
	r = ptags_pidfd_read(root, 0, &set);
	ok(r == -EBADF || r == -ENOTTY, "pidfd_read of a descriptor that is no pidfd: refused (%d)", r);

	r = ptags_root_list(root, "MGR:ID=c1", PTAGS_LIST_PIDFD, &l);
	lfd = r ? -1 : ptags_listing_pidfd(l, 0);
	ok(r == 0 && ptags_listing_count(l) == 1 && ptags_listing_pid(l, 0) == a && lfd >= 0 &&
	   ptags_set_count(ptags_listing_tags(l, 0)) == 1,
	   "root_list with pidfds: the process, its tags and a pidfd (%d)", r);
	ok(ptags_listing_pid(l, 1) == 0 && ptags_listing_pidfd(l, 1) == -1 &&
	   !ptags_listing_tags(l, 1), "listing accessors out of range: 0, -1, NULL");
	r = ptags_root_list(root, NULL, 0, &l) ? -1 : 0;
	ok(!r, "root_list without pidfds");
	ok(!r && ptags_listing_pidfd(l, 0) == -1, "root_list without PTAGS_LIST_PIDFD: no pidfds");
	ptags_listing_free(l);
	ok(ptags_root_list(root, NULL, 8, &l) == -EINVAL && !l, "root_list: unknown flags -EINVAL");
	ok(ptags_root_list(root, "bad*", 0, &l) == -EINVAL, "root_list: invalid query -EINVAL");

	/* The pid is reused by a tagged process: nothing reaches it. */
	r = ptags_root_list(root, "MGR:ID=c1", PTAGS_LIST_PIDFD, &l);
	if (r)
		die("root_list");
	lfd = ptags_listing_pidfd(l, 0);
	pt_stop(a);
	ok(pidfd_exited(lfd), "a listing's pidfd reports the process's exit");
	ptags_listing_free(l);
	b = sleeper_at(a);
	pt_write(b, "+MGR:ID\n!MGR:ID=other\n");
	if (ok(b == a, "pid reuse set up: pid %d is now another tagged process (%d)", (int)a, (int)b)) {
		r = ptags_pidfd_read(root, pfd, &set);
		ok(r == -ESRCH && !set, "pidfd_read after pid reuse: -ESRCH, not the new process's tags (%d)", r);
		r = commit_text(root, pfd, "MGR:ID", "c1");
		ok(r == -ESRCH && ptags_has(b, "MGR:ID=other") == 1,
		   "pidfd_commit after pid reuse: -ESRCH, the new process untouched (%d)", r);
		r = ptags_root_read(root, a, &set);
		ok(r == 0 && ptags_set_match(set, "MGR:ID=other") == 1,
		   "(by pid, the same read reaches the new process)");
		ptags_set_free(set);
	}
	pt_stop(b);
	close(pfd);
	ptags_root_close(root);
}

/*
 * A manager in a child pid namespace with the initial /proc/ptags and its
 * own mount.  Exit status: a bit per check that held.
 */
static int pidns_manager(void *arg)
{
	struct ptags_root *initial, *own;
	struct ptags_listing *l;
	struct ptags_set *set;
	pid_t outer = *(pid_t *)arg, c;
	int st = 0, pfd, r;

	if (pt_write(0, "-NS:outer\n") || unshare(CLONE_NEWPID | CLONE_NEWNS))
		return 200;
	c = fork();
	if (c < 0)
		return 201;
	if (c) {
		int w;

		waitpid(c, &w, 0);
		return WIFEXITED(w) ? WEXITSTATUS(w) : 202;
	}
	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	mkdir("/tmp/pt_ns", 0755);
	if (mount("ptags", "/tmp/pt_ns", "ptags", 0, NULL))
		_exit(203);
	if (ptags_root_openat(AT_FDCWD, "/proc/ptags", 0, &initial) ||
	    ptags_root_openat(AT_FDCWD, "/tmp/pt_ns", 0, &own))
		_exit(204);
	pfd = syscall(SYS_pidfd_open, getpid(), 0);
	if (pfd < 0 || pt_write(0, "+NS:me\n"))
		_exit(205);
	/* The initial root numbers pids its own way: no pidfd operations. */
	if (ptags_pidfd_read(initial, pfd, &set) == -EXDEV)
		st |= 1;
	if (ptags_root_list(initial, NULL, PTAGS_LIST_PIDFD, &l) == -EXDEV)
		st |= 2;
	/* By pid it lists the initial namespace's processes, the parent too. */
	if (!ptags_root_list(initial, "NS:outer", 0, &l)) {
		if (ptags_listing_count(l) == 1 && ptags_listing_pid(l, 0) == outer)
			st |= 4;
		ptags_listing_free(l);
	}
	/*
	 * Its own mount: pidfd operations work -- without PIDFD_GET_INFO
	 * (before 6.13) only once /proc is its namespace's, as a container's
	 * is.  The handle of the initial root stays valid under the new /proc.
	 */
	r = ptags_pidfd_read(own, pfd, &set);
	ptags_set_free(set);
	if (r == 0 || r == -EXDEV)
		st |= 32;
	if (mount("proc", "/proc", "proc", 0, NULL))
		_exit(206);
	r = ptags_pidfd_read(own, pfd, &set);
	if (!r && ptags_set_match(set, "NS:me") == 1)
		st |= 8;
	ptags_set_free(set);
	if (!ptags_root_read(initial, outer, &set) &&
	    ptags_set_match(set, "NS:outer") == 1)
		st |= 64;
	ptags_set_free(set);
	if (!ptags_root_list(own, "NS:me", PTAGS_LIST_PIDFD, &l)) {
		if (ptags_listing_count(l) == 1 && ptags_listing_pid(l, 0) == 1 &&
		    ptags_listing_pidfd(l, 0) >= 0)
			st |= 16;
		ptags_listing_free(l);
	}
	_exit(st);
}

static void test_pidfd_pidns(void)
{
	pid_t me = getpid();
	int st;

	pt_write(0, "+NS:outer\n");
	st = run_child(pidns_manager, &me);
	ok(st >= 0 && st < 128 && (st & 1), "child pid ns, initial root: pidfd_read -EXDEV (%d)", st);
	ok(st >= 0 && st < 128 && (st & 2), "child pid ns, initial root: list with pidfds -EXDEV");
	ok(st >= 0 && st < 128 && (st & 4), "child pid ns, initial root: list by pid finds the parent by its initial pid");
	ok(st >= 0 && st < 128 && (st & 32),
	   "child pid ns, its own mount, the initial /proc: pidfd_read works (PIDFD_GET_INFO) or says -EXDEV (fdinfo)");
	ok(st >= 0 && st < 128 && (st & 8), "child pid ns, its own mount and /proc: pidfd_read works");
	ok(st >= 0 && st < 128 && (st & 16), "child pid ns, its own mount: list with pidfds (pid 1)");
	ok(st >= 0 && st < 128 && (st & 64),
	   "child pid ns: the initial root's handle still reads after /proc is remounted over it");
	pt_write(0, "-NS:outer\n");
}

/* Threads sharing two root handles, each changing its own process. */
struct worker {
	struct ptags_root *root;
	pid_t pid;
	int bad;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	int i, pfd = syscall(SYS_pidfd_open, w->pid, 0);
	char v[16];

	for (i = 0; i < 300 && !w->bad; i++) {
		struct ptags_listing *l = NULL;
		struct ptags_set *set = NULL;
		const struct ptags_tag *tag;
		int r;

		snprintf(v, sizeof(v), "%d", i);
		r = commit_text(w->root, pfd, "T:n", v);
		if (!r)
			r = ptags_pidfd_read(w->root, pfd, &set);
		tag = r ? NULL : ptags_set_find(set, "T:n");
		if (!r && (!tag || !tag->value || strcmp(tag->value, v)))
			r = 1000;
		if (!r)
			r = ptags_root_list(w->root, "T:n", 0, &l);
		if (!r && ptags_listing_count(l) != 4)
			r = 2000 + (int)ptags_listing_count(l);
		ptags_set_free(set);
		ptags_listing_free(l);
		w->bad = r;
	}
	close(pfd);
	return NULL;
}

static void test_threads(void)
{
	struct ptags_root *roots[2];
	struct worker w[4];
	pthread_t t[4];
	int i, bad = 0;

	mkdir("/tmp/pt3", 0755);
	if (mount("ptags", "/tmp/pt3", "ptags", 0, NULL) ||
	    ptags_root_openat(AT_FDCWD, "/proc/ptags", 0, &roots[0]) ||
	    ptags_root_openat(AT_FDCWD, "/tmp/pt3", 0, &roots[1]))
		die("two roots");
	for (i = 0; i < 4; i++) {
		w[i] = (struct worker){ roots[i & 1], pt_sleeper(NULL), 0 };
		pt_write(w[i].pid, "+T:n\n");
	}
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, &w[i]);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		if (w[i].bad)
			diag("thread %d: %d", i, w[i].bad);
		bad += !!w[i].bad;
	}
	for (i = 0; i < 4; i++)
		pt_stop(w[i].pid);
	ok(!bad, "4 threads, 2 root handles (two mounts), 300 commit/read/list rounds each: all consistent");
	ptags_root_close(roots[0]);
	ptags_root_close(roots[1]);
	umount("/tmp/pt3");
}

/* ---- peer checks ---- */

static const char sock_path[] = "/tmp/s11.sock";
static int method;

static int listener(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int s;

	strcpy(addr.sun_path, sock_path);
	unlink(sock_path);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&addr, sizeof(addr)) || listen(s, 8))
		die("listen");
	return s;
}

/*
 * A client: connects, then (mode 'w') waits until its pipe closes, (mode
 * 'x') exits at once, (mode 'f') forks a child that keeps the connection
 * and exits.  Returns its pid; *@go is the write end of its pipe.
 */
static pid_t client(char mode, const char *tags, int *go)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int p[2];
	pid_t pid;

	strcpy(addr.sun_path, sock_path);
	if (pipe(p))
		die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		char c;

		close(p[1]);
		if (pt_write(0, "-\n") || (tags && pt_write(0, tags)))
			_exit(3);
		if (connect(s, (struct sockaddr *)&addr, sizeof(addr)))
			_exit(4);
		if (mode == 'x')
			_exit(0);
		if (mode == 'f') {
			if (fork() == 0) {
				if (read(p[0], &c, 1) < 0)
					_exit(1);
				_exit(0);
			}
			_exit(0);
		}
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static void test_peer(void)
{
	struct ptags_peer peer = { 0 };
	struct ptags_set *set = NULL;
	int srv = listener(), c, go, r, sv[2], pfd = -1, pfd2 = 0;
	pid_t pid, again;
	FILE *f;

	pid = client('w', "+S:camera\n!S:camera=front\n", &go);
	c = accept(srv, NULL, NULL);
	r = ptags_peer_read(c, 0, &peer, &set);
	method = peer.method;
	ok(r == 0 && peer.pid == pid && peer.uid == 0 && ptags_set_count(set) == 1,
	   "peer_read: the tagged client's pid and tags (%d, method %s)", r,
	   method == PTAGS_PEER_SO_PEERPIDFD ? "SO_PEERPIDFD" : "SO_PEERCRED+pidfd_open");
	ptags_set_free(set);
	ok(ptags_peer_has(c, "S:camera", 0) == 1 && ptags_peer_has(c, "S:camera=front", 0) == 1 &&
	   ptags_peer_has(c, "S:mic", 0) == 0, "peer_has: tagged client yes, other tag no");
	r = ptags_peer_has(c, "S:camera", PTAGS_PEER_REQUIRE_PEERPIDFD);
	ok(method == PTAGS_PEER_SO_PEERPIDFD ? r == 1 : r == -EOPNOTSUPP,
	   "REQUIRE_PEERPIDFD: %s (%d)",
	   method == PTAGS_PEER_SO_PEERPIDFD ? "works" : "-EOPNOTSUPP without SO_PEERPIDFD", r);
	r = ptags_root_peer_read(NULL, c, 0, NULL, &pfd, NULL);
	ok(r == 0 && pfd >= 0 && !pidfd_exited(pfd),
	   "root_peer_read hands back the peer's pidfd (%d)", r);
	r = ptags_root_peer_read(NULL, c, 4, NULL, &pfd2, NULL);
	ok(r == -EINVAL && pfd2 == -1, "root_peer_read: unknown flags -EINVAL (%d)", r);
	close(go);
	waitpid(pid, NULL, 0);
	ok(pfd >= 0 && pidfd_exited(pfd), "the handed-back pidfd reports the client's exit");
	if (pfd >= 0)
		close(pfd);
	ok(ptags_peer_has(c, "S:camera", 0) == -ESRCH,
	   "peer_has: the client exited: -ESRCH, never yes");
	close(c);

	pid = client('w', NULL, &go);
	c = accept(srv, NULL, NULL);
	ok(ptags_peer_has(c, "S:camera", 0) == 0, "peer_has: untagged client: no");
	close(go);
	waitpid(pid, NULL, 0);
	close(c);

	/* Pid reuse: the peer exits, a tagged process gets its pid. */
	pid = client('x', NULL, &go);
	c = accept(srv, NULL, NULL);
	waitpid(pid, NULL, 0);
	close(go);
	f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	if (f) {
		fprintf(f, "%d", (int)pid - 1);
		fclose(f);
	}
	again = pt_sleeper(NULL);
	pt_write(again, "+S:camera\n");
	ok(again == pid && ptags_has(again, "S:camera") == 1,
	   "pid reuse set up: pid %d now belongs to a tagged process (%d)", (int)pid, (int)again);
	r = ptags_peer_has(c, "S:camera", 0);
	ok(r != 1 && r == -ESRCH, "peer_has after pid reuse: -ESRCH, not yes (%d)", r);
	pt_stop(again);
	close(c);

	/* The connection handed to a child, the connecting process gone. */
	pid = client('f', NULL, &go);
	c = accept(srv, NULL, NULL);
	waitpid(pid, NULL, 0);
	f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	if (f) {
		fprintf(f, "%d", (int)pid - 1);
		fclose(f);
	}
	again = pt_sleeper(NULL);
	pt_write(again, "+S:camera\n");
	r = ptags_peer_has(c, "S:camera", 0);
	if (method == PTAGS_PEER_SO_PEERPIDFD)
		ok(r == -ESRCH, "handed-over connection, pid reused: -ESRCH with SO_PEERPIDFD (%d)", r);
	else
		diag("handed-over connection, pid %s: peer_has %d (the documented limit of the fallback)",
		     again == pid ? "reused" : "not reused", r);
	pt_stop(again);
	close(go);
	close(c);
	close(srv);
	unlink(sock_path);

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair");
	pt_write(0, "+P:me\n");
	r = ptags_peer_read(sv[0], 0, &peer, NULL);
	ok(r == 0 && peer.pid == getpid() && ptags_peer_has(sv[0], "P:me", 0) == 1,
	   "socketpair: the peer is the creator");
	pt_write(0, "-P:me\n");
	close(sv[0]);
	close(sv[1]);
	ok(ptags_peer_has(0, "S:x", 0) < 0, "peer_has on a non-socket: error");
}

int main(void)
{
	pt_write(0, "-\n");
	test_read_and_txn();
	test_raw_and_limits();
	test_perms();
	test_list();
	test_root();
	test_empty_root();
	test_pidfd();
	test_pidfd_pidns();
	test_threads();
	test_peer();
	ok(!strcmp(ptags_strerror(-ECANCELED), "tag set limit reached"), "strerror");
	return tap_done();
}
