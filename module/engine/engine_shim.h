/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the engine needs from its host: fixed-width types, errno values,
 * memory, reference counts and set life-cycle notifications.  In the kernel
 * the functions are implemented in module/shim.c; in user space by the test
 * or fuzzer that links the engine (tests/unit/shim_user.c).
 */
#ifndef PTAGS_ENGINE_SHIM_H
#define PTAGS_ENGINE_SHIM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/refcount.h>
#include <linux/rcupdate.h>

struct pt_shim_head {
	refcount_t ref;
	struct rcu_head rcu;
};

#define pt_ref_init(h)		refcount_set(&(h)->ref, 1)
#define pt_ref_inc(h)		refcount_inc(&(h)->ref)
#define pt_ref_dec_and_test(h)	refcount_dec_and_test(&(h)->ref)

#else /* !__KERNEL__ */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>

struct pt_shim_head {
	long ref;
};

#define pt_ref_init(h)		__atomic_store_n(&(h)->ref, 1, __ATOMIC_RELAXED)
#define pt_ref_inc(h)		__atomic_add_fetch(&(h)->ref, 1, __ATOMIC_RELAXED)
#define pt_ref_dec_and_test(h)	(__atomic_sub_fetch(&(h)->ref, 1, __ATOMIC_ACQ_REL) == 0)

#endif /* __KERNEL__ */

struct pt_set;

/*
 * Memory for sets and for a transaction's scratch space.  May fail (NULL).
 * In the kernel: process context, charged to the caller's memory cgroup.
 */
void *pt_alloc(size_t size);
void pt_free(void *p);

/*
 * Statistics: a set was built (@s complete), or its last reference was
 * dropped (its memory goes back shortly after).
 */
void pt_shim_set_born(const struct pt_set *s);
void pt_shim_set_gone(const struct pt_set *s);

/*
 * SPEC §3.4: a long transaction calls this after every PT_YIELD_WORK units
 * of work (engine.h).  The host may reschedule; true means stop now (in the
 * kernel: a fatal signal is pending) and the write fails with -EINTR.
 */
bool pt_shim_yield(void);

/*
 * The last reference to @s was dropped.  The shim calls pt_set_destroy(@s),
 * in the kernel after an RCU grace period.
 */
void pt_shim_set_release(struct pt_set *s);

#endif /* PTAGS_ENGINE_SHIM_H */
