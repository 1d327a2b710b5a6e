/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces between the parts of ptags.ko:
 *
 *   main.c   load and unload, in order
 *   hooks.c  process life cycle (sched tracepoints): fork, exec, exit
 *   table.c  which process holds which tag set (RCU hash table)
 *   fs.c     the "ptags" file system: /proc/ptags/PID, self, listing
 *   sets.c   the engine's shim: memory, deferred freeing
 *   stats.c  module parameters and counters
 *   audit.c  audit records of changes to others' tags and of refusals
 *   engine.c the tag engine (plain C, shared with user-space tests)
 */
#ifndef PTAGS_MODULE_H
#define PTAGS_MODULE_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <linux/user_namespace.h>

#include "engine/engine.h"

struct task_struct;
struct pid;
struct pid_namespace;
struct user_namespace;

/*
 * table.c.  A level (SPEC §12) is a user namespace; &init_user_ns is the
 * level of SPEC §1-§11.
 */
int ptags_table_init(void);
void ptags_table_uninit(void);
struct pt_set *ptags_task_set_stamp(struct task_struct *task,
				    const struct user_namespace *level,
				    u64 *stamp);
bool ptags_task_in_inner_level(struct task_struct *task,
			       const struct user_namespace *level);
bool ptags_ns_in_level(const struct user_namespace *ns,
		       const struct user_namespace *level);
int ptags_task_replace(struct task_struct *task, struct user_namespace *level,
		       const struct pt_set *old, struct pt_set *new);
void ptags_task_fork(struct task_struct *parent, struct task_struct *child);
void ptags_task_exec(struct task_struct *task);
void ptags_task_exit(struct task_struct *task);
int ptags_table_pids(struct pid_namespace *ns,
		     const struct user_namespace *level, u32 **pids,
		     unsigned int *n);

/*
 * Does @task belong to @level (SPEC §12)?  Every process belongs to level 0,
 * the one nearly every read and write is at: decided here, without a call.
 */
static inline bool ptags_task_in_level(struct task_struct *task,
				       const struct user_namespace *level)
{
	return level == &init_user_ns ||
	       ptags_task_in_inner_level(task, level);
}

static inline struct pt_set *ptags_task_set(struct task_struct *task,
					    const struct user_namespace *level)
{
	return ptags_task_set_stamp(task, level, NULL);
}

/* hooks.c */
int ptags_hooks_init(void);
void ptags_hooks_uninit(void);

/* fs.c */
int ptags_fs_init(void);
void ptags_fs_uninit(void);
int ptags_scopes_init(void);
void ptags_scopes_uninit(void);
bool ptags_watched(struct pid *pid, const struct user_namespace *level);
void ptags_notify(struct pid *pid, const struct user_namespace *level,
		  unsigned int events);

/* What happened to a process's tags (SPEC §3.5), for ptags_notify(). */
#define PTAGS_EV_CREATE		1u	/* it became tagged */
#define PTAGS_EV_MODIFY		2u	/* its set changed */
#define PTAGS_EV_DELETE		4u	/* it stopped being tagged */

/* sets.c */
int ptags_sets_init(void);
void ptags_sets_uninit(void);
bool ptags_set_tryget(struct pt_set *s);

/* stats.c */
struct ptags_stats {
	atomic64_t live_sets;
	atomic64_t tagged_processes;
	atomic64_t bytes;
	atomic64_t inherited;
	atomic64_t pruned;
	atomic64_t refused;
	atomic64_t killed;
	atomic64_t memory;
	atomic64_t watch_queued;	/* entries handed to the watch worker */
	atomic64_t audited;		/* audit records sent */
	atomic64_t audit_suppressed;	/* records over the rate limit */
};

extern struct ptags_stats ptags_stats;
extern unsigned int ptags_max_tags;
extern unsigned int ptags_max_bytes;
extern unsigned int ptags_max_write;
extern unsigned int ptags_max_levels;

int ptags_stats_init(void);
void ptags_stats_uninit(void);

static inline void ptags_count(atomic64_t *counter, long delta)
{
	atomic64_add(delta, counter);
}

/* audit.c */
void ptags_audit_init(void);
void ptags_audit_write(pid_t target, int level, const char *buf, size_t len,
		       int err, bool other, bool changed);

#endif /* PTAGS_MODULE_H */
