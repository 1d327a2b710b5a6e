// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §5.1-5.4 and §10 (user namespaces) against the real module.
 *
 * Every actor is an "agent": a child process forked by this (root) test
 * program, given permission tags by root through /proc/ptags/PID, then made
 * unprivileged (drop_privileges(65534)) or otherwise de-privileged.  The
 * agent then executes commands sent over a SOCK_SEQPACKET socket and answers
 * with the errno of each write, so every assertion is made here, in the
 * parent, with ok().
 */
#define _GNU_SOURCE
#include <grp.h>		/* setgroups(), used by guest.h */
#include "guest.h"
#include "agent.h"

/* ------------------------------------------------------------ §5.1-5.2 */

static const struct wcase default_a[] = {
	{ "+X\n", EPERM, "SPEC §2/§5.2: no rights: +X on itself -> EPERM" },
	{ "+@X\n", EPERM, "SPEC §5.2: no rights: +@X on itself -> EPERM" },
	{ "+ptags:add\n", EPERM, "SPEC §5.2: no rights: cannot grant itself ptags:add -> EPERM" },
};

static const struct wcase default_a2[] = {
	{ "-X\n", EPERM, "SPEC §5.2: no rights: -X on itself -> EPERM" },
	{ "-@K\n", EPERM, "SPEC §5.2: no rights: -@K (clear keep) on itself -> EPERM" },
	{ "!V=2\n", EPERM, "SPEC §5.2: no rights: !V=2 on itself -> EPERM" },
	{ "!V\n", EPERM, "SPEC §5.2: no rights: !V (remove value) on itself -> EPERM" },
	{ "!X=1\n", EPERM, "SPEC §5.2: no rights: !X=1 on itself -> EPERM" },
	{ "+@X\n", EPERM, "SPEC §5.2/§6: no rights: +@X on present X -> EPERM" },
	{ "+X\n", 0, "SPEC §6: no rights: +X when X present changes nothing -> success" },
	{ "?X\n?@K\n", 0, "SPEC §5.6: no rights: ? lines need no right" },
};

static void test_default(void)
{
	struct agent *a = unpriv(""), *b = unpriv("");
	char r[2048];

	expect_writes(a, 0, default_a, ARRAY_SIZE(default_a));
	root_write(a->pid, "+X\n+@K\n+V\n!V=1\n");
	expect_writes(a, 0, default_a2, ARRAY_SIZE(default_a2));
	expect(aw(b, a->pid, "+Y\n"), EPERM,
	       "SPEC §5.3: no rights: +Y on a sibling -> EPERM");
	expect(aw(b, a->pid, "-X\n"), EPERM,
	       "SPEC §5.3: no rights: -X on a sibling -> EPERM");
	ok(a_read(b, a->pid, r, sizeof(r)) == 0 &&
	   !strcmp(r, "@K\nV=1\nX\n"),
	   "SPEC §5.6: no rights: reading a sibling's tags works");
	ok(pt_is(a->pid, "@K\nV=1\nX\n"),
	   "SPEC §5.2: refused writes left the tags unchanged");
	agents_end();
}

static const struct wcase global_add_a[] = {
	{ "+X\n", 0, "SPEC §5.1: ptags:add: +X on itself" },
	{ "+S:camera\n", 0, "SPEC §5.1: ptags:add: +S:camera on itself" },
	{ "+@Y\n", 0, "SPEC §5.1: ptags:add covers adding with keep (+@Y)" },
	{ "+@X\n", 0, "SPEC §5.1: ptags:add covers setting keep on existing X" },
	{ "-X\n", EPERM, "SPEC §5.1: ptags:add does not cover -X -> EPERM" },
	{ "-@X\n", EPERM, "SPEC §5.1: ptags:add does not cover clearing keep -> EPERM" },
	{ "!X=1\n", EPERM, "SPEC §5.1: ptags:add does not cover !X=1 -> EPERM" },
	{ "+ptags:sub\n", EPERM,
	  "SPEC §5.1: ptags:add does not cover special +ptags:sub -> EPERM" },
	{ "+ptags:S:add\n", EPERM,
	  "SPEC §5.1: ptags:add does not cover special +ptags:S:add -> EPERM" },
	{ "+ptags:others\n", EPERM,
	  "SPEC §5.1: ptags:add does not cover special +ptags:others -> EPERM" },
	{ "+@ptags:add\n", EPERM,
	  "SPEC §5.1: ptags:add does not cover keep on ptags:add -> EPERM" },
	{ "+@S:*\n", 0, "SPEC §5.1: ptags:add: +@S:* sets keep on S:camera" },
};

static void test_global_add(void)
{
	struct agent *a = unpriv("+ptags:add\n"), *b = unpriv("");

	expect_writes(a, 0, global_add_a, ARRAY_SIZE(global_add_a));
	ok(pt_is(a->pid, "@S:camera\n@X\n@Y\nptags:add\n"),
	   "SPEC §5.1: ptags:add: resulting tags");
	expect(aw(a, b->pid, "+X\n"), EPERM,
	       "SPEC §5.3: ptags:add alone: +X on a sibling -> EPERM");
	ok(pt_is(b->pid, ""), "SPEC §5.3: sibling unchanged");
	agents_end();
}

static const struct wcase global_sub_a[] = {
	{ "+N\n", EPERM, "SPEC §5.1: ptags:sub: +N -> EPERM" },
	{ "-X\n", 0, "SPEC §5.1: ptags:sub: -X" },
	{ "-@Y\n", 0, "SPEC §5.1: ptags:sub covers clearing keep (-@Y)" },
};

static const struct wcase global_sub_a2[] = {
	{ "-Y\n", 0, "SPEC §5.1: ptags:sub: -Y" },
	{ "-W\n", 0, "SPEC §5.1/§6: ptags:sub: -W removes a kept tag" },
	{ "!Z=w\n", EPERM, "SPEC §5.1: ptags:sub does not cover !Z=w -> EPERM" },
	{ "!Z\n", EPERM, "SPEC §5.1: ptags:sub does not cover removing a value -> EPERM" },
	{ "-ptags:sub\n", EPERM,
	  "SPEC §5.1: ptags:sub does not cover removing special ptags:sub -> EPERM" },
};

static void test_global_sub(void)
{
	struct agent *a = unpriv("+ptags:sub\n");

	root_write(a->pid, "+X\n+@Y\n+Z\n!Z=v\n+@W\n");
	expect_writes(a, 0, global_sub_a, ARRAY_SIZE(global_sub_a));
	ok(pt_is(a->pid, "@W\nY\nZ=v\nptags:sub\n"),
	   "SPEC §5.1: -@Y cleared the keep flag only");
	expect_writes(a, 0, global_sub_a2, ARRAY_SIZE(global_sub_a2));
	ok(pt_is(a->pid, "Z=v\nptags:sub\n"),
	   "SPEC §5.1: ptags:sub: resulting tags");
	agent_end(a);
}

static const struct wcase global_set_a[] = {
	{ "!missing=1\n", ENOENT, "SPEC §6: ptags:set: !missing=1 -> ENOENT" },
	{ "+N\n", EPERM, "SPEC §5.1: ptags:set: +N -> EPERM" },
	{ "-X\n", EPERM, "SPEC §5.1: ptags:set: -X -> EPERM" },
	{ "+@X\n", EPERM, "SPEC §5.1: ptags:set does not cover keep (+@X) -> EPERM" },
	{ "!ptags:set=1\n", EPERM, "SPEC §5.1: ptags:set does not cover special tags -> EPERM" },
};

static void test_global_set(void)
{
	struct agent *a = unpriv("+ptags:set\n");

	root_write(a->pid, "+X\n+Y\n!Y=old\n");
	expect(aw(a, 0, "!X=v\n"), 0, "SPEC §5.1: ptags:set: !X=v");
	expect(aw(a, 0, "!Y=new\n"), 0, "SPEC §5.1: ptags:set: !Y=new");
	ok(pt_is(a->pid, "X=v\nY=new\nptags:set\n"),
	   "SPEC §5.1: ptags:set: values set");
	expect(aw(a, 0, "!Y=\n"), 0,
	       "SPEC §5.1: ptags:set covers removing a value (!Y=)");
	expect(aw(a, 0, "!X\n"), 0,
	       "SPEC §5.1: ptags:set covers removing a value (!X)");
	ok(pt_is(a->pid, "X\nY\nptags:set\n"),
	   "SPEC §5.1: ptags:set: values removed");
	expect_writes(a, 0, global_set_a, ARRAY_SIZE(global_set_a));
	agent_end(a);
}

static const struct wcase prefix_a[] = {
	{ "+S\n", 0, "SPEC §5.1: ptags:S:add: +S" },
	{ "+S:camera\n", 0, "SPEC §5.1: ptags:S:add: +S:camera" },
	{ "+S:a:b\n", 0, "SPEC §5.1: ptags:S:add: +S:a:b" },
	{ "+SX\n", EPERM, "SPEC §5.1: ptags:S:add: +SX -> EPERM" },
	{ "+S2\n", EPERM, "SPEC §5.1: ptags:S:add: +S2 -> EPERM" },
	{ "+T:x\n", EPERM, "SPEC §5.1: ptags:S:add: +T:x -> EPERM" },
	{ "+X\n", EPERM, "SPEC §5.1: ptags:S:add: +X -> EPERM" },
	{ "+ptags:S:sub\n", EPERM, "SPEC §5.1: ptags:S:add: +ptags:S:sub -> EPERM" },
	{ "+@S:camera\n", 0, "SPEC §5.1: ptags:S:add: +@S:camera sets keep" },
	{ "-S:camera\n", EPERM, "SPEC §5.1: ptags:S:add: -S:camera -> EPERM" },
	{ "+S:new\n+SX\n", EPERM, "SPEC §3.4/§5.1: +S:new then +SX in one write -> EPERM" },
};

static const struct wcase prefix_b[] = {
	{ "+a:b\n", 0, "SPEC §5.1: ptags:a:b:add: +a:b" },
	{ "+a:b:c\n", 0, "SPEC §5.1: ptags:a:b:add: +a:b:c" },
	{ "+a:b:c:d\n", 0, "SPEC §5.1: ptags:a:b:add: +a:b:c:d" },
	{ "+a:bc\n", EPERM, "SPEC §5.1: ptags:a:b:add: +a:bc -> EPERM" },
	{ "+a\n", EPERM, "SPEC §5.1: ptags:a:b:add: +a -> EPERM" },
	{ "+a:c\n", EPERM, "SPEC §5.1: ptags:a:b:add: +a:c -> EPERM" },
	{ "+b\n", EPERM, "SPEC §5.1: ptags:a:b:add: +b -> EPERM" },
};

static const struct wcase prefix_c[] = {
	{ "-S:a\n", 0, "SPEC §5.1: ptags:S:sub: -S:a" },
	{ "-T:a\n", EPERM, "SPEC §5.1: ptags:S:sub: -T:a -> EPERM" },
	{ "-SX\n", EPERM, "SPEC §5.1: ptags:S:sub: -SX -> EPERM" },
	{ "-@S:k\n", 0, "SPEC §5.1: ptags:S:sub: -@S:k clears keep" },
	{ "-S\n", 0, "SPEC §5.1: ptags:S:sub: -S" },
	{ "+S:z\n", EPERM, "SPEC §5.1: ptags:S:sub: +S:z -> EPERM" },
};

static void test_prefix(void)
{
	struct agent *a = unpriv("+ptags:S:add\n");
	struct agent *b = unpriv("+ptags:a:b:add\n");
	struct agent *c = unpriv("+ptags:S:sub\n");
	struct agent *d = unpriv("+ptags:S:set\n");

	expect_writes(a, 0, prefix_a, ARRAY_SIZE(prefix_a));
	ok(pt_is(a->pid, "S\nS:a:b\n@S:camera\nptags:S:add\n"),
	   "SPEC §5.1: ptags:S:add: resulting tags (failed write changed nothing)");

	expect_writes(b, 0, prefix_b, ARRAY_SIZE(prefix_b));

	root_write(c->pid, "+S\n+S:a\n+T:a\n+@S:k\n+SX\n");
	expect_writes(c, 0, prefix_c, ARRAY_SIZE(prefix_c));
	ok(pt_is(c->pid, "S:k\nSX\nT:a\nptags:S:sub\n"),
	   "SPEC §5.1: ptags:S:sub: resulting tags");

	root_write(d->pid, "+S:a\n+T:a\n");
	expect(aw(d, 0, "!S:a=1\n"), 0, "SPEC §5.1: ptags:S:set: !S:a=1");
	expect(aw(d, 0, "!T:a=1\n"), EPERM,
	       "SPEC §5.1: ptags:S:set: !T:a=1 -> EPERM");
	ok(pt_is(d->pid, "S:a=1\nT:a\nptags:S:set\n"),
	   "SPEC §5.1: ptags:S:set: value set");
	expect(aw(d, 0, "!S:a\n"), 0, "SPEC §5.1: ptags:S:set: !S:a removes value");
	ok(pt_is(d->pid, "S:a\nT:a\nptags:S:set\n"),
	   "SPEC §5.1: ptags:S:set: value removed");
	agents_end();
}

static const struct wcase special_a[] = {
	{ "+X\n", EPERM, "SPEC §5.1: ptags:ptags:add does not cover +X -> EPERM" },
	{ "+ptags:S:add\n", 0, "SPEC §5.1: ptags:ptags:add: +ptags:S:add on itself" },
	{ "+S:x\n", 0, "SPEC §5.1: the self-granted ptags:S:add works in a later write" },
	{ "+@ptags:S:add\n", 0, "SPEC §5.1: ptags:ptags:add: +@ptags:S:add sets keep" },
	{ "-ptags:S:add\n", EPERM,
	  "SPEC §5.1: ptags:ptags:add does not cover -ptags:S:add -> EPERM" },
};

static void test_special(void)
{
	struct agent *a = unpriv("+ptags:ptags:add\n");
	struct agent *b = unpriv("+ptags:ptags:add\n");
	struct agent *c = unpriv("+ptags:add\n+ptags:sub\n");

	expect_writes(a, 0, special_a, ARRAY_SIZE(special_a));
	ok(pt_is(a->pid, "S:x\n@ptags:S:add\nptags:ptags:add\n"),
	   "SPEC §5.1: ptags:ptags:add: resulting tags");

	expect(aw(b, 0, "+ptags:add\n+X\n"), EPERM,
	       "SPEC §3.4: a permission added by a line grants nothing to later lines -> EPERM");
	ok(pt_is(b->pid, "ptags:ptags:add\n"),
	   "SPEC §3.4: that failed write changed nothing");

	expect(aw(c, 0, "-ptags:add\n"), EPERM,
	       "SPEC §5.1: ptags:sub does not cover -ptags:add -> EPERM");
	expect(aw(c, 0, "-ptags:*\n"), 0,
	       "SPEC §4.3: ptags:sub: -ptags:* skips the special tags -> success");
	ok(pt_is(c->pid, "ptags:add\nptags:sub\n"),
	   "SPEC §4.3: -ptags:* removed nothing");
	root_write(c->pid, "+ptags:ptags:sub\n");
	expect(aw(c, 0, "-ptags:add\n"), 0,
	       "SPEC §5.1: ptags:ptags:sub: -ptags:add on itself");
	ok(pt_is(c->pid, "ptags:ptags:sub\nptags:sub\n"),
	   "SPEC §5.1: ptags:ptags:sub: ptags:add removed");
	agents_end();
}

static void test_patterns(void)
{
	struct agent *a = unpriv("+ptags:S:a:sub\n");
	struct agent *b = unpriv("+ptags:S:a:add\n");

	root_write(a->pid, "+S:a\n+S:a:x\n+S:ab\n+S:b\n+T\n");
	expect(aw(a, 0, "-S:*\n-S:b\n"), EPERM,
	       "SPEC §3.4/§4.3: -S:* then exact -S:b (not allowed) -> EPERM");
	ok(pt_is(a->pid, "S:a\nS:a:x\nS:ab\nS:b\nT\nptags:S:a:sub\n"),
	   "SPEC §3.4: that failed write removed nothing");
	expect(aw(a, 0, "-S:*\n"), 0,
	       "SPEC §4.3: ptags:S:a:sub: -S:* skips disallowed tags -> success");
	ok(pt_is(a->pid, "S:ab\nS:b\nT\nptags:S:a:sub\n"),
	   "SPEC §4.3: -S:* removed only S:a and S:a:x");
	expect(aw(a, 0, "-S:b\n"), EPERM,
	       "SPEC §4.3: exact disallowed name -S:b -> EPERM");
	expect(aw(a, 0, "-S:ab\n"), EPERM,
	       "SPEC §4.3: exact disallowed name -S:ab -> EPERM");
	root_write(a->pid, "+S:a\n+S:a:y\n+@S:a:k\n+@S:b:k\n");
	expect(aw(a, 0, "-@S:*\n"), 0,
	       "SPEC §4.3: -@S:* clears keep only where allowed -> success");
	ok(pt_is(a->pid, "S:a\nS:a:k\nS:a:y\nS:ab\nS:b\n@S:b:k\nT\nptags:S:a:sub\n"),
	   "SPEC §4.3: -@S:* cleared keep of S:a:k only");
	expect(aw(a, 0, "-\n"), 0,
	       "SPEC §3.4/§4.3: '-' (every tag) skips disallowed tags -> success");
	ok(pt_is(a->pid, "S:ab\nS:b\n@S:b:k\nT\nptags:S:a:sub\n"),
	   "SPEC §4.3: '-' removed only S:a, S:a:k, S:a:y");

	root_write(b->pid, "+S:a\n+S:b\n+S:a:q\n");
	expect(aw(b, 0, "+@S:*\n"), 0,
	       "SPEC §4.3: ptags:S:a:add: +@S:* -> success");
	ok(pt_is(b->pid, "@S:a\n@S:a:q\nS:b\nptags:S:a:add\n"),
	   "SPEC §4.3: +@S:* set keep on S:a and S:a:q only");
	expect(aw(b, 0, "+@S:b\n"), EPERM,
	       "SPEC §4.3: exact +@S:b not allowed -> EPERM");
	expect(aw(b, 0, "+@\n"), 0,
	       "SPEC §3.4/§4.3: ptags:S:a:add: '+@' (keep on every tag) skips disallowed tags -> success");
	ok(pt_is(b->pid, "@S:a\n@S:a:q\nS:b\nptags:S:a:add\n"),
	   "SPEC §4.3: '+@' changed nothing it was not allowed to");
	agents_end();
}

/* ----------------------------------------------------------------- §5.3 */

static const struct wcase others_b2[] = {
	{ "+S:x\n", 0, "SPEC §5.3: ptags:S:add + ptags:S:others: +S:x on a sibling" },
	{ "+S\n", 0, "SPEC §5.3: ptags:S:add + ptags:S:others: +S on a sibling" },
	{ "+T:x\n", EPERM, "SPEC §5.3: ptags:S:add + ptags:S:others: +T:x on a sibling -> EPERM" },
	{ "+ptags:S:add\n", EPERM,
	  "SPEC §5.3: ptags:S:add + ptags:S:others: +ptags:S:add on a sibling -> EPERM" },
	{ "-S\n", EPERM, "SPEC §5.3: ptags:S:add + ptags:S:others: -S on a sibling -> EPERM" },
};

static const struct wcase others_b3[] = {
	{ "+X\n", 0, "SPEC §5.3: ptags:others + ptags:add: +X on a sibling" },
	{ "+S:y\n", 0, "SPEC §5.3: ptags:others + ptags:add: +S:y on a sibling" },
	{ "+ptags:add\n", EPERM,
	  "SPEC §5.3: ptags:others + ptags:add: +ptags:add (special) on a sibling -> EPERM" },
	{ "-X\n", EPERM, "SPEC §5.3: ptags:others + ptags:add: -X on a sibling -> EPERM" },
};

static const struct wcase others_b4[] = {
	{ "+S:z\n", 0, "SPEC §5.3: ptags:S:others + ptags:add: +S:z on a sibling" },
	{ "+Y\n", EPERM, "SPEC §5.3: ptags:S:others + ptags:add: +Y on a sibling -> EPERM" },
	{ "+SX\n", EPERM, "SPEC §5.3: ptags:S:others + ptags:add: +SX on a sibling -> EPERM" },
};

static void test_others(void)
{
	struct agent *v = unpriv(""), *v2 = unpriv(""), *v3 = unpriv("");
	struct agent *b1 = unpriv("+ptags:S:add\n");
	struct agent *b2 = unpriv("+ptags:S:add\n+ptags:S:others\n");
	struct agent *b3 = unpriv("+ptags:others\n+ptags:add\n");
	struct agent *b4 = unpriv("+ptags:S:others\n+ptags:add\n");
	struct agent *b5 = unpriv("+ptags:others\n");
	struct agent *b6 = unpriv("+ptags:S:sub\n+ptags:S:others\n");
	struct agent *b7 = unpriv("+ptags:S:set\n+ptags:S:others\n");
	struct agent *b8 = unpriv("+ptags:S:a:sub\n+ptags:others\n");
	struct agent *b9 = unpriv("+ptags:ptags:add\n+ptags:ptags:others\n");
	struct agent *b10 = unpriv("+ptags:ptags:add\n");
	struct agent *b11 = unpriv("+ptags:others\n+ptags:ptags:add\n");
	struct agent *b12 = unpriv("+ptags:ptags:others\n+ptags:add\n");
	struct agent *b13 = unpriv("+ptags:S:a:others\n+ptags:S:add\n");
	struct agent *b14 = unpriv("+ptags:S:others\n+ptags:S:a:add\n");
	pid_t vp = v->pid, kid;

	expect(aw(b1, vp, "+S:x\n"), EPERM,
	       "SPEC §5.3: ptags:S:add alone: +S:x on a sibling -> EPERM");
	expect(aw(b1, 0, "+S:x\n"), 0,
	       "SPEC §5.2: ptags:S:add alone: +S:x on itself works");
	expect_writes(b2, vp, others_b2, ARRAY_SIZE(others_b2));
	expect_writes(b3, vp, others_b3, ARRAY_SIZE(others_b3));
	expect_writes(b4, vp, others_b4, ARRAY_SIZE(others_b4));
	expect(aw(b5, vp, "+Y\n"), EPERM,
	       "SPEC §5.3: ptags:others alone: +Y on a sibling -> EPERM");
	expect(aw(b5, 0, "+Y\n"), EPERM,
	       "SPEC §5.2: ptags:others alone: +Y on itself -> EPERM");
	expect(aw(b6, vp, "-S:x\n"), 0,
	       "SPEC §5.3: ptags:S:sub + ptags:S:others: -S:x on a sibling");
	expect(aw(b6, vp, "-X\n"), EPERM,
	       "SPEC §5.3: ptags:S:sub + ptags:S:others: -X on a sibling -> EPERM");
	expect(aw(b7, vp, "!S:y=1\n"), 0,
	       "SPEC §5.3: ptags:S:set + ptags:S:others: !S:y=1 on a sibling");
	expect(aw(b7, vp, "!X=1\n"), EPERM,
	       "SPEC §5.3: ptags:S:set + ptags:S:others: !X=1 on a sibling -> EPERM");
	expect(aw(b13, vp, "+S:a:x\n"), 0,
	       "SPEC §5.3: ptags:S:a:others + ptags:S:add: +S:a:x on a sibling");
	expect(aw(b13, vp, "+S:b\n"), EPERM,
	       "SPEC §5.3: ptags:S:a:others + ptags:S:add: +S:b on a sibling -> EPERM");
	expect(aw(b14, vp, "+S:a:y\n"), 0,
	       "SPEC §5.3: ptags:S:others + ptags:S:a:add: +S:a:y on a sibling");
	expect(aw(b14, vp, "+S:c\n"), EPERM,
	       "SPEC §5.3: ptags:S:others + ptags:S:a:add: +S:c on a sibling -> EPERM");
	ok(pt_is(vp, "S\nS:a:x\nS:a:y\nS:y=1\nS:z\nX\n"),
	   "SPEC §5.3: sibling's resulting tags");

	root_write(v2->pid, "+S:a\n+S:a:q\n+S:b\n");
	expect(aw(b8, v2->pid, "-S:*\n"), 0,
	       "SPEC §4.3/§5.3: ptags:S:a:sub + ptags:others: -S:* on a sibling -> success");
	ok(pt_is(v2->pid, "S:b\n"),
	   "SPEC §4.3/§5.3: -S:* on a sibling removed only S:a, S:a:q");
	expect(aw(b8, v2->pid, "-S:b\n"), EPERM,
	       "SPEC §4.3/§5.3: exact -S:b on a sibling -> EPERM");

	expect(aw(b10, v3->pid, "+ptags:S:add\n"), EPERM,
	       "SPEC §5.3: ptags:ptags:add alone: +ptags:S:add on a sibling -> EPERM");
	expect(aw(b11, v3->pid, "+ptags:T:add\n"), EPERM,
	       "SPEC §5.3: ptags:others does not extend ptags:ptags:add -> EPERM");
	expect(aw(b12, v3->pid, "+ptags:T:add\n"), EPERM,
	       "SPEC §5.3: ptags:ptags:others + ptags:add: +ptags:T:add -> EPERM");
	expect(aw(b12, v3->pid, "+X\n"), EPERM,
	       "SPEC §5.3: ptags:ptags:others + ptags:add: +X on a sibling -> EPERM");
	expect(aw(b9, v3->pid, "+ptags:S:add\n"), 0,
	       "SPEC §5.1/§5.3: ptags:ptags:add + ptags:ptags:others: +ptags:S:add on a sibling");
	expect(aw(b9, v3->pid, "+S:q\n"), EPERM,
	       "SPEC §5.3: ptags:ptags:add + ptags:ptags:others: +S:q on a sibling -> EPERM");
	expect(aw(v3, 0, "+S:v\n"), 0,
	       "SPEC §5.2: the sibling uses the granted ptags:S:add on itself");
	ok(pt_is(v3->pid, "S:v\nptags:S:add\n"),
	   "SPEC §5.3: granted sibling's resulting tags");

	/* Children of the actor are "other" processes too. */
	kid = acmd(b1, OP_SPAWN, 0, NULL);
	ok(kid > 0, "setup: ptags:S:add agent spawned a child");
	if (kid > 0) {
		ok(pt_is(kid, "S:x\nptags:S:add\n"),
		   "SPEC §9: the child inherited its parent's tags");
		expect(aw(b1, kid, "+S:c\n"), EPERM,
		       "SPEC §5.3: ptags:S:add alone: +S:c on its own child -> EPERM");
		acmd(b1, OP_REAP, 0, NULL);
	}
	kid = acmd(b2, OP_SPAWN, 0, NULL);
	ok(kid > 0, "setup: ptags:S:add+others agent spawned a child");
	if (kid > 0) {
		expect(aw(b2, kid, "+S:c\n"), 0,
		       "SPEC §5.3: ptags:S:add + ptags:S:others: +S:c on its own child");
		ok(pt_is(kid, "S:c\nptags:S:add\nptags:S:others\n"),
		   "SPEC §5.3: the child got S:c");
		expect(aw(b2, kid, "+T:c\n"), EPERM,
		       "SPEC §5.3: ptags:S:add + ptags:S:others: +T:c on its own child -> EPERM");
		acmd(b2, OP_REAP, 0, NULL);
	}

	agents_end();
}

/* ------------------------------------------------------------ §5.4, §10 */

static int root_self_writes(void *arg)
{
	(void)arg;
	if (has_cap(CAP_MAC_ADMIN) != 1)
		return 10;
	if (pt_write(0, "+X\n+@ptags:zz:add\n!X=1\n"))
		return 11;
	if (!pt_is(0, "X=1\n@ptags:zz:add\n"))
		return 12;
	if (pt_write(0, "-@\n-\n"))
		return 13;
	if (!pt_is(0, ""))
		return 14;
	return 0;
}

static const struct wcase privilege_u[] = {
	{ "+X\n", EPERM, "SPEC §5.4/§10: user-namespace root: +X on itself -> EPERM" },
	{ "-MGR:CONTAINER_ID\n", EPERM,
	  "SPEC §10: user-namespace root cannot remove its manager's tag -> EPERM" },
	{ "-MGR:plain\n", EPERM,
	  "SPEC §10: user-namespace root cannot remove its manager's non-kept tag -> EPERM" },
	{ "-@MGR:CONTAINER_ID\n", EPERM,
	  "SPEC §10: user-namespace root cannot clear the keep flag -> EPERM" },
	{ "!MGR:CONTAINER_ID=evil\n", EPERM,
	  "SPEC §10: user-namespace root cannot change the value -> EPERM" },
	{ "+ptags:ptags:add\n", EPERM,
	  "SPEC §5.4: user-namespace root cannot grant itself rights -> EPERM" },
	{ "-MGR:*\n", 0, "SPEC §4.3/§10: user-namespace root: -MGR:* skips everything -> success" },
};

static void test_privilege(void)
{
	struct agent *v = unpriv(""), *r, *u;
	int rc;

	expect(pt_write(v->pid, "+R\n+@ptags:add\n!R=1\n"), 0,
	       "SPEC §5.4: root with CAP_MAC_ADMIN adds plain and special tags to another");
	ok(pt_is(v->pid, "R=1\n@ptags:add\n"), "SPEC §5.4: root's change is there");
	expect(pt_write(v->pid, "-@\n-\n"), 0,
	       "SPEC §5.4: root with CAP_MAC_ADMIN removes them");
	ok(pt_is(v->pid, ""), "SPEC §5.4: root's removal is there");
	expect(run_child(root_self_writes, NULL), 0,
	       "SPEC §5.4: root with CAP_MAC_ADMIN changes its own tags freely");

	/* uid 0 without CAP_MAC_ADMIN */
	r = agent_new(false);
	expect(acmd(r, OP_DROPMAC, 0, NULL), 0,
	       "setup: uid 0 agent dropped only CAP_MAC_ADMIN (bounding, effective, permitted)");
	expect(aw(r, 0, "+X\n"), EPERM,
	       "SPEC §5.4: uid 0 without CAP_MAC_ADMIN: +X on itself -> EPERM");
	expect(aw(r, v->pid, "+X\n"), EPERM,
	       "SPEC §5.4: uid 0 without CAP_MAC_ADMIN: +X on another -> EPERM");
	root_write(v->pid, "+Y\n");
	expect(aw(r, v->pid, "-Y\n"), EPERM,
	       "SPEC §5.4: uid 0 without CAP_MAC_ADMIN: -Y on another -> EPERM");
	expect(aw(r, 0, "+ptags:add\n"), EPERM,
	       "SPEC §5.4: uid 0 without CAP_MAC_ADMIN: +ptags:add on itself -> EPERM");
	root_write(r->pid, "+ptags:add\n");
	expect(aw(r, 0, "+X\n"), 0,
	       "SPEC §5.2: uid 0 without CAP_MAC_ADMIN but holding ptags:add: +X on itself");
	ok(pt_is(r->pid, "X\nptags:add\n"), "SPEC §5.2: resulting tags");

	/* root of a new user namespace, its "manager" being this test */
	u = agent_new(false);
	root_write(u->pid, "+@MGR:CONTAINER_ID\n!MGR:CONTAINER_ID=abc\n+MGR:plain\n");
	expect(acmd(u, OP_DROP, 65534, NULL), 0,
	       "setup: container agent drop_privileges(65534) returned 0");
	rc = acmd(u, OP_USERNS, 0, NULL);
	ok(rc == 0,
	   "setup: unprivileged agent is uid 0 with CAP_MAC_ADMIN in a new user namespace (step code %d)",
	   rc);
	expect_writes(u, 0, privilege_u, ARRAY_SIZE(privilege_u));
	expect(aw(u, v->pid, "+X\n"), EPERM,
	       "SPEC §5.4: user-namespace root: +X on another -> EPERM");
	expect(aw(u, v->pid, "-Y\n"), EPERM,
	       "SPEC §5.4: user-namespace root: -Y on another -> EPERM");
	ok(pt_is(u->pid, "@MGR:CONTAINER_ID=abc\nMGR:plain\n"),
	   "SPEC §10: the manager's tags are intact");
	ok(pt_is(v->pid, "Y\n"), "SPEC §5.4: the other process is intact");
	agents_end();
}

int main(void)
{
	pt_start_untagged();
	test_default();
	test_global_add();
	test_global_sub();
	test_global_set();
	test_prefix();
	test_special();
	test_patterns();
	test_others();
	test_privilege();
	return tap_done();
}
