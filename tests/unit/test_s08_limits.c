// SPDX-License-Identifier: GPL-2.0
/* SPEC §8: max_tags and max_bytes refuse growth only (ECANCELED). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tutil.h"

static const struct wspec P = { .priv = true };

void test_s08_limits(void)
{
	const struct pt_limits t2 = { .max_tags = 2, .max_bytes = 1000 };
	const struct pt_limits t1 = { .max_tags = 1, .max_bytes = 1000 };
	const struct pt_limits t0 = { .max_tags = 0, .max_bytes = 1000 };
	const struct pt_limits b5 = { .max_tags = 100, .max_bytes = 5 };
	const struct pt_limits b3 = { .max_tags = 100, .max_bytes = 3 };
	struct wspec nr = { 0 };

	tap_section("SPEC §8 limits");
	check("SPEC §8: max_tags 2: a third tag -> ECANCELED", "a\nb\n",
	      "+c\n", &P, &t2, ECANCELED, 1, NULL);
	check("SPEC §8: max_tags 2: +@c -> ECANCELED", "a\nb\n", "+@c\n", &P,
	      &t2, ECANCELED, 1, NULL);
	check("SPEC §8: max_tags 2: filling up to the limit succeeds", "",
	      "+a\n+b\n", &P, &t2, 0, 0, "a\nb\n");
	check("SPEC §8: max_tags 2: the failing line is numbered", "",
	      "+a\n+b\n+c\n", &P, &t2, ECANCELED, 3, NULL);
	check("SPEC §8: max_tags 2: +NAME of a present tag succeeds", "a\nb\n",
	      "+a\n+@b\n", &P, &t2, 0, 0, "a\n@b\n");
	check("SPEC §8: max_tags 2: remove then add stays within the limit",
	      "a\nb\n", "-a\n+c\n", &P, &t2, 0, 0, "b\nc\n");
	check("SPEC §8: max_tags 2: adds interleaved with removals fit",
	      "", "+a\n+b\n-a\n+c\n-b\n+d\n", &P, &t2, 0, 0, "c\nd\n");
	check("SPEC §8: max_tags 0: nothing can be added", "", "+a\n", &P,
	      &t0, ECANCELED, 1, NULL);
	check("SPEC §8: lowered max_tags keeps the tags: removal works",
	      "a\nb\nc\n", "-a\n", &P, &t1, 0, 0, "b\nc\n");
	check("SPEC §8: lowered max_tags: keep flags and values still change",
	      "a\nb\nc\n", "+@b\n!c=1\n-@b\n+@a\n", &P, &t1, 0, 0,
	      "@a\nb\nc=1\n");
	check("SPEC §8: lowered max_tags: adding -> ECANCELED", "a\nb\nc\n",
	      "-a\n+d\n", &P, &t1, ECANCELED, 2, NULL);
	check("SPEC §8: EPERM is decided before the limit", "a\nb\n", "+c\n",
	      &nr, &t2, EPERM, 1, NULL);
	check("SPEC §8: max_tags applies to privileged writers too", "a\nb\n",
	      "+c\n", &P, &t2, ECANCELED, 1, NULL);

	check("SPEC §8: max_bytes 5: names of 3+2 bytes fit exactly", "",
	      "+abc\n+de\n", &P, &b5, 0, 0, "abc\nde\n");
	check("SPEC §8: max_bytes 5: names of 3+3 bytes -> ECANCELED", "",
	      "+abc\n+def\n", &P, &b5, ECANCELED, 2, NULL);
	check("SPEC §8: max_bytes 5: a value up to the limit fits", "ab\n",
	      "!ab=xyz\n", &P, &b5, 0, 0, "ab=xyz\n");
	check("SPEC §8: max_bytes 5: a value beyond the limit -> ECANCELED",
	      "ab\n", "!ab=xyzw\n", &P, &b5, ECANCELED, 1, NULL);
	check("SPEC §8: max_bytes 5: growing a value beyond -> ECANCELED",
	      "ab=x\n", "!ab=xyzw\n", &P, &b5, ECANCELED, 1, NULL);
	check("SPEC §8: max_bytes: a value set earlier in the write counts",
	      "ab\n", "!ab=xyz\n+c\n", &P, &b5, ECANCELED, 2, NULL);
	check("SPEC §8: max_bytes: a pattern removal frees room in the write",
	      "S:a\nS:b\n", "-S:*\n+cde\n", &P, &b5, 0, 0, "cde\n");
	check("SPEC §8: max_bytes: a removal frees room in the write",
	      "ab=x\ncd\n", "-ab\n+efg\n", &P, &b5, 0, 0, "cd\nefg\n");
	check("SPEC §8: max_bytes: values count: a new name does not fit",
	      "ab=xyz\n", "+c\n", &P, &b5, ECANCELED, 1, NULL);
	check("SPEC §8: max_bytes: removing a value frees room in the write",
	      "ab=xyz\n", "!ab\n+cde\n", &P, &b5, 0, 0, "ab\ncde\n");
	check("SPEC §8: lowered max_bytes: shrinking a value succeeds",
	      "ab=xyzwv\n", "!ab=x\n", &P, &b3, 0, 0, "ab=x\n");
	check("SPEC §8: lowered max_bytes: same-size value change succeeds",
	      "ab=xyzwv\n", "!ab=qqqqq\n", &P, &b3, 0, 0, "ab=qqqqq\n");
	check("SPEC §8: lowered max_bytes: the same value succeeds unchanged",
	      "ab=xyzwv\n", "!ab=xyzwv\n", &P, &b3, 0, 0, NULL);
	check("SPEC §8: lowered max_bytes: removing the value succeeds",
	      "ab=xyzwv\n", "!ab=\n", &P, &b3, 0, 0, "ab\n");
	check("SPEC §8: lowered max_bytes: growing a value -> ECANCELED",
	      "ab=xyzwv\n", "!ab=xyzwvq\n", &P, &b3, ECANCELED, 1, NULL);
	check("SPEC §8: lowered max_bytes: adding a tag -> ECANCELED",
	      "ab=xyzwv\n", "+c\n", &P, &b3, ECANCELED, 1, NULL);
	check("SPEC §8: lowered max_bytes: removals and keep flags work",
	      "ab=xyzwv\ncd\n", "-cd\n+@ab\n", &P, &b3, 0, 0, "@ab=xyzwv\n");
	check("SPEC §8: a value of the same length at the limit succeeds",
	      "ab=123\n", "!ab=456\n", &P, &b5, 0, 0, "ab=456\n");
}
