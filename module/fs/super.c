// SPDX-License-Identifier: GPL-2.0
/*
 * The "ptags" file system (SPEC §3): one superblock per mount, resolving pids
 * in its mounter's pid namespace like procfs, and showing one level of tags
 * (SPEC §12: a user namespace; the initial one unless "level=" says
 * otherwise).  Its root holds "self" and one regular file per process or
 * thread of the level, found on lookup; a listing shows the processes tagged
 * at the level only (dir.c, entry.c).  The module mounts an instance on
 * /proc/ptags when it loads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/umh.h>
#include <linux/user_namespace.h>

#include "uapi/linux/ptags.h"
#include "compat.h"
#include "level.h"
#include "fs/fs.h"
#include "fs/internal.h"

static struct kmem_cache *ptags_inode_cache;

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

static void ptags_evict_inode(struct inode *inode)
{
	struct ptags_inode *pi = ptags_i(inode);
	struct pid *pid = inode->i_private;	/* NULL but for pid files */

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	if (!pid)
		return;
	ptags_exit_unwatch(pi, pid);
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
	int err;

	err = ptags_exits_init();
	if (err)
		return err;
	ptags_inode_cache = kmem_cache_create("ptags_inode",
					      sizeof(struct ptags_inode), 0,
					      SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT,
					      ptags_inode_once);
	if (!ptags_inode_cache) {
		err = -ENOMEM;
		goto err_exits;
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
err_exits:
	ptags_exits_uninit();
	return err;
}

/* Every instance is unmounted: the module could not be removed otherwise. */
void ptags_fs_uninit(void)
{
	unregister_filesystem(&ptags_fs_type);
	remove_proc_entry("ptags", NULL);
	rcu_barrier();		/* inodes are freed after a grace period */
	kmem_cache_destroy(ptags_inode_cache);
	ptags_exits_uninit();
}
