// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: messages in SPEC terms and JSON output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *ptags_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return "success";
	case EPERM:
		return "permission denied";
	case ENOENT:
		return "no such tag";
	case ESRCH:
		return "no such process";
	case EINVAL:
		return "invalid name, value, pattern or line";
	case ECANCELED:
		return "tag set limit reached";
	case E2BIG:
		return "transaction larger than max_write";
	case ENOMEM:
		return "out of memory";
	case ENODEV:
		return "ptags is not available";
	case EXDEV:
		return "the ptags root belongs to another pid namespace";
	case EOPNOTSUPP:
		return "not supported by this kernel";
	case ENOSYS:
		return "system call not available";
	default:
		return strerror(err < 0 ? -err : err);
	}
}

/* The P of the rights ptags:P:ACTION that cover @name (SPEC §5.1). */
static int right_prefix(const char *name, char *buf, size_t size)
{
	size_t n;

	if (!strncmp(name, "ptags:", 6))
		return snprintf(buf, size, "ptags");
	n = strcspn(name, ":");
	return snprintf(buf, size, "%.*s", (int)n, name);
}

int ptags_explain(char *buf, size_t size, int err, enum ptags_op op,
		  const char *name, int other)
{
	const char *right = NULL;
	char p[256];

	if (!buf)
		size = 0;
	switch (err < 0 ? -err : err) {
	case EPERM:
		switch (op) {
		case PTAGS_OP_ADD:
		case PTAGS_OP_KEEP:
			right = "add";
			break;
		case PTAGS_OP_REMOVE:
		case PTAGS_OP_UNKEEP:
			right = "sub";
			break;
		case PTAGS_OP_SET:
			right = "set";
			break;
		default:
			break;
		}
		if (!right || !name || strchr(name, '*'))
			return snprintf(buf, size,
					"the writer needs ptags:P:add, :sub or :set for each tag%s, or CAP_MAC_ADMIN",
					other ? " and ptags:P:others" : "");
		right_prefix(name, p, sizeof(p));
		if (other)
			return snprintf(buf, size,
					"the writer needs ptags:%s:%s and ptags:%s:others, or CAP_MAC_ADMIN",
					p, right, p);
		return snprintf(buf, size,
				"the writer needs ptags:%s:%s, or CAP_MAC_ADMIN", p,
				right);
	case ENOENT:
		if (op == PTAGS_OP_SET)
			return snprintf(buf, size,
					"a value can only be set on an existing tag: add it first");
		if (op == PTAGS_OP_KEEP)
			return snprintf(buf, size,
					"the tag must exist; adding it kept is +@NAME");
		if (op == PTAGS_OP_REQUIRE || op == PTAGS_OP_WRITE)
			return snprintf(buf, size,
					"a '?' guard or a '!' line found no matching tag; nothing changed");
		return snprintf(buf, size, "%s", "");
	case ESRCH:
		return snprintf(buf, size, "the process does not exist or has exited");
	case EINVAL:
		return snprintf(buf, size,
				"names are 1-4000 bytes of UTF-8 without control characters, '=' or '*', not beginning with '@' nor ending with ':'; values at most 32700 bytes");
	case ECANCELED:
		return snprintf(buf, size,
				"the process would exceed max_tags or max_bytes (/sys/module/ptags/parameters); nothing changed");
	case E2BIG:
		return snprintf(buf, size,
				"a transaction is one write of at most max_write bytes (/sys/module/ptags/parameters/max_write)");
	case ENODEV:
		return snprintf(buf, size,
				"%s is not a ptags file system: is the ptags module loaded (modprobe ptags)?",
				ptags_root());
	case EOPNOTSUPP:
		return snprintf(buf, size, "SO_PEERPIDFD needs Linux 6.5 or later");
	case EXDEV:
		return snprintf(buf, size,
				"%s resolves pids in another pid namespace: mount a ptags instance in this one (mount -t ptags ptags DIR) and use it",
				ptags_root());
	default:
		return snprintf(buf, size, "%s", "");
	}
}

/* ---- JSON ---- */

struct sbuf {
	char *s;
	size_t len, cap;
	int err;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	char *ns;

	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 128;

		while (cap < b->len + n + 1)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (!ns) {
			b->err = 1;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static void sb_json(struct sbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, n;
	char esc[8];

	sb_put(b, "\"", 1);
	while (i < len) {
		unsigned char c = p[i];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = c;
			sb_put(b, esc, 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			sb_put(b, esc, 6);
			i++;
		} else {
			n = pt_utf8_seq(p + i, len - i);
			if (n) {
				sb_put(b, s + i, n);
				i += n;
			} else {
				sb_put(b, "\\ufffd", 6);
				i++;
			}
		}
	}
	sb_put(b, "\"", 1);
}

static char *sb_done(struct sbuf *b)
{
	if (b->err) {
		free(b->s);
		return NULL;
	}
	return b->s;
}

char *ptags_json_string(const char *s)
{
	struct sbuf b = { 0 };

	sb_json(&b, s);
	return sb_done(&b);
}

char *ptags_set_json(const struct ptags_set *set, const char *query)
{
	struct sbuf b = { 0 };
	size_t i, shown = 0;

	sb_put(&b, "[", 1);
	for (i = 0; set && i < set->count; i++) {
		const struct ptags_tag *t = &set->tags[i];

		if (query && ptags_match(query, t->name, t->value) != 1)
			continue;
		if (shown++)
			sb_put(&b, ",", 1);
		sb_str(&b, "{\"name\":");
		sb_json(&b, t->name);
		sb_str(&b, ",\"value\":");
		if (t->value)
			sb_json(&b, t->value);
		else
			sb_str(&b, "null");
		sb_str(&b, t->keep ? ",\"keep\":true}" : ",\"keep\":false}");
	}
	sb_put(&b, "]", 1);
	return sb_done(&b);
}
