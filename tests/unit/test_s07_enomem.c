// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §7 ENOMEM: a failure at every allocation of a write returns -ENOMEM,
 * changes nothing and leaks nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tutil.h"

static void inject(const char *what, const char *before, const char *write,
		   int points)
{
	const struct pt_writer w = { .privileged = true, .self = true,
				     .same_opener = true };
	struct pt_set *old = mk(before);
	long base = shim_outstanding(), sets = shim_live_sets();
	int n, found = 0;
	bool good = true;

	for (n = 1; n < 20; n++) {
		struct pt_result res;
		long calls = shim_alloc_calls();
		int err;

		shim_fail_nth(n);
		err = pt_apply(old, write, strlen(write), &w, &LIM_BIG, &res);
		shim_fail_nth(0);
		if (shim_alloc_calls() - calls < n) {
			/* The injected failure was not reached. */
			good = good && !err;
			pt_set_put(res.set);
			break;
		}
		found++;
		if (err != -ENOMEM || res.set || res.changed ||
		    shim_outstanding() != base || shim_live_sets() != sets) {
			diag("failure at allocation %d: err %d, %ld allocations, %ld sets",
			     n, err, shim_outstanding() - base,
			     shim_live_sets() - sets);
			good = false;
		}
	}
	pt_set_put(old);
	if (found != points)
		diag("%d allocation points, expected %d", found, points);
	ok(good && found == points && no_leak(),
	   "SPEC §7: ENOMEM at each of the %d allocations of %s: nothing changes or leaks",
	   points, what);
}

void test_s07_enomem(void)
{
	tap_section("SPEC §7 ENOMEM");
	inject("a write building a set", "a\n", "+b\n", 2);
	inject("a write building a set and its exec companion", "a\n",
	       "+@b\n!b=1\n", 3);
	inject("a write emptying the set", "a\n@b\n", "-\n", 1);
	inject("a write that changes nothing", "a\n", "+a\n?a\n", 1);
	inject("a write on the empty set", "", "+@x\n+y\n", 3);
}
