// SPDX-License-Identifier: GPL-2.0
/*
 * The reference model of SPEC §3.3-§6 (see model.h).  Written for clarity
 * only: quadratic where that is simpler, and it aborts when malloc fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "model: out of memory\n");
		abort();
	}
	return p;
}

static char *dup_bytes(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	if (n)
		memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* ---- SPEC §4 ------------------------------------------------------------ */

/*
 * RFC 3629, by decoding: the lead byte gives the length, the continuation
 * bytes the rest; then reject overlong forms, surrogates and code points
 * above U+10FFFF.
 */
bool model_utf8(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		unsigned long cp;
		unsigned long min;
		size_t n, k;

		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((s[i] & 0xe0) == 0xc0) {
			n = 2;
			cp = s[i] & 0x1f;
			min = 0x80;
		} else if ((s[i] & 0xf0) == 0xe0) {
			n = 3;
			cp = s[i] & 0x0f;
			min = 0x800;
		} else if ((s[i] & 0xf8) == 0xf0) {
			n = 4;
			cp = s[i] & 0x07;
			min = 0x10000;
		} else {
			return false;
		}
		if (len - i < n)
			return false;
		for (k = 1; k < n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n;
	}
	return true;
}

static bool has_suffix(const char *s, size_t len, const char *suf)
{
	size_t n = strlen(suf);

	return len >= n && !memcmp(s + len - n, suf, n);
}

static bool has_prefix(const char *s, size_t len, const char *pre)
{
	size_t n = strlen(pre);

	return len >= n && !memcmp(s, pre, n);
}

/* Rules 1-3 of §4.1 without the final-colon rule. */
static bool name_chars(const char *s, size_t len)
{
	size_t i;

	if (len < 1 || len > 4000 || !model_utf8(s, len) || s[0] == '@')
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f || c == '=' || c == '*')
			return false;
	}
	return true;
}

bool model_name(const char *s, size_t len)
{
	if (!name_chars(s, len) || s[len - 1] == ':')
		return false;
	if (has_prefix(s, len, "ptags:"))
		return has_suffix(s, len, ":add") || has_suffix(s, len, ":sub") ||
		       has_suffix(s, len, ":set") ||
		       has_suffix(s, len, ":others");
	return true;
}

bool model_value(const char *s, size_t len)
{
	size_t i;

	if (len > 32700 || !model_utf8(s, len))
		return false;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

bool model_pattern(const char *s, size_t len, bool *global,
		   size_t *prefix_len)
{
	if (has_suffix(s, len, ":*")) {
		*global = true;
		*prefix_len = len - 1;
		return name_chars(s, len - 1);
	}
	*global = false;
	*prefix_len = 0;
	return model_name(s, len);
}

/* ---- sets --------------------------------------------------------------- */

void model_init(struct model_set *s)
{
	memset(s, 0, sizeof(*s));
}

void model_free(struct model_set *s)
{
	size_t i;

	for (i = 0; i < s->count; i++) {
		free(s->tags[i].name);
		free(s->tags[i].value);
	}
	free(s->tags);
	model_init(s);
}

static long find(const struct model_set *s, const char *name, size_t len)
{
	size_t i;

	if (!s)
		return -1;
	for (i = 0; i < s->count; i++)
		if (s->tags[i].name_len == len &&
		    !memcmp(s->tags[i].name, name, len))
			return (long)i;
	return -1;
}

bool model_put(struct model_set *s, const char *name, size_t name_len,
	       const char *value, size_t value_len, bool has_value, bool keep)
{
	struct model_tag *t;

	if (find(s, name, name_len) >= 0)
		return false;
	if (s->count == s->cap) {
		struct model_tag *n;

		s->cap = s->cap ? 2 * s->cap : 8;
		n = xmalloc(s->cap * sizeof(*n));
		if (s->count)
			memcpy(n, s->tags, s->count * sizeof(*n));
		free(s->tags);
		s->tags = n;
	}
	t = &s->tags[s->count++];
	t->name = dup_bytes(name, name_len);
	t->name_len = name_len;
	t->value = has_value ? dup_bytes(value, value_len) : NULL;
	t->value_len = has_value ? value_len : 0;
	t->keep = keep;
	return true;
}

void model_copy(struct model_set *dst, const struct model_set *src)
{
	size_t i;

	model_init(dst);
	for (i = 0; i < src->count; i++) {
		const struct model_tag *t = &src->tags[i];

		model_put(dst, t->name, t->name_len, t->value, t->value_len,
			  t->value != NULL, t->keep);
	}
}

static void drop(struct model_set *s, size_t i)
{
	free(s->tags[i].name);
	free(s->tags[i].value);
	s->tags[i] = s->tags[--s->count];
}

uint64_t model_bytes(const struct model_set *s)
{
	uint64_t b = 0;
	size_t i;

	for (i = 0; i < s->count; i++)
		b += s->tags[i].name_len + s->tags[i].value_len;
	return b;
}

/* memcmp order, a prefix first (SPEC §3.3). */
static int cmp_tags(const void *a, const void *b)
{
	const struct model_tag *x = a, *y = b;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int r = n ? memcmp(x->name, y->name, n) : 0;

	if (r)
		return r;
	return x->name_len < y->name_len ? -1 : x->name_len > y->name_len;
}

char *model_text(const struct model_set *s, size_t *len)
{
	struct model_tag *sorted = xmalloc(s->count * sizeof(*sorted));
	size_t i, n = 0, cap = 1;
	char *p;

	for (i = 0; i < s->count; i++)
		cap += s->tags[i].name_len + s->tags[i].value_len + 3;
	p = xmalloc(cap);
	if (s->count)
		memcpy(sorted, s->tags, s->count * sizeof(*sorted));
	qsort(sorted, s->count, sizeof(*sorted), cmp_tags);
	for (i = 0; i < s->count; i++) {
		const struct model_tag *t = &sorted[i];

		if (t->keep)
			p[n++] = '@';
		memcpy(p + n, t->name, t->name_len);
		n += t->name_len;
		if (t->value) {
			p[n++] = '=';
			memcpy(p + n, t->value, t->value_len);
			n += t->value_len;
		}
		p[n++] = '\n';
	}
	p[n] = 0;
	free(sorted);
	*len = n;
	return p;
}

/* ---- SPEC §5 ------------------------------------------------------------ */

/* Does @s hold "ptags:R" (for a non-special @name) or "ptags:P:R" for P =
 * @name or P a part of @name before one of its colons?  (§5.1) */
static bool holds(const struct model_set *s, const char *right,
		  const char *name, size_t len)
{
	size_t i, rl = strlen(right);
	bool found = false;
	char *key;

	if (!s)
		return false;
	key = xmalloc(6 + len + 1 + rl + 1);
	if (!has_prefix(name, len, "ptags:")) {
		sprintf(key, "ptags:%s", right);
		found = find(s, key, 6 + rl) >= 0;
	}
	for (i = 0; i <= len && !found; i++) {
		if (i < len && name[i] != ':')
			continue;
		memcpy(key, "ptags:", 6);
		memcpy(key + 6, name, i);
		key[6 + i] = ':';
		memcpy(key + 7 + i, right, rl);
		found = find(s, key, 7 + i + rl) >= 0;
	}
	free(key);
	return found;
}

/* The writer holds @right for @name now and, through another opener's
 * file, the opener held it too (§5.5). */
static bool right_of(const struct model_writer *w, const char *right,
		     const char *name, size_t len)
{
	return holds(w->rights, right, name, len) &&
	       (w->same_opener || holds(w->opener, right, name, len));
}

static bool allowed(const struct model_writer *w, const char *action,
		    const char *name, size_t len)
{
	if (w->privileged)
		return true;
	if (!right_of(w, action, name, len))
		return false;
	return w->self || right_of(w, "others", name, len);
}

/* ---- SPEC §3.4 and §6 ---------------------------------------------------- */

static bool matches(const struct model_tag *t, const char *pat, size_t plen,
		    bool global)
{
	if (global)
		return t->name_len >= plen && !memcmp(t->name, pat, plen);
	return t->name_len == plen && !memcmp(t->name, pat, plen);
}

/* "!NAME", "!NAME=" and "!NAME=VALUE" (without the '!'). */
static int set_line(struct model_set *s, const char *l, size_t len,
		    const struct model_writer *w,
		    const struct model_limits *lim)
{
	const char *eq = memchr(l, '=', len);
	size_t nlen = eq ? (size_t)(eq - l) : len;
	const char *val = eq ? eq + 1 : NULL;
	size_t vlen = eq ? len - nlen - 1 : 0;
	struct model_tag *t;
	long i;

	if (!model_name(l, nlen) || (eq && !model_value(val, vlen)))
		return EINVAL;
	if (!allowed(w, "set", l, nlen))
		return EPERM;
	i = find(s, l, nlen);
	if (i < 0)
		return ENOENT;
	t = &s->tags[i];
	if (!vlen) {
		free(t->value);
		t->value = NULL;
		t->value_len = 0;
		return 0;
	}
	if (vlen > t->value_len &&
	    model_bytes(s) - t->value_len + vlen > lim->max_bytes)
		return ECANCELED;
	free(t->value);
	t->value = dup_bytes(val, vlen);
	t->value_len = vlen;
	return 0;
}

/* "+NAME" and "+@NAME". */
static int add_name(struct model_set *s, const char *name, size_t len,
		    bool keep, const struct model_writer *w,
		    const struct model_limits *lim)
{
	long i = find(s, name, len);

	if (i >= 0) {
		if (!keep || s->tags[i].keep)
			return 0;	/* nothing would change */
		if (!allowed(w, "add", name, len))
			return EPERM;
		s->tags[i].keep = true;
		return 0;
	}
	if (!allowed(w, "add", name, len))
		return EPERM;
	if (s->count + 1 > lim->max_tags ||
	    model_bytes(s) + len > lim->max_bytes)
		return ECANCELED;
	model_put(s, name, len, NULL, 0, false, keep);
	return 0;
}

/* "-NAME" and "-@NAME". */
static int sub_name(struct model_set *s, const char *name, size_t len,
		    bool keep, const struct model_writer *w)
{
	long i = find(s, name, len);

	if (i < 0 || (keep && !s->tags[i].keep))
		return 0;	/* nothing would change */
	if (!allowed(w, "sub", name, len))
		return EPERM;
	if (keep)
		s->tags[i].keep = false;
	else
		drop(s, (size_t)i);
	return 0;
}

/* "+@PATTERN:*", "+@", "-PATTERN:*", "-", "-@PATTERN:*", "-@": each
 * matching tag where allowed, the others silently skipped (§4.3). */
static void over_pattern(struct model_set *s, char op, bool keep,
			 const char *pat, size_t plen,
			 const struct model_writer *w)
{
	size_t i = 0;

	while (i < s->count) {
		struct model_tag *t = &s->tags[i];

		if (!matches(t, pat, plen, true)) {
			i++;
			continue;
		}
		if (op == '+') {
			if (allowed(w, "add", t->name, t->name_len))
				t->keep = true;
		} else if (keep) {
			if (allowed(w, "sub", t->name, t->name_len))
				t->keep = false;
		} else if (allowed(w, "sub", t->name, t->name_len)) {
			drop(s, i);
			continue;
		}
		i++;
	}
}

static int one_line(struct model_set *s, const char *l, size_t len,
		    const struct model_writer *w,
		    const struct model_limits *lim)
{
	char op;
	bool keep = false, global = true;
	size_t plen = 0, i;

	if (!model_utf8(l, len))
		return EINVAL;
	if (len == 0 || l[0] == '#')
		return 0;
	op = l[0];
	l++;
	len--;
	if (op == '!')
		return set_line(s, l, len, w, lim);
	if (op != '+' && op != '-' && op != '?')
		return EINVAL;
	if (len && l[0] == '@') {
		keep = true;
		l++;
		len--;
	}
	/* An empty pattern is "every tag". */
	if (len && !model_pattern(l, len, &global, &plen))
		return EINVAL;
	if (!global)
		plen = len;

	if (op == '?') {
		for (i = 0; i < s->count; i++)
			if (matches(&s->tags[i], l, plen, global) &&
			    (!keep || s->tags[i].keep))
				return 0;
		return ENOENT;
	}
	if (op == '+' && !keep && global)
		return EINVAL;	/* adding needs a name */
	if (!global) {
		if (op == '+')
			return add_name(s, l, len, keep, w, lim);
		return sub_name(s, l, len, keep, w);
	}
	over_pattern(s, op, keep, l, plen, w);
	return 0;
}

int model_apply(struct model_set *s, const char *buf, size_t len,
		const struct model_writer *w, const struct model_limits *lim,
		size_t *line)
{
	struct model_set work;
	size_t start = 0, no = 0;
	int err = 0;

	*line = 0;
	/* write(2) of zero bytes has no last byte and no line: it does
	 * nothing and succeeds (fs/entry.c returns 0 before the engine). */
	if (len == 0)
		return 0;
	if (buf[len - 1] != '\n')
		return EINVAL;
	model_copy(&work, s);
	while (start < len) {
		const char *nl = memchr(buf + start, '\n', len - start);
		size_t end = (size_t)(nl - buf);

		no++;
		err = one_line(&work, buf + start, end - start, w, lim);
		if (err) {
			*line = no;
			break;
		}
		start = end + 1;
	}
	if (err) {
		model_free(&work);
		return err;
	}
	model_free(s);
	*s = work;
	return 0;
}
