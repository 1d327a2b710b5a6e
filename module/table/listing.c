// SPDX-License-Identifier: GPL-2.0
/*
 * Listings (SPEC §3.2) walk the shard lists, not the table's buckets, so that
 * a listing costs what the tagged processes do, not what the table's size
 * does.
 */
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/threads.h>

#include "level.h"
#include "stats.h"
#include "table/internal.h"

/*
 * SPEC §3.2: between its last thread's exit and the exit hook, a process
 * already has no entry; do not list it; nor one that left the entry's level
 * (SPEC §12).  Under rcu_read_lock(): a task found through its pid keeps its
 * signal_struct for a grace period.
 */
static bool ptags_proc_live(const struct ptags_proc *proc)
{
	struct task_struct *task = pid_task(proc->tgid, PIDTYPE_PID);

	return task && atomic_read(&task->signal->live) &&
	       ptags_task_in_level(task, proc->level);
}

/* Room a listing adds for processes tagged while it allocates. */
#define PTAGS_COLLECT_SLACK	64
/*
 * Entries a listing looks at before it next offers to reschedule, which it
 * does between shards only: a chain is never left half walked.
 */
#define PTAGS_COLLECT_BATCH	1024

/*
 * Collect the tgids, as seen in @ns, of processes tagged at @level and
 * visible there into @buf; returns how many, or -ENOSPC (the table grew past
 * @cap).  Entries never move between shards, so one that stays in the
 * table is seen once.
 */
static long ptags_table_collect(struct pid_namespace *ns,
				const struct user_namespace *level, u32 *buf,
				unsigned int cap)
{
	unsigned int i, n = 0, seen = 0;
	struct ptags_proc *proc;
	pid_t nr;

	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(ptags_shards); i++) {
		hlist_for_each_entry_rcu(proc, &ptags_shards[i].head, lnode) {
			seen++;
			if (proc->level != level || ptags_proc_dead(proc) ||
			    !ptags_proc_live(proc))
				continue;
			nr = pid_nr_ns(proc->tgid, ns);
			if (nr <= 0)
				continue;
			if (n == cap) {
				rcu_read_unlock();
				return -ENOSPC;
			}
			buf[n++] = nr;
		}
		/* Between shards: a chain is never left half walked. */
		if (seen >= PTAGS_COLLECT_BATCH || need_resched()) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
			seen = 0;
		}
	}
	rcu_read_unlock();
	return n;
}

/**
 * ptags_table_pids - sorted, unique tgids of the tagged processes in @ns
 * @ns: the pid namespace of the listing
 * @level: the level (SPEC §12) whose tagged processes are listed
 * @pids: receives a kvmalloc'ed array the caller frees with kvfree()
 * @n: receives its length
 *
 * A process that stays tagged during the whole call appears exactly once.
 * Return: 0, -ENOMEM, or -EINTR when a fatal signal arrived (SPEC §3.2: a
 * listing races with tagging; every retry doubles the array, so a listing
 * tries at most a few times and can always be killed).
 */
int ptags_table_pids(struct pid_namespace *ns,
		     const struct user_namespace *level, u32 **pids,
		     unsigned int *n)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN;
	u32 *buf, *out = NULL;
	unsigned int cap = 0;
	long got;

	for (;;) {
		if (fatal_signal_pending(current))
			return -EINTR;
		/* One tgid per process of a pid namespace at most. */
		cap = clamp_t(u64, atomic64_read(&ptags_stats.tagged_processes) +
			      PTAGS_COLLECT_SLACK, 2ULL * cap,
			      PID_MAX_LIMIT + PTAGS_COLLECT_SLACK);
		buf = kvmalloc_array(cap, sizeof(*buf), gfp);
		if (!buf)
			return -ENOMEM;
		got = ptags_table_collect(ns, level, buf, cap);
		if (got >= 0)
			break;
		kvfree(buf);
	}
	/* What the listing keeps is sized to what it found (SPEC §8). */
	if (got) {
		out = kvmalloc_array(got, sizeof(*buf), gfp);
		if (!out) {
			kvfree(buf);
			return -ENOMEM;
		}
	}
	*n = pt_pids_sort_unique(buf, out, got);
	*pids = out;
	kvfree(buf);
	return 0;
}
