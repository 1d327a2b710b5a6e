// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of libptags (no module needed): validation (SPEC §4), queries,
 * parsing (SPEC §3.3), reading and listing against a fake root directory
 * (files named by pid holding SPEC text), the exact bytes of transactions
 * (SPEC §3.4), JSON output, messages, the peer check's refusal of a
 * peer that exited, and levels (SPEC §12) as far as a host without the
 * module shows them.  TAP on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "ptags.h"
#include "../../lib/internal.h"	/* pt_mountinfo_ptags() and the like */
#define TAP_IMPLEMENTATION
#include "../tap.h"

static char root[64];

static void put_file(const char *name, const char *text)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		bail("%s: %s", path, strerror(errno));
	close(fd);
}

static char *get_file(const char *name)
{
	static char buf[1 << 16];
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		bail("malloc: %s", strerror(errno));
	memset(s, c, n);
	s[n] = 0;
	return s;
}

static void test_names(void)
{
	static const struct { const char *s; int valid; } names[] = {
		{ "a", 1 }, { "S:camera", 1 }, { ":x::a", 1 }, { "with space", 1 },
		{ "caf\xc3\xa9", 1 }, { "ptags:add", 1 }, { "ptags:a:b:sub", 1 },
		{ "ptags:S:others", 1 }, { "ptags:x:set", 1 },
		{ "", 0 }, { "a=b", 0 }, { "a*", 0 }, { "@a", 0 }, { "a:", 0 },
		{ "a\tb", 0 }, { "a\nb", 0 }, { "a\x7f", 0 }, { "ptags:myadd", 0 },
		{ "ptags:x", 0 }, { "\xc0\x80", 0 }, { "\xed\xa0\x80", 0 },
		{ "\xf4\x90\x80\x80", 0 }, { "\xe2\x82", 0 }, { "\x80", 0 },
		{ "\xe0\x80\xaf", 0 }, { "\xf0\x80\x80\xaf", 0 },
	};
	const char *why;
	char *big;
	size_t i;
	int r;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int r = ptags_name_valid(names[i].s, NULL);

		ok(names[i].valid ? r == 0 : r == -EINVAL,
		   "SPEC §4.1: name #%zu is %s", i, names[i].valid ? "valid" : "invalid");
	}
	big = repeat('n', PTAGS_NAME_MAX);
	ok(!ptags_name_valid(big, NULL), "SPEC §4.1: a 4000-byte name is valid");
	big = realloc(big, PTAGS_NAME_MAX + 2);
	strcat(big, "n");
	why = "";
	r = ptags_name_valid(big, &why);
	ok(r == -EINVAL && strstr(why, "4000"), "SPEC §4.1: a 4001-byte name is not (%s)", why);
	free(big);
	why = NULL;
	ok(ptags_name_valid("a=b", &why) == -EINVAL && why && !strcmp(why, "contains '='"),
	   "the reason names the '='");
}

static void test_values_patterns(void)
{
	static const struct { const char *s; int valid; } pats[] = {
		{ "S:*", 1 }, { ":*", 1 }, { "ptags:*", 1 }, { "a:b:*", 1 }, { "a", 1 },
		{ "*", 0 }, { "a*", 0 }, { "a:b*", 0 }, { "@a:*", 0 }, { "a:*:*", 0 },
		{ "a=b:*", 0 }, { "ptags:foo", 0 },
	};
	static const struct { const char *s; int valid; } queries[] = {
		{ "S:x=v", 1 }, { "S:x=a=b", 1 }, { "S:*", 1 }, { "S:x", 1 },
		{ "S:*=v", 0 }, { "=v", 0 }, { "S:x=", 0 }, { "S:x=\x01", 0 }, { "", 0 },
	};
	char *big;
	size_t i;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		ok(pats[i].valid ? !ptags_pattern_valid(pats[i].s, NULL) :
		   ptags_pattern_valid(pats[i].s, NULL) == -EINVAL,
		   "SPEC §4.3: pattern '%s' is %s", pats[i].s,
		   pats[i].valid ? "valid" : "invalid");
	for (i = 0; i < sizeof(queries) / sizeof(queries[0]); i++)
		ok(queries[i].valid ? !ptags_query_valid(queries[i].s, NULL) :
		   ptags_query_valid(queries[i].s, NULL) == -EINVAL,
		   "query #%zu is %s", i, queries[i].valid ? "valid" : "invalid");
	ok(!ptags_value_valid("", NULL), "SPEC §4.2: an empty value is valid");
	ok(!ptags_value_valid("a=b *@:", NULL), "SPEC §4.2: '=', '*', '@', ':' in values");
	ok(ptags_value_valid("a\nb", NULL) == -EINVAL, "SPEC §4.2: no newline in values");
	ok(ptags_value_valid("a\x7f", NULL) == -EINVAL, "SPEC §4.2: no DEL in values");
	big = repeat('v', PTAGS_VALUE_MAX);
	ok(!ptags_value_valid(big, NULL), "SPEC §4.2: a 32700-byte value is valid");
	free(big);
	big = repeat('v', PTAGS_VALUE_MAX + 1);
	ok(ptags_value_valid(big, NULL) == -EINVAL, "SPEC §4.2: 32701 bytes are not");
	free(big);
}

static void test_match(void)
{
	static const struct {
		const char *q, *name, *value;
		int r;
	} m[] = {
		{ "S:*", "S:A:B.c", NULL, 1 }, { "S:*", "S:X", "v", 1 },
		{ "S:*", "S", NULL, 0 }, { "S:*", "X", NULL, 0 },
		{ ":*", ":x", NULL, 1 }, { ":*", "x:", NULL, 0 },
		{ "S:x", "S:x", "v", 1 }, { "S:x", "S:xy", NULL, 0 },
		{ "S:x=v", "S:x", "v", 1 }, { "S:x=v", "S:x", "vv", 0 },
		{ "S:x=v", "S:x", NULL, 0 }, { "S:x=v", "S:xy", "v", 0 },
		{ "S:x=a=b", "S:x", "a=b", 1 }, { "a*", "a", NULL, -EINVAL },
	};
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		ok(ptags_match(m[i].q, m[i].name, m[i].value) == m[i].r,
		   "match '%s' against %s%s%s -> %d", m[i].q, m[i].name,
		   m[i].value ? "=" : "", m[i].value ? m[i].value : "", m[i].r);
}

static void test_parse(void)
{
	const char *text = "a-tag\n@b-tag\nc-tag=value-of-c=tag\n@d=v\n";
	const struct ptags_tag *t;
	struct ptags_set *set;
	int r;

	r = ptags_parse(text, strlen(text), &set);
	if (!ok(r == 0 && ptags_set_count(set) == 4, "SPEC §3.3: four lines parse"))
		return;
	t = ptags_set_tag(set, 0);
	ok(!strcmp(t->name, "a-tag") && !t->value && !t->keep, "plain tag");
	t = ptags_set_tag(set, 1);
	ok(!strcmp(t->name, "b-tag") && !t->value && t->keep, "'@' is the keep flag");
	t = ptags_set_tag(set, 2);
	ok(!strcmp(t->name, "c-tag") && !strcmp(t->value, "value-of-c=tag") && !t->keep,
	   "the value is everything after the first '='");
	t = ptags_set_tag(set, 3);
	ok(!strcmp(t->name, "d") && !strcmp(t->value, "v") && t->keep, "kept tag with value");
	ok(ptags_set_tag(set, 4) == NULL, "tag index out of range gives NULL");
	ok(ptags_set_find(set, "c-tag") == ptags_set_tag(set, 2) &&
	   !ptags_set_find(set, "c"), "find by exact name");
	ok(ptags_set_match(NULL, "x") == 0 && ptags_set_match(NULL, "x*") == -EINVAL,
	   "set_match(NULL): the empty set matches nothing; the query is still checked");
	ok(ptags_set_match(set, "c-tag=value-of-c=tag") == 1 &&
	   ptags_set_match(set, "zz:*") == 0 && ptags_set_match(set, "d=w") == 0,
	   "set match: NAME=VALUE, pattern");
	ptags_set_free(set);
	ok(ptags_parse("", 0, &set) == 0 && ptags_set_count(set) == 0, "empty text: no tags");
	ptags_set_free(set);
	ok(ptags_parse("a\nb", 3, &set) == -EINVAL && !set, "missing final newline: EINVAL");
	ok(ptags_parse("a\n\n", 3, &set) == -EINVAL, "empty line: EINVAL");
	ok(ptags_parse("@\n", 2, &set) == -EINVAL, "'@' alone: EINVAL");
	ok(ptags_parse("a\0b\n", 4, &set) == -EINVAL, "NUL byte: EINVAL");
}

static void test_root_read(void)
{
	struct ptags_set *set = NULL;
	char path[512];
	int r;

	ok(!strcmp(ptags_root(), root), "PTAGS_ROOT sets the root (%s)", ptags_root());
	put_file("123", "MGR:ID=abc\n@S:camera\n");
	r = ptags_read(123, &set);
	ok(r == 0 && ptags_set_count(set) == 2, "read a fake entry (%d)", r);
	ptags_set_free(set);
	ok(ptags_read(124, &set) == -ESRCH && !set, "missing entry: -ESRCH");
	ok(ptags_has(123, "S:camera") == 1 && ptags_has(123, "MGR:ID=abc") == 1 &&
	   ptags_has(123, "MGR:ID=abd") == 0 && ptags_has(123, "X:*") == 0,
	   "has: name, NAME=VALUE, pattern");
	ok(ptags_has(123, "bad*") == -EINVAL, "has: invalid query -EINVAL");
	ok(ptags_has(124, "S:*") == -ESRCH, "has: missing process -ESRCH");
	snprintf(path, sizeof(path), "%s/self", root);
	if (symlink("123", path))
		bail("symlink: %s", strerror(errno));
	r = ptags_read(0, &set);
	ok(r == 0 && ptags_set_count(set) == 2, "pid 0 reads ROOT/self");
	ptags_set_free(set);

	ok(ptags_set_root("/nonexistent/ptags") == 0 &&
	   !strcmp(ptags_root(), "/nonexistent/ptags"), "ptags_set_root overrides PTAGS_ROOT");
	ok(ptags_read(123, &set) == -ENODEV, "missing root: -ENODEV");
	{
		struct ptags_proc *procs;
		size_t n;

		ok(ptags_list(NULL, &procs, &n) == -ENODEV, "list with a missing root: -ENODEV");
	}
	ptags_set_root(NULL);
	ok(!strcmp(ptags_root(), root), "ptags_set_root(NULL): back to PTAGS_ROOT");
	put_file("bad", "x\n");
	put_file("125", "no-newline");
	ok(ptags_read(125, &set) == -EINVAL, "malformed entry text: -EINVAL");
	snprintf(path, sizeof(path), "%s/125", root);
	unlink(path);
}

static void test_list(void)
{
	struct ptags_proc *procs;
	char path[512];
	size_t n;
	int r;

	put_file("40", "MGR:CONTAINER_ID=abc\nS:x\n");
	put_file("300", "MGR:CONTAINER_ID=def\n");
	put_file("5", "MGR:CONTAINER_ID=abc\n@T\n");
	put_file("12x", "S:x\n");
	snprintf(path, sizeof(path), "%s/77", root);
	if (symlink("gone", path))	/* a process that exits while listing */
		bail("symlink: %s", strerror(errno));
	r = ptags_list(NULL, &procs, &n);
	ok(r == 0 && n == 4 && procs[0].pid == 5 && procs[1].pid == 40 &&
	   procs[2].pid == 123 && procs[3].pid == 300,
	   "SPEC §3.2: list numeric entries sorted by pid, skip self/junk/vanished (%d, %zu)",
	   r, n);
	ok(r == 0 && ptags_set_count(procs[1].tags) == 2, "each entry carries all its tags");
	ptags_list_free(procs, n);
	r = ptags_list("MGR:CONTAINER_ID=abc", &procs, &n);
	ok(r == 0 && n == 2 && procs[0].pid == 5 && procs[1].pid == 40,
	   "filter NAME=VALUE: who is in container abc");
	ptags_list_free(procs, n);
	r = ptags_list("S:*", &procs, &n);
	ok(r == 0 && n == 2 && procs[0].pid == 40 && procs[1].pid == 123, "filter by pattern");
	ptags_list_free(procs, n);
	r = ptags_list("nobody", &procs, &n);
	ok(r == 0 && n == 0, "filter matching nothing: empty list");
	ptags_list_free(procs, n);
	ok(ptags_list("x*", &procs, &n) == -EINVAL, "invalid filter: -EINVAL");
	unlink(path);
}

static void test_txn(void)
{
	static const char expect[] =
		"+a\n+@S:b\n-c\n-S:*\n-\n!d=v a=1\n!e\n?f\n+@f\n+@K:*\n+@\n"
		"-@g\n-@G:*\n-@\n?h\n?H:*\n?\n?@i\n?@\n";
	struct ptags_txn *t = ptags_txn_new();
	const char *text;
	size_t len;
	int r = 0;

	r |= ptags_txn_add(t, "a");
	r |= ptags_txn_add_kept(t, "S:b");
	r |= ptags_txn_remove(t, "c");
	r |= ptags_txn_remove(t, "S:*");
	r |= ptags_txn_remove_all(t);
	r |= ptags_txn_set_value(t, "d", "v a=1");
	r |= ptags_txn_clear_value(t, "e");
	r |= ptags_txn_keep(t, "f");
	r |= ptags_txn_keep(t, "K:*");
	r |= ptags_txn_keep_all(t);
	r |= ptags_txn_unkeep(t, "g");
	r |= ptags_txn_unkeep(t, "G:*");
	r |= ptags_txn_unkeep_all(t);
	r |= ptags_txn_require(t, "h");
	r |= ptags_txn_require(t, "H:*");
	r |= ptags_txn_require(t, NULL);
	r |= ptags_txn_require_kept(t, "i");
	r |= ptags_txn_require_kept(t, NULL);
	text = ptags_txn_text(t, &len);
	ok(r == 0 && len == strlen(expect) && !memcmp(text, expect, len),
	   "SPEC §3.4: every helper gives its exact line");
	put_file("900", "");
	ok(ptags_txn_commit(t, 900) == 0 && !strcmp(get_file("900"), expect),
	   "commit writes exactly those bytes");
	ok(ptags_txn_commit(t, 901) == -ESRCH, "commit to a missing process: -ESRCH");
	ptags_txn_free(t);

	t = ptags_txn_new();
	ok(ptags_txn_add(t, "ok") == 0 && ptags_txn_add(t, "a\n+ptags:add") == -EINVAL,
	   "a name cannot inject a line");
	ok(ptags_txn_add(t, "later") == 0, "helpers keep working after an error");
	put_file("900", "");
	ok(ptags_txn_commit(t, 900) == -EINVAL && !strcmp(get_file("900"), ""),
	   "commit returns the first helper error and writes nothing");
	ptags_txn_free(t);

	t = ptags_txn_new();
	ok(ptags_txn_set_value(t, "a", "") == -EINVAL, "set_value with an empty value: -EINVAL");
	ptags_txn_free(t);
	t = ptags_txn_new();
	ok(ptags_txn_set_value(t, "a", "x\ny") == -EINVAL &&
	   ptags_txn_remove(t, "a*") == -EINVAL && ptags_txn_add(t, "S:*") == -EINVAL &&
	   ptags_txn_add_kept(t, "ptags:foo") == -EINVAL,
	   "invalid values, patterns and names are refused");
	ptags_txn_free(t);

	t = ptags_txn_new();
	text = ptags_txn_text(t, &len);
	put_file("900", "old");
	ok(len == 0 && !strcmp(text, "") && ptags_txn_commit(t, 900) == 0 &&
	   !strcmp(get_file("900"), "old"), "an empty transaction writes nothing");
	ptags_txn_free(t);
	ok(ptags_write_text(900, "+x\n", 3) == 0 && !strncmp(get_file("900"), "+x\n", 3),
	   "write_text writes the raw text");
	ok(ptags_max_write() < 0 || ptags_max_write() > 0,
	   "max_write: a value or an error (%ld)", ptags_max_write());
}

static void test_json(void)
{
	struct ptags_set *set;
	char *j;
	const char *text = "a\"b\\c\n@q=caf\xc3\xa9 \xe2\x82\xac\n";

	j = ptags_json_string("plain");
	ok(j && !strcmp(j, "\"plain\""), "JSON: plain string");
	free(j);
	j = ptags_json_string("q\"b\\s/\x01\x1f\x7f");
	ok(j && !strcmp(j, "\"q\\\"b\\\\s/\\u0001\\u001f\\u007f\""),
	   "JSON: quote, backslash, control characters escaped (%s)", j);
	free(j);
	j = ptags_json_string("\xc3\xa9\xf0\x9f\x98\x80");
	ok(j && !strcmp(j, "\"\xc3\xa9\xf0\x9f\x98\x80\""), "JSON: valid UTF-8 passes");
	free(j);
	j = ptags_json_string("a\xff" "b\xc3" "c\xed\xa0\x80");
	ok(j && !strcmp(j, "\"a\\ufffdb\\ufffdc\\ufffd\\ufffd\\ufffd\""),
	   "JSON: invalid UTF-8 bytes become U+FFFD (%s)", j);
	free(j);
	if (ptags_parse(text, strlen(text), &set))
		bail("parse: %s", strerror(errno));
	j = ptags_set_json(set, NULL);
	ok(j && !strcmp(j, "[{\"name\":\"a\\\"b\\\\c\",\"value\":null,\"keep\":false},"
			"{\"name\":\"q\",\"value\":\"caf\xc3\xa9 \xe2\x82\xac\",\"keep\":true}]"),
	   "JSON: a set (%s)", j);
	free(j);
	j = ptags_set_json(set, "q");
	ok(j && !strcmp(j, "[{\"name\":\"q\",\"value\":\"caf\xc3\xa9 \xe2\x82\xac\",\"keep\":true}]"),
	   "JSON: only the matching tags");
	free(j);
	ptags_set_free(set);
	j = ptags_set_json(NULL, NULL);
	ok(j && !strcmp(j, "[]"), "JSON: no set is []");
	free(j);
}

static void test_messages(void)
{
	char buf[512];
	int n;

	ok(!strcmp(ptags_strerror(-EPERM), "permission denied") &&
	   !strcmp(ptags_strerror(EPERM), "permission denied") &&
	   !strcmp(ptags_strerror(-ENOENT), "no such tag") &&
	   !strcmp(ptags_strerror(-ESRCH), "no such process") &&
	   !strcmp(ptags_strerror(-E2BIG), "transaction larger than max_write"),
	   "strerror in ptags terms");
	n = ptags_explain(buf, sizeof(buf), -EPERM, PTAGS_OP_ADD, "S:x", 1);
	ok(n == (int)strlen(buf) &&
	   !strcmp(buf, "the writer needs ptags:S:add and ptags:S:others, or CAP_MAC_ADMIN"),
	   "explain EPERM on add to another process: %s", buf);
	ptags_explain(buf, sizeof(buf), -EPERM, PTAGS_OP_REMOVE, "S:x", 0);
	ok(!strcmp(buf, "the writer needs ptags:S:sub, or CAP_MAC_ADMIN"),
	   "explain EPERM on remove from itself: %s", buf);
	ptags_explain(buf, sizeof(buf), -EPERM, PTAGS_OP_SET, "ptags:x:add", 1);
	ok(!strcmp(buf, "the writer needs ptags:ptags:set and ptags:ptags:others, or CAP_MAC_ADMIN"),
	   "explain EPERM on a permission tag: %s", buf);
	ptags_explain(buf, sizeof(buf), -ENODEV, PTAGS_OP_READ, NULL, 0);
	ok(strstr(buf, root) && strstr(buf, "modprobe ptags"), "explain ENODEV names the root");
	n = ptags_explain(buf, 8, -E2BIG, PTAGS_OP_WRITE, NULL, 0);
	ok(n > 8 && strlen(buf) == 7, "explain truncates like snprintf");
	ptags_explain(buf, sizeof(buf), -EIO, PTAGS_OP_WRITE, NULL, 0);
	ok(!strcmp(buf, ""), "explain has nothing to add for EIO");
}

/*
 * The peer check on the host.  The fake root holds forged tags for the
 * client: a peer check must never read them, whether the root comes from
 * PTAGS_ROOT or from ptags_set_root() (only a ptags file system serves
 * peer checks: -ENODEV).  The guest tests the real thing (lib_peer).
 */
static void test_peer(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct ptags_set *set = NULL;
	int srv, c, pfd[2], status, r;
	char name[32], byte;
	pid_t child;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/sock", root);
	srv = socket(AF_UNIX, SOCK_STREAM, 0);
	if (srv < 0 || bind(srv, (struct sockaddr *)&addr, sizeof(addr)) || listen(srv, 4) ||
	    pipe(pfd))
		bail("socket: %s", strerror(errno));
	fflush(stdout);
	child = fork();
	if (!child) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);

		if (connect(s, (struct sockaddr *)&addr, sizeof(addr)))
			_exit(1);
		if (read(pfd[0], &byte, 1) != 1)	/* wait for the verdict */
			_exit(1);
		_exit(0);
	}
	snprintf(name, sizeof(name), "%d", (int)child);
	put_file(name, "S:camera=front\n");
	c = accept(srv, NULL, NULL);
	r = ptags_peer_read(c, 0, NULL, &set);
	ok(r < 0 && r != -ESRCH && !set && ptags_has(child, "S:camera") == 1,
	   "peer_read ignores PTAGS_ROOT: forged tags there are not read (%d)", r);
	if (ptags_set_root(root))
		bail("set_root: %s", strerror(errno));
	r = ptags_peer_has(c, "S:camera", 0);
	ok(r == -ENODEV, "peer_has: a root that is not a ptags file system -> -ENODEV (%d)", r);
	ptags_set_root(NULL);
	ok(ptags_peer_has(c, "bad*", 0) == -EINVAL, "peer_has: invalid query");
	if (write(pfd[1], "x", 1) != 1)
		bail("write: %s", strerror(errno));
	waitpid(child, &status, 0);
	r = ptags_peer_has(c, "S:camera", 0);
	ok(r == -ESRCH, "peer_has: a peer that exited gives -ESRCH, not yes (%d)", r);
	close(c);
	ok(ptags_peer_has(pfd[0], "S:x", 0) == -ENOTSOCK, "peer_has on a pipe: -ENOTSOCK");
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	r = ptags_peer_has(c, "S:x", 0);
	ok(r == -ENOTCONN, "peer_has on an unconnected socket: -ENOTCONN (%d)", r);
	close(c);
	close(srv);
	close(pfd[0]);
	close(pfd[1]);
	unlink(addr.sun_path);
}

/*
 * Root handles on the host: only a ptags file system is a root (the fake
 * root is not), flags are checked, and the listing accessors are safe out
 * of range.  The guest tests reads, commits and listings through handles.
 */
static void test_root_handle(void)
{
	struct ptags_root *h = (void *)1;
	int dirfd, r;

	r = ptags_root_openat(AT_FDCWD, NULL, 0, &h);
	ok(r == -ENODEV && !h, "root_openat(NULL): PTAGS_ROOT, a plain directory: -ENODEV (%d)", r);
	dirfd = open(root, O_RDONLY | O_DIRECTORY);
	r = ptags_root_openat(dirfd, ".", 0, &h);
	ok(r == -ENODEV && !h, "root_openat(dirfd, \".\"): -ENODEV (%d)", r);
	close(dirfd);
	r = ptags_root_openat(AT_FDCWD, "/nonexistent/ptags", 0, &h);
	ok(r == -ENODEV, "root_openat of a missing directory: -ENODEV (%d)", r);
	r = ptags_root_openat(AT_FDCWD, "/", 1, &h);
	ok(r == -EINVAL && !h, "root_openat: unknown flags -EINVAL (%d)", r);
	ok(ptags_listing_count(NULL) == 0 && ptags_listing_pid(NULL, 0) == 0 &&
	   ptags_listing_pidfd(NULL, 0) == -1 && !ptags_listing_tags(NULL, 0),
	   "listing accessors of NULL: 0, 0, -1, NULL");
	ptags_listing_free(NULL);
	ptags_root_close(NULL);
}

/* ---- levels (SPEC §12) ---- */

/* One line of mountinfo parsed by pt_mountinfo_ptags(). */
struct mi_case {
	const char *line;
	int ret;		/* 1 ptags, 0 another type, -EINVAL */
	const char *dir;
	int level;
	unsigned int major, minor;
};

static void test_mountinfo(void)
{
	static const struct mi_case cases[] = {
		{ "25 21 0:52 / /proc/ptags rw,nosuid,nodev,noexec,relatime shared:12 - ptags ptags rw\n",
		  1, "/proc/ptags", 0, 0, 52 },
		{ "40 30 0:60 / /tmp/my\\040dir rw,relatime - ptags ptags rw,hidepid=invisible,level=2",
		  1, "/tmp/my dir", 2, 0, 60 },
		{ "41 30 0:61 / /a\\040-\\040b rw shared:3 master:1 propagate_from:1 - ptags my\\040src rw,level=1,gid=5\n",
		  1, "/a - b", 1, 0, 61 },
		{ "42 30 259:3 / /x\\134y\\011z rw - ptags ptags rw,level=0",
		  1, "/x\\y\tz", 0, 259, 3 },
		{ "43 30 0:62 / /lv rw - ptags ptags rw,level=17 extra",
		  1, "/lv", 17, 0, 62 },
		{ "21 26 0:20 / /proc rw,relatime - proc proc rw", 0, NULL, 0, 0, 0 },
		{ "22 26 0:21 / /p rw - ptagsfs ptags rw,level=1", 0, NULL, 0, 0, 0 },
		{ "23 26 0:22 / /p rw - fuse.ptags ptags rw", 0, NULL, 0, 0, 0 },
		{ "24 26 0:23 / /p rw ptags ptags rw", -EINVAL, NULL, 0, 0, 0 },
		{ "24 26 0:23 / /p rw - ptags ptags", -EINVAL, NULL, 0, 0, 0 },
		{ "24 26 0:23 / /p rw - ptags ptags ", -EINVAL, NULL, 0, 0, 0 },
		{ "24 26 0-23 / /p rw - ptags ptags rw", -EINVAL, NULL, 0, 0, 0 },
		{ "24 26 0:23 / /p rw - ptags ptags rw,level=x", -EINVAL, NULL, 0, 0, 0 },
		{ "24 26 0:23 / /p rw - ptags ptags rw,level=", -EINVAL, NULL, 0, 0, 0 },
		{ "24 26 0:23  /p rw - ptags ptags rw", -EINVAL, NULL, 0, 0, 0 },
		{ "", -EINVAL, NULL, 0, 0, 0 },
	};
	char line[256], *dir;
	size_t i;
	dev_t dev;
	int r, level;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mi_case *c = &cases[i];

		snprintf(line, sizeof(line), "%s", c->line);
		dir = NULL;
		level = -5;
		dev = 0;
		r = pt_mountinfo_ptags(line, &dev, &dir, &level);
		if (c->ret != 1) {
			ok(r == c->ret, "mountinfo line #%zu: %s (%d)", i,
			   c->ret ? "not a mountinfo line" : "not ptags", r);
			continue;
		}
		ok(r == 1 && dir && !strcmp(dir, c->dir) && level == c->level &&
		   dev == makedev(c->major, c->minor),
		   "mountinfo line #%zu: ptags at '%s', level %d, %u:%u (%d, '%s', %d)",
		   i, c->dir, c->level, c->major, c->minor, r, dir ? dir : "", level);
	}
}

/*
 * The mountinfo fallback takes only a ptags file system, however the line
 * describes it: a fake mountinfo naming a directory (with its real device,
 * and a "self" that is the caller) as a ptags mount yields nothing.
 */
static void test_level_scan(void)
{
	char dir[128], path[512], text[1024], me[32];
	struct stat st;
	int r;

	snprintf(dir, sizeof(dir), "%s/lv", root);
	snprintf(me, sizeof(me), "lv/%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/self", dir);
	if (mkdir(dir, 0755) || stat(dir, &st) || symlink(me + 3, path))
		bail("%s: %s", dir, strerror(errno));
	put_file(me, "");
	snprintf(text, sizeof(text),
		 "21 26 0:20 / /proc rw - proc proc rw\n"
		 "90 26 %u:%u / %s rw - ptags ptags rw\n"
		 "91 26 %u:%u / %s rw - ptags ptags rw,level=1\n",
		 major(st.st_dev), minor(st.st_dev), dir,
		 major(st.st_dev), minor(st.st_dev), dir);
	put_file("lv/mountinfo", text);
	snprintf(path, sizeof(path), "%s/mountinfo", dir);
	r = pt_level_mount_open(path, 0);
	ok(r == -ENOENT, "level scan: a plain directory listed as ptags level 0 is refused (%d)", r);
	r = pt_level_mount_open(path, 1);
	ok(r == -ENOENT, "level scan: ... and as level 1 (%d)", r);
	r = pt_level_mount_open(path, 2);
	ok(r == -ENOENT, "level scan: no mount of level 2 listed (%d)", r);
	r = pt_level_mount_open("/nonexistent/mountinfo", 0);
	ok(r == -ENOENT, "level scan: no mountinfo (%d)", r);
}

/* Is the file system type ptags registered (the module loaded)? */
static bool ptags_registered(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "r");

	if (!f)
		bail("/proc/filesystems: %s", strerror(errno));
	while (!found && fgets(line, sizeof(line), f))
		found = !strcmp(line, "nodev\tptags\n");
	fclose(f);
	return found;
}

/* The effective capabilities (/proc/self/status), or ~0 if unknown. */
static unsigned long long cap_eff(void)
{
	unsigned long long caps = ~0ULL;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return caps;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps;
}

enum { MAY_MOUNT, MAY_NOT_MOUNT };

/*
 * In a child that may mount (a user and mount namespace of its own, or root
 * of the initial ones) or may not (uid 65534 without capabilities, or the
 * caller if it has none): ptags_root_open_level() of levels 0, 3 and own.
 * Returns false (skip) when the child cannot be made so.
 */
static bool open_level_in_child(int how, int res[3])
{
	int pfd[2], st, r[3];
	pid_t pid;

	if (pipe(pfd))
		bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		bail("fork: %s", strerror(errno));
	if (!pid) {
		static const int levels[3] = { 0, 3, PTAGS_LEVEL_OWN };
		struct ptags_root *h;
		int i;

		close(pfd[0]);
		if (how == MAY_MOUNT) {
			if (unshare(CLONE_NEWUSER | CLONE_NEWNS) && geteuid())
				_exit(3);
		} else if (!geteuid()) {
			if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
			    setresuid(65534, 65534, 65534))
				_exit(3);
		}
		if (how == MAY_NOT_MOUNT && cap_eff())
			_exit(3);
		for (i = 0; i < 3; i++) {
			h = NULL;
			r[i] = ptags_root_open_level(levels[i], 0, &h);
			ptags_root_close(h);
		}
		_exit(write(pfd[1], r, sizeof(r)) == sizeof(r) ? 0 : 4);
	}
	close(pfd[1]);
	if (waitpid(pid, &st, 0) != pid)
		bail("waitpid: %s", strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st) ||
	    read(pfd[0], res, 3 * sizeof(*res)) != 3 * sizeof(*res)) {
		close(pfd[0]);
		return false;
	}
	close(pfd[0]);
	return true;
}

/*
 * ptags_root_open_level(): argument checks, and on this host (no module)
 * the error the design gives: fsopen(2) says ENODEV to a caller that may
 * mount; one that may not gets EPERM, finds no ptags mount of the level in
 * its mountinfo and returns that EPERM (a depth), or EPERM at once (own).
 */
static void test_open_level(void)
{
	struct ptags_root *h = (void *)1;
	int r, res[3];

	r = ptags_root_open_level(-2, 0, &h);
	ok(r == -EINVAL && !h, "open_level(-2): -EINVAL (%d)", r);
	r = ptags_root_open_level(-2147483647 - 1, 0, &h);
	ok(r == -EINVAL, "open_level(INT_MIN): -EINVAL (%d)", r);
	h = (void *)1;
	r = ptags_root_open_level(0, 1, &h);
	ok(r == -EINVAL && !h, "open_level(0, flags 1): -EINVAL (%d)", r);
	r = ptags_root_open_level(PTAGS_LEVEL_OWN, 0x80000000u, &h);
	ok(r == -EINVAL, "open_level(own, flags 1<<31): -EINVAL (%d)", r);
	if (ptags_registered()) {
		ok(true, "open_level without the module # SKIP ptags is loaded here");
		return;
	}
	if (open_level_in_child(MAY_MOUNT, res))
		ok(res[0] == -ENODEV && res[1] == -ENODEV && res[2] == -ENODEV,
		   "open_level(0, 3, own) by a caller that may mount, no module: -ENODEV (%d %d %d)",
		   res[0], res[1], res[2]);
	else
		ok(true, "open_level by a caller that may mount # SKIP no user namespace");
	if (open_level_in_child(MAY_NOT_MOUNT, res))
		ok(res[0] == -EPERM && res[1] == -EPERM && res[2] == -EPERM,
		   "open_level(0, 3, own) by a caller that may not mount, no ptags mount: -EPERM (%d %d %d)",
		   res[0], res[1], res[2]);
	else
		ok(true, "open_level by a caller that may not mount # SKIP cannot drop capabilities");
}

/* ptags_line_valid(): the lines of SPEC §3.4's table, and what is not one. */
static void test_lines(void)
{
	static const char *const good[] = {
		"", "# any \t text", "+a", "+@a", "+@S:*", "+@", "-a", "-@a",
		"-S:*", "-@S:*", "-", "-@", "!a=v", "!a=", "!a", "!a=x=y*",
		"?a", "?S:*", "?", "?@", "?@a", "+ptags:S:add",
	};
	static const char *const bad[] = {
		"+", "+S:*", "+a=v", "+@a=v", "x", " +a", "!", "!=v", "!S:*",
		"?a=v", "+a*", "-a:", "+ptags:myadd", "+\xc0\xaf", "@a",
		"!a=\x01", "#\xff",
	};
	const char *why;
	size_t i;
	bool good_ok = true, bad_ok = true;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (ptags_line_valid(good[i], strlen(good[i]), &why)) {
			printf("# '%s' refused: %s\n", good[i], why);
			good_ok = false;
		}
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		if (ptags_line_valid(bad[i], strlen(bad[i]), &why) != -EINVAL ||
		    !why) {
			printf("# '%s' accepted\n", bad[i]);
			bad_ok = false;
		}
	}
	ok(good_ok, "line_valid accepts every line form of the protocol");
	ok(bad_ok, "line_valid refuses malformed lines, with a reason");
	ok(ptags_line_valid("+a\nb", 4, NULL) == -EINVAL,
	   "line_valid refuses a newline inside a line");
}

int main(void)
{
	char cmd[600];

	snprintf(root, sizeof(root), "/tmp/ptags-libtest.XXXXXX");
	if (!mkdtemp(root))
		bail("mkdtemp: %s", strerror(errno));
	setenv("PTAGS_ROOT", root, 1);
	test_names();
	test_values_patterns();
	test_lines();
	test_match();
	test_parse();
	test_root_read();
	test_list();
	test_txn();
	test_json();
	test_messages();
	test_peer();
	test_root_handle();
	test_mountinfo();
	test_level_scan();
	test_open_level();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		printf("# could not remove %s\n", root);
	return tap_done();
}
