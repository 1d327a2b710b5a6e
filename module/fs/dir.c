// SPDX-License-Identifier: GPL-2.0
/*
 * The root of a "ptags" mount (SPEC §3.2): "self", one name per process or
 * thread of the mount's level, found on lookup, and a listing of the
 * processes tagged at the level only.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/threads.h>

#include "compat.h"
#include "table/table.h"
#include "fs/internal.h"

#define PTAGS_POS_FIRST_PID	3		/* after ".", ".." and "self" */

/* What an open /proc/ptags directory remembers: the listing's snapshot. */
struct ptags_dir {
	struct mutex lock;		/* serialises readers of the snapshot */
	u32 *pids;
	unsigned int n;
	bool have_pids;
	loff_t end;			/* where the last listing ended (0: none) */
};

struct inode *ptags_new_inode(struct super_block *sb, umode_t mode,
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

const struct dentry_operations ptags_dops = {
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

const struct file_operations ptags_dir_fops = {
	.owner = THIS_MODULE,
	.open = ptags_dir_open,
	.release = ptags_dir_release,
	.read = generic_read_dir,
	.iterate_shared = ptags_readdir,
	.llseek = generic_file_llseek,
};

const struct inode_operations ptags_dir_iops = {
	.lookup = ptags_lookup,
};
