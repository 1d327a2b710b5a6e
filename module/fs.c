// SPDX-License-Identifier: GPL-2.0
/*
 * The "ptags" file system (SPEC §3): one superblock per mount, resolving pids
 * in its mounter's pid namespace like procfs, and showing one level of tags
 * (SPEC §12: a user namespace; the initial one unless "level=" says
 * otherwise).  Its root holds "self" and one regular file per process or
 * thread of the level, found on lookup; a listing shows the processes tagged
 * at the level only.  The module mounts an instance on /proc/ptags when it
 * loads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/fsnotify.h>
#include <linux/hash.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/uio.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/rculist.h>
#include <linux/rhashtable.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/umh.h>
#include <linux/user_namespace.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "uapi/linux/ptags.h"
#include "compat.h"
#include "audit.h"
#include "fs.h"
#include "level.h"
#include "stats.h"
#include "table.h"
#include "ptags_trace.h"

#define PTAGS_POS_FIRST_PID	3		/* after ".", ".." and "self" */
#define PTAGS_PID_NAME_MAX	sizeof("4294967295")
/*
 * Inode numbers, the same in a listing and in stat(): the root, "self", the
 * mount's anonymous inode, and one per process, above those.
 */
#define PTAGS_INO_ROOT		1
#define PTAGS_INO_SELF		2
#define PTAGS_INO_ANON		3
#define PTAGS_INO_PID(nr)	((u64)(nr) + 16)

/*
 * What an open /proc/ptags/PID remembers.  Both the read snapshot and the
 * opener's rights are private copies charged to the caller (SPEC §8): an
 * open descriptor never keeps a process's tag set alive.
 */
struct ptags_file {
	struct mutex lock;		/* serialises reads of the snapshot */
	char *snap;			/* read snapshot: the text (SPEC §3.3) */
	size_t snap_len;
	bool have_snap;
	u64 seen;			/* SPEC §3.5: stamp last read at 0 */
	unsigned long polled;		/* bit 0: counted in its sb's pollers */
	/* SPEC §5.5, for files opened for writing: */
	struct pid *opener;		/* the opener's thread-group id */
	struct pt_set *opener_set;	/* its permission tags at open */
	bool opener_priv;		/* its privilege when it opened it */
};

/* What an open /proc/ptags directory remembers: the listing's snapshot. */
struct ptags_dir {
	struct mutex lock;		/* serialises readers of the snapshot */
	u32 *pids;
	unsigned int n;
	bool have_pids;
	loff_t end;			/* where the last listing ended (0: none) */
};

/* SPEC §3.1 hidepid= values, as procfs numbers them. */
enum ptags_hidepid {
	PTAGS_HIDEPID_OFF = 0,
	PTAGS_HIDEPID_NOACCESS = 1,
	PTAGS_HIDEPID_INVISIBLE = 2,
};

/* One mount (SPEC §3.1): where its pids live and whom it shows what. */
struct ptags_sb_info {
	struct pid_namespace *ns;	/* the mounter's pid namespace */
	struct user_namespace *level;	/* SPEC §12 */
	enum ptags_hidepid hidepid;
	kgid_t gid;			/* exempt from hidepid */
	struct super_block *sb;
	struct ptags_scope *scope;	/* while mounted (ptags_notify()) */
	struct list_head node;		/* in the scope's list, RCU */
	struct inode *anon;		/* never in the tree (ptags_notify()) */
	atomic_t pollers;		/* open entries ever polled (SPEC §3.5) */
};

/*
 * An inode of this file system.  A pid entry has one inode per process and
 * mount while anything holds it (an open file, a dentry, an inotify watch):
 * events for a process find it there (SPEC §3.5).
 */
struct ptags_inode {
	struct inode vfs;
	/* pid entries only: */
	wait_queue_head_t changes;	/* pollers of POLLPRI */
	struct wait_queue_entry exit_wait;	/* on the pid's wait_pidfd */
	struct work_struct exit_work;	/* IN_DELETE_SELF, in process context */
	unsigned long exited;		/* bit 0: exit_work queued once */
};

static struct ptags_inode *ptags_i(struct inode *inode)
{
	return container_of(inode, struct ptags_inode, vfs);
}

static struct ptags_sb_info *ptags_sb(const struct super_block *sb)
{
	return sb->s_fs_info;
}

/*
 * SPEC §3.1: may the caller see @task's entry through a mount with @sbi's
 * options?  With hidepid, only processes whose real, effective and saved
 * uids are all the caller's fsuid, unless the caller is in the mount's gid
 * or has CAP_SYS_PTRACE in the initial user namespace.
 */
static bool ptags_may_see(const struct ptags_sb_info *sbi,
			  struct task_struct *task)
{
	kuid_t fsuid = current_fsuid();
	const struct cred *cred;
	bool mine;

	if (READ_ONCE(sbi->hidepid) == PTAGS_HIDEPID_OFF ||
	    in_group_p(READ_ONCE(sbi->gid)) ||
	    ns_capable_noaudit(&init_user_ns, CAP_SYS_PTRACE))
		return true;
	rcu_read_lock();
	cred = __task_cred(task);
	mine = uid_eq(cred->uid, fsuid) && uid_eq(cred->euid, fsuid) &&
	       uid_eq(cred->suid, fsuid);
	rcu_read_unlock();
	return mine;
}

/* Is @task hidden from the caller altogether (hidepid=invisible)? */
static bool ptags_hidden(const struct ptags_sb_info *sbi,
			 struct task_struct *task)
{
	return READ_ONCE(sbi->hidepid) == PTAGS_HIDEPID_INVISIBLE &&
	       !ptags_may_see(sbi, task);
}

/*
 * SPEC §5.4, §12: CAP_MAC_ADMIN in the level's user namespace (the initial
 * one for /proc/ptags), nothing else.  The kernel-thread flag grants
 * nothing: io_uring workers carry it on some kernels while they act for a
 * user process.
 */
static bool ptags_privileged(const struct ptags_sb_info *sbi)
{
	return ns_capable_noaudit(sbi->level, CAP_MAC_ADMIN);
}

/*
 * SPEC §3.2: a process whose threads have all exited has no entry; SPEC §12:
 * nor has one outside the mount's level.
 */
static bool ptags_task_alive(const struct ptags_sb_info *sbi,
			     struct task_struct *task)
{
	return task && atomic_read(&task->signal->live) &&
	       ptags_task_in_level(task, sbi->level);
}

/*
 * The task of a /proc/ptags/PID inode, referenced, or NULL if it exited (or
 * left the mount's level).
 */
static struct task_struct *ptags_inode_task(struct inode *inode)
{
	struct task_struct *task = get_pid_task(inode->i_private, PIDTYPE_PID);

	if (task && !ptags_task_alive(ptags_sb(inode->i_sb), task)) {
		put_task_struct(task);
		task = NULL;
	}
	return task;
}

/*
 * @task's set at the mount's level, for rights: none when @task is outside
 * the level (SPEC §12: rights only through the writer's own set there).
 */
static struct pt_set *ptags_rights_of(const struct ptags_sb_info *sbi,
				      struct task_struct *task)
{
	if (!ptags_task_in_level(task, sbi->level))
		return NULL;
	return ptags_task_set(task, sbi->level);
}

/* The stamp of @task's set now (SPEC §3.5; 0: untagged). */
static u64 ptags_stamp_of(const struct ptags_sb_info *sbi,
			  struct task_struct *task)
{
	u64 stamp;

	pt_set_put(ptags_task_set_stamp(task, sbi->level, &stamp));
	return stamp;
}

static int ptags_file_open(struct inode *inode, struct file *file)
{
	struct ptags_sb_info *sbi = ptags_sb(inode->i_sb);
	struct task_struct *task = ptags_inode_task(inode);
	struct ptags_file *f;
	struct pt_set *mine;
	u64 seen;
	int err;

	if (!task)
		return -ESRCH;
	/*
	 * SPEC §3.1: hidepid=noaccess (and invisible) refuse reads, and a
	 * write-only open too: "?NAME" and "-NAME" answer what a read would.
	 */
	if (!ptags_may_see(sbi, task)) {
		put_task_struct(task);
		return -EACCES;
	}
	seen = ptags_stamp_of(sbi, task);
	put_task_struct(task);

	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	f->seen = seen;
	/*
	 * SPEC §3.5: an entry's events are changes of its tags, which the
	 * watch worker reports; not the VFS's IN_MODIFY for every write, even
	 * one that changed nothing, nor opens, reads and closes.
	 */
	ptags_file_nonotify(file);
	if (file->f_mode & FMODE_WRITE) {
		mine = ptags_rights_of(sbi, current);
		err = pt_set_rights(mine, &f->opener_set);
		pt_set_put(mine);
		if (err) {
			kfree(f);
			return err;
		}
		f->opener = get_pid(task_tgid(current));
		f->opener_priv = ptags_privileged(sbi);
	}
	file->private_data = f;
	return 0;
}

static int ptags_file_release(struct inode *inode, struct file *file)
{
	struct ptags_file *f = file->private_data;

	if (test_bit(0, &f->polled))
		atomic_dec(&ptags_sb(inode->i_sb)->pollers);
	kvfree(f->snap);
	pt_set_put(f->opener_set);
	put_pid(f->opener);
	kfree(f);
	return 0;
}

/*
 * The text of @task's set, in a buffer charged to the caller; *@len is its
 * length, *@stamp its stamp (SPEC §3.5).  NULL with *@len 0 for an untagged
 * process.
 */
static char *ptags_snapshot(const struct ptags_sb_info *sbi,
			    struct task_struct *task, size_t *len, u64 *stamp)
{
	struct pt_set *set = ptags_task_set_stamp(task, sbi->level, stamp);
	u64 size = pt_set_text_size(set);
	char *text = NULL;

	*len = 0;
	if (size > INT_MAX) {
		text = ERR_PTR(-ENOMEM);
	} else if (size) {
		text = kvmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!text)
			text = ERR_PTR(-ENOMEM);
		else
			*len = pt_set_render(set, 0, text, size);
	}
	pt_set_put(set);
	return text;
}

/*
 * SPEC §3.3: a read at offset 0 takes a snapshot of the set; reads at later
 * offsets continue it, so no reader sees a half-applied change.
 */
static ssize_t ptags_file_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct ptags_file *f = file->private_data;
	struct task_struct *task;
	ssize_t done;
	size_t len;
	char *text;

	if (*ppos < 0)
		return -EINVAL;

	mutex_lock(&f->lock);
	if (*ppos == 0 || !f->have_snap) {
		u64 stamp;

		task = ptags_inode_task(file_inode(file));
		if (!task) {
			done = -ESRCH;
			goto out;
		}
		text = ptags_snapshot(ptags_sb(file_inode(file)->i_sb), task,
				      &len, &stamp);
		if (*ppos == 0)
			WRITE_ONCE(f->seen, stamp);
		put_task_struct(task);
		if (IS_ERR(text)) {
			done = PTR_ERR(text);
			goto out;
		}
		kvfree(f->snap);
		f->snap = text;
		f->snap_len = len;
		f->have_snap = true;
	}
	done = 0;
	if (*ppos < f->snap_len) {
		len = min_t(size_t, count, f->snap_len - *ppos);
		if (copy_to_user(ubuf, f->snap + *ppos, len)) {
			done = -EFAULT;
			goto out;
		}
		*ppos += len;
		done = len;
	}
out:
	mutex_unlock(&f->lock);
	return done;
}

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

/*
 * Apply @buf to @task's set as one transaction.  It is computed without any
 * lock; a write that changes nothing (or fails) ends there, so it never
 * waits for, nor delays, anyone.  A change is published in turn with the
 * other changing writers of the process; if the set moved meanwhile it is
 * computed again, still holding the turn, so that only an exec (at most one
 * prune per set) can move it again: no write is starved.
 */
static int ptags_apply(struct task_struct *task, struct user_namespace *level,
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

/**
 * ptags_file_write_iter - one write system call is one transaction (SPEC §3.4)
 * @iocb: the call on an open /proc/ptags/PID (its position is not used)
 * @from: the lines, in as many buffers as the call has (writev, io_uring)
 *
 * Return: the number of bytes, or
 * -E2BIG when they exceed max_write;
 * -EINVAL for a malformed line, invalid name, value, pattern or UTF-8, or a
 * missing final newline;
 * -EPERM when a change is not allowed (SPEC §5);
 * -ENOENT when "!" names an absent tag or "?" matches nothing;
 * -ECANCELED when max_tags or max_bytes would be exceeded, or a set would be
 * started at a level of depth max_levels or more (SPEC §12);
 * -EINTR when a fatal signal arrived; nothing changed;
 * -ENOMEM; -EFAULT;
 * -ESRCH when the process has exited.
 */
static ssize_t ptags_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct ptags_file *f = iocb->ki_filp->private_data;
	struct ptags_sb_info *sbi = ptags_sb(file_inode(iocb->ki_filp)->i_sb);
	size_t count = iov_iter_count(from);
	struct task_struct *task;
	struct pt_writer w;
	bool changed;
	char *buf;
	int err;

	if (count > READ_ONCE(ptags_max_write)) {
		err = -E2BIG;
		goto out;
	}
	if (!count)
		return 0;
	buf = kvmalloc(count, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	if (!copy_from_iter_full(buf, count, from)) {
		err = -EFAULT;
		goto out_buf;
	}
	task = ptags_inode_task(file_inode(iocb->ki_filp));
	if (!task) {
		err = -ESRCH;
		goto out_buf;
	}

	w.rights = ptags_rights_of(sbi, current);
	w.opener = f->opener_set;
	w.same_opener = task_tgid(current) == f->opener;
	w.self = task->signal == current->signal;
	w.privileged = f->opener_priv && ptags_privileged(sbi);
	err = ptags_apply(task, sbi->level, buf, count, &w, &changed);
	pt_set_put((struct pt_set *)w.rights);
	ptags_audit_write(task_tgid_nr(task), sbi->level->level, buf, count,
			  err, !w.self, changed);
	put_task_struct(task);
out_buf:
	kvfree(buf);
out:
	trace_ptags_change(pid_nr(file_inode(iocb->ki_filp)->i_private),
			   sbi->level->level, task_tgid_nr(current), count, err);
	if (err) {
		ptags_count(&ptags_stats.refused, 1);
		return err;
	}
	return count;
}

/*
 * SPEC §3.5: always readable, and writable (a write never waits for
 * readiness; io_uring polls for that before some writes); POLLPRI once the
 * set changed since this descriptor last read from offset 0; POLLHUP once
 * the process exited (the pid's wait_pidfd queue is woken then, as for a
 * pidfd's poll).
 */
static __poll_t ptags_file_poll(struct file *file, poll_table *pt)
{
	struct inode *inode = file_inode(file);
	struct ptags_inode *pi = ptags_i(inode);
	struct ptags_file *f = file->private_data;
	struct pid *pid = inode->i_private;
	struct task_struct *task;
	__poll_t mask = EPOLLIN | EPOLLRDNORM | EPOLLOUT | EPOLLWRNORM;

	if (!test_and_set_bit(0, &f->polled)) {
		atomic_inc(&ptags_sb(inode->i_sb)->pollers);
		/* Counted before the stamp is read: pairs with the writers. */
		smp_mb__after_atomic();
	}
	poll_wait(file, &pi->changes, pt);
	poll_wait(file, &pid->wait_pidfd, pt);
	task = ptags_inode_task(inode);
	if (!task)
		return mask | EPOLLHUP;
	if (ptags_stamp_of(ptags_sb(inode->i_sb), task) != READ_ONCE(f->seen))
		mask |= EPOLLPRI;
	put_task_struct(task);
	return mask;
}

static const struct file_operations ptags_file_fops = {
	.owner = THIS_MODULE,
	.open = ptags_file_open,
	.release = ptags_file_release,
	.read = ptags_file_read,
	.write_iter = ptags_file_write_iter,
	.poll = ptags_file_poll,
	.llseek = default_llseek,
};

/* "self": a link to the caller's own entry in this mount's pid namespace. */
static const char *ptags_self_get_link(struct dentry *dentry,
				       struct inode *inode,
				       struct delayed_call *done)
{
	struct pid_namespace *ns = ptags_sb(inode->i_sb)->ns;
	pid_t nr;
	char *name;

	if (!dentry)
		return ERR_PTR(-ECHILD);
	nr = task_tgid_nr_ns(current, ns);
	if (!nr)
		return ERR_PTR(-ENOENT);
	name = kasprintf(GFP_KERNEL, "%d", nr);
	if (!name)
		return ERR_PTR(-ENOMEM);
	set_delayed_call(done, kfree_link, name);
	return name;
}

static const struct inode_operations ptags_self_iops = {
	.get_link = ptags_self_get_link,
};

static struct inode *ptags_new_inode(struct super_block *sb, umode_t mode,
				     unsigned long ino)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = ino;
	inode->i_mode = mode;
	ptags_inode_init_times(inode);
	return inode;
}

/*
 * Watching (SPEC §3.5).  Every change of a process's tags is an event of its
 * table entry (table.c), which queues the entry, at most once at a time, to
 * one worker when someone might watch: an open entry of a mount that shows
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
 */
static struct kmem_cache *ptags_inode_cache;
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
static int ptags_scope_join(struct ptags_sb_info *sbi)
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

static void ptags_scope_leave(struct ptags_sb_info *sbi)
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

static struct inode *ptags_alloc_inode(struct super_block *sb)
{
	struct ptags_inode *pi;

	pi = ptags_alloc_inode_sb(sb, ptags_inode_cache);
	if (!pi)
		return NULL;
	init_waitqueue_head(&pi->changes);
	pi->exited = 0;
	return &pi->vfs;
}

static void ptags_inode_once(void *obj)
{
	inode_init_once(&((struct ptags_inode *)obj)->vfs);
}

static void ptags_free_inode(struct inode *inode)
{
	kmem_cache_free(ptags_inode_cache, ptags_i(inode));
}

/* Nothing may touch @pi after the delivery: see ptags_evict_inode(). */
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

static int ptags_inode_test(struct inode *inode, void *pid)
{
	return inode->i_private == pid;
}

static int ptags_inode_set(struct inode *inode, void *pid)
{
	inode->i_private = get_pid(pid);	/* put by ptags_evict_inode() */
	return 0;
}

/* The inode of process @pid in @sb: the existing one, or a new one. */
static struct inode *ptags_pid_inode(struct super_block *sb, struct pid *pid)
{
	struct ptags_inode *pi;
	struct inode *inode;

	inode = iget5_locked(sb, (unsigned long)pid, ptags_inode_test,
			     ptags_inode_set, pid);
	if (!inode || !ptags_inode_is_new(inode))
		return inode;
	pi = ptags_i(inode);
	/* What a listing reports (ptags_readdir()): one number per process. */
	inode->i_ino = PTAGS_INO_PID(pid_nr_ns(pid, ptags_sb(sb)->ns));
	inode->i_mode = S_IFREG | 0666;
	ptags_inode_init_times(inode);
	inode->i_fop = &ptags_file_fops;
	INIT_WORK(&pi->exit_work, ptags_exit_work);
	init_waitqueue_func_entry(&pi->exit_wait, ptags_exit_wake);
	add_wait_queue(&pid->wait_pidfd, &pi->exit_wait);
	unlock_new_inode(inode);
	/* It may have exited before we were on the queue. */
	ptags_exit_wake(&pi->exit_wait, 0, 0, NULL);
	return inode;
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
 * the change and its stamp before, with a full barrier: a poller counted
 * too late reads the new stamp itself (ptags_file_poll()).
 */
bool ptags_watched(struct pid *pid, const struct user_namespace *level)
{
	struct ptags_sb_info *sbi;
	struct ptags_scope *scope;
	bool watched = false;
	unsigned int i, n;

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

/* A pid as procfs spells it: decimal, no sign, no leading zero. */
static bool ptags_parse_pid(const struct qstr *name, pid_t *nr)
{
	unsigned int i;
	u32 v = 0;

	if (!name->len || name->len > 10 || name->name[0] == '0')
		return false;
	for (i = 0; i < name->len; i++) {
		if (name->name[i] < '0' || name->name[i] > '9')
			return false;
		v = v * 10 + (name->name[i] - '0');
		if (v > PID_MAX_LIMIT)
			return false;
	}
	*nr = v;
	return true;
}

/*
 * The process that the name @name of @sbi's root means now, referenced
 * (its thread-group pid), or NULL: not a pid, no such process, exited,
 * outside the mount's level or hidden from the caller.  A thread's name
 * means its process (SPEC §2): one inode, found by the events of the
 * process (SPEC §3.5), which the process's pid names.
 */
static struct pid *ptags_name_pid(const struct ptags_sb_info *sbi,
				  const struct qstr *name)
{
	struct task_struct *task;
	struct pid *pid;
	pid_t nr;

	if (!ptags_parse_pid(name, &nr))
		return NULL;
	rcu_read_lock();
	pid = find_pid_ns(nr, sbi->ns);
	task = pid ? pid_task(pid, PIDTYPE_PID) : NULL;
	pid = ptags_task_alive(sbi, task) && !ptags_hidden(sbi, task) ?
	      get_pid(task_tgid(task)) : NULL;
	rcu_read_unlock();
	return pid;
}

static struct dentry *ptags_lookup(struct inode *dir, struct dentry *dentry,
				   unsigned int flags)
{
	struct inode *inode;
	struct pid *pid;

	if (dentry->d_name.len == 4 && !memcmp(dentry->d_name.name, "self", 4)) {
		inode = ptags_new_inode(dir->i_sb, S_IFLNK | 0777,
					PTAGS_INO_SELF);
		if (!inode)
			return ERR_PTR(-ENOMEM);
		inode->i_op = &ptags_self_iops;
		d_add(dentry, inode);
		return NULL;
	}
	pid = ptags_name_pid(ptags_sb(dir->i_sb), &dentry->d_name);
	if (!pid)
		return ERR_PTR(-ENOENT);
	inode = ptags_pid_inode(dir->i_sb, pid);
	put_pid(pid);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	d_add(dentry, inode);
	return NULL;
}

/*
 * A cached name stays valid only while it still means the same process
 * for this caller: a descriptor keeps its dentry alive past the exit of the
 * thread it named, or past the exec that freed a non-leader's tid, and a new
 * process may have that number now (SPEC §3.2).
 */
static int ptags_revalidate(PTAGS_REVALIDATE_ARGS)
{
	struct inode *inode;
	struct pid *pid;
	int valid;

	if (flags & LOOKUP_RCU)
		return -ECHILD;
	inode = d_inode(dentry);
	if (!inode || !S_ISREG(inode->i_mode))
		return 1;
	pid = ptags_name_pid(ptags_sb(inode->i_sb), PTAGS_REVALIDATE_NAME);
	valid = pid && pid == inode->i_private;
	put_pid(pid);
	return valid;
}

static const struct dentry_operations ptags_dops = {
	.d_revalidate = ptags_revalidate,
	.d_delete = always_delete_dentry,
};

/* Is the process @nr of @sbi's pid namespace hidden from the caller? */
static bool ptags_pid_hidden(const struct ptags_sb_info *sbi, pid_t nr)
{
	struct task_struct *task;
	bool hidden;

	if (READ_ONCE(sbi->hidepid) != PTAGS_HIDEPID_INVISIBLE)
		return false;
	rcu_read_lock();
	task = pid_task(find_pid_ns(nr, sbi->ns), PIDTYPE_PID);
	hidden = !task || ptags_hidden(sbi, task);
	rcu_read_unlock();
	return hidden;
}

/* @nr in decimal into @name (PTAGS_PID_NAME_MAX); its length.  No format. */
static int ptags_pid_name(char *name, u32 nr)
{
	char rev[PTAGS_PID_NAME_MAX];
	int len = 0, i;

	do {
		rev[len++] = '0' + nr % 10;
		nr /= 10;
	} while (nr);
	for (i = 0; i < len; i++)
		name[i] = rev[len - 1 - i];
	return len;
}

static int ptags_dir_open(struct inode *inode, struct file *file)
{
	struct ptags_dir *d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);

	if (!d)
		return -ENOMEM;
	mutex_init(&d->lock);
	file->private_data = d;
	return 0;
}

static int ptags_dir_release(struct inode *inode, struct file *file)
{
	struct ptags_dir *d = file->private_data;

	kvfree(d->pids);
	kfree(d);
	return 0;
}

/*
 * SPEC §3.2: ".", "..", "self", then the tagged processes.  The list is
 * taken when a listing starts and continued from there, so a process that
 * stays tagged for the whole listing appears exactly once.  It is freed as
 * soon as the listing has emitted its last entry (SPEC §8: an idle open
 * directory holds no list).
 */
static int ptags_readdir(struct file *file, struct dir_context *ctx)
{
	struct ptags_sb_info *sbi = ptags_sb(file_inode(file)->i_sb);
	struct ptags_dir *d = file->private_data;
	bool fresh = ctx->pos < PTAGS_POS_FIRST_PID;
	char name[PTAGS_PID_NAME_MAX];
	loff_t i;
	int len, err = 0;

	if (!dir_emit_dots(file, ctx))
		return 0;
	if (ctx->pos == 2) {
		if (!dir_emit(ctx, "self", 4, PTAGS_INO_SELF, DT_LNK))
			return 0;
		ctx->pos++;
	}

	mutex_lock(&d->lock);
	if (!fresh && !d->have_pids && d->end && ctx->pos >= d->end)
		goto out;	/* at the end of the last listing */
	if (fresh || !d->have_pids) {
		kvfree(d->pids);
		d->pids = NULL;
		d->have_pids = false;
		err = ptags_table_pids(sbi->ns, sbi->level, &d->pids, &d->n);
		if (err)
			goto out;
		d->have_pids = true;
	}
	for (i = ctx->pos - PTAGS_POS_FIRST_PID; i < d->n; i++) {
		if (ptags_pid_hidden(sbi, d->pids[i])) {
			ctx->pos++;
			continue;
		}
		len = ptags_pid_name(name, d->pids[i]);
		if (!dir_emit(ctx, name, len, PTAGS_INO_PID(d->pids[i]),
			      DT_REG))
			goto out;
		ctx->pos++;
	}
	/*
	 * The end: the list goes (SPEC §8); a call at this position says
	 * there is no more, a seek back takes a new list.
	 */
	kvfree(d->pids);
	d->pids = NULL;
	d->n = 0;
	d->have_pids = false;
	d->end = ctx->pos;
out:
	mutex_unlock(&d->lock);
	return err;
}

static const struct file_operations ptags_dir_fops = {
	.owner = THIS_MODULE,
	.open = ptags_dir_open,
	.release = ptags_dir_release,
	.read = generic_read_dir,
	.iterate_shared = ptags_readdir,
	.llseek = generic_file_llseek,
};

static const struct inode_operations ptags_dir_iops = {
	.lookup = ptags_lookup,
};

static void ptags_evict_inode(struct inode *inode)
{
	struct ptags_inode *pi = ptags_i(inode);
	struct pid *pid = inode->i_private;	/* NULL but for pid files */

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	if (!pid)
		return;
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
	put_pid(pid);
}

static const char *const ptags_hidepid_names[] = {
	[PTAGS_HIDEPID_OFF] = "off",
	[PTAGS_HIDEPID_NOACCESS] = "noaccess",
	[PTAGS_HIDEPID_INVISIBLE] = "invisible",
};

/* /proc/mounts: the options that differ from the defaults. */
static int ptags_show_options(struct seq_file *m, struct dentry *root)
{
	const struct ptags_sb_info *sbi = ptags_sb(root->d_sb);
	enum ptags_hidepid hidepid = READ_ONCE(sbi->hidepid);

	if (!gid_eq(sbi->gid, GLOBAL_ROOT_GID))
		seq_printf(m, ",gid=%u",
			   from_kgid_munged(&init_user_ns, sbi->gid));
	if (hidepid != PTAGS_HIDEPID_OFF)
		seq_printf(m, ",hidepid=%s", ptags_hidepid_names[hidepid]);
	if (sbi->level->level)
		seq_printf(m, ",level=%d", sbi->level->level);
	return 0;
}

static const struct super_operations ptags_sops = {
	.alloc_inode = ptags_alloc_inode,
	.free_inode = ptags_free_inode,
	.statfs = simple_statfs,
	.drop_inode = ptags_drop_inode,
	.evict_inode = ptags_evict_inode,
	.show_options = ptags_show_options,
};

/*
 * Load order (SPEC §3.1): the file system type is registered last, and until
 * the load is complete only root of the initial namespaces (the load's own
 * mount of /proc/ptags) may create an instance: a failed load cannot leave
 * behind an instance made by an unprivileged user, which would outlive the
 * module's code.
 */
static bool ptags_ready;
static bool ptags_mounted_early;

/* What a mount being prepared (or changed by a remount) knows. */
struct ptags_fs_ctx {
	struct pid_namespace *ns;	/* the mounter's (SPEC §3.1) */
	struct user_namespace *level;	/* SPEC §12 */
	bool hidepid_set, gid_set, level_set;	/* given as options */
	enum ptags_hidepid hidepid;
	kgid_t gid;
};

static int ptags_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct ptags_fs_ctx *ctx = fc->fs_private;
	struct ptags_sb_info *sbi;
	struct inode *root;
	int err;

	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL_ACCOUNT);
	if (!sbi)
		return -ENOMEM;
	sbi->ns = get_pid_ns(ctx->ns);
	sbi->level = get_user_ns(ctx->level);
	sbi->hidepid = ctx->hidepid;
	sbi->gid = ctx->gid;
	sb->s_fs_info = sbi;	/* freed by ptags_kill_sb(), even on failure */

	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = PTAGS_SUPER_MAGIC;
	sb->s_op = &ptags_sops;
	ptags_set_default_d_op(sb, &ptags_dops);
	sb->s_time_gran = 1;
	sb->s_iflags |= SB_I_NOEXEC | SB_I_NODEV;

	root = ptags_new_inode(sb, S_IFDIR | 0555, PTAGS_INO_ROOT);
	if (!root)
		return -ENOMEM;
	root->i_op = &ptags_dir_iops;
	root->i_fop = &ptags_dir_fops;
	set_nlink(root, 2);
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	if (!READ_ONCE(ptags_ready))
		WRITE_ONCE(ptags_mounted_early, true);
	sbi->anon = ptags_new_inode(sb, S_IFREG, PTAGS_INO_ANON);
	if (!sbi->anon)
		return -ENOMEM;
	err = ptags_scope_join(sbi);
	if (err) {
		iput(sbi->anon);
		return err;
	}
	sbi->sb = sb;
	return 0;
}

/* "hidepid=": a name or its number, as procfs takes them. */
static int ptags_parse_hidepid(const char *v, enum ptags_hidepid *out)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ptags_hidepid_names); i++) {
		char num[2] = { '0' + i, 0 };

		if (!strcmp(v, ptags_hidepid_names[i]) || !strcmp(v, num)) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * SPEC §12 "level=": "own", or a depth from 0 to that of the mounter's user
 * namespace, naming the ancestor of the mounter's user namespace there.
 *
 * Who may mount: any level on the mounter's chain, whoever may mount procfs
 * for its pid namespace (CAP_SYS_ADMIN in the namespace's owner, which is
 * fc->user_ns by default); the mounter's own level, also whoever has
 * CAP_SYS_ADMIN in its own user namespace.  The VFS checks CAP_SYS_ADMIN in
 * fc->user_ns before it creates the mount, so that is where the choice goes.
 */
static int ptags_parse_level(struct fs_context *fc, const char *v)
{
	struct ptags_fs_ctx *ctx = fc->fs_private;
	struct user_namespace *ns = current_user_ns();
	struct user_namespace *owner = ctx->ns->user_ns;
	unsigned int depth;

	if (strcmp(v, "own")) {
		if (kstrtouint(v, 10, &depth) || depth > ns->level)
			return -EINVAL;
		while (ns->level > depth)
			ns = ns->parent;
	}
	if (ns == current_user_ns() && !ns_capable_noaudit(owner, CAP_SYS_ADMIN))
		owner = ns;
	put_user_ns(ctx->level);
	ctx->level = get_user_ns(ns);
	ctx->level_set = true;
	put_user_ns(fc->user_ns);
	fc->user_ns = get_user_ns(owner);
	return 0;
}

static int ptags_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct ptags_fs_ctx *ctx = fc->fs_private;
	unsigned int gid;

	if (param->type != fs_value_is_string)
		return strcmp(param->key, "source") ? -EINVAL : -ENOPARAM;
	if (!strcmp(param->key, "hidepid")) {
		ctx->hidepid_set = true;
		return ptags_parse_hidepid(param->string, &ctx->hidepid);
	}
	if (!strcmp(param->key, "gid")) {
		if (kstrtouint(param->string, 10, &gid))
			return -EINVAL;
		ctx->gid = make_kgid(current_user_ns(), gid);
		if (!gid_valid(ctx->gid))
			return -EINVAL;
		ctx->gid_set = true;
		return 0;
	}
	if (!strcmp(param->key, "level"))
		return ptags_parse_level(fc, param->string);
	return -ENOPARAM;
}

/*
 * SPEC §3.1: every mount is its own instance (its own options), resolving
 * pids in the pid namespace of its mounter.  SPEC §12: the level is on the
 * chain of whoever creates the mount (the context may have been configured
 * by another process); who may is settled by ptags_parse_level().
 */
static int ptags_get_tree(struct fs_context *fc)
{
	struct ptags_fs_ctx *ctx = fc->fs_private;

	if (!ptags_ns_in_level(current_user_ns(), ctx->level))
		return -EINVAL;
	return get_tree_nodev(fc, ptags_fill_super);
}

/* "mount -o remount,hidepid=...,gid=...": change what was given. */
static int ptags_reconfigure(struct fs_context *fc)
{
	struct ptags_sb_info *sbi = ptags_sb(fc->root->d_sb);
	struct ptags_fs_ctx *ctx = fc->fs_private;

	/* A mount shows one level for its whole life. */
	if (ctx->level_set && ctx->level != sbi->level)
		return -EINVAL;
	if (ctx->gid_set)
		WRITE_ONCE(sbi->gid, ctx->gid);
	if (ctx->hidepid_set)
		WRITE_ONCE(sbi->hidepid, ctx->hidepid);
	return 0;
}

static void ptags_free_fc(struct fs_context *fc)
{
	struct ptags_fs_ctx *ctx = fc->fs_private;

	if (ctx) {
		put_pid_ns(ctx->ns);
		put_user_ns(ctx->level);
		kfree(ctx);
	}
}

static const struct fs_context_operations ptags_context_ops = {
	.parse_param = ptags_parse_param,
	.get_tree = ptags_get_tree,
	.reconfigure = ptags_reconfigure,
	.free = ptags_free_fc,
};

static int ptags_init_fs_context(struct fs_context *fc)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct ptags_fs_ctx *ctx;

	/*
	 * Still loading: only the load's own mount (root of the initial
	 * namespaces) may even prepare one (fsopen), so that nobody else can
	 * hold a context across a load that then fails.
	 */
	if (!READ_ONCE(ptags_ready) &&
	    (ns != &init_pid_ns || !capable(CAP_SYS_ADMIN)))
		return -EAGAIN;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	ctx->ns = get_pid_ns(ns);
	ctx->level = get_user_ns(&init_user_ns);
	ctx->hidepid = PTAGS_HIDEPID_OFF;
	ctx->gid = GLOBAL_ROOT_GID;
	fc->fs_private = ctx;
	/* Whoever may mount procfs for this pid namespace may mount us. */
	put_user_ns(fc->user_ns);
	fc->user_ns = get_user_ns(ns->user_ns);
	fc->ops = &ptags_context_ops;
	return 0;
}

static void ptags_kill_sb(struct super_block *sb)
{
	struct ptags_sb_info *sbi = ptags_sb(sb);

	if (sbi && sbi->sb) {
		ptags_scope_leave(sbi);
		iput(sbi->anon);
	}
	kill_anon_super(sb);
	if (sbi) {
		put_pid_ns(sbi->ns);
		put_user_ns(sbi->level);
		kfree(sbi);
	}
}

static struct file_system_type ptags_fs_type = {
	.owner = THIS_MODULE,
	.name = PTAGS_FS_TYPE,
	.init_fs_context = ptags_init_fs_context,
	.kill_sb = ptags_kill_sb,
	.fs_flags = FS_USERNS_MOUNT,
};

/*
 * No MODULE_ALIAS_FS: a mount never loads the module (SPEC §3.1), or any
 * user could pull it in with "unshare -Urmpf mount -t ptags ...".
 */

static bool ptags_automount = true;
module_param_named(automount, ptags_automount, bool, 0444);
MODULE_PARM_DESC(automount, "Mount /proc/ptags when the module loads (default: yes)");

/*
 * SPEC §3.1: /proc/ptags shows no more than /proc: the options of the loader's
 * /proc, as mount options.  hidepid=ptraceable has no equivalent here and
 * becomes the stricter "invisible".
 */
static void ptags_proc_options(char *buf, size_t len)
{
	const struct proc_fs_info *fsi;
	enum ptags_hidepid hidepid;
	struct path path;

	snprintf(buf, len, "hidepid=%s", ptags_hidepid_names[PTAGS_HIDEPID_OFF]);
	if (kern_path("/proc", LOOKUP_FOLLOW, &path))
		return;
	if (path.dentry->d_sb->s_magic == PROC_SUPER_MAGIC) {
		fsi = proc_sb_info(path.dentry->d_sb);
		switch (fsi->hide_pid) {
		case HIDEPID_OFF:
			hidepid = PTAGS_HIDEPID_OFF;
			break;
		case HIDEPID_NO_ACCESS:
			hidepid = PTAGS_HIDEPID_NOACCESS;
			break;
		default:
			hidepid = PTAGS_HIDEPID_INVISIBLE;
			break;
		}
		snprintf(buf, len, "hidepid=%s,gid=%u",
			 ptags_hidepid_names[hidepid],
			 from_kgid_munged(&init_user_ns, fsi->pid_gid));
	}
	path_put(&path);
}

/*
 * SPEC §3.1: no kernel interface a module may call attaches a mount to a
 * path, so the module runs mount(8) as a usermode helper: it starts in the
 * initial namespaces with full privilege and returns once the mount is done.
 * "-i": never a /sbin/mount.ptags helper; "-n": no mtab or utab entry.
 * Returns 0, a negative errno, or mount(8)'s wait status.
 */
static int ptags_mount_proc(void)
{
	static const char *const helpers[] = {
		"/bin/mount", "/usr/bin/mount", "/sbin/mount", "/usr/sbin/mount",
	};
	static char *envp[] = {
		"HOME=/", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL
	};
	char opts[64];
	char *argv[] = {
		NULL, "-i", "-n", "-t", PTAGS_FS_TYPE, "-o", opts,
		PTAGS_FS_TYPE, PTAGS_DEFAULT_ROOT, NULL
	};
	unsigned int i;
	int ret = -ENOENT;

	ptags_proc_options(opts, sizeof(opts));
	for (i = 0; i < ARRAY_SIZE(helpers) && ret == -ENOENT; i++) {
		argv[0] = (char *)helpers[i];
		ret = call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
	}
	return ret;
}

int ptags_fs_init(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(ptags_turns); i++) {
		spin_lock_init(&ptags_turns[i].lock);
		INIT_LIST_HEAD(&ptags_turns[i].queue);
	}
	ptags_exit_wq = alloc_workqueue("ptags_exit", WQ_UNBOUND, 0);
	if (!ptags_exit_wq)
		return -ENOMEM;
	ptags_inode_cache = kmem_cache_create("ptags_inode",
					      sizeof(struct ptags_inode), 0,
					      SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT,
					      ptags_inode_once);
	if (!ptags_inode_cache) {
		err = -ENOMEM;
		goto err_wq;
	}

	/* NULL when the name exists already (or, unlikely, out of memory). */
	if (!proc_create_mount_point("ptags")) {
		pr_err("cannot create %s: does it exist already?\n",
		       PTAGS_DEFAULT_ROOT);
		err = -EEXIST;
		goto err_cache;
	}
	err = register_filesystem(&ptags_fs_type);
	if (err)
		goto err_proc;
	if (ptags_automount) {
		err = ptags_mount_proc();
		/*
		 * An instance exists (ours, and mount(8) failed after making
		 * it, or root's): failing the load would leave it behind.
		 */
		if (err && READ_ONCE(ptags_mounted_early)) {
			pr_warn("mount(8) failed (%d) after an instance was mounted: staying loaded; check %s\n",
				err, PTAGS_DEFAULT_ROOT);
			err = 0;
		}
		if (err) {
			if (err > 0)
				pr_err("cannot mount %s: mount(8) exited with status %d; load with automount=0 and mount it yourself\n",
				       PTAGS_DEFAULT_ROOT, err >> 8);
			else
				pr_err("cannot mount %s: cannot run mount(8) (%d); load with automount=0 and mount it yourself\n",
				       PTAGS_DEFAULT_ROOT, err);
			err = err > 0 ? -EIO : err;
			goto err_fs;
		}
	}
	WRITE_ONCE(ptags_ready, true);
	return 0;

err_fs:
	unregister_filesystem(&ptags_fs_type);
err_proc:
	remove_proc_entry("ptags", NULL);
err_cache:
	rcu_barrier();		/* inodes are freed after a grace period */
	kmem_cache_destroy(ptags_inode_cache);
err_wq:
	destroy_workqueue(ptags_exit_wq);
	return err;
}

/* Every instance is unmounted: the module could not be removed otherwise. */
void ptags_fs_uninit(void)
{
	unregister_filesystem(&ptags_fs_type);
	remove_proc_entry("ptags", NULL);
	rcu_barrier();		/* inodes are freed after a grace period */
	kmem_cache_destroy(ptags_inode_cache);
	destroy_workqueue(ptags_exit_wq);	/* exit works have returned */
}
