/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-space shim of the engine (engine_shim.h) with bookkeeping for
 * the tests: outstanding allocations, sets born and gone, and failure
 * injection for pt_alloc().
 */
#ifndef PTAGS_SHIM_USER_H
#define PTAGS_SHIM_USER_H

/* Allocations made by pt_alloc() and not yet freed. */
long shim_outstanding(void);
/* Sets announced by pt_shim_set_born() minus those gone. */
long shim_live_sets(void);
long shim_born(void);
/* Number of pt_alloc() calls so far. */
long shim_alloc_calls(void);
/* Make the @n-th pt_alloc() call from now on fail (1: the next); 0: never. */
void shim_fail_nth(long n);

/* Number of pt_shim_yield() calls so far. */
long shim_yields(void);
/*
 * From the @n-th pt_shim_yield() call on (1: the next), answer "stop" as a
 * kernel does for a fatal signal; 0: never.
 */
void shim_stop_nth_yield(long n);

#endif /* PTAGS_SHIM_USER_H */
