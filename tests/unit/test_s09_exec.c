// SPDX-License-Identifier: GPL-2.0
/* SPEC §9: the exec companion that makes pruning at exec allocation-free. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tutil.h"

/* pt_set_exec() of mk(@in) renders as @want (NULL: no set) and is @what. */
static void exec_is(const char *name, const char *in, const char *want,
		    int what)	/* 0: NULL, 1: itself, 2: companion */
{
	struct pt_set *s = mk(in), *e;
	char *got;
	bool good;
	long live = shim_live_sets();

	e = pt_set_exec(s);
	got = text_of(e);
	good = want ? e && !strcmp(got, want) : !e;
	if (what == 1)
		good = good && e == s;
	if (what == 2)
		good = good && e && e != s && e == s->exec && live == 2 &&
		       e->head.ref == 1;
	else
		good = good && s && !s->exec && live == 1;
	if (!good)
		diag("got \"%s\"", got);
	free(got);
	/* A process that execs takes its own reference, the old one goes. */
	e = pt_set_get(e);
	pt_set_put(s);
	good = good && (!e || shim_live_sets() >= 1);
	if (e) {
		char *again = text_of(e);

		good = good && want && !strcmp(again, want) &&
		       pt_set_exec(e) == e;
		free(again);
	}
	pt_set_put(e);
	ok(good && no_leak(), "%s", name);
}

void test_s09_exec(void)
{
	struct pt_set *s;
	bool good;

	tap_section("SPEC §9 exec");
	ok(pt_set_exec(NULL) == NULL, "SPEC §9: exec of the empty set is empty");
	exec_is("SPEC §9: no kept tag: exec leaves no tags", "a\nb=1\n", NULL,
		0);
	exec_is("SPEC §9: every tag kept: exec keeps the same set",
		"@a\n@b=1\n", "@a\n@b=1\n", 1);
	exec_is("SPEC §9: mixed: exec keeps the kept tags with their values",
		"a=0\n@b=1\nc\n@d\ne=2\n", "@b=1\n@d\n", 2);
	exec_is("SPEC §9: mixed, one kept tag among many", "a\nb\n@c=x y\nd\n",
		"@c=x y\n", 2);
	exec_is("SPEC §9: mixed, one unkept tag among many", "@a\nb=1\n@c\n",
		"@a\n@c\n", 2);

	check("SPEC §9: a write that mixes kept and unkept builds a companion",
	      "@a\n", "+b\n", &(struct wspec){ .priv = true }, NULL, 0, 0,
	      "@a\nb\n");
	check("SPEC §9: a write that keeps everything drops the companion",
	      "@a\nb\n", "+@b\n", &(struct wspec){ .priv = true }, NULL, 0, 0,
	      "@a\n@b\n");
	check("SPEC §9: a write that unkeeps everything drops the companion",
	      "@a\nb\n", "-@\n", &(struct wspec){ .priv = true }, NULL, 0, 0,
	      "a\nb\n");

	/* The companion outlives its set while referenced. */
	s = mk("@k=v\nu\n");
	{
		struct pt_set *e = pt_set_get(pt_set_exec(s));

		good = e && e->head.ref == 2 && shim_live_sets() == 2;
		pt_set_put(s);
		good = good && e->head.ref == 1 && shim_live_sets() == 1 &&
		       e->count == 1 && e->tags[0].value_len == 1 &&
		       !memcmp(e->tags[0].value, "v", 1) && e->tags[0].keep;
		pt_set_put(e);
	}
	ok(good && no_leak(),
	   "SPEC §9: the companion holds its own reference and outlives its set");

	/* Counters of the sets. */
	s = mk("@a=12\nbc\n");
	good = s->count == 2 && s->nkept == 1 && s->bytes == 5 &&
	       s->exec && s->exec->count == 1 && s->exec->nkept == 1 &&
	       s->exec->bytes == 3;
	pt_set_put(s);
	ok(good && no_leak(),
	   "SPEC §9: count, nkept and bytes of a set and its companion");
}
