// SPDX-License-Identifier: GPL-2.0
/*
 * Which process holds which tag set.
 *
 * A tagged process has one entry per level (SPEC §12: a user namespace) at
 * which it is tagged, in an RCU hash table keyed by its signal_struct, which
 * all its threads share and which lives until the process is reaped; the
 * entries are removed at group death, long before that, so a key is never
 * reused while its entries are in the table.  The bucket is chosen by the
 * signal_struct alone, so all of a process's entries are in one chain: the
 * hooks walk one chain, and an untagged process costs one failed walk.  An
 * entry of a level other than the initial one holds a reference on the
 * level's user namespace, so that its key cannot be reused either.
 *
 * The entry points to an immutable, reference-counted set.  Readers take a
 * reference under rcu_read_lock().  Every change of the pointer (a write,
 * an exec) happens under the entry's lock and only if the pointer still
 * holds the set the change was computed from.
 *
 * The hooks run with preemption disabled, where a PREEMPT_RT kernel allows
 * neither sleeping locks, nor disabling softirqs, nor the slab allocator.
 * So the table has a fixed number of buckets, each with a bit spinlock
 * (hlist_bl), the entry lock is a raw spinlock, and the fork hook takes its
 * entries from a per-CPU reserve that a work item refills.  A fixed table
 * never moves entries, so a walk sees every entry that stays in it.
 *
 * Listings (SPEC §3.2) must not cost what the table's size does: every
 * entry is also on one of a few shard lists, chosen by its key, which a
 * listing (listing.c) walks instead of the buckets.  A child that cannot
 * have its entries is killed (kill.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/kobject.h>
#include <linux/llist.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/pid.h>
#include <linux/rculist_bl.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/user_namespace.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "fs/notify.h"
#include "shim.h"
#include "stats.h"
#include "table/internal.h"
#define CREATE_TRACE_POINTS
#include "ptags_trace.h"

/*
 * 0 at load: the largest power of two not above the number of processes
 * the machine can hold, as the kernel computes threads-max (memory /
 * (8 * THREAD_SIZE)), so at most two per bucket even then; pid_max itself
 * is not visible to modules.  Read back as the value chosen.
 */
static unsigned int ptags_table_bits;
module_param_named(table_bits, ptags_table_bits, uint, 0444);
MODULE_PARM_DESC(table_bits, "log2 of the process table's buckets (default 0: sized from memory)");

#define PTAGS_TABLE_BITS_MIN	10
#define PTAGS_TABLE_BITS_MAX	22	/* PID_MAX_LIMIT: 4M processes */

static unsigned int ptags_table_bits_auto(void)
{
	u64 threads = div64_u64((u64)totalram_pages() << PAGE_SHIFT,
				(u64)THREAD_SIZE * 8);

	return clamp_t(unsigned int, threads > 1 ? ilog2(threads) : 0,
		       PTAGS_TABLE_BITS_MIN, PTAGS_TABLE_BITS_MAX);
}

static struct hlist_bl_head *ptags_table;
static struct kmem_cache *ptags_proc_cache;

struct ptags_shard ptags_shards[1U << PTAGS_SHARD_BITS];

static struct ptags_shard *ptags_shard(const struct signal_struct *sig)
{
	return &ptags_shards[hash_ptr(sig, PTAGS_SHARD_BITS)];
}

/*
 * Entries for the fork hook.  A pool is refilled when half empty; with a
 * tagged fork consuming one entry and the refill running as soon as a
 * worker gets the CPU, running dry takes dozens of tagged forks on one CPU
 * before any worker runs (SPEC §9: the child is then killed).
 */
#define PTAGS_POOL_SIZE	64

struct ptags_pool {
	raw_spinlock_t lock;
	unsigned int n;
	struct ptags_proc *obj[PTAGS_POOL_SIZE];
};

static DEFINE_PER_CPU(struct ptags_pool, ptags_pools);
static struct work_struct ptags_refill_work;

static void ptags_refill(struct work_struct *work)
{
	struct ptags_proc *obj;
	struct ptags_pool *pool;
	unsigned int cpu;
	bool full;

	for_each_possible_cpu(cpu) {
		pool = per_cpu_ptr(&ptags_pools, cpu);
		for (;;) {
			obj = kmem_cache_alloc(ptags_proc_cache, GFP_KERNEL);
			if (!obj)
				return;
			raw_spin_lock(&pool->lock);
			full = pool->n == PTAGS_POOL_SIZE;
			if (!full)
				pool->obj[pool->n++] = obj;
			raw_spin_unlock(&pool->lock);
			if (full) {
				kmem_cache_free(ptags_proc_cache, obj);
				break;
			}
		}
	}
}

/* An entry from this CPU's pool, with preemption disabled (the hooks). */
static struct ptags_proc *ptags_proc_take(void)
{
	struct ptags_pool *pool = this_cpu_ptr(&ptags_pools);
	struct ptags_proc *obj = NULL;
	bool low;

	raw_spin_lock(&pool->lock);
	if (pool->n)
		obj = pool->obj[--pool->n];
	low = pool->n < PTAGS_POOL_SIZE / 2;
	raw_spin_unlock(&pool->lock);
	if (low)
		queue_work(system_unbound_wq, &ptags_refill_work);
	if (!obj && !IS_ENABLED(CONFIG_PREEMPT_RT))
		obj = kmem_cache_alloc(ptags_proc_cache,
				       GFP_ATOMIC | __GFP_NOWARN);
	return obj;
}

/*
 * SPEC §3.5: a set's stamp tells a reader whether it changed since it last
 * read (POLLPRI).  Stamps never repeat; 0 is an untagged process.  An entry
 * made by fork takes 1: a process is made by fork only once.
 */
static atomic64_t ptags_stamps = ATOMIC64_INIT(1);

static u64 ptags_stamp_next(void)
{
	return atomic64_inc_return(&ptags_stamps);
}

static struct hlist_bl_head *ptags_bucket(const struct signal_struct *sig)
{
	return &ptags_table[hash_ptr(sig, ptags_table_bits)];
}

/* The live entry of @sig at @level, under rcu_read_lock(). */
static struct ptags_proc *ptags_proc_lookup(const struct signal_struct *sig,
					    const struct user_namespace *level)
{
	struct hlist_bl_node *pos;
	struct ptags_proc *proc;

	hlist_bl_for_each_entry_rcu(proc, pos, ptags_bucket(sig), node)
		if (proc->key == sig && proc->level == level &&
		    !ptags_proc_dead(proc))
			return proc;
	return NULL;
}

/* Does bucket @b, whose lock the caller holds, link an entry of @key? */
static bool ptags_bucket_has(struct hlist_bl_head *b,
			     const struct signal_struct *key)
{
	struct hlist_bl_node *pos;
	struct ptags_proc *other;

	hlist_bl_for_each_entry(other, pos, b, node)
		if (other->key == key)
			return true;
	return false;
}

/* Put @proc on its shard list or take it off; under its bucket's lock. */
static void ptags_shard_link(struct ptags_proc *proc)
{
	struct ptags_shard *sh = ptags_shard(proc->key);

	raw_spin_lock(&sh->lock);
	hlist_add_head_rcu(&proc->lnode, &sh->head);
	raw_spin_unlock(&sh->lock);
}

static void ptags_shard_unlink(struct ptags_proc *proc)
{
	struct ptags_shard *sh = ptags_shard(proc->key);

	raw_spin_lock(&sh->lock);
	hlist_del_rcu(&proc->lnode);
	raw_spin_unlock(&sh->lock);
}

/*
 * Link @proc unless its process already has a live entry at its level
 * (-EEXIST).  A process counts as tagged from its first linked entry to the
 * unlinking of its last (ptags_proc_delete()).
 */
static int ptags_proc_insert(struct ptags_proc *proc)
{
	struct hlist_bl_head *b = ptags_bucket(proc->key);
	struct hlist_bl_node *pos;
	struct ptags_proc *other;
	bool first = true;
	int err = 0;

	hlist_bl_lock(b);
	hlist_bl_for_each_entry(other, pos, b, node) {
		if (other->key != proc->key)
			continue;
		first = false;
		if (ptags_proc_dead(other))
			continue;
		if (other->level == proc->level) {
			err = -EEXIST;
			break;
		}
	}
	if (!err) {
		hlist_bl_add_head_rcu(&proc->node, b);
		ptags_shard_link(proc);
	}
	hlist_bl_unlock(b);
	if (err)
		return err;
	ptags_count(&ptags_stats.memory, sizeof(*proc));
	if (first)
		ptags_count(&ptags_stats.tagged_processes, 1);
	return 0;
}

static void ptags_proc_delete(struct ptags_proc *proc)
{
	struct hlist_bl_head *b = ptags_bucket(proc->key);
	bool last;

	hlist_bl_lock(b);
	hlist_bl_del_rcu(&proc->node);
	ptags_shard_unlink(proc);
	last = !ptags_bucket_has(b, proc->key);
	hlist_bl_unlock(b);
	if (last)
		ptags_count(&ptags_stats.tagged_processes, -1);
}

/* Fill a new entry for @task's process at @level, holding @set. */
static struct ptags_proc *ptags_proc_init(struct ptags_proc *proc,
					  struct task_struct *task,
					  struct user_namespace *level,
					  struct pt_set *set, u64 stamp)
{
	proc->key = task->signal;
	proc->tgid = get_pid(task_tgid(task));
	raw_spin_lock_init(&proc->lock);
	RCU_INIT_POINTER(proc->set, set);
	atomic_set(&proc->watch, 0);
	proc->stamp = stamp;
	/* The initial namespace never goes: no shared counter to bounce. */
	proc->level = level == &init_user_ns ? level : get_user_ns(level);
	return proc;
}

/* Frees an entry that was never linked, or no longer is. */
static void ptags_proc_discard(struct ptags_proc *proc)
{
	put_pid(proc->tgid);
	if (proc->level != &init_user_ns)
		put_user_ns(proc->level);
	kmem_cache_free(ptags_proc_cache, proc);
}

static void ptags_proc_discard_rcu(struct rcu_head *head)
{
	ptags_proc_discard(container_of(head, struct ptags_proc, rcu));
}

/* Frees an entry that was linked (and counted), after a grace period. */
static void ptags_proc_free_rcu(struct rcu_head *head)
{
	ptags_proc_discard(container_of(head, struct ptags_proc, rcu));
	ptags_count(&ptags_stats.memory, -(long)sizeof(struct ptags_proc));
}

/*
 * SPEC §3.5: an entry's changes wait in its watch word for the worker,
 * which the entry joins at most once at a time: events coalesce, nothing is
 * allocated for them.  An entry freed while queued is freed by the worker.
 */
#define PTAGS_W_EVENTS	(PTAGS_EV_CREATE | PTAGS_EV_MODIFY | PTAGS_EV_DELETE)
#define PTAGS_W_QUEUED	0x100u
#define PTAGS_W_FREE	0x200u

static LLIST_HEAD(ptags_watch_queue);

static void ptags_watch_run(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&ptags_watch_queue);
	struct ptags_proc *proc, *next;
	struct user_namespace *level;
	unsigned int w;
	struct pid *pid;

	/* In the order the entries were queued: one process's never swap. */
	llist_for_each_entry_safe(proc, next, llist_reverse_order(list), wnode) {
		/*
		 * Once QUEUED is clear the entry may be freed (here, or by
		 * ptags_proc_release() on another CPU), and its level's
		 * reference with it: take what the notification needs first.
		 */
		pid = get_pid(proc->tgid);
		level = proc->level;
		if (level != &init_user_ns)
			get_user_ns(level);
		w = atomic_fetch_andnot(PTAGS_W_EVENTS | PTAGS_W_QUEUED,
					&proc->watch);
		if (w & PTAGS_W_FREE)
			call_rcu(&proc->rcu, ptags_proc_free_rcu);
		ptags_notify(pid, level, w & PTAGS_W_EVENTS);
		put_pid(pid);
		if (level != &init_user_ns)
			put_user_ns(level);
		cond_resched();
	}
}

static DECLARE_WORK(ptags_watch_work, ptags_watch_run);

/*
 * Record @ev for the watchers, if any may be; under @proc's lock, live.  The
 * change is published: ptags_watched() orders it before what it reads.
 */
static void ptags_proc_event(struct ptags_proc *proc, unsigned int ev)
{
	if (!ptags_watched(proc->tgid, proc->level))
		return;
	if (atomic_fetch_or(ev | PTAGS_W_QUEUED, &proc->watch) & PTAGS_W_QUEUED)
		return;
	llist_add(&proc->wnode, &ptags_watch_queue);
	ptags_count(&ptags_stats.watch_queued, 1);
	queue_work(system_unbound_wq, &ptags_watch_work);
}

/* Free an unlinked entry after a grace period, or once the worker is done. */
static void ptags_proc_release(struct ptags_proc *proc)
{
	if (atomic_fetch_or(PTAGS_W_FREE, &proc->watch) & PTAGS_W_QUEUED)
		return;
	call_rcu(&proc->rcu, ptags_proc_free_rcu);
}

/*
 * Replace the set @cur of @proc, whose lock the caller holds, by @next,
 * which comes with its own reference; drops the lock.  With @next NULL the
 * process is untagged: the entry is unlinked and freed after a grace period.
 * @ev is what the watchers are told.
 */
static void ptags_proc_publish(struct ptags_proc *proc, struct pt_set *cur,
			       struct pt_set *next, unsigned int ev)
	__releases(&proc->lock)
{
	if (next) {
		rcu_assign_pointer(proc->set, next);
		/* After the set: a reader that sees this stamp sees the set. */
		smp_store_release(&proc->stamp, ptags_stamp_next());
		ptags_proc_event(proc, ev);
		raw_spin_unlock(&proc->lock);
		pt_set_put(cur);
		return;
	}
	RCU_INIT_POINTER(proc->set, NULL);
	trace_ptags_release(pid_nr(proc->tgid), proc->level->level, cur->count);
	ptags_proc_event(proc, ev);
	raw_spin_unlock(&proc->lock);
	ptags_proc_delete(proc);
	pt_set_put(cur);
	ptags_proc_release(proc);
}

/*
 * A new entry was linked: IN_CREATE, unless it is already gone again.  Under
 * rcu_read_lock() (or with preemption disabled) since before it was linked;
 * ptags_watched() orders the link before what it reads.
 */
static void ptags_proc_created(struct ptags_proc *proc)
{
	if (!ptags_watched(proc->tgid, proc->level))
		return;
	raw_spin_lock(&proc->lock);
	if (!ptags_proc_dead(proc))
		ptags_proc_event(proc, PTAGS_EV_CREATE);
	raw_spin_unlock(&proc->lock);
}

/* Remove @proc, an entry found under rcu_read_lock(), unless it is dead. */
static void ptags_proc_remove(struct ptags_proc *proc)
{
	struct pt_set *cur;

	raw_spin_lock(&proc->lock);
	cur = rcu_dereference_protected(proc->set,
					lockdep_is_held(&proc->lock));
	if (!cur)
		raw_spin_unlock(&proc->lock);
	else
		ptags_proc_publish(proc, cur, NULL, PTAGS_EV_DELETE);
}

/* Remove every entry of the process with signal_struct @sig, if any. */
static void ptags_sig_remove(const struct signal_struct *sig)
{
	struct hlist_bl_node *pos;
	struct ptags_proc *proc;

	rcu_read_lock();
	hlist_bl_for_each_entry_rcu(proc, pos, ptags_bucket(sig), node)
		if (proc->key == sig)
			ptags_proc_remove(proc);
	rcu_read_unlock();
}

/*
 * A reference on the set of @proc, an entry found under rcu_read_lock(), or
 * NULL if it is dead; and, if @stamp is not NULL, a stamp no newer than the
 * set (0: untagged).
 */
static struct pt_set *ptags_proc_set(struct ptags_proc *proc, u64 *stamp)
{
	struct pt_set *set;

	for (;;) {
		if (stamp) {
			/* Pairs with ptags_proc_publish(): stamp, then set. */
			*stamp = proc ? smp_load_acquire(&proc->stamp) : 0;
		}
		set = proc ? rcu_dereference(proc->set) : NULL;
		/*
		 * A published set holds the entry's reference; if it just
		 * dropped to zero, the pointer has already moved on.
		 */
		if (!set || ptags_set_tryget(set))
			break;
		cpu_relax();
	}
	if (!set && stamp)
		*stamp = 0;
	return set;
}

/**
 * ptags_task_set_stamp - the current tag set of @task's process at @level
 * @task: any thread of the process
 * @level: the level (SPEC §12), &init_user_ns for the tags of §1-§11
 * @stamp: if not NULL, receives a value that changes whenever the set does,
 *	no newer than the set returned (0: untagged; SPEC §3.5)
 *
 * Returns a reference the caller puts with pt_set_put(), or NULL when the
 * process is untagged there.  Whether @task may be seen at @level at all is
 * the caller's question (ptags_task_in_level()).
 */
struct pt_set *ptags_task_set_stamp(struct task_struct *task,
				    const struct user_namespace *level,
				    u64 *stamp)
{
	struct ptags_proc *proc;
	struct pt_set *set;

	rcu_read_lock();
	proc = ptags_proc_lookup(task->signal, level);
	set = ptags_proc_set(proc, stamp);
	rcu_read_unlock();
	return set;
}

/*
 * Has @task's process not run yet (its fork not complete)?  Only a leader
 * can be that new: a second thread was made by a process that already ran.
 * Never look at task->group_leader here: without a reference it may be
 * freed under us (de_thread(), a reap).
 */
static bool ptags_process_is_new(struct task_struct *task)
{
	return thread_group_leader(task) && ptags_task_is_new(task);
}

/**
 * ptags_task_replace - publish a new tag set for @task's process at @level
 * @task: any thread of the process; the caller holds a reference on it
 * @level: the level (SPEC §12), &init_user_ns for the tags of §1-§11
 * @old: the set @new was computed from (NULL: the process was untagged)
 * @new: the new set (NULL: empty); always consumed
 *
 * Return: 0 on success; -EAGAIN if the process's set is no longer @old (the
 * caller recomputes); -ESRCH if the process has exited or is not yet fully
 * created; -ECANCELED if @level's depth is max_levels or more (SPEC §12);
 * -ENOMEM.
 */
int ptags_task_replace(struct task_struct *task, struct user_namespace *level,
		       const struct pt_set *old, struct pt_set *new)
{
	struct signal_struct *sig = task->signal;
	struct ptags_proc *proc;
	struct pt_set *cur;
	int err;

	rcu_read_lock();
	proc = ptags_proc_lookup(sig, level);
	if (proc) {
		raw_spin_lock(&proc->lock);
		cur = rcu_dereference_protected(proc->set,
						lockdep_is_held(&proc->lock));
		if (!cur || cur != old) {
			raw_spin_unlock(&proc->lock);
			rcu_read_unlock();
			pt_set_put(new);
			return -EAGAIN;
		}
		ptags_proc_publish(proc, cur, new, new ? PTAGS_EV_MODIFY :
				   PTAGS_EV_MODIFY | PTAGS_EV_DELETE);
		rcu_read_unlock();
		return 0;
	}
	rcu_read_unlock();

	if (old) {
		pt_set_put(new);
		return -EAGAIN;
	}
	if (!new)
		return 0;

	/*
	 * SPEC §12: max_levels bounds the levels a process carries as a depth,
	 * which depends on @level alone: a process's sets are all on its own
	 * chain of user namespaces, one per depth, so it carries at most
	 * max_levels of them, and no set at another level decides whether
	 * this one may start (docs/SECURITY.md, section 3, [r3 #4]).
	 */
	if (level->level >= (READ_ONCE(ptags_max_levels) ?: 1)) {
		pt_set_put(new);
		return -ECANCELED;
	}

	/*
	 * A process that its parent's fork hook has not seen yet would get an
	 * entry the hook then cannot insert: it does not exist for us yet.
	 */
	if (ptags_process_is_new(task) || !atomic_read(&sig->live)) {
		pt_set_put(new);
		return -ESRCH;
	}
	proc = kmem_cache_alloc(ptags_proc_cache, GFP_KERNEL_ACCOUNT);
	if (!proc) {
		pt_set_put(new);
		return -ENOMEM;
	}
	/* Once linked, an exit may free it: look at it under RCU only. */
	rcu_read_lock();
	ptags_proc_init(proc, task, level, new, ptags_stamp_next());
	err = ptags_proc_insert(proc);
	if (!err)
		ptags_proc_created(proc);
	rcu_read_unlock();
	if (err) {
		ptags_proc_discard(proc);
		pt_set_put(new);
		/* -EEXIST: someone else tagged it first. */
		return err == -EEXIST ? -EAGAIN : err;
	}

	/*
	 * The exit hook decrements signal->live (a full barrier) and then
	 * looks us up; we inserted and then read signal->live.  One of the two
	 * sees the other, so an exiting process never keeps an entry.
	 */
	smp_mb();
	if (!atomic_read(&sig->live)) {
		ptags_sig_remove(sig);
		return -ESRCH;
	}
	return 0;
}

/*
 * The child's entry at @level, sharing @set (whose reference it takes), in
 * the fork hook: 0 or -ENOMEM.
 */
static int ptags_fork_level(struct task_struct *child,
			    struct user_namespace *level, struct pt_set *set)
{
	struct ptags_proc *proc = ptags_proc_take();

	if (!proc)
		return -ENOMEM;
	/* -EEXIST cannot happen for a new process; free it anyway. */
	if (ptags_proc_insert(ptags_proc_init(proc, child, level, set, 1))) {
		call_rcu(&proc->rcu, ptags_proc_discard_rcu);
		return -EEXIST;
	}
	ptags_proc_created(proc);
	return 0;
}

/**
 * ptags_task_fork - the child shares its creator's sets (SPEC §9, §12)
 * @parent: the creating task (current)
 * @child: the new task, not yet running
 *
 * Runs with preemption disabled.  If an entry cannot be had (the per-CPU
 * reserve ran dry and, but on PREEMPT_RT, an atomic allocation failed), the
 * child is killed before it reaches user mode: it must never run without
 * the tags it should have inherited.
 */
void ptags_task_fork(struct task_struct *parent, struct task_struct *child)
{
	const struct signal_struct *sig = parent->signal;
	struct hlist_bl_node *pos;
	struct ptags_proc *proc;
	bool inherited = false;
	struct pt_set *set;
	int err = 0;

	if (child->signal == sig)
		return;		/* a new thread shares its process's sets */
	rcu_read_lock();
	/* The child's entries go to another chain (or to this one's head). */
	hlist_bl_for_each_entry_rcu(proc, pos, ptags_bucket(sig), node) {
		if (proc->key != sig)
			continue;
		set = ptags_proc_set(proc, NULL);
		if (!set)
			continue;
		err = ptags_fork_level(child, proc->level, set);
		if (err) {
			pt_set_put(set);
			break;
		}
		trace_ptags_inherit(task_tgid_nr(parent), task_pid_nr(child),
				    proc->level->level, set->count);
		inherited = true;
	}
	rcu_read_unlock();
	if (err) {
		/* Entries it did get go when it exits, killed. */
		ptags_kill_new(child);
		ptags_count(&ptags_stats.killed, 1);
		pr_warn_ratelimited("killed new process %d: cannot inherit tags (%d)\n",
				    task_pid_nr(child), err);
		return;
	}
	if (!inherited)
		return;
	ptags_count(&ptags_stats.inherited, 1);
	/* Published before wake_up_new_task() makes the child "not new". */
	smp_wmb();
}

/* Prune @proc's set for an exec; true if it changed. */
static bool ptags_proc_exec(struct ptags_proc *proc)
{
	struct pt_set *cur, *next;

	raw_spin_lock(&proc->lock);
	cur = rcu_dereference_protected(proc->set,
					lockdep_is_held(&proc->lock));
	next = cur ? pt_set_exec(cur) : cur;
	if (next == cur) {
		raw_spin_unlock(&proc->lock);
		return false;
	}
	trace_ptags_prune(pid_nr(proc->tgid), proc->level->level, cur->count,
			  next ? next->count : 0);
	ptags_proc_publish(proc, cur, next ? pt_set_get(next) : NULL,
			   next ? PTAGS_EV_MODIFY :
			   PTAGS_EV_MODIFY | PTAGS_EV_DELETE);
	return true;
}

/**
 * ptags_task_exec - prune unkept tags after a successful exec (SPEC §9, §12)
 * @task: current, past the point of no return
 *
 * At every level.  The pruned sets were built together with the sets, so
 * this never allocates and cannot fail.
 */
void ptags_task_exec(struct task_struct *task)
{
	const struct signal_struct *sig = task->signal;
	struct hlist_bl_node *pos;
	struct ptags_proc *proc;
	bool pruned = false;

	rcu_read_lock();
	hlist_bl_for_each_entry_rcu(proc, pos, ptags_bucket(sig), node)
		if (proc->key == sig && ptags_proc_exec(proc))
			pruned = true;
	rcu_read_unlock();
	if (pruned)
		ptags_count(&ptags_stats.pruned, 1);
}

/**
 * ptags_task_exit - release the sets when the last thread exits (SPEC §9)
 * @task: the exiting thread (current)
 */
void ptags_task_exit(struct task_struct *task)
{
	if (atomic_read(&task->signal->live))
		return;		/* other threads still run */
	ptags_sig_remove(task->signal);
}

/*
 * stats/longest_chain: the entries on the fullest bucket's chain, counted
 * now (the worst case of every lookup; issue 24).  It walks every bucket,
 * so the file is root's only; bounded by the table and the processes.
 */
static ssize_t longest_chain_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct hlist_bl_node *pos;
	struct ptags_proc *proc;
	unsigned long n, most = 0;
	unsigned int i;

	for (i = 0; i < 1U << ptags_table_bits; i++) {
		n = 0;
		rcu_read_lock();
		hlist_bl_for_each_entry_rcu(proc, pos, &ptags_table[i], node)
			n++;
		rcu_read_unlock();
		most = max(most, n);
		if (!(i & 1023))
			cond_resched();
	}
	return sysfs_emit(buf, "%lu\n", most);
}

static struct kobj_attribute ptags_attr_longest_chain =
	__ATTR(longest_chain, 0400, longest_chain_show, NULL);

int ptags_table_init(void)
{
	struct ptags_pool *pool;
	unsigned int cpu, i;
	int err;

	if (!ptags_table_bits)
		ptags_table_bits = ptags_table_bits_auto();
	if (ptags_table_bits < 4 || ptags_table_bits > PTAGS_TABLE_BITS_MAX) {
		pr_err("table_bits must be 4 to %d\n", PTAGS_TABLE_BITS_MAX);
		return -EINVAL;
	}
	ptags_proc_cache = KMEM_CACHE(ptags_proc, 0);
	if (!ptags_proc_cache)
		return -ENOMEM;
	ptags_table = kvmalloc_array(1U << ptags_table_bits,
				     sizeof(*ptags_table), GFP_KERNEL);
	if (!ptags_table) {
		kmem_cache_destroy(ptags_proc_cache);
		return -ENOMEM;
	}
	for (i = 0; i < 1U << ptags_table_bits; i++)
		INIT_HLIST_BL_HEAD(&ptags_table[i]);
	for (i = 0; i < ARRAY_SIZE(ptags_shards); i++) {
		raw_spin_lock_init(&ptags_shards[i].lock);
		INIT_HLIST_HEAD(&ptags_shards[i].head);
	}
	for_each_possible_cpu(cpu) {
		pool = per_cpu_ptr(&ptags_pools, cpu);
		raw_spin_lock_init(&pool->lock);
		pool->n = 0;
	}
	INIT_WORK(&ptags_refill_work, ptags_refill);
	ptags_refill(&ptags_refill_work);
	err = ptags_stats_add(&ptags_attr_longest_chain.attr);
	if (err)
		ptags_table_uninit();	/* which finds the table empty */
	return err;
}

/*
 * Module removal: the hooks are gone and no file is open, so nothing else
 * touches the table.  Every set is released (SPEC §9).
 */
void ptags_table_uninit(void)
{
	struct hlist_bl_node *pos, *next;
	struct ptags_proc *proc;
	struct ptags_pool *pool;
	unsigned int cpu, i;

	ptags_stats_remove(&ptags_attr_longest_chain.attr);
	cancel_work_sync(&ptags_refill_work);
	/* No file system is left, so the worker only frees what it holds. */
	flush_work(&ptags_watch_work);
	ptags_kill_drain();
	for (i = 0; i < 1U << ptags_table_bits; i++) {
		hlist_bl_for_each_entry_safe(proc, pos, next, &ptags_table[i],
					     node) {
			pt_set_put(rcu_dereference_protected(proc->set, 1));
			hlist_bl_del(&proc->node);
			hlist_del(&proc->lnode);
			if (!ptags_bucket_has(&ptags_table[i], proc->key))
				ptags_count(&ptags_stats.tagged_processes, -1);
			ptags_count(&ptags_stats.memory, -(long)sizeof(*proc));
			ptags_proc_discard(proc);
		}
	}
	for_each_possible_cpu(cpu) {
		pool = per_cpu_ptr(&ptags_pools, cpu);
		while (pool->n)
			kmem_cache_free(ptags_proc_cache, pool->obj[--pool->n]);
	}
	/* Entries unlinked earlier are still waiting for their grace period. */
	rcu_barrier();
	kvfree(ptags_table);
	kmem_cache_destroy(ptags_proc_cache);
}
