/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels ptags supports (Debian's 5.10, 6.1,
 * 6.12 and 7.2) lives here, each shim naming the version that changed.
 */
#ifndef PTAGS_COMPAT_H
#define PTAGS_COMPAT_H

#include <linux/sched.h>
#include <linux/version.h>

/*
 * 5.14 renamed task_struct.state to __state ("sched: Change task_struct::state").
 * TASK_NEW marks a task that copy_process() built and that has not been
 * woken yet.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 14, 0)
#define ptags_task_is_new(t)	(READ_ONCE((t)->__state) == TASK_NEW)
#else
#define ptags_task_is_new(t)	(READ_ONCE((t)->state) == TASK_NEW)
#endif

/*
 * 6.16 added "bool group_dead" to the sched_process_exit tracepoint.  The
 * probe ignores it: signal->live tells the same on every kernel.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define PTAGS_EXIT_PROBE_ARGS	struct task_struct *p, bool group_dead
#else
#define PTAGS_EXIT_PROBE_ARGS	struct task_struct *p
#endif

/*
 * 6.7 stopped exposing i_atime/i_mtime/i_ctime directly and added
 * simple_inode_init_ts() ("fs: add infrastructure for multigrain timestamps").
 */
#include <linux/fs.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#define ptags_inode_init_times(inode)	simple_inode_init_ts(inode)
#else
static inline void ptags_inode_init_times(struct inode *inode)
{
	struct timespec64 now = current_time(inode);

	inode->i_atime = now;
	inode->i_mtime = now;
	inode->i_ctime = now;
}
#endif

/*
 * 6.14 gave d_revalidate the parent directory and the name
 * ("make d_revalidate() take the name and parent inode").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#define PTAGS_REVALIDATE_ARGS	struct inode *dir, const struct qstr *name, \
				struct dentry *dentry, unsigned int flags
#define PTAGS_REVALIDATE_NAME	name
#else
#define PTAGS_REVALIDATE_ARGS	struct dentry *dentry, unsigned int flags
#define PTAGS_REVALIDATE_NAME	(&dentry->d_name)
#endif

/*
 * 6.17 made the superblock's default dentry operations private
 * (s_d_op became __s_d_op) behind set_default_d_op().  Probed in Kbuild.
 */
#ifdef PTAGS_HAVE_SET_DEFAULT_D_OP
#define ptags_set_default_d_op(sb, ops)	set_default_d_op(sb, ops)
#else
#define ptags_set_default_d_op(sb, ops)	((sb)->s_d_op = (ops))
#endif

/*
 * 6.18 renamed generic_delete_inode() to inode_just_drop() (same
 * behaviour: never cache an unused inode).  Probed in Kbuild.
 */
#ifdef PTAGS_HAVE_INODE_JUST_DROP
#define ptags_drop_inode	inode_just_drop
#else
#define ptags_drop_inode	generic_delete_inode
#endif

/*
 * 6.12 made the fsnotify mode of an open file two bits ("fsnotify: add
 * pre-content hooks"): FMODE_NONOTIFY alone still means "no events".
 */
#ifdef FMODE_FSNOTIFY_MASK
#define ptags_file_nonotify(f) \
	((f)->f_mode = ((f)->f_mode & ~FMODE_FSNOTIFY_MASK) | FMODE_NONOTIFY)
#else
#define ptags_file_nonotify(f)	((f)->f_mode |= FMODE_NONOTIFY)
#endif

/*
 * After 6.12 (7.2 has it), inode->i_state became a structure read through
 * accessors such as inode_state_read_once().  Probed in Kbuild.
 */
#ifdef PTAGS_HAVE_INODE_STATE_READ_ONCE
#define ptags_inode_is_new(inode)	(inode_state_read_once(inode) & I_NEW)
#else
#define ptags_inode_is_new(inode)	((inode)->i_state & I_NEW)
#endif

/*
 * 5.18 added alloc_inode_sb() (memcg-aware inode allocation); before, the
 * cache's own allocation.  Probed in Kbuild.
 */
#ifdef PTAGS_HAVE_ALLOC_INODE_SB
#define ptags_alloc_inode_sb(sb, cache)	alloc_inode_sb(sb, cache, GFP_KERNEL)
#else
#define ptags_alloc_inode_sb(sb, cache)	kmem_cache_alloc(cache, GFP_KERNEL)
#endif

/*
 * After 6.1 (6.12 has it), the superblock's fsnotify state moved behind
 * struct fsnotify_sb_info, read with fsnotify_sb_has_watchers().  Probed
 * in Kbuild.
 */
#ifdef PTAGS_HAVE_FSNOTIFY_SB_HAS_WATCHERS
#define ptags_sb_watched(sb)	fsnotify_sb_has_watchers(sb)
#else
#define ptags_sb_watched(sb)	(atomic_long_read(&(sb)->s_fsnotify_connectors) != 0)
#endif

#endif /* PTAGS_COMPAT_H */
