// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: transactions (SPEC §3.4) -- building the protocol lines and
 * sending them in one write(2), by pid, at a root or by pidfd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define PARAMS_DIR "/sys/module/ptags/parameters"

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
	return pt_write_entry(pt_open_entry(ptags_root(), pid, O_WRONLY), text, len);
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
	return pt_write_entry(pt_entry_at(root->fd, pid, O_WRONLY), text, len);
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
