/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * SPEC §4: what a tag name, a value and a pattern may be.  The one
 * implementation of these rules: compiled into ptags.ko (through the
 * engine), into libptags, and into the unit tests and fuzzers that hold it
 * against the reference model.  Plain C, no kernel header but types.
 */
#ifndef PTAGS_VALID_H
#define PTAGS_VALID_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#endif

/* Why a string is not valid (PT_OK: it is). */
enum pt_why {
	PT_OK = 0,
	PT_EMPTY,		/* a name or prefix of no byte */
	PT_NAME_TOO_LONG,	/* over PTAGS_NAME_MAX bytes */
	PT_VALUE_TOO_LONG,	/* over PTAGS_VALUE_MAX bytes */
	PT_CONTROL,		/* a byte below 0x20, or DEL */
	PT_HAS_EQUALS,		/* '=' in a name */
	PT_HAS_STAR,		/* '*' in a name, or not as ":*" at a pattern's end */
	PT_LEADING_AT,		/* a name that begins with '@' */
	PT_NOT_UTF8,		/* not RFC 3629 UTF-8 */
	PT_TRAILING_COLON,	/* a name that ends with ':' */
	PT_BAD_SPECIAL,		/* "ptags:..." not ending in :add/:sub/:set/:others */
};

/* Length of the valid UTF-8 sequence at @s (at most @len bytes), or 0. */
size_t pt_utf8_seq(const unsigned char *s, size_t len);
/*
 * Is @s (@len bytes) valid UTF-8 per RFC 3629 (no overlong forms, no
 * surrogates, nothing above U+10FFFF)?
 */
bool pt_utf8_valid(const char *s, size_t len);

/* SPEC §4.1, §4.2, §4.3: PT_OK or why not. */
enum pt_why pt_name_check(const char *s, size_t len);
enum pt_why pt_value_check(const char *s, size_t len);
/*
 * A pattern is a name or "PREFIX:*".  On PT_OK, *@global says which and
 * *@prefix_len is the length before the '*' (@len for a name).
 */
enum pt_why pt_pattern_check(const char *s, size_t len, bool *global,
			     size_t *prefix_len);

/* The reason as a phrase after "it" ("contains '='"). */
const char *pt_why_text(enum pt_why why);

static inline bool pt_name_valid(const char *s, size_t len)
{
	return pt_name_check(s, len) == PT_OK;
}

static inline bool pt_value_valid(const char *s, size_t len)
{
	return pt_value_check(s, len) == PT_OK;
}

static inline bool pt_pattern_valid(const char *s, size_t len, bool *global,
				    size_t *prefix_len)
{
	return pt_pattern_check(s, len, global, prefix_len) == PT_OK;
}

#endif /* PTAGS_VALID_H */
