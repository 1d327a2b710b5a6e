// SPDX-License-Identifier: GPL-2.0
/* SPEC §4: names, values, patterns and UTF-8, directly and through writes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tutil.h"

static const struct wspec P = { .priv = true };

struct u8case {
	const char *what;
	const char *s;
	bool valid;
};

static const struct u8case utf8[] = {
	{ "ASCII", "abc", true },
	{ "2-byte U+0080", "\xc2\x80", true },
	{ "2-byte U+07FF", "\xdf\xbf", true },
	{ "3-byte U+0800", "\xe0\xa0\x80", true },
	{ "3-byte U+D7FF (below surrogates)", "\xed\x9f\xbf", true },
	{ "3-byte U+E000 (above surrogates)", "\xee\x80\x80", true },
	{ "3-byte U+FFFF", "\xef\xbf\xbf", true },
	{ "4-byte U+10000", "\xf0\x90\x80\x80", true },
	{ "4-byte U+10FFFF", "\xf4\x8f\xbf\xbf", true },
	{ "mixed text", "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80", true },
	{ "continuation without lead 0x80", "a\x80", false },
	{ "continuation without lead 0xbf", "\xbf" "a", false },
	{ "overlong 2-byte C0 80", "\xc0\x80", false },
	{ "overlong 2-byte C1 BF", "\xc1\xbf", false },
	{ "overlong 3-byte E0 80 80", "\xe0\x80\x80", false },
	{ "overlong 3-byte E0 9F BF", "\xe0\x9f\xbf", false },
	{ "overlong 4-byte F0 80 80 80", "\xf0\x80\x80\x80", false },
	{ "overlong 4-byte F0 8F BF BF", "\xf0\x8f\xbf\xbf", false },
	{ "surrogate U+D800", "\xed\xa0\x80", false },
	{ "surrogate U+DBFF", "\xed\xaf\xbf", false },
	{ "surrogate U+DC00", "\xed\xb0\x80", false },
	{ "surrogate U+DFFF", "\xed\xbf\xbf", false },
	{ "above U+10FFFF: F4 90 80 80", "\xf4\x90\x80\x80", false },
	{ "above U+10FFFF: F5 80 80 80", "\xf5\x80\x80\x80", false },
	{ "above U+10FFFF: F7 BF BF BF", "\xf7\xbf\xbf\xbf", false },
	{ "5-byte form F8", "\xf8\x88\x80\x80\x80", false },
	{ "6-byte form FC", "\xfc\x84\x80\x80\x80\x80", false },
	{ "byte FE", "\xfe", false },
	{ "byte FF", "\xff", false },
	{ "truncated 2-byte", "a\xc3", false },
	{ "truncated 3-byte", "a\xe2\x82", false },
	{ "truncated 4-byte", "a\xf0\x9f\x98", false },
	{ "truncated 2-byte before ASCII", "\xc3" "a", false },
	{ "truncated 3-byte before ASCII", "\xe2\x82" "a", false },
	{ "bad second byte of 3-byte", "\xe2\x28\xa1", false },
	{ "bad third byte of 4-byte", "\xf0\x90\x28\xbc", false },
	{ "bad fourth byte of 4-byte", "\xf0\x90\x80\xc0", false },
};

struct vcase {
	const char *s;
	bool valid;
};

/* SPEC §4.1 names. */
static const struct vcase names[] = {
	{ "a", true }, { "a b", true }, { ":x::a", true }, { "a@b", true },
	{ "+a", true }, { "-", true }, { "#a", true }, { "?", true },
	{ "!", true }, { "ptags", true }, { "ptagsx:y", true },
	{ "Ptags:x", true }, { "xptags:x", true }, { "ptags:add", true },
	{ "ptags:sub", true }, { "ptags:set", true }, { "ptags:others", true },
	{ "ptags:a:b:sub", true }, { "ptags::add", true },
	{ "ptags:ptags:add", true }, { "ptags:x:others", true },
	{ "a:*b", false }, { "", false }, { "@a", false }, { "a:", false },
	{ ":", false }, { "a=b", false }, { "=", false }, { "*", false },
	{ "a*", false }, { "S:*", false }, { "ptags:myadd", false },
	{ "ptags:", false }, { "ptags:x", false }, { "ptags:add:", false },
	{ "ptags:addx", false }, { "ptags:other", false },
	{ "ptags:Add", false }, { "ptags:x:all", false },
	{ "ptags:xothers", false }, { "ptags:xsub", false },
	{ "ptags:xset", false }, { "ptags:others:", false },
	{ "ptags:add\xc3\xa9", false },
};

/* SPEC §4.3 patterns: validity, globality, prefix length. */
static const struct {
	const char *s;
	bool valid, global;
	size_t plen;
} patterns[] = {
	{ "a", true, false, 1 }, { "S:*", true, true, 2 },
	{ ":*", true, true, 1 }, { "ptags:*", true, true, 6 },
	{ "ptags:x:*", true, true, 8 }, { "a b:c:*", true, true, 6 },
	{ "::*", true, true, 2 }, { "ptags:add", true, false, 9 },
	{ "*", false, false, 0 }, { "S*", false, false, 0 },
	{ "S:**", false, false, 0 }, { "S:*:*", false, false, 0 },
	{ "@S:*", false, false, 0 }, { "S=:*", false, false, 0 },
	{ "S:*x", false, false, 0 }, { "\x01:*", false, false, 0 },
	{ ":", false, false, 0 }, { "ptags:x", false, false, 0 },
	{ "", false, false, 0 }, { "S:\x7f:*", false, false, 0 },
	{ "\xc0\xaf:*", false, false, 0 },
};

static void utf8_cases(void)
{
	size_t i;

	for (i = 0; i < sizeof(utf8) / sizeof(utf8[0]); i++) {
		const struct u8case *c = &utf8[i];
		size_t n = strlen(c->s);
		char *name = fmt("x%s", c->s), *w, *t;
		int err = c->valid ? 0 : EINVAL;

		ok(pt_utf8_valid(c->s, n) == c->valid &&
		   pt_name_valid(name, n + 1) == c->valid &&
		   pt_value_valid(c->s, n) == c->valid,
		   "SPEC §4.1/§4.2: UTF-8 %s is %s", c->what,
		   c->valid ? "valid" : "invalid");

		w = fmt("+%s\n", name);
		t = fmt("SPEC §3.4: +NAME with UTF-8 %s -> %s", c->what,
			c->valid ? "added" : "EINVAL");
		free(name);
		name = fmt("x%s\n", c->s);
		check(t, "", w, &P, NULL, err, 1, c->valid ? name : NULL);
		free(w);
		free(t);
		free(name);

		w = fmt("!a=%s\n", c->s);
		t = fmt("SPEC §4.2: value with UTF-8 %s -> %s", c->what,
			c->valid ? "set" : "EINVAL");
		name = fmt("a=%s\n", c->s);
		check(t, "a\n", w, &P, NULL, err, 1, c->valid ? name : NULL);
		free(w);
		free(t);
		free(name);
	}
}

static void byte_cases(void)
{
	unsigned int b;
	char s[4];

	for (b = 0; b < 0x80; b++) {
		bool ctl = b < 0x20 || b == 0x7f;
		bool name_ok = !ctl && b != '=' && b != '*';

		s[0] = 'a';
		s[1] = (char)b;
		s[2] = 'z';
		ok(pt_name_valid(s, 3) == name_ok,
		   "SPEC §4.1: byte 0x%02x inside a name is %s", b,
		   name_ok ? "valid" : "invalid");
		ok(pt_value_valid(s, 3) == !ctl,
		   "SPEC §4.2: byte 0x%02x inside a value is %s", b,
		   !ctl ? "valid" : "invalid");
	}
	/* Through the protocol: a control byte in a name or a value. */
	s[0] = 'a';
	s[2] = '\n';
	for (b = 0; b < 0x20; b++) {
		char w[8] = "+a?\n", v[8] = "!a=?\n";

		if (b == '\n')
			continue;
		w[2] = (char)b;
		v[3] = (char)b;
		check_buf("SPEC §4.1: a control byte in +NAME -> EINVAL", "",
			  w, 4, &P, NULL, EINVAL, 1, NULL);
		check_buf("SPEC §4.2: a control byte in !NAME=VALUE -> EINVAL",
			  "a\n", v, 5, &P, NULL, EINVAL, 1, NULL);
	}
	check("SPEC §4.1: DEL in +NAME -> EINVAL", "", "+a\x7f\n", &P, NULL,
	      EINVAL, 1, NULL);
	check("SPEC §4.2: DEL in a value -> EINVAL", "a\n", "!a=\x7f\n", &P,
	      NULL, EINVAL, 1, NULL);
	check("SPEC §4.2: '=', '*', '@', ':' and spaces are valid in values",
	      "a\n", "!a= =*@: \n", &P, NULL, 0, 0, "a= =*@: \n");
}

static void length_cases(void)
{
	char *n4000 = rep('n', 4000, ""), *n4001 = rep('n', 4001, "");
	char *v32700 = rep('v', 32700, ""), *v32701 = rep('v', 32701, "");
	char *p4000 = rep('p', 3999, ":*"), *p4001 = rep('p', 4000, ":*");
	char *w, *after;
	bool g;
	size_t pl;

	ok(pt_name_valid(n4000, 4000) && !pt_name_valid(n4001, 4001) &&
	   !pt_name_valid(n4000, 0),
	   "SPEC §4.1: names of 4000 bytes are valid, 4001 and 0 are not");
	ok(pt_value_valid(v32700, 32700) && !pt_value_valid(v32701, 32701) &&
	   pt_value_valid(v32700, 0),
	   "SPEC §4.2: values of 32700 and 0 bytes are valid, 32701 is not");
	ok(pt_pattern_valid(p4000, 4001, &g, &pl) && g && pl == 4000 &&
	   !pt_pattern_valid(p4001, 4002, &g, &pl),
	   "SPEC §4.3: a prefix of 4000 bytes before '*' is valid, 4001 is not");

	w = fmt("+%s\n", n4000);
	after = fmt("%s\n", n4000);
	check("SPEC §4.1: +NAME of 4000 bytes is added", "", w, &P, NULL, 0,
	      0, after);
	free(w);
	free(after);
	w = fmt("+%s\n", n4001);
	check("SPEC §4.1: +NAME of 4001 bytes -> EINVAL", "", w, &P, NULL,
	      EINVAL, 1, NULL);
	free(w);
	w = fmt("!a=%s\n", v32700);
	after = fmt("a=%s\n", v32700);
	check("SPEC §4.2: a value of 32700 bytes is set", "a\n", w, &P, NULL,
	      0, 0, after);
	free(w);
	free(after);
	w = fmt("!a=%s\n", v32701);
	check("SPEC §4.2: a value of 32701 bytes -> EINVAL", "a\n", w, &P,
	      NULL, EINVAL, 1, NULL);
	free(w);
	w = fmt("-%s\n", p4000);
	check("SPEC §4.3: -PREFIX:* with a 4000-byte prefix is valid", "a\n",
	      w, &P, NULL, 0, 0, NULL);
	free(w);
	w = fmt("-%s\n", p4001);
	check("SPEC §4.3: -PREFIX:* with a 4001-byte prefix -> EINVAL", "a\n",
	      w, &P, NULL, EINVAL, 1, NULL);
	free(w);
	/* 2000 two-byte characters: 4000 bytes; one more byte is too many. */
	free(n4000);
	n4000 = malloc(4002);
	for (pl = 0; pl < 4000; pl += 2)
		memcpy(n4000 + pl, "\xc3\xa9", 2);
	n4000[4000] = 'x';
	ok(pt_name_valid(n4000, 4000) && !pt_name_valid(n4000, 4001),
	   "SPEC §4.1: the name limit counts bytes, not characters");
	free(n4000);
	free(n4001);
	free(v32700);
	free(v32701);
	free(p4000);
	free(p4001);
}

void test_s04_valid(void)
{
	size_t i;

	tap_section("SPEC §4 validity");
	utf8_cases();
	byte_cases();
	length_cases();

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct vcase *c = &names[i];
		char *w = fmt("+%s\n", c->s), *after = fmt("%s\n", c->s);
		char *t = fmt("SPEC §4.1: name \"%s\" is %s", c->s,
			      c->valid ? "valid" : "invalid");

		ok(pt_name_valid(c->s, strlen(c->s)) == c->valid, "%s", t);
		free(t);
		t = fmt("SPEC §4.1: +%s -> %s", c->s,
			c->valid ? "added" : "EINVAL");
		/* "+@..." is the keep form: "+@@a" is in test_s03_4_write.c */
		if (c->s[0] != '@')
			check(t, "", w, &P, NULL, c->valid ? 0 : EINVAL, 1,
			      c->valid ? after : NULL);
		free(w);
		free(after);
		free(t);
	}
	for (i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		bool g = !patterns[i].global;
		size_t pl = 12345;
		bool v = pt_pattern_valid(patterns[i].s,
					  strlen(patterns[i].s), &g, &pl);
		char *w;

		ok(v == patterns[i].valid &&
		   (!v || (g == patterns[i].global &&
			   pl == patterns[i].plen)),
		   "SPEC §4.3: pattern \"%s\" is %s%s", patterns[i].s,
		   patterns[i].valid ? "valid" : "invalid",
		   patterns[i].global ? " (global)" : "");
		w = fmt("-%s\n", patterns[i].s);
		if (patterns[i].s[0] && patterns[i].s[0] != '@')
			check("SPEC §4.3: the pattern's validity holds for -PATTERN",
			      "b\n", w, &P, NULL,
			      patterns[i].valid ? 0 : EINVAL, 1, NULL);
		free(w);
	}
	check("SPEC §4.1: '@' is allowed after the first byte", "",
	      "+a@b\n", &P, NULL, 0, 0, "a@b\n");
	check("SPEC §4.1: fields may be empty", "", "+:x::a\n", &P, NULL, 0, 0,
	      ":x::a\n");
	check("SPEC §4.1: '+' and '-' may begin a name", "", "++a\n+-\n",
	      &P, NULL, 0, 0, "+a\n-\n");
	check("SPEC §4.1: -- removes the tag named '-'", "-\n+a\n", "--\n",
	      &P, NULL, 0, 0, "+a\n");
}
