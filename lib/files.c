// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: what the sections share -- opening a root and the entries of
 * its processes, writing an entry (SPEC §3.4).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/vfs.h>

#include "internal.h"

/*
 * Is @fd a file of a ptags file system?  0, or -ENODEV: whatever path
 * PTAGS_ROOT or the caller names (an empty /proc/ptags of a container's own
 * procfs, a directory of forged files), only ptags's own files are read as
 * tags.  The host tests' build (PTAGS_TEST_ANY_ROOT, never installed)
 * reads a plain directory instead.
 */
static int on_ptags(int fd)
{
#ifdef PTAGS_TEST_ANY_ROOT
	(void)fd;
	return 0;
#else
	struct statfs sfs;

	if (fstatfs(fd, &sfs))
		return -errno;
	return sfs.f_type == PTAGS_SUPER_MAGIC ? 0 : -ENODEV;
#endif
}

/* Open the directory @path, a ptags root: a descriptor, or -ENODEV. */
int pt_open_root_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENODEV : -errno;
	err = on_ptags(fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Open the entry of @pid under the root @root.  A missing entry is a missing
 * process (-ESRCH), unless the root is missing or not a ptags file system
 * (-ENODEV).
 */
int pt_open_entry(const char *root, pid_t pid, int flags)
{
	char path[4096];
	int fd, n, err;

	if (pid < 0)
		return -EINVAL;
	if (pid)
		n = snprintf(path, sizeof(path), "%s/%d", root, (int)pid);
	else
		n = snprintf(path, sizeof(path), "%s/self", root);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, flags | O_CLOEXEC);
	if (fd >= 0) {
		err = on_ptags(fd);
		if (err) {
			close(fd);
			return err;
		}
		return fd;
	}
	if (errno != ENOENT)
		return -errno;
	fd = pt_open_root_dir(root);
	if (fd < 0)
		return fd;
	close(fd);
	return -ESRCH;
}

/* Open @path (relative to @dirfd) as a directory: a descriptor or -ENODEV. */
int pt_open_dir(int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENODEV : -errno;
	return fd;
}

/* The entry of @pid (0: self) under @dirfd; a missing one is -ESRCH. */
int pt_entry_at(int dirfd, pid_t pid, int flags)
{
	char name[32];
	int fd;

	if (pid < 0)
		return -EINVAL;
	if (pid)
		snprintf(name, sizeof(name), "%d", (int)pid);
	else
		strcpy(name, "self");
	fd = openat(dirfd, name, flags | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return fd;
}

/*
 * 0 when the root @dirfd resolves pids in the caller's pid namespace (its
 * "self" is the caller), else -EXDEV.  A root of another namespace where
 * the caller has the same pid number passes: pid numbers say no more.
 */
int pt_root_is_ours(int dirfd)
{
	char link[32], me[32];
	ssize_t n;

	n = readlinkat(dirfd, "self", link, sizeof(link) - 1);
	if (n < 0 || n >= (ssize_t)sizeof(link) - 1)
		return -EXDEV;	/* the caller has no pid there */
	link[n] = 0;
	snprintf(me, sizeof(me), "%d", (int)getpid());
	return strcmp(link, me) ? -EXDEV : 0;
}

/* Write @text to the entry @fd (or pass on its error), then close it. */
int pt_write_entry(int fd, const char *text, size_t len)
{
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return fd;
	/* One write(2) is one transaction (SPEC §3.4): never split it. */
	do
		n = write(fd, text, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}
