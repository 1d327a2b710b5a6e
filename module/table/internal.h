/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the process table: its entries and shard lists, shared by
 * table.c (the entries' life), listing.c (SPEC §3.2) and kill.c (SPEC §9's
 * fail-closed kill of a child that cannot inherit).
 */
#ifndef PTAGS_TABLE_INTERNAL_H
#define PTAGS_TABLE_INTERNAL_H

#include <linux/list.h>
#include <linux/list_bl.h>
#include <linux/llist.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "table/table.h"

/*
 * 96 bytes on x86-64 without lock debugging: the cost of a process tagged at
 * one level.  An entry whose set is NULL is dead: unlinked or being unlinked.
 */
struct ptags_proc {
	struct hlist_bl_node node;
	struct hlist_node lnode;		/* on its shard, for listings */
	const struct signal_struct *key;	/* never dereferenced */
	struct pid *tgid;			/* for listings and events */
	raw_spinlock_t lock;
	atomic_t watch;				/* PTAGS_W_*, events pending */
	struct pt_set __rcu *set;		/* NULL once dead */
	u64 stamp;				/* changes, for POLLPRI */
	struct user_namespace *level;		/* SPEC §12 */
	union {
		struct rcu_head rcu;		/* being freed */
		struct llist_node wnode;	/* queued for the watch worker */
	};
};

/*
 * The shard lists: a listing reads 64 heads and the entries.  Whatever
 * links or unlinks an entry (a tagged fork, a first tag at a level, an
 * untagging, an exit) takes its shard's lock inside its bucket's, for a
 * few instructions.
 */
#define PTAGS_SHARD_BITS	6

struct ptags_shard {
	raw_spinlock_t lock;
	struct hlist_head head;
} ____cacheline_aligned_in_smp;

extern struct ptags_shard ptags_shards[1U << PTAGS_SHARD_BITS];

static inline bool ptags_proc_dead(const struct ptags_proc *proc)
{
	return !rcu_access_pointer(proc->set);
}

/* kill.c */
void ptags_kill_new(struct task_struct *child);
void ptags_kill_drain(void);

#endif /* PTAGS_TABLE_INTERNAL_H */
