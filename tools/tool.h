/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tools share: the ptags command's files (its main, ptags.c, and
 * one file per command, with tool.c) and ptags-oci-hook.
 */
#ifndef PTAGS_TOOLS_TOOL_H
#define PTAGS_TOOLS_TOOL_H

#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "ptags.h"

/* ---- ptags and ptags-oci-hook ---- */

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* Exit codes (documented in ptags.1 and --help; the hook's 0 and 2 too). */
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

/*
 * The --level argument (SPEC §12): "own" (PTAGS_LEVEL_OWN), or a depth as
 * the kernel prints it: digits, no leading 0, at most 9 of them.  0 and
 * *@level, or -1.
 */
static inline int parse_level(const char *s, int *level)
{
	size_t i, n = strlen(s);

	if (!strcmp(s, "own")) {
		*level = PTAGS_LEVEL_OWN;
		return 0;
	}
	if (!n || n > 9 || (s[0] == '0' && n > 1))
		return -1;
	for (*level = 0, i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*level = *level * 10 + (s[i] - '0');
	}
	return 0;
}

/* ---- the ptags command ---- */

/*
 * A command, "ptags NAME ARG...": its function gets the ARGs.  The table
 * (ptags.c) is the one list of them: for the dispatch, "ptags --help" and
 * "ptags NAME --help".
 */
struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;	/* "ptags NAME --help", after "Usage: ptags " */
	const char *summary;	/* its lines in "ptags --help" */
	/* Its own options, passed to @fn, not ptags's (NULL-terminated). */
	const char *const *opts;
	/*
	 * exec: every argument after NAME is its own but -h and --help
	 * before its first word or "--"; @opts take a value, the next one.
	 */
	bool own_args;
};

int cmd_show(int argc, char **argv);	/* ptags [PID...]: show.c */
int cmd_add(int argc, char **argv);	/* change.c, as the five below */
int cmd_rm(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_unset(int argc, char **argv);
int cmd_keep(int argc, char **argv);
int cmd_unkeep(int argc, char **argv);
int cmd_has(int argc, char **argv);	/* has.c, and so on */
int cmd_apply(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_stats(int argc, char **argv);

/* tool.c: what the commands share */

extern int opt_json;		/* --json */

/* "ptags: MESSAGE", "Try 'ptags --help'."; returns EX_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The exit code of the errno @err (positive or negative). */
int exit_code(int err);
/*
 * "ptags: cannot WHAT: MESSAGE (EXPLANATION)" for the failure @err of @op
 * on the tag @name (may be NULL) of @pid; returns the exit code.
 */
int report(int err, enum ptags_op op, const char *name, pid_t pid,
	   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* --level @arg (parsed: @level): open its root; 0 or an exit code. */
int open_level(const char *arg, int level);
/* A handle of the root: the level's (--level), else ptags_root()'s. */
int open_root(struct ptags_root **root);
/* What the root is called in messages. */
const char *root_name(void);

/* "self" (0) or a pid as the kernel prints it: 0 and *@pid, or -1. */
int parse_pid(const char *s, pid_t *pid);
/* "self", or the pid in a static buffer. */
const char *pid_str(pid_t pid);
/* pidfd_open(2) of @pid: a descriptor, -ESRCH or another -errno. */
int pidfd_of(pid_t pid);

/* @s to stdout for a terminal: text as it is, other bytes as \xHH. */
void put_safe(const char *s);
/* The same into @buf, backslashes escaped too (a process name's column). */
const char *safe(const char *s, char *buf, size_t size);
/* A tag as "ptags PID" shows it: [@]NAME[=VALUE]. */
void print_tag(const struct ptags_tag *t);
/* " TAG TAG...\n": the tags of @set (NULL: none) that match @query. */
void print_matching(const struct ptags_set *set, const char *query);

/* Validate @s as a name (@pattern_ok: or a pattern); message on failure. */
int check_name(const char *s, int pattern_ok);
/* Validate the value @v of the tag @name; message on failure. */
int check_value(const char *name, const char *v);
/* Validate the query @q; message on failure. */
int check_query(const char *q);
/* Join @argv for messages ("a, b, c"), at most @size bytes. */
void join(char *buf, size_t size, int argc, char **argv);

#endif
