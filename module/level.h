/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Levels (SPEC §12), in level.c: a level is a user namespace;
 * &init_user_ns is the level of SPEC §1-§11.
 */
#ifndef PTAGS_LEVEL_H
#define PTAGS_LEVEL_H

#include <linux/types.h>
#include <linux/user_namespace.h>

struct task_struct;

bool ptags_task_in_inner_level(struct task_struct *task,
			       const struct user_namespace *level);
bool ptags_ns_in_level(const struct user_namespace *ns,
		       const struct user_namespace *level);

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

#endif /* PTAGS_LEVEL_H */
