// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: pidfds -- the pid of a pidfd's process, whether it still runs,
 * and reading and writing its tags by pidfd, never a pid reuser's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "internal.h"

/*
 * 0 while the process of @pidfd runs, -ESRCH once it has exited.  poll()
 * needs no permission over the process (pidfd_send_signal(0) does, which
 * fails for a peer of another user).
 */
int pt_pidfd_alive(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n && (p.revents & (POLLIN | POLLHUP)) ? -ESRCH : 0;
}

/* PIDFD_GET_INFO (Linux 6.13), restated: not every libc has it yet. */
struct pt_pidfd_info {
	unsigned long long mask, cgroupid;
	unsigned int pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid;
	unsigned int fsuid, fsgid, spare0;
};
#define PT_PIDFD_GET_INFO	_IOWR(0xFF, 11, struct pt_pidfd_info)
#define PT_PIDFD_INFO_PID	1ULL

/*
 * The pid, in the caller's pid namespace, of the process of @pidfd: from
 * PIDFD_GET_INFO, else from the "Pid:" line of its fdinfo in /proc (which
 * must then be the caller's namespace's).  -ESRCH when it has exited or
 * has no pid in the caller's namespace, -EBADF when @pidfd is no pidfd.
 */
int pt_pidfd_pid(int pidfd, pid_t *pid)
{
	struct pt_pidfd_info info = { .mask = PT_PIDFD_INFO_PID };
	char path[64], line[256];
	long v = 0;
	FILE *f;
	int err, found = 0;

	if (!ioctl(pidfd, PT_PIDFD_GET_INFO, &info)) {
		*pid = info.tgid;
		return info.tgid ? 0 : -ESRCH;
	}
	if (errno == ESRCH)
		return -ESRCH;
	err = pt_open_dir(AT_FDCWD, "/proc");
	if (err >= 0) {
		int fd = err;

		err = pt_root_is_ours(fd);
		close(fd);
	}
	if (err)
		return err == -ENODEV ? -ENOSYS : err;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -EBADF : -errno;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Pid: %ld", &v) == 1;
	fclose(f);
	if (!found)
		return -EBADF;
	if (v <= 0)
		return -ESRCH;
	*pid = (pid_t)v;
	return 0;
}

/*
 * Open the entry, under @dirfd, of the process of @pidfd.  Its pid is read
 * while it runs; once the entry is open, the process still running proves
 * that the pid was still its own, so the entry (bound to one process for
 * its whole life) is that process's.
 */
static int pidfd_entry(int dirfd, int pidfd, int flags)
{
	pid_t pid;
	int fd, err;

	err = pt_root_is_ours(dirfd);
	if (!err)
		err = pt_pidfd_pid(pidfd, &pid);
	if (err)
		return err;
	fd = pt_entry_at(dirfd, pid, flags);
	if (fd < 0)
		return fd;
	err = pt_pidfd_alive(pidfd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int ptags_pidfd_read(const struct ptags_root *root, int pidfd,
		     struct ptags_set **set)
{
	*set = NULL;
	return pt_read_entry(pidfd_entry(root->fd, pidfd, O_RDONLY), set);
}

int ptags_pidfd_write_text(const struct ptags_root *root, int pidfd,
			   const char *text, size_t len)
{
	return pt_write_entry(pidfd_entry(root->fd, pidfd, O_WRONLY), text, len);
}
