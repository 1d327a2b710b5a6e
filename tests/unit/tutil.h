/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the unit tests of the ptags engine. */
#ifndef PTAGS_TUTIL_H
#define PTAGS_TUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "engine.h"
#include "shim_user.h"
#include "../tap.h"

/* Limits large enough never to matter. */
extern const struct pt_limits LIM_BIG;

/*
 * A writer for check().  The zero value is a process writing its own tags
 * through a file it opened itself, without any right.
 */
struct wspec {
	const char *rights;	/* the writer's set (SPEC §3.3 text) */
	bool rights_is_target;	/* the writer's set is the target set */
	const char *opener;	/* the opener's set, when other_opener */
	bool other_opener;	/* the writer did not open the file (§5.5) */
	bool other;		/* the target is another process (§5.3) */
	bool priv;		/* CAP_MAC_ADMIN or kernel thread (§5.4) */
};

/* Build a set from SPEC §3.3 text ("@name=value\n" lines); NULL if empty. */
struct pt_set *mk(const char *text);
/* The SPEC §3.3 text of @s, rendered in one call; free() it. */
char *text_of(const struct pt_set *s);
/* Structural invariants of @s (sorted, counters, exec companion). */
bool set_sane(const struct pt_set *s, const char **why);
/* A string of @n copies of @c followed by @tail; free() it. */
char *rep(char c, size_t n, const char *tail);
/* printf into a fresh buffer; free() it. */
char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

/*
 * Apply @write (@wlen bytes) to the set built from @before, by the writer
 * @ws under @lim (NULL: LIM_BIG), and check: the errno @exp_err (0 for
 * success), the failing line @exp_line, the resulting text @after (NULL:
 * unchanged), res->changed, the sanity of the new set, and that nothing
 * leaks.  One TAP line named @name.
 */
bool check_buf(const char *name, const char *before, const char *write,
	       size_t wlen, const struct wspec *ws,
	       const struct pt_limits *lim, int exp_err, size_t exp_line,
	       const char *after);
#define check(name, before, write, ws, lim, err, line, after)		\
	check_buf(name, before, write, strlen(write), ws, lim, err, line, \
		  after)

/* No allocation and no set is outstanding. */
bool no_leak(void);

/* Test groups, one per SPEC section file. */
void test_s03_3_read(void);
void test_s03_2_list(void);
void test_s03_4_cost(void);
void test_s03_4_write(void);
void test_s04_valid(void);
void test_s05_perms(void);
void test_s06_tables(void);
void test_s08_limits(void);
void test_s09_exec(void);
void test_s07_enomem(void);
void test_model(void);

#endif /* PTAGS_TUTIL_H */
