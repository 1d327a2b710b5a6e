// SPDX-License-Identifier: GPL-2.0
/*
 * Which process holds which tag set.
 *
 * A tagged process has one entry in an RCU hashtable keyed by its
 * signal_struct, which all its threads share and which lives until the
 * process is reaped; the entry is removed at group death, long before that,
 * so a key is never reused while its entry is in the table.  An untagged
 * process has no entry: the hooks cost it one failed lookup.
 *
 * The entry points to an immutable, reference-counted set.  Readers take a
 * reference under rcu_read_lock().  Every change of the pointer (a write,
 * an exec) happens under the entry's spinlock and only if the pointer still
 * holds the set the change was computed from.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mempool.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "compat.h"
#include "ptags.h"

struct ptags_proc {
	struct rhash_head node;
	const struct signal_struct *key;	/* never dereferenced */
	struct pid *tgid;			/* for listings */
	spinlock_t lock;
	struct pt_set __rcu *set;		/* NULL once dead */
	bool dead;				/* unlinked or being unlinked */
	struct rcu_head rcu;
};

static const struct rhashtable_params ptags_params = {
	.key_len = sizeof(const struct signal_struct *),
	.key_offset = offsetof(struct ptags_proc, key),
	.head_offset = offsetof(struct ptags_proc, node),
	.automatic_shrinking = true,
};

/*
 * Entries are allocated on the fork path with preemption disabled; a small
 * reserve makes the fail-closed kill (SPEC §9) a last resort.
 */
#define PTAGS_PROC_RESERVE 32

static struct rhashtable ptags_table;
static struct kmem_cache *ptags_proc_cache;
static mempool_t *ptags_proc_pool;

static struct ptags_proc *ptags_proc_lookup(const struct signal_struct *sig)
{
	return rhashtable_lookup(&ptags_table, &sig, ptags_params);
}

static struct ptags_proc *ptags_proc_new(struct task_struct *task,
					 struct pt_set *set, gfp_t gfp)
{
	struct ptags_proc *proc = mempool_alloc(ptags_proc_pool, gfp);

	if (!proc)
		return NULL;
	ptags_count(&ptags_stats.memory, sizeof(*proc));
	proc->key = task->signal;
	proc->tgid = get_pid(task_tgid(task));
	spin_lock_init(&proc->lock);
	RCU_INIT_POINTER(proc->set, set);
	proc->dead = false;
	return proc;
}

/* Frees an entry that is not (or no longer) visible to anyone. */
static void ptags_proc_discard(struct ptags_proc *proc)
{
	put_pid(proc->tgid);
	mempool_free(proc, ptags_proc_pool);
	ptags_count(&ptags_stats.memory, -(long)sizeof(*proc));
}

static void ptags_proc_free_rcu(struct rcu_head *head)
{
	struct ptags_proc *proc = container_of(head, struct ptags_proc, rcu);

	ptags_proc_discard(proc);
}

/*
 * Unlink @proc, whose lock the caller holds and has just marked dead after
 * taking its set out; drops the lock.  Frees the entry after a grace period.
 */
static void ptags_proc_unlink(struct ptags_proc *proc, struct pt_set *set)
	__releases(&proc->lock)
{
	spin_unlock(&proc->lock);
	rhashtable_remove_fast(&ptags_table, &proc->node, ptags_params);
	pt_set_put(set);
	call_rcu(&proc->rcu, ptags_proc_free_rcu);
	ptags_count(&ptags_stats.tagged_processes, -1);
}

/* Remove the entry of the process with signal_struct @sig, if any. */
static void ptags_proc_remove(const struct signal_struct *sig)
{
	struct ptags_proc *proc;
	struct pt_set *set;

	rcu_read_lock();
	proc = ptags_proc_lookup(sig);
	if (proc) {
		spin_lock(&proc->lock);
		if (proc->dead) {
			spin_unlock(&proc->lock);
		} else {
			WRITE_ONCE(proc->dead, true);
			set = rcu_dereference_protected(proc->set,
							lockdep_is_held(&proc->lock));
			RCU_INIT_POINTER(proc->set, NULL);
			ptags_proc_unlink(proc, set);
		}
	}
	rcu_read_unlock();
}

/* A reference on the set of the process with signal_struct @sig, or NULL. */
static struct pt_set *ptags_sig_set(const struct signal_struct *sig)
{
	struct ptags_proc *proc;
	struct pt_set *set;

	rcu_read_lock();
	proc = ptags_proc_lookup(sig);
	for (;;) {
		set = proc ? rcu_dereference(proc->set) : NULL;
		/*
		 * A published set holds the entry's reference; if it just
		 * dropped to zero, the pointer has already moved on.
		 */
		if (!set || ptags_set_tryget(set))
			break;
	}
	rcu_read_unlock();
	return set;
}

/**
 * ptags_task_set - the current tag set of @task's process
 * @task: any thread of the process
 *
 * Returns a reference the caller puts with pt_set_put(), or NULL when the
 * process is untagged.
 */
struct pt_set *ptags_task_set(struct task_struct *task)
{
	return ptags_sig_set(task->signal);
}

/**
 * ptags_task_replace - publish a new tag set for @task's process
 * @task: any thread of the process; the caller holds a reference on it
 * @old: the set @new was computed from (NULL: the process was untagged)
 * @new: the new set (NULL: empty); always consumed
 *
 * Return: 0 on success; -EAGAIN if the process's set is no longer @old (the
 * caller recomputes); -ESRCH if the process has exited or is not yet fully
 * created; -ENOMEM.
 */
int ptags_task_replace(struct task_struct *task, const struct pt_set *old,
		       struct pt_set *new)
{
	struct signal_struct *sig = task->signal;
	struct ptags_proc *proc;
	struct pt_set *cur;
	int err;

	rcu_read_lock();
	proc = ptags_proc_lookup(sig);
	if (proc) {
		spin_lock(&proc->lock);
		cur = rcu_dereference_protected(proc->set,
						lockdep_is_held(&proc->lock));
		if (proc->dead || cur != old) {
			spin_unlock(&proc->lock);
			rcu_read_unlock();
			pt_set_put(new);
			return -EAGAIN;
		}
		if (new) {
			rcu_assign_pointer(proc->set, new);
			spin_unlock(&proc->lock);
			pt_set_put(cur);
		} else {
			WRITE_ONCE(proc->dead, true);
			RCU_INIT_POINTER(proc->set, NULL);
			ptags_proc_unlink(proc, cur);
		}
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
	 * A process that its parent's fork hook has not seen yet would get an
	 * entry the hook then cannot insert: it does not exist for us yet.
	 */
	if (ptags_task_is_new(task->group_leader) || !atomic_read(&sig->live)) {
		pt_set_put(new);
		return -ESRCH;
	}
	proc = ptags_proc_new(task, new, GFP_KERNEL);
	if (!proc) {
		pt_set_put(new);
		return -ENOMEM;
	}
	err = rhashtable_lookup_insert_fast(&ptags_table, &proc->node,
					    ptags_params);
	if (err) {
		ptags_proc_discard(proc);
		pt_set_put(new);
		return err == -EEXIST ? -EAGAIN : err;
	}
	ptags_count(&ptags_stats.tagged_processes, 1);

	/*
	 * The exit hook decrements signal->live (a full barrier) and then
	 * looks us up; we inserted and then read signal->live.  One of the two
	 * sees the other, so an exiting process never keeps an entry.
	 */
	smp_mb();
	if (!atomic_read(&sig->live)) {
		ptags_proc_remove(sig);
		return -ESRCH;
	}
	return 0;
}

/**
 * ptags_task_fork - the child shares its creator's set (SPEC §9)
 * @parent: the creating task (current)
 * @child: the new task, not yet running
 *
 * Runs with preemption disabled.  If the entry cannot be allocated, the
 * child is killed before it reaches user mode: it must never run without
 * the tags it should have inherited.
 */
void ptags_task_fork(struct task_struct *parent, struct task_struct *child)
{
	struct ptags_proc *proc;
	struct pt_set *set;
	int err;

	if (child->signal == parent->signal)
		return;		/* a new thread shares its process's set */
	set = ptags_sig_set(parent->signal);
	if (!set)
		return;

	proc = ptags_proc_new(child, set, GFP_ATOMIC | __GFP_NOWARN);
	err = proc ? rhashtable_lookup_insert_fast(&ptags_table, &proc->node,
						   ptags_params) : -ENOMEM;
	if (err) {
		if (proc)
			ptags_proc_discard(proc);
		pt_set_put(set);
		send_sig(SIGKILL, child, 1);
		ptags_count(&ptags_stats.killed, 1);
		pr_warn_ratelimited("killed new process %d: cannot inherit tags (%d)\n",
				    task_pid_nr(child), err);
		return;
	}
	ptags_count(&ptags_stats.tagged_processes, 1);
	ptags_count(&ptags_stats.inherited, 1);
	/* Published before wake_up_new_task() makes the child "not new". */
	smp_wmb();
}

/**
 * ptags_task_exec - prune unkept tags after a successful exec (SPEC §9)
 * @task: current, past the point of no return
 *
 * The pruned set was built together with the set, so this never allocates
 * and cannot fail.
 */
void ptags_task_exec(struct task_struct *task)
{
	struct ptags_proc *proc;
	struct pt_set *cur, *next;

	rcu_read_lock();
	proc = ptags_proc_lookup(task->signal);
	if (!proc)
		goto out;
	spin_lock(&proc->lock);
	cur = rcu_dereference_protected(proc->set,
					lockdep_is_held(&proc->lock));
	next = proc->dead ? cur : pt_set_exec(cur);
	if (next == cur) {
		spin_unlock(&proc->lock);
		goto out;
	}
	ptags_count(&ptags_stats.pruned, 1);
	if (next) {
		rcu_assign_pointer(proc->set, pt_set_get(next));
		spin_unlock(&proc->lock);
		pt_set_put(cur);
	} else {
		WRITE_ONCE(proc->dead, true);
		RCU_INIT_POINTER(proc->set, NULL);
		ptags_proc_unlink(proc, cur);
	}
out:
	rcu_read_unlock();
}

/**
 * ptags_task_exit - release the set when the last thread exits (SPEC §9)
 * @task: the exiting thread (current)
 */
void ptags_task_exit(struct task_struct *task)
{
	if (atomic_read(&task->signal->live))
		return;		/* other threads still run */
	ptags_proc_remove(task->signal);
}

static int ptags_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Collect the tgids, as seen in @ns, of tagged processes visible there into
 * @buf; returns how many, or -ENOSPC (the table grew past @cap).
 */
static long ptags_table_collect(struct pid_namespace *ns, u32 *buf,
				unsigned int cap)
{
	struct rhashtable_iter iter;
	struct ptags_proc *proc;
	unsigned int n = 0;
	pid_t nr;

	rhashtable_walk_enter(&ptags_table, &iter);
	rhashtable_walk_start(&iter);
	while ((proc = rhashtable_walk_next(&iter))) {
		if (IS_ERR(proc)) {
			if (PTR_ERR(proc) == -EAGAIN)
				continue;	/* resized: duplicates are sorted out */
			break;
		}
		if (READ_ONCE(proc->dead))
			continue;
		nr = pid_nr_ns(proc->tgid, ns);
		if (nr <= 0)
			continue;
		if (n == cap) {
			n = UINT_MAX;
			break;
		}
		buf[n++] = nr;
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
	return n == UINT_MAX ? -ENOSPC : n;
}

/**
 * ptags_table_pids - sorted, unique tgids of the tagged processes in @ns
 * @ns: the pid namespace of the listing
 * @pids: receives a kvmalloc'ed array the caller frees with kvfree()
 * @n: receives its length
 *
 * A process that stays tagged during the whole call appears exactly once.
 */
int ptags_table_pids(struct pid_namespace *ns, u32 **pids, unsigned int *n)
{
	unsigned int cap, i, j;
	long got;
	u32 *buf;

	for (;;) {
		cap = atomic64_read(&ptags_stats.tagged_processes) + 64;
		buf = kvmalloc_array(cap, sizeof(*buf), GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
		got = ptags_table_collect(ns, buf, cap);
		if (got >= 0)
			break;
		kvfree(buf);
	}
	sort(buf, got, sizeof(*buf), ptags_cmp_u32, NULL);
	for (i = 0, j = 0; i < got; i++)
		if (!j || buf[j - 1] != buf[i])
			buf[j++] = buf[i];
	*pids = buf;
	*n = j;
	return 0;
}

int ptags_table_init(void)
{
	int err;

	ptags_proc_cache = KMEM_CACHE(ptags_proc, 0);
	if (!ptags_proc_cache)
		return -ENOMEM;
	ptags_proc_pool = mempool_create_slab_pool(PTAGS_PROC_RESERVE,
						   ptags_proc_cache);
	if (!ptags_proc_pool) {
		err = -ENOMEM;
		goto err_cache;
	}
	err = rhashtable_init(&ptags_table, &ptags_params);
	if (err)
		goto err_pool;
	return 0;

err_pool:
	mempool_destroy(ptags_proc_pool);
err_cache:
	kmem_cache_destroy(ptags_proc_cache);
	return err;
}

static void ptags_proc_free_now(void *ptr, void *arg)
{
	struct ptags_proc *proc = ptr;

	pt_set_put(rcu_dereference_protected(proc->set, 1));
	ptags_count(&ptags_stats.tagged_processes, -1);
	ptags_proc_discard(proc);
}

/*
 * Module removal: the hooks are gone and no file is open, so nothing else
 * touches the table.  Every set is released (SPEC §9).
 */
void ptags_table_uninit(void)
{
	rhashtable_free_and_destroy(&ptags_table, ptags_proc_free_now, NULL);
	/* Entries unlinked earlier are still waiting for their grace period. */
	rcu_barrier();
	mempool_destroy(ptags_proc_pool);
	kmem_cache_destroy(ptags_proc_cache);
}
