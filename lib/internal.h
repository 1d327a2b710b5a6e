/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* libptags: declarations shared by the library's files, not exported. */
#ifndef PTAGS_LIB_INTERNAL_H
#define PTAGS_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "ptags.h"

/* Not every libc knows it yet. */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

struct ptags_root {
	int fd;		/* the directory, O_RDONLY | O_DIRECTORY */
};

struct ptags_set {
	size_t count;
	struct ptags_tag *tags;
	char *buf;		/* the names and values, NUL-terminated */
};

/* root.c */

/*
 * pt_root_trusted() - the root ptags_set_root() chose, else the default:
 * ptags_root() without $PTAGS_ROOT, for the peer checks.
 */
const char *pt_root_trusted(void);
/* A handle owning the directory @fd (closed on failure): 0 or -ENOMEM. */
int pt_root_new(int fd, struct ptags_root **rootp);

/* files.c: the root's directory and the entries of its processes */

/* Open @path (relative to @dirfd) as a directory: a descriptor or -ENODEV. */
int pt_open_dir(int dirfd, const char *path);
/* Open the directory @path, a ptags root: a descriptor, or -ENODEV. */
int pt_open_root_dir(const char *path);
/*
 * Open the entry of @pid under the root @root (ptags_root(), say).  A
 * missing entry is a missing process (-ESRCH), unless the root is missing
 * or not a ptags file system (-ENODEV).
 */
int pt_open_entry(const char *root, pid_t pid, int flags);
/* The entry of @pid (0: self) under @dirfd; a missing one is -ESRCH. */
int pt_entry_at(int dirfd, pid_t pid, int flags);
/*
 * 0 when the root @dirfd resolves pids in the caller's pid namespace (its
 * "self" is the caller), else -EXDEV.
 */
int pt_root_is_ours(int dirfd);
/* Write @text to the entry @fd (or pass on its error), then close it. */
int pt_write_entry(int fd, const char *text, size_t len);

/* read.c */

/* Read and parse the entry @fd (or pass on its error), then close it. */
int pt_read_entry(int fd, struct ptags_set **set);

/* pidfd.c */

/* 0 while the process of @pidfd runs, -ESRCH once it has exited. */
int pt_pidfd_alive(int pidfd);
/*
 * The pid, in the caller's pid namespace, of the process of @pidfd; -ESRCH
 * when it has exited or has no pid there, -EBADF when @pidfd is no pidfd.
 */
int pt_pidfd_pid(int pidfd, pid_t *pid);

/* level.c */

/*
 * pt_mountinfo_ptags() - parse one line of /proc/PID/mountinfo (proc(5)),
 * in place.  Returns 1 for a ptags mount, with *@dev (its MAJ:MIN),
 * *@dir (its mount point, unescaped, inside @line) and *@level (its
 * "level=" super option; 0 without one); 0 for a mount of another type;
 * -EINVAL for a line that is not a mountinfo line.
 */
int pt_mountinfo_ptags(char *line, dev_t *dev, char **dir, int *level);

/*
 * pt_level_mount_open() - the first ptags mount listed in the file
 * @mountinfo that shows @level, is still the one mounted at its mount
 * point, and serves the caller ("self" resolves there and is the caller).
 * A descriptor of its root, -ENOENT when none does, -ENOMEM.
 */
int pt_level_mount_open(const char *mountinfo, int level);

/* SPEC §4 (module/engine/valid.c, shared with the module): pt_utf8_seq(). */
#include "valid.h"

#endif /* PTAGS_LIB_INTERNAL_H */
