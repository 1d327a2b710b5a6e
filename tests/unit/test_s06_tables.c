// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §6: every row and column of the adding and removing tables, and the
 * rules for setting values, for plain, structured and special names, with
 * the right held through a tag, through privilege, or not held at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tutil.h"

/* The name under test sorts between these two bystanders. */
#define LO "0\n"
#define HI "~\n"

struct variant {
	const char *what;
	const char *name;
	const char *value;	/* the tag's value before, or NULL */
	const char *grant[3];	/* rights granting add, sub, set */
	const char *deny[3];	/* rights granting anything but that */
};

static const struct variant variants[] = {
	{ "plain", "m", NULL,
	  { "ptags:add\n", "ptags:sub\n", "ptags:set\n" },
	  { "ptags:set\nptags:sub\nptags:m:set\nptags:n:add\n",
	    "ptags:add\nptags:set\nptags:m:add\nptags:n:sub\n",
	    "ptags:add\nptags:sub\nptags:m:sub\nptags:mm:set\n" } },
	{ "structured", "S:m", NULL,
	  { "ptags:S:add\n", "ptags:S:sub\n", "ptags:S:m:set\n" },
	  { "ptags:S:m:x:add\nptags:S:set\nptags:T:add\n",
	    "ptags:S:m:x:sub\nptags:S:add\nptags:Sx:sub\n",
	    "ptags:S:m:x:set\nptags:S:add\nptags:S:sub\n" } },
	{ "special", "ptags:x:add", NULL,
	  { "ptags:ptags:add\n", "ptags:ptags:sub\n",
	    "ptags:ptags:x:set\n" },
	  { "ptags:add\nptags:sub\nptags:set\n",
	    "ptags:add\nptags:sub\nptags:set\nptags:ptags:add\n",
	    "ptags:add\nptags:sub\nptags:set\nptags:ptags:x:add:y:set\n" } },
	{ "with value", "m", "v",
	  { "ptags:m:add\n", "ptags:m:sub\n", "ptags:m:set\n" },
	  { "ptags:m:sub\n", "ptags:m:add\n", "ptags:m:add\n" } },
};

enum st { ABS, PLN, KPT, ERR };
static const char *const st_names[] = { "absent", "NAME", "@NAME", "" };

/* The set text for state @s of @v (value @val, NULL: none). */
static char *state_text(const struct variant *v, enum st s, const char *val)
{
	if (s == ABS)
		return fmt(LO HI);
	return fmt(LO "%s%s%s%s\n" HI, s == KPT ? "@" : "", v->name,
		   val ? "=" : "", val ? val : "");
}

struct row {
	enum st before;
	const char *op;		/* "+", "+@", "-", "-@" */
	bool allowed;
	int err;
	enum st after;
};

/* SPEC §6 "Adding", one line per cell. */
static const struct row add_rows[] = {
	{ ABS, "+",  true,  0,     PLN },
	{ ABS, "+@", true,  0,     KPT },
	{ ABS, "+",  false, EPERM, ERR },
	{ ABS, "+@", false, EPERM, ERR },
	{ PLN, "+",  true,  0,     PLN },
	{ PLN, "+@", true,  0,     KPT },
	{ PLN, "+",  false, 0,     PLN },
	{ PLN, "+@", false, EPERM, ERR },
	{ KPT, "+",  true,  0,     KPT },
	{ KPT, "+@", true,  0,     KPT },
	{ KPT, "+",  false, 0,     KPT },
	{ KPT, "+@", false, 0,     KPT },
};

/* SPEC §6 "Removing", one line per cell. */
static const struct row sub_rows[] = {
	{ ABS, "-",  true,  0,     ABS },
	{ ABS, "-@", true,  0,     ABS },
	{ ABS, "-",  false, 0,     ABS },
	{ ABS, "-@", false, 0,     ABS },
	{ PLN, "-",  true,  0,     ABS },
	{ PLN, "-@", true,  0,     PLN },
	{ PLN, "-",  false, EPERM, ERR },
	{ PLN, "-@", false, 0,     PLN },
	{ KPT, "-",  true,  0,     ABS },
	{ KPT, "-@", true,  0,     PLN },
	{ KPT, "-",  false, EPERM, ERR },
	{ KPT, "-@", false, EPERM, ERR },
};

/* How the right is held (or not): 0 tag, 1 privilege, 2 other tags, 3 none. */
static const char *const how_names[] = {
	"allowed by tag", "allowed by privilege",
	"not allowed (other rights)", "not allowed (no tag)",
};

static void setup(struct wspec *ws, const struct variant *v, int action,
		  int how)
{
	memset(ws, 0, sizeof(*ws));
	ws->rights = how == 0 ? v->grant[action] :
		     how == 2 ? v->deny[action] : NULL;
	ws->priv = how == 1;
}

static void run_table(const char *table, const struct row *rows, size_t n,
		      int action)
{
	size_t vi, i;
	int how;

	for (vi = 0; vi < sizeof(variants) / sizeof(variants[0]); vi++) {
		const struct variant *v = &variants[vi];

		for (i = 0; i < n; i++) {
			const struct row *r = &rows[i];

			for (how = 0; how < 4; how++) {
				struct wspec ws;
				char *before, *after = NULL, *write, *name;

				if (r->allowed != (how < 2))
					continue;
				setup(&ws, v, action, how);
				before = state_text(v, r->before, v->value);
				if (r->after != ERR)
					after = state_text(v, r->after,
							   r->before == ABS ?
							   NULL : v->value);
				write = fmt("%s%s\n", r->op, v->name);
				name = fmt("SPEC §6 %s [%s %s]: %s, %sNAME %s -> %s",
					   table, v->what, v->name,
					   st_names[r->before], r->op,
					   how_names[how],
					   r->err ? "EPERM" :
					   st_names[r->after]);
				check(name, before, write, &ws, NULL, r->err,
				      1, after);
				free(before);
				free(after);
				free(write);
				free(name);
			}
		}
	}
}

/* SPEC §6: "!NAME=VALUE", "!NAME=", "!NAME". */
static void run_set_table(void)
{
	static const struct {
		enum st st;
		const char *val;
	} befores[] = {
		{ ABS, NULL }, { PLN, NULL }, { PLN, "v" }, { KPT, "v" },
		{ KPT, NULL },
	};
	static const char *const ops[] = { "=w", "=v", "=", "" };
	size_t vi, bi, oi;
	int how;

	for (vi = 0; vi < sizeof(variants) / sizeof(variants[0]); vi++) {
		const struct variant *v = &variants[vi];

		for (bi = 0; bi < sizeof(befores) / sizeof(befores[0]);
		     bi++) {
			for (oi = 0; oi < 4; oi++) {
				for (how = 0; how < 4; how++) {
					struct wspec ws;
					char *before, *after = NULL, *write;
					char *name;
					const char *nv = NULL;
					int err = 0;

					setup(&ws, v, 2, how);
					before = state_text(v, befores[bi].st,
							    befores[bi].val);
					if (oi == 0)
						nv = "w";
					else if (oi == 1)
						nv = "v";
					if (how >= 2)
						err = EPERM;
					else if (befores[bi].st == ABS)
						err = ENOENT;
					else
						after = state_text(
							v, befores[bi].st, nv);
					write = fmt("!%s%s\n", v->name,
						    ops[oi]);
					name = fmt("SPEC §6 set [%s %s]: %s%s%s, !NAME%s %s -> %s",
						   v->what, v->name,
						   st_names[befores[bi].st],
						   befores[bi].val ? "=" : "",
						   befores[bi].val ?
						   befores[bi].val : "",
						   ops[oi], how_names[how],
						   err == EPERM ? "EPERM" :
						   err ? "ENOENT" : "value set");
					check(name, before, write, &ws, NULL,
					      err, 1, after);
					free(before);
					free(after);
					free(write);
					free(name);
				}
			}
		}
	}
}

void test_s06_tables(void)
{
	tap_section("SPEC §6 adding table");
	run_table("add", add_rows, sizeof(add_rows) / sizeof(add_rows[0]), 0);
	tap_section("SPEC §6 removing table");
	run_table("remove", sub_rows, sizeof(sub_rows) / sizeof(sub_rows[0]),
		  1);
	tap_section("SPEC §6 setting values");
	run_set_table();

	tap_section("SPEC §6 rules");
	/* An operation that would change nothing needs no right. */
	check("SPEC §6: +NAME on present NAME needs no right", "a\n", "+a\n",
	      NULL, NULL, 0, 0, NULL);
	check("SPEC §6: set right is checked before presence (EPERM first)",
	      "", "!a=1\n", NULL, NULL, EPERM, 1, NULL);
	{
		struct wspec ws = { .rights = "ptags:set\n" };

		check("SPEC §6: with set right, absent tag -> ENOENT", "",
		      "!a=1\n", &ws, NULL, ENOENT, 1, NULL);
		check("SPEC §6: unchanged value with set right succeeds",
		      "a=1\n", "!a=1\n", &ws, NULL, 0, 0, NULL);
		check("SPEC §6: value with '=' inside, split at first '='",
		      "a\n", "!a=b=c\n", &ws, NULL, 0, 0, "a=b=c\n");
	}
	{
		struct wspec ws = { .rights = "ptags:add\nptags:sub\n" };

		check("SPEC §6: +@NAME keeps the value", "a=1\n", "+@a\n", &ws,
		      NULL, 0, 0, "@a=1\n");
		check("SPEC §6: -@NAME keeps the value", "@a=1\n", "-@a\n",
		      &ws, NULL, 0, 0, "a=1\n");
		check("SPEC §6: -NAME removes tag with value and keep",
		      "@a=1\nb\n", "-a\n", &ws, NULL, 0, 0, "b\n");
		check("SPEC §6: EPERM on the first not-allowed exact name",
		      "a\n", "+b\n+ptags:x:add\n+c\n", &ws, NULL, EPERM, 2,
		      NULL);
	}
}
