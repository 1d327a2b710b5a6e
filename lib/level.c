// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: a level's root (SPEC §12): a private mount of its own, else a
 * mount of the level listed in /proc/self/mountinfo.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>

#include "internal.h"

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
	fd = pt_open_dir(mnt, ".");
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
	    faccessat(fd, "self", F_OK, 0) || pt_root_is_ours(fd)) {
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
	return pt_root_new(fd, rootp);
}
