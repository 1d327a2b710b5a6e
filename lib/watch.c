// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: watching a root and chosen processes (SPEC §3.5) with inotify.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/inotify.h>

#include "internal.h"

#define WATCH_DIR_MASK	(IN_CREATE | IN_DELETE | IN_MODIFY | IN_ONLYDIR)
#define WATCH_ENTRY_MASK	(IN_MODIFY | IN_DELETE_SELF)

struct watched {
	int wd;
	pid_t pid;
	int pidfd;
};

struct ptags_watch {
	int fd;			/* inotify */
	int rootfd;		/* a descriptor of the root (ours) */
	int dirwd;		/* -1: the directory is not watched */
	struct watched *e;
	size_t n, cap;
	char buf[16 * (sizeof(struct inotify_event) + 16)]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	size_t len, off;	/* unread events in buf */
};

int ptags_watch_open(const struct ptags_root *root, unsigned int flags,
		     struct ptags_watch **wp)
{
	struct ptags_watch *w;

	*wp = NULL;
	if (flags & ~PTAGS_WATCH_ALL)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->dirwd = -1;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->rootfd = fcntl(root->fd, F_DUPFD_CLOEXEC, 0);
	if (w->fd < 0 || w->rootfd < 0) {
		int err = -errno;

		ptags_watch_close(w);
		return err;
	}
	if (flags & PTAGS_WATCH_ALL) {
		char path[64];

		/* inotify takes paths: the root's, through our descriptor. */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", w->rootfd);
		w->dirwd = inotify_add_watch(w->fd, path, WATCH_DIR_MASK);
		if (w->dirwd < 0) {
			int err = -errno;

			ptags_watch_close(w);
			return err;
		}
	}
	*wp = w;
	return 0;
}

int ptags_watch_fd(const struct ptags_watch *w)
{
	return w->fd;
}

void ptags_watch_close(struct ptags_watch *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->n; i++)
		close(w->e[i].pidfd);
	free(w->e);
	if (w->fd >= 0)
		close(w->fd);
	if (w->rootfd >= 0)
		close(w->rootfd);
	free(w);
}

int ptags_watch_pidfd(struct ptags_watch *w, int pidfd)
{
	struct watched *ne;
	char path[64];
	pid_t pid;
	int err, wd, dup;

	err = pt_root_is_ours(w->rootfd);
	if (!err)
		err = pt_pidfd_pid(pidfd, &pid);
	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%d", w->rootfd, (int)pid);
	wd = inotify_add_watch(w->fd, path, WATCH_ENTRY_MASK);
	if (wd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	/* The same entry again: one inode, one watch, reported once. */
	for (size_t i = 0; i < w->n; i++)
		if (w->e[i].wd == wd)
			return 0;
	/* As pidfd_entry() (pidfd.c): the entry is the pidfd's process's. */
	err = pt_pidfd_alive(pidfd);
	dup = err ? -1 : fcntl(pidfd, F_DUPFD_CLOEXEC, 0);
	if (!err && dup < 0)
		err = -errno;
	if (!err && w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 8;

		ne = realloc(w->e, cap * sizeof(*ne));
		if (!ne)
			err = -ENOMEM;
		else {
			w->e = ne;
			w->cap = cap;
		}
	}
	if (err) {
		if (dup >= 0)
			close(dup);
		inotify_rm_watch(w->fd, wd);
		return err;
	}
	w->e[w->n++] = (struct watched){ wd, pid, dup };
	return 0;
}

static struct watched *watched_of(struct ptags_watch *w, int wd)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->e[i].wd == wd)
			return &w->e[i];
	return NULL;
}

static void watched_drop(struct ptags_watch *w, struct watched *e)
{
	close(e->pidfd);
	*e = w->e[--w->n];
}

/* Has the process @pid of the root gone (as far as the root can tell)? */
static int gone(int rootfd, pid_t pid)
{
	int fd = pt_entry_at(rootfd, pid, O_RDONLY);

	if (fd >= 0)
		close(fd);
	return fd == -ESRCH;
}

int ptags_watch_next(struct ptags_watch *w, pid_t *pid, unsigned int *what)
{
	for (;;) {
		const struct inotify_event *ev;
		struct watched *e;
		ssize_t n;

		if (w->off >= w->len) {
			n = read(w->fd, w->buf, sizeof(w->buf));
			if (n < 0)
				return errno == EAGAIN ? 0 : -errno;
			if (!n)
				return 0;
			w->len = n;
			w->off = 0;
		}
		ev = (const struct inotify_event *)(w->buf + w->off);
		w->off += sizeof(*ev) + ev->len;
		*pid = 0;
		if (ev->mask & IN_Q_OVERFLOW) {
			*what = PTAGS_WATCH_OVERFLOW;
			return 1;
		}
		if (ev->wd == w->dirwd && ev->len) {
			char *end;
			long v = strtol(ev->name, &end, 10);

			if (*end || v <= 0)
				continue;
			*pid = (pid_t)v;
			if (ev->mask & IN_CREATE)
				*what = PTAGS_WATCH_TAGGED;
			else if (ev->mask & IN_MODIFY)
				*what = PTAGS_WATCH_CHANGED;
			else if (ev->mask & IN_DELETE)
				*what = gone(w->rootfd, *pid) ?
					PTAGS_WATCH_EXITED : PTAGS_WATCH_UNTAGGED;
			else
				continue;
			return 1;
		}
		e = watched_of(w, ev->wd);
		if (!e)
			continue;
		*pid = e->pid;
		if (ev->mask & IN_IGNORED) {
			watched_drop(w, e);
			continue;
		}
		if (ev->mask & IN_DELETE_SELF) {
			/* Its last event: nothing of it is kept after. */
			inotify_rm_watch(w->fd, e->wd);
			watched_drop(w, e);
			*what = PTAGS_WATCH_EXITED;
			return 1;
		}
		if (ev->mask & IN_MODIFY) {
			*what = PTAGS_WATCH_CHANGED;
			return 1;
		}
	}
}

const char *ptags_watch_what(unsigned int what)
{
	switch (what) {
	case PTAGS_WATCH_TAGGED:
		return "tagged";
	case PTAGS_WATCH_CHANGED:
		return "changed";
	case PTAGS_WATCH_UNTAGGED:
		return "untagged";
	case PTAGS_WATCH_EXITED:
		return "exited";
	case PTAGS_WATCH_OVERFLOW:
		return "overflow";
	}
	return "unknown";
}
