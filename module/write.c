// SPDX-License-Identifier: GPL-2.0
/*
 * Publishing writes (SPEC §3.4): a write is computed by the engine without a
 * lock, and its change published in turn with the other writers that change
 * the same process.
 */
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>

#include "stats.h"
#include "table/table.h"
#include "write.h"

/*
 * SPEC §3.4: writers that change a process's set publish their changes in
 * turn, in arrival order, so that no write is starved by others that keep
 * changing the set under it.  A writer queues a record that lives on its
 * own stack in a bucket chosen by the process; the first record of a
 * process in its bucket has the turn.  Writers to other processes never
 * wait for each other.
 */
struct ptags_turn {
	struct list_head node;
	const struct signal_struct *key;
	struct task_struct *task;
	bool mine;			/* written under the bucket's lock */
};

#define PTAGS_TURN_BITS	6

static struct ptags_turn_bucket {
	spinlock_t lock;		/* protects queue and its records */
	struct list_head queue;		/* of struct ptags_turn, in arrival order */
} ptags_turns[1 << PTAGS_TURN_BITS];

static struct ptags_turn_bucket *ptags_turn_bucket(const struct signal_struct *key)
{
	return &ptags_turns[hash_ptr(key, PTAGS_TURN_BITS)];
}

/* Leave the queue; pass the turn on to the next writer, if it was ours. */
static void ptags_turn_give(struct ptags_turn *t)
{
	struct ptags_turn_bucket *b = ptags_turn_bucket(t->key);
	struct ptags_turn *o;

	spin_lock(&b->lock);
	list_del(&t->node);
	if (t->mine) {
		list_for_each_entry(o, &b->queue, node) {
			if (o->key == t->key) {
				WRITE_ONCE(o->mine, true);
				wake_up_process(o->task);
				break;
			}
		}
	}
	spin_unlock(&b->lock);
}

/* Wait for our turn to write to the process of @key: 0 or -EINTR. */
static int ptags_turn_take(struct ptags_turn *t,
			   const struct signal_struct *key)
{
	struct ptags_turn_bucket *b = ptags_turn_bucket(key);
	struct ptags_turn *o;

	t->key = key;
	t->task = current;
	t->mine = true;
	spin_lock(&b->lock);
	list_for_each_entry(o, &b->queue, node) {
		if (o->key == key) {
			t->mine = false;
			break;
		}
	}
	list_add_tail(&t->node, &b->queue);
	spin_unlock(&b->lock);

	for (;;) {
		set_current_state(TASK_KILLABLE);
		if (READ_ONCE(t->mine))
			break;
		if (fatal_signal_pending(current)) {
			__set_current_state(TASK_RUNNING);
			ptags_turn_give(t);
			return -EINTR;
		}
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/**
 * ptags_write_apply - apply one write to a process's set at a level
 * @task: any thread of the process; the caller holds a reference on it
 * @level: the level (SPEC §12)
 * @buf: the write's lines
 * @len: their length in bytes
 * @w: who writes (SPEC §5)
 * @changed: receives whether the set changed
 *
 * Apply @buf to @task's set as one transaction.  It is computed without any
 * lock; a write that changes nothing (or fails) ends there, so it never
 * waits for, nor delays, anyone.  A change is published in turn with the
 * other changing writers of the process; if the set moved meanwhile it is
 * computed again, still holding the turn, so that only an exec (at most one
 * prune per set) can move it again: no write is starved.
 *
 * Return: 0, pt_apply()'s errors, or ptags_task_replace()'s; -EINTR when a
 * fatal signal arrived while waiting for the turn.
 */
int ptags_write_apply(struct task_struct *task, struct user_namespace *level,
		      const char *buf, size_t len, const struct pt_writer *w,
		      bool *changed)
{
	const struct pt_limits lim = {
		.max_tags = READ_ONCE(ptags_max_tags),
		.max_bytes = READ_ONCE(ptags_max_bytes),
	};
	struct ptags_turn turn;
	struct pt_result res;
	struct pt_set *old;
	int err;

	old = ptags_task_set(task, level);
	err = pt_apply(old, buf, len, w, &lim, &res);
	if (err || !res.changed)
		goto out;
	err = ptags_turn_take(&turn, task->signal);
	if (err) {
		pt_set_put(res.set);
		goto out;
	}
	for (;;) {
		err = ptags_task_replace(task, level, old, res.set);
		if (err != -EAGAIN)
			break;
		pt_set_put(old);
		old = ptags_task_set(task, level);
		err = pt_apply(old, buf, len, w, &lim, &res);
		if (err || !res.changed)
			break;
	}
	ptags_turn_give(&turn);
out:
	*changed = !err && res.changed;
	pt_set_put(old);
	return err;
}

void ptags_write_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ptags_turns); i++) {
		spin_lock_init(&ptags_turns[i].lock);
		INIT_LIST_HEAD(&ptags_turns[i].queue);
	}
}
