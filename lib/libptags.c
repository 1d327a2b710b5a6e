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
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
 * Open the entry of @pid.  A missing entry is a missing process (-ESRCH),
 * unless the root itself is missing (-ENODEV).
 */
static int open_entry(pid_t pid, int flags)
{
	const char *root = ptags_root();
	char path[4096];
	struct stat st;
	int fd, n;

	if (pid < 0)
		return -EINVAL;
	if (pid)
		n = snprintf(path, sizeof(path), "%s/%d", root, (int)pid);
	else
		n = snprintf(path, sizeof(path), "%s/self", root);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, flags | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (errno == ENOENT)
		return stat(root, &st) ? -ENODEV : -ESRCH;
	return -errno;
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

int ptags_read(pid_t pid, struct ptags_set **set)
{
	size_t len = 0;
	char *buf = NULL;
	int fd, err;

	*set = NULL;
	fd = open_entry(pid, O_RDONLY);
	if (fd < 0)
		return fd;
	err = read_all(fd, &buf, &len);
	close(fd);
	if (err)
		return err;
	err = ptags_parse(buf, len, set);
	free(buf);
	return err;
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

/* ---- listing ---- */

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

void ptags_list_free(struct ptags_proc *procs, size_t count)
{
	size_t i;

	for (i = 0; procs && i < count; i++)
		ptags_set_free(procs[i].tags);
	free(procs);
}

/* Collect the numeric entries of the root, sorted. */
static int list_pids(pid_t **pidsp, size_t *np)
{
	size_t n = 0, cap = 64;
	pid_t *pids, *npids;
	struct dirent *d;
	DIR *dir;
	int err = 0;

	dir = opendir(ptags_root());
	if (!dir)
		return errno == ENOENT ? -ENODEV : -errno;
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

int ptags_list(const char *query, struct ptags_proc **procsp, size_t *countp)
{
	struct ptags_proc *procs;
	size_t n = 0, i, count = 0;
	pid_t *pids = NULL;
	int err;

	*procsp = NULL;
	*countp = 0;
	if (query) {
		err = ptags_query_valid(query, NULL);
		if (err)
			return err;
	}
	err = list_pids(&pids, &n);
	if (err)
		return err;
	procs = calloc(n ? n : 1, sizeof(*procs));
	if (!procs) {
		free(pids);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct ptags_set *set;

		err = ptags_read(pids[i], &set);
		if (err == -ESRCH)
			continue;	/* exited during the listing */
		if (err)
			goto fail;
		if (query && ptags_set_match(set, query) != 1) {
			ptags_set_free(set);
			continue;
		}
		procs[count].pid = pids[i];
		procs[count].tags = set;
		count++;
	}
	free(pids);
	*procsp = procs;
	*countp = count;
	return 0;
fail:
	free(pids);
	ptags_list_free(procs, count);
	return err;
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
	ssize_t n;
	int fd, err = 0;

	fd = open_entry(pid, O_WRONLY);
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

int ptags_txn_commit(const struct ptags_txn *txn, pid_t pid)
{
	if (txn->err)
		return txn->err;
	return ptags_write_text(pid, ptags_txn_text(txn, NULL), txn->len);
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

/* 1 when the other end of @sock is closed (POLLHUP). */
static int peer_hung_up(int sock)
{
	struct pollfd p = { .fd = sock, .events = 0 };

	if (poll(&p, 1, 0) < 0)
		return -errno;
	return !!(p.revents & POLLHUP);
}

/*
 * The root a peer check reads: the one the caller chose with
 * ptags_set_root(), else /proc/ptags; never $PTAGS_ROOT, which whoever
 * started the daemon controls.  Opened as a directory, checked to be a
 * ptags file system that resolves pids in the caller's pid namespace (its
 * "self" is the caller).  A descriptor, or -ENODEV (missing, or not
 * ptags), -EXDEV (another pid namespace's), other negative errno.
 */
static int peer_root(void)
{
	const char *root = root_override ? root_override : PTAGS_DEFAULT_ROOT;
	char link[32], me[32];
	struct statfs sfs;
	ssize_t n;
	int fd;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENODEV : -errno;
	if (fstatfs(fd, &sfs) || sfs.f_type != PTAGS_SUPER_MAGIC) {
		close(fd);
		return -ENODEV;
	}
	n = readlinkat(fd, "self", link, sizeof(link) - 1);
	if (n < 0 || n >= (ssize_t)sizeof(link) - 1) {
		close(fd);
		return -EXDEV;	/* the caller has no pid there */
	}
	link[n] = 0;
	snprintf(me, sizeof(me), "%d", (int)getpid());
	if (strcmp(link, me)) {
		close(fd);
		return -EXDEV;
	}
	return fd;
}

/* The tags of @pid under the root @dirfd. */
static int read_at(int dirfd, pid_t pid, struct ptags_set **set)
{
	char name[32];
	size_t len = 0;
	char *buf = NULL;
	int fd, err;

	*set = NULL;
	snprintf(name, sizeof(name), "%d", (int)pid);
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	err = read_all(fd, &buf, &len);
	close(fd);
	if (!err)
		err = ptags_parse(buf, len, set);
	free(buf);
	return err;
}

int ptags_peer_read(int sock, unsigned int flags, struct ptags_peer *peer,
		    struct ptags_set **setp)
{
	struct ptags_set *set = NULL;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int pidfd = -1, rootfd, method, err;

	if (setp)
		*setp = NULL;
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
	rootfd = err ? err : peer_root();
	if (rootfd < 0) {
		close(pidfd);
		return rootfd;
	}
	err = read_at(rootfd, cred.pid, &set);
	close(rootfd);
	/* After the read: the pidfd's process still runs, so the pid was its. */
	if (!err)
		err = pidfd_alive(pidfd);
	close(pidfd);
	if (err) {
		ptags_set_free(set);
		return err;
	}
	if (peer) {
		peer->pid = cred.pid;
		peer->uid = cred.uid;
		peer->gid = cred.gid;
		peer->method = method;
	}
	if (setp)
		*setp = set;
	else
		ptags_set_free(set);
	return 0;
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
