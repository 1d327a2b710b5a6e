// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: the root, reading and parsing tags, listing tagged processes,
 * transactions and peer checks.  See include/ptags.h for the interface and
 * SPEC §3 for the file format this reads and writes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>

#include "internal.h"

/* Not every libc knows these yet (SO_PEERPIDFD: Linux 6.5). */
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define PARAMS_DIR "/sys/module/ptags/parameters"

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
static int open_root_dir(const char *path)
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
 * Open the entry of @pid.  A missing entry is a missing process (-ESRCH),
 * unless the root is missing or not a ptags file system (-ENODEV).
 */
static int open_entry(pid_t pid, int flags)
{
	const char *root = ptags_root();
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
	fd = open_root_dir(root);
	if (fd < 0)
		return fd;
	close(fd);
	return -ESRCH;
}

/* ---- root handles ---- */

struct ptags_root {
	int fd;		/* the directory, O_RDONLY | O_DIRECTORY */
};

/* Open @path (relative to @dirfd) as a directory: a descriptor or -ENODEV. */
static int open_dir(int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENODEV : -errno;
	return fd;
}

/* A handle owning the directory @fd (closed on failure): 0 or -ENOMEM. */
static int root_new(int fd, struct ptags_root **rootp)
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
	fd = open_dir(dirfd, path ? path : ptags_root());
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
	return root_new(fd, rootp);
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

/*
 * 0 when the root @dirfd resolves pids in the caller's pid namespace (its
 * "self" is the caller), else -EXDEV.  A root of another namespace where
 * the caller has the same pid number passes: pid numbers say no more.
 */
static int root_is_ours(int dirfd)
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

/* ---- levels (SPEC §12) ---- */

/*
 * The new mount API, restated: older libcs lack it, and glibc 2.36's
 * <sys/mount.h> does not mix with <linux/mount.h>.  The system call
 * numbers, for a libc without them, are those of x86 and of the generic
 * table (arm64, riscv and others).
 */
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif
#define PT_FSOPEN_CLOEXEC	0x1
#define PT_FSCONFIG_SET_STRING	1
#define PT_FSCONFIG_CMD_CREATE	6
#define PT_FSMOUNT_CLOEXEC	0x1
#define PT_MOUNT_ATTR_NOSUID	0x2
#define PT_MOUNT_ATTR_NODEV	0x4
#define PT_MOUNT_ATTR_NOEXEC	0x8

/*
 * A private mount of @level, attached nowhere (it goes when its last
 * descriptor is closed): a readable descriptor of its root directory, or
 * the negative errno of fsopen(2), fsconfig(2) or fsmount(2).
 */
static int mount_level(int level)
{
	char val[16];
	int fs, mnt, fd, err;

	if (level == PTAGS_LEVEL_OWN)
		strcpy(val, "own");
	else
		snprintf(val, sizeof(val), "%d", level);
	fs = (int)syscall(SYS_fsopen, "ptags", PT_FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	if (syscall(SYS_fsconfig, fs, PT_FSCONFIG_SET_STRING, "level", val,
		    0) ||
	    syscall(SYS_fsconfig, fs, PT_FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		err = -errno;
		close(fs);
		return err;
	}
	mnt = (int)syscall(SYS_fsmount, fs, PT_FSMOUNT_CLOEXEC,
			   PT_MOUNT_ATTR_NOSUID | PT_MOUNT_ATTR_NODEV |
			   PT_MOUNT_ATTR_NOEXEC);
	err = mnt < 0 ? -errno : 0;
	close(fs);
	if (err)
		return err;
	/* fsmount(2) gives an O_PATH descriptor: open the directory. */
	fd = open_dir(mnt, ".");
	close(mnt);
	return fd;
}

/* Undo the octal escapes (\040 and the like) of a mountinfo field. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

/* A decimal number of at most 9 digits: 0 and *@v, or -EINVAL. */
static int parse_uint(const char *s, const char *end, unsigned int *v)
{
	if (s == end || end - s > 9)
		return -EINVAL;
	for (*v = 0; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		*v = *v * 10 + (*s - '0');
	}
	return 0;
}

int pt_mountinfo_ptags(char *line, dev_t *dev, char **dir, int *level)
{
	char *f[6], *p = line, *fstype, *opts, *colon, *o;
	unsigned int major, minor, v;
	size_t i;

	line[strcspn(line, "\n")] = 0;
	/* ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS [OPTIONAL...] - ... */
	for (i = 0; i < 6; i++) {
		f[i] = strsep(&p, " ");
		if (!f[i] || !*f[i])
			return -EINVAL;
	}
	do {
		o = strsep(&p, " ");
		if (!o)
			return -EINVAL;
	} while (strcmp(o, "-"));
	/* - FSTYPE SOURCE SUPER-OPTIONS */
	fstype = strsep(&p, " ");
	opts = strsep(&p, " ") ? strsep(&p, " ") : NULL;
	if (!fstype || !*fstype || !opts || !*opts)
		return -EINVAL;
	colon = strchr(f[2], ':');
	if (!colon || parse_uint(f[2], colon, &major) ||
	    parse_uint(colon + 1, colon + strlen(colon), &minor))
		return -EINVAL;
	unescape(fstype);
	if (strcmp(fstype, "ptags"))
		return 0;
	*level = 0;
	while ((o = strsep(&opts, ","))) {
		if (strncmp(o, "level=", 6))
			continue;
		if (parse_uint(o + 6, o + strlen(o), &v))
			return -EINVAL;
		*level = (int)v;
	}
	unescape(f[4]);
	*dev = makedev(major, minor);
	*dir = f[4];
	return 1;
}

/*
 * The mount at @dir, when it is the one of the device @dev (not another
 * mounted over it), a ptags file system, and serves the caller: "self"
 * resolves (the caller is in the mount's level, SPEC §12: a mount of
 * another chain's level of the same depth hides it) and is the caller (its
 * pid namespace).  A descriptor, or -1.
 */
static int level_mount_at(const char *dir, dev_t dev)
{
	struct statfs sfs;
	struct stat st;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_dev != dev || fstatfs(fd, &sfs) ||
	    sfs.f_type != PTAGS_SUPER_MAGIC ||
	    faccessat(fd, "self", F_OK, 0) || root_is_ours(fd)) {
		close(fd);
		return -1;
	}
	return fd;
}

int pt_level_mount_open(const char *mountinfo, int level)
{
	size_t size = 0;
	char *line = NULL, *dir;
	int fd = -ENOENT, l;
	dev_t dev;
	FILE *f;

	f = fopen(mountinfo, "re");
	if (!f)
		return errno == ENOMEM ? -ENOMEM : -ENOENT;
	for (;;) {
		errno = 0;
		if (getline(&line, &size, f) < 0) {
			if (errno == ENOMEM)
				fd = -ENOMEM;
			break;
		}
		if (pt_mountinfo_ptags(line, &dev, &dir, &l) != 1 ||
		    l != level)
			continue;
		fd = level_mount_at(dir, dev);
		if (fd >= 0)
			break;
		fd = -ENOENT;
	}
	free(line);
	fclose(f);
	return fd;
}

int ptags_root_open_level(int level, unsigned int flags,
			  struct ptags_root **rootp)
{
	int fd, alt;

	*rootp = NULL;
	if (flags || (level < 0 && level != PTAGS_LEVEL_OWN))
		return -EINVAL;
	fd = mount_level(level);
	/*
	 * -ENOSPC: the level already has 64 instances in this pid namespace
	 * (the module's bound), most likely other private mounts like ours,
	 * each gone when its owner closes it: wait for one, up to a second.
	 */
	for (int i = 0; fd == -ENOSPC && i < 100; i++) {
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
		fd = mount_level(level);
	}
	/*
	 * May not mount (or no new mount API, as a seccomp filter may say):
	 * a mount of that level someone made.  The caller's own level has
	 * no fallback: it cannot learn its depth.
	 */
	if ((fd == -EPERM || fd == -ENOSYS) && level != PTAGS_LEVEL_OWN) {
		alt = pt_level_mount_open("/proc/self/mountinfo", level);
		if (alt >= 0 || alt == -ENOMEM)
			fd = alt;
	}
	if (fd < 0)
		return fd;
	return root_new(fd, rootp);
}

/* The entry of @pid (0: self) under @dirfd; a missing one is -ESRCH. */
static int entry_at(int dirfd, pid_t pid, int flags)
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

/* ---- sets ---- */

void ptags_set_free(struct ptags_set *set)
{
	if (!set)
		return;
	free(set->tags);
	free(set->buf);
	free(set);
}

size_t ptags_set_count(const struct ptags_set *set)
{
	return set ? set->count : 0;
}

const struct ptags_tag *ptags_set_tag(const struct ptags_set *set, size_t i)
{
	return set && i < set->count ? &set->tags[i] : NULL;
}

const struct ptags_tag *ptags_set_find(const struct ptags_set *set,
				       const char *name)
{
	size_t i;

	for (i = 0; set && i < set->count; i++)
		if (!strcmp(set->tags[i].name, name))
			return &set->tags[i];
	return NULL;
}

int ptags_parse(const char *text, size_t len, struct ptags_set **out)
{
	struct ptags_set *set;
	size_t i, lines = 0;
	char *p, *end;

	*out = NULL;
	if (len && text[len - 1] != '\n')
		return -EINVAL;
	if (memchr(text, 0, len))
		return -EINVAL;
	for (i = 0; i < len; i++)
		lines += text[i] == '\n';
	set = calloc(1, sizeof(*set));
	if (!set)
		return -ENOMEM;
	set->buf = malloc(len + 1);
	set->tags = calloc(lines ? lines : 1, sizeof(*set->tags));
	if (!set->buf || !set->tags) {
		ptags_set_free(set);
		return -ENOMEM;
	}
	memcpy(set->buf, text, len);
	set->buf[len] = 0;
	for (p = set->buf; p < set->buf + len; p = end + 1) {
		struct ptags_tag *t = &set->tags[set->count];
		char *eq;

		end = strchr(p, '\n');
		*end = 0;
		if (*p == '@') {
			t->keep = 1;
			p++;
		}
		eq = strchr(p, '=');
		if (eq) {
			*eq = 0;
			t->value = eq + 1;
		}
		t->name = p;
		if (!*p) {
			ptags_set_free(set);
			return -EINVAL;
		}
		set->count++;
	}
	*out = set;
	return 0;
}

/* Read the whole of @fd (one snapshot: SPEC §3.3) into a malloc'ed buffer. */
static int read_all(int fd, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *nbuf;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				free(buf);
				return -ENOMEM;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return n == -ENOENT ? -ESRCH : (int)n;
		}
		if (!n)
			break;
		len += n;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

/* Read and parse the entry @fd (or pass on its error), then close it. */
static int read_entry(int fd, struct ptags_set **set)
{
	size_t len = 0;
	char *buf = NULL;
	int err;

	*set = NULL;
	if (fd < 0)
		return fd;
	err = read_all(fd, &buf, &len);
	close(fd);
	if (!err)
		err = ptags_parse(buf, len, set);
	free(buf);
	return err;
}

/* Write @text to the entry @fd (or pass on its error), then close it. */
static int write_entry(int fd, const char *text, size_t len)
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

int ptags_read(pid_t pid, struct ptags_set **set)
{
	return read_entry(open_entry(pid, O_RDONLY), set);
}

int ptags_root_read(const struct ptags_root *root, pid_t pid,
		    struct ptags_set **set)
{
	return read_entry(entry_at(root->fd, pid, O_RDONLY), set);
}

int ptags_has(pid_t pid, const char *query)
{
	struct ptags_set *set;
	int r;

	r = ptags_query_valid(query, NULL);
	if (r)
		return r;
	r = ptags_read(pid, &set);
	if (r)
		return r;
	r = ptags_set_match(set, query);
	ptags_set_free(set);
	return r;
}

/* ---- pidfds ---- */

/*
 * 0 while the process of @pidfd runs, -ESRCH once it has exited.  poll()
 * needs no permission over the process (pidfd_send_signal(0) does, which
 * fails for a peer of another user).
 */
static int pidfd_alive(int pidfd)
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
static int pidfd_pid(int pidfd, pid_t *pid)
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
	err = open_dir(AT_FDCWD, "/proc");
	if (err >= 0) {
		int fd = err;

		err = root_is_ours(fd);
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

	err = root_is_ours(dirfd);
	if (!err)
		err = pidfd_pid(pidfd, &pid);
	if (err)
		return err;
	fd = entry_at(dirfd, pid, flags);
	if (fd < 0)
		return fd;
	err = pidfd_alive(pidfd);
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
	return read_entry(pidfd_entry(root->fd, pidfd, O_RDONLY), set);
}

int ptags_pidfd_write_text(const struct ptags_root *root, int pidfd,
			   const char *text, size_t len)
{
	return write_entry(pidfd_entry(root->fd, pidfd, O_WRONLY), text, len);
}

/* ---- listing ---- */

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
	fd = open_dir(dirfd, ".");
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
 * taken first and checked after the open (as pidfd_entry()).
 */
static int list_one(int dirfd, pid_t pid, int *pidfdp, struct ptags_set **set)
{
	int fd, err, pidfd = -1;

	if (pidfdp) {
		pidfd = syscall(SYS_pidfd_open, pid, 0);
		if (pidfd < 0)
			return errno == ESRCH || errno == EINVAL ? -ESRCH : -errno;
	}
	fd = entry_at(dirfd, pid, O_RDONLY);
	if (fd >= 0 && pidfd >= 0) {
		err = pidfd_alive(pidfd);
		if (err) {
			close(fd);
			fd = err;
		}
	}
	err = read_entry(fd, set);
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
		err = root_is_ours(dirfd);
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
	fd = open_root_dir(ptags_root());
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

/* ---- transactions ---- */

struct ptags_txn {
	char *buf;
	size_t len, cap;
	int err;
};

struct ptags_txn *ptags_txn_new(void)
{
	return calloc(1, sizeof(struct ptags_txn));
}

void ptags_txn_free(struct ptags_txn *txn)
{
	if (txn) {
		free(txn->buf);
		free(txn);
	}
}

static int txn_fail(struct ptags_txn *txn, int err)
{
	if (!txn->err)
		txn->err = err;
	return err;
}

/* Append the line @a @b @c @d "\n" (any part may be NULL). */
static int txn_line(struct ptags_txn *txn, const char *a, const char *b,
		    const char *c, const char *d)
{
	const char *parts[] = { a, b, c, d, "\n" };
	size_t need = 0, i;
	char *nbuf;

	for (i = 0; i < 5; i++)
		need += parts[i] ? strlen(parts[i]) : 0;
	if (txn->len + need + 1 > txn->cap) {
		size_t cap = txn->cap ? txn->cap : 256;

		while (cap < txn->len + need + 1)
			cap *= 2;
		nbuf = realloc(txn->buf, cap);
		if (!nbuf)
			return txn_fail(txn, -ENOMEM);
		txn->buf = nbuf;
		txn->cap = cap;
	}
	for (i = 0; i < 5; i++) {
		size_t n = parts[i] ? strlen(parts[i]) : 0;

		memcpy(txn->buf + txn->len, parts[i] ? parts[i] : "", n);
		txn->len += n;
	}
	txn->buf[txn->len] = 0;
	return 0;
}

static int txn_name(struct ptags_txn *txn, const char *op, const char *name)
{
	if (ptags_name_valid(name, NULL))
		return txn_fail(txn, -EINVAL);
	return txn_line(txn, op, name, NULL, NULL);
}

static int txn_pattern(struct ptags_txn *txn, const char *op, const char *pat)
{
	if (ptags_pattern_valid(pat, NULL))
		return txn_fail(txn, -EINVAL);
	return txn_line(txn, op, pat, NULL, NULL);
}

int ptags_txn_add(struct ptags_txn *txn, const char *name)
{
	return txn_name(txn, "+", name);
}

int ptags_txn_add_kept(struct ptags_txn *txn, const char *name)
{
	return txn_name(txn, "+@", name);
}

int ptags_txn_remove(struct ptags_txn *txn, const char *name_or_pattern)
{
	return txn_pattern(txn, "-", name_or_pattern);
}

int ptags_txn_remove_all(struct ptags_txn *txn)
{
	return txn_line(txn, "-", NULL, NULL, NULL);
}

int ptags_txn_set_value(struct ptags_txn *txn, const char *name,
			const char *value)
{
	if (ptags_name_valid(name, NULL) || ptags_value_valid(value, NULL) ||
	    !*value)
		return txn_fail(txn, -EINVAL);
	return txn_line(txn, "!", name, "=", value);
}

int ptags_txn_clear_value(struct ptags_txn *txn, const char *name)
{
	return txn_name(txn, "!", name);
}

int ptags_txn_keep(struct ptags_txn *txn, const char *name_or_pattern)
{
	int err;

	if (ptags_pattern_valid(name_or_pattern, NULL))
		return txn_fail(txn, -EINVAL);
	if (ptags_name_valid(name_or_pattern, NULL))	/* a pattern */
		return txn_line(txn, "+@", name_or_pattern, NULL, NULL);
	err = txn_line(txn, "?", name_or_pattern, NULL, NULL);
	return err ? err : txn_line(txn, "+@", name_or_pattern, NULL, NULL);
}

int ptags_txn_keep_all(struct ptags_txn *txn)
{
	return txn_line(txn, "+@", NULL, NULL, NULL);
}

int ptags_txn_unkeep(struct ptags_txn *txn, const char *name_or_pattern)
{
	return txn_pattern(txn, "-@", name_or_pattern);
}

int ptags_txn_unkeep_all(struct ptags_txn *txn)
{
	return txn_line(txn, "-@", NULL, NULL, NULL);
}

int ptags_txn_require(struct ptags_txn *txn, const char *name_or_pattern)
{
	if (!name_or_pattern)
		return txn_line(txn, "?", NULL, NULL, NULL);
	return txn_pattern(txn, "?", name_or_pattern);
}

int ptags_txn_require_kept(struct ptags_txn *txn, const char *name_or_pattern)
{
	if (!name_or_pattern)
		return txn_line(txn, "?@", NULL, NULL, NULL);
	return txn_pattern(txn, "?@", name_or_pattern);
}

const char *ptags_txn_text(const struct ptags_txn *txn, size_t *len)
{
	if (len)
		*len = txn->len;
	return txn->buf ? txn->buf : "";
}

int ptags_write_text(pid_t pid, const char *text, size_t len)
{
	return write_entry(open_entry(pid, O_WRONLY), text, len);
}

int ptags_txn_commit(const struct ptags_txn *txn, pid_t pid)
{
	if (txn->err)
		return txn->err;
	return ptags_write_text(pid, ptags_txn_text(txn, NULL), txn->len);
}

int ptags_root_write_text(const struct ptags_root *root, pid_t pid,
			  const char *text, size_t len)
{
	return write_entry(entry_at(root->fd, pid, O_WRONLY), text, len);
}

int ptags_root_commit(const struct ptags_root *root, pid_t pid,
		      const struct ptags_txn *txn)
{
	if (txn->err)
		return txn->err;
	return ptags_root_write_text(root, pid, ptags_txn_text(txn, NULL),
				     txn->len);
}

int ptags_pidfd_commit(const struct ptags_root *root, int pidfd,
		       const struct ptags_txn *txn)
{
	if (txn->err)
		return txn->err;
	return ptags_pidfd_write_text(root, pidfd, ptags_txn_text(txn, NULL),
				      txn->len);
}

long ptags_max_write(void)
{
	char buf[64];
	ssize_t n;
	long v;
	int fd;

	fd = open(PARAMS_DIR "/max_write", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n <= 0)
		return n ? n : -EIO;
	buf[n] = 0;
	v = strtol(buf, NULL, 10);
	return v > 0 ? v : -EIO;
}

/* ---- peer checks ---- */

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
		err = ptags_root_openat(AT_FDCWD, root_override ?
					root_override : PTAGS_DEFAULT_ROOT,
					0, &own);
		if (err)
			return err;
		fd = own->fd;
		free(own);
	}
	err = root_is_ours(fd);
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
	err = pidfd_alive(pidfd);
	rootfd = err ? err : peer_root(root);
	if (rootfd < 0) {
		close(pidfd);
		return rootfd;
	}
	err = read_entry(entry_at(rootfd, cred.pid, O_RDONLY), &set);
	close(rootfd);
	/* After the read: the pidfd's process still runs, so the pid was its. */
	if (!err)
		err = pidfd_alive(pidfd);
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

/* ---- watching (SPEC §3.5) ---- */

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

	err = root_is_ours(w->rootfd);
	if (!err)
		err = pidfd_pid(pidfd, &pid);
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
	/* As pidfd_entry(): the watched entry is the pidfd's process's. */
	err = pidfd_alive(pidfd);
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
	int fd = entry_at(rootfd, pid, O_RDONLY);

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
