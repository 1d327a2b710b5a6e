// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's shim in the kernel: memory charged to the caller's memory
 * cgroup, set statistics, and freeing after an RCU grace period so that
 * lock-free readers of a process's set never see it vanish.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "shim.h"
#include "stats.h"

void *pt_alloc(size_t size)
{
	return kvmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
}

void pt_free(void *p)
{
	kvfree(p);
}

/* SPEC §3.4: pt_apply() runs in write(2): yield, and stop on SIGKILL. */
bool pt_shim_yield(void)
{
	cond_resched();
	return fatal_signal_pending(current);
}

void pt_shim_set_born(const struct pt_set *s)
{
	ptags_count(&ptags_stats.live_sets, 1);
	ptags_count(&ptags_stats.bytes, s->bytes);
	ptags_count(&ptags_stats.memory, s->alloc_size);
}

void pt_shim_set_gone(const struct pt_set *s)
{
	ptags_count(&ptags_stats.live_sets, -1);
	ptags_count(&ptags_stats.bytes, -(long)s->bytes);
	ptags_count(&ptags_stats.memory, -(long)s->alloc_size);
}

static void ptags_set_free_rcu(struct rcu_head *head)
{
	pt_set_destroy(container_of(head, struct pt_set, head.rcu));
}

/*
 * Called from any context (hooks run with preemption disabled); the set may
 * still be read under rcu_read_lock(), so free it after a grace period.  The
 * callback runs in softirq context, where kvfree() defers vfree() itself.
 */
void pt_shim_set_release(struct pt_set *s)
{
	call_rcu(&s->head.rcu, ptags_set_free_rcu);
}

/* Take a reference on a set found under rcu_read_lock(); false if dying. */
bool ptags_set_tryget(struct pt_set *s)
{
	return refcount_inc_not_zero(&s->head.ref);
}

int ptags_shim_init(void)
{
	return 0;
}

/* Wait for every set released so far to be freed before the module text goes. */
void ptags_shim_uninit(void)
{
	rcu_barrier();
}
