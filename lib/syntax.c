// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: the syntax of names, values and patterns (SPEC §4, whose rules
 * are module/engine/valid.c, shared with the module), of protocol lines and
 * of queries, and matching.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int invalid(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return -EINVAL;
}

/* 0, or -EINVAL with the reason of the engine's checks (valid.h). */
static int verdict(enum pt_why r, const char **why)
{
	return r == PT_OK ? 0 : invalid(why, pt_why_text(r));
}

int ptags_name_valid(const char *name, const char **why)
{
	if (!name)
		return invalid(why, "is missing");
	return verdict(pt_name_check(name, strlen(name)), why);
}

int ptags_value_valid(const char *value, const char **why)
{
	if (!value)
		return invalid(why, "is missing");
	return verdict(pt_value_check(value, strlen(value)), why);
}

/* Is @p a "PREFIX:*" pattern (syntactically: ends with ":*")? */
static bool is_glob(const char *p, size_t len)
{
	return len >= 2 && p[len - 1] == '*' && p[len - 2] == ':';
}

int ptags_pattern_valid(const char *pattern, const char **why)
{
	size_t plen;
	bool global;

	if (!pattern)
		return invalid(why, "is missing");
	return verdict(pt_pattern_check(pattern, strlen(pattern), &global,
					&plen), why);
}

int ptags_query_valid(const char *query, const char **why)
{
	const char *eq;
	char *name;
	size_t n;
	int err;

	if (!query)
		return invalid(why, "is missing");
	eq = strchr(query, '=');
	if (!eq)
		return ptags_pattern_valid(query, why);
	if (!eq[1])
		return invalid(why, "has an empty value (NAME=VALUE)");
	err = ptags_value_valid(eq + 1, why);
	if (err)
		return err;
	n = eq - query;
	name = strndup(query, n);
	if (!name)
		return -ENOMEM;
	err = ptags_name_valid(name, why);
	free(name);
	return err;
}

int ptags_line_valid(const char *line, size_t len, const char **why)
{
	const char *rest;
	size_t rlen, eq;
	char *copy;
	bool keep = false;
	int err;
	char op;

	if (!pt_utf8_valid(line, len))
		return invalid(why, "is not valid UTF-8");
	if (!len || line[0] == '#')
		return 0;
	if (memchr(line, '\n', len) || memchr(line, 0, len))
		return invalid(why, "contains a newline or a NUL byte");
	op = line[0];
	rest = line + 1;
	rlen = len - 1;
	if (op != '+' && op != '-' && op != '!' && op != '?')
		return invalid(why, "does not start with +, -, !, ? or #");
	if (op != '!' && rlen && rest[0] == '@') {
		keep = true;
		rest++;
		rlen--;
	}
	if (!rlen) {
		if (op == '+' && !keep)
			return invalid(why, "adds nothing: + needs a name");
		if (op == '!')
			return invalid(why, "sets nothing: ! needs a name");
		return 0;
	}
	copy = strndup(rest, rlen);
	if (!copy)
		return -ENOMEM;
	if (op == '!') {
		eq = strcspn(copy, "=");
		if (copy[eq]) {
			copy[eq] = 0;
			err = ptags_value_valid(copy + eq + 1, why);
			if (!err)
				err = ptags_name_valid(copy, why);
		} else {
			err = ptags_name_valid(copy, why);
		}
	} else if (op == '+' && !keep && is_glob(copy, rlen)) {
		err = invalid(why, "adds a pattern: + needs a name (+@PREFIX:* sets keep flags)");
	} else {
		err = ptags_pattern_valid(copy, why);
	}
	free(copy);
	return err;
}

int ptags_match(const char *query, const char *name, const char *value)
{
	const char *eq;
	size_t len;
	int err;

	err = ptags_query_valid(query, NULL);
	if (err)
		return err;
	eq = strchr(query, '=');
	if (eq) {
		len = eq - query;
		return strlen(name) == len && !memcmp(name, query, len) &&
		       value && !strcmp(value, eq + 1);
	}
	len = strlen(query);
	if (is_glob(query, len))
		return !strncmp(name, query, len - 1);
	return !strcmp(name, query);
}

int ptags_set_match(const struct ptags_set *set, const char *query)
{
	size_t i;
	int r;

	r = ptags_query_valid(query, NULL);
	if (r)
		return r;
	for (i = 0; set && i < set->count; i++) {
		r = ptags_match(query, set->tags[i].name, set->tags[i].value);
		if (r)
			return r;
	}
	return 0;
}
