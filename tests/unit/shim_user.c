// SPDX-License-Identifier: GPL-2.0
/*
 * engine_shim.h for user space: malloc-based memory with counters, and
 * immediate destruction on the last reference (no RCU here).
 */
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"
#include "shim_user.h"

static long outstanding, born, gone, calls, fail_at, yields, stop_at;

void *pt_alloc(size_t size)
{
	void *p;

	calls++;
	if (fail_at && calls == fail_at) {
		fail_at = 0;
		return NULL;
	}
	p = malloc(size ? size : 1);
	if (p) {
		/* Garbage, so that an unset field shows up. */
		memset(p, 0xa5, size);
		outstanding++;
	}
	return p;
}

void pt_free(void *p)
{
	if (!p)
		return;
	outstanding--;
	free(p);
}

void pt_shim_set_born(const struct pt_set *s)
{
	if (s->head.ref != 1) {
		fprintf(stderr, "set born with reference count %ld\n",
			s->head.ref);
		abort();
	}
	born++;
}

void pt_shim_set_gone(const struct pt_set *s)
{
	if (s->head.ref != 0) {
		fprintf(stderr, "set gone with reference count %ld\n",
			s->head.ref);
		abort();
	}
	gone++;
}

bool pt_shim_yield(void)
{
	yields++;
	return stop_at && yields >= stop_at;
}

void pt_shim_set_release(struct pt_set *s)
{
	pt_set_destroy(s);
}

long shim_outstanding(void)
{
	return outstanding;
}

long shim_live_sets(void)
{
	return born - gone;
}

long shim_born(void)
{
	return born;
}

long shim_alloc_calls(void)
{
	return calls;
}

void shim_fail_nth(long n)
{
	fail_at = n ? calls + n : 0;
}

long shim_yields(void)
{
	return yields;
}

void shim_stop_nth_yield(long n)
{
	stop_at = n ? yields + n : 0;
}
