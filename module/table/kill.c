// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §9 fail closed, in the fork hook (preemption disabled, where a
 * PREEMPT_RT kernel allows no sleeping lock, so not send_sig()): the child
 * kills itself from its own context, by a task_work that runs when it
 * first returns to user mode, before its first instruction there.  The
 * works are preallocated slots; each holds a module reference until it ran.
 * The put is the work's last call, but its return is still module code:
 * unload waits for that with an RCU-tasks grace period (ptags_kill_drain()).
 */
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/task_work.h>

#include "table/internal.h"

#define PTAGS_KILL_SLOTS	4096	/* 64 KiB */

static struct callback_head ptags_kills[PTAGS_KILL_SLOTS];
static DECLARE_BITMAP(ptags_kill_busy, PTAGS_KILL_SLOTS);
static bool ptags_kill_used;	/* a kill work was ever queued */

static void ptags_kill_run(struct callback_head *work)
{
	send_sig(SIGKILL, current, 1);
	clear_bit(work - ptags_kills, ptags_kill_busy);
	module_put(THIS_MODULE);
}

void ptags_kill_new(struct task_struct *child)
{
#ifdef PTAGS_HAVE_TASK_WORK_ADD
	unsigned long i;

	for (;;) {
		i = find_first_zero_bit(ptags_kill_busy, PTAGS_KILL_SLOTS);
		if (i >= PTAGS_KILL_SLOTS)
			break;
		if (test_and_set_bit(i, ptags_kill_busy))
			continue;
		/* Not while the module goes away: the work would outlive it. */
		if (!try_module_get(THIS_MODULE)) {
			clear_bit(i, ptags_kill_busy);
			break;
		}
		init_task_work(&ptags_kills[i], ptags_kill_run);
		WRITE_ONCE(ptags_kill_used, true);
		if (!task_work_add(child, &ptags_kills[i], TWA_RESUME))
			return;
		clear_bit(i, ptags_kill_busy);
		module_put(THIS_MODULE);
		break;
	}
#endif
	/*
	 * No slot free (4096 children killed and not yet run), the module
	 * going away, or no exported task_work_add(): the siglock, which is
	 * a sleeping lock on PREEMPT_RT only.
	 */
	send_sig(SIGKILL, child, 1);
}

/* Unload, or a failed load: every kill work has run and returned. */
void ptags_kill_drain(void)
{
	/*
	 * A load that fails after the hooks ran may have queued kills (each
	 * holds a module reference, which an unload would wait for, but a
	 * failing init does not): let them run first.
	 */
	while (!bitmap_empty(ptags_kill_busy, PTAGS_KILL_SLOTS))
		msleep(20);
	/*
	 * A kill work may still be between its module_put() and its return:
	 * preempted there, its task has not switched voluntarily since.
	 * Without kernel preemption it cannot be preempted there at all.
	 */
	if (READ_ONCE(ptags_kill_used)) {
#if defined(CONFIG_TASKS_RCU)
		synchronize_rcu_tasks();
#elif defined(CONFIG_PREEMPTION)
#error "ptags needs CONFIG_TASKS_RCU on a preemptible kernel"
#else
		synchronize_rcu();
#endif
	}
}
