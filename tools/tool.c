// SPDX-License-Identifier: GPL-2.0
/*
 * ptags: what its commands share -- messages and exit codes, the root
 * (--root, --level), process ids, printing tags, checking arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

int opt_json;

/* --level: the level's root (kept open for the program's life) and name. */
static struct ptags_root *level_root;
static const char *level_name;

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ptags: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'ptags --help'.\n", stderr);
	return EX_USAGE;
}

int exit_code(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return EX_OK;
	case EPERM:
	case EACCES:
		return EX_PERM;
	case ESRCH:
		return EX_NOPROC;
	case EINVAL:
		return EX_INVALID;
	case ENOENT:
		return EX_NOTAG;
	case ECANCELED:
	case E2BIG:
		return EX_LIMIT;
	case ENODEV:
		return EX_NOPTAGS;
	default:
		return EX_OTHER;
	}
}

/*
 * After EPERM: rights that ptags's parent (the shell) holds without the
 * keep flag were removed when ptags was executed (SPEC §9), so ptags never
 * had them.  Say so, since the shell's own tags show them.
 */
static void hint_unkept_rights(void)
{
	struct ptags_set *parent, *self;
	pid_t ppid = getppid();
	size_t i;
	int shown = 0;

	if (ptags_read(ppid, &parent))
		return;
	if (ptags_read(0, &self)) {
		ptags_set_free(parent);
		return;
	}
	for (i = 0; i < ptags_set_count(parent); i++) {
		const struct ptags_tag *t = ptags_set_tag(parent, i);

		if (t->keep || strncmp(t->name, "ptags:", 6) ||
		    ptags_set_find(self, t->name))
			continue;
		if (!shown++)
			fprintf(stderr, "ptags: note: its parent (pid %d) holds",
				(int)ppid);
		fprintf(stderr, "%s %s", shown > 1 ? "," : "", t->name);
	}
	if (shown)
		fprintf(stderr, " without the keep flag: a tag without it is removed at execve, so ptags itself does not hold it; grant it kept (+@NAME) to use it from commands\n");
	ptags_set_free(parent);
	ptags_set_free(self);
}

/* "ptags: cannot WHAT: MESSAGE (EXPLANATION)"; returns the exit code. */
int report(int err, enum ptags_op op, const char *name, pid_t pid,
	   const char *fmt, ...)
{
	char why[512];
	va_list ap;

	ptags_explain(why, sizeof(why), err, op, name,
		      pid != 0 && pid != getpid());
	fputs("ptags: cannot ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s", ptags_strerror(err));
	if (*why)
		fprintf(stderr, " (%s)", why);
	fputc('\n', stderr);
	if (err == -EPERM && op != PTAGS_OP_READ)
		hint_unkept_rights();
	return exit_code(err);
}

/*
 * --level: open the level's root (SPEC §12) and point the rest of the
 * program at it.  0 or an exit code, after "ptags: cannot open level N:
 * MESSAGE (WHAT TO DO)".
 */
int open_level(const char *arg, int level)
{
	const char *msg, *why = "";
	char path[64];
	int err;

	err = ptags_root_open_level(level, 0, &level_root);
	if (!err) {
		level_name = arg;
		snprintf(path, sizeof(path), "/proc/self/fd/%d",
			 ptags_root_fd(level_root));
		err = ptags_set_root(path);
		if (!err)
			return 0;
	}
	msg = ptags_strerror(err);
	switch (-err) {
	case ENODEV:
		why = "load the module: modprobe ptags";
		break;
	case EINVAL:
		msg = "no such level";
		why = "a level is a depth from 0 to that of this process's user namespace, or 'own'";
		break;
	case EPERM:
		why = level == PTAGS_LEVEL_OWN ?
		      "mounting its own level needs CAP_SYS_ADMIN in its user namespace and over its mount namespace, as after 'unshare -Urm'" :
		      "mounting a level needs CAP_SYS_ADMIN over this process's pid and mount namespaces, and no mount of the level in /proc/self/mountinfo shows this process";
		break;
	}
	fprintf(stderr, "ptags: cannot open level %s: %s%s%s%s\n", arg, msg,
		*why ? " (" : "", why, *why ? ")" : "");
	return exit_code(err);
}

/* A handle of the root: the level's (--level), else ptags_root()'s. */
int open_root(struct ptags_root **root)
{
	if (level_root)
		return ptags_root_openat(ptags_root_fd(level_root), ".", 0,
					 root);
	return ptags_root_openat(AT_FDCWD, NULL, 0, root);
}

/* What the root is called in messages. */
const char *root_name(void)
{
	static char buf[64];

	if (!level_name)
		return ptags_root();
	snprintf(buf, sizeof(buf), "level %s", level_name);
	return buf;
}

/* "self", or a pid as the kernel prints it: digits, no sign, no leading 0. */
int parse_pid(const char *s, pid_t *pid)
{
	long long v = 0;
	size_t i;

	if (!strcmp(s, "self")) {
		*pid = 0;
		return 0;
	}
	if (s[0] < '1' || s[0] > '9' || strlen(s) > 10)
		return -1;
	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v > 0x7fffffff)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

const char *pid_str(pid_t pid)
{
	static char buf[32];

	if (!pid)
		return "self";
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	return buf;
}

int pidfd_of(pid_t pid)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0);

	if (pidfd < 0)
		return errno == EINVAL ? -ESRCH : -errno;
	return pidfd;
}

/*
 * Length of the UTF-8 sequence at @s that is printable text, or 0 when the
 * byte at @s must be escaped: a control character (C0, DEL, C1) or a byte
 * that does not start a valid sequence.  Tag text can hold only C1 ones
 * (SPEC §4: no byte below 0x20, no DEL), so it stays the SPEC text.
 */
static size_t safe_char(const unsigned char *s)
{
	unsigned int cp;
	size_t n, k;

	if (*s < 0x80)
		return *s >= 0x20 && *s != 0x7f;
	if (*s >= 0xc2 && *s <= 0xdf)
		n = 2, cp = *s & 0x1f;
	else if (*s >= 0xe0 && *s <= 0xef)
		n = 3, cp = *s & 0x0f;
	else if (*s >= 0xf0 && *s <= 0xf4)
		n = 4, cp = *s & 0x07;
	else
		return 0;
	for (k = 1; k < n; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

/*
 * @s for a terminal: text as it is, every other byte as \xHH (as util-linux
 * prints names), so no workload's process name or tag can send escape
 * sequences to whoever reads the output.
 */
void put_safe(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		n = safe_char(p);
		if (n) {
			fwrite(p, 1, n, stdout);
			p += n;
		} else {
			printf("\\x%02x", *p++);
		}
	}
}

/*
 * The same into @buf (4 bytes per byte of @s suffice), for a column of
 * process names, whose backslashes are escaped too (as util-linux does).
 */
const char *safe(const char *s, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, n;

	while (*p && o + 5 <= size) {
		n = *p == '\\' ? 0 : safe_char(p);
		if (n) {
			memcpy(buf + o, p, n);
			o += n;
			p += n;
		} else {
			o += snprintf(buf + o, size - o, "\\x%02x", *p++);
		}
	}
	buf[o] = 0;
	return buf;
}

void print_tag(const struct ptags_tag *t)
{
	fputs(t->keep ? "@" : "", stdout);
	put_safe(t->name);
	if (t->value) {
		putchar('=');
		put_safe(t->value);
	}
}

/* " TAG TAG...\n": the tags of @set (NULL: none) that match @query. */
void print_matching(const struct ptags_set *set, const char *query)
{
	size_t k;

	for (k = 0; k < ptags_set_count(set); k++) {
		const struct ptags_tag *t = ptags_set_tag(set, k);

		if (query && ptags_match(query, t->name, t->value) != 1)
			continue;
		putchar(' ');
		print_tag(t);
	}
	putchar('\n');
}

/* Validate @s as a name (@pattern_ok: or a pattern); message on failure. */
int check_name(const char *s, int pattern_ok)
{
	const char *why = "";

	if (pattern_ok ? ptags_pattern_valid(s, &why) : ptags_name_valid(s, &why)) {
		fprintf(stderr, "ptags: invalid tag %s '%s': it %s\n",
			pattern_ok ? "name or pattern" : "name", s, why);
		return EX_INVALID;
	}
	return 0;
}

int check_value(const char *name, const char *v)
{
	const char *why = "";

	if (!*v) {
		fprintf(stderr, "ptags: empty value for '%s': there are no empty values; 'ptags unset' removes a value\n",
			name);
		return EX_INVALID;
	}
	if (ptags_value_valid(v, &why)) {
		fprintf(stderr, "ptags: invalid value for '%s': it %s\n",
			name, why);
		return EX_INVALID;
	}
	return 0;
}

/* Join @argv for messages ("a, b, c"), at most @size bytes. */
void join(char *buf, size_t size, int argc, char **argv)
{
	size_t len = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < argc && len + 1 < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
				argv[i]);
	if (len >= size && size > 4)
		strcpy(buf + size - 4, "...");
}

int check_query(const char *q)
{
	const char *why = "";

	if (ptags_query_valid(q, &why)) {
		fprintf(stderr, "ptags: invalid query '%s': it %s (a query is NAME, PREFIX:* or NAME=VALUE)\n",
			q, why);
		return EX_INVALID;
	}
	return 0;
}
