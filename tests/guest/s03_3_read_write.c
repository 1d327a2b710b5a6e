// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.3 (reading) and §3.4 (writing) against the real module: the exact
 * text format and order, reads with tiny buffers, snapshot consistency, the
 * one-write-one-transaction rule, final newline, comments, guards, UTF-8,
 * max_write and the rights snapshot of a write.
 */
#define _GNU_SOURCE
#include <grp.h>	/* setgroups(), used by guest.h */
#include "guest.h"
#include "agent.h"

#include <sys/stat.h>

static char rbuf[1 << 17], rbuf2[1 << 17];

/* Read fd to EOF in chunks of @chunk bytes; length or -errno. */
static ssize_t read_chunks(int fd, char *buf, size_t len, size_t chunk)
{
	size_t got = 0;

	for (;;) {
		size_t want = chunk;
		ssize_t n;

		if (got + want > len - 1)
			want = len - 1 - got;
		if (!want)
			break;
		n = read(fd, buf + got, want);
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		if ((size_t)n > want)
			return -EOVERFLOW;
		got += n;
	}
	buf[got] = 0;
	return got;
}

static ssize_t read_self_chunks(char *buf, size_t len, size_t chunk)
{
	ssize_t n;
	int fd = open(PT_ROOT "/self", O_RDONLY);

	if (fd < 0)
		return -errno;
	n = read_chunks(fd, buf, len, chunk);
	close(fd);
	return n;
}

/* One write(2) of @s to our own tags; returns the result of write(). */
static ssize_t raw_write(const char *s, size_t len)
{
	ssize_t n;
	int fd = open(PT_ROOT "/self", O_WRONLY);

	if (fd < 0)
		die("open self");
	n = write(fd, s, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

/* Write @s to self, expect errno @err and the resulting tags @after. */
static void tx(const char *before, const char *s, size_t len, int err, const char *after,
	       const char *what)
{
	int got;

	pt_reset(before);
	got = pt_write_len(0, s, len);
	ok(got == err && pt_is(0, after), "%s (got %s, want %s)", what,
	   got ? strerror(got) : "success", err ? strerror(err) : "success");
}

#define TX(before, s, err, after, what) tx(before, s, sizeof(s) - 1, err, after, what)

/* ----------------------------------------------------------------- §3.3 */

static void test_format(void)
{
	ssize_t n;

	pt_reset("");
	n = pt_read(0, rbuf, sizeof(rbuf));
	ok(n == 0, "SPEC §3.3: an empty tag set reads 0 bytes (got %zd)", n);

	pt_reset("+b\n+@a:x\n+ab\n!ab=x y\n+a\n");
	ok(pt_is(0, "a\n@a:x\nab=x y\nb\n"),
	   "SPEC §3.3: one line per tag, '@' for keep, '=value', sorted a < a:x < ab < b");
	pt_reset("+@b\n+a\n");
	ok(pt_is(0, "a\n@b\n"), "SPEC §3.3: '@' does not take part in sorting (a before @b)");
	pt_reset("+@zz\n+y\n+@x\n");
	ok(pt_is(0, "@x\ny\n@zz\n"), "SPEC §3.3: '@' does not take part in sorting (@x, y, @zz)");
	pt_reset("+a\n!a=zzz\n+a:b\n");
	ok(pt_is(0, "a=zzz\na:b\n"),
	   "SPEC §3.3: sorted by NAME, not by line (a=zzz before a:b although ':' < '=')");
	pt_reset("+a:b\n+a b\n+a\n+ab\n");
	ok(pt_is(0, "a\na b\na:b\nab\n"), "SPEC §3.3: a prefix sorts first, then byte order (a, 'a b', a:b, ab)");
	pt_reset("+\xc3\xa9\n+z\n+Z\n+ x\n+~\n+\xf0\x9f\x98\x80\n+\xc2\xa0\n");
	ok(pt_is(0, " x\nZ\nz\n~\n\xc2\xa0\n\xc3\xa9\n\xf0\x9f\x98\x80\n"),
	   "SPEC §3.3: byte order is unsigned memcmp (ASCII < U+00A0 < U+00E9 < U+1F600)");
	pt_reset("+@k\n!k=v=w\n");
	ok(pt_is(0, "@k=v=w\n"), "SPEC §3.3: keep flag and value on one line: @k=v=w");
	pt_reset("+n\n!n=v\n!n=\n");
	ok(pt_is(0, "n\n"), "SPEC §3.3/§3.4: a tag whose value was removed with '!n=' has no '='");
	pt_reset("+n\n!n=v\n!n\n");
	ok(pt_is(0, "n\n"), "SPEC §3.3/§3.4: a tag whose value was removed with '!n' has no '='");
	pt_reset("+S:a\n!S:a= lead and trail \n");
	ok(pt_is(0, "S:a= lead and trail \n"), "SPEC §3.3: a value is shown byte-exact (spaces kept)");
}

static void check_chunks(const char *what)
{
	static const size_t sizes[] = { 1, 2, 3, 7, 64, 4095, 4096, 4097 };
	ssize_t full, n;
	size_t i;

	full = pt_read(0, rbuf, sizeof(rbuf));
	if (full <= 0)
		die("read self");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		n = read_self_chunks(rbuf2, sizeof(rbuf2), sizes[i]);
		ok(n == full && !memcmp(rbuf, rbuf2, full),
		   "SPEC §3.3: reading %s with %zu-byte reads gives the identical text (%zd vs %zd bytes)",
		   what, sizes[i], n, full);
	}
}

static void test_small_buffers(void)
{
	char s[8192];
	size_t len = 0;
	int i;

	len += snprintf(s + len, sizeof(s) - len, "-\n");
	for (i = 0; i < 40; i++)
		len += snprintf(s + len, sizeof(s) - len, "+%sT:%02d\n!T:%02d=value %d\n",
				i % 3 ? "" : "@", i, i, i * 7);
	if (pt_write(0, s))
		die("setup 40 tags");
	check_chunks("40 tags");

	/* Over a page: one tag with a 6000-byte value. */
	memset(s, 0, sizeof(s));
	strcpy(s, "+big\n!big=");
	len = strlen(s);
	for (i = 0; i < 6000; i++)
		s[len++] = 'a' + i % 26;
	s[len++] = '\n';
	s[len] = 0;
	if (pt_write(0, s))
		die("setup big value");
	check_chunks("a set over one page");
	pt_reset("");
}

static void test_snapshot(void)
{
	static const char old[] = "S:alpha=1\nS:beta=22\n@S:delta=4444\nS:gamma=333\n";
	char head[16];
	ssize_t n, m;
	int fd, fd2;

	/* The set shrinks while we read. */
	pt_reset("+S:alpha\n!S:alpha=1\n+S:beta\n!S:beta=22\n+S:gamma\n!S:gamma=333\n"
	      "+@S:delta\n!S:delta=4444\n");
	ok(pt_is(0, old), "setup: old set");
	fd = open(PT_ROOT "/self", O_RDONLY);
	if (fd < 0)
		die("open");
	n = read(fd, head, 5);
	ok(n == 5 && !memcmp(head, old, 5), "SPEC §3.3: first 5 bytes of the snapshot");
	ok(pt_write(0, "-\n+Z\n") == 0, "setup: change the tags through another fd");
	m = read_chunks(fd, rbuf, sizeof(rbuf), 3);
	ok(m == (ssize_t)strlen(old) - 5 && !memcmp(rbuf, old + 5, m),
	   "SPEC §3.3: reading on continues the old snapshot ([%.*s] after the first 5 bytes)",
	   (int)(m > 0 ? m : 0), rbuf);
	ok(lseek(fd, 0, SEEK_SET) == 0, "lseek to 0");
	m = read_chunks(fd, rbuf, sizeof(rbuf), 4096);
	ok(m == 2 && !strcmp(rbuf, "Z\n"), "SPEC §3.3: after lseek 0 a read takes a new snapshot ([%s])",
	   rbuf);

	/* The set grows while we read; then pread at 0. */
	pt_reset("+A\n+B\n");
	if (lseek(fd, 0, SEEK_SET))
		die("lseek");
	n = read(fd, head, 1);
	ok(n == 1 && head[0] == 'A', "SPEC §3.3: read the first byte of a new snapshot");
	ok(pt_write(0, "+@0\n+AA\n+C\n!C=ccccccccccccccccccccc\n-B\n") == 0, "setup: grow and change");
	m = read_chunks(fd, rbuf, sizeof(rbuf), 1);
	ok(m == 3 && !memcmp(rbuf, "\nB\n", 3),
	   "SPEC §3.3: 1-byte reads continue the old snapshot ([%s], want [\\nB\\n])", rbuf);
	m = pread(fd, rbuf, sizeof(rbuf) - 1, 0);
	if (m >= 0)
		rbuf[m] = 0;
	ok(m > 0 && !strcmp(rbuf, "@0\nA\nAA\nC=ccccccccccccccccccccc\n"),
	   "SPEC §3.3: pread at offset 0 sees the new tags ([%s])", m > 0 ? rbuf : "");
	close(fd);

	/* Two readers: each has its own snapshot. */
	pt_reset("+one\n");
	fd = open(PT_ROOT "/self", O_RDONLY);
	fd2 = open(PT_ROOT "/self", O_RDONLY);
	if (fd < 0 || fd2 < 0)
		die("open");
	n = read(fd, head, 2);
	ok(pt_write(0, "+two\n") == 0, "setup: add a tag");
	m = read_chunks(fd2, rbuf, sizeof(rbuf), 2);
	ok(m == 8 && !strcmp(rbuf, "one\ntwo\n"),
	   "SPEC §3.3: a second fd reading from 0 sees the new set ([%s])", rbuf);
	m = read_chunks(fd, rbuf, sizeof(rbuf), 2);
	ok(n == 2 && m == 2 && !strcmp(rbuf, "e\n"),
	   "SPEC §3.3: the first fd still continues its own old snapshot ([%s])", rbuf);
	close(fd);
	close(fd2);
	pt_reset("");
}

/* ----------------------------------------------------------------- §3.4 */

static void test_transaction(void)
{
	static const char multi[] =
		"# a comment\n"
		"\n"
		"+T:one\n"
		"+@T:two\n"
		"!T:two=2\n"
		"\n"
		"#+T:not-applied\n"
		"?T:one\n"
		"-T:one\n"
		"+T:three\n";
	ssize_t n;

	pt_reset("");
	n = raw_write(multi, sizeof(multi) - 1);
	ok(n == (ssize_t)sizeof(multi) - 1,
	   "SPEC §3.4: a successful write returns the full byte count (%zd of %zu)", n,
	   sizeof(multi) - 1);
	ok(pt_is(0, "T:three\n@T:two=2\n"), "SPEC §3.4: lines are applied in order (comments skipped)");

	TX("+A\n", "+B\n+C\n!nosuch=v\n+D\n", ENOENT, "A\n",
	   "SPEC §3.4: 3rd line fails (ENOENT): nothing changes, that line's errno");
	TX("+A\n", "+B\n-A\nbogus\n+D\n", EINVAL, "A\n",
	   "SPEC §3.4: 3rd line malformed (EINVAL): the earlier lines are not applied");
	TX("+A\n", "+B\n+C\n+bad*name\n", EINVAL, "A\n",
	   "SPEC §3.4: 3rd line has an invalid name: EINVAL and nothing changes");
	TX("+A\n", "?nosuch\n+B\n", ENOENT, "A\n", "SPEC §3.4: the first line fails: nothing changes");
	TX("+A\n", "+B\n?nosuch\nbogus\n", ENOENT, "A\n",
	   "SPEC §3.4: processing stops at the first failing line (ENOENT, not the later EINVAL)");
	TX("+A\n", "+B\nbogus\n?nosuch\n", EINVAL, "A\n",
	   "SPEC §3.4: processing stops at the first failing line (EINVAL, not the later ENOENT)");
	TX("", "+A\n-A\n", 0, "", "SPEC §3.4: lines apply in order: +A then -A leaves nothing");
	TX("+A\n", "-A\n+A\n", 0, "A\n", "SPEC §3.4: lines apply in order: -A then +A leaves A");
	TX("", "+N\n!N=V\n", 0, "N=V\n", "SPEC §3.4: +N then !N=V in one write");
	TX("", "+N\n?N\n!N=V\n?N\n", 0, "N=V\n", "SPEC §3.4: a ? line sees earlier lines of the same write");
	{
		ssize_t z;

		pt_reset("+A\n");
		z = raw_write("", 0);
		ok(z == 0 && pt_is(0, "A\n"), "SPEC §3.4: a 0-byte write returns 0 and changes nothing (got %zd)", z);
	}
}

static void test_newline_and_syntax(void)
{
	TX("+A\n", "+B", EINVAL, "A\n", "SPEC §3.4: missing final newline -> EINVAL");
	TX("+A\n", "+B\n+C", EINVAL, "A\n", "SPEC §3.4: missing final newline on line 2 -> EINVAL, line 1 not applied");
	TX("+A\n", "!nosuch=1", EINVAL, "A\n",
	   "SPEC §3.4: missing newline is EINVAL before any line is looked at (not ENOENT)");
	TX("+A\n", "?nosuch\n?nosuch", EINVAL, "A\n",
	   "SPEC §3.4: missing newline is EINVAL even though line 1 would fail with ENOENT");
	TX("+A\n", "#comment", EINVAL, "A\n", "SPEC §3.4: a comment without final newline -> EINVAL");
	TX("+A\n", "\n+B", EINVAL, "A\n", "SPEC §3.4: '\\n+B' -> EINVAL");
	TX("+A\n", "\n", 0, "A\n", "SPEC §3.4: an empty line does nothing");
	TX("+A\n", "\n\n\n", 0, "A\n", "SPEC §3.4: only empty lines do nothing");
	TX("+A\n", "#\n", 0, "A\n", "SPEC §3.4: '#' alone is a comment");
	TX("+A\n", "# +B\n#+C\n#-A\n#!A=1\n", 0, "A\n", "SPEC §3.4: comments are never executed");
	TX("+A\n", "\n#x\n+B\n\n#y\n", 0, "A\nB\n", "SPEC §3.4: empty lines and comments between actions");
	TX("+A\n", "#?nosuch\n", 0, "A\n", "SPEC §3.4: a commented-out failing guard does nothing");
	TX("+A\n", " +B\n", EINVAL, "A\n", "SPEC §3.4: a line starting with a space is 'anything else' -> EINVAL");
	TX("+A\n", "B\n", EINVAL, "A\n", "SPEC §3.4: a bare name is 'anything else' -> EINVAL");
	TX("+A\n", " \n", EINVAL, "A\n", "SPEC §3.4: a line of one space is not empty -> EINVAL");
	TX("+A\n", "\t\n", EINVAL, "A\n", "SPEC §3.4: a line of one tab -> EINVAL");
	TX("+A\n", "*\n", EINVAL, "A\n", "SPEC §3.4: '*' line -> EINVAL");
	TX("+A\n", "=\n", EINVAL, "A\n", "SPEC §3.4: '=' line -> EINVAL");
	TX("+A\n", "@A\n", EINVAL, "A\n", "SPEC §3.4: '@A' line -> EINVAL");
	TX("+A\n", "+B\r\n", EINVAL, "A\n", "SPEC §3.4: CRLF line ending -> EINVAL (CR is a control byte)");
	TX("+A\n", "+B=1\n", EINVAL, "A\n", "SPEC §3.4: +NAME=VALUE -> EINVAL");
	TX("+A\n", "+\n", EINVAL, "A\n", "SPEC §3.4: '+' alone -> EINVAL");
	TX("+A\n", "+S:*\n", EINVAL, "A\n", "SPEC §3.4: +PATTERN:* without @ -> EINVAL");
	TX("+A\n", "!\n", EINVAL, "A\n", "SPEC §3.4: '!' alone -> EINVAL");
	TX("+A\n", "!=v\n", EINVAL, "A\n", "SPEC §3.4: '!=v' (no name) -> EINVAL");
	TX("+S:a\n", "!S:*=v\n", EINVAL, "S:a\n", "SPEC §3.4: '!' with a pattern -> EINVAL");
	TX("+A\n", "++A\n", 0, "+A\nA\n", "SPEC §3.4/§4.1: '++A' adds the valid name '+A'");
	TX("+A\n", "+@@A\n", EINVAL, "A\n", "SPEC §3.4: '+@@A' -> EINVAL");
}

static void test_actions(void)
{
	TX("", "+a\n", 0, "a\n", "SPEC §3.4: +NAME adds without keep");
	TX("", "+@a\n", 0, "@a\n", "SPEC §3.4: +@NAME adds with keep");
	TX("+a\n", "+@a\n", 0, "@a\n", "SPEC §3.4: +@NAME sets keep on an existing tag");
	TX("+a\n!a=1\n", "+@a\n", 0, "@a=1\n", "SPEC §3.4: +@NAME keeps the value");
	TX("+@a\n", "+a\n", 0, "@a\n", "SPEC §3.4: +NAME on a kept tag keeps the flag");
	TX("+S:a\n+S:b:c\n+S\n+T:a\n", "+@S:*\n", 0, "S\n@S:a\n@S:b:c\nT:a\n",
	   "SPEC §3.4: +@PATTERN:* sets keep on every matching tag only");
	TX("+S:a\n+T\n", "+@\n", 0, "@S:a\n@T\n", "SPEC §3.4: +@ sets keep on every tag");
	TX("+S:a\n+T\n", "-T\n", 0, "S:a\n", "SPEC §3.4: -NAME removes");
	TX("+S:a\n+@S:b\n+S\n+T\n", "-S:*\n", 0, "S\nT\n", "SPEC §3.4: -PATTERN:* removes every match (kept too)");
	TX("+S:a\n+@T\n", "-\n", 0, "", "SPEC §3.4: '-' removes every tag");
	TX("+@a\n", "-@a\n", 0, "a\n", "SPEC §3.4: -@NAME clears keep, tag stays");
	TX("+@S:a\n+@S:b\n+@T\n", "-@S:*\n", 0, "S:a\nS:b\n@T\n", "SPEC §3.4: -@PATTERN:* clears keep on matches");
	TX("+@S:a\n+@T\n", "-@\n", 0, "S:a\nT\n", "SPEC §3.4: -@ clears every keep flag");
	TX("+a\n", "!a=v\n", 0, "a=v\n", "SPEC §3.4: !NAME=VALUE sets a value");
	TX("+a\n!a=v\n", "!a=w\n", 0, "a=w\n", "SPEC §3.4: !NAME=VALUE replaces a value");
	TX("+a\n!a=v\n", "!a=\n", 0, "a\n", "SPEC §3.4: !NAME= removes the value");
	TX("+a\n!a=v\n", "!a\n", 0, "a\n", "SPEC §3.4: !NAME removes the value");
	TX("+a\n", "!b=v\n", ENOENT, "a\n", "SPEC §3.4: !NAME=VALUE on an absent tag -> ENOENT");
	TX("+a\n", "?a\n", 0, "a\n", "SPEC §3.4: ?NAME succeeds when present");
	TX("+a\n", "?b\n", ENOENT, "a\n", "SPEC §3.4: ?NAME -> ENOENT when absent");
	TX("+S:x\n", "?S:*\n", 0, "S:x\n", "SPEC §3.4: ?PATTERN:* succeeds on a match");
	TX("+S\n", "?S:*\n", ENOENT, "S\n", "SPEC §3.4: ?S:* does not match S -> ENOENT");
	TX("+a\n", "?\n", 0, "a\n", "SPEC §3.4: ? succeeds on a non-empty set");
	TX("", "?\n", ENOENT, "", "SPEC §3.4: ? on an empty set -> ENOENT");
	TX("+@a\n", "?@a\n", 0, "@a\n", "SPEC §3.4: ?@NAME succeeds on a kept tag");
	TX("+a\n", "?@a\n", ENOENT, "a\n", "SPEC §3.4: ?@NAME -> ENOENT when not kept");
	TX("+S:a\n+@S:b\n", "?@S:*\n", 0, "S:a\n@S:b\n", "SPEC §3.4: ?@PATTERN:* succeeds if one match is kept");
	TX("+S:a\n+@T\n", "?@S:*\n", ENOENT, "S:a\n@T\n", "SPEC §3.4: ?@PATTERN:* -> ENOENT if no match is kept");
	TX("+a\n+@b\n", "?@\n", 0, "a\n@b\n", "SPEC §3.4: ?@ succeeds if any tag is kept");
	TX("+a\n", "?@\n", ENOENT, "a\n", "SPEC §3.4: ?@ -> ENOENT if no tag is kept");
	TX("+a\n", "-b\n", 0, "a\n", "SPEC §3.4: -NAME of an absent tag succeeds");
	TX("+a\n", "-S:*\n", 0, "a\n", "SPEC §3.4: an action whose pattern matches nothing succeeds");
	TX("+a\n", "+@S:*\n", 0, "a\n", "SPEC §3.4: +@PATTERN:* matching nothing succeeds");
	TX("", "-\n-@\n+@\n", 0, "", "SPEC §3.4: -, -@, +@ on an empty set succeed");
}

static void test_guards(void)
{
	TX("", "?S:ready\n+S:go\n", ENOENT, "", "SPEC §3.4: guard ?S:ready fails: S:go not added");
	TX("+S:ready\n", "?S:ready\n+S:go\n", 0, "S:go\nS:ready\n", "SPEC §3.4: guard ?S:ready holds: S:go added");
	TX("+S:ready\n", "?@S:ready\n+S:go\n", ENOENT, "S:ready\n",
	   "SPEC §3.4: guard ?@S:ready fails on a non-kept tag: nothing added");
	TX("+S:x\n", "?S:*\n-S:x\n+S:y\n", 0, "S:y\n", "SPEC §3.4: a pattern guard, then a swap");
	TX("+A\n", "-A\n?A\n+B\n", ENOENT, "A\n",
	   "SPEC §3.4: a guard after a removal in the same write fails and undoes the removal");
}

static void test_utf8(void)
{
	TX("+A\n", "+\xff\n", EINVAL, "A\n", "SPEC §3.4: invalid UTF-8 (0xff) in a name -> EINVAL");
	TX("+A\n", "+ok\n+\xed\xa0\x80\n", EINVAL, "A\n",
	   "SPEC §3.4: a surrogate on line 2 -> EINVAL, line 1 not applied");
	TX("+A\n", "!A=\xc0\xaf\n", EINVAL, "A\n", "SPEC §3.4: an overlong form in a value -> EINVAL");
	TX("+A\n", "!A=\xf4\x90\x80\x80\n", EINVAL, "A\n", "SPEC §3.4: a code point above U+10FFFF in a value -> EINVAL");
	TX("+A\n", "?\xc3\n", EINVAL, "A\n", "SPEC §3.4: truncated UTF-8 in a ? line -> EINVAL (not ENOENT)");
	TX("+A\n", "-\x80\n", EINVAL, "A\n", "SPEC §3.4: a lone continuation byte in a - line -> EINVAL");
	TX("+A\n", "#\xff\n", EINVAL, "A\n", "SPEC §3.4: each line must be valid UTF-8, comments too -> EINVAL");
	TX("+A\n", "+\xc3\xa9t\xc3\xa9\n", 0, "A\n\xc3\xa9t\xc3\xa9\n", "SPEC §3.4: valid UTF-8 is accepted");
}

static void test_e2big(void)
{
	long old = pt_param("max_write");
	char s[256];
	ssize_t n;
	char *big;
	size_t bl;

	if (!ok(old == (1 << 20), "SPEC §8: max_write defaults to 1 MiB (%ld)", old))
		if (old <= 0)
			return;
	ok(pt_set_param("max_write", 64) == 0 && pt_param("max_write") == 64,
	   "setup: lower max_write to 64");
	pt_reset("+A\n");
	memset(s, 'b', sizeof(s));
	s[0] = '+';
	s[63] = '\n';
	n = raw_write(s, 64);
	ok(n == 64 && pt_is(0, "A\n" "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n"),
	   "SPEC §3.4/§8: a write of exactly max_write bytes is accepted (got %zd)", n);
	pt_reset("+A\n");
	s[63] = 'b';
	s[64] = '\n';
	n = raw_write(s, 65);
	ok(n == -E2BIG && pt_is(0, "A\n"),
	   "SPEC §3.4: a write of max_write+1 bytes -> E2BIG, nothing changes (got %s)",
	   n < 0 ? strerror(-n) : "success");
	memset(s, '\n', 65);
	n = raw_write(s, 65);
	ok(n == -E2BIG && pt_is(0, "A\n"),
	   "SPEC §3.4: 65 empty lines with max_write 64 -> E2BIG (got %s)",
	   n < 0 ? strerror(-n) : "success");
	memset(s, '\n', 100);
	s[0] = '+';
	s[1] = 'Q';
	n = raw_write(s, 100);
	ok(n == -E2BIG && pt_is(0, "A\n"), "SPEC §3.4: a 100-byte write with max_write 64 -> E2BIG");
	ok(pt_set_param("max_write", old) == 0 && pt_param("max_write") == old,
	   "cleanup: restore max_write to %ld", old);

	/* At the default: 1 MiB passes, 1 MiB + 1 fails. */
	bl = (size_t)old + 1;
	big = malloc(bl);
	if (!big)
		die("malloc");
	memset(big, '\n', bl);
	memcpy(big, "+big\n", 5);
	pt_reset("");
	n = raw_write(big, bl - 1);
	ok(n == (ssize_t)bl - 1 && pt_is(0, "big\n"),
	   "SPEC §3.4: a write of exactly max_write (%zu) bytes succeeds (got %zd)", bl - 1, n);
	pt_reset("");
	n = raw_write(big, bl);
	ok(n == -E2BIG && pt_is(0, ""), "SPEC §3.4: a write of max_write+1 bytes -> E2BIG (got %zd)", n);
	free(big);
	pt_reset("");
}

static void test_rights_snapshot(void)
{
	struct agent *k;

	pt_reset("");
	k = agent_new(false);
	ok(pt_write(k->pid, "+ptags:ptags:add\n") == 0, "setup: grant ptags:ptags:add to a child");
	ok(a_drop(k), "setup: the child dropped its privileges");
	ok(aw(k, 0, "+ptags:add\n+X\n") == EPERM && pt_is(k->pid, "ptags:ptags:add\n"),
	   "SPEC §3.4: a right added by line 1 does not count for line 2 (EPERM, nothing changes)");
	ok(aw(k, 0, "+X\n") == EPERM && pt_is(k->pid, "ptags:ptags:add\n"),
	   "SPEC §5.2: without ptags:add the child cannot add X");
	ok(aw(k, 0, "+ptags:add\n") == 0 && pt_is(k->pid, "ptags:add\nptags:ptags:add\n"),
	   "SPEC §5.1: with ptags:ptags:add the child adds ptags:add to itself");
	ok(aw(k, 0, "+X\n") == 0 && pt_is(k->pid, "X\nptags:add\nptags:ptags:add\n"),
	   "SPEC §3.4: in a later write the new right counts");
	ok(aw(k, 0, "+Y\n+Z\n-X\n") == EPERM && pt_is(k->pid, "X\nptags:add\nptags:ptags:add\n"),
	   "SPEC §3.4: an unprivileged write whose 3rd line is not allowed (EPERM) changes nothing");
	ok(agent_end(k), "child exited cleanly");

	k = agent_new(false);
	ok(pt_write(k->pid, "+ptags:add\n+ptags:ptags:sub\n") == 0, "setup: grant ptags:add and ptags:ptags:sub");
	ok(a_drop(k), "setup: the child dropped its privileges");
	ok(aw(k, 0, "-ptags:add\n+X\n") == 0 && pt_is(k->pid, "X\nptags:ptags:sub\n"),
	   "SPEC §3.4: a right removed by line 1 still counts for line 2 (rights from the start of the write)");
	ok(aw(k, 0, "+Y\n") == EPERM && pt_is(k->pid, "X\nptags:ptags:sub\n"),
	   "SPEC §3.4: in the next write the removed right is gone (EPERM)");
	ok(agent_end(k), "child exited cleanly");
}

int main(void)
{
	if (pt_write(0, "-\n"))
		die("cannot clear own tags");
	test_format();
	test_small_buffers();
	test_snapshot();
	test_transaction();
	test_newline_and_syntax();
	test_actions();
	test_guards();
	test_utf8();
	test_e2big();
	test_rights_snapshot();
	pt_write(0, "-\n");
	return tap_done();
}
