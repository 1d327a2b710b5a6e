/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the "ptags" file system: a mount's options, its inodes, and what
 * the parts share.
 *
 *   super.c   mounting, options, the inodes' life, load and unload
 *   dir.c     the root directory: lookup, names, listings, "self"
 *   entry.c   /proc/ptags/PID: open, read, write, poll; who sees what
 *   notify.c  watching (SPEC §3.5): mounts by scope, events, exits
 *
 * Writes go through module/write.c, which publishes them in turn.
 */
#ifndef PTAGS_FS_INTERNAL_H
#define PTAGS_FS_INTERNAL_H

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct pid;
struct pid_namespace;
struct task_struct;
struct user_namespace;

#define PTAGS_PID_NAME_MAX	sizeof("4294967295")
/*
 * Inode numbers, the same in a listing and in stat(): the root, "self", the
 * mount's anonymous inode, and one per process, above those.
 */
#define PTAGS_INO_ROOT		1
#define PTAGS_INO_SELF		2
#define PTAGS_INO_ANON		3
#define PTAGS_INO_PID(nr)	((u64)(nr) + 16)

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

static inline struct ptags_inode *ptags_i(struct inode *inode)
{
	return container_of(inode, struct ptags_inode, vfs);
}

static inline struct ptags_sb_info *ptags_sb(const struct super_block *sb)
{
	return sb->s_fs_info;
}

/* The inode of a process is found by its pid (iget5_locked(), ilookup5()). */
static inline int ptags_inode_test(struct inode *inode, void *pid)
{
	return inode->i_private == pid;
}

/* dir.c */
extern const struct file_operations ptags_dir_fops;
extern const struct inode_operations ptags_dir_iops;
extern const struct dentry_operations ptags_dops;
struct inode *ptags_new_inode(struct super_block *sb, umode_t mode,
			      unsigned long ino);

/* entry.c */
bool ptags_hidden(const struct ptags_sb_info *sbi, struct task_struct *task);
bool ptags_task_alive(const struct ptags_sb_info *sbi,
		      struct task_struct *task);
struct inode *ptags_pid_inode(struct super_block *sb, struct pid *pid);

/* notify.c */
int ptags_scope_join(struct ptags_sb_info *sbi);
void ptags_scope_leave(struct ptags_sb_info *sbi);
void ptags_poll_count(struct ptags_sb_info *sbi, unsigned long *polled);
void ptags_poll_uncount(struct ptags_sb_info *sbi, unsigned long *polled);
int ptags_exits_init(void);
void ptags_exits_uninit(void);
void ptags_exit_watch(struct ptags_inode *pi, struct pid *pid);
void ptags_exit_check(struct ptags_inode *pi);
void ptags_exit_unwatch(struct ptags_inode *pi, struct pid *pid);

#endif /* PTAGS_FS_INTERNAL_H */
