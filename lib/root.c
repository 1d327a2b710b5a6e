// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: the root -- which directory serves the PID entries, and root
 * handles (include/ptags.h, "Root").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/vfs.h>

#include "internal.h"

static char *root_override;

const char *ptags_root(void)
{
	const char *env;

	if (root_override)
		return root_override;
	env = secure_getenv("PTAGS_ROOT");
	if (env && *env)
		return env;
	return PTAGS_DEFAULT_ROOT;
}

int ptags_set_root(const char *root)
{
	char *copy = NULL;

	if (root) {
		copy = strdup(root);
		if (!copy)
			return -ENOMEM;
	}
	free(root_override);
	root_override = copy;
	return 0;
}

const char *pt_root_trusted(void)
{
	return root_override ? root_override : PTAGS_DEFAULT_ROOT;
}

/* A handle owning the directory @fd (closed on failure): 0 or -ENOMEM. */
int pt_root_new(int fd, struct ptags_root **rootp)
{
	struct ptags_root *root = malloc(sizeof(*root));

	if (!root) {
		close(fd);
		return -ENOMEM;
	}
	root->fd = fd;
	*rootp = root;
	return 0;
}

int ptags_root_openat(int dirfd, const char *path, unsigned int flags,
		      struct ptags_root **rootp)
{
	struct statfs sfs;
	int fd, err;

	*rootp = NULL;
	if (flags)
		return -EINVAL;
	fd = pt_open_dir(dirfd, path ? path : ptags_root());
	if (fd < 0)
		return fd;
	if (fstatfs(fd, &sfs))
		err = -errno;
	else
		err = sfs.f_type == PTAGS_SUPER_MAGIC ? 0 : -ENODEV;
	if (err) {
		close(fd);
		return err;
	}
	return pt_root_new(fd, rootp);
}

int ptags_root_fd(const struct ptags_root *root)
{
	return root->fd;
}

void ptags_root_close(struct ptags_root *root)
{
	if (root) {
		close(root->fd);
		free(root);
	}
}
