// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: listing the tagged processes of a root (SPEC §3.2).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "internal.h"

struct ptags_listed {
	pid_t pid;
	int pidfd;			/* -1 without PTAGS_LIST_PIDFD */
	struct ptags_set *tags;
};

struct ptags_listing {
	size_t count;
	struct ptags_listed *e;
};

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The numeric entries of the directory @dirfd, sorted. */
static int list_pids(int dirfd, pid_t **pidsp, size_t *np)
{
	size_t n = 0, cap = 64;
	pid_t *pids, *npids;
	struct dirent *d;
	DIR *dir;
	int fd, err = 0;

	/* A description of its own: threads may list one root at once. */
	fd = pt_open_dir(dirfd, ".");
	if (fd < 0)
		return fd;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	pids = malloc(cap * sizeof(*pids));
	if (!pids) {
		closedir(dir);
		return -ENOMEM;
	}
	while ((errno = 0, d = readdir(dir))) {
		const char *s = d->d_name;
		long v;
		char *end;

		if (!isdigit((unsigned char)s[0]))
			continue;
		v = strtol(s, &end, 10);
		if (*end || v <= 0 || v > 0x7fffffff)
			continue;
		if (n == cap) {
			npids = realloc(pids, cap * 2 * sizeof(*pids));
			if (!npids) {
				err = -ENOMEM;
				break;
			}
			pids = npids;
			cap *= 2;
		}
		pids[n++] = (pid_t)v;
	}
	if (!err && errno)
		err = -errno;
	closedir(dir);
	if (err) {
		free(pids);
		return err;
	}
	qsort(pids, n, sizeof(*pids), cmp_pid);
	*pidsp = pids;
	*np = n;
	return 0;
}

void ptags_listing_free(struct ptags_listing *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->count; i++) {
		ptags_set_free(l->e[i].tags);
		if (l->e[i].pidfd >= 0)
			close(l->e[i].pidfd);
	}
	free(l->e);
	free(l);
}

/*
 * Read process @pid's entry under @dirfd; with @pidfdp, through a pidfd
 * taken first and checked after the open (as pidfd.c's pidfd_entry()).
 */
static int list_one(int dirfd, pid_t pid, int *pidfdp, struct ptags_set **set)
{
	int fd, err, pidfd = -1;

	if (pidfdp) {
		pidfd = syscall(SYS_pidfd_open, pid, 0);
		if (pidfd < 0)
			return errno == ESRCH || errno == EINVAL ? -ESRCH : -errno;
	}
	fd = pt_entry_at(dirfd, pid, O_RDONLY);
	if (fd >= 0 && pidfd >= 0) {
		err = pt_pidfd_alive(pidfd);
		if (err) {
			close(fd);
			fd = err;
		}
	}
	err = pt_read_entry(fd, set);
	if (err && pidfd >= 0)
		close(pidfd);
	else if (pidfdp)
		*pidfdp = pidfd;
	return err;
}

static int list_at(int dirfd, const char *query, int want_pidfds,
		   struct ptags_listing **out)
{
	struct ptags_listing *l;
	size_t n = 0, i;
	pid_t *pids = NULL;
	int err;

	*out = NULL;
	err = query ? ptags_query_valid(query, NULL) : 0;
	if (!err && want_pidfds)
		err = pt_root_is_ours(dirfd);
	if (!err)
		err = list_pids(dirfd, &pids, &n);
	if (err)
		return err;
	l = calloc(1, sizeof(*l));
	if (l)
		l->e = calloc(n ? n : 1, sizeof(*l->e));
	if (!l || !l->e) {
		free(l);
		free(pids);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct ptags_listed *e = &l->e[l->count];

		e->pidfd = -1;
		err = list_one(dirfd, pids[i], want_pidfds ? &e->pidfd : NULL,
			       &e->tags);
		/*
		 * Exited during the listing, or not ours to read (hidepid=
		 * noaccess lists other users' processes but refuses reads).
		 */
		if (err == -ESRCH || err == -EACCES)
			continue;
		if (err)
			break;
		e->pid = pids[i];
		l->count++;
		if (query && ptags_set_match(e->tags, query) != 1) {
			l->count--;
			ptags_set_free(e->tags);
			if (e->pidfd >= 0)
				close(e->pidfd);
		}
	}
	free(pids);
	if (err && err != -ESRCH && err != -EACCES) {
		ptags_listing_free(l);
		return err;
	}
	*out = l;
	return 0;
}

int ptags_root_list(const struct ptags_root *root, const char *query,
		    unsigned int flags, struct ptags_listing **out)
{
	*out = NULL;
	if (flags & ~PTAGS_LIST_PIDFD)
		return -EINVAL;
	return list_at(root->fd, query, !!(flags & PTAGS_LIST_PIDFD), out);
}

size_t ptags_listing_count(const struct ptags_listing *l)
{
	return l ? l->count : 0;
}

pid_t ptags_listing_pid(const struct ptags_listing *l, size_t i)
{
	return l && i < l->count ? l->e[i].pid : 0;
}

int ptags_listing_pidfd(const struct ptags_listing *l, size_t i)
{
	return l && i < l->count ? l->e[i].pidfd : -1;
}

const struct ptags_set *ptags_listing_tags(const struct ptags_listing *l,
					   size_t i)
{
	return l && i < l->count ? l->e[i].tags : NULL;
}

void ptags_list_free(struct ptags_proc *procs, size_t count)
{
	size_t i;

	for (i = 0; procs && i < count; i++)
		ptags_set_free(procs[i].tags);
	free(procs);
}

int ptags_list(const char *query, struct ptags_proc **procsp, size_t *countp)
{
	struct ptags_listing *l;
	struct ptags_proc *procs;
	size_t i;
	int fd, err;

	*procsp = NULL;
	*countp = 0;
	fd = pt_open_root_dir(ptags_root());
	if (fd < 0)
		return fd;
	err = list_at(fd, query, 0, &l);
	close(fd);
	if (err)
		return err;
	procs = calloc(l->count ? l->count : 1, sizeof(*procs));
	if (!procs) {
		ptags_listing_free(l);
		return -ENOMEM;
	}
	for (i = 0; i < l->count; i++) {
		procs[i].pid = l->e[i].pid;
		procs[i].tags = l->e[i].tags;
	}
	*countp = l->count;
	l->count = 0;		/* the sets are the caller's now */
	ptags_listing_free(l);
	*procsp = procs;
	return 0;
}
