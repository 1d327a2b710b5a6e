// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: names, values and patterns (SPEC §4), queries and matching.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

size_t ptags_utf8_seq(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	size_t n, i;
	unsigned int cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;	/* continuation byte, 0xc0/0xc1, 0xf5.. */
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
		return 0;	/* overlong */
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0;	/* surrogate */
	if (cp > 0x10ffff)
		return 0;
	return n;
}

bool ptags_utf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		n = ptags_utf8_seq(s + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

static int invalid(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return -EINVAL;
}

/* Rules 1-3 of SPEC §4.1 on @len bytes, except the final-colon rule. */
static int check_chars(const char *s, size_t len, const char **why)
{
	size_t i;

	if (!len)
		return invalid(why, "is empty");
	if (len > PTAGS_NAME_MAX)
		return invalid(why, "is longer than 4000 bytes");
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c < 0x20 || c == 0x7f)
			return invalid(why, "contains a control character");
		if (c == '=')
			return invalid(why, "contains '='");
		if (c == '*')
			return invalid(why, "contains '*'");
	}
	if (s[0] == '@')
		return invalid(why, "begins with '@'");
	if (!ptags_utf8_valid((const unsigned char *)s, len))
		return invalid(why, "is not valid UTF-8");
	return 0;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

int ptags_name_valid(const char *name, const char **why)
{
	size_t len;
	int err;

	if (!name)
		return invalid(why, "is missing");
	len = strlen(name);
	err = check_chars(name, len, why);
	if (err)
		return err;
	if (name[len - 1] == ':')
		return invalid(why, "ends with ':'");
	if (!strncmp(name, "ptags:", 6) && !ends_with(name, len, ":add") &&
	    !ends_with(name, len, ":sub") && !ends_with(name, len, ":set") &&
	    !ends_with(name, len, ":others"))
		return invalid(why, "is a ptags: name not ending in :add, :sub, :set or :others");
	return 0;
}

int ptags_value_valid(const char *value, const char **why)
{
	size_t len, i;

	if (!value)
		return invalid(why, "is missing");
	len = strlen(value);
	if (len > PTAGS_VALUE_MAX)
		return invalid(why, "is longer than 32700 bytes");
	for (i = 0; i < len; i++) {
		unsigned char c = value[i];

		if (c < 0x20 || c == 0x7f)
			return invalid(why, "contains a control character");
	}
	if (!ptags_utf8_valid((const unsigned char *)value, len))
		return invalid(why, "is not valid UTF-8");
	return 0;
}

/* Is @p a "PREFIX:*" pattern (syntactically: ends with ":*")? */
static bool is_glob(const char *p, size_t len)
{
	return len >= 2 && p[len - 1] == '*' && p[len - 2] == ':';
}

int ptags_pattern_valid(const char *pattern, const char **why)
{
	size_t len;

	if (!pattern)
		return invalid(why, "is missing");
	len = strlen(pattern);
	if (is_glob(pattern, len))
		return check_chars(pattern, len - 1, why);
	return ptags_name_valid(pattern, why);
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

	if (!ptags_utf8_valid((const unsigned char *)line, len))
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
	for (i = 0; i < set->count; i++) {
		r = ptags_match(query, set->tags[i].name, set->tags[i].value);
		if (r)
			return r;
	}
	return 0;
}
