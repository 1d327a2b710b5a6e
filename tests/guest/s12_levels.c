// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §12: levels, the tags of a user namespace.
 *
 * A rootless manager (uid 1000, a user namespace of its own, depth 1, in the
 * host's pid namespace) mounts level=own and tags itself and its children
 * there; the children cannot change those tags; nothing of it shows or can
 * be changed at level 0, and the level-0 tags stay unforgeable from inside.
 * A nested manager (depth 2, owning a pid namespace) mounts level=1 and sees
 * its parent level's tags without being able to change them.  Also: the
 * mount rules, fork, exec and exit at two levels at once, processes outside
 * a level, hidepid, max_levels, watching per level and the counters.
 *
 * Every process here is an agent (agent.h), driven from this root process:
 * each assertion is made here.
 */
#define _GNU_SOURCE
#include "guest.h"
#include "agent.h"
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#define L1	"/tmp/lv1"	/* A: level=own (depth 1) */
#define L1N	"/tmp/lv1n"	/* A: level=1, its own level by number */
#define L2	"/tmp/lv2"	/* P (depth 2): level=1 */
#define L3	"/tmp/lv3"	/* P: level=2, its own */
#define L0	"/tmp/lv0"	/* P: level=0 */
#define LH	"/tmp/lvh"	/* R: level=own,hidepid=invisible */
#define LP	"/tmp/lvp"	/* R: level=own, for the peer check */

static char buf[AGENT_DATA + 1];

/* The agent reads @pid's tags through its root: do they read @want? */
static bool __attribute__((format(printf, 4, 5)))
a_is(struct agent *a, pid_t pid, const char *want, const char *fmt, ...)
{
	char name[512];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	rc = a_read(a, pid, buf, sizeof(buf));
	if (rc) {
		diag("read of %d by agent %d: %s", (int)pid, (int)a->pid,
		     ename(rc));
		return ok(false, "%s", name);
	}
	if (strcmp(buf, want))
		diag("read [%s], expected [%s]", tap_esc(buf), tap_esc(want));
	return ok(!strcmp(buf, want), "%s", name);
}

static int a_root(struct agent *a, const char *dir)
{
	return acmd(a, OP_ROOT, 0, dir);
}

static int a_mount(struct agent *a, const char *dir_opts)
{
	return acmd(a, OP_MOUNT, 0, dir_opts);
}

/* Agent @a runs @cmd: its exit status, its output in buf. */
static int a_run(struct agent *a, const char *cmd)
{
	return agent_cmd(a, OP_RUN, 0, 0, cmd, -1, NULL, buf, sizeof(buf));
}

/* Agent @a's libptags peer check of its @slot at @level: tags in buf. */
static int a_peer(struct agent *a, int slot, int level)
{
	return agent_cmd(a, OP_PEER, level, slot, NULL, -1, NULL, buf,
			 sizeof(buf));
}

/*
 * The agent lists its root: do the names read exactly "self" and the pids
 * @pids (@n of them), in any order?
 */
static bool __attribute__((format(printf, 4, 5)))
a_lists(struct agent *a, const pid_t *pids, int n, const char *fmt, ...)
{
	char name[512], want[256], *tok, *save;
	int i, found = 0, others = 0, self = 0, rc;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	rc = agent_cmd(a, OP_LIST, 0, 0, NULL, -1, NULL, buf, sizeof(buf));
	if (rc) {
		diag("listing by agent %d: %s", (int)a->pid, ename(rc));
		return ok(false, "%s", name);
	}
	diag("listing by agent %d: [%s]", (int)a->pid, buf);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (!strcmp(tok, "self")) {
			self++;
			continue;
		}
		for (i = 0; i < n; i++)
			if (atoi(tok) == pids[i])
				break;
		if (i < n)
			found++;
		else
			others++;
	}
	if (self != 1 || found != n || others) {
		want[0] = 0;
		for (i = 0; i < n; i++)
			snprintf(want + strlen(want), sizeof(want) - strlen(want),
				 " %d", (int)pids[i]);
		diag("wanted self and%s", want);
	}
	return ok(self == 1 && found == n && !others, "%s", name);
}

/* Root's view of @pid through directory @dir: its tags, or -errno. */
static ssize_t root_read_at(const char *dir, pid_t pid)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%d", dir, (int)pid);
	return file_read(path, buf, sizeof(buf));
}

/*
 * Does root's listing of /proc/ptags (level 0) name @pid?  1 or 0; -1 when
 * the directory cannot be read.
 */
static int root_lists(pid_t pid)
{
	struct dirent *d;
	DIR *dp = opendir(PT_ROOT);
	int found = 0;

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		if (strtol(d->d_name, NULL, 10) == pid)
			found = 1;
	closedir(dp);
	return found;
}

/* An inotify event for @name with @mask within @ms (ignores others)? */
static bool got_event(int fd, pid_t name, uint32_t mask, int ms)
{
	char ev[4096] __attribute__((aligned(8)));
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct inotify_event *e;
	char want[16];
	ssize_t n;
	char *q;

	snprintf(want, sizeof(want), "%d", (int)name);
	while (poll(&p, 1, ms) == 1) {
		n = read(fd, ev, sizeof(ev));
		if (n <= 0)
			return false;
		for (q = ev; q < ev + n; q += sizeof(*e) + e->len) {
			e = (struct inotify_event *)q;
			if ((e->mask & mask) && e->len && !strcmp(e->name, want))
				return true;
		}
	}
	return false;
}

/* Does counter @name read @want within 5 s (entries go after a grace period)? */
static bool stat_becomes(const char *name, long want)
{
	int i;

	for (i = 0; i < 250; i++) {
		if (pt_stat(name) == want)
			return true;
		usleep(20000);
	}
	diag("%s reads %ld, expected %ld", name, pt_stat(name), want);
	return false;
}

static void drain(int fd)
{
	got_event(fd, -1, 0, 300);
}

static void setup(void)
{
	static const char *const dirs[] = { L1, L1N, L2, L3, L0, LH, LP };
	unsigned int i;

	/* Debian kernels have a switch for unprivileged user namespaces. */
	if (access("/proc/sys/kernel/unprivileged_userns_clone", F_OK) == 0 &&
	    file_write("/proc/sys/kernel/unprivileged_userns_clone", "1\n"))
		die("enable unprivileged user namespaces");
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if ((mkdir(dirs[i], 0777) && errno != EEXIST) ||
		    chmod(dirs[i], 0777))
			die("mkdir %s", dirs[i]);
}

int main(int argc, char **argv)
{
	struct agent *A, *K, *K2, *M, *N, *P, *R, *H, *C, *D;
	char a_l1[256], path[256];
	long pruned, tagged, max_levels, max_tags, max_bytes;
	int rc, in0, in1;
	pid_t me = getpid(), pids[3];

	agent_exec_main(argc, argv);
	pt_start_untagged();
	setup();
	pt_quiesce();
	max_levels = pt_param("max_levels");
	ok(max_levels == 8, "max_levels defaults to 8 (read %ld)", max_levels);

	/* ---- A rootless manager: uid 1000, user namespace of depth 1. */
	A = agent_new(true);
	root_write(A->pid, "+@MGR:host\n+host-unkept\n");
	expect(acmd(A, OP_DROP, 1000, NULL), 0, "A drops to uid 1000, no capabilities");
	expect(acmd(A, OP_USERNS, 0, NULL), 0, "A creates a user namespace (depth 1) and is its root");
	expect(acmd(A, OP_UNSHARE, CLONE_NEWNS, NULL), 0, "A makes a mount namespace of its own");

	/* The mount rules: A lacks CAP_SYS_ADMIN over its pid namespace's owner. */
	expect(a_mount(A, L1 " "), EPERM, "A cannot mount level 0 (the default): EPERM");
	expect(a_mount(A, L1 " level=0"), EPERM, "A cannot mount level=0: EPERM");
	expect(a_mount(A, L1 " level=2"), EINVAL, "level=2, below A's depth 1: EINVAL");
	expect(a_mount(A, L1 " level=x"), EINVAL, "level=x: EINVAL");
	expect(a_mount(A, L1 " level=-1"), EINVAL, "level=-1: EINVAL");
	expect(a_mount(A, L1 " level=4294967296"), EINVAL, "level=2^32: EINVAL");
	expect(a_mount(A, L1N " level=1"), 0, "A mounts level=1, its own by number");
	expect(a_mount(A, L1 " level=own"), 0, "A mounts level=own");
	rc = agent_cmd(A, OP_CAT, 0, 0, "/proc/self/mounts", -1, NULL, buf, sizeof(buf));
	ok(!rc && strstr(buf, L1 " ptags ") && strstr(buf, "level=1"),
	   "/proc/self/mounts shows the level (level=1)");
	expect(acmd(A, OP_MOUNT, MS_REMOUNT, L1 " level=0"), EINVAL,
	       "a remount cannot change the level: EINVAL");
	expect(acmd(A, OP_MOUNT, MS_REMOUNT, L1 " level=1,hidepid=0"), 0,
	       "a remount that names the same level succeeds");

	/* Its own level: A is privileged there (CAP_MAC_ADMIN in it). */
	a_root(A, L1);
	a_is(A, 0, "", "A has no tags at level 1 yet (its level-0 tags are not there)");
	expect(aw(A, 0, "+@MGR:c1\n!MGR:c1=abc\n+unkept1\n"), 0,
	       "A, root of its user namespace, tags itself at its level");
	a_is(A, 0, "@MGR:c1=abc\nunkept1\n", "A reads its level-1 tags");
	ok(pt_is(A->pid, "@MGR:host\nhost-unkept\n"),
	   "/proc/ptags (level 0) still shows A's level-0 tags only");
	a_root(A, "");
	expect(aw(A, 0, "-MGR:host\n"), EPERM, "level 0 from inside: A cannot remove its manager's tag");
	expect(aw(A, 0, "+MGR:forged\n"), EPERM, "level 0 from inside: A cannot add a tag");
	expect(aw(A, 0, "-@MGR:host\n"), EPERM, "level 0 from inside: A cannot unkeep a tag");
	expect(aw(A, 0, "!MGR:host=forged\n"), EPERM, "level 0 from inside: A cannot set a value");
	expect(aw(A, me, "+x\n"), EPERM, "level 0 from inside: A cannot tag another process");
	a_is(A, 0, "@MGR:host\nhost-unkept\n", "A reads its level-0 tags unchanged through /proc/ptags");
	a_root(A, L1);

	/* A process outside the level is not there. */
	expect(a_read(A, me, buf, sizeof(buf)), ENOENT,
	       "level 1: a process outside the level (this test, tagged at level 0 by then) is ENOENT");
	expect(a_read(A, 1, buf, sizeof(buf)), ENOENT, "level 1: pid 1 is ENOENT");
	expect(aw(A, me, "+x\n"), ENOENT, "level 1: writing to a process outside the level: ENOENT");
	root_write(me, "+root-test\n");
	pids[0] = A->pid;
	a_lists(A, pids, 1, "level 1 lists A only, though others are tagged at level 0");

	/* The host's administrator reaches the level through A's mount. */
	snprintf(a_l1, sizeof(a_l1), "/proc/%d/root" L1, (int)A->pid);
	ok(root_read_at(a_l1, A->pid) >= 0 && !strcmp(buf, "@MGR:c1=abc\nunkept1\n"),
	   "root reads A's level-1 tags through A's mount");
	ok(root_read_at(a_l1, me) == -ENOENT, "root itself is outside the level there: ENOENT");

	/* ---- A child of the manager inherits both levels. */
	K = agent_child(A);
	if (!K)
		die("A forks an agent");
	a_is(K, 0, "@MGR:c1=abc\nunkept1\n", "K (A's child) inherited A's level-1 tags");
	a_root(K, "");
	a_is(K, 0, "@MGR:host\nhost-unkept\n", "K inherited A's level-0 tags");
	a_root(K, L1);
	pids[1] = K->pid;
	a_lists(A, pids, 2, "level 1 lists A and K");
	expect(acmd(K, OP_DROPMAC, 0, NULL), 0, "K drops CAP_MAC_ADMIN (root of the namespace otherwise)");
	expect(aw(K, 0, "-MGR:c1\n"), EPERM, "K cannot remove its level-1 tag");
	expect(aw(K, 0, "!MGR:c1=forged\n"), EPERM, "K cannot change its level-1 value");
	expect(aw(K, 0, "-@MGR:c1\n"), EPERM, "K cannot unkeep its level-1 tag");
	expect(aw(K, 0, "+MGR:extra\n"), EPERM, "K cannot add a level-1 tag");
	expect(aw(K, 0, "-\n"), 0, "K's '-' at level 1 succeeds and removes nothing");
	a_is(K, 0, "@MGR:c1=abc\nunkept1\n", "K's level-1 tags are unchanged");

	/* Delegated rights, per level. */
	expect(aw(A, K->pid, "+ptags:S:add\n"), 0, "A grants K ptags:S:add at level 1");
	root_write(K->pid, "+ptags:T:add\n");
	expect(aw(K, 0, "+S:camera\n"), 0, "K adds S:camera to itself at level 1 (delegated right)");
	expect(aw(K, 0, "+T:x\n"), EPERM, "K's level-0 ptags:T:add grants nothing at level 1");
	expect(aw(K, A->pid, "+S:x\n"), EPERM, "K cannot add S:x to A (no ptags:S:others)");
	a_root(K, "");
	expect(aw(K, 0, "+S:camera\n"), EPERM, "K's level-1 ptags:S:add grants nothing at level 0");
	expect(aw(K, 0, "+T:y\n"), 0, "K adds T:y at level 0 (its level-0 right)");
	a_root(K, L1);
	a_is(K, 0, "@MGR:c1=abc\nS:camera\nptags:S:add\nunkept1\n",
	     "K's level-1 tags: the grant and S:camera, no T:y");
	ok(pt_is(K->pid, "@MGR:host\nT:y\nhost-unkept\nptags:T:add\n"),
	   "K's level-0 tags: no S:camera");

	/* The opener rule at a level: A's descriptor gives K nothing. */
	expect(a_open(A, K->pid, 0), 0, "A opens K's level-1 entry for writing");
	expect(a_pass(A, K, 0), 0, "A hands the descriptor to K");
	expect(a_fdw(K, 0, "-MGR:c1\n"), EPERM,
	       "K writing through A's descriptor is not privileged at level 1: EPERM");
	expect(a_fdw(A, 0, "+MGR:by-fd\n"), 0, "A writes through its own descriptor");
	expect(aw(A, K->pid, "-MGR:by-fd\n"), 0, "A removes it again");

	/*
	 * The other direction: K (no CAP_MAC_ADMIN at level 1) opens, A (which
	 * has it) writes.  Privilege needs both, so A can do no more than K.
	 */
	expect(a_open(K, K->pid, 1), 0,
	       "K, unprivileged at level 1, opens its own level-1 entry for writing");
	expect(a_pass(K, A, 1), 0, "K hands the descriptor to A");
	expect(a_fdw(A, 1, "-MGR:c1\n"), EPERM,
	       "A (CAP_MAC_ADMIN at level 1) through K's descriptor cannot remove K's tag: EPERM");
	expect(a_fdw(A, 1, "+MGR:via-k\n"), EPERM,
	       "nor add a tag through it: EPERM");
	expect(a_fdw(A, 1, "!MGR:c1=forged\n"), EPERM,
	       "nor set a value through it: EPERM");
	expect(a_fdw(A, 1, "+S:via-k\n"), EPERM,
	       "nor use K's ptags:S:add, which A does not hold: EPERM");
	expect(a_fdw(A, 1, "?@MGR:c1\n"), 0,
	       "an assertion (no right needed) through it succeeds");
	a_is(K, 0, "@MGR:c1=abc\nS:camera\nptags:S:add\nunkept1\n",
	     "K's level-1 tags are unchanged by A's writes through K's descriptor");
	expect(aw(A, K->pid, "!MGR:c1=abc\n"), 0,
	       "A writing directly (its own opener) is privileged at level 1");
	agent_cmd(A, OP_CLOSE, 0, 1, NULL, -1, NULL, NULL, 0);
	agent_cmd(K, OP_CLOSE, 0, 1, NULL, -1, NULL, NULL, 0);

	/* ---- Exec and exit at two levels at once. */
	K2 = agent_child(A);
	if (!K2)
		die("A forks a second agent");
	a_root(K2, L1);
	a_is(K2, 0, "@MGR:c1=abc\nunkept1\n", "K2 inherited A's level-1 tags");
	pruned = pt_stat("pruned");
	tagged = pt_stat("tagged_processes");
	expect(acmd(K2, OP_EXEC, 0, NULL), 0, "K2 executes a program");
	a_root(K2, L1);
	a_is(K2, 0, "@MGR:c1=abc\n", "after exec, level 1 keeps only the kept tag, with its value");
	ok(pt_is(K2->pid, "@MGR:host\n"), "after exec, level 0 keeps only the kept tag");
	ok(pt_stat("pruned") == pruned + 1,
	   "one exec that pruned two levels counts once in pruned (%ld -> %ld)",
	   pruned, pt_stat("pruned"));
	ok(pt_stat("tagged_processes") == tagged,
	   "tagged_processes counts processes, not levels (%ld)", tagged);
	ok(agent_end(K2), "K2 exits");
	ok(stat_becomes("tagged_processes", tagged - 1),
	   "its exit released both levels: tagged_processes %ld", tagged - 1);

	/* ---- Limits per level: max_tags and max_bytes bound each set alone. */
	M = agent_child(A);
	if (!M)
		die("A forks a fourth agent");
	max_tags = pt_param("max_tags");
	max_bytes = pt_param("max_bytes");
	expect(aw(A, M->pid, "-\n"), 0, "A clears M's level-1 tags");
	root_write(M->pid, "-\n");
	ok(!pt_set_param("max_tags", 3) && pt_param("max_tags") == 3,
	   "max_tags lowered to 3 (was %ld)", max_tags);
	expect(aw(A, M->pid, "+a\n+b\n+c\n"), 0, "max_tags=3: A adds three tags to M at level 1");
	expect(aw(A, M->pid, "+d\n"), ECANCELED, "max_tags=3: a fourth tag at level 1: ECANCELED");
	expect(pt_write(M->pid, "+a\n+b\n+c\n"), 0,
	       "max_tags=3: M's level-0 set still takes three tags (limits are not summed over levels)");
	expect(pt_write(M->pid, "+d\n"), ECANCELED, "max_tags=3: a fourth tag at level 0: ECANCELED");
	expect(aw(A, M->pid, "-a\n+e\n"), 0,
	       "max_tags=3: level 1 takes a tag in place of one removed while level 0 is full");
	ok(!pt_set_param("max_tags", max_tags) && pt_param("max_tags") == max_tags,
	   "max_tags restored to %ld", max_tags);
	a_is(A, M->pid, "b\nc\ne\n", "M's level-1 tags: three");
	ok(pt_is(M->pid, "a\nb\nc\n"), "M's level-0 tags: three");
	/* Each set holds 3 bytes now. */
	ok(!pt_set_param("max_bytes", 10) && pt_param("max_bytes") == 10,
	   "max_bytes lowered to 10 (was %ld)", max_bytes);
	expect(aw(A, M->pid, "+B:123456\n"), ECANCELED,
	       "max_bytes=10: 8 more bytes on 3 at level 1: ECANCELED");
	expect(aw(A, M->pid, "+B:1234\n"), 0, "max_bytes=10: 6 more (9) fit at level 1");
	expect(pt_write(M->pid, "+B:1234\n"), 0,
	       "max_bytes=10: level 0 takes the same 6 bytes (9 in its set, not 18 summed)");
	expect(pt_write(M->pid, "+B:123456\n"), ECANCELED,
	       "max_bytes=10: 8 more bytes at level 0: ECANCELED");
	ok(!pt_set_param("max_bytes", max_bytes) && pt_param("max_bytes") == max_bytes,
	   "max_bytes restored to %ld", max_bytes);
	a_is(A, M->pid, "B:1234\nb\nc\ne\n", "M's level-1 tags");
	ok(pt_is(M->pid, "B:1234\na\nb\nc\n"), "M's level-0 tags");

	/* ---- A nested manager: depth 2, owning a pid namespace. */
	N = agent_child(A);
	if (!N)
		die("A forks a third agent");
	expect(acmd(N, OP_NEST, 0, NULL), 0, "N creates a user namespace of depth 2");
	expect(acmd(N, OP_UNSHARE, CLONE_NEWNS | CLONE_NEWPID, NULL), 0,
	       "N makes mount and pid namespaces of its own");
	P = agent_child(N);
	if (!P)
		die("N forks an agent in its pid namespace");
	expect(a_mount(P, L2 " level=1"), 0,
	       "P (depth 2, owner of its pid namespace) mounts level=1, its parent level");
	expect(a_mount(P, L3 " level=own"), 0, "P mounts level=own (2)");
	expect(a_mount(P, L0 " level=0"), 0, "P mounts level=0");
	expect(a_mount(P, L1N " level=3"), EINVAL, "P cannot mount level=3: EINVAL");
	a_root(P, L2);
	a_is(P, 0, "@MGR:c1=abc\nunkept1\n", "P sees its level-1 tags (inherited from A)");
	expect(aw(P, 0, "-MGR:c1\n"), EPERM, "P cannot remove a level-1 tag (privileged at level 2 only)");
	expect(aw(P, 0, "+MGR:evil\n"), EPERM, "P cannot add a level-1 tag");
	expect(aw(P, 0, "!MGR:c1=evil\n"), EPERM, "P cannot change a level-1 value");
	pids[0] = 1;
	a_lists(P, pids, 1, "P's level-1 mount lists P only (pid 1 of its pid namespace)");
	a_root(P, L0);
	a_is(P, 0, "@MGR:host\nhost-unkept\n", "P sees its level-0 tags through its level-0 mount");
	expect(aw(P, 0, "-MGR:host\n"), EPERM, "P cannot remove a level-0 tag");

	/* max_levels: P already carries levels 0 and 1. */
	a_root(P, L3);
	pt_set_param("max_levels", 2);
	expect(aw(P, 0, "+@inner\n"), ECANCELED, "max_levels=2: a third level's first tag is ECANCELED");
	pt_set_param("max_levels", max_levels);
	expect(aw(P, 0, "+@inner\n"), 0, "max_levels=8: P tags itself at its own level 2");
	a_is(P, 0, "@inner\n", "P's level-2 tags");
	a_root(P, L2);
	a_is(P, 0, "@MGR:c1=abc\nunkept1\n", "level-2 tags do not show at level 1");
	a_is(A, P->pid, "@MGR:c1=abc\nunkept1\n", "A sees P (by its host pid) at level 1, without level-2 tags");
	expect(aw(A, P->pid, "+MGR:from-A\n"), 0, "A (privileged at level 1) tags P at level 1");
	a_is(P, 0, "@MGR:c1=abc\nMGR:from-A\nunkept1\n", "P sees A's tag at level 1");
	ok(pt_is(P->pid, "@MGR:host\nhost-unkept\n"), "P's level-0 tags are unchanged");

	/*
	 * max_levels is a depth (SPEC §12, docs/SECURITY.md §3 [r3 #4]): sets at
	 * inner levels never block an outer one, nor does ECANCELED at level
	 * 0 reveal them.
	 */
	ok(!pt_write(P->pid, "-\n"), "root untags P at level 0 (P keeps its sets at levels 1 and 2)");
	pt_set_param("max_levels", 2);
	rc = pt_write(P->pid, "+@MGR:host\n+host-unkept\n");
	ok(rc == 0, "max_levels=2: root's first level-0 tag of P, which has sets at levels 1 and 2, succeeds (%s)",
	   strerror(rc));
	pt_set_param("max_levels", max_levels);
	if (rc)
		pt_write(P->pid, "+@MGR:host\n+host-unkept\n");
	ok(pt_is(P->pid, "@MGR:host\nhost-unkept\n"), "P's level-0 tags are back");

	/* ---- hidepid at a level: a user namespace made by root, two uids. */
	R = agent_new(true);
	expect(acmd(R, OP_UNSHARE, CLONE_NEWUSER, NULL), 0, "R (root) creates a user namespace");
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)R->pid);
	rc = file_write(path, "0 0 65536\n");
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)R->pid);
	rc = rc ?: file_write(path, "0 0 65536\n");
	ok(!rc, "root maps uids and gids 0-65535 into it");
	expect(acmd(R, OP_UNSHARE, CLONE_NEWNS, NULL), 0, "R makes a mount namespace");

	/*
	 * ---- The peer check at a level: in R's namespace a daemon D (uid
	 * 100) checks a client C (uid 200), neither privileged; neither can
	 * mount, so libptags finds R's mount of its level in mountinfo.
	 */
	expect(a_mount(R, LP " level=own"), 0, "R mounts level=own");
	a_root(R, LP);
	D = agent_child(R);
	C = agent_child(R);
	if (!D || !C)
		die("R forks two agents");
	expect(aw(R, C->pid, "+S:camera\n"), 0, "R grants C S:camera at its level");
	root_write(C->pid, "+lvl0-only\n");
	expect(acmd(D, OP_DROP, 100, NULL), 0, "D drops to uid 100 in R's namespace");
	expect(acmd(C, OP_DROP, 200, NULL), 0, "C drops to uid 200 in R's namespace");
	expect(agent_cmd(C, OP_PAIR, 0, 0, NULL, -1, NULL, NULL, 0), 0, "C makes a socket pair");
	expect(a_pass(C, D, 1), 0, "C hands one end to D");
	expect(a_peer(D, 1, 1), 0, "D's peer check of C at level 1 succeeds");
	ok(!strcmp(buf, "S:camera\n"), "D sees C's level-1 tags only: [%s]", buf);
	expect(a_peer(D, 1, 0), 0, "D's peer check of C at level 0 succeeds");
	ok(!strcmp(buf, "lvl0-only\n"), "D sees C's level-0 tags only: [%s]", buf);
	expect(a_peer(D, 1, PTAGS_LEVEL_OWN), -EPERM,
	       "D's peer check at level own: -EPERM (D cannot mount, and no fallback)");
	expect(a_peer(D, 1, 2), -EPERM, "D's peer check at level 2 (none in its mountinfo, cannot mount): -EPERM");
	expect(aw(C, 0, "-S:camera\n"), EPERM, "C cannot drop S:camera at its level");
	ok(agent_end(C) && agent_end(D), "C and D exit");
	expect(a_mount(R, LH " level=own,hidepid=invisible"), 0,
	       "R mounts level=own with hidepid=invisible");
	a_root(R, LH);
	expect(aw(R, 0, "+x\n"), 0, "R tags itself at its level");
	H = agent_child(R);
	if (!H)
		die("R forks an agent");
	expect(acmd(H, OP_DROP, 1000, NULL), 0, "H drops to uid 1000 in R's namespace");
	expect(a_read(H, R->pid, buf, sizeof(buf)), ENOENT, "hidepid=invisible: H cannot see R (uid 0)");
	a_is(H, 0, "x\n", "H sees its own entry");
	pids[0] = H->pid;
	a_lists(H, pids, 1, "hidepid=invisible: H's listing shows H, not R");
	pids[1] = R->pid;
	a_lists(R, pids, 2, "R's listing shows both");

	/* R and H are tagged at R's level only: nothing of them at level 0. */
	a_is(R, R->pid, "x\n", "R reads its own tag at its level");
	ok(root_lists(A->pid) == 1, "/proc/ptags lists A, tagged at level 0");
	ok(root_lists(R->pid) == 0, "/proc/ptags does not list R, tagged at level 1 only");
	ok(root_lists(H->pid) == 0, "/proc/ptags does not list H, tagged at level 1 only");
	rc = root_read_at(PT_ROOT, R->pid);
	ok(rc == 0, "/proc/ptags/R reads empty (%d: [%s])", rc, tap_esc(buf));
	rc = root_read_at(PT_ROOT, H->pid);
	ok(rc == 0, "/proc/ptags/H reads empty (%d: [%s])", rc, tap_esc(buf));

	/* Sibling levels (depth 1 both) know nothing of each other. */
	expect(a_read(A, R->pid, buf, sizeof(buf)), ENOENT,
	       "A's level does not show R, tagged at a sibling level: ENOENT");
	expect(aw(A, R->pid, "-x\n"), ENOENT, "nor lets A change it");
	expect(a_read(R, A->pid, buf, sizeof(buf)), ENOENT,
	       "R's level does not show A: ENOENT");

	/* ---- The command at a level: A, root of its namespace, and K. */
	snprintf(path, sizeof(path), "/bin/ptags --level own has %d MGR:c1=abc", (int)K->pid);
	expect(a_run(A, path), 0, "A: ptags --level own has K MGR:c1=abc: yes");
	snprintf(path, sizeof(path), "/bin/ptags --level own has %d MGR:host", (int)K->pid);
	expect(a_run(A, path), 1, "A: ptags --level own has K MGR:host (a level-0 tag): no");
	snprintf(path, sizeof(path), "/bin/ptags --level 1 has %d MGR:c1=abc", (int)K->pid);
	expect(a_run(A, path), 0, "A: ptags --level 1 (its own depth) has K MGR:c1=abc: yes");
	snprintf(path, sizeof(path), "/bin/ptags --level 0 has %d MGR:host", (int)K->pid);
	expect(a_run(A, path), 0,
	       "A: ptags --level 0 (A cannot mount it; /proc/ptags from mountinfo) has K MGR:host: yes");
	snprintf(path, sizeof(path), "/bin/ptags --level 2 has %d MGR:c1", (int)K->pid);
	rc = a_run(A, path);
	ok(rc == 5 && strstr(buf, "level"), "A: ptags --level 2 (off its chain): exit 5 (%d: %s)", rc, buf);
	snprintf(path, sizeof(path), "/bin/ptags --level own rm %d MGR:c1", (int)K->pid);
	expect(a_run(K, path), 3, "K: ptags --level own rm K MGR:c1: permission denied (3)");
	snprintf(path, sizeof(path), "/bin/ptags --level own add %d MGR:cli", (int)K->pid);
	expect(a_run(A, path), 0, "A: ptags --level own add K MGR:cli");
	ok(pt_is(K->pid, "@MGR:host\nT:y\nhost-unkept\nptags:T:add\n"),
	   "K's level-0 tags are unchanged by it");
	rc = a_run(A, "/bin/ptags --level own ps MGR:cli");
	snprintf(path, sizeof(path), "%d ", (int)K->pid);
	ok(!rc && strstr(buf, path) && !strstr(buf, "MGR:host"),
	   "A: ptags --level own ps MGR:cli lists K (%d: %s)", rc, buf);
	snprintf(path, sizeof(path), "/bin/ptags --level own rm %d MGR:cli", (int)K->pid);
	expect(a_run(A, path), 0, "A: ptags --level own rm K MGR:cli");

	/* ---- Watching, per level: root watches level 0 and A's level 1. */
	in0 = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	in1 = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (in0 < 0 || in1 < 0 || inotify_add_watch(in0, PT_ROOT, IN_MODIFY) < 0 ||
	    inotify_add_watch(in1, a_l1, IN_MODIFY) < 0)
		die("inotify on %s and %s", PT_ROOT, a_l1);
	drain(in0);
	drain(in1);
	expect(aw(A, K->pid, "+W:one\n"), 0, "A changes K's level-1 tags");
	ok(got_event(in1, K->pid, IN_MODIFY, 2000), "level 1's directory watch sees IN_MODIFY for K");
	ok(!got_event(in0, K->pid, IN_MODIFY, 300), "level 0's directory watch sees nothing");
	root_write(K->pid, "+W:zero\n");
	ok(got_event(in0, K->pid, IN_MODIFY, 2000), "root changes K's level-0 tags: level 0 sees IN_MODIFY");
	ok(!got_event(in1, K->pid, IN_MODIFY, 300), "level 1 sees nothing");
	close(in0);
	close(in1);

	/* ---- The counters go back to 0. */
	root_write(me, "-\n");
	agents_end();
	ok(pt_counters_are(0, 0, 0, "end"), "every level's sets are released: live_sets, tagged_processes, bytes 0");
	ok(stat_becomes("memory", 0), "memory 0 (%ld)", pt_stat("memory"));
	return tap_done();
}
