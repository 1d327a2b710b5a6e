// SPDX-License-Identifier: GPL-2.0
/*
 * Watching (SPEC §3.5).  Every change of a process's tags is an event of its
 * table entry (table/table.c), which queues the entry, at most once at a
 * time, to one worker when someone might watch: an open entry of a mount that shows
 * it was polled, or such a mount has fsnotify marks.  The worker calls
 * ptags_notify(), in process context, which tells each such mount's
 * directory (IN_CREATE, IN_MODIFY, IN_DELETE with the pid as name) and the
 * process's inode there, if it exists (IN_MODIFY, and POLLPRI for its open
 * files).  Nothing is allocated per event: a storm of changes coalesces in
 * the entries, and inotify's queue limit is the only queue.  A process's
 * exit reaches its inodes through the pid's wait_pidfd queue, as a pidfd's
 * poll does: IN_DELETE_SELF and POLLHUP, tagged or not.
 *
 * Any user can make mounts (a user namespace of its own can), so mounts are
 * kept by scope, a (level, pid namespace) pair: a process's change concerns
 * only the scopes of its level and of the pid namespaces it is in, at most
 * 1 + MAX_PID_NS_LEVEL of them, and a scope holds at most PTAGS_SCOPE_MAX
 * superblocks.  So the mounts of one user cost the hooks and the worker
 * nothing for processes outside that user's namespaces, and the worker's
 * work for one event is bounded.
 *
 * Ordering, the one pairing of watching: a change is published (its set
 * and stamp, or its entry) before ptags_watched() reads whether anyone
 * watches, with the full barrier that ptags_watched() begins with; a
 * poller is counted (ptags_poll_count()) before it reads the stamp, with a
 * full barrier too.  So either the change sees the poller and queues an
 * event, or the poller sees the new stamp itself.
 */
#include <linux/fsnotify.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/rculist.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "compat.h"
#include "level.h"
#include "fs/internal.h"
#include "fs/notify.h"

/*
 * The exit works run here: an exit work may drop its inode's last reference
 * itself, after which nothing waits for it but destroy_workqueue() at unload,
 * once it has returned from the module's code.
 */
static struct workqueue_struct *ptags_exit_wq;

static DEFINE_MUTEX(ptags_sbs_lock);	/* changes scopes; ptags_notify() */

struct ptags_scope_key {
	const struct user_namespace *level;
	const struct pid_namespace *ns;
};

struct ptags_scope {
	struct rhash_head node;		/* in ptags_scopes */
	struct ptags_scope_key key;	/* pinned by the superblocks' sbi */
	struct list_head sbs;		/* RCU; writers hold ptags_sbs_lock */
	unsigned int n;
	struct rcu_head rcu;
};

static const struct rhashtable_params ptags_scope_params = {
	.key_len = sizeof(struct ptags_scope_key),
	.key_offset = offsetof(struct ptags_scope, key),
	.head_offset = offsetof(struct ptags_scope, node),
	.automatic_shrinking = true,
};

static struct rhashtable ptags_scopes;

/*
 * Superblocks per scope: every "mount -t ptags" and every fsmount(2) is one
 * (a bind mount is not).  Beyond it, mounting fails with ENOSPC.
 */
#define PTAGS_SCOPE_MAX		64

/*
 * Superblocks of a scope the hooks look at before they leave the question
 * to the worker: they run with preemption disabled.
 */
#define PTAGS_WATCH_SB_WALK	8

/* The scope of @level and @ns; under rcu_read_lock() or ptags_sbs_lock. */
static struct ptags_scope *ptags_scope_find(const struct user_namespace *level,
					    const struct pid_namespace *ns)
{
	struct ptags_scope_key key = { .level = level, .ns = ns };

	return rhashtable_lookup(&ptags_scopes, &key, ptags_scope_params);
}

/* Before the hooks run, since they call ptags_watched(), and after. */
int ptags_scopes_init(void)
{
	return rhashtable_init(&ptags_scopes, &ptags_scope_params);
}

void ptags_scopes_uninit(void)
{
	rhashtable_destroy(&ptags_scopes);	/* empty: nothing is mounted */
}

/* Make @sbi's mount one of its scope's; 0, -ENOSPC or -ENOMEM. */
int ptags_scope_join(struct ptags_sb_info *sbi)
{
	struct ptags_scope *scope;
	int err = 0;

	mutex_lock(&ptags_sbs_lock);
	rcu_read_lock();
	scope = ptags_scope_find(sbi->level, sbi->ns);
	rcu_read_unlock();
	if (!scope) {
		scope = kzalloc(sizeof(*scope), GFP_KERNEL_ACCOUNT);
		if (!scope) {
			err = -ENOMEM;
			goto out;
		}
		scope->key.level = sbi->level;
		scope->key.ns = sbi->ns;
		INIT_LIST_HEAD(&scope->sbs);
		err = rhashtable_insert_fast(&ptags_scopes, &scope->node,
					     ptags_scope_params);
		if (err) {
			kfree(scope);
			goto out;
		}
	} else if (scope->n >= PTAGS_SCOPE_MAX) {
		err = -ENOSPC;
		goto out;
	}
	scope->n++;
	sbi->scope = scope;
	list_add_tail_rcu(&sbi->node, &scope->sbs);
out:
	mutex_unlock(&ptags_sbs_lock);
	return err;
}

void ptags_scope_leave(struct ptags_sb_info *sbi)
{
	struct ptags_scope *scope = sbi->scope;

	mutex_lock(&ptags_sbs_lock);
	list_del_rcu(&sbi->node);
	if (!--scope->n) {
		rhashtable_remove_fast(&ptags_scopes, &scope->node,
				       ptags_scope_params);
		kfree_rcu(scope, rcu);
	}
	mutex_unlock(&ptags_sbs_lock);
	synchronize_rcu();	/* ptags_watched() is done with @sbi */
}

/*
 * An open entry was polled: it counts in its mount's pollers from then on
 * (ptags_watched()), once per open file (@polled, bit 0).
 */
void ptags_poll_count(struct ptags_sb_info *sbi, unsigned long *polled)
{
	if (!test_and_set_bit(0, polled)) {
		atomic_inc(&sbi->pollers);
		/* Counted before the stamp is read: pairs with the writers. */
		smp_mb__after_atomic();
	}
}

/* The open entry is closed. */
void ptags_poll_uncount(struct ptags_sb_info *sbi, unsigned long *polled)
{
	if (test_bit(0, polled))
		atomic_dec(&sbi->pollers);
}

/* Nothing may touch @pi after the delivery: see ptags_exit_unwatch(). */
static void ptags_exit_work(struct work_struct *work)
{
	struct ptags_inode *pi = container_of(work, struct ptags_inode,
					      exit_work);

	fsnotify_inode(&pi->vfs, FS_DELETE_SELF);
}

/* The pid's wait_pidfd was woken (under its lock): did the process exit? */
static int ptags_exit_wake(struct wait_queue_entry *wait, unsigned int mode,
			   int sync, void *key)
{
	struct ptags_inode *pi = container_of(wait, struct ptags_inode,
					      exit_wait);
	struct task_struct *task;
	bool alive;

	rcu_read_lock();
	task = pid_task(pi->vfs.i_private, PIDTYPE_PID);
	alive = task && atomic_read(&task->signal->live);
	rcu_read_unlock();
	if (!alive && !test_and_set_bit(0, &pi->exited))
		queue_work(ptags_exit_wq, &pi->exit_work);
	return 0;
}

/* A new inode of process @pid learns of its exit from now on. */
void ptags_exit_watch(struct ptags_inode *pi, struct pid *pid)
{
	INIT_WORK(&pi->exit_work, ptags_exit_work);
	init_waitqueue_func_entry(&pi->exit_wait, ptags_exit_wake);
	add_wait_queue(&pid->wait_pidfd, &pi->exit_wait);
}

/* Did process of @pi exit before its inode was on the queue? */
void ptags_exit_check(struct ptags_inode *pi)
{
	ptags_exit_wake(&pi->exit_wait, 0, 0, NULL);
}

/* The inode of process @pid is evicted. */
void ptags_exit_unwatch(struct ptags_inode *pi, struct pid *pid)
{
	remove_wait_queue(&pid->wait_pidfd, &pi->exit_wait);
	/*
	 * Delivering IN_DELETE_SELF can drop the last reference itself (a
	 * one-shot watch is destroyed, and with it the inode's last user):
	 * then we run inside that work, which must not wait for itself.  It
	 * touches nothing after the delivery, and the inode is freed only
	 * after a grace period.
	 */
	if (current_work() != &pi->exit_work)
		cancel_work_sync(&pi->exit_work);
}

int ptags_exits_init(void)
{
	ptags_exit_wq = alloc_workqueue("ptags_exit", WQ_UNBOUND, 0);
	return ptags_exit_wq ? 0 : -ENOMEM;
}

void ptags_exits_uninit(void)
{
	destroy_workqueue(ptags_exit_wq);	/* exit works have returned */
}

/**
 * ptags_watched - might anyone see an event of a process now?
 * @pid: the process (its thread-group pid; NULL once it was unhashed)
 * @level: the level of the set that changed (SPEC §12)
 *
 * Cheap, and callable from the hooks (preemption disabled): true while a
 * mount that may show the process at @level (one of a pid namespace the
 * process is in) has an open entry that was polled, or fsnotify marks (an
 * inotify watch on its directory or on an entry).  The caller has published
 * the change and its stamp before; the full barrier here orders that before
 * the reads: a poller counted too late reads the new stamp itself
 * (ptags_poll_count()).
 */
bool ptags_watched(struct pid *pid, const struct user_namespace *level)
{
	struct ptags_sb_info *sbi;
	struct ptags_scope *scope;
	bool watched = false;
	unsigned int i, n;

	/* The change, then who watches it. */
	smp_mb();
	if (!pid)
		return false;	/* an exiting process nobody can name */
	rcu_read_lock();
	for (i = 0; i <= pid->level && !watched; i++) {
		scope = ptags_scope_find(level, pid->numbers[i].ns);
		if (!scope)
			continue;
		n = 0;
		list_for_each_entry_rcu(sbi, &scope->sbs, node) {
			/* Too many to look at here: the worker will. */
			watched = ++n > PTAGS_WATCH_SB_WALK ||
				  atomic_read(&sbi->pollers) ||
				  ptags_sb_watched(sbi->sb);
			if (watched)
				break;
		}
	}
	rcu_read_unlock();
	return watched;
}

/* Is the process of @pid, if it still exists, outside @level? */
static bool ptags_pid_outside(struct pid *pid,
			      const struct user_namespace *level)
{
	struct task_struct *task;
	bool outside;

	rcu_read_lock();
	task = pid_task(pid, PIDTYPE_PID);
	outside = task && !ptags_task_in_level(task, level);
	rcu_read_unlock();
	return outside;
}

/* Tell the watchers of @sbi's mount, where @pid is @nr, of @events. */
static void ptags_notify_sb(struct ptags_sb_info *sbi, struct pid *pid,
			    pid_t nr, unsigned int events)
{
	char buf[PTAGS_PID_NAME_MAX];
	struct inode *dir, *inode;
	bool shown, shown_modify;
	struct qstr name;

	/* An exit is the entry's IN_DELETE_SELF (ptags_exit_wake()). */
	inode = events & (PTAGS_EV_CREATE | PTAGS_EV_MODIFY) ?
		ilookup5(sbi->sb, (unsigned long)pid,
			 ptags_inode_test, pid) : NULL;
	if (inode)
		wake_up_interruptible_poll(&ptags_i(inode)->changes,
					   EPOLLPRI);
	shown = READ_ONCE(sbi->hidepid) != PTAGS_HIDEPID_INVISIBLE;
	dir = d_inode(sbi->sb->s_root);
	name.name = buf;
	name.len = snprintf(buf, sizeof(buf), "%d", nr);
	name.hash = 0;
	if (events & PTAGS_EV_CREATE) {
		if (shown)
			fsnotify_name(FS_CREATE, dir, FSNOTIFY_EVENT_INODE,
				      dir, &name, 0);
		if (inode)
			fsnotify_inode(inode, FS_MODIFY);
	}
	/* Untagged: the directory says IN_DELETE, not IN_MODIFY. */
	if (events & PTAGS_EV_DELETE)
		shown_modify = false;
	else
		shown_modify = shown;
	if ((events & PTAGS_EV_MODIFY) && shown_modify) {
		/*
		 * An event on a child: the directory's watchers get
		 * it with the name, the entry's (if it exists) without.
		 * Without an entry inode, the mount's anonymous one
		 * stands in: nobody can watch it.
		 */
		fsnotify(FS_MODIFY | FS_EVENT_ON_CHILD,
			 inode ? inode : sbi->anon, FSNOTIFY_EVENT_INODE,
			 dir, &name, inode ? inode : sbi->anon, 0);
	} else if ((events & PTAGS_EV_MODIFY) && inode) {
		fsnotify_inode(inode, FS_MODIFY);
	}
	if ((events & PTAGS_EV_DELETE) && shown)
		fsnotify_name(FS_DELETE, dir, FSNOTIFY_EVENT_INODE, dir,
			      &name, 0);
	iput(inode);
}

/**
 * ptags_notify - tell the watchers of every mount of a level about a change
 * @pid: the process (its thread-group pid)
 * @level: the level whose set changed (SPEC §12)
 * @events: PTAGS_EV_* that happened, in the order CREATE, MODIFY, DELETE
 *
 * Process context (the watch worker).  A mount with hidepid=invisible gets
 * no directory events: inotify cannot hide them from whom they concern.
 */
void ptags_notify(struct pid *pid, const struct user_namespace *level,
		  unsigned int events)
{
	struct ptags_scope *scope;
	struct ptags_sb_info *sbi;
	unsigned int i;
	pid_t nr;

	/* A process that left the level is not seen there (SPEC §12). */
	if (!pid || (level != &init_user_ns && ptags_pid_outside(pid, level)))
		return;
	mutex_lock(&ptags_sbs_lock);
	for (i = 0; i <= pid->level; i++) {
		rcu_read_lock();
		scope = ptags_scope_find(level, pid->numbers[i].ns);
		rcu_read_unlock();
		if (!scope)
			continue;
		nr = pid->numbers[i].nr;
		list_for_each_entry(sbi, &scope->sbs, node) {
			cond_resched();
			if (!atomic_read(&sbi->pollers) &&
			    !ptags_sb_watched(sbi->sb))
				continue;	/* nobody to tell here */
			ptags_notify_sb(sbi, pid, nr, events);
		}
	}
	mutex_unlock(&ptags_sbs_lock);
}
