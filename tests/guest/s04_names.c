// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §4 through the kernel: tables of valid and invalid tag names, values
 * and patterns, written by a privileged (root) writer to its own tags.
 * Valid ones must succeed and read back exactly; invalid ones must fail
 * with EINVAL and change nothing.
 */
#define _GNU_SOURCE
#include <grp.h>	/* setgroups(), used by guest.h */
#include "guest.h"

/*
 * A byte string described compactly: PRE, then UNIT repeated REPS times
 * (ULEN bytes each, 0 = strlen), then POST.  Lets the table hold 4000- and
 * 32700-byte strings and embedded NULs.
 */
struct gen {
	const char *pre;
	const char *unit;
	int ulen;
	int reps;
	const char *post;
};

#define S(str)			{ str, NULL, 0, 0, "" }
#define R(pre, unit, n, post)	{ pre, unit, 0, n, post }
#define NUL_IN(pre, post)	{ pre, "", 1, 1, post }

static size_t gen(const struct gen *g, char *out)
{
	size_t len = 0, ul = g->unit ? (g->ulen ? (size_t)g->ulen : strlen(g->unit)) : 0;
	int i;

	memcpy(out, g->pre, strlen(g->pre));
	len += strlen(g->pre);
	for (i = 0; i < g->reps; i++) {
		memcpy(out + len, g->unit, ul);
		len += ul;
	}
	memcpy(out + len, g->post, strlen(g->post));
	len += strlen(g->post);
	return len;
}

/* Printable description: escaped, long strings shortened. */
static void describe(const struct gen *g, char *out, size_t outlen)
{
	static char b[40000];
	size_t i, n = 0, len = gen(g, b);

	out[0] = 0;
	for (i = 0; i < len && n + 8 < outlen; i++) {
		unsigned char c = b[i];

		if (len > 48 && i == 16) {
			n += snprintf(out + n, outlen - n, "...");
			i = len - 16;
			c = b[i];
		}
		if (c < 0x20 || c >= 0x7f || c == '#')	/* no '#' in TAP text */
			n += snprintf(out + n, outlen - n, "\\x%02x", c);
		else
			out[n++] = c;
		out[n] = 0;
	}
}

static char lbuf[70000], ebuf[70000], nbuf[40000];

/* Write OP NAME SUFFIX "\n" (one write) to self; 0 or errno. */
static int wline(const char *op, const char *s, size_t len, const char *suffix)
{
	size_t n = 0;

	memcpy(lbuf, op, strlen(op));
	n += strlen(op);
	memcpy(lbuf + n, s, len);
	n += len;
	memcpy(lbuf + n, suffix, strlen(suffix));
	n += strlen(suffix);
	lbuf[n++] = '\n';
	return pt_write_len(0, lbuf, n);
}

/* Does our set read exactly "m\n" plus (keep?"@":"") NAME [=VAL] "\n", sorted? */
static bool is_m_plus(const char *name, size_t nlen, bool keep, const char *val)
{
	char line[40000 + 64];
	size_t ll = 0, cmpn = nlen < 1 ? nlen : 1;
	int c;

	if (keep)
		line[ll++] = '@';
	memcpy(line + ll, name, nlen);
	ll += nlen;
	if (val)
		ll += sprintf(line + ll, "=%s", val);
	line[ll++] = '\n';
	line[ll] = 0;
	c = memcmp(name, "m", cmpn);
	if (c == 0)
		c = nlen > 1 ? 1 : 0;
	if (c < 0)
		snprintf(ebuf, sizeof(ebuf), "%sm\n", line);
	else
		snprintf(ebuf, sizeof(ebuf), "m\n%s", line);
	return pt_is(0, ebuf);
}

static void reset(const char *tags)
{
	char s[4096];

	snprintf(s, sizeof(s), "-\n%s", tags);
	if (pt_write(0, s))
		die("reset tags to [%s]", tags);
}

/* ------------------------------------------------------------- names */

#define F_AT	1	/* begins with '@': only the '@' forms are unambiguous */
#define F_EQ	2	/* contains '=': the '!' form would parse differently */
#define F_PAT	4	/* is a valid pattern: only '+' and '!' must fail */
#define F_EMPTY	8	/* empty: '-', '?', '+@' ... mean "all" */

struct ncase {
	struct gen g;
	bool valid;
	int flags;
	const char *why;
};

static const struct ncase names[] = {
	/* valid */
	{ S("a"), true, 0, "one byte" },
	{ S("A"), true, 0, "upper case" },
	{ S(" "), true, 0, "a single space" },
	{ S("ab c"), true, 0, "space inside" },
	{ S(" lead"), true, 0, "leading space" },
	{ S("trail "), true, 0, "trailing space" },
	{ S("a@b"), true, 0, "'@' inside" },
	{ S("a:b"), true, 0, "fields" },
	{ S(":x::a"), true, 0, "empty fields" },
	{ S("::a"), true, 0, "leading empty fields" },
	{ S("S:A:B.c"), true, 0, "dots and fields" },
	{ S("+a"), true, 0, "begins with '+'" },
	{ S("-"), true, 0, "the name '-'" },
	{ S("#a"), true, 0, "begins with '#'" },
	{ S("?x"), true, 0, "begins with '?'" },
	{ S("!x"), true, 0, "begins with '!'" },
	{ S("~"), true, 0, "tilde" },
	{ S("\\n"), true, 0, "backslash n (two bytes)" },
	{ S("ptags"), true, 0, "'ptags' without colon" },
	{ S("ptags add"), true, 0, "'ptags add'" },
	{ S("ptagsx:myadd"), true, 0, "'ptagsx:' prefix is not special" },
	{ S("Ptags:foo"), true, 0, "special prefix is case-sensitive" },
	{ S("xptags:myadd"), true, 0, "'ptags:' not at the start" },
	{ S("ptags:add"), true, 0, "ptags:add" },
	{ S("ptags:sub"), true, 0, "ptags:sub" },
	{ S("ptags:set"), true, 0, "ptags:set" },
	{ S("ptags:others"), true, 0, "ptags:others" },
	{ S("ptags:a:b:sub"), true, 0, "ptags:a:b:sub" },
	{ S("ptags:x:add"), true, 0, "ptags:x:add" },
	{ S("ptags:ptags:add"), true, 0, "ptags:ptags:add" },
	{ S("ptags:S:others"), true, 0, "ptags:S:others" },
	{ S("ptags::add"), true, 0, "ptags::add (empty P)" },
	{ S("ptags:add:set"), true, 0, "ptags:add:set" },
	{ S("\xc3\xa9"), true, 0, "U+00E9" },
	{ S("\xc2\x80"), true, 0, "U+0080 (2-byte minimum)" },
	{ S("\xdf\xbf"), true, 0, "U+07FF" },
	{ S("\xe0\xa0\x80"), true, 0, "U+0800 (3-byte minimum)" },
	{ S("\xed\x9f\xbf"), true, 0, "U+D7FF (below the surrogates)" },
	{ S("\xee\x80\x80"), true, 0, "U+E000 (above the surrogates)" },
	{ S("\xef\xbf\xbf"), true, 0, "U+FFFF" },
	{ S("\xf0\x90\x80\x80"), true, 0, "U+10000 (4-byte minimum)" },
	{ S("\xf4\x8f\xbf\xbf"), true, 0, "U+10FFFF (maximum)" },
	{ R("", "a", 4000, ""), true, 0, "4000 bytes" },
	{ R("", "\xe2\x82\xac", 1333, "a"), true, 0, "4000 bytes of 3-byte characters" },
	{ R("", "\xf0\x9f\x98\x80", 1000, ""), true, 0, "4000 bytes of 4-byte characters" },
	{ R("", "a", 3998, "\xc3\xa9"), true, 0, "4000 bytes ending in a 2-byte character" },
	{ R("x:", ":", 3997, "y"), true, 0, "4000 bytes, mostly colons" },
	/* invalid */
	{ S(""), false, F_EMPTY, "empty" },
	{ R("", "a", 4001, ""), false, 0, "4001 bytes" },
	{ R("", "\xe2\x82\xac", 1334, ""), false, 0, "4002 bytes of 3-byte characters" },
	{ R("", "a", 3999, "\xc3\xa9"), false, 0, "4001 bytes ending in a 2-byte character" },
	{ R("", "\xf0\x9f\x98\x80", 1000, "a"), false, 0, "4001 bytes" },
	{ S("a\x01" "b"), false, 0, "control byte 0x01" },
	{ S("\x1f"), false, 0, "control byte 0x1f" },
	{ S("a\tb"), false, 0, "tab" },
	{ S("a\rb"), false, 0, "carriage return" },
	{ S("a\x1b" "b"), false, 0, "escape" },
	{ S("a\x7f" "b"), false, 0, "DEL" },
	{ S("\x7f"), false, 0, "DEL alone" },
	{ NUL_IN("a", "b"), false, 0, "NUL byte" },
	{ S("a=b"), false, F_EQ, "'='" },
	{ S("="), false, F_EQ, "'=' alone" },
	{ S("a*"), false, 0, "'*'" },
	{ S("*"), false, 0, "'*' alone" },
	{ S("*a"), false, 0, "leading '*'" },
	{ S("a*b"), false, 0, "'*' inside" },
	{ S("a:*"), false, F_PAT, "a pattern is not a name" },
	{ S("@a"), false, F_AT, "leading '@'" },
	{ S("@"), false, F_AT, "'@' alone" },
	{ S("a:"), false, 0, "trailing ':'" },
	{ S(":"), false, 0, "':' alone" },
	{ S("a::"), false, 0, "trailing '::'" },
	{ S("ptags:"), false, 0, "'ptags:'" },
	{ S("ptags:myadd"), false, 0, "ptags:myadd" },
	{ S("ptags:foo"), false, 0, "ptags:foo" },
	{ S("ptags:xsub"), false, 0, "ptags:xsub (no colon before sub)" },
	{ S("ptags:add:"), false, 0, "ptags:add: (trailing colon)" },
	{ S("ptags:ADD"), false, 0, "ptags:ADD (case)" },
	{ S("ptags:addx"), false, 0, "ptags:addx" },
	{ S("ptags:a:b"), false, 0, "ptags:a:b" },
	{ S("ptags:x:others2"), false, 0, "ptags:x:others2" },
	{ S("ptags:add "), false, 0, "ptags:add with trailing space" },
	{ S("\xc0\xaf"), false, 0, "overlong 2-byte '/'" },
	{ S("\xc1\xbf"), false, 0, "overlong 2-byte U+007F" },
	{ S("\xc0\x80"), false, 0, "overlong NUL" },
	{ S("\xe0\x80\xaf"), false, 0, "overlong 3-byte '/'" },
	{ S("\xe0\x9f\xbf"), false, 0, "overlong 3-byte U+07FF" },
	{ S("\xf0\x80\x80\xaf"), false, 0, "overlong 4-byte '/'" },
	{ S("\xf0\x8f\xbf\xbf"), false, 0, "overlong 4-byte U+FFFF" },
	{ S("\xed\xa0\x80"), false, 0, "surrogate U+D800" },
	{ S("\xed\xb0\x80"), false, 0, "surrogate U+DC00" },
	{ S("\xed\xbf\xbf"), false, 0, "surrogate U+DFFF" },
	{ S("\xf4\x90\x80\x80"), false, 0, "U+110000" },
	{ S("\xf5\x80\x80\x80"), false, 0, "lead byte 0xf5" },
	{ S("\xf7\xbf\xbf\xbf"), false, 0, "U+1FFFFF" },
	{ S("\xf8\x88\x80\x80\x80"), false, 0, "5-byte form" },
	{ S("\xfc\x84\x80\x80\x80\x80"), false, 0, "6-byte form" },
	{ S("\x80"), false, 0, "lone continuation byte" },
	{ S("a\xbf"), false, 0, "stray continuation byte" },
	{ S("a\xc3"), false, 0, "truncated 2-byte" },
	{ S("\xe2\x82"), false, 0, "truncated 3-byte" },
	{ S("\xf0\x9f\x98"), false, 0, "truncated 4-byte" },
	{ S("\xc3\x28"), false, 0, "bad continuation" },
	{ S("\xe2\x28\xa1"), false, 0, "bad continuation in 3-byte" },
	{ S("\xfe"), false, 0, "0xfe" },
	{ S("\xff"), false, 0, "0xff" },
};

/* Valid: the name works in every kind of line and reads back exactly. */
static bool valid_name_cycle(const char *n, size_t len, char *step, size_t sl)
{
	int e;

#define STEP(cond, fmt) do { if (!(cond)) { snprintf(step, sl, "%s (errno %d)", fmt, e); return false; } } while (0)
	reset("+m\n");
	e = wline("+", n, len, "");
	STEP(e == 0 && is_m_plus(n, len, false, NULL), "+NAME");
	e = wline("?", n, len, "");
	STEP(e == 0, "?NAME");
	e = wline("!", n, len, "=val");
	STEP(e == 0 && is_m_plus(n, len, false, "val"), "!NAME=val");
	e = wline("+@", n, len, "");
	STEP(e == 0 && is_m_plus(n, len, true, "val"), "+@NAME");
	e = wline("?@", n, len, "");
	STEP(e == 0, "?@NAME");
	e = wline("-@", n, len, "");
	STEP(e == 0 && is_m_plus(n, len, false, "val"), "-@NAME");
	e = wline("!", n, len, "");
	STEP(e == 0 && is_m_plus(n, len, false, NULL), "!NAME");
	e = wline("-", n, len, "");
	STEP(e == 0 && pt_is(0, "m\n"), "-NAME");
	e = wline("?", n, len, "");
	STEP(e == ENOENT, "?NAME after removal");
	e = wline("!", n, len, "=v");
	STEP(e == ENOENT, "!NAME=v after removal");
	e = wline("+@", n, len, "");
	STEP(e == 0 && is_m_plus(n, len, true, NULL), "+@NAME on absent");
	return true;
#undef STEP
}

/* Invalid: every line naming it fails with EINVAL and changes nothing. */
static bool invalid_name_cycle(const char *n, size_t len, int flags, char *step, size_t sl)
{
	static const struct { const char *op, *suffix; int skip; } forms[] = {
		{ "+", "", F_AT },
		{ "+@", "", F_EMPTY | F_PAT },
		{ "-", "", F_AT | F_PAT | F_EMPTY },
		{ "-@", "", F_PAT | F_EMPTY },
		{ "?", "", F_AT | F_PAT | F_EMPTY },
		{ "?@", "", F_PAT | F_EMPTY },
		{ "!", "=v", F_EQ },
		{ "!", "", F_EQ | F_EMPTY },
	};
	size_t i;
	int e;

	reset("+m\n");
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		if (forms[i].skip & flags)
			continue;
		e = wline(forms[i].op, n, len, forms[i].suffix);
		if (e != EINVAL || !pt_is(0, "m\n")) {
			snprintf(step, sl, "%sNAME%s gave %s", forms[i].op, forms[i].suffix,
				 e ? strerror(e) : "success");
			return false;
		}
	}
	return true;
}

static void test_names(void)
{
	char desc[256], step[128];
	size_t i, len;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct ncase *c = &names[i];
		bool r;

		len = gen(&c->g, nbuf);
		describe(&c->g, desc, sizeof(desc));
		step[0] = 0;
		if (c->valid)
			r = valid_name_cycle(nbuf, len, step, sizeof(step));
		else
			r = invalid_name_cycle(nbuf, len, c->flags, step, sizeof(step));
		ok(r, "SPEC §4.1: name '%s' (%s, %zu bytes) is %s%s%s", desc, c->why, len,
		   c->valid ? "valid: accepted in + ? ! +@ ?@ -@ - and read back exactly"
			    : "invalid: EINVAL in every line, nothing changes",
		   r ? "" : " -- failed at ", step);
	}
	reset("");
}

/* ------------------------------------------------------------- values */

struct vcase {
	struct gen g;
	bool valid;
	const char *why;
};

static const struct vcase values[] = {
	{ S("x"), true, "one byte" },
	{ S("a=b"), true, "'=' inside" },
	{ S("="), true, "'=' alone" },
	{ S("*"), true, "'*'" },
	{ S("@x"), true, "leading '@'" },
	{ S("a:"), true, "trailing ':'" },
	{ S(":"), true, "':'" },
	{ S(" "), true, "a space" },
	{ S(" x "), true, "leading and trailing spaces" },
	{ S("#x"), true, "'#'" },
	{ S("ptags:myadd"), true, "looks like a bad special name" },
	{ S("\xc3\xa9t\xc3\xa9"), true, "UTF-8" },
	{ S("\xc2\x80"), true, "U+0080" },
	{ S("\xef\xbf\xbf"), true, "U+FFFF" },
	{ S("\xf4\x8f\xbf\xbf"), true, "U+10FFFF" },
	{ R("", "v", 32700, ""), true, "32700 bytes" },
	{ R("", "\xe2\x82\xac", 10900, ""), true, "32700 bytes of 3-byte characters" },
	{ R("", "v", 32698, "\xc3\xa9"), true, "32700 bytes ending in a 2-byte character" },
	{ R("", "v", 32701, ""), false, "32701 bytes" },
	{ R("", "\xe2\x82\xac", 10900, "a"), false, "32701 bytes" },
	{ R("", "\xf0\x9f\x98\x80", 8175, "a"), false, "32701 bytes of 4-byte characters" },
	{ S("\t"), false, "tab" },
	{ S("a\x01"), false, "0x01" },
	{ S("\x1f"), false, "0x1f" },
	{ S("a\rb"), false, "carriage return" },
	{ S("\x7f"), false, "DEL" },
	{ S("a\x7f" "b"), false, "DEL inside" },
	{ NUL_IN("a", "b"), false, "NUL byte" },
	{ S("\xc0\x80"), false, "overlong NUL" },
	{ S("\xe0\x80\xaf"), false, "overlong 3-byte" },
	{ S("\xf0\x8f\xbf\xbf"), false, "overlong 4-byte" },
	{ S("\xed\xa0\x80"), false, "surrogate U+D800" },
	{ S("\xed\xbf\xbf"), false, "surrogate U+DFFF" },
	{ S("\xf4\x90\x80\x80"), false, "U+110000" },
	{ S("\xf8\x88\x80\x80\x80"), false, "5-byte form" },
	{ S("\xff"), false, "0xff" },
	{ S("\x80"), false, "lone continuation byte" },
	{ S("\xe2\x82"), false, "truncated 3-byte" },
};

static void test_values(void)
{
	char desc[256];
	size_t i, len;
	int e, e2 = 0;
	bool r;

	/* The empty value: !v= removes the value (there are no empty values). */
	reset("+m\n+v\n!v=x\n");
	e = pt_write(0, "!v=\n");
	ok(e == 0 && pt_is(0, "m\nv\n"), "SPEC §4.2: the 0-byte value: '!v=' leaves v without value");

	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		const struct vcase *c = &values[i];

		len = gen(&c->g, nbuf);
		describe(&c->g, desc, sizeof(desc));
		reset("+m\n+v\n");
		e = wline("!v=", nbuf, len, "");
		if (c->valid) {
			char exp[40000];

			memcpy(exp, "m\nv=", 4);
			memcpy(exp + 4, nbuf, len);
			exp[4 + len] = '\n';
			exp[5 + len] = 0;
			r = e == 0 && pt_is(0, exp);
			if (r) {	/* setting the same value again also works */
				e2 = wline("!v=", nbuf, len, "");
				r = e2 == 0 && pt_is(0, exp);
			}
		} else {
			r = e == EINVAL && pt_is(0, "m\nv\n");
		}
		ok(r, "SPEC §4.2: value '%s' (%s, %zu bytes) is %s (got %s%s)", desc, c->why, len,
		   c->valid ? "valid: set and read back exactly" : "invalid: EINVAL, nothing changes",
		   e ? strerror(e) : "success", e2 ? ", again failed" : "");
	}
	reset("");
}

/* ----------------------------------------------------------- patterns */

struct pcase {
	struct gen g;		/* the whole pattern, with ":*" */
	bool valid;
	int flags;
	const char *match;	/* a name it matches (valid ones), or NULL */
	const char *nomatch;	/* a name it must not match, or NULL */
	const char *why;
};

static const struct pcase patterns[] = {
	{ S("S:*"), true, 0, "S:X", "S", "simple" },
	{ S(":*"), true, 0, ":a", "a:b", "':*' matches names beginning with ':'" },
	{ S("ptags:*"), true, 0, "ptags:add", "ptags", "'ptags:*' (rule 4 does not apply)" },
	{ S("ptags:x:*"), true, 0, "ptags:x:add", "ptags:y:add", "'ptags:x:*'" },
	{ S("a::*"), true, 0, "a::b", "a:b", "empty field" },
	{ S("x:y:*"), true, 0, "x:y:z", "x:yz", "two fields" },
	{ S("a b:*"), true, 0, "a b:c", "ab:c", "space" },
	{ S("S:@:*"), true, 0, "S:@:a", "S:a", "'@' inside" },
	{ S("\xc3\xa9:*"), true, 0, "\xc3\xa9:x", "\xc3\xa9", "UTF-8" },
	{ R("", "a", 3998, ":*"), true, 0, NULL, NULL, "3999 bytes before '*'" },
	{ R("", "a", 3999, ":*"), true, 0, NULL, NULL, "4000 bytes before '*'" },
	{ S("*"), false, 0, NULL, NULL, "'*' alone" },
	{ S("a*"), false, 0, NULL, NULL, "no ':' before '*'" },
	{ S("a: *"), false, 0, NULL, NULL, "space before '*'" },
	{ S("a:*b"), false, 0, NULL, NULL, "bytes after '*'" },
	{ S("a:**"), false, 0, NULL, NULL, "'**'" },
	{ S("a:* "), false, 0, NULL, NULL, "space after '*'" },
	{ S("a:*:"), false, 0, NULL, NULL, "':' after '*'" },
	{ S("*:*"), false, 0, NULL, NULL, "'*' in the prefix" },
	{ S("a=:*"), false, 0, NULL, NULL, "'=' in the prefix" },
	{ S("a\x01:*"), false, 0, NULL, NULL, "control byte in the prefix" },
	{ S("a\t:*"), false, 0, NULL, NULL, "tab in the prefix" },
	{ S("\x7f:*"), false, 0, NULL, NULL, "DEL in the prefix" },
	{ S("@a:*"), false, F_AT, NULL, NULL, "leading '@'" },
	{ S("\xff:*"), false, 0, NULL, NULL, "invalid UTF-8 in the prefix" },
	{ S("\xed\xa0\x80:*"), false, 0, NULL, NULL, "surrogate in the prefix" },
	{ S("\xc0\xba*"), false, 0, NULL, NULL, "overlong ':' before '*'" },
	{ R("", "a", 4000, ":*"), false, 0, NULL, NULL, "4001 bytes before '*'" },
};

static bool valid_pattern_cycle(const struct pcase *c, const char *p, size_t len, char *step,
				size_t sl)
{
	char s[512];
	int e;

#define STEP(cond, fmt) do { if (!(cond)) { snprintf(step, sl, "%s (errno %d)", fmt, e); return false; } } while (0)
	reset("+m\n");
	e = wline("?", p, len, "");
	STEP(e == ENOENT, "?PAT with no match -> ENOENT");
	e = wline("-", p, len, "");
	STEP(e == 0 && pt_is(0, "m\n"), "-PAT with no match succeeds");
	e = wline("+@", p, len, "");
	STEP(e == 0 && pt_is(0, "m\n"), "+@PAT with no match succeeds");
	e = wline("+", p, len, "");
	STEP(e == EINVAL && pt_is(0, "m\n"), "+PAT -> EINVAL");
	if (!c->match)
		return true;
	snprintf(s, sizeof(s), "-\n+%s\n+%s\n", c->match, c->nomatch);
	if (pt_write(0, s))
		die("setup %s", s);
	e = wline("?", p, len, "");
	STEP(e == 0, "?PAT with a match");
	e = wline("?@", p, len, "");
	STEP(e == ENOENT, "?@PAT with no kept match");
	e = wline("+@", p, len, "");
	STEP(e == 0, "+@PAT");
	snprintf(s, sizeof(s), "?@%s\n", c->match);
	e = pt_write(0, s);
	STEP(e == 0, "+@PAT set keep on the match");
	snprintf(s, sizeof(s), "?@%s\n", c->nomatch);
	e = pt_write(0, s);
	STEP(e == ENOENT, "+@PAT left the non-match alone");
	e = wline("-@", p, len, "");
	snprintf(s, sizeof(s), "?@%s\n", c->match);
	STEP(e == 0 && pt_write(0, s) == ENOENT, "-@PAT cleared keep");
	e = wline("-", p, len, "");
	snprintf(s, sizeof(s), "?%s\n", c->match);
	STEP(e == 0 && pt_write(0, s) == ENOENT, "-PAT removed the match");
	snprintf(s, sizeof(s), "?%s\n", c->nomatch);
	e = pt_write(0, s);
	STEP(e == 0, "-PAT kept the non-match");
	return true;
#undef STEP
}

static bool invalid_pattern_cycle(const char *p, size_t len, int flags, char *step, size_t sl)
{
	static const struct { const char *op; int skip; } forms[] = {
		{ "?", F_AT }, { "?@", 0 }, { "-", F_AT }, { "-@", 0 }, { "+@", 0 }, { "+", F_AT },
	};
	size_t i;
	int e;

	reset("+m\n+a:b\n");
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		if (forms[i].skip & flags)
			continue;
		e = wline(forms[i].op, p, len, "");
		if (e != EINVAL || !pt_is(0, "a:b\nm\n")) {
			snprintf(step, sl, "%sPAT gave %s", forms[i].op, e ? strerror(e) : "success");
			return false;
		}
	}
	return true;
}

static void test_patterns(void)
{
	char desc[256], step[128];
	size_t i, len;

	for (i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		const struct pcase *c = &patterns[i];
		bool r;

		len = gen(&c->g, nbuf);
		describe(&c->g, desc, sizeof(desc));
		step[0] = 0;
		if (c->valid)
			r = valid_pattern_cycle(c, nbuf, len, step, sizeof(step));
		else
			r = invalid_pattern_cycle(nbuf, len, c->flags, step, sizeof(step));
		ok(r, "SPEC §4.3: pattern '%s' (%s) is %s%s%s", desc, c->why,
		   c->valid ? "valid in ? - +@ ?@ -@ (and EINVAL with +)"
			    : "invalid: EINVAL in every line, nothing changes",
		   r ? "" : " -- failed at ", step);
	}

	/* The SPEC's own examples. */
	reset("+S\n+X\n+S:A:B.c\n+S:X\n+SS:x\n+s:x\n");
	ok(pt_write(0, "-S:*\n") == 0 && pt_is(0, "S\nSS:x\nX\ns:x\n"),
	   "SPEC §4.3: S:* matches S:A:B.c and S:X, not S, X, SS:x nor s:x");
	reset("+:a\n+::a\n+:x:y\n+a\n+b:c\n");
	ok(pt_write(0, "-:*\n") == 0 && pt_is(0, "a\nb:c\n"),
	   "SPEC §4.3: :* matches every name that begins with ':'");
	reset("+ptags:add\n+ptags:x:sub\n+ptags\n+ptagsx\n");
	ok(pt_write(0, "-ptags:*\n") == 0 && pt_is(0, "ptags\nptagsx\n"),
	   "SPEC §4.3: ptags:* matches the special tags only");
	reset("+S\n+S:x\n");
	ok(pt_write(0, "-S\n") == 0 && pt_is(0, "S:x\n"),
	   "SPEC §4.3: a valid name is an exact pattern: -S removes only S");
	reset("+a:b:c\n+a:b\n+a:bc\n");
	ok(pt_write(0, "-a:b:*\n") == 0 && pt_is(0, "a:b\na:bc\n"),
	   "SPEC §4.3: a:b:* matches a:b:c only (not a:b, a:bc)");
	reset("");
}

int main(void)
{
	if (pt_write(0, "-\n"))
		die("cannot clear own tags");
	test_names();
	test_values();
	test_patterns();
	pt_write(0, "-\n");
	return tap_done();
}
