/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which process holds which tag set: the sets of a process, one per level
 * (SPEC §12) at which it is tagged, what fork, exec and exit do to them
 * (SPEC §9), and listings (SPEC §3.2).
 */
#ifndef PTAGS_TABLE_TABLE_H
#define PTAGS_TABLE_TABLE_H

#include <linux/types.h>

#include "engine/engine.h"

struct task_struct;
struct pid_namespace;
struct user_namespace;

int ptags_table_init(void);
void ptags_table_uninit(void);

struct pt_set *ptags_task_set_stamp(struct task_struct *task,
				    const struct user_namespace *level,
				    u64 *stamp);

static inline struct pt_set *ptags_task_set(struct task_struct *task,
					    const struct user_namespace *level)
{
	return ptags_task_set_stamp(task, level, NULL);
}

int ptags_task_replace(struct task_struct *task, struct user_namespace *level,
		       const struct pt_set *old, struct pt_set *new);
void ptags_task_fork(struct task_struct *parent, struct task_struct *child);
void ptags_task_exec(struct task_struct *task);
void ptags_task_exit(struct task_struct *task);

/* listing.c */
int ptags_table_pids(struct pid_namespace *ns,
		     const struct user_namespace *level, u32 **pids,
		     unsigned int *n);

#endif /* PTAGS_TABLE_TABLE_H */
