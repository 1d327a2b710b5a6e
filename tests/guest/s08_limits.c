// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §8 limits and administration, against the real module: parameters
 * (defaults, who may read and write them), max_tags / max_bytes /
 * max_write, lowering and raising limits, the counters (exact tracking,
 * read-only), "logs nothing", and the memory cgroup charge.
 */
#define _GNU_SOURCE
#include <grp.h>
#include "guest.h"

#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define PARAMS "/sys/module/ptags/parameters/"
#define STATS "/sys/module/ptags/stats/"

static const char *counters[] = {
	"live_sets", "tagged_processes", "bytes", "inherited", "pruned",
	"refused", "killed",
};
#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))

static bool set_param(const char *name, long v)
{
	int err = pt_set_param(name, v);

	if (err || pt_param(name) != v)
		die("set %s=%ld: %s", name, v, strerror(err));
	return true;
}

/* ------------------------------------------------------------ parameters */

struct unpriv_res {
	long val[3];
	int werr[3];
	long live;
	int cerr;
};

static const char *params[] = { "max_tags", "max_bytes", "max_write" };

static void test_params(void)
{
	static const long defaults[] = { 4000, 4194304, 1048576 };
	struct unpriv_res *r;
	struct stat sb;
	char path[128];
	unsigned i;
	pid_t pid;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), PARAMS "%s", params[i]);
		ok(pt_param(params[i]) == defaults[i], "SPEC §8: %s defaults to %ld (got %ld)",
		   params[i], defaults[i], pt_param(params[i]));
		ok(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0644,
		   "SPEC §8: %s is readable by all, writable by root (mode 0%o)", params[i],
		   (unsigned)(sb.st_mode & 0777));
	}

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		die("mmap");
	memset(r, 0, sizeof(*r));
	pid = tap_fork();
	if (pid == 0) {
		int fd;

		if (drop_privileges(65534))
			_exit(1);
		for (i = 0; i < 3; i++) {
			r->val[i] = pt_param(params[i]);
			r->werr[i] = pt_set_param(params[i], 5);
		}
		r->live = pt_stat("live_sets");
		snprintf(path, sizeof(path), STATS "live_sets");
		fd = open(path, O_WRONLY);
		r->cerr = fd < 0 ? errno : 0;
		_exit(0);
	}
	ok(wait_exit(pid) == 0, "setup: unprivileged child dropped its capabilities");
	for (i = 0; i < 3; i++) {
		ok(r->val[i] == defaults[i], "SPEC §8: an unprivileged process can read %s (%ld)", params[i], r->val[i]);
		ok(r->werr[i] == EACCES || r->werr[i] == EPERM,
		   "SPEC §8: an unprivileged write to %s fails EACCES/EPERM (got %s)", params[i], strerror(r->werr[i]));
		ok(pt_param(params[i]) == defaults[i], "SPEC §8: %s unchanged by the refused write", params[i]);
	}
	ok(r->live == pt_stat("live_sets"), "SPEC §8: an unprivileged process can read the counters");
	ok(r->cerr == EACCES || r->cerr == EPERM, "SPEC §8: an unprivileged process cannot open a counter for writing");
	munmap(r, sizeof(*r));

	/* root may write the parameters */
	ok(pt_set_param("max_tags", 3999) == 0 && pt_param("max_tags") == 3999 &&
	   pt_set_param("max_tags", 4000) == 0 && pt_param("max_tags") == 4000,
	   "SPEC §8: root can change a parameter at run time");

	for (i = 0; i < NCOUNTERS; i++) {
		char buf[8] = "1\n";
		int fd, err;
		long before = pt_stat(counters[i]);

		snprintf(path, sizeof(path), STATS "%s", counters[i]);
		ok(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0444 && before >= 0,
		   "SPEC §8: counter %s exists, mode 0444 (value %ld)", counters[i], before);
		fd = open(path, O_WRONLY);
		err = fd < 0 ? errno : 0;
		if (fd >= 0) {
			err = write(fd, buf, 2) < 0 ? errno : 0;
			close(fd);
		}
		ok(err != 0 && pt_stat(counters[i]) == before,
		   "SPEC §8: counter %s is read-only, even for root (%s)", counters[i],
		   err ? strerror(err) : "write succeeded");
	}
}

/* --------------------------------------------------------------- limits */

static void test_max_tags_default(void)
{
	size_t cap = 4001 * 8 + 16, len = 0;
	char *buf = malloc(cap);
	long refused;
	pid_t t;
	struct idler tw;
	int i;

	if (!buf)
		die("malloc");
	t = idler_start(&tw);
	for (i = 0; i < 4001; i++)
		len += sprintf(buf + len, "+t%04d\n", i);
	refused = pt_stat("refused");
	ok(pt_write_len(t, buf, len) == ECANCELED && pt_lines(t) == 0,
	   "SPEC §8/§7: one write adding 4001 tags fails ECANCELED and changes nothing");
	ok(pt_stat("refused") == refused + 1, "SPEC §8: refused counts the failed write");
	len -= 7;	/* drop +t4000 */
	ok(pt_write_len(t, buf, len) == 0 && pt_lines(t) == 4000,
	   "SPEC §8: max_tags=4000 tags fit (%d lines)", pt_lines(t));
	ok(pt_write(t, "+extra\n") == ECANCELED, "SPEC §6/§8: adding tag 4001 fails ECANCELED");
	ok(pt_write(t, "+@t0000\n+t0001\n!t0002=v\n") == 0 && pt_lines(t) == 4000,
	   "SPEC §8: at max_tags, keep flags, existing adds and values still work");
	ok(pt_write(t, "-t0003\n+extra\n") == 0 && pt_lines(t) == 4000,
	   "SPEC §8: at max_tags, remove one then add one in a transaction works");
	pt_write(t, "-\n");
	idler_reap(&tw);
	free(buf);
}

static void test_max_tags_small(void)
{
	pid_t t;
	struct idler tw;

	set_param("max_tags", 5);
	t = idler_start(&tw);
	ok(pt_write(t, "+t1\n+t2\n+t3\n+t4\n+t5\n") == 0, "SPEC §8: max_tags=5: five tags fit");
	ok(pt_write(t, "+t6\n") == ECANCELED, "SPEC §8: max_tags=5: the sixth fails ECANCELED");
	set_param("max_tags", 3);
	ok(pt_is(t, "t1\nt2\nt3\nt4\nt5\n"), "SPEC §8: lowering max_tags below usage removes no tag");
	ok(pt_write(t, "+x\n") == ECANCELED, "SPEC §8: above a lowered max_tags, growth fails ECANCELED");
	ok(pt_write(t, "-t1\n+x\n") == ECANCELED && pt_is(t, "t1\nt2\nt3\nt4\nt5\n"),
	   "SPEC §8: above a lowered max_tags, -one +one still exceeds the limit: ECANCELED, nothing changed");
	ok(pt_write(t, "+x\n-x\n") == ECANCELED,
	   "SPEC §3.4/§8: lines apply in order: +x beyond max_tags fails even if a later line removes it");
	ok(pt_write(t, "-t1\n") == 0 && pt_is(t, "t2\nt3\nt4\nt5\n"),
	   "SPEC §8: above a lowered max_tags, removals still work");
	ok(pt_write(t, "!t2=value\n+@t3\n+t4\n") == 0 && pt_is(t, "t2=value\n@t3\nt4\nt5\n"),
	   "SPEC §8: above a lowered max_tags, values and keep flags of existing tags still work");
	set_param("max_tags", 10);
	ok(pt_write(t, "+x\n") == 0 && pt_is(t, "t2=value\n@t3\nt4\nt5\nx\n"),
	   "SPEC §8: raising max_tags again allows growth");
	set_param("max_tags", 4000);
	pt_write(t, "-\n");
	idler_reap(&tw);
}

/* bytes == @want, polling up to 5 s (frees lag an RCU grace period). */
static bool bytes_is(long want)
{
	long b = 0;

	for (int i = 0; i < 250; i++) {
		b = pt_stat("bytes");
		if (b == want)
			return true;
		usleep(20000);
	}
	diag("bytes %ld, want %ld", b, want);
	return false;
}

static void test_max_bytes_small(void)
{
	long bytes;

	pt_quiesce();
	bytes = pt_stat("bytes");
	pid_t t;
	struct idler tw;

	set_param("max_bytes", 20);
	t = idler_start(&tw);
	ok(pt_write(t, "+abcd\n!abcd=0123456789\n") == 0 && bytes_is(bytes + 14),
	   "SPEC §8: bytes counts names and values only (+14, got %+ld)", pt_stat("bytes") - bytes);
	ok(pt_write(t, "+efghij\n") == 0 && bytes_is(bytes + 20),
	   "SPEC §8: max_bytes=20: exactly 20 bytes fit");
	ok(pt_write(t, "+k\n") == ECANCELED, "SPEC §6/§8: a new tag beyond max_bytes fails ECANCELED");
	ok(pt_write(t, "!abcd=01234567890\n") == ECANCELED, "SPEC §7/§8: a value growing beyond max_bytes fails ECANCELED");
	ok(pt_is(t, "abcd=0123456789\nefghij\n"), "SPEC §3.4: the refused writes changed nothing");
	ok(pt_write(t, "!abcd=0123\n+k\n") == 0 && bytes_is(bytes + 15),
	   "SPEC §8: shrinking a value makes room (bytes +15)");
	set_param("max_bytes", 10);
	ok(pt_is(t, "abcd=0123\nefghij\nk\n"), "SPEC §8: lowering max_bytes below usage removes no tag");
	ok(pt_write(t, "+z\n") == ECANCELED, "SPEC §8: above a lowered max_bytes, a new tag fails ECANCELED");
	ok(pt_write(t, "!abcd=01234\n") == ECANCELED, "SPEC §8: above a lowered max_bytes, a growing value fails ECANCELED");
	ok(pt_write(t, "!abcd=012\n") == 0 && pt_is(t, "abcd=012\nefghij\nk\n"),
	   "SPEC §8: above a lowered max_bytes, shrinking a value works");
	ok(pt_write(t, "-k\n+@abcd\n") == 0 && pt_is(t, "@abcd=012\nefghij\n"),
	   "SPEC §8: above a lowered max_bytes, removals and keep flags work");
	set_param("max_bytes", 100);
	ok(pt_write(t, "+z\n!abcd=0123456789\n") == 0, "SPEC §8: raising max_bytes again allows growth");
	set_param("max_bytes", 4194304);
	pt_write(t, "-\n");
	ok(bytes_is(bytes), "SPEC §8: bytes back after removing every tag");
	idler_reap(&tw);
}

static void test_max_bytes_default(void)
{
	const size_t chunk = 900 * 1024;
	long bytes, total = 0, limit = 4194304;
	char *buf = malloc(chunk + 40000), *val = malloc(32701);
	struct idler tw;
	int n = 0, err = 0;
	size_t len = 0;
	pid_t t;

	if (!buf || !val)
		die("malloc");
	memset(val, 'v', 32700);
	val[32700] = 0;
	pt_quiesce();
	bytes = pt_stat("bytes");
	t = idler_start(&tw);
	while (total < limit && !err) {
		long left = limit - total, vl;

		/* name "nNNNN" = 5 bytes */
		vl = left - 5 > 32700 ? 32700 : left - 5;
		if (vl < 0)
			break;
		len += sprintf(buf + len, "+n%04d\n!n%04d=%.*s\n", n, n, (int)vl, val);
		n++;
		total += 5 + vl;
		if (len > chunk - 40000 || total >= limit) {
			err = pt_write_len(t, buf, len);
			len = 0;
		}
	}
	ok(err == 0 && total == limit && bytes_is(bytes + limit),
	   "SPEC §8: exactly max_bytes=4 MiB of names and values fit (%d tags, bytes %+ld)",
	   n, pt_stat("bytes") - bytes);
	ok(pt_write(t, "+y\n") == ECANCELED, "SPEC §8: one more tag beyond 4 MiB fails ECANCELED");
	ok(pt_write(t, "!n0000=v\n+y\n") == 0, "SPEC §8: shrinking a value at the limit makes room");
	pt_write(t, "-\n");
	ok(bytes_is(bytes), "SPEC §8: bytes back after removal");
	idler_reap(&tw);
	free(buf);
	free(val);
}

static void test_max_write(void)
{
	size_t big = 1048576 + 1;
	char *buf = malloc(big);
	long refused;
	pid_t t;
	struct idler tw;

	if (!buf)
		die("malloc");
	t = idler_start(&tw);
	buf[0] = '#';
	memset(buf + 1, 'c', big - 2);
	buf[big - 2] = '\n';
	ok(pt_write_len(t, buf, big - 1) == 0, "SPEC §8: a write of exactly max_write=1 MiB is accepted");
	buf[big - 2] = 'c';
	buf[big - 1] = '\n';
	refused = pt_stat("refused");
	ok(pt_write_len(t, buf, big) == E2BIG, "SPEC §8/§7: a write of max_write+1 bytes fails E2BIG");
	ok(pt_stat("refused") == refused + 1, "SPEC §8: refused counts the E2BIG write");
	set_param("max_write", 10);
	ok(pt_write(t, "+abcdefgh\n") == 0 && pt_write(t, "+abcdefghi\n") == E2BIG,
	   "SPEC §8: max_write=10: 10 bytes pass, 11 fail E2BIG");
	set_param("max_write", 1048576);
	pt_write(t, "-\n");
	idler_reap(&tw);
	free(buf);
}

/* ------------------------------------------------------------- counters */

struct ctr {
	long live, tagged, bytes, inherited, pruned, refused;
};

static struct ctr ctr_now(void)
{
	struct ctr c = {
		pt_stat("live_sets"), pt_stat("tagged_processes"), pt_stat("bytes"),
		pt_stat("inherited"), pt_stat("pruned"), pt_stat("refused"),
	};
	return c;
}

/* Sets are freed after an RCU grace period: poll up to 5 s for a match. */
static bool ctr_delta(struct ctr b, long live, long tagged, long bytes, long inh,
		      long pruned, long refused)
{
	struct ctr c;
	int i;

	for (i = 0; i < 250; i++) {
		c = ctr_now();
		if (c.live - b.live == live && c.tagged - b.tagged == tagged &&
		    c.bytes - b.bytes == bytes && c.inherited - b.inherited == inh &&
		    c.pruned - b.pruned == pruned && c.refused - b.refused == refused)
			return true;
		usleep(20000);
	}
	diag("deltas: live_sets %+ld (want %+ld) tagged_processes %+ld (%+ld) bytes %+ld (%+ld) inherited %+ld (%+ld) pruned %+ld (%+ld) refused %+ld (%+ld)",
	     c.live - b.live, live, c.tagged - b.tagged, tagged, c.bytes - b.bytes, bytes,
	     c.inherited - b.inherited, inh, c.pruned - b.pruned, pruned,
	     c.refused - b.refused, refused);
	return false;
}

/*
 * Process A: reads commands from fd 'cmd'.  'f': fork G (G waits for EOF on
 * 'gfd'), report G's pid on 'rep'.  'e': exec ourselves in --wait mode,
 * which says "r" on 'rep' once it runs (so after the exec tracepoint) and
 * waits for EOF on 'cmd'.
 */
static void a_main(int cmd, int gfd, int rep)
{
	char c, fdbuf[16], repbuf[16];
	pid_t g;

	while (read(cmd, &c, 1) == 1) {
		if (c == 'f') {
			g = fork();
			if (g == 0) {
				close(cmd);
				while (read(gfd, &c, 1) > 0)
					;
				_exit(0);
			}
			if (write(rep, &g, sizeof(g)) != sizeof(g))
				_exit(3);
		} else if (c == 'e') {
			char *argv[] = { "s08_limits", "--wait", fdbuf, repbuf,
					 NULL };

			snprintf(fdbuf, sizeof(fdbuf), "%d", cmd);
			snprintf(repbuf, sizeof(repbuf), "%d", rep);
			close(gfd);
			if (write(rep, "e", 1) != 1)
				_exit(3);
			execv("/proc/self/exe", argv);
			_exit(127);
		}
	}
	_exit(0);
}

static void test_counters(void)
{
	int cmd[2], gp[2], rep[2];
	struct ctr b;
	pid_t a, g, u;
	char c;

	if (pipe(cmd) || pipe(gp) || pipe(rep))
		die("pipe");
	pt_quiesce();
	b = ctr_now();
	a = tap_fork();
	if (a == 0) {
		close(cmd[1]);
		close(gp[1]);
		close(rep[0]);
		a_main(cmd[0], gp[0], rep[1]);
	}
	close(cmd[0]);
	close(gp[0]);
	close(rep[1]);

	ok(ctr_delta(b, 0, 0, 0, 0, 0, 0), "SPEC §8: an untagged process changes no counter");
	ok(pt_write(a, "+a\n!a=xyz\n") == 0 && ctr_delta(b, 1, 1, 4, 0, 0, 0),
	   "SPEC §8: tagging one process with a=xyz: live_sets +1, tagged_processes +1, bytes +4");
	if (write(cmd[1], "f", 1) != 1 || read(rep[0], &g, sizeof(g)) != sizeof(g))
		die("fork in A");
	ok(pt_is(g, "a=xyz\n") && ctr_delta(b, 1, 2, 4, 1, 0, 0),
	   "SPEC §8: fork of a tagged process: tagged_processes +1, inherited +1, live_sets and bytes unchanged (shared set)");
	ok(pt_write(g, "+b\n") == 0 && ctr_delta(b, 2, 2, 9, 1, 0, 0),
	   "SPEC §8: changing the child's copy: live_sets +1, bytes +5");
	ok(pt_write(g, "-\n") == 0 && ctr_delta(b, 1, 1, 4, 1, 0, 0),
	   "SPEC §8: untagging the child: tagged_processes -1, live_sets -1");
	ok(pt_write(g, "+b\n") == 0 && ctr_delta(b, 2, 2, 5, 1, 0, 0), "setup: child tagged again (bytes +1)");
	close(gp[1]);
	{
		int i;

		/* G is A's child: wait until it is a zombie */
		for (i = 0; i < 500; i++) {
			char path[64];
			char st[256];
			int fd;
			ssize_t n;

			snprintf(path, sizeof(path), "/proc/%d/stat", (int)g);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				break;
			n = read(fd, st, sizeof(st) - 1);
			close(fd);
			if (n > 0) {
				char *p;

				st[n] = 0;
				p = strrchr(st, ')');
				if (p && p[2] == 'Z')
					break;
			}
			usleep(10000);
		}
	}
	ok(ctr_delta(b, 1, 1, 4, 1, 0, 0), "SPEC §8: the child's exit (zombie, not reaped): tagged_processes -1, live_sets -1, bytes -1");

	if (write(cmd[1], "e", 1) != 1 || read(rep[0], &c, 1) != 1)
		die("exec in A");
	/*
	 * Wait until the new program runs: /proc/PID/cmdline would show it
	 * before the exec tracepoint has pruned the tags.
	 */
	if (read(rep[0], &c, 1) != 1 || c != 'r')
		die("A's exec did not run");
	ok(pt_is(a, "") && ctr_delta(b, 0, 0, 0, 1, 1, 0),
	   "SPEC §8: exec removing every tag: pruned +1, tagged_processes/live_sets/bytes back");

	ok(pt_write(a, "+bad=x\n") == EINVAL && ctr_delta(b, 0, 0, 0, 1, 1, 1),
	   "SPEC §8: a failed write (EINVAL) increments refused");
	ok(pt_write(a, "!nope=1\n") == ENOENT && ctr_delta(b, 0, 0, 0, 1, 1, 2),
	   "SPEC §8: a failed write (ENOENT) increments refused");
	ok(pt_write(a, "") == 0 && pt_write(a, "#c\n") == 0 && ctr_delta(b, 0, 0, 0, 1, 1, 2),
	   "SPEC §8: a 0-byte write and a comment change no counter");

	/* fork of an untagged process: inherited unchanged */
	u = tap_fork();
	if (u == 0)
		_exit(0);
	wait_exit(u);
	ok(ctr_delta(b, 0, 0, 0, 1, 1, 2), "SPEC §8: fork of an untagged process does not count as inherited");

	close(cmd[1]);
	close(rep[0]);
	wait_exit(a);
	/* G's zombie was reparented to us (subreaper) */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	ok(ctr_delta(b, 0, 0, 0, 1, 1, 2), "SPEC §8: counters back after everything exits");
}

/* ----------------------------------------------------------- kernel log */

static int kmsg_open_at_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	lseek(fd, 0, SEEK_END);
	return fd;
}

static int kmsg_new_lines(int fd)
{
	char rec[2048];
	int n = 0;
	ssize_t r;

	for (;;) {
		r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (r <= 0)
			break;
		rec[r] = 0;
		diag("kernel log: %s", strtok(rec, "\n"));
		n++;
	}
	return n;
}

/* --------------------------------------------------------- memory cgroup */

#define CG "/sys/fs/cgroup"
#define CGC CG "/ptags_s08"

/* @word is in the first 511 bytes of @file. */
static bool file_has(const char *file, const char *word)
{
	char buf[512];

	return file_read(file, buf, sizeof(buf)) > 0 && strstr(buf, word);
}

/* Build a ~1 MB write of values: "+mNN\n!mNN=vvv...\n". */
static size_t big_tags(char *buf, const char *prefix, size_t *payload)
{
	size_t len = 0;
	int i;

	*payload = 0;
	for (i = 0; i < 30; i++) {
		len += sprintf(buf + len, "+%s%02d\n!%s%02d=", prefix, i, prefix, i);
		memset(buf + len, 'm', 32000);
		len += 32000;
		buf[len++] = '\n';
		*payload += strlen(prefix) + 2 + 32000;
	}
	return len;
}

static void test_memcg(void)
{
	bool mounted_here = false;
	int cmd[2], rep[2];
	struct idler tw;
	size_t len, payload;
	long before, after, root_after;
	char *buf, pidbuf[32], c;
	pid_t writer, t;

	if (!file_has("/proc/filesystems", "cgroup2")) {
		ok(true, "# SKIP cgroup2 not available in this kernel");
		return;
	}
	if (!file_has("/proc/self/mountinfo", " - cgroup2 ")) {
		if (mount("none", CG, "cgroup2", 0, NULL)) {
			ok(true, "# SKIP cannot mount cgroup2 (%s)", strerror(errno));
			return;
		}
		mounted_here = true;
	}
	if (!file_has(CG "/cgroup.controllers", "memory")) {
		ok(true, "# SKIP no memory controller");
		goto out_umount;
	}
	if (file_write(CG "/cgroup.subtree_control", "+memory")) {
		ok(true, "# SKIP cannot enable the memory controller (%s)", strerror(errno));
		goto out_umount;
	}
	rmdir(CGC);
	if (mkdir(CGC, 0755))
		die("mkdir " CGC);

	buf = malloc(1100000);
	if (!buf)
		die("malloc");
	t = idler_start(&tw);
	if (pipe(cmd) || pipe(rep))
		die("pipe");
	writer = tap_fork();
	if (writer == 0) {
		/* buffer built and faulted in before the move */
		len = big_tags(buf, "w", &payload);
		close(cmd[1]);
		close(rep[0]);
		if (write(rep[1], "r", 1) != 1 || read(cmd[0], &c, 1) != 1)
			_exit(3);
		c = pt_write_len(t, buf, len) ? 'E' : 'k';
		if (write(rep[1], &c, 1) != 1)
			_exit(3);
		if (read(cmd[0], &c, 1) < 0)
			_exit(3);
		_exit(0);
	}
	close(cmd[0]);
	close(rep[1]);
	if (read(rep[0], &c, 1) != 1)
		die("writer");
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)writer);
	if (file_write(CGC "/cgroup.procs", pidbuf))
		die("move writer");
	usleep(100000);
	before = file_long(CGC "/memory.current");
	if (write(cmd[1], "g", 1) != 1 || read(rep[0], &c, 1) != 1)
		die("writer step");
	after = file_long(CGC "/memory.current");
	len = big_tags(buf, "w", &payload);
	ok(c == 'k', "setup: the writer in the child cgroup tagged the target with %zu bytes of values", payload);
	diag("child memcg memory.current %ld -> %ld (%+ld), payload %zu", before, after, after - before, payload);
	ok(after - before >= (long)payload * 8 / 10,
	   "SPEC §8: tag memory is charged to the writer's memory cgroup (%+ld bytes for %zu)",
	   after - before, payload);

	/* root (in the root cgroup) writes as much to another process */
	{
		struct idler tw2;
		pid_t t2 = idler_start(&tw2);

		len = big_tags(buf, "r", &payload);
		before = file_long(CGC "/memory.current");
		ok(pt_write_len(t2, buf, len) == 0, "setup: root tagged another target with %zu bytes", payload);
		root_after = file_long(CGC "/memory.current");
		ok(labs(root_after - before) < (long)payload / 4,
		   "SPEC §8: a writer outside the child cgroup is not charged there (%+ld)", root_after - before);
		pt_write(t2, "-\n");
		idler_reap(&tw2);
	}

	/* releasing the writer's tags uncharges the child cgroup */
	before = file_long(CGC "/memory.current");
	pt_write(t, "-\n");
	for (int i = 0; i < 100; i++) {
		after = file_long(CGC "/memory.current");
		if (before - after >= (long)payload * 8 / 10)
			break;
		usleep(50000);
	}
	ok(before - after >= (long)payload * 8 / 10,
	   "SPEC §8: removing the tags gives the charge back (%+ld)", after - before);
	close(cmd[1]);
	close(rep[0]);
	wait_exit(writer);
	idler_reap(&tw);
	free(buf);
	for (int i = 0; i < 50 && rmdir(CGC); i++)
		usleep(100000);
out_umount:
	if (mounted_here)
		umount2(CG, MNT_DETACH);
}

int main(int argc, char **argv)
{
	int kfd, newlines;

	if (argc == 4 && !strcmp(argv[1], "--wait")) {
		char c;
		int fd = atoi(argv[2]), rep = atoi(argv[3]);

		if (write(rep, "r", 1) != 1)
			return 3;
		close(rep);
		while (read(fd, &c, 1) > 0)
			;
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("subreaper");
	if (pt_stat("live_sets") != 0 || pt_stat("tagged_processes") != 0)
		diag("note: counters not 0 at start (live_sets %ld, tagged_processes %ld)",
		     pt_stat("live_sets"), pt_stat("tagged_processes"));

	pt_quiesce();
	kfd = kmsg_open_at_end();
	test_params();
	test_counters();
	test_max_tags_default();
	test_max_tags_small();
	test_max_bytes_small();
	test_max_bytes_default();
	test_max_write();
	if (kfd >= 0) {
		newlines = kmsg_new_lines(kfd);
		ok(newlines == 0, "SPEC §8: the module logs nothing in normal operation (%d new kernel log lines)",
		   newlines);
		close(kfd);
	} else {
		ok(true, "# SKIP /dev/kmsg not available");
	}

	test_memcg();

	pt_quiesce();
	ok(pt_stat("live_sets") == 0 && pt_stat("tagged_processes") == 0 && pt_stat("bytes") == 0,
	   "cleanup: no tagged process left (live_sets %ld tagged %ld bytes %ld)",
	   pt_stat("live_sets"), pt_stat("tagged_processes"), pt_stat("bytes"));
	return tap_done();
}
