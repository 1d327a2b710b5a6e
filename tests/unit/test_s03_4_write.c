// SPDX-License-Identifier: GPL-2.0
/* SPEC §3.4: the write protocol, transactions, guards and line numbers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tutil.h"

static const struct wspec P = { .priv = true };

/* Malformed lines: EINVAL whoever writes them (SPEC §3.4 "anything else"). */
static const char *const malformed[] = {
	"+", "+S:*", "+:*", "+ptags:*", "+a=1", "+a=", "+@@a", "+@a=1",
	"+@*", "+*", "+@S:*x", "+ a\t", "!", "!=", "!=v", "!S:*=1", "!S:*",
	"!*", "!@a=1", "!a\x01", "!a=\x01", "!a=\x7f", "x", " a", "*", "=a",
	"@a", "\t", "\r", "a", "-a=1", "-@a=1", "-*", "-@*", "-S*", "-@@",
	"-@@a", "?*", "?a=1", "?@a=1", "?@@", "?S:**", "+a\r", "-a:", "?a:",
	"-ptags:x", "+ptags:myadd", "-@:", "+@a:", "?=", "#\xff", "\xff",
	"!a=\xc0\xaf",
};

void test_s03_4_write(void)
{
	struct wspec rs = { .rights = "ptags:add\nptags:sub\nptags:set\n" };
	size_t i;

	tap_section("SPEC §3.4 writing");

	check_buf("SPEC §3.4: an empty write succeeds and changes nothing",
		  "a\n", "", 0, &P, NULL, 0, 0, NULL);
	check("SPEC §3.4: missing final newline -> EINVAL, line 0", "",
	      "+a", &P, NULL, EINVAL, 0, NULL);
	check("SPEC §3.4: missing final newline is checked before any line",
	      "", "?nothing\n+a", &P, NULL, EINVAL, 0, NULL);
	check("SPEC §3.4: missing final newline after invalid UTF-8 -> line 0",
	      "", "\xff\n+a", &P, NULL, EINVAL, 0, NULL);
	check("SPEC §3.4: one newline alone is an empty line: success", "a\n",
	      "\n", NULL, NULL, 0, 0, NULL);
	check("SPEC §3.4: empty lines and comments do nothing, need no right",
	      "a\n", "\n\n#\n# +b\n#-a\n\n", NULL, NULL, 0, 0, NULL);
	check("SPEC §3.4: a comment may hold any valid UTF-8 and '='",
	      "", "#\xe2\x82\xac = * @ \t\x01\n+a\n", &P, NULL, 0, 0, "a\n");
	check("SPEC §3.4: a comment with invalid UTF-8 -> EINVAL", "",
	      "+a\n#\xc0\xaf\n", &P, NULL, EINVAL, 2, NULL);
	check("SPEC §3.4: an empty line does not hide a later failure", "",
	      "\n\n?x\n", &P, NULL, ENOENT, 3, NULL);

	/* Transactions. */
	check("SPEC §3.4: all lines apply in order", "c\n",
	      "+a\n+@b\n-c\n!a=1\n", &P, NULL, 0, 0, "a=1\n@b\n");
	check("SPEC §3.4: failure at line 2 changes nothing", "c\n",
	      "+a\n!zz=1\n-c\n", &P, NULL, ENOENT, 2, NULL);
	check("SPEC §3.4: failure at the last line reports its number", "",
	      "+a\n+b\n\n#x\n+c\n+\n", &P, NULL, EINVAL, 6, NULL);
	check("SPEC §3.4: the first failing line stops processing", "",
	      "?x\n+\n", &P, NULL, ENOENT, 1, NULL);
	check("SPEC §3.4: lines after the failing one are not looked at", "",
	      "+\n?x\n\xff\n", &P, NULL, EINVAL, 1, NULL);
	check("SPEC §3.4: +N then !N=V in one write is atomic", "",
	      "+N\n!N=V\n", &rs, NULL, 0, 0, "N=V\n");
	check("SPEC §3.4: add then remove: the set does not change", "a\n",
	      "+b\n-b\n", &rs, NULL, 0, 0, NULL);
	check("SPEC §3.4: remove then add back: the set does not change",
	      "@a=1\n", "-a\n+@a\n!a=1\n", &P, NULL, 0, 0, NULL);
	check("SPEC §3.4: removing the last tag gives the empty set",
	      "a\n@b=1\n", "-a\n-b\n", &P, NULL, 0, 0, "");
	check("SPEC §3.4: a line sees the result of earlier lines", "",
	      "+a\n?a\n-a\n+a\n!a=2\n?a\n", &P, NULL, 0, 0, "a=2\n");
	check("SPEC §3.4: a value written by a line refers to the buffer",
	      "b=old\n", "!b=new value\n+@c\n!c=\xe2\x82\xac\n", &P, NULL, 0,
	      0, "b=new value\n@c=\xe2\x82\xac\n");

	/* Guards. */
	check("SPEC §3.4: guard ?S:ready absent -> ENOENT, S:go not added", "",
	      "?S:ready\n+S:go\n", &P, NULL, ENOENT, 1, NULL);
	check("SPEC §3.4: guard ?S:ready present -> S:go added", "S:ready\n",
	      "?S:ready\n+S:go\n", &P, NULL, 0, 0, "S:go\nS:ready\n");
	check("SPEC §3.4: ? needs no right", "a\n", "?a\n", NULL, NULL, 0, 0,
	      NULL);
	check("SPEC §3.4: ? on the empty set -> ENOENT", "", "?\n", NULL, NULL,
	      ENOENT, 1, NULL);
	check("SPEC §3.4: ? on a non-empty set succeeds", "a\n", "?\n", NULL,
	      NULL, 0, 0, NULL);
	check("SPEC §3.4: ?@ without a kept tag -> ENOENT", "a\nb=1\n", "?@\n",
	      NULL, NULL, ENOENT, 1, NULL);
	check("SPEC §3.4: ?@ with a kept tag succeeds", "a\n@b=1\n", "?@\n",
	      NULL, NULL, 0, 0, NULL);
	check("SPEC §3.4: ?@NAME on an unkept tag -> ENOENT", "a\n", "?@a\n",
	      NULL, NULL, ENOENT, 1, NULL);
	check("SPEC §3.4: ?@NAME on a kept tag succeeds", "@a\n", "?@a\n",
	      NULL, NULL, 0, 0, NULL);
	check("SPEC §3.4: ?NAME does not match a longer name", "ab\n", "?a\n",
	      NULL, NULL, ENOENT, 1, NULL);
	check("SPEC §3.4: ?PATTERN:* matches a tag below the prefix",
	      "S:x\n", "?S:*\n", NULL, NULL, 0, 0, NULL);
	check("SPEC §3.4: ?PATTERN:* does not match the bare prefix", "S\nT:x\n",
	      "?S:*\n", NULL, NULL, ENOENT, 1, NULL);
	check("SPEC §3.4: ?@PATTERN:* needs a kept match", "S:a\n@S:b\nT\n",
	      "?@S:*\n", NULL, NULL, 0, 0, NULL);
	check("SPEC §3.4: ?@PATTERN:* without a kept match -> ENOENT",
	      "S:a\n@T:b\n", "?@S:*\n", NULL, NULL, ENOENT, 1, NULL);
	check("SPEC §3.4: ? sees tags added earlier in the write", "",
	      "+a\n?a\n", &P, NULL, 0, 0, "a\n");
	check("SPEC §3.4: ? sees tags removed earlier in the write", "a\n",
	      "-a\n?a\n", &P, NULL, ENOENT, 2, NULL);

	/* Pattern and global forms (privileged: everything allowed). */
	check("SPEC §4.3: -S:* removes S:A:B.c and S:X, not S nor X",
	      "S\nS:A:B.c\nS:X\nX\n", "-S:*\n", &P, NULL, 0, 0, "S\nX\n");
	check("SPEC §4.3: -:* removes every name beginning with ':'",
	      "::a\n:x\na:\xc3\xa9\nb\n", "-:*\n", &P, NULL, 0, 0,
	      "a:\xc3\xa9\nb\n");
	check("SPEC §3.4: - removes every tag", "a\n@b=1\nptags:add\n", "-\n",
	      &P, NULL, 0, 0, "");
	check("SPEC §3.4: - on the empty set succeeds", "", "-\n", &P, NULL,
	      0, 0, NULL);
	check("SPEC §3.4: +@ sets every keep flag", "a\n@b=1\nc=2\n", "+@\n",
	      &P, NULL, 0, 0, "@a\n@b=1\n@c=2\n");
	check("SPEC §3.4: -@ clears every keep flag", "@a\n@b=1\nc=2\n",
	      "-@\n", &P, NULL, 0, 0, "a\nb=1\nc=2\n");
	check("SPEC §3.4: +@PATTERN:* keeps the matching tags",
	      "S\nS:a\nS:b=1\nT:a\n", "+@S:*\n", &P, NULL, 0, 0,
	      "S\n@S:a\n@S:b=1\nT:a\n");
	check("SPEC §3.4: -@PATTERN:* unkeeps the matching tags",
	      "@S\n@S:a\n@S:b=1\n@T:a\n", "-@S:*\n", &P, NULL, 0, 0,
	      "@S\nS:a\nS:b=1\n@T:a\n");
	check("SPEC §4.3: ptags:* matches the permission tags",
	      "ptags:add\nptags:x:sub\nptagsx\n", "-ptags:*\n", &P, NULL, 0,
	      0, "ptagsx\n");
	check("SPEC §3.4: a pattern matching nothing succeeds", "a\n",
	      "-Q:*\n+@Q:*\n-@Q:*\n", NULL, NULL, 0, 0, NULL);
	check("SPEC §3.4: -@NAME on an absent tag succeeds", "", "-@a\n",
	      NULL, NULL, 0, 0, NULL);
	check("SPEC §3.4: !NAME= removes the value", "@a=1\n", "!a=\n", &P,
	      NULL, 0, 0, "@a\n");
	check("SPEC §3.4: !NAME removes the value", "a=1\n", "!a\n", &P,
	      NULL, 0, 0, "a\n");
	check("SPEC §3.4: !NAME=VALUE replaces the value", "a=1\n",
	      "!a=22\n", &P, NULL, 0, 0, "a=22\n");
	check("SPEC §3.4: - then + in one write", "a\nb\n", "-\n+c\n", &P,
	      NULL, 0, 0, "c\n");

	/* Every malformed form, for a privileged writer. */
	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		char *w = fmt("?a\n%s\n", malformed[i]);
		char *name = fmt("SPEC §3.4: malformed line \"%s\" -> EINVAL at line 2",
				 malformed[i][0] == '#' || malformed[i][0] ==
				 '\xff' ? "(invalid UTF-8)" : malformed[i]);

		check(name, "a\n", w, &P, NULL, EINVAL, 2, NULL);
		free(w);
		free(name);
	}
	check_buf("SPEC §3.4: a NUL byte in a line -> EINVAL", "",
		  "+a\0b\n", 5, &P, NULL, EINVAL, 1, NULL);
	check_buf("SPEC §3.4: a NUL byte in a comment is valid UTF-8", "",
		  "#a\0b\n", 5, &P, NULL, 0, 0, NULL);

	/* The rights a write uses are those held when it started. */
	{
		struct wspec self = { .rights_is_target = true };

		check("SPEC §3.4: a permission tag added by a line does not grant to later lines",
		      "ptags:ptags:add\n", "+ptags:add\n+x\n", &self, NULL,
		      EPERM, 2, NULL);
		check("SPEC §3.4: a permission tag removed by a line still grants to later lines",
		      "ptags:ptags:sub\nptags:sub\nx\n",
		      "-ptags:sub\n-x\n", &self, NULL, 0, 0,
		      "ptags:ptags:sub\n");
		check("SPEC §3.4: the writer's own rights apply to its own set",
		      "ptags:add\n", "+x\n", &self, NULL, 0, 0,
		      "ptags:add\nx\n");
		check("SPEC §3.4: own set without ptags:ptags:add cannot add permission tags",
		      "ptags:add\n", "+ptags:sub\n", &self, NULL, EPERM, 1,
		      NULL);
	}

	/* Cost: a 100-line write on a 1000-tag set allocates twice. */
	{
		char *in = NULL, *w = NULL;
		struct pt_set *s;
		struct pt_result res;
		struct pt_writer pw = { .privileged = true, .self = true,
					.same_opener = true };
		long calls;
		int err;

		for (i = 0; i < 1000; i++) {
			char *t = fmt("%st%04zu=v\n", in ? in : "", i);

			free(in);
			in = t;
		}
		for (i = 0; i < 100; i++) {
			char *t = fmt("%s%ct%04zu\n", w ? w : "",
				      i % 2 ? '-' : '+', i * 17 + 3);

			free(w);
			w = t;
		}
		s = mk(in);
		calls = shim_alloc_calls();
		err = pt_apply(s, w, strlen(w), &pw, &LIM_BIG, &res);
		ok(!err && res.changed && res.set && res.set->count == 991 &&
		   shim_alloc_calls() - calls == 2,
		   "SPEC §3.4: 100 lines on 1000 tags: one scratch and one set allocation");
		pt_set_put(res.set);
		pt_set_put(s);
		free(in);
		free(w);
		ok(no_leak(), "SPEC §3.4: no leak after the large write");
	}
}
