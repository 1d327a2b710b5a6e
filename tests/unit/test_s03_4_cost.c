// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.4: a long write yields the CPU and a fatal signal stops it
 * (-EINTR, nothing changes); the rights of a write are computed once per
 * tag, whatever the tag's colons.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tutil.h"

#define NTAGS	1000
#define NLINES	4000

/* @n tags with 40 fields each: "t:NNNN:f:f:...:f". */
static struct pt_set *colon_set(size_t n)
{
	size_t i, len = 0, cap = n * 128;
	char *text = malloc(cap);
	struct pt_set *s;

	for (i = 0; i < n; i++) {
		len += snprintf(text + len, cap - len, "t:%04zu", i);
		for (int k = 0; k < 38; k++)
			len += snprintf(text + len, cap - len, ":f");
		text[len++] = '\n';
	}
	text[len] = 0;
	s = mk(text);
	free(text);
	return s;
}

static char *lines(const char *line, size_t n, size_t *len)
{
	size_t l = strlen(line), i;
	char *buf = malloc(l * n + 1);

	for (i = 0; i < n; i++)
		memcpy(buf + i * l, line, l);
	buf[l * n] = 0;
	*len = l * n;
	return buf;
}

/* One write of @n copies of @line by @w; returns its errno and yields. */
static int run(const struct pt_set *old, const char *line, size_t n,
	       const struct pt_writer *w, long stop, long *yields,
	       struct pt_result *res)
{
	size_t len;
	char *buf = lines(line, n, &len);
	long y = shim_yields();
	int err;

	shim_stop_nth_yield(stop);
	err = pt_apply(old, buf, len, w, &LIM_BIG, res);
	shim_stop_nth_yield(0);
	*yields = shim_yields() - y;
	free(buf);
	return err;
}

/*
 * @n lines of @line by a writer holding @rights: it yields at least once per
 * PT_YIELD_WORK units, a unit per line and per tag the line must look at
 * (@tags_per_line), and at most @max_units_per_line units per line (0: no
 * bound); a stop at any yield gives EINTR with nothing changed.
 */
static void yields_and_stops(const char *what, const char *line,
			     const char *rights, size_t tags_per_line,
			     long max_units_per_line)
{
	struct pt_set *old = colon_set(NTAGS), *r = mk(rights);
	const struct pt_writer w = { .rights = r, .self = true,
				     .same_opener = true };
	long base = shim_outstanding(), sets = shim_live_sets(), y, want;
	long stops[4];
	struct pt_result res;
	bool good = true;
	size_t i, last = 0;
	int err;

	err = run(old, line, NLINES, &w, 0, &y, &res);
	pt_set_put(res.set);
	want = (long)(NLINES * (1 + tags_per_line)) / PT_YIELD_WORK;
	if (err || y < want)
		diag("%s: err %d, %ld yields, want at least %ld", what, err, y,
		     want);
	ok(!err && y >= want,
	   "SPEC §3.4: %d lines of \"%.*s\" yield at least once per %d units of work",
	   NLINES, (int)strlen(line) - 1, line, PT_YIELD_WORK);
	if (max_units_per_line) {
		long most = NLINES * max_units_per_line / PT_YIELD_WORK + 1;

		ok(y <= most,
		   "SPEC §3.4 cost bound: %s cost at most %ld units per line, not one per tag (%ld yields, at most %ld)",
		   what, max_units_per_line, y, most);
	}

	/* Stop at the first, second, a middle and the last yield. */
	stops[0] = 1;
	stops[1] = 2;
	stops[2] = y / 3 > 2 ? y / 3 : 2;
	stops[3] = y > 2 ? y : 2;
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		err = run(old, line, NLINES, &w, stops[i], &y, &res);
		if (err != -EINTR || res.set || res.changed ||
		    res.line < last || res.line > NLINES ||
		    shim_outstanding() != base || shim_live_sets() != sets) {
			diag("%s: stop at yield %ld: err %d, line %zu, %ld allocations, %ld sets",
			     what, stops[i], err, res.line,
			     shim_outstanding() - base,
			     shim_live_sets() - sets);
			good = false;
		}
		last = res.line;
	}
	ok(good, "SPEC §3.4: a fatal signal stops %s with EINTR, nothing changed or leaked",
	   what);
	pt_set_put(old);
	pt_set_put(r);
}

void test_s03_4_cost(void)
{
	tap_section("SPEC §3.4 long writes");

	/* Rights over every tag: each line looks at every tag it matches. */
	yields_and_stops("\"+@\" lines of a writer with ptags:add", "+@\n",
			 "ptags:add\n", NTAGS, 0);
	yields_and_stops("\"-@t:*\" lines of a writer with ptags:sub",
			 "-@t:*\n", "ptags:sub\n", NTAGS, 0);
	/*
	 * Rights over other tags only: a line looks where they apply (a
	 * binary search per right), never at the 1000 colon-rich names.
	 */
	yields_and_stops("\"+@\" lines of a writer with ptags:app:add", "+@\n",
			 "ptags:app:add\nptags:app:x:add\nptags:b:add\n", 0, 8);
	yields_and_stops("\"-\" lines of a writer with ptags:app:sub", "-\n",
			 "ptags:app:sub\n", 0, 4);
	yields_and_stops("\"-\" lines of a writer with no right", "-\n", "", 0, 2);
	yields_and_stops("comment lines", "# nothing\n", "", 0, 2);
}
