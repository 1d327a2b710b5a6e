/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command-driven child for the in-guest tests: started by the root test
 * process, granted tags by it, then told to drop privileges and to write to
 * /proc/ptags/<target>.  Include after guest.h.
 */
#ifndef PTAGS_GUEST_KID_H
#define PTAGS_GUEST_KID_H

/* ------------------------------------------------------------------------
 * A command-driven child process.  The root parent starts it (untagged),
 * grants it tags as root, then asks it to drop privileges and to write to
 * /proc/ptags/<target> (0: self); each command returns 0 or an errno.
 * The child stays alive (with its tags) until kid_stop().
 */
struct kid {
	pid_t pid;
	int cmd;	/* parent -> child */
	int res;	/* child -> parent */
};

struct kid_hdr {
	char op;	/* 'D' drop privileges, 'W' write, 'X' exit */
	int target;	/* pid for 'W', 0 = self */
	int len;
};

static char kid_buf[1 << 17];

static bool xread(int fd, void *p, size_t len)
{
	char *c = p;

	while (len) {
		ssize_t n = read(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		c += n;
		len -= n;
	}
	return true;
}

static bool xwrite(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		c += n;
		len -= n;
	}
	return true;
}

static void kid_loop(int in, int out)
{
	struct kid_hdr h;
	int r;

	while (xread(in, &h, sizeof(h))) {
		if (h.len < 0 || (size_t)h.len > sizeof(kid_buf) || !xread(in, kid_buf, h.len))
			_exit(90);
		switch (h.op) {
		case 'D':
			r = drop_privileges(65534) ? 1 : 0;
			break;
		case 'W':
			r = pt_write_len(h.target, kid_buf, h.len);
			break;
		case 'X':
			_exit(0);
		default:
			_exit(91);
		}
		if (!xwrite(out, &r, sizeof(r)))
			_exit(92);
	}
	_exit(0);
}

static void kid_start(struct kid *k, bool clean)
{
	int c[2], r[2];

	if (pipe(c) || pipe(r))
		die("pipe");
	fflush(stdout);
	k->pid = fork();
	if (k->pid < 0)
		die("fork");
	if (k->pid == 0) {
		close(c[1]);
		close(r[0]);
		/* Children inherit our tags; @clean starts them untagged. */
		if (clean && pt_write(0, "-\n"))
			die("clear the child's tags");
		kid_loop(c[0], r[1]);
	}
	close(c[0]);
	close(r[1]);
	k->cmd = c[1];
	k->res = r[0];
}

static int kid_cmd(struct kid *k, char op, pid_t target, const char *data, size_t len)
{
	struct kid_hdr h = { .op = op, .target = target, .len = (int)len };
	int r;

	if (!xwrite(k->cmd, &h, sizeof(h)) || (len && !xwrite(k->cmd, data, len)) ||
	    !xread(k->res, &r, sizeof(r)))
		die("kid %d does not answer", (int)k->pid);
	return r;
}

/* The child writes @s to /proc/ptags/<target> (0: itself); 0 or errno. */
static int kid_write(struct kid *k, pid_t target, const char *s)
{
	return kid_cmd(k, 'W', target, s, strlen(s));
}

/* The child drops every privilege; true when that verifiably worked. */
static bool kid_drop(struct kid *k)
{
	return kid_cmd(k, 'D', 0, NULL, 0) == 0;
}

/* Let the child exit and reap it; true when it exited cleanly. */
static bool kid_stop(struct kid *k)
{
	struct kid_hdr h = { .op = 'X' };
	int status;

	/* An explicit exit command: later children may hold our pipe too. */
	if (!xwrite(k->cmd, &h, sizeof(h)))
		die("kid %d: exit command", (int)k->pid);
	close(k->cmd);
	close(k->res);
	if (waitpid(k->pid, &status, 0) != k->pid)
		die("waitpid");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#endif /* PTAGS_GUEST_KID_H */
