// SPDX-License-Identifier: GPL-2.0
/*
 * Loader of the BPF peer (peer.bpf.c) for the benchmark, on the skeleton
 * that bpftool generates from it.  The blob of a process is the value of
 * the task-storage map under the key "pidfd of that process".
 *
 * bpf_peer_spawn() loads it in a child process instead, which hands the
 * map over: the caller then only makes bpf(2) calls (libbpf's
 * bpf_map_update_elem(), _lookup_elem() and _delete_elem() fill a union
 * bpf_attr on the stack and call syscall(): nothing allocated).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "peer.h"
#include "peer.skel.h"

static struct peer_bpf *skel;
static int map_fd = -1;

/* bpf_peer_spawn(): the loader child and our end of its socket. */
static pid_t loader;
static int loader_sock = -1;

int bpf_peer_load(void)
{
	int err;

	if (skel)
		return -EALREADY;
	skel = peer_bpf__open_and_load();
	if (!skel)
		return -errno ?: -EINVAL;
	err = peer_bpf__attach(skel);
	if (err) {
		peer_bpf__destroy(skel);
		skel = NULL;
		return err;
	}
	map_fd = bpf_map__fd(skel->maps.peer_tags);
	return 0;
}

/* One int, and @fd with it when @fd >= 0. */
static int send_fd(int sock, int val, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = &val, .iov_len = sizeof(val) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) != sizeof(val))
		return -EIO;
	return 0;
}

/* What send_fd() sent; *@fd is -1 when no descriptor came with it. */
static int recv_fd(int sock, int *val, int *fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = val, .iov_len = sizeof(*val) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;

	*fd = -1;
	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != sizeof(*val))
		return -EIO;
	cm = CMSG_FIRSTHDR(&mh);
	if (cm && cm->cmsg_level == SOL_SOCKET &&
	    cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(cm), sizeof(int));
	if (mh.msg_flags & MSG_CTRUNC)
		return -EIO;
	return 0;
}

/*
 * The loader child: load, send the result and the map, then answer each
 * byte received with bpf_peer_lost() until the other end is closed; unload
 * then (the links go with this process's descriptors at the latest).
 */
static void __attribute__((noreturn)) loader_main(int sock)
{
	int err = bpf_peer_load();
	long lost;
	char c;

	if (send_fd(sock, err, err ? -1 : map_fd) || err)
		_exit(1);
	while (read(sock, &c, 1) == 1) {
		lost = bpf_peer_lost();
		if (send(sock, &lost, sizeof(lost), MSG_NOSIGNAL) !=
		    sizeof(lost))
			break;
	}
	bpf_peer_unload();
	_exit(0);
}

int bpf_peer_spawn(void)
{
	int sv[2], err, val, fd;
	pid_t pid;

	if (skel || loader)
		return -EALREADY;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (!pid) {
		close(sv[0]);
		loader_main(sv[1]);
	}
	close(sv[1]);
	err = recv_fd(sv[0], &val, &fd);
	if (!err && !val && fd < 0)
		err = -EIO;
	if (err || val) {
		if (fd >= 0)
			close(fd);
		close(sv[0]);
		waitpid(pid, NULL, 0);
		return err ?: val;
	}
	loader = pid;
	loader_sock = sv[0];
	map_fd = fd;
	return 0;
}

pid_t bpf_peer_loader(void)
{
	return loader;
}

void bpf_peer_unload(void)
{
	if (loader) {
		/* Our map reference first, then the loader's links. */
		close(map_fd);
		close(loader_sock);
		waitpid(loader, NULL, 0);
		loader = 0;
		loader_sock = -1;
	} else {
		peer_bpf__destroy(skel);
		skel = NULL;
	}
	map_fd = -1;
}

void bpf_peer_blob_init(struct peer_blob *b)
{
	b->count = 0;
	b->nkept = 0;
}

int bpf_peer_blob_add(struct peer_blob *b, const void *value, size_t len,
		      int keep)
{
	struct peer_value *v;

	if (b->count >= PEER_MAX_TAGS)
		return -E2BIG;
	if (len > PEER_VALUE_SIZE)
		return -EINVAL;
	v = &b->value[b->count];
	memcpy(v->bytes, value, len);
	memset(v->bytes + len, 0, PEER_VALUE_SIZE - len);
	b->keep[b->count++] = !!keep;
	b->nkept += !!keep;
	return 0;
}

/* What the exec program relies on: count in range, nkept right. */
static int blob_check(const struct peer_blob *b)
{
	__u32 i, kept = 0;

	if (b->count > PEER_MAX_TAGS)
		return -E2BIG;
	for (i = 0; i < b->count; i++) {
		if (b->keep[i] > 1)
			return -EINVAL;
		kept += b->keep[i];
	}
	return kept == b->nkept ? 0 : -EINVAL;
}

int bpf_peer_write(int pidfd, const struct peer_blob *b)
{
	int err;

	if (map_fd < 0)
		return -ENODEV;
	err = blob_check(b);
	if (err)
		return err;
	if (!b->count) {
		if (bpf_map_delete_elem(map_fd, &pidfd) && errno != ENOENT)
			return -errno;
		return 0;
	}
	if (bpf_map_update_elem(map_fd, &pidfd, b, BPF_ANY))
		return -errno;
	return 0;
}

int bpf_peer_read(int pidfd, struct peer_blob *b)
{
	if (map_fd < 0)
		return -ENODEV;
	if (bpf_map_lookup_elem(map_fd, &pidfd, b)) {
		if (errno != ENOENT)
			return -errno;
		bpf_peer_blob_init(b);
	}
	return 0;
}

long bpf_peer_lost(void)
{
	long lost;

	if (loader) {
		if (send(loader_sock, "?", 1, MSG_NOSIGNAL) != 1 ||
		    read(loader_sock, &lost, sizeof(lost)) != sizeof(lost))
			return -EIO;
		return lost;
	}
	if (!skel)
		return -ENODEV;
	return (long)__atomic_load_n(&skel->bss->lost, __ATOMIC_RELAXED);
}
