// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * SPEC §4: names, values and patterns (see valid.h).  Shared by the module,
 * the library, the tests and the fuzzers; it includes nothing that either
 * side lacks.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "valid.h"
#include "uapi/linux/ptags.h"

#define PT_SPECIAL	PTAGS_SPECIAL_PREFIX
#define PT_SPECIAL_LEN	(sizeof(PT_SPECIAL) - 1)

size_t pt_utf8_seq(const unsigned char *s, size_t len)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, k;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;	/* no overlong 3-byte form */
		else if (c == 0xed)
			hi = 0x9f;	/* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;	/* no overlong 4-byte form */
		else if (c == 0xf4)
			hi = 0x8f;	/* nothing above U+10FFFF */
	} else {
		return 0;	/* 0x80..0xc1 (stray or overlong), 0xf5..0xff */
	}
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (k = 2; k < n; k++)
		if (s[k] < 0x80 || s[k] > 0xbf)
			return 0;
	return n;
}

bool pt_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		n = pt_utf8_seq(p + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

/* No byte below 0x20, no DEL (names and values). */
static bool pt_has_control(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
	return false;
}

/* SPEC §4.1 rules 1-3 but the final colon: names and pattern prefixes. */
static enum pt_why pt_chars_check(const char *s, size_t len)
{
	if (!len)
		return PT_EMPTY;
	if (len > PTAGS_NAME_MAX)
		return PT_NAME_TOO_LONG;
	if (pt_has_control(s, len))
		return PT_CONTROL;
	if (memchr(s, '=', len))
		return PT_HAS_EQUALS;
	if (memchr(s, '*', len))
		return PT_HAS_STAR;
	if (s[0] == '@')
		return PT_LEADING_AT;
	if (!pt_utf8_valid(s, len))
		return PT_NOT_UTF8;
	return PT_OK;
}

static bool pt_ends(const char *s, size_t len, const char *suffix, size_t n)
{
	return len >= n && !memcmp(s + len - n, suffix, n);
}

enum pt_why pt_name_check(const char *s, size_t len)
{
	enum pt_why why = pt_chars_check(s, len);

	if (why)
		return why;
	if (s[len - 1] == ':')
		return PT_TRAILING_COLON;
	if (len >= PT_SPECIAL_LEN && !memcmp(s, PT_SPECIAL, PT_SPECIAL_LEN) &&
	    !pt_ends(s, len, ":add", 4) && !pt_ends(s, len, ":sub", 4) &&
	    !pt_ends(s, len, ":set", 4) && !pt_ends(s, len, ":others", 7))
		return PT_BAD_SPECIAL;
	return PT_OK;
}

enum pt_why pt_value_check(const char *s, size_t len)
{
	if (len > PTAGS_VALUE_MAX)
		return PT_VALUE_TOO_LONG;
	if (pt_has_control(s, len))
		return PT_CONTROL;
	if (!pt_utf8_valid(s, len))
		return PT_NOT_UTF8;
	return PT_OK;
}

enum pt_why pt_pattern_check(const char *s, size_t len, bool *global,
			     size_t *prefix_len)
{
	enum pt_why why;

	if (pt_ends(s, len, ":*", 2)) {
		why = pt_chars_check(s, len - 1);
		if (why)
			return why;
		*global = true;
		*prefix_len = len - 1;
		return PT_OK;
	}
	why = pt_name_check(s, len);
	if (why)
		return why;
	*global = false;
	*prefix_len = len;
	return PT_OK;
}

const char *pt_why_text(enum pt_why why)
{
	switch (why) {
	case PT_OK:
		return "is valid";
	case PT_EMPTY:
		return "is empty";
	case PT_NAME_TOO_LONG:
		return "is longer than 4000 bytes";
	case PT_VALUE_TOO_LONG:
		return "is longer than 32700 bytes";
	case PT_CONTROL:
		return "contains a control character";
	case PT_HAS_EQUALS:
		return "contains '='";
	case PT_HAS_STAR:
		return "contains '*'";
	case PT_LEADING_AT:
		return "begins with '@'";
	case PT_NOT_UTF8:
		return "is not valid UTF-8";
	case PT_TRAILING_COLON:
		return "ends with ':'";
	case PT_BAD_SPECIAL:
		return "is a ptags: name not ending in :add, :sub, :set or :others";
	}
	return "is not valid";
}
