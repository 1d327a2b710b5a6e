/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Agents: command-driven children for the in-guest tests.  The root test
 * process forks an agent (optionally untagged), grants it tags as root,
 * then has it drop privileges (all of them, or only CAP_MAC_ADMIN, or
 * become root of a new user namespace) and act on command: write or read
 * /proc/ptags/<target>, open entries into numbered slots, write through
 * them, pass descriptors back and forth (SCM_RIGHTS), fork an idle child.
 * Each command answers with a result (0 or an errno for ptags operations),
 * so every assertion is made in the parent with ok()/expect().
 *
 * Commands and replies travel over a SOCK_SEQPACKET socketpair, one
 * message each.  Include after guest.h.
 */
#ifndef PTAGS_GUEST_AGENT_H
#define PTAGS_GUEST_AGENT_H

#include <dirent.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "ptags.h"

enum agent_op {
	OP_DROP = 1,	/* drop_privileges(target): 0 or -1 */
	OP_DROPMAC,	/* stay uid 0, lose only CAP_MAC_ADMIN: 0 or step code */
	OP_USERNS,	/* unshare(CLONE_NEWUSER), map self to 0: 0 or step code */
	OP_WRITE,	/* pt_write_len(target, data): 0 or errno */
	OP_READ,	/* pt_read(target) into the reply's data: 0 or errno */
	OP_OPEN,	/* slot = open(/proc/ptags/target, O_WRONLY): 0 or errno */
	OP_FDWRITE,	/* pt_fdwrite(slot, data): 0 or errno */
	OP_SENDFD,	/* the reply carries slot's descriptor */
	OP_RECVFD,	/* slot = the descriptor the command carries */
	OP_CLOSE,	/* close(slot) */
	OP_SPAWN,	/* start an idle child (its tags: a copy), reply its pid */
	OP_REAP,	/* release and reap that child */
	OP_EXIT,	/* exit 0, no reply */
	/* Levels (SPEC §12): */
	OP_NEST,	/* unshare(CLONE_NEWUSER), map own ids to 0: 0 or step */
	OP_UNSHARE,	/* unshare(target): 0 or errno */
	OP_MOUNT,	/* mount ptags on data's "DIR OPTIONS", flags target: 0 or errno */
	OP_ROOT,	/* OP_WRITE/READ/OPEN/LIST use data's directory ("": /proc/ptags) */
	OP_LIST,	/* the root's names but . and .., space-separated: 0 or errno */
	OP_CAT,		/* the file named by data, into the reply: 0 or errno */
	OP_AGENT,	/* fork an agent of its own: reply its pid and socket */
	OP_EXEC,	/* execute this program again, as the same agent: 0 or errno */
	OP_RUN,		/* run data's "PROGRAM ARG..." (spaces split), output in reply: status */
	OP_PAIR,	/* slots slot and slot+1 = socketpair(AF_UNIX): 0 or errno */
	OP_PEER,	/* peer check on slot at level target (-1: own), tags in reply: 0 or -errno */
};

#define AGENT_SLOTS	8
#define AGENT_DATA	(1 << 16)
#define ERR_DEAD	999	/* the agent did not answer */

/* A command (ret unused) or a reply (ret: the result). */
struct agent_msg {
	int op;
	int target;
	int slot;
	int ret;
	int len;			/* bytes of data */
	char data[AGENT_DATA + 1];	/* + a NUL the receiver adds */
};

#define AGENT_HDR	offsetof(struct agent_msg, data)

struct agent {
	pid_t pid;
	int sock;
	bool foreign;		/* another agent's child (OP_AGENT) */
};

/* ------------------------------------------------------------ transport */

/* Send the header and @m->len bytes of data, with descriptor @fd (-1). */
static inline int agent_send(int sock, const struct agent_msg *m, int fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = {
		.iov_base = (void *)m,
		.iov_len = AGENT_HDR + m->len,
	};
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.b;
		mh.msg_controllen = sizeof(u.b);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)iov.iov_len ? 0 : -1;
}

/*
 * Receive one message into @m (data NUL-terminated); *fd is the descriptor
 * it carried or -1.  0, or -1 when the peer is gone or the message is bad.
 */
static inline int agent_recv(int sock, struct agent_msg *m, int *fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = AGENT_HDR + AGENT_DATA };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	if ((size_t)n < AGENT_HDR || m->len < 0 || m->len > AGENT_DATA ||
	    (size_t)n != AGENT_HDR + m->len)
		return -1;
	m->data[m->len] = 0;
	return 0;
}

/* ---------------------------------------------------------- agent side */

static inline int has_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	return !!(data[cap / 32].effective & (1u << (cap % 32)));
}

/* Root keeps uid 0 and every capability except CAP_MAC_ADMIN. */
static inline int drop_mac_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int i = CAP_MAC_ADMIN / 32;
	unsigned int bit = 1u << (CAP_MAC_ADMIN % 32);

	if (prctl(PR_CAPBSET_DROP, CAP_MAC_ADMIN, 0, 0, 0))
		return 1;
	if (syscall(SYS_capget, &hdr, data))
		return 2;
	data[i].effective &= ~bit;
	data[i].permitted &= ~bit;
	data[i].inheritable &= ~bit;
	if (syscall(SYS_capset, &hdr, data))
		return 3;
	if (syscall(SYS_capget, &hdr, data))
		return 4;
	if ((data[i].effective | data[i].permitted) & bit)
		return 5;
	if (prctl(PR_CAPBSET_READ, CAP_MAC_ADMIN, 0, 0, 0) != 0)
		return 6;
	if (getuid() != 0 || geteuid() != 0)
		return 7;
	if (has_cap(CAP_SYS_ADMIN) != 1)	/* still "root" otherwise */
		return 8;
	return 0;
}

/* A new user namespace where our ids are 0, whatever they are here. */
static inline int enter_userns(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];

	/* setresuid() made us non-dumpable: the id map files would be root's */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return 8;
	if (unshare(CLONE_NEWUSER))
		return 2;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)uid);
	if (file_write("/proc/self/uid_map", map))
		return 3;
	if (file_write("/proc/self/setgroups", "deny\n"))
		return 4;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)gid);
	if (file_write("/proc/self/gid_map", map))
		return 5;
	if (getuid() != 0 || geteuid() != 0)
		return 6;
	if (has_cap(CAP_MAC_ADMIN) != 1)	/* in its own namespace */
		return 7;
	return 0;
}

/* Unprivileged uid: new user namespace where we are root. */
static inline int become_userns_root(void)
{
	if (geteuid() == 0)
		return 1;
	return enter_userns();
}

/* OP_MOUNT: "DIR OPTIONS" (OPTIONS may be empty), mount(2) @flags. */
static inline int agent_mount(char *arg, unsigned long flags)
{
	char *opts = strchr(arg, ' ');

	if (opts)
		*opts++ = 0;
	return mount("ptags", arg, "ptags", flags,
		     opts && *opts ? opts : NULL) ? errno : 0;
}

/* OP_LIST: the names in @dir but "." and "..", space-separated, in @out. */
static inline int agent_list(const char *dir, char *out, size_t len, int *n)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	size_t used = 0;

	out[0] = 0;
	*n = 0;
	if (!dp)
		return errno;
	while ((d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		used += snprintf(out + used, len - used, "%s%s",
				 used ? " " : "", d->d_name);
		if (used >= len)
			break;
	}
	closedir(dp);
	*n = used < len ? (int)used : (int)len - 1;
	return 0;
}

/* OP_ROOT: entries are under @dir (@len bytes; none: /proc/ptags). */
static inline int agent_set_root(const char *dir, int len)
{
	static char root[4096];

	if (!len) {
		pt_root = PT_ROOT;
		return 0;
	}
	if ((size_t)len >= sizeof(root))
		return ENAMETOOLONG;
	memcpy(root, dir, len);
	root[len] = 0;
	pt_root = root;
	return 0;
}

static inline int agent_loop(int sock);

/*
 * OP_AGENT: a child agent with a socket of its own, whose other end the
 * reply carries; returns the child's pid (as this agent sees it) or -1.
 */
static inline int agent_fork_agent(int *give)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd;

		for (fd = 3; fd < 1024; fd++)
			if (fd != sv[1])
				close(fd);
		_exit(agent_loop(sv[1]));
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return -1;
	}
	*give = sv[0];
	return pid;
}

#define AGENT_EXEC_ARG	"--ptags-agent"

/*
 * OP_EXEC: this program again, told to be the agent on @sock; returns only
 * on failure (errno).  The new image answers the command.
 */
static inline int agent_exec(int sock)
{
	char fd[16];
	char *argv[] = { "agent", AGENT_EXEC_ARG, fd, NULL };

	snprintf(fd, sizeof(fd), "%d", sock);
	if (fcntl(sock, F_SETFD, 0))
		return errno;
	execv("/proc/self/exe", argv);
	fcntl(sock, F_SETFD, FD_CLOEXEC);
	return errno;
}

/*
 * OP_RUN: run @cmd (split at spaces; no quoting) with stdout and stderr
 * into @out; returns its exit status, 128 + a signal, or -1.
 */
static inline int agent_run(char *cmd, char *out, size_t len, int *n)
{
	char *argv[16], *save = NULL;
	int pipefd[2], status, argc = 0;
	size_t used = 0;
	ssize_t got;
	pid_t pid;

	for (char *a = strtok_r(cmd, " ", &save); a && argc < 15;
	     a = strtok_r(NULL, " ", &save))
		argv[argc++] = a;
	argv[argc] = NULL;
	*n = 0;
	if (!argc || pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	while (pid > 0 && used < len &&
	       (got = read(pipefd[0], out + used, len - used)) > 0)
		used += got;
	close(pipefd[0]);
	*n = (int)used;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * OP_PEER: libptags's peer check of the other end of @sock through a root
 * of @level (PTAGS_LEVEL_OWN or a depth): the peer's tags as text
 * ("NAME[=VALUE]" lines, "@" for kept) in @out; 0 or a negative errno.
 */
static inline int agent_peer(int sock, int level, char *out, size_t len,
			     int *n)
{
	struct ptags_root *root = NULL;
	struct ptags_set *set = NULL;
	size_t used = 0;
	int err;

	*n = 0;
	err = ptags_root_open_level(level, 0, &root);
	if (!err)
		err = ptags_root_peer_read(root, sock, 0, NULL, NULL, &set);
	ptags_root_close(root);
	if (err)
		return err;
	for (size_t i = 0; i < ptags_set_count(set) && used < len; i++) {
		const struct ptags_tag *t = ptags_set_tag(set, i);

		used += snprintf(out + used, len - used, "%s%s%s%s\n",
				 t->keep ? "@" : "", t->name,
				 t->value ? "=" : "", t->value ? t->value : "");
	}
	ptags_set_free(set);
	*n = used < len ? (int)used : (int)len;
	return 0;
}

/*
 * A test whose agents may OP_EXEC calls this first in main(): an agent's
 * new image answers its OP_EXEC and goes on serving.
 */
static inline void agent_exec_main(int argc, char **argv)
{
	static struct agent_msg r;
	int sock;

	if (argc != 3 || strcmp(argv[1], AGENT_EXEC_ARG))
		return;
	sock = atoi(argv[2]);
	fcntl(sock, F_SETFD, FD_CLOEXEC);
	memset(&r, 0, AGENT_HDR);
	if (agent_send(sock, &r, -1))
		_exit(1);
	_exit(agent_loop(sock));
}

static inline void agent_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The agent: serve commands on @sock until OP_EXIT or the parent is gone. */
/* A reply to a read of @n bytes into its data, or of -errno. */
static inline void agent_reply_read(struct agent_msg *r, ssize_t n)
{
	r->ret = n < 0 ? -n : 0;
	r->len = n < 0 ? 0 : n;
}

static inline int agent_loop(int sock)
{
	static struct agent_msg c, r;
	int fds[AGENT_SLOTS], got, send_with, i;
	struct idler kid = { .pid = -1, .go = -1 };
	char path[4200];

	for (i = 0; i < AGENT_SLOTS; i++)
		fds[i] = -1;
	while (agent_recv(sock, &c, &got) == 0) {
		memset(&r, 0, AGENT_HDR);
		send_with = -1;
		if (c.slot < 0 || c.slot >= AGENT_SLOTS)
			c.slot = 0;
		switch (c.op) {
		case OP_DROP:
			r.ret = drop_privileges(c.target) ? -1 : 0;
			break;
		case OP_DROPMAC:
			r.ret = drop_mac_admin();
			break;
		case OP_USERNS:
			r.ret = become_userns_root();
			break;
		case OP_WRITE:
			r.ret = pt_write_len(c.target, c.data, c.len);
			break;
		case OP_READ:
			agent_reply_read(&r, pt_read(c.target, r.data,
						     sizeof(r.data) - 1));
			break;
		case OP_OPEN:
			agent_close(&fds[c.slot]);
			pt_path(path, sizeof(path), c.target);
			fds[c.slot] = open(path, O_WRONLY);
			r.ret = fds[c.slot] < 0 ? errno : 0;
			break;
		case OP_FDWRITE:
			r.ret = fds[c.slot] < 0 ? EBADF :
				pt_fdwrite(fds[c.slot], c.data);
			break;
		case OP_SENDFD:
			send_with = fds[c.slot];
			r.ret = send_with < 0 ? EBADF : 0;
			break;
		case OP_RECVFD:
			agent_close(&fds[c.slot]);
			fds[c.slot] = got;
			got = -1;
			r.ret = fds[c.slot] < 0 ? EBADF : 0;
			break;
		case OP_CLOSE:
			agent_close(&fds[c.slot]);
			break;
		case OP_SPAWN:
			if (kid.pid > 0) {
				r.ret = -1;
				break;
			}
			idler_start(&kid);
			r.ret = kid.pid;
			break;
		case OP_REAP:
			r.ret = kid.pid > 0 && idler_reap(&kid) == 0 ? 0 : -1;
			kid.pid = -1;
			break;
		case OP_EXIT:
			goto out;
		case OP_NEST:
			r.ret = enter_userns();
			break;
		case OP_UNSHARE:
			r.ret = unshare(c.target) ? errno : 0;
			break;
		case OP_MOUNT:
			r.ret = agent_mount(c.data, (unsigned int)c.target);
			break;
		case OP_ROOT:
			r.ret = agent_set_root(c.data, c.len);
			break;
		case OP_LIST:
			r.ret = agent_list(pt_root, r.data, sizeof(r.data), &r.len);
			break;
		case OP_CAT:
			agent_reply_read(&r, file_read(c.data, r.data,
						       sizeof(r.data) - 1));
			break;
		case OP_AGENT:
			r.ret = agent_fork_agent(&send_with);
			if (r.ret > 0)
				got = send_with;	/* ours closes after the send */
			break;
		case OP_EXEC:
			r.ret = agent_exec(sock);
			break;
		case OP_RUN:
			r.ret = agent_run(c.data, r.data, sizeof(r.data) - 1, &r.len);
			break;
		case OP_PAIR:
			r.ret = EBADF;
			if (c.slot >= 0 && c.slot + 1 < AGENT_SLOTS &&
			    fds[c.slot] < 0 && fds[c.slot + 1] < 0)
				r.ret = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
						   0, &fds[c.slot]) ? errno : 0;
			break;
		case OP_PEER:
			r.ret = -EBADF;
			if (c.slot >= 0 && c.slot < AGENT_SLOTS && fds[c.slot] >= 0)
				r.ret = agent_peer(fds[c.slot], c.target, r.data,
						   sizeof(r.data) - 1, &r.len);
			break;
		default:
			r.ret = -1;
		}
		if (agent_send(sock, &r, send_with))
			break;
		agent_close(&got);
	}
out:
	agent_close(&got);
	if (kid.pid > 0)
		idler_reap(&kid);
	return 0;
}

/* --------------------------------------------------------- parent side */

/*
 * One command: @data (NULL: none) and descriptor @give (-1: none) go with
 * it; *@take (NULL: close it) gets the descriptor the reply carries or -1;
 * the reply's data, if @rdata, goes there (NUL-terminated, @rlen at most).
 * Returns the agent's result, or ERR_DEAD.
 */
static inline int agent_cmd(struct agent *a, int op, int target, int slot,
			    const char *data, int give, int *take,
			    char *rdata, size_t rlen)
{
	static struct agent_msg m;
	size_t len = data ? strlen(data) : 0;
	int fd;

	if (len > AGENT_DATA)
		die("agent command of %zu bytes", len);
	memset(&m, 0, AGENT_HDR);
	m.op = op;
	m.target = target;
	m.slot = slot;
	m.len = (int)len;
	memcpy(m.data, data ? data : "", len);
	if (agent_send(a->sock, &m, give))
		return ERR_DEAD;
	if (agent_recv(a->sock, &m, &fd))
		return ERR_DEAD;
	if (take)
		*take = fd;
	else if (fd >= 0)
		close(fd);
	if (rdata && rlen) {
		len = (size_t)m.len < rlen - 1 ? (size_t)m.len : rlen - 1;
		memcpy(rdata, m.data, len);
		rdata[len] = 0;
	}
	return m.ret;
}

static inline int acmd(struct agent *a, int op, int target, const char *data)
{
	return agent_cmd(a, op, target, 0, data, -1, NULL, NULL, 0);
}

/* The agent writes @s to the tags of @target (0: itself); 0 or errno. */
static inline int aw(struct agent *a, pid_t target, const char *s)
{
	return acmd(a, OP_WRITE, target, s);
}

/* The agent reads the tags of @target into @buf; 0 or errno. */
static inline int a_read(struct agent *a, pid_t target, char *buf, size_t len)
{
	return agent_cmd(a, OP_READ, target, 0, NULL, -1, NULL, buf, len);
}

/* The agent drops every privilege (uid 65534); true when that verifiably
 * worked. */
static inline bool a_drop(struct agent *a)
{
	return acmd(a, OP_DROP, 65534, NULL) == 0;
}

/* Agent @a opens /proc/ptags/@target for writing into @slot. */
static inline int a_open(struct agent *a, pid_t target, int slot)
{
	return agent_cmd(a, OP_OPEN, target, slot, NULL, -1, NULL, NULL, 0);
}

/* Agent @a writes @s through the descriptor in @slot. */
static inline int a_fdw(struct agent *a, int slot, const char *s)
{
	return agent_cmd(a, OP_FDWRITE, 0, slot, s, -1, NULL, NULL, 0);
}

/* The descriptor in @a's @slot, as a descriptor of this process (-1). */
static inline int a_take(struct agent *a, int slot)
{
	int fd = -1;

	if (agent_cmd(a, OP_SENDFD, 0, slot, NULL, -1, &fd, NULL, 0)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Give our descriptor @fd to agent @a as its @slot; 0 on success. */
static inline int a_give(struct agent *a, int slot, int fd)
{
	return agent_cmd(a, OP_RECVFD, 0, slot, NULL, fd, NULL, NULL, 0);
}

/* Move agent @from's @slot descriptor to agent @to's @slot (the file, and
 * so its opener, stay the same). */
static inline int a_pass(struct agent *from, struct agent *to, int slot)
{
	int fd = a_take(from, slot), rc;

	if (fd < 0)
		return -1;
	rc = a_give(to, slot, fd);
	close(fd);
	return rc;
}

static struct agent agent_pool[64];

/*
 * Start an agent.  It inherits our tags, or has none when @clean (it
 * clears them itself, as root, before this returns).
 */
static inline struct agent *agent_new(bool clean)
{
	struct agent *a = NULL;
	int sv[2], fd, rc;
	size_t i;

	for (i = 0; i < sizeof(agent_pool) / sizeof(agent_pool[0]); i++)
		if (agent_pool[i].pid <= 0) {
			a = &agent_pool[i];
			break;
		}
	if (!a)
		die("too many agents");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		die("socketpair");
	a->pid = tap_fork();
	if (a->pid == 0) {
		for (fd = 3; fd < 1024; fd++)
			if (fd != sv[1])
				close(fd);
		_exit(agent_loop(sv[1]));
	}
	close(sv[1]);
	a->sock = sv[0];
	if (clean && (rc = aw(a, 0, "-\n")))
		die("agent %d cannot clear its tags: %s", (int)a->pid, strerror(rc));
	return a;
}

/* Let the agent exit and reap it; true when it exited with status 0. */
static inline bool agent_end(struct agent *a)
{
	static struct agent_msg m;
	bool clean;

	if (a->pid <= 0)
		return false;
	memset(&m, 0, AGENT_HDR);
	m.op = OP_EXIT;
	agent_send(a->sock, &m, -1);
	if (a->foreign) {
		/* Not ours to reap: gone once its end of the socket is. */
		clean = recv(a->sock, &m, AGENT_HDR, 0) == 0;
		close(a->sock);
	} else {
		close(a->sock);
		clean = wait_exit(a->pid) == 0;
	}
	a->pid = -1;
	a->foreign = false;
	return clean;
}

/* End every agent still running, the youngest first. */
static inline void agents_end(void)
{
	size_t i;

	for (i = sizeof(agent_pool) / sizeof(agent_pool[0]); i-- > 0;)
		agent_end(&agent_pool[i]);
}

/*
 * A new agent forked by agent @parent (OP_AGENT): it inherits @parent's
 * tags and namespaces.  NULL if that failed.
 */
static inline struct agent *agent_child(struct agent *parent)
{
	struct agent *a = NULL;
	size_t i;
	int fd = -1, pid;

	for (i = 0; i < sizeof(agent_pool) / sizeof(agent_pool[0]); i++)
		if (agent_pool[i].pid <= 0) {
			a = &agent_pool[i];
			break;
		}
	if (!a)
		die("too many agents");
	pid = agent_cmd(parent, OP_AGENT, 0, 0, NULL, -1, &fd, NULL, 0);
	if (pid <= 0 || pid == ERR_DEAD || fd < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	a->pid = pid;
	a->sock = fd;
	a->foreign = true;
	return a;
}

/* ------------------------------------------------------ assertions */

static inline const char *ename(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "success";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case ESRCH: return "ESRCH";
	case EBADF: return "EBADF";
	case EACCES: return "EACCES";
	case ECANCELED: return "ECANCELED";
	case E2BIG: return "E2BIG";
	case ERR_DEAD: return "agent-died";
	}
	snprintf(buf, sizeof(buf), "ret %d", e);
	return buf;
}

/* ok() on an errno result, naming what came back when it differs. */
static inline bool __attribute__((format(printf, 3, 4)))
expect(int got, int want, const char *fmt, ...)
{
	char name[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (got != want)
		diag("expected %s, got %s", ename(want), ename(got));
	return ok(got == want, "%s", name);
}

/* A row of a table of writes: the lines, the errno they must get, the test. */
struct wcase {
	const char *line;
	int err;
	const char *what;
};

/* expect() for each row of @c: @a writes its line to @target (0: itself). */
static inline void expect_writes(struct agent *a, pid_t target,
				 const struct wcase *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		expect(aw(a, target, c[i].line), c[i].err, "%s", c[i].what);
}

/* Root (this process, CAP_MAC_ADMIN) writes; failures show up as a test. */
static inline void root_write(pid_t pid, const char *s)
{
	int rc = pt_write(pid, s);

	if (rc)
		ok(false, "setup: root write of [%s] to %d: %s", tap_esc(s),
		   (int)pid, strerror(rc));
}

/*
 * New agent holding @grants (a write given as-is, "" for nothing), then
 * dropped to uid 65534 without any capability.
 */
static inline struct agent *unpriv(const char *grants)
{
	struct agent *a = agent_new(false);

	if (grants && *grants)
		root_write(a->pid, grants);
	expect(acmd(a, OP_DROP, 65534, NULL), 0,
	       "setup: agent %d (grants [%s]) drop_privileges(65534) returned 0",
	       (int)a->pid, tap_esc(grants ? grants : ""));
	return a;
}

#endif /* PTAGS_GUEST_AGENT_H */
