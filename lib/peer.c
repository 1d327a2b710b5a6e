// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: peer checks for servers -- the tags of the process at the
 * other end of a unix socket, read without being fooled by pid reuse.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "internal.h"

/* Not every libc knows it yet (SO_PEERPIDFD: Linux 6.5). */
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* 1 when the other end of @sock is closed (POLLHUP). */
static int peer_hung_up(int sock)
{
	struct pollfd p = { .fd = sock, .events = 0 };

	if (poll(&p, 1, 0) < 0)
		return -errno;
	return !!(p.revents & POLLHUP);
}

/*
 * The root a peer check reads: @root, else the one the caller chose with
 * ptags_set_root(), else /proc/ptags; never $PTAGS_ROOT, which whoever
 * started the daemon controls.  It must be a ptags file system that
 * resolves pids in the caller's pid namespace.  A descriptor to close, or
 * -ENODEV (missing, or not ptags), -EXDEV (another namespace's), ...
 */
static int peer_root(const struct ptags_root *root)
{
	struct ptags_root *own;
	int fd, err;

	if (root) {
		fd = fcntl(root->fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
	} else {
		err = ptags_root_openat(AT_FDCWD, pt_root_trusted(), 0, &own);
		if (err)
			return err;
		fd = own->fd;
		free(own);
	}
	err = pt_root_is_ours(fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int ptags_root_peer_read(const struct ptags_root *root, int sock,
			 unsigned int flags, struct ptags_peer *peer,
			 int *pidfdp, struct ptags_set **setp)
{
	struct ptags_set *set = NULL;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int pidfd = -1, rootfd, method, err;

	if (setp)
		*setp = NULL;
	if (pidfdp)
		*pidfdp = -1;
	if (flags & ~PTAGS_PEER_REQUIRE_PEERPIDFD)
		return -EINVAL;
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return -errno;
	if (cred.pid <= 0)
		/* no peer, or one not visible in our pid namespace */
		return cred.uid == (uid_t)-1 ? -ENOTCONN : -ESRCH;

	len = sizeof(pidfd);
	if (!getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len)) {
		method = PTAGS_PEER_SO_PEERPIDFD;
	} else if (errno == ENOPROTOOPT) {
		if (flags & PTAGS_PEER_REQUIRE_PEERPIDFD)
			return -EOPNOTSUPP;
		method = PTAGS_PEER_PIDFD_OPEN;
		pidfd = syscall(SYS_pidfd_open, cred.pid, 0);
		if (pidfd < 0)
			return errno == EINVAL ? -ESRCH : -errno;
		/*
		 * The pid could have been reused before pidfd_open() if the
		 * connecting process had already exited; then, unless it
		 * handed its end to someone else, that end is closed.
		 */
		err = peer_hung_up(sock);
		if (err) {
			close(pidfd);
			return err < 0 ? err : -ESRCH;
		}
	} else {
		/* The peer's process is gone (EINVAL on 6.5-6.8, ESRCH later). */
		return errno == EINVAL || errno == ESRCH ? -ESRCH : -errno;
	}

	/* A peer already gone is -ESRCH whatever else is wrong. */
	err = pt_pidfd_alive(pidfd);
	rootfd = err ? err : peer_root(root);
	if (rootfd < 0) {
		close(pidfd);
		return rootfd;
	}
	err = pt_read_entry(pt_entry_at(rootfd, cred.pid, O_RDONLY), &set);
	close(rootfd);
	/* After the read: the pidfd's process still runs, so the pid was its. */
	if (!err)
		err = pt_pidfd_alive(pidfd);
	if (err) {
		close(pidfd);
		ptags_set_free(set);
		return err;
	}
	if (peer) {
		peer->pid = cred.pid;
		peer->uid = cred.uid;
		peer->gid = cred.gid;
		peer->method = method;
	}
	if (pidfdp)
		*pidfdp = pidfd;
	else
		close(pidfd);
	if (setp)
		*setp = set;
	else
		ptags_set_free(set);
	return 0;
}

int ptags_peer_read(int sock, unsigned int flags, struct ptags_peer *peer,
		    struct ptags_set **setp)
{
	/* Version 1 ignored unknown flags; it still does. */
	return ptags_root_peer_read(NULL, sock,
				    flags & PTAGS_PEER_REQUIRE_PEERPIDFD,
				    peer, NULL, setp);
}

int ptags_peer_has(int sock, const char *query, unsigned int flags)
{
	struct ptags_set *set;
	int r;

	r = ptags_query_valid(query, NULL);
	if (r)
		return r;
	r = ptags_peer_read(sock, flags, NULL, &set);
	if (r)
		return r;
	r = ptags_set_match(set, query);
	ptags_set_free(set);
	return r;
}
