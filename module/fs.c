// SPDX-License-Identifier: GPL-2.0
/*
 * The "ptags" file system (SPEC §3): one superblock per pid namespace, like
 * procfs.  Its root holds "self" and one regular file per process or thread,
 * found on lookup; a listing shows the tagged processes only.  The module
 * mounts an instance on /proc/ptags when it loads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/umh.h>
#include <linux/user_namespace.h>

#include "uapi/ptags.h"
#include "compat.h"
#include "ptags.h"

#define PTAGS_MAGIC		0x70746167	/* "ptag" */
#define PTAGS_POS_FIRST_PID	3		/* after ".", ".." and "self" */

/* What an open /proc/ptags/PID remembers. */
struct ptags_file {
	struct mutex lock;		/* serialises reads of the snapshot */
	struct pt_set *snap;		/* read snapshot (NULL: empty) */
	bool have_snap;
	/* SPEC §5.5, for files opened for writing: */
	struct pid *opener;		/* the opener's thread-group id */
	struct pt_set *opener_set;	/* its tags when it opened the file */
	bool opener_priv;		/* its privilege when it opened it */
};

/* What an open /proc/ptags directory remembers: the listing's snapshot. */
struct ptags_dir {
	struct mutex lock;		/* serialises readers of the snapshot */
	u32 *pids;
	unsigned int n;
	bool have_pids;
};

/* SPEC §5.4: CAP_MAC_ADMIN in the initial user namespace, or a kthread. */
static bool ptags_privileged(void)
{
	return (current->flags & PF_KTHREAD) ||
	       ns_capable_noaudit(&init_user_ns, CAP_MAC_ADMIN);
}

/* SPEC §3.2: a process whose threads have all exited has no entry. */
static bool ptags_task_alive(struct task_struct *task)
{
	return task && atomic_read(&task->signal->live);
}

/* The task of a /proc/ptags/PID inode, referenced, or NULL if it exited. */
static struct task_struct *ptags_inode_task(struct inode *inode)
{
	struct task_struct *task = get_pid_task(inode->i_private, PIDTYPE_PID);

	if (task && !ptags_task_alive(task)) {
		put_task_struct(task);
		task = NULL;
	}
	return task;
}

static int ptags_file_open(struct inode *inode, struct file *file)
{
	struct task_struct *task = ptags_inode_task(inode);
	struct ptags_file *f;

	if (!task)
		return -ESRCH;
	put_task_struct(task);

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	if (file->f_mode & FMODE_WRITE) {
		f->opener = get_pid(task_tgid(current));
		f->opener_set = ptags_task_set(current);
		f->opener_priv = ptags_privileged();
	}
	file->private_data = f;
	return 0;
}

static int ptags_file_release(struct inode *inode, struct file *file)
{
	struct ptags_file *f = file->private_data;

	pt_set_put(f->snap);
	pt_set_put(f->opener_set);
	put_pid(f->opener);
	kfree(f);
	return 0;
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
	ssize_t done = 0;
	size_t n;
	char *page;

	if (*ppos < 0)
		return -EINVAL;
	page = (char *)__get_free_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;

	mutex_lock(&f->lock);
	if (*ppos == 0 || !f->have_snap) {
		task = ptags_inode_task(file_inode(file));
		if (!task) {
			done = -ESRCH;
			goto out;
		}
		pt_set_put(f->snap);
		f->snap = ptags_task_set(task);
		f->have_snap = true;
		put_task_struct(task);
	}
	while (count) {
		n = pt_set_render(f->snap, *ppos, page,
				  min_t(size_t, count, PAGE_SIZE));
		if (!n)
			break;
		if (copy_to_user(ubuf + done, page, n)) {
			if (!done)
				done = -EFAULT;
			break;
		}
		*ppos += n;
		done += n;
		count -= n;
	}
out:
	mutex_unlock(&f->lock);
	free_page((unsigned long)page);
	return done;
}

/*
 * Apply @buf to @task's set as one transaction, retrying when the set
 * changed under us (another write, an exec) so that no change is lost.
 */
static int ptags_apply(struct task_struct *task, const char *buf, size_t len,
		       const struct pt_writer *w)
{
	const struct pt_limits lim = {
		.max_tags = READ_ONCE(ptags_max_tags),
		.max_bytes = READ_ONCE(ptags_max_bytes),
	};
	struct pt_result res;
	struct pt_set *old;
	int err;

	do {
		old = ptags_task_set(task);
		err = pt_apply(old, buf, len, w, &lim, &res);
		if (!err && res.changed)
			err = ptags_task_replace(task, old, res.set);
		pt_set_put(old);
	} while (err == -EAGAIN);
	return err;
}

/**
 * ptags_file_write - one write(2) is one transaction (SPEC §3.4)
 * @file: an open /proc/ptags/PID
 * @ubuf: the lines
 * @count: their length in bytes
 * @ppos: unused: every write is a whole transaction
 *
 * Return: @count, or
 * -E2BIG when @count exceeds max_write;
 * -EINVAL for a malformed line, invalid name, value, pattern or UTF-8, or a
 * missing final newline;
 * -EPERM when a change is not allowed (SPEC §5);
 * -ENOENT when "!" names an absent tag or "?" matches nothing;
 * -ECANCELED when max_tags or max_bytes would be exceeded;
 * -ENOMEM; -EFAULT;
 * -ESRCH when the process has exited.
 */
static ssize_t ptags_file_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct ptags_file *f = file->private_data;
	struct task_struct *task;
	struct pt_writer w;
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
	if (copy_from_user(buf, ubuf, count)) {
		err = -EFAULT;
		goto out_buf;
	}
	task = ptags_inode_task(file_inode(file));
	if (!task) {
		err = -ESRCH;
		goto out_buf;
	}

	w.rights = ptags_task_set(current);
	w.opener = f->opener_set;
	w.same_opener = task_tgid(current) == f->opener;
	w.self = task->signal == current->signal;
	w.privileged = f->opener_priv && ptags_privileged();
	err = ptags_apply(task, buf, count, &w);
	pt_set_put((struct pt_set *)w.rights);
	put_task_struct(task);
out_buf:
	kvfree(buf);
out:
	if (err) {
		ptags_count(&ptags_stats.refused, 1);
		return err;
	}
	return count;
}

static const struct file_operations ptags_file_fops = {
	.owner = THIS_MODULE,
	.open = ptags_file_open,
	.release = ptags_file_release,
	.read = ptags_file_read,
	.write = ptags_file_write,
	.llseek = default_llseek,
};

/* "self": a link to the caller's own entry in this mount's pid namespace. */
static const char *ptags_self_get_link(struct dentry *dentry,
				       struct inode *inode,
				       struct delayed_call *done)
{
	struct pid_namespace *ns = inode->i_sb->s_fs_info;
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

static struct inode *ptags_new_inode(struct super_block *sb, umode_t mode)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = get_next_ino();
	inode->i_mode = mode;
	ptags_inode_init_times(inode);
	return inode;
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

static struct dentry *ptags_lookup(struct inode *dir, struct dentry *dentry,
				   unsigned int flags)
{
	struct pid_namespace *ns = dir->i_sb->s_fs_info;
	struct task_struct *task;
	struct inode *inode;
	struct pid *pid;
	pid_t nr;

	if (dentry->d_name.len == 4 && !memcmp(dentry->d_name.name, "self", 4)) {
		inode = ptags_new_inode(dir->i_sb, S_IFLNK | 0777);
		if (!inode)
			return ERR_PTR(-ENOMEM);
		inode->i_op = &ptags_self_iops;
		d_add(dentry, inode);
		return NULL;
	}
	if (!ptags_parse_pid(&dentry->d_name, &nr))
		return ERR_PTR(-ENOENT);

	rcu_read_lock();
	pid = find_pid_ns(nr, ns);
	task = pid ? pid_task(pid, PIDTYPE_PID) : NULL;
	pid = ptags_task_alive(task) ? get_pid(pid) : NULL;
	rcu_read_unlock();
	if (!pid)
		return ERR_PTR(-ENOENT);

	inode = ptags_new_inode(dir->i_sb, S_IFREG | 0666);
	if (!inode) {
		put_pid(pid);
		return ERR_PTR(-ENOMEM);
	}
	inode->i_private = pid;		/* put by ptags_evict_inode() */
	inode->i_fop = &ptags_file_fops;
	d_add(dentry, inode);
	return NULL;
}

/* A cached entry stays valid only while its process lives (no pid reuse). */
static int ptags_revalidate(PTAGS_REVALIDATE_ARGS)
{
	struct inode *inode;
	struct task_struct *task;

	if (flags & LOOKUP_RCU)
		return -ECHILD;
	inode = d_inode(dentry);
	if (!inode || !S_ISREG(inode->i_mode))
		return 1;
	task = ptags_inode_task(inode);
	if (!task)
		return 0;
	put_task_struct(task);
	return 1;
}

static const struct dentry_operations ptags_dops = {
	.d_revalidate = ptags_revalidate,
	.d_delete = always_delete_dentry,
};

static int ptags_dir_open(struct inode *inode, struct file *file)
{
	struct ptags_dir *d = kzalloc(sizeof(*d), GFP_KERNEL);

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
 * stays tagged for the whole listing appears exactly once.
 */
static int ptags_readdir(struct file *file, struct dir_context *ctx)
{
	struct pid_namespace *ns = file_inode(file)->i_sb->s_fs_info;
	struct ptags_dir *d = file->private_data;
	bool fresh = ctx->pos < PTAGS_POS_FIRST_PID;
	char name[16];
	loff_t i;
	int len, err = 0;

	if (!dir_emit_dots(file, ctx))
		return 0;
	if (ctx->pos == 2) {
		if (!dir_emit(ctx, "self", 4, 2, DT_LNK))
			return 0;
		ctx->pos++;
	}

	mutex_lock(&d->lock);
	if (fresh || !d->have_pids) {
		kvfree(d->pids);
		d->pids = NULL;
		d->have_pids = false;
		err = ptags_table_pids(ns, &d->pids, &d->n);
		if (err)
			goto out;
		d->have_pids = true;
	}
	for (i = ctx->pos - PTAGS_POS_FIRST_PID; i < d->n; i++) {
		len = snprintf(name, sizeof(name), "%u", d->pids[i]);
		if (!dir_emit(ctx, name, len, (u64)d->pids[i] + 16, DT_REG))
			break;
		ctx->pos++;
	}
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
	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	put_pid(inode->i_private);	/* NULL but for pid files */
}

static const struct super_operations ptags_sops = {
	.statfs = simple_statfs,
	.drop_inode = ptags_drop_inode,
	.evict_inode = ptags_evict_inode,
};

static int ptags_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct inode *root;

	/* The superblock owns a reference on its pid namespace (its key). */
	get_pid_ns(sb->s_fs_info);

	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = PTAGS_MAGIC;
	sb->s_op = &ptags_sops;
	ptags_set_default_d_op(sb, &ptags_dops);
	sb->s_time_gran = 1;
	sb->s_iflags |= SB_I_NOEXEC | SB_I_NODEV;

	root = ptags_new_inode(sb, S_IFDIR | 0555);
	if (!root)
		return -ENOMEM;
	root->i_op = &ptags_dir_iops;
	root->i_fop = &ptags_dir_fops;
	set_nlink(root, 2);
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

/* SPEC §3.1: a mount resolves pids in the pid namespace of its mounter. */
static int ptags_get_tree(struct fs_context *fc)
{
	return get_tree_keyed(fc, ptags_fill_super, fc->fs_private);
}

static void ptags_free_fc(struct fs_context *fc)
{
	if (fc->fs_private)
		put_pid_ns(fc->fs_private);
}

static const struct fs_context_operations ptags_context_ops = {
	.get_tree = ptags_get_tree,
	.free = ptags_free_fc,
};

static int ptags_init_fs_context(struct fs_context *fc)
{
	struct pid_namespace *ns = task_active_pid_ns(current);

	fc->fs_private = get_pid_ns(ns);
	/* Whoever may mount procfs for this pid namespace may mount us. */
	put_user_ns(fc->user_ns);
	fc->user_ns = get_user_ns(ns->user_ns);
	fc->ops = &ptags_context_ops;
	return 0;
}

static void ptags_kill_sb(struct super_block *sb)
{
	struct pid_namespace *ns = sb->s_fs_info;

	kill_anon_super(sb);
	put_pid_ns(ns);
}

static struct file_system_type ptags_fs_type = {
	.owner = THIS_MODULE,
	.name = PTAGS_FS_TYPE,
	.init_fs_context = ptags_init_fs_context,
	.kill_sb = ptags_kill_sb,
	.fs_flags = FS_USERNS_MOUNT,
};
MODULE_ALIAS_FS(PTAGS_FS_TYPE);

static bool ptags_automount = true;
module_param_named(automount, ptags_automount, bool, 0444);
MODULE_PARM_DESC(automount, "Mount /proc/ptags when the module loads (default: yes)");

/*
 * SPEC §3.1: no kernel interface a module may call attaches a mount to a
 * path, so the module runs mount(8) as a usermode helper: it starts in the
 * initial namespaces with full privilege and returns once the mount is done.
 */
static int ptags_mount_proc(void)
{
	static const char *const helpers[] = {
		"/bin/mount", "/usr/bin/mount", "/sbin/mount", "/usr/sbin/mount",
	};
	static char *envp[] = {
		"HOME=/", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL
	};
	char *argv[] = {
		NULL, "-t", PTAGS_FS_TYPE, PTAGS_FS_TYPE, PTAGS_DEFAULT_ROOT, NULL
	};
	unsigned int i;
	int ret = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(helpers) && ret == -ENOENT; i++) {
		argv[0] = (char *)helpers[i];
		ret = call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
	}
	return ret;
}

int ptags_fs_init(void)
{
	int err;

	err = register_filesystem(&ptags_fs_type);
	if (err)
		return err;
	if (!proc_create_mount_point("ptags")) {
		unregister_filesystem(&ptags_fs_type);
		return -ENOMEM;
	}
	if (ptags_automount) {
		err = ptags_mount_proc();
		if (err)
			pr_warn("cannot mount %s (%d): run \"mount -t %s %s %s\"\n",
				PTAGS_DEFAULT_ROOT, err, PTAGS_FS_TYPE,
				PTAGS_FS_TYPE, PTAGS_DEFAULT_ROOT);
	}
	return 0;
}

/* Every instance is unmounted: the module could not be removed otherwise. */
void ptags_fs_uninit(void)
{
	remove_proc_entry("ptags", NULL);
	unregister_filesystem(&ptags_fs_type);
}
