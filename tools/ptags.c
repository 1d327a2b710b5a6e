// SPDX-License-Identifier: GPL-2.0
/*
 * ptags: show and change the tags of processes (see ptags.1).
 *
 * Every change is one transaction built with libptags and sent in one
 * write(2) (SPEC §3.4): all of a command's arguments apply, or none does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "ptags.h"
#include "level.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* Exit codes (documented in ptags.1 and --help). */
enum {
	EX_OK = 0,
	EX_NO = 1,		/* has: no; ps: nothing matched */
	EX_USAGE = 2,
	EX_PERM = 3,		/* EPERM, EACCES */
	EX_NOPROC = 4,		/* ESRCH */
	EX_INVALID = 5,		/* EINVAL: name, value, pattern, line */
	EX_NOTAG = 6,		/* ENOENT: a '!' or '?' line found nothing */
	EX_LIMIT = 7,		/* ECANCELED, E2BIG */
	EX_NOPTAGS = 8,		/* ENODEV: module not loaded */
	EX_OTHER = 9,
};

static int json;

/* --level: the level's root (kept open for the program's life) and name. */
static struct ptags_root *level_root;
static const char *level_name;

static const char usage_text[] =
"Usage: ptags [--json] [--root DIR | --level N|own] [PID...]\n"
"       ptags [--root DIR | --level N|own] COMMAND ...\n"
"                                 (options may also follow; -- ends them)\n"
"\n"
"Show the tags of each PID; without PID, those of the parent process (the\n"
"shell that ran ptags: ptags itself was just exec'ed and keeps only kept tags).\n"
"\n"
"Commands (each is ONE transaction: all arguments apply, or none does):\n"
"  add PID [@]NAME[=VALUE]...      add tags (@: keep flag; =VALUE: set a value)\n"
"  rm PID NAME|PREFIX:*|--all...   remove tags\n"
"  set PID NAME=VALUE...           set the value of existing tags\n"
"  unset PID NAME...               remove the value of tags\n"
"  keep PID NAME|PREFIX:*|--all... set the keep flag (the tag survives execve)\n"
"  unkeep PID NAME|PREFIX:*|--all... clear the keep flag\n"
"                                  (a NAME may be written @NAME, as shown)\n"
"  has PID [@]NAME|PREFIX:*|NAME=VALUE  exit 0 if PID has a matching tag\n"
"                                  (@: with the keep flag), 1 if not\n"
"  apply PID [FILE]                send FILE (default: standard input) as one\n"
"                                  transaction of protocol lines (ptags(1))\n"
"  ps [NAME|PREFIX:*|NAME=VALUE]   tagged processes: pid, command, matching tags\n"
"  watch [PID...|QUERY]           one line per change until interrupted\n"
"  exec [--tag NAME[=VALUE]]... [--from PID --match PATTERN...] -- CMD [ARG...]\n"
"                                  add kept tags (or copy PID's tags matching\n"
"                                  PATTERN) to itself, then execute CMD\n"
"  stats [--prometheus]            the module's counters (--prometheus: the\n"
"                                  node exporter's textfile format)\n"
"\n"
"Options:\n"
"  --json      listings (PID..., ps) as JSON; watch: one object per line\n"
"  --root DIR  use DIR instead of $PTAGS_ROOT or /proc/ptags\n"
"  --level N|own\n"
"              the tags of level N (a depth on this process's chain of user\n"
"              namespaces, 0: the initial one) or of its own user namespace\n"
"  -h, --help  this text;  -V, --version\n"
"\n"
"Exit status: 0 success, 1 no (has, ps without match), 2 usage error,\n"
"3 permission denied, 4 no such process, 5 invalid name, value, pattern,\n"
"line or level, 6 no such tag (a value or guard needs one), 7 limit (max_tags,\n"
"max_bytes, max_write), 8 ptags not available, 9 other error; exec: 126/127\n"
"when CMD cannot be run.  See ptags(1).\n";

static int __attribute__((format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ptags: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'ptags --help'.\n", stderr);
	return EX_USAGE;
}

static int exit_code(int err)
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
static int __attribute__((format(printf, 5, 6)))
report(int err, enum ptags_op op, const char *name, pid_t pid,
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
static int open_level(const char *arg, int level)
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
static int open_root(struct ptags_root **root)
{
	if (level_root)
		return ptags_root_openat(ptags_root_fd(level_root), ".", 0,
					 root);
	return ptags_root_openat(AT_FDCWD, NULL, 0, root);
}

/* What the root is called in messages. */
static const char *root_name(void)
{
	static char buf[64];

	if (!level_name)
		return ptags_root();
	snprintf(buf, sizeof(buf), "level %s", level_name);
	return buf;
}

/* "self", or a pid as the kernel prints it: digits, no sign, no leading 0. */
static int parse_pid(const char *s, pid_t *pid)
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

static const char *pid_str(pid_t pid)
{
	static char buf[32];

	if (!pid)
		return "self";
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	return buf;
}

/* Print @s as a JSON string to stdout. */
static int put_json(const char *s)
{
	char *j = ptags_json_string(s);

	if (!j)
		return -ENOMEM;
	fputs(j, stdout);
	free(j);
	return 0;
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
static void put_safe(const char *s)
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
static const char *safe(const char *s, char *buf, size_t size)
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

static void print_tag(const struct ptags_tag *t)
{
	fputs(t->keep ? "@" : "", stdout);
	put_safe(t->name);
	if (t->value) {
		putchar('=');
		put_safe(t->value);
	}
}
/* ---- ptags [PID...] ---- */

/* " TAG TAG...\n": the tags of @set (NULL: none) that match @query. */
static void print_matching(const struct ptags_set *set, const char *query)
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

static int cmd_show(int argc, char **argv)
{
	pid_t pids[argc ? argc : 1];
	int i, n, rc = EX_OK, shown = 0;

	if (!argc) {
		pids[0] = getppid();
		if (!pids[0]) {
			fputs("ptags: the parent process is outside this pid namespace: name a PID\n",
			      stderr);
			return EX_NOPROC;
		}
		n = 1;
	} else {
		for (i = 0; i < argc; i++)
			if (parse_pid(argv[i], &pids[i]))
				return usage_error("not a process id: '%s'", argv[i]);
		n = argc;
	}
	if (json)
		putchar('[');
	for (i = 0; i < n; i++) {
		struct ptags_set *set;
		size_t k;
		int err;

		err = ptags_read(pids[i], &set);
		if (err) {
			rc = report(err, PTAGS_OP_READ, NULL, pids[i],
				    "read the tags of %s", pid_str(pids[i]));
			continue;
		}
		if (json) {
			char *j = ptags_set_json(set, NULL);

			if (!j) {
				ptags_set_free(set);
				return report(-ENOMEM, PTAGS_OP_READ, NULL, 0, "print");
			}
			printf("%s{\"pid\":%d,\"tags\":%s}", shown ? "," : "",
			       pids[i] ? (int)pids[i] : (int)getpid(), j);
			free(j);
		} else {
			for (k = 0; k < ptags_set_count(set); k++) {
				if (n > 1)
					printf("%s\t", pid_str(pids[i]));
				print_tag(ptags_set_tag(set, k));
				putchar('\n');
			}
		}
		shown++;
		ptags_set_free(set);
	}
	if (json)
		puts("]");
	return rc;
}

/* ---- changes ---- */

/* Validate @s as a name (@pattern_ok: or a pattern); message on failure. */
static int check_name(const char *s, int pattern_ok)
{
	const char *why = "";

	if (pattern_ok ? ptags_pattern_valid(s, &why) : ptags_name_valid(s, &why)) {
		fprintf(stderr, "ptags: invalid tag %s '%s': it %s\n",
			pattern_ok ? "name or pattern" : "name", s, why);
		return EX_INVALID;
	}
	return 0;
}

static int check_value(const char *name, const char *v)
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
static void join(char *buf, size_t size, int argc, char **argv)
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

struct change {
	const char *cmd;
	enum ptags_op op;
	const char *verb;	/* "add %s to %s" */
	int all_ok;		/* accepts --all */
};

static const struct change changes[] = {
	{ "add", PTAGS_OP_ADD, "add %s to %s", 0 },
	{ "rm", PTAGS_OP_REMOVE, "remove %s from %s", 1 },
	{ "set", PTAGS_OP_SET, "set %s on %s", 0 },
	{ "unset", PTAGS_OP_SET, "unset the value of %s on %s", 0 },
	{ "keep", PTAGS_OP_KEEP, "keep %s on %s", 1 },
	{ "unkeep", PTAGS_OP_UNKEEP, "unkeep %s on %s", 1 },
};

/* Add one argument of @c to @txn; an exit code on invalid input. */
static int build_arg(const struct change *c, struct ptags_txn *txn, char *arg)
{
	char *eq, *name = arg;
	int keep = 0, rc;

	/* "@NAME" as "ptags PID" prints it: the flag is the command's to set. */
	if (c->op != PTAGS_OP_ADD && *name == '@')
		name++;
	if (c->all_ok && (!strcmp(arg, "--all") || !strcmp(arg, "-a"))) {
		if (c->op == PTAGS_OP_REMOVE)
			return ptags_txn_remove_all(txn) ? EX_OTHER : 0;
		if (c->op == PTAGS_OP_KEEP)
			return ptags_txn_keep_all(txn) ? EX_OTHER : 0;
		return ptags_txn_unkeep_all(txn) ? EX_OTHER : 0;
	}
	switch (c->op) {
	case PTAGS_OP_ADD:
		if (*name == '@') {
			keep = 1;
			name++;
		}
		eq = strchr(name, '=');
		if (eq)
			*eq = 0;
		rc = check_name(name, 0);
		if (!rc && eq)
			rc = check_value(name, eq + 1);
		if (rc)
			return rc;
		if (keep)
			ptags_txn_add_kept(txn, name);
		else
			ptags_txn_add(txn, name);
		if (eq) {
			ptags_txn_set_value(txn, name, eq + 1);
			*eq = '=';
		}
		return 0;
	case PTAGS_OP_SET:
		if (!strcmp(c->cmd, "unset")) {
			rc = check_name(name, 0);
			return rc ? rc : (ptags_txn_clear_value(txn, name) ? EX_OTHER : 0);
		}
		eq = strchr(name, '=');
		if (!eq)
			return usage_error("set takes NAME=VALUE, not '%s'", arg);
		*eq = 0;
		rc = check_name(name, 0);
		if (!rc)
			rc = check_value(name, eq + 1);
		if (!rc)
			ptags_txn_set_value(txn, name, eq + 1);
		*eq = '=';
		return rc;
	case PTAGS_OP_REMOVE:
		rc = check_name(name, 1);
		return rc ? rc : (ptags_txn_remove(txn, name) ? EX_OTHER : 0);
	case PTAGS_OP_KEEP:
		rc = check_name(name, 1);
		return rc ? rc : (ptags_txn_keep(txn, name) ? EX_OTHER : 0);
	default:
		rc = check_name(name, 1);
		return rc ? rc : (ptags_txn_unkeep(txn, name) ? EX_OTHER : 0);
	}
}

static int cmd_change(const struct change *c, int argc, char **argv)
{
	struct ptags_txn *txn;
	char names[1024], target[64];
	const char *one = NULL;
	pid_t pid;
	int i, rc = 0, err;

	if (argc < 2)
		return usage_error("%s needs a PID and at least one tag", c->cmd);
	if (parse_pid(argv[0], &pid))
		return usage_error("not a process id: '%s'", argv[0]);
	txn = ptags_txn_new();
	if (!txn)
		return report(-ENOMEM, c->op, NULL, 0, "%s", c->cmd);
	for (i = 1; i < argc && !rc; i++)
		rc = build_arg(c, txn, argv[i]);
	if (rc) {
		ptags_txn_free(txn);
		return rc;
	}
	err = ptags_txn_commit(txn, pid);
	ptags_txn_free(txn);
	if (!err)
		return EX_OK;
	join(names, sizeof(names), argc - 1, argv + 1);
	if (argc == 2) {
		/* Explain with the bare name: no '@', no '=VALUE'. */
		static char bare[PTAGS_NAME_MAX + 1];

		snprintf(bare, sizeof(bare), "%s", argv[1] + (argv[1][0] == '@'));
		bare[strcspn(bare, "=")] = 0;
		one = strcmp(bare, "--all") && strcmp(bare, "-a") ? bare : NULL;
	}
	snprintf(target, sizeof(target), "%s", pid_str(pid));
	/* "add NAME=VALUE" is two lines (+ and !): either right may be missing. */
	if (c->op == PTAGS_OP_ADD && argc == 2 && strchr(argv[1], '='))
		return report(err, PTAGS_OP_WRITE, NULL, pid, c->verb, names, target);
	return report(err, c->op, one, pid, c->verb, names, target);
}

/* ---- has ---- */

static int check_query(const char *q)
{
	const char *why = "";

	if (ptags_query_valid(q, &why)) {
		fprintf(stderr, "ptags: invalid query '%s': it %s (a query is NAME, PREFIX:* or NAME=VALUE)\n",
			q, why);
		return EX_INVALID;
	}
	return 0;
}

/* Does @pid hold a kept tag matching @query?  1, 0 or a negative errno. */
static int has_kept(pid_t pid, const char *query)
{
	struct ptags_set *set;
	size_t i;
	int r;

	r = ptags_read(pid, &set);
	if (r)
		return r;
	for (i = 0; i < ptags_set_count(set) && r != 1; i++) {
		const struct ptags_tag *t = ptags_set_tag(set, i);

		r = t->keep && ptags_match(query, t->name, t->value) == 1;
	}
	ptags_set_free(set);
	return r;
}

static int cmd_has(int argc, char **argv)
{
	const char *query;
	pid_t pid;
	int r;

	if (argc != 2)
		return usage_error("has takes a PID and one NAME, PREFIX:* or NAME=VALUE");
	if (parse_pid(argv[0], &pid))
		return usage_error("not a process id: '%s'", argv[0]);
	query = argv[1] + (argv[1][0] == '@');
	r = check_query(query);
	if (r)
		return r;
	r = argv[1][0] == '@' ? has_kept(pid, query) : ptags_has(pid, query);
	if (r == 1)
		return EX_OK;
	if (r == 0)
		return EX_NO;
	return report(r, PTAGS_OP_READ, NULL, pid, "read the tags of %s",
		      pid_str(pid));
}

/* ---- apply ---- */

/* Offsets of the lines of @buf (@len bytes, ending with a newline). */
static size_t *line_starts(const char *buf, size_t len, size_t *n)
{
	size_t i, k = 0, *v;

	*n = 0;
	for (i = 0; i < len; i++)
		*n += buf[i] == '\n';
	v = malloc((*n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	v[k++] = 0;
	for (i = 0; i + 1 < len; i++)
		if (buf[i] == '\n')
			v[k++] = i + 1;
	v[*n] = len;
	return v;
}

/*
 * Which line of @buf made the kernel refuse it with @err (1-based; 0 when
 * unknown)?  An invalid line is found here; for other errors the lines are
 * sent again, each time followed by the invalid line "x" so that nothing
 * can change: the shortest prefix that fails with @err ends with the line.
 */
static size_t failing_line(pid_t pid, const char *buf, size_t len, int err,
			   const char **why)
{
	size_t n, i, lo = 1, hi, *start = line_starts(buf, len, &n);
	char *probe;
	int r;

	*why = NULL;
	if (!start)
		return 0;
	for (i = 0; i < n; i++) {
		if (ptags_line_valid(buf + start[i], start[i + 1] - start[i] - 1,
				     why)) {
			free(start);
			return i + 1;
		}
	}
	*why = NULL;
	probe = err == -EINVAL ? NULL : malloc(len + 2);
	if (!probe) {
		free(start);
		return 0;
	}
	hi = n;		/* the whole text fails with @err */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(probe, buf, start[mid]);
		memcpy(probe + start[mid], "x\n", 2);
		r = ptags_write_text(pid, probe, start[mid] + 2);
		if (r == err) {
			hi = mid;
		} else if (r == -EINVAL) {
			lo = mid + 1;
		} else {
			lo = hi = 0;	/* something else changed: unknown */
			break;
		}
	}
	free(probe);
	free(start);
	return lo;
}

static int cmd_apply(int argc, char **argv)
{
	const char *file = argc > 1 ? argv[1] : "-";
	const char *what = strcmp(file, "-") ? file : "standard input";
	const char *why;
	size_t len = 0, cap, line;
	long max;
	ssize_t n;
	char *buf;
	pid_t pid;
	int fd, err;

	if (argc < 1 || argc > 2)
		return usage_error("apply takes a PID and at most one FILE");
	if (parse_pid(argv[0], &pid))
		return usage_error("not a process id: '%s'", argv[0]);
	max = ptags_max_write();
	if (max < 0)
		max = PTAGS_DEFAULT_MAX_WRITE;
	fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		fprintf(stderr, "ptags: cannot open %s: %s\n", file, strerror(errno));
		return EX_OTHER;
	}
	cap = (size_t)max + 1;
	buf = malloc(cap);
	if (!buf)
		return report(-ENOMEM, PTAGS_OP_WRITE, NULL, pid, "read %s", what);
	/* Read at most max_write + 1 bytes: one more means too big. */
	while (len < cap && (n = read(fd, buf + len, cap - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "ptags: cannot read %s: %s\n", what, strerror(errno));
			free(buf);
			return EX_OTHER;
		}
		len += n;
	}
	if (fd)
		close(fd);
	if (len > (size_t)max) {
		fprintf(stderr, "ptags: cannot apply %s to %s: larger than max_write (%ld bytes): a transaction is one write; nothing was written\n",
			what, pid_str(pid), max);
		free(buf);
		return EX_LIMIT;
	}
	if (len && buf[len - 1] != '\n') {
		fprintf(stderr, "ptags: cannot apply %s to %s: the last line does not end with a newline; nothing was written\n",
			what, pid_str(pid));
		free(buf);
		return EX_INVALID;
	}
	/* An invalid line is refused here, before anything is written. */
	line = failing_line(0, buf, len, -EINVAL, &why);
	err = line ? -EINVAL : ptags_write_text(pid, buf, len);
	if (!err) {
		free(buf);
		return EX_OK;
	}
	if (!line && err != -E2BIG && err != -ESRCH && err != -ENODEV)
		line = failing_line(pid, buf, len, err, &why);
	if (line) {
		const char *l = buf;
		size_t k;

		for (k = 1; k < line; k++)
			l = memchr(l, '\n', buf + len - l) + 1;
		err = report(err, PTAGS_OP_WRITE, NULL, pid,
			     "apply %s to %s: line %zu '%.*s'%s%s", what,
			     pid_str(pid), line, (int)strcspn(l, "\n"), l,
			     why ? " " : "", why ? why : "");
		free(buf);
		return err;
	}
	free(buf);
	return report(err, PTAGS_OP_WRITE, NULL, pid, "apply %s to %s", what,
		      pid_str(pid));
}

/* ---- ps ---- */

static void read_comm(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, size - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(buf, size, "?");
		return;
	}
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

static int cmd_ps(int argc, char **argv)
{
	const char *query = argc ? argv[0] : NULL;
	struct ptags_proc *procs;
	size_t count, i;
	int err;

	if (argc > 1)
		return usage_error("ps takes at most one NAME, PREFIX:* or NAME=VALUE");
	if (query && (err = check_query(query)))
		return err;
	err = ptags_list(query, &procs, &count);
	if (err)
		return report(err, PTAGS_OP_READ, NULL, 0, "list tagged processes");
	if (json)
		putchar('[');
	else if (count)
		printf("%7s %-16s %s\n", "PID", "COMMAND", "TAGS");
	for (i = 0; i < count; i++) {
		const struct ptags_set *set = procs[i].tags;
		char comm[64], scomm[4 * 64];

		read_comm(procs[i].pid, comm, sizeof(comm));
		if (json) {
			char *j = ptags_set_json(set, query);

			if (!j)
				err = -ENOMEM;
			printf("%s{\"pid\":%d,\"comm\":", i ? "," : "",
			       (int)procs[i].pid);
			put_json(comm);
			printf(",\"tags\":%s}", j ? j : "[]");
			free(j);
			continue;
		}
		printf("%7d %-16s", (int)procs[i].pid,
		       safe(comm, scomm, sizeof(scomm)));
		print_matching(set, query);
	}
	if (json)
		puts("]");
	ptags_list_free(procs, count);
	if (err)
		return report(err, PTAGS_OP_READ, NULL, 0, "print");
	return count ? EX_OK : EX_NO;
}

/* ---- watch ---- */

static volatile sig_atomic_t watch_stop;

static void watch_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

/* Pids a QUERY watch has shown as matching (to report their leaving). */
struct pidset {
	pid_t *p;
	size_t n, cap;
};

static int pidset_has(const struct pidset *s, pid_t pid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->p[i] == pid)
			return 1;
	return 0;
}

static void pidset_put(struct pidset *s, pid_t pid, int in)
{
	size_t i;

	for (i = 0; i < s->n && s->p[i] != pid; i++)
		;
	if (!in && i < s->n)
		s->p[i] = s->p[--s->n];
	if (!in || i < s->n)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		pid_t *np = realloc(s->p, cap * sizeof(*np));

		if (!np)
			return;
		s->p = np;
		s->cap = cap;
	}
	s->p[s->n++] = pid;
}

/* One event: time, pid, what, and the tags (matching @query) when known. */
static void watch_print(pid_t pid, unsigned int what,
			const struct ptags_set *set, const char *query)
{
	struct timespec ts;
	char when[40];
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	if (json) {
		char *j = set ? ptags_set_json(set, query) : NULL;

		printf("{\"time\":\"%s.%03ldZ\",\"pid\":%d,\"event\":\"%s\",\"tags\":%s}\n",
		       when, ts.tv_nsec / 1000000, (int)pid,
		       ptags_watch_what(what), j ? j : "[]");
		free(j);
	} else {
		printf("%s.%03ldZ %d %s", when, ts.tv_nsec / 1000000, (int)pid,
		       ptags_watch_what(what));
		print_matching(set, query);
	}
	fflush(stdout);
}

/*
 * ptags watch [PID... | QUERY]: one line per event until interrupted (or,
 * watching PIDs, until they all exited).
 */
static int cmd_watch(int argc, char **argv)
{
	const char *query = NULL;
	struct ptags_root *root = NULL;
	struct ptags_watch *w = NULL;
	struct pidset matching = { 0 };
	struct sigaction sa = { .sa_handler = watch_signal };
	int i, err, live = 0, pids = argc > 0;
	pid_t pid;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "self"))
			return usage_error("'watch self' would watch this ptags process, which exits with the watch; give a pid ($$ for the shell)");
		if (parse_pid(argv[i], &pid))
			pids = 0;
	}
	if (argc && !pids) {
		if (argc > 1)
			return usage_error("watch takes PIDs, or one NAME, PREFIX:* or NAME=VALUE");
		query = argv[0];
		err = check_query(query);
		if (err)
			return err;
	}
	err = open_root(&root);
	if (!err)
		err = ptags_watch_open(root, pids ? 0 : PTAGS_WATCH_ALL, &w);
	if (err) {
		ptags_root_close(root);
		return report(err, PTAGS_OP_READ, NULL, 0, "watch %s", root_name());
	}
	for (i = 0; pids && i < argc; i++) {
		int pidfd;

		parse_pid(argv[i], &pid);
		pidfd = syscall(SYS_pidfd_open, pid, 0);
		err = pidfd < 0 ? (errno == EINVAL ? -ESRCH : -errno) :
				  ptags_watch_pidfd(w, pidfd);
		if (pidfd >= 0)
			close(pidfd);
		if (err) {
			ptags_watch_close(w);
			ptags_root_close(root);
			return report(err, PTAGS_OP_READ, NULL, 1, "watch %d", (int)pid);
		}
		live++;
	}
	if (query) {
		struct ptags_listing *l;
		size_t k;

		if (!ptags_root_list(root, query, 0, &l)) {
			for (k = 0; k < ptags_listing_count(l); k++)
				pidset_put(&matching, ptags_listing_pid(l, k), 1);
			ptags_listing_free(l);
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!watch_stop && (!pids || live)) {
		struct pollfd p = { .fd = ptags_watch_fd(w), .events = POLLIN };
		unsigned int what;

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		while ((err = ptags_watch_next(w, &pid, &what)) == 1) {
			struct ptags_set *set = NULL;
			int show = 1;

			if (what == PTAGS_WATCH_TAGGED || what == PTAGS_WATCH_CHANGED)
				ptags_root_read(root, pid, &set);
			if (query && what != PTAGS_WATCH_OVERFLOW) {
				int now = set && ptags_set_match(set, query) == 1;

				show = now || pidset_has(&matching, pid);
				pidset_put(&matching, pid, now);
			}
			if (show)
				watch_print(pid, what, set, query);
			ptags_set_free(set);
			if (pids && what == PTAGS_WATCH_EXITED)
				live--;
		}
		if (err < 0)
			break;
		err = 0;
	}
	free(matching.p);
	ptags_watch_close(w);
	ptags_root_close(root);
	if (err < 0)
		return report(err, PTAGS_OP_READ, NULL, 0, "watch");
	return EX_OK;
}

/* ---- exec ---- */

#define EXEC_MAX_MATCH	16

/*
 * ptags stats: the module's counters (SPEC §8), one file each under
 * /sys/module/ptags/stats ($PTAGS_STATS_DIR for tests), sorted by name:
 * NAME VALUE lines, one JSON object, or Prometheus's text format (the node
 * exporter's textfile collector reads it), where counters get "_total".
 * A counter this table does not know (a newer module) is shown too.
 */
static const struct {
	const char *name, *help;
	int counter;
} stat_info[] = {
	{ "audit_suppressed", "Audit records left out over the rate limit", 1 },
	{ "audited", "Audit records of changes to others' tags and of EPERM refusals", 1 },
	{ "bytes", "Bytes of tag names and values held", 0 },
	{ "inherited", "Forks that received tags", 1 },
	{ "killed", "Processes killed by the fail-closed rule (SPEC 9)", 1 },
	{ "live_sets", "Tag sets in memory", 0 },
	{ "memory", "Bytes of kernel memory held for tag sets and process entries", 0 },
	{ "pruned", "Execs that removed tags", 1 },
	{ "refused", "Writes to /proc/ptags that failed", 1 },
	{ "tagged_processes", "Processes that hold tags", 0 },
	{ "watch_queued", "Changes handed to the watch worker", 1 },
};

#define STATS_MAX	64

struct stat_value {
	char name[64];
	long long value;
};

static int stat_cmp(const void *a, const void *b)
{
	return strcmp(((const struct stat_value *)a)->name,
		      ((const struct stat_value *)b)->name);
}

/* Every counter of @dir into @v (at most STATS_MAX); their number or -1. */
static int stats_read(const char *dir, struct stat_value *v)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d && errno == ENOENT) {
		fprintf(stderr, "ptags: ptags is not loaded (%s: %s)\n", dir,
			strerror(errno));
		return -1;
	}
	if (!d) {
		fprintf(stderr, "ptags: %s: %s\n", dir, strerror(errno));
		return -2;
	}
	while ((e = readdir(d)) && n < STATS_MAX) {
		char path[4096], buf[32], *end;
		size_t namelen = strlen(e->d_name);
		ssize_t len;
		int fd;

		/* A counter's name is a metric's and a JSON key: [A-Za-z0-9_]. */
		if (!namelen || namelen >= sizeof(v[n].name) ||
		    strspn(e->d_name, "abcdefghijklmnopqrstuvwxyz"
			   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != namelen)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (len <= 0)
			continue;	/* not a counter file */
		buf[len] = 0;
		errno = 0;
		v[n].value = strtoll(buf, &end, 10);
		if (errno || end == buf || (*end && strcmp(end, "\n"))) {
			fprintf(stderr, "ptags: %s: not a number\n", path);
			closedir(d);
			return -2;
		}
		strcpy(v[n].name, e->d_name);
		n++;
	}
	closedir(d);
	qsort(v, n, sizeof(v[0]), stat_cmp);
	return n;
}

static int cmd_stats(int argc, char **argv)
{
	const char *dir = getenv("PTAGS_STATS_DIR");
	struct stat_value v[STATS_MAX];
	int prometheus = 0, i, n;
	size_t k;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--prometheus"))
			return usage_error("stats takes no argument but --prometheus");
		prometheus = 1;
	}
	if (prometheus && json)
		return usage_error("stats: --prometheus or --json, not both");
	n = stats_read(dir && *dir ? dir : "/sys/module/ptags/stats", v);
	if (n < 0)
		return n == -1 ? EX_NOPTAGS : EX_OTHER;
	if (json)
		putchar('{');
	for (i = 0; i < n; i++) {
		const char *help = NULL, *type = "untyped", *suffix = "";

		for (k = 0; k < sizeof(stat_info) / sizeof(stat_info[0]); k++)
			if (!strcmp(stat_info[k].name, v[i].name)) {
				help = stat_info[k].help;
				type = stat_info[k].counter ? "counter" : "gauge";
				suffix = stat_info[k].counter ? "_total" : "";
			}
		if (json)
			printf("%s\"%s\":%lld", i ? "," : "", v[i].name, v[i].value);
		else if (!prometheus)
			printf("%s %lld\n", v[i].name, v[i].value);
		else
			printf("# HELP ptags_%s%s %s\n# TYPE ptags_%s%s %s\nptags_%s%s %lld\n",
			       v[i].name, suffix,
			       help ? help : "A counter of the ptags module",
			       v[i].name, suffix, type, v[i].name, suffix,
			       v[i].value);
	}
	if (json)
		puts("}");
	return fflush(stdout) || ferror(stdout) ? EX_OTHER : EX_OK;
}

/*
 * Copy to @txn, kept and with their values, the tags of @from that match
 * one of @pats, after removing from ptags itself whatever matches them.
 * The tags are read through a pidfd: never those of a process that took
 * @from's pid.  0 or an exit code.
 */
static int exec_from(struct ptags_txn *txn, pid_t from, char **pats, int npats)
{
	struct ptags_root *root = NULL;
	struct ptags_set *set = NULL;
	size_t i;
	int k, err, pidfd;

	pidfd = syscall(SYS_pidfd_open, from, 0);
	if (pidfd < 0)
		return report(errno == EINVAL ? -ESRCH : -errno, PTAGS_OP_READ,
			      NULL, 1, "read the tags of %d", (int)from);
	err = open_root(&root);
	if (!err)
		err = ptags_pidfd_read(root, pidfd, &set);
	ptags_root_close(root);
	close(pidfd);
	if (err)
		return report(err, PTAGS_OP_READ, NULL, 1, "read the tags of %d",
			      (int)from);
	for (k = 0; k < npats; k++)
		ptags_txn_remove(txn, pats[k]);
	for (i = 0; i < ptags_set_count(set); i++) {
		const struct ptags_tag *t = ptags_set_tag(set, i);

		for (k = 0; k < npats; k++)
			if (ptags_match(pats[k], t->name, t->value) == 1)
				break;
		if (k == npats)
			continue;
		ptags_txn_add_kept(txn, t->name);
		if (t->value && *t->value)
			ptags_txn_set_value(txn, t->name, t->value);
		else
			ptags_txn_clear_value(txn, t->name);
	}
	ptags_set_free(set);
	return 0;
}

static int cmd_exec(int argc, char **argv)
{
	struct ptags_txn *txn = ptags_txn_new();
	char *pats[EXEC_MAX_MATCH];
	char names[1024];
	int i, ntags = 0, npats = 0, rc = 0, err;
	pid_t from = -1;

	if (!txn)
		return report(-ENOMEM, PTAGS_OP_ADD, NULL, 0, "exec");
	for (i = 0; i < argc; i++) {
		char *t = NULL, *eq;

		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--from") || !strcmp(argv[i], "--match")) {
			const char *opt = argv[i++];

			if (i == argc)
				rc = usage_error("%s needs a value", opt);
			else if (!strcmp(opt, "--match"))
				rc = npats == EXEC_MAX_MATCH ?
				     usage_error("at most %d --match", EXEC_MAX_MATCH) :
				     check_name(argv[i], 1);
			else if (parse_pid(argv[i], &from) || from <= 0)
				rc = usage_error("--from: '%s' is not a process id", argv[i]);
			if (rc) {
				ptags_txn_free(txn);
				return rc;
			}
			if (!strcmp(opt, "--match"))
				pats[npats++] = argv[i];
			continue;
		}
		if (!strcmp(argv[i], "--tag") || !strcmp(argv[i], "-t")) {
			if (i + 1 == argc) {
				ptags_txn_free(txn);
				return usage_error("%s needs NAME[=VALUE]", argv[i]);
			}
			t = argv[++i];
		} else if (!strncmp(argv[i], "--tag=", 6)) {
			t = argv[i] + 6;
		} else if (argv[i][0] == '-') {
			ptags_txn_free(txn);
			return usage_error("exec: unknown option '%s'", argv[i]);
		} else {
			break;
		}
		eq = strchr(t, '=');
		if (eq)
			*eq = 0;
		rc = check_name(t, 0);
		if (!rc && eq)
			rc = check_value(t, eq + 1);
		if (rc) {
			ptags_txn_free(txn);
			return rc;
		}
		ptags_txn_add_kept(txn, t);
		if (eq) {
			ptags_txn_set_value(txn, t, eq + 1);
			*eq = '=';
		}
		argv[ntags++] = t;	/* remember for messages */
	}
	if (i >= argc)
		rc = usage_error("exec needs a command: ptags exec [--tag T[=V]]... [--from PID --match PATTERN]... -- CMD [ARG...]");
	else if ((from >= 0) != (npats > 0))
		rc = usage_error("--from PID and --match PATTERN go together");
	else if (from >= 0)
		rc = exec_from(txn, from, pats, npats);
	if (rc) {
		ptags_txn_free(txn);
		return rc;
	}
	if (ntags || npats) {
		err = ptags_txn_commit(txn, 0);
		if (err) {
			ptags_txn_free(txn);
			join(names, sizeof(names), ntags, argv);
			if (npats)
				return report(err, PTAGS_OP_WRITE, NULL, 0,
					      "copy the tags of %d to itself (pid %d)",
					      (int)from, (int)getpid());
			return report(err, ntags == 1 && !strchr(argv[0], '=') ?
				      PTAGS_OP_ADD : PTAGS_OP_WRITE,
				      ntags == 1 ? argv[0] : NULL, 0,
				      "add %s to itself (pid %d)", names,
				      (int)getpid());
		}
	}
	ptags_txn_free(txn);
	execvp(argv[i], argv + i);
	err = errno;
	fprintf(stderr, "ptags: cannot execute %s: %s\n", argv[i], strerror(err));
	return err == ENOENT ? 127 : 126;
}

/* One line of usage per command, for "ptags COMMAND --help". */
static const struct {
	const char *cmd, *text;
} command_usage[] = {
	{ "add", "add PID [@]NAME[=VALUE]...\n  Add tags (@: keep flag, the tag survives execve; =VALUE: set a value).\n" },
	{ "rm", "rm PID [@]NAME|PREFIX:*|--all...\n  Remove tags.\n" },
	{ "set", "set PID [@]NAME=VALUE...\n  Set the value of existing tags.\n" },
	{ "unset", "unset PID [@]NAME...\n  Remove the value of tags.\n" },
	{ "keep", "keep PID [@]NAME|PREFIX:*|--all...\n  Set the keep flag (the tag survives execve).\n" },
	{ "unkeep", "unkeep PID [@]NAME|PREFIX:*|--all...\n  Clear the keep flag.\n" },
	{ "has", "has PID [@]NAME|PREFIX:*|NAME=VALUE\n  Exit 0 if PID has a matching tag (with @: a kept one), 1 if not.\n" },
	{ "apply", "apply PID [FILE]\n  Send FILE (default or -: standard input) as one transaction of\n  protocol lines; on failure, name the line that failed.\n" },
	{ "ps", "ps [NAME|PREFIX:*|NAME=VALUE]\n  Tagged processes: pid, command, matching tags (--json: as JSON).\n" },
	{ "watch", "watch [--json] [PID... | NAME|PREFIX:*|NAME=VALUE]\n  One line per change until interrupted: time, pid, what happened (tagged,\n  changed, untagged, exited, overflow) and the tags (those matching the\n  query).  PIDs: their changes, until they all exited.  --json: one object\n  per line.\n" },
	{ "stats", "stats [--prometheus]\n  The module's counters (/sys/module/ptags/stats), one NAME VALUE line each;\n  --json: one object; --prometheus: Prometheus's text format, for the node\n  exporter's textfile collector (counters end in _total).\n" },
	{ "exec", "exec [--tag NAME[=VALUE]]... [--from PID --match PATTERN...] -- CMD [ARG...]\n  Add kept tags to itself, then execute CMD (which also inherits every\n  kept tag ptags holds, permission tags included: see ptags(1)).\n  --from PID --match PATTERN: copy PID's tags matching PATTERN (read by\n  pidfd), kept, after removing ptags's own: \"runc exec\" joins a container\n  with  ptags exec --from INIT_PID --match 'oci:*' -- runc exec ID CMD\n" },
};

static const char *usage_of(const char *cmd)
{
	size_t i;

	for (i = 0; cmd && i < sizeof(command_usage) / sizeof(command_usage[0]); i++)
		if (!strcmp(cmd, command_usage[i].cmd))
			return command_usage[i].text;
	return NULL;
}

/* Arguments of @cmd that begin with '-' and are not options of ptags. */
static int command_arg(const char *cmd, const char *arg)
{
	if (!cmd)
		return 0;
	if (!strcmp(arg, "--prometheus"))
		return !strcmp(cmd, "stats");
	if (!strcmp(arg, "--all") || !strcmp(arg, "-a"))
		return !strcmp(cmd, "rm") || !strcmp(cmd, "keep") ||
		       !strcmp(cmd, "unkeep");
	return 0;
}

int main(int argc, char **argv)
{
	char **pos = calloc(argc + 1, sizeof(*pos));
	const char *cmd = NULL, *text, *level_arg = NULL;
	int i, npos = 0, help = 0, exec_args = 0, root_given = 0, level = 0, rc;
	size_t k;

	if (!pos)
		return EX_OTHER;
	/*
	 * Options may come anywhere, before or after the command and its
	 * arguments; "--" ends them (tag names may begin with '-').  What
	 * follows "exec" is exec's own.
	 */
	for (i = 1; i < argc; i++) {
		const char *o = argv[i];

		if (cmd && !strcmp(cmd, "exec")) {
			/* Exec's options end at "--" or at CMD, its first word. */
			if (exec_args) {
				pos[npos++] = argv[i];
			} else if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
				help = 1;
			} else if (!strcmp(o, "--tag") || !strcmp(o, "-t") ||
				   !strcmp(o, "--from") || !strcmp(o, "--match")) {
				pos[npos++] = argv[i];
				if (i + 1 < argc)
					pos[npos++] = argv[++i];
			} else {
				exec_args = !strcmp(o, "--") || o[0] != '-';
				pos[npos++] = argv[i];
			}
		} else if (!strcmp(o, "--")) {
			while (++i < argc)
				pos[npos++] = argv[i];
		} else if (o[0] != '-' || !o[1] || command_arg(cmd, o)) {
			if (!npos && usage_of(o))
				cmd = o;
			pos[npos++] = argv[i];
		} else if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			help = 1;
		} else if (!strcmp(o, "-V") || !strcmp(o, "--version")) {
			printf("ptags %s (libptags, interface %d)\n",
			       PTAGS_VERSION, PTAGS_INTERFACE_VERSION);
			return EX_OK;
		} else if (!strcmp(o, "--json") || !strcmp(o, "-j")) {
			json = 1;
		} else if (!strcmp(o, "--root") || !strncmp(o, "--root=", 7)) {
			const char *dir = o[6] ? o + 7 : (i + 1 < argc ? argv[++i] : NULL);

			if (!dir || !*dir)
				return usage_error("--root needs a directory");
			if (ptags_set_root(dir))
				return EX_OTHER;
			root_given = 1;
		} else if (!strcmp(o, "--level") || !strncmp(o, "--level=", 8)) {
			level_arg = o[7] ? o + 8 : (i + 1 < argc ? argv[++i] : NULL);
			if (!level_arg || !*level_arg)
				return usage_error("--level needs a depth (0, 1, ...) or 'own'");
			if (parse_level(level_arg, &level))
				return usage_error("--level takes a depth (0, 1, ...) or 'own', not '%s'",
						   level_arg);
		} else {
			return usage_error("unknown option '%s'", o);
		}
	}
	if (level_arg && root_given)
		return usage_error("--level and --root cannot be given together");
	if (help) {
		text = usage_of(cmd);
		if (text)
			printf("Usage: ptags %s", text);
		else
			fputs(usage_text, stdout);
		return EX_OK;
	}
	if (level_arg) {
		rc = open_level(level_arg, level);
		if (rc)
			return rc;
	}
	if (!npos)
		return cmd_show(0, pos);
	if (!cmd) {
		pid_t pid;

		for (i = 0; i < npos; i++)
			if (parse_pid(pos[i], &pid))
				return usage_error("unknown command or process id '%s'",
						   pos[i]);
		return cmd_show(npos, pos);
	}
	if (!strcmp(cmd, "ps"))
		return cmd_ps(npos - 1, pos + 1);
	if (!strcmp(cmd, "has"))
		return cmd_has(npos - 1, pos + 1);
	if (!strcmp(cmd, "apply"))
		return cmd_apply(npos - 1, pos + 1);
	if (!strcmp(cmd, "exec"))
		return cmd_exec(npos - 1, pos + 1);
	if (!strcmp(cmd, "watch"))
		return cmd_watch(npos - 1, pos + 1);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(npos - 1, pos + 1);
	for (k = 0; k < sizeof(changes) / sizeof(changes[0]); k++)
		if (!strcmp(cmd, changes[k].cmd))
			return cmd_change(&changes[k], npos - 1, pos + 1);
	return usage_error("unknown command '%s'", cmd);
}
