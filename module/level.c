// SPDX-License-Identifier: GPL-2.0
/*
 * Levels (SPEC §12): a level is a user namespace, and a process belongs to
 * the level of its own user namespace and to those of its ancestors.
 */
#include <linux/cred.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#include "level.h"

/**
 * ptags_task_in_inner_level - does @task belong to @level (SPEC §12)?
 * @task: any thread of a process
 * @level: a user namespace; level 0 is decided by ptags_task_in_level()
 *
 * True when @task's user namespace is @level or a descendant of it.  A
 * process outside a level has no set there and is not seen there.
 */
bool ptags_task_in_inner_level(struct task_struct *task,
			       const struct user_namespace *level)
{
	bool in;

	rcu_read_lock();
	in = ptags_ns_in_level(__task_cred(task)->user_ns, level);
	rcu_read_unlock();
	return in;
}

/* Is user namespace @ns @level or a descendant of it? */
bool ptags_ns_in_level(const struct user_namespace *ns,
		       const struct user_namespace *level)
{
	while (ns->level > level->level)
		ns = ns->parent;
	return ns == level;
}
