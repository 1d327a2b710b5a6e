// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.5 "watching costs nothing to processes nobody watches" and §8
 * "nothing unbounded", against an unprivileged user: uid 1000, in a user
 * and mount namespace of its own, makes a dozen level=own mounts, polls an
 * entry of one and watches the directory of another.  The tagged forks of
 * root's processes, which nobody watches at level 0, must hand nothing to
 * the watch worker (stats/watch_queued), and the user's own watchers must
 * still see the changes of its level.  One (level, pid namespace) holds at
 * most 64 superblocks: the 65th mount is ENOSPC, a bind mount is not, and
 * libptags's private mount of the level waits for one to go.
 */
#include "guest.h"

#include "ptags.h"

#include <grp.h>	/* setgroups(), used by guest.h */
#include <poll.h>
#include <sched.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define BASE	"/tmp/wscope"
#define NMOUNTS	12
#define SCOPE_MAX 64

/* Enter a user namespace of our own (uid @uid as 0) and a mount namespace. */
static int own_namespaces(uid_t uid)
{
	char map[64];

	/* The uid change made us undumpable: /proc/self would be root's. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) ||
	    unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)uid);
	if (file_write("/proc/self/setgroups", "deny\n") ||
	    file_write("/proc/self/uid_map", map) ||
	    file_write("/proc/self/gid_map", map))
		return -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", BASE, "tmpfs", 0, NULL))
		return -1;
	return 0;
}

/* Mount level=own at BASE/mN; 0 or errno. */
static int mount_own(int n)
{
	char dir[64];

	snprintf(dir, sizeof(dir), BASE "/m%d", n);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return errno;
	return mount("ptags", dir, "ptags", 0, "level=own") ? errno : 0;
}

struct attacker {
	int ready[2];	/* attacker -> parent: one status byte */
	int go[2];	/* parent -> attacker: its own check, then exit */
};

/*
 * The unprivileged user: many mounts, a polled entry, a directory watch.
 * After "go" it checks that its own watchers work: it tags itself at its
 * level and expects the poll and the inotify event.  Exit 0 on success.
 */
static int attacker_run(struct attacker *a)
{
	struct pollfd p;
	char path[96], buf[4096], c = 1;
	int i, fd, in;

	close(a->ready[0]);
	close(a->go[1]);
	if (drop_privileges(1000) || own_namespaces(1000))
		goto fail;
	for (i = 0; i < NMOUNTS; i++)
		if (mount_own(i))
			goto fail;
	snprintf(path, sizeof(path), BASE "/m0/%d", (int)getpid());
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
		goto fail;
	p = (struct pollfd){ .fd = fd, .events = POLLPRI };
	if (poll(&p, 1, 0) < 0)		/* counted as polled from now on */
		goto fail;
	in = inotify_init1(IN_NONBLOCK);
	if (in < 0 || inotify_add_watch(in, BASE "/m1", IN_MODIFY | IN_CREATE) < 0)
		goto fail;
	c = 0;
	if (write(a->ready[1], &c, 1) != 1 || read(a->go[0], &c, 1) != 1)
		return 3;
	/* Our own level is watched: a change of ours reaches both. */
	snprintf(path, sizeof(path), BASE "/m2/%d", (int)getpid());
	if (file_write(path, "+mine\n"))
		return 4;
	p = (struct pollfd){ .fd = fd, .events = POLLPRI };
	if (poll(&p, 1, 5000) != 1 || !(p.revents & POLLPRI))
		return 5;
	p = (struct pollfd){ .fd = in, .events = POLLIN };
	if (poll(&p, 1, 5000) != 1)
		return 6;
	return 0;
fail:
	if (write(a->ready[1], &c, 1) != 1)
		return 2;
	return 1;
}

/* @n tagged children of a tagged parent, each exits at once. */
static void tagged_forks(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		pid_t pid = tap_fork();

		if (!pid)
			_exit(0);
		wait_exit(pid);
	}
}

static void test_other_users_mounts(void)
{
	struct attacker a;
	long q0, q1, q2;
	pid_t pid;
	char c;

	pt_reset("+watchscope:parent\n");
	q0 = pt_stat("watch_queued");
	tagged_forks(100);
	q1 = pt_stat("watch_queued");
	ok(q0 >= 0 && q1 == q0,
	   "§3.5: nobody watches level 0: 100 tagged forks queue nothing (%ld)",
	   q1 - q0);

	if (pipe(a.ready) || pipe(a.go))
		die("pipe");
	pid = tap_fork();
	if (!pid)
		_exit(attacker_run(&a));
	close(a.ready[1]);
	close(a.go[0]);
	if (read(a.ready[0], &c, 1) != 1 || c) {
		ok(false, "uid 1000 makes %d level=own mounts, polls one, watches another",
		   NMOUNTS);
		wait_exit(pid);
		return;
	}
	ok(true, "uid 1000 makes %d level=own mounts, polls one, watches another",
	   NMOUNTS);
	q1 = pt_stat("watch_queued");
	tagged_forks(100);
	q2 = pt_stat("watch_queued");
	ok(q2 == q1,
	   "§3.5: with uid 1000's watched mounts of its own level, root's 100 tagged forks queue nothing (%ld)",
	   q2 - q1);
	if (write(a.go[1], "g", 1) != 1)
		die("write");
	c = wait_exit(pid);
	ok(!c, "uid 1000's own poll and inotify watch see its own change (status %d)", c);
	close(a.ready[0]);
	close(a.go[1]);
	pt_reset("-\n");
}

static int scope_cap_run(void *arg)
{
	int i;

	(void)arg;
	if (drop_privileges(1000) || own_namespaces(1000))
		return 1;
	for (i = 0; i < SCOPE_MAX; i++)
		if (mount_own(i))
			return 10;
	if (mount_own(SCOPE_MAX) != ENOSPC)
		return 11;
	if (mkdir(BASE "/bind", 0755) ||
	    mount(BASE "/m0", BASE "/bind", NULL, MS_BIND, NULL))
		return 12;		/* a bind mount is the same instance */
	if (umount(BASE "/m1"))
		return 13;
	if (mount_own(SCOPE_MAX))
		return 14;		/* room again */
	if (mount_own(SCOPE_MAX + 1) != ENOSPC)
		return 15;
	/* Full: libptags's own mount of the level waits for room. */
	{
		struct ptags_root *root = NULL;
		pid_t pid = fork();
		int r;

		if (pid < 0)
			return 16;
		if (!pid) {
			usleep(300 * 1000);
			_exit(umount(BASE "/m2") ? 1 : 0);
		}
		r = ptags_root_open_level(PTAGS_LEVEL_OWN, 0, &root);
		if (wait_exit(pid))
			return 17;
		if (r)
			return 18;
		ptags_root_close(root);
	}
	/* A level=0 mount needs a pid namespace of our own: its own scope. */
	return 0;
}

static void test_scope_cap(void)
{
	int rc = run_child(scope_cap_run, NULL);

	ok(rc == 0,
	   "§8: %d level=own mounts, the next ENOSPC, a bind mount free, room after an unmount; ptags_root_open_level() waits for room (status %d)",
	   SCOPE_MAX, rc);
}

int main(void)
{
	if (mkdir(BASE, 0777) && errno != EEXIST)
		die("mkdir " BASE);
	test_other_users_mounts();
	test_scope_cap();
	return tap_done();
}
