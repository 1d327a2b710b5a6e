// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/ptags/PID (SPEC §3.2-§3.5): one inode per process and mount; who
 * may see it (SPEC §3.1, §12); reading a snapshot, writing a transaction,
 * polling for changes.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/user_namespace.h>

#include "audit.h"
#include "compat.h"
#include "level.h"
#include "stats.h"
#include "table/table.h"
#include "write.h"
#include "fs/internal.h"
#include "ptags_trace.h"

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
bool ptags_hidden(const struct ptags_sb_info *sbi, struct task_struct *task)
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
bool ptags_task_alive(const struct ptags_sb_info *sbi,
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

	ptags_poll_uncount(ptags_sb(inode->i_sb), &f->polled);
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

/**
 * ptags_file_write_iter - one write system call is one transaction (SPEC §3.4)
 * @iocb: the call on an open /proc/ptags/PID (its position is not used)
 * @from: the lines, in as many buffers as the call has (writev, io_uring)
 *
 * Return: the number of bytes, or the errno that the "Errors" section of
 * include/uapi/linux/ptags.h gives for a write, checked in the order it
 * gives.
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
	err = ptags_write_apply(task, sbi->level, buf, count, &w, &changed);
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

	ptags_poll_count(ptags_sb(inode->i_sb), &f->polled);
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

static int ptags_inode_set(struct inode *inode, void *pid)
{
	inode->i_private = get_pid(pid);	/* put by ptags_evict_inode(), super.c */
	return 0;
}

/* The inode of process @pid in @sb: the existing one, or a new one. */
struct inode *ptags_pid_inode(struct super_block *sb, struct pid *pid)
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
	ptags_exit_watch(pi, pid);
	unlock_new_inode(inode);
	/* It may have exited before we were on the queue. */
	ptags_exit_check(pi);
	return inode;
}
