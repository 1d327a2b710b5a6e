// SPDX-License-Identifier: GPL-2.0
/* SPEC §5: permission tags, acting on others, privilege, the opener rule. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tutil.h"

/*
 * Does a writer holding @rights (self, same opener) get to add @name?
 * Checked for "add" with "+NAME", "sub" with "-NAME" and "set" with
 * "!NAME=v".
 */
struct grant {
	const char *rights;
	const char *name;
	bool add, sub, set;
};

static const struct grant grants[] = {
	/* §5.1 global rights: every non-special tag. */
	{ "ptags:add\n", "x", true, false, false },
	{ "ptags:add\n", "S:x:y", true, false, false },
	{ "ptags:add\n", ":x", true, false, false },
	{ "ptags:add\n", "ptags:x:add", false, false, false },
	{ "ptags:add\n", "ptags:add", false, false, false },
	{ "ptags:sub\n", "x", false, true, false },
	{ "ptags:sub\n", "ptags:sub", false, false, false },
	{ "ptags:set\n", "x", false, false, true },
	{ "ptags:set\n", "ptags:set", false, false, false },
	{ "ptags:add\nptags:sub\nptags:set\n", "a b", true, true, true },
	/* §5.1 prefix rights: P and P:... */
	{ "ptags:S:add\n", "S", true, false, false },
	{ "ptags:S:add\n", "S:x", true, false, false },
	{ "ptags:S:add\n", "S:x:y", true, false, false },
	{ "ptags:S:add\n", "S::y", true, false, false },
	{ "ptags:S:add\n", "Sx", false, false, false },
	{ "ptags:S:add\n", "S x", false, false, false },
	{ "ptags:S:add\n", "T", false, false, false },
	{ "ptags:S:add\n", "s:x", false, false, false },
	{ "ptags:S:sub\n", "S:x", false, true, false },
	{ "ptags:S:set\n", "S:x", false, false, true },
	{ "ptags:S:x:set\n", "S", false, false, false },
	/* §5.1 P may contain colons. */
	{ "ptags:S:T:add\n", "S:T", true, false, false },
	{ "ptags:S:T:add\n", "S:T:u", true, false, false },
	{ "ptags:S:T:add\n", "S:T:u:v", true, false, false },
	{ "ptags:S:T:add\n", "S", false, false, false },
	{ "ptags:S:T:add\n", "S:U", false, false, false },
	{ "ptags:S:T:add\n", "S:Tx", false, false, false },
	{ "ptags:S:T:add\n", "S:TT:u", false, false, false },
	/* P is empty: tags beginning with ':'. */
	{ "ptags::sub\n", ":x", false, true, false },
	{ "ptags::sub\n", "::x", false, true, false },
	{ "ptags::sub\n", "x", false, false, false },
	/* §5.1 P = ptags: the permission tags themselves. */
	{ "ptags:ptags:add\n", "ptags:add", true, false, false },
	{ "ptags:ptags:add\n", "ptags:S:sub", true, false, false },
	{ "ptags:ptags:add\n", "ptags:ptags:add", true, false, false },
	{ "ptags:ptags:add\n", "ptags:others", true, false, false },
	{ "ptags:ptags:add\n", "ptags", true, false, false },
	{ "ptags:ptags:add\n", "x", false, false, false },
	{ "ptags:ptags:add\n", "ptagsx", false, false, false },
	{ "ptags:ptags:sub\n", "ptags:add", false, true, false },
	{ "ptags:ptags:set\n", "ptags:add", false, false, true },
	{ "ptags:ptags:S:add\n", "ptags:S:sub", true, false, false },
	{ "ptags:ptags:S:add\n", "ptags:S:x:sub", true, false, false },
	{ "ptags:ptags:S:add\n", "ptags:T:sub", false, false, false },
	{ "ptags:ptags:S:add\n", "ptags:add", false, false, false },
	/* Special rights on a tag whose name looks like a permission. */
	{ "ptags:ptags:x:add:add\n", "ptags:x:add", true, false, false },
	/* Lookups must order a tag before a key it is a prefix of. */
	{ "a\nptags:S:add\nptags:S:add:y:sub\n", "S:add:y", true, true,
	  false },
	{ "ptags:S:add:y:sub\nptags:S:add:y:sub:set\nz\n", "S:add:y:sub",
	  false, true, true },
	/* Tags other than ptags:... grant nothing. */
	{ "S:add\nadd\nptags\nptagsadd\n", "x", false, false, false },
	{ "ptags:others\n", "x", false, false, false },
	{ "ptags:S:others\n", "S", false, false, false },
};

static void run_grants(void)
{
	size_t i;
	int a;

	for (i = 0; i < sizeof(grants) / sizeof(grants[0]); i++) {
		const struct grant *g = &grants[i];
		struct wspec ws = { .rights = g->rights };

		for (a = 0; a < 3; a++) {
			static const char *const act[] = { "add", "sub",
							   "set" };
			bool yes = a == 0 ? g->add : a == 1 ? g->sub : g->set;
			char *before = a ? fmt("%s\n", g->name) : fmt("%s", "");
			char *w = a == 0 ? fmt("+%s\n", g->name) :
				  a == 1 ? fmt("-%s\n", g->name) :
					   fmt("!%s=v\n", g->name);
			char *after = a == 0 ? fmt("%s\n", g->name) :
				      a == 1 ? fmt("%s", "") :
					       fmt("%s=v\n", g->name);
			char *rl = fmt("%s", g->rights), *p, *t;

			for (p = rl; *p; p++)
				if (*p == '\n')
					*p = p[1] ? ' ' : 0;
			t = fmt("SPEC §5.1: {%s} %s %s on \"%s\"", rl,
				yes ? "grants" : "does not grant", act[a],
				g->name);
			check(t, before, w, &ws, NULL, yes ? 0 : EPERM, 1,
			      yes ? after : NULL);
			free(before);
			free(w);
			free(after);
			free(rl);
			free(t);
		}
	}
}

static void run_others(void)
{
	static const struct {
		const char *rights;
		const char *name;
		bool ok;
	} c[] = {
		{ "ptags:add\n", "x", false },
		{ "ptags:add\nptags:others\n", "x", true },
		{ "ptags:others\n", "x", false },
		{ "ptags:S:add\nptags:others\n", "S:x", true },
		{ "ptags:add\nptags:S:others\n", "S:x", true },
		{ "ptags:add\nptags:S:others\n", "S", true },
		{ "ptags:add\nptags:S:others\n", "T:x", false },
		{ "ptags:S:add\nptags:T:others\n", "S:x", false },
		{ "ptags:S:add\nptags:S:x:others\n", "S:x", true },
		{ "ptags:S:add\nptags:S:x:others\n", "S:x:y", true },
		{ "ptags:S:add\nptags:S:x:others\n", "S:y", false },
		{ "ptags:ptags:add\nptags:others\n", "ptags:add", false },
		{ "ptags:ptags:add\nptags:ptags:others\n", "ptags:add", true },
		{ "ptags:add\nptags:ptags:others\n", "x", false },
		{ "ptags:add\nptags:ptags:add\nptags:others\n"
		  "ptags:ptags:others\n", "ptags:add", true },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct wspec other = { .rights = c[i].rights, .other = true };
		struct wspec self = { .rights = c[i].rights };
		char *w = fmt("+%s\n", c[i].name), *a = fmt("%s\n", c[i].name);
		char *t = fmt("SPEC §5.3: other process, rights {%s}, +%s -> %s",
			      c[i].rights, c[i].name,
			      c[i].ok ? "added" : "EPERM");
		char *p;
		bool self_ok = strstr(c[i].rights, ":add\n") &&
			       (strncmp(c[i].name, "ptags:", 6) ||
				strstr(c[i].rights, "ptags:ptags:add"));

		for (p = t; *p; p++)
			if (*p == '\n')
				*p = ' ';
		check(t, "", w, &other, NULL, c[i].ok ? 0 : EPERM, 1,
		      c[i].ok ? a : NULL);
		if (c[i].ok) {
			free(t);
			t = fmt("SPEC §5.2: on itself the same rights need no others (+%s)",
				c[i].name);
			check(t, "", w, &self, NULL, 0, 0, a);
		} else if (self_ok && !strcmp(c[i].name, "x")) {
			free(t);
			t = fmt("SPEC §5.2: on itself +%s needs no others",
				c[i].name);
			check(t, "", w, &self, NULL, 0, 0, a);
		}
		free(w);
		free(a);
		free(t);
	}
	{
		struct wspec ws = { .rights = "ptags:sub\nptags:others\n",
				    .other = true };
		struct wspec ws2 = { .rights = "ptags:sub\n", .other = true };

		check("SPEC §5.3: others + sub removes another's tag", "x\n",
		      "-x\n", &ws, NULL, 0, 0, "");
		check("SPEC §5.3: sub without others -> EPERM on another",
		      "x\n", "-x\n", &ws2, NULL, EPERM, 1, NULL);
		check("SPEC §5.3: unchanged result needs no right on another",
		      "x\n", "+x\n-y\n-@x\n", &ws2, NULL, 0, 0, NULL);
	}
}

static void run_priv_and_opener(void)
{
	struct wspec priv_other = { .priv = true, .other = true };
	struct wspec priv_op = { .priv = true, .other_opener = true,
				 .other = true };

	check("SPEC §5.4: privileged writer adds a permission tag to another",
	      "", "+ptags:ptags:add\n+x\n", &priv_other, NULL, 0, 0,
	      "ptags:ptags:add\nx\n");
	check("SPEC §5.4: privileged writer removes everything", "@a=1\nptags:add\n",
	      "-\n", &priv_other, NULL, 0, 0, "");
	check("SPEC §5.4: privilege bypasses the opener rule (flag given by caller)",
	      "", "+x\n!x=1\n+@x\n", &priv_op, NULL, 0, 0, "@x=1\n");

	{
		struct wspec a = { .rights = "ptags:add\n", .other_opener = true };
		struct wspec b = { .rights = "ptags:add\n", .other_opener = true,
				   .opener = "ptags:add\n" };
		struct wspec c = { .rights = "ptags:add\n", .other_opener = true,
				   .opener = "ptags:S:add\n" };
		struct wspec d = { .rights = "", .other_opener = true,
				   .opener = "ptags:add\n" };
		struct wspec e = { .rights = "ptags:add\nptags:others\n",
				   .other_opener = true, .other = true,
				   .opener = "ptags:add\n" };
		struct wspec f = { .rights = "ptags:add\nptags:others\n",
				   .other_opener = true, .other = true,
				   .opener = "ptags:add\nptags:others\n" };
		struct wspec g = { .rights = "ptags:add\n",
				   .opener = "" };
		struct wspec h = { .rights = "ptags:S:add\nptags:T:add\n",
				   .other_opener = true,
				   .opener = "ptags:add\n" };

		check("SPEC §5.5: opener without the right -> EPERM", "", "+x\n",
		      &a, NULL, EPERM, 1, NULL);
		check("SPEC §5.5: writer and opener both hold it -> allowed", "",
		      "+x\n", &b, NULL, 0, 0, "x\n");
		check("SPEC §5.5: opener's narrower right: inside it allowed",
		      "", "+S:x\n", &c, NULL, 0, 0, "S:x\n");
		check("SPEC §5.5: opener's narrower right: outside it EPERM",
		      "", "+T\n", &c, NULL, EPERM, 1, NULL);
		check("SPEC §5.5: opener holds it, writer does not -> EPERM", "",
		      "+x\n", &d, NULL, EPERM, 1, NULL);
		check("SPEC §5.5: opener lacks others -> EPERM on another", "",
		      "+x\n", &e, NULL, EPERM, 1, NULL);
		check("SPEC §5.5: opener and writer hold add+others -> allowed",
		      "", "+x\n", &f, NULL, 0, 0, "x\n");
		check("SPEC §5.5: same opener: the opener set is not consulted",
		      "", "+x\n", &g, NULL, 0, 0, "x\n");
		check("SPEC §5.5: intersection: writer S and T, opener all -> S ok",
		      "", "+S:a\n+T:b\n", &h, NULL, 0, 0, "S:a\nT:b\n");
		check("SPEC §5.5: intersection: writer S and T, opener all -> U EPERM",
		      "", "+S:a\n+U\n", &h, NULL, EPERM, 2, NULL);
	}
}

static void run_patterns(void)
{
	struct wspec s = { .rights = "ptags:S:sub\nptags:S:add\n" };
	struct wspec o = { .rights = "ptags:sub\nptags:S:others\n",
			   .other = true };

	check("SPEC §4.3: - removes only the allowed tags, skips the others",
	      "S:a\nS:b\nT:c\nptags:add\n", "-\n", &s, NULL, 0, 0,
	      "T:c\nptags:add\n");
	check("SPEC §4.3: -PATTERN:* without any right succeeds unchanged",
	      "T:a\nT:b\n", "-T:*\n", &s, NULL, 0, 0, NULL);
	check("SPEC §6: -NAME on a not-allowed exact name -> EPERM",
	      "T:a\n", "-T:a\n", &s, NULL, EPERM, 1, NULL);
	check("SPEC §4.3: +@ keeps only where add is allowed",
	      "S\nS:a\nT\n", "+@\n", &s, NULL, 0, 0, "@S\n@S:a\nT\n");
	check("SPEC §4.3: -@ unkeeps only where sub is allowed",
	      "@S\n@S:a\n@T\n", "-@\n", &s, NULL, 0, 0, "S\nS:a\n@T\n");
	check("SPEC §4.3: +@S:* with the right keeps every match",
	      "S:a\nS:b\nSa\n", "+@S:*\n", &s, NULL, 0, 0,
	      "@S:a\n@S:b\nSa\n");
	check("SPEC §4.3: -ptags:* without ptags:ptags:sub removes nothing",
	      "ptags:add\nptags:sub\n", "-ptags:*\n", &s, NULL, 0, 0, NULL);
	check("SPEC §5.3: on another, - removes only where others also holds",
	      "S:a\nT:b\nS\n", "-\n", &o, NULL, 0, 0, "T:b\n");
}

void test_s05_perms(void)
{
	tap_section("SPEC §5.1-5.2 permission tags");
	run_grants();
	tap_section("SPEC §5.3 others");
	run_others();
	tap_section("SPEC §5.4-5.5 privilege and opener");
	run_priv_and_opener();
	tap_section("SPEC §4.3/§5 patterns skip what is not allowed");
	run_patterns();
}
