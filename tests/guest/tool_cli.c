// SPDX-License-Identifier: GPL-2.0
/*
 * The ptags command, the ptags-launch script and the ptags-permd daemon
 * against the real module: every command, its output (--json checked by a
 * strict JSON parser), exit codes and messages, malformed input with
 * nothing changed, and the daemon serving a tagged client only.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "guest.h"
#include "ptags.h"

static char out[1 << 21], err[1 << 16];

/* ---- a strict JSON validator (RFC 8259) ---- */

static const char *js;

static void ws(void)
{
	while (*js == ' ' || *js == '\t' || *js == '\n' || *js == '\r')
		js++;
}

static bool value(int depth);

static bool string(void)
{
	if (*js++ != '"')
		return false;
	while (*js != '"') {
		unsigned char c = *js;

		if (!c || c < 0x20)
			return false;
		if (c == '\\') {
			js++;
			if (*js == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)js[i]))
						return false;
				js += 5;
				continue;
			}
			if (!strchr("\"\\/bfnrt", *js) || !*js)
				return false;
		}
		js++;
	}
	js++;
	return true;
}

static bool number(void)
{
	if (*js == '-')
		js++;
	if (*js == '0')
		js++;
	else if (isdigit((unsigned char)*js))
		while (isdigit((unsigned char)*js))
			js++;
	else
		return false;
	if (*js == '.') {
		js++;
		if (!isdigit((unsigned char)*js))
			return false;
		while (isdigit((unsigned char)*js))
			js++;
	}
	if (*js == 'e' || *js == 'E') {
		js++;
		if (*js == '+' || *js == '-')
			js++;
		if (!isdigit((unsigned char)*js))
			return false;
		while (isdigit((unsigned char)*js))
			js++;
	}
	return true;
}

static bool members(int depth, char close, bool keys)
{
	js++;
	ws();
	if (*js == close) {
		js++;
		return true;
	}
	for (;;) {
		ws();
		if (keys) {
			if (!string())
				return false;
			ws();
			if (*js++ != ':')
				return false;
		}
		if (!value(depth + 1))
			return false;
		ws();
		if (*js == close) {
			js++;
			return true;
		}
		if (*js++ != ',')
			return false;
	}
}

static bool value(int depth)
{
	if (depth > 64)
		return false;
	ws();
	switch (*js) {
	case '{':
		return members(depth, '}', true);
	case '[':
		return members(depth, ']', false);
	case '"':
		return string();
	case 't':
		return !strncmp(js, "true", 4) && (js += 4);
	case 'f':
		return !strncmp(js, "false", 5) && (js += 5);
	case 'n':
		return !strncmp(js, "null", 4) && (js += 4);
	default:
		return number();
	}
}

static bool json_valid(const char *s)
{
	js = s;
	if (!value(0))
		return false;
	ws();
	return *js == 0;
}

/* ---- running commands ---- */

static bool unpriv;
static const char *input;

static int slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY), n, got = 0;

	buf[0] = 0;
	if (fd < 0)
		return -1;
	while ((size_t)got + 1 < size && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += n;
	buf[got] = 0;
	close(fd);
	return got;
}

/* @s on one line (newlines as "\\n"), at most 200 bytes, for TAP. */
static const char *flat(const char *s)
{
	static char bufs[2][256];
	static int k;
	char *b = bufs[k = !k];
	size_t n = 0;

	for (; *s && n < 200; s++) {
		if (*s == '\n') {
			b[n++] = '\\';
			b[n++] = 'n';
		} else {
			b[n++] = *s;
		}
	}
	b[n] = 0;
	return b;
}

/* Run argv (NULL-terminated); stdout/stderr in out/err; exit status. */
static int runv(char *const argv[])
{
	int status, fd;
	pid_t pid;

	fflush(stdout);
	if (input) {
		fd = open("/tmp/s11.in", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, input, strlen(input)) != (ssize_t)strlen(input))
			die("input");
		close(fd);
	}
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		int o = open("/tmp/s11.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open("/tmp/s11.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int i = open(input ? "/tmp/s11.in" : "/dev/null", O_RDONLY);

		if (o < 0 || e < 0 || i < 0)
			_exit(120);
		dup2(i, 0);
		dup2(o, 1);
		dup2(e, 2);
		if (unpriv && drop_privileges(65534))
			_exit(121);
		execv(argv[0], argv);
		_exit(122);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	slurp("/tmp/s11.out", out, sizeof(out));
	slurp("/tmp/s11.err", err, sizeof(err));
	if (*err)
		diag("stderr: %s", flat(err));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define run(...) runv((char *const[]){ "/bin/ptags", __VA_ARGS__, NULL })

/* Tags of @pid are "A\nB\nC=" and a 32700-byte value. */
static bool pt_has_value(pid_t pid)
{
	static char buf[1 << 16];
	ssize_t n = pt_read(pid, buf, sizeof(buf));

	return n == 6 + PTAGS_VALUE_MAX + 1 && !strncmp(buf, "A\nB\nC=vv", 8);
}

static int pt_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), r = 0;

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		r = -1;
	if (fd >= 0)
		close(fd);
	return r;
}

static char *num(pid_t pid)
{
	static char bufs[4][16];
	static int i;

	i = (i + 1) % 4;
	snprintf(bufs[i], sizeof(bufs[i]), "%d", (int)pid);
	return bufs[i];
}

static void test_show(void)
{
	pid_t a = pt_sleeper("sleeper"), b = pt_sleeper("sleeper");
	char expect[256];
	int r;

	r = run("--help");
	ok(r == 0 && strstr(out, "Usage:") && strstr(out, "Exit status"), "--help (%d)", r);
	ok(run("--bogus") == 2 && strstr(err, "Try 'ptags --help'"), "unknown option: exit 2");
	ok(run("frobnicate") == 2, "unknown command: exit 2");

	pt_write(0, "-\n+CLI:parent\n+@CLI:kept\n");
	r = runv((char *const[]){ "/bin/ptags", NULL });
	ok(r == 0 && !strcmp(out, "@CLI:kept\nCLI:parent\n"),
	   "ptags without PID shows its parent's tags (%d: %s)", r, flat(out));
	r = run("self");
	ok(r == 0 && !strcmp(out, "@CLI:kept\n"), "ptags self: only the kept tags survived exec");
	pt_write(0, "-\n");

	pt_write(a, "+S:x\n+@K\n+MGR:ID\n!MGR:ID=a\"b\\c\n");
	r = run(num(a));
	ok(r == 0 && !strcmp(out, "@K\nMGR:ID=a\"b\\c\nS:x\n"), "ptags PID: the SPEC text");
	pt_write(b, "+T\n");
	r = run(num(a), num(b));
	snprintf(expect, sizeof(expect), "%d\t@K\n%d\tMGR:ID=a\"b\\c\n%d\tS:x\n%d\tT\n",
		 a, a, a, b);
	ok(r == 0 && !strcmp(out, expect), "ptags PID PID: PID<TAB>tag lines");
	r = run("--json", num(a), num(b));
	snprintf(expect, sizeof(expect), "\"pid\":%d,\"tags\":[{\"name\":\"K\",\"value\":null,\"keep\":true}", a);
	ok(r == 0 && json_valid(out) && strstr(out, expect) &&
	   strstr(out, "\"value\":\"a\\\"b\\\\c\""), "--json PID PID parses, escaped value (%s)", flat(out));
	r = run(num(b), "--json");
	ok(r == 0 && json_valid(out) && strstr(out, "\"name\":\"T\""), "PID --json parses");
	ok(!json_valid("[{\"a\":1,}]") && !json_valid("[\"\x01\"]") && !json_valid("{} x"),
	   "the JSON validator rejects bad JSON");
	r = run("999999");
	ok(r == 4 && strstr(err, "cannot read the tags of 999999: no such process"),
	   "missing process: exit 4, message");
	ok(run("12ab") == 2, "not a pid: exit 2");
	pt_stop(a);
	pt_stop(b);
}

static void test_change(void)
{
	pid_t a = pt_sleeper("sleeper");
	char *big, expect[512];
	int r;

	r = run("add", num(a), "S:x", "@K:y", "MGR:ID=abc");
	ok(r == 0 && pt_is(a, "@K:y\nMGR:ID=abc\nS:x\n"), "add NAME @NAME NAME=VALUE (%d)", r);
	ok(run("set", num(a), "MGR:ID=def") == 0 && pt_is(a, "@K:y\nMGR:ID=def\nS:x\n"), "set");
	r = run("set", num(a), "nope=1");
	ok(r == 6 && strstr(err, "no such tag") && pt_is(a, "@K:y\nMGR:ID=def\nS:x\n"),
	   "set on an absent tag: exit 6, nothing changes");
	ok(run("set", num(a), "MGR:ID=") == 5, "set with an empty value: exit 5");
	ok(run("set", num(a), "MGR:ID") == 2, "set without '=': exit 2");
	ok(run("unset", num(a), "MGR:ID") == 0 && pt_is(a, "@K:y\nMGR:ID\nS:x\n"), "unset");
	ok(run("keep", num(a), "S:x") == 0 && pt_is(a, "@K:y\nMGR:ID\n@S:x\n"), "keep NAME");
	ok(run("unkeep", num(a), "K:*") == 0 && pt_is(a, "K:y\nMGR:ID\n@S:x\n"), "unkeep PATTERN");
	ok(run("keep", num(a), "--all") == 0 && pt_is(a, "@K:y\n@MGR:ID\n@S:x\n"), "keep --all");
	ok(run("unkeep", num(a), "--all") == 0 && pt_is(a, "K:y\nMGR:ID\nS:x\n"), "unkeep --all");
	ok(run("keep", num(a), "MGR:*") == 0 && pt_is(a, "K:y\n@MGR:ID\nS:x\n"), "keep PATTERN");
	ok(run("unkeep", num(a), "MGR:ID") == 0 && pt_is(a, "K:y\nMGR:ID\nS:x\n"), "unkeep NAME");
	r = run("keep", num(a), "absent");
	ok(r == 6 && pt_is(a, "K:y\nMGR:ID\nS:x\n"), "keep an absent tag: exit 6, nothing changes");
	ok(run("rm", num(a), "S:*", "K:y") == 0 && pt_is(a, "MGR:ID\n"), "rm PATTERN NAME");
	ok(run("rm", num(a), "--all") == 0 && pt_is(a, ""), "rm --all");
	ok(run("add", num(a), "A", "B") == 0 && pt_is(a, "A\nB\n"), "add two");

	/* Malformed input: clear errors, nothing changes. */
	r = run("add", num(a), "C", "bad*name");
	ok(r == 5 && strstr(err, "invalid tag name 'bad*name': it contains '*'") && pt_is(a, "A\nB\n"),
	   "bad name: exit 5, message, nothing added (not even C)");
	ok(run("add", num(a), "x:") == 5 && run("add", num(a), "@@x") == 5 &&
	   run("add", num(a), "ptags:foo") == 5 && pt_is(a, "A\nB\n"), "more bad names: exit 5");
	big = malloc(PTAGS_VALUE_MAX + 16);
	strcpy(big, "C=");
	memset(big + 2, 'v', PTAGS_VALUE_MAX + 1);
	big[PTAGS_VALUE_MAX + 3] = 0;
	r = run("add", num(a), big);
	ok(r == 5 && strstr(err, "longer than 32700 bytes") && pt_is(a, "A\nB\n"),
	   "a 32701-byte value: exit 5, nothing changes");
	big[PTAGS_VALUE_MAX + 2] = 0;
	r = run("add", num(a), big);
	ok(r == 0 && pt_has_value(a), "a 32700-byte value is accepted");
	free(big);
	run("rm", num(a), "C");
	r = run("add", "999999", "S:x");
	ok(r == 4 && strstr(err, "cannot add S:x to 999999: no such process"),
	   "add to a missing process: exit 4 (%s)", flat(err));
	ok(run("add", num(a)) == 2, "add without a tag: exit 2");

	/* Permission denied, explained in SPEC terms. */
	unpriv = true;
	r = run("add", num(a), "S:x");
	unpriv = false;
	snprintf(expect, sizeof(expect),
		 "ptags: cannot add S:x to %d: permission denied (the writer needs ptags:S:add and ptags:S:others, or CAP_MAC_ADMIN)\n",
		 a);
	ok(r == 3 && !strcmp(err, expect) && pt_is(a, "A\nB\n"),
	   "unprivileged add: exit 3 and the SPEC message");
	unpriv = true;
	r = run("rm", num(a), "A");
	unpriv = false;
	ok(r == 3 && strstr(err, "ptags:A:sub and ptags:A:others") && pt_is(a, "A\nB\n"),
	   "unprivileged rm: exit 3, sub right named");
	pt_stop(a);
}

static void test_has_apply(void)
{
	pid_t a = pt_sleeper("sleeper");
	long max = pt_param("max_write");
	char *big;
	int r;

	pt_write(a, "+S:x\n+MGR:ID\n!MGR:ID=abc\n");
	ok(run("has", num(a), "S:x") == 0 && !*out, "has NAME: exit 0, no output");
	ok(run("has", num(a), "S:*") == 0, "has PATTERN: 0");
	ok(run("has", num(a), "MGR:ID=abc") == 0, "has NAME=VALUE: 0");
	ok(run("has", num(a), "MGR:ID=abd") == 1 && !*out, "has NAME=other value: 1");
	ok(run("has", num(a), "T:*") == 1, "has PATTERN without match: 1");
	ok(run("has", num(a), "bad*") == 5, "has with an invalid query: 5");
	ok(run("has", "999999", "S:x") == 4, "has on a missing process: 4");
	ok(run("has", num(a)) == 2, "has without a query: 2");

	input = "?S:x\n+S:z\n";
	r = run("apply", num(a));
	ok(r == 0 && pt_is(a, "MGR:ID=abc\nS:x\nS:z\n"), "apply from stdin (%d)", r);
	input = "?absent\n+S:w\n";
	r = run("apply", num(a));
	ok(r == 6 && pt_is(a, "MGR:ID=abc\nS:x\nS:z\n"), "apply with a failing guard: 6, no change");
	input = "+a*\n";
	r = run("apply", num(a));
	ok(r == 5 && pt_is(a, "MGR:ID=abc\nS:x\nS:z\n"), "apply with a bad line: 5 (module's EINVAL)");
	input = "+S:w";
	r = run("apply", num(a));
	ok(r == 5 && strstr(err, "newline") && pt_is(a, "MGR:ID=abc\nS:x\nS:z\n"),
	   "apply without a final newline: 5");
	big = malloc(max + 2);
	memset(big, '#', max + 1);
	big[max] = '\n';
	big[max + 1] = 0;
	input = big;
	r = run("apply", num(a));
	ok(r == 7 && strstr(err, "larger than max_write") && pt_is(a, "MGR:ID=abc\nS:x\nS:z\n"),
	   "apply of max_write + 1 bytes: 7, clear message, nothing written");
	big[max - 1] = '\n';
	big[max] = 0;
	memcpy(big, "-S:z\n", 5);
	r = run("apply", num(a));
	ok(r == 0 && pt_is(a, "MGR:ID=abc\nS:x\n"), "apply of exactly max_write bytes: one write");
	free(big);
	input = NULL;
	if (!pt_write_file("/tmp/s11.txn", "-S:x\n"))
		ok(run("apply", num(a), "/tmp/s11.txn") == 0 && pt_is(a, "MGR:ID=abc\n"),
		   "apply FILE");

	/* The line the module refused, found without changing anything. */
	unpriv = true;
	input = "# a comment\n?MGR:ID\n\n+S:new\n?MGR:*\n";
	r = run("apply", num(a));
	ok(r == 3 && strstr(err, "line 4 '+S:new'") && pt_is(a, "MGR:ID=abc\n"),
	   "apply refused by the module names the line (EPERM at line 4): %d", r);
	input = "?MGR:ID\n?nothing\n+S:new\n";
	r = run("apply", num(a));
	ok(r == 6 && strstr(err, "line 2 '?nothing'") && pt_is(a, "MGR:ID=abc\n"),
	   "apply refused by the module names the line (ENOENT at line 2): %d", r);
	unpriv = false;
	input = NULL;
	pt_stop(a);
}

/* The shell holds a right without the keep flag: ptags says why it fails. */
static void test_unkept_rights(void)
{
	pid_t a = pt_sleeper("target");
	int st, p[2];
	pid_t shell;
	char c;

	if (pipe(p))
		die("pipe");
	shell = tap_fork();
	if (!shell) {
		/* the "shell": tagged by root, then unprivileged, runs ptags */
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(100);
		unpriv = true;
		_exit(run("add", num(a), "app:x") == 3 &&
		      strstr(err, "holds ptags:app:add, ptags:app:others without the keep flag") ?
		      0 : 1);
	}
	close(p[0]);
	if (pt_write(shell, "+ptags:app:add\n+ptags:app:others\n") ||
	    write(p[1], "g", 1) != 1)
		die("tagging the shell");
	close(p[1]);
	st = wait_exit(shell);
	ok(st == 0, "EPERM from rights not kept across the exec of ptags: the message says so (%d)", st);
	pt_stop(a);
}

static void test_ps(void)
{
	pid_t a = pt_sleeper("sleeper"), b = pt_sleeper("sleeper");
	char expect[256];
	int r;

	pt_write(a, "+MGR:CONTAINER_ID\n!MGR:CONTAINER_ID=c1\n+S:x\n");
	pt_write(b, "+MGR:CONTAINER_ID\n!MGR:CONTAINER_ID=c2\n");
	r = run("ps", "MGR:CONTAINER_ID=c1");
	snprintf(expect, sizeof(expect), "%7d %-16s MGR:CONTAINER_ID=c1\n", a, "sleeper");
	ok(r == 0 && strstr(out, "PID") && strstr(out, expect) && !strstr(out, num(b)),
	   "ps NAME=VALUE: pid, command, matching tag (%s)", flat(out));
	r = run("ps", "--json", "MGR:*");
	snprintf(expect, sizeof(expect), "{\"pid\":%d,\"comm\":\"sleeper\",\"tags\":[{\"name\":\"MGR:CONTAINER_ID\",\"value\":\"c1\",\"keep\":false}]}", a);
	ok(r == 0 && json_valid(out) && strstr(out, expect) && strstr(out, num(b)),
	   "ps --json PATTERN parses, only matching tags (%s)", flat(out));
	r = run("ps");
	ok(r == 0 && strstr(out, "S:x") && strstr(out, "c2"), "ps: every tagged process");
	r = run("ps", "nobody:*");
	ok(r == 1 && !*out, "ps without a match: exit 1");
	r = run("--json", "ps", "nobody:*");
	ok(r == 1 && json_valid(out) && !strcmp(out, "[]\n"), "ps --json without a match: []");
	ok(run("ps", "a*") == 5, "ps with an invalid query: 5");
	pt_stop(a);
	pt_stop(b);
}

/*
 * ptags stats against the module's own files: while two processes are
 * tagged, each line is what /sys/module/ptags/stats says, refused counts
 * a refused write, and an unprivileged user may read them.
 */
static void test_stats(void)
{
	pid_t a = pt_sleeper("sleeper"), b = pt_sleeper("sleeper");
	long tagged, refused;
	char want[128];
	int r;

	pt_write(a, "+stats:a\n");
	pt_write(b, "+stats:b\n");
	tagged = file_long("/sys/module/ptags/stats/tagged_processes");
	r = run("stats");
	snprintf(want, sizeof(want), "\ntagged_processes %ld\n", tagged);
	ok(r == 0 && tagged >= 2 && strstr(out, want) && strstr(out, "refused "),
	   "stats: tagged_processes %ld as the module counts it (%s)", tagged,
	   flat(out));
	refused = file_long("/sys/module/ptags/stats/refused");
	pt_write(a, "!stats:none=1\n");	/* ENOENT: refused */
	r = run("stats", "--prometheus");
	snprintf(want, sizeof(want), "\nptags_refused_total %ld\n", refused + 1);
	ok(r == 0 && strstr(out, want) &&
	   strstr(out, "# TYPE ptags_tagged_processes gauge\n"),
	   "stats --prometheus: a refused write moved ptags_refused_total to %ld (%s)",
	   refused + 1, flat(out));
	unpriv = true;
	r = run("--json", "stats");
	unpriv = false;
	ok(r == 0 && json_valid(out) && strstr(out, "\"killed\":"),
	   "stats --json as uid 65534 (%d, %s)", r, flat(out));
	pt_stop(a);
	pt_stop(b);
}

static void test_exec(void)
{
	pid_t pid;
	int r, i;

	pt_write(0, "-\n");
	r = run("exec", "--tag", "CLI:e=1", "--tag=CLI:f", "--", "/bin/cat", "/proc/ptags/self");
	ok(r == 0 && !strcmp(out, "@CLI:e=1\n@CLI:f\n"),
	   "exec --tag T=V --tag T -- CMD: CMD runs with the kept tags (%s)", flat(out));
	r = run("exec", "--", "/bin/cat", "/proc/ptags/self");
	ok(r == 0 && !strcmp(out, ""), "exec without tags");
	r = run("exec", "--tag", "bad*", "--", "/bin/true");
	ok(r == 5, "exec with a bad tag: 5");
	r = run("exec", "--tag", "X", "--", "/nonexistent");
	ok(r == 127, "exec of a missing command: 127");
	ok(run("exec", "--tag", "X") == 2, "exec without a command: 2");
	unpriv = true;
	r = run("exec", "--tag", "CLI:e", "--", "/bin/true");
	unpriv = false;
	ok(r == 3 && strstr(err, "the writer needs ptags:CLI:add, or CAP_MAC_ADMIN"),
	   "unprivileged exec: 3, explained");

	r = runv((char *const[]){ "/bin/ptags-launch", "c9", "/bin/cat", "/proc/ptags/self", NULL });
	ok(r == 0 && !strcmp(out, "@MGR:CONTAINER_ID=c9\n"), "ptags-launch: the command is in container c9");
	fflush(stdout);
	pid = fork();
	if (!pid) {
		execl("/bin/ptags-launch", "ptags-launch", "c10", "/bin/sleep", "100", NULL);
		_exit(127);
	}
	/*
	 * ptags exec tags itself before it execs sleep: wait until ps shows
	 * the command too (up to 10 s; a PREEMPT_RT guest under TCG is slow).
	 */
	for (i = 0; i < 500; i++) {
		if (run("ps", "MGR:CONTAINER_ID=c10") == 0 && strstr(out, "sleep"))
			break;
		usleep(20000);
	}
	ok(strstr(out, num(pid)) && strstr(out, "sleep"), "ptags ps finds the launched process");
	pt_stop(pid);
}

static void test_daemon(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int i, s, status, n;
	char buf[64];
	pid_t d, c;
	int fd;

	strcpy(addr.sun_path, "/tmp/permd.sock");
	unlink(addr.sun_path);
	fflush(stdout);
	d = fork();
	if (!d) {
		fd = open("/tmp/permd.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		execl("/bin/ptags-permd", "ptags-permd", "-n", "2", addr.sun_path, "S:camera", NULL);
		_exit(127);
	}
	for (i = 0; i < 200 && access(addr.sun_path, F_OK); i++)
		usleep(10000);
	for (i = 0; i < 2; i++) {
		int p[2];

		if (pipe(p))
			die("pipe");
		fflush(stdout);
		c = fork();
		if (!c) {
			close(p[0]);
			pt_write(0, i ? "+S:camera\n" : "-\n");
			s = socket(AF_UNIX, SOCK_STREAM, 0);
			while (connect(s, (struct sockaddr *)&addr, sizeof(addr)))
				usleep(10000);
			n = read(s, buf, sizeof(buf) - 1);
			if (write(p[1], &n, sizeof(n)) < 0 || (n > 0 && write(p[1], buf, n) < 0))
				_exit(1);
			_exit(0);
		}
		close(p[1]);
		n = -2;
		if (read(p[0], &n, sizeof(n)) != sizeof(n))
			n = -3;
		memset(buf, 0, sizeof(buf));
		if (n > 0 && read(p[0], buf, n) != n)
			n = -4;
		close(p[0]);
		waitpid(c, NULL, 0);
		if (i == 0)
			ok(n == 0, "ptags-permd refuses an untagged client: closed without a word (%d)", n);
		else
			ok(n == 8 && !strcmp(buf, "granted\n"), "ptags-permd serves a tagged client: \"%s\"", flat(buf));
	}
	ok(waitpid(d, &status, 0) == d && WIFEXITED(status) && !WEXITSTATUS(status),
	   "ptags-permd -n 2 exits 0 after two connections");
	slurp("/tmp/permd.log", err, sizeof(err));
	ok(strstr(err, "refused (no S:camera)") && strstr(err, "granted"),
	   "ptags-permd logs its decisions (%s)", flat(err));
}

int main(void)
{
	pt_write(0, "-\n");
	test_show();
	test_change();
	test_has_apply();
	test_unkept_rights();
	test_ps();
	test_stats();
	test_exec();
	test_daemon();
	return tap_done();
}
