// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the unit tests of the ptags engine. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tutil.h"

const struct pt_limits LIM_BIG = {
	.max_tags = 1u << 30,
	.max_bytes = 1ull << 40,
};

struct sbuf {
	char *p;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			bail("out of memory");
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

char *fmt(const char *f, ...)
{
	va_list ap;
	char *p;

	va_start(ap, f);
	if (vasprintf(&p, f, ap) < 0)
		bail("out of memory");
	va_end(ap);
	return p;
}

char *rep(char c, size_t n, const char *tail)
{
	size_t t = strlen(tail);
	char *p = malloc(n + t + 1);

	if (!p)
		bail("out of memory");
	memset(p, c, n);
	memcpy(p + n, tail, t + 1);
	return p;
}

struct pt_set *mk(const char *text)
{
	static const struct pt_writer priv = { .privileged = true,
					       .self = true,
					       .same_opener = true };
	struct sbuf b = { 0 };
	struct pt_result res;
	const char *l = text;
	int err;

	while (*l) {
		const char *nl = strchr(l, '\n'), *eq, *name = l;
		bool keep = false;

		if (!nl)
			bail("mk: missing newline in \"%s\"", text);
		if (*name == '@') {
			keep = true;
			name++;
		}
		eq = memchr(name, '=', (size_t)(nl - name));
		sb_add(&b, keep ? "+@" : "+", keep ? 2 : 1);
		sb_add(&b, name, (size_t)((eq ? eq : nl) - name));
		sb_add(&b, "\n", 1);
		if (eq) {
			sb_add(&b, "!", 1);
			sb_add(&b, name, (size_t)(nl - name));
			sb_add(&b, "\n", 1);
		}
		l = nl + 1;
	}
	if (!b.len)
		return NULL;
	err = pt_apply(NULL, b.p, b.len, &priv, &LIM_BIG, &res);
	if (err)
		bail("mk: pt_apply failed with %d at line %zu", err, res.line);
	free(b.p);
	return res.set;
}

char *text_of(const struct pt_set *s)
{
	uint64_t n = pt_set_text_size(s);
	char *p = malloc(n + 1);

	if (!p)
		bail("out of memory");
	if (pt_set_render(s, 0, p, n) != n)
		bail("render returned a short count");
	p[n] = 0;
	return p;
}

static int name_cmp(const struct pt_tag *a, const struct pt_tag *b)
{
	size_t m = a->name_len < b->name_len ? a->name_len : b->name_len;
	int r = memcmp(a->name, b->name, m);

	if (r)
		return r;
	return (a->name_len > b->name_len) - (a->name_len < b->name_len);
}

bool set_sane(const struct pt_set *s, const char **why)
{
	const char *blob, *end;
	uint64_t bytes = 0;
	uint32_t i, nkept = 0;

	*why = "ok";
	if (!s)
		return true;
	if (!s->count)
		return *why = "empty set is not NULL", false;
	blob = (const char *)(s->tags + s->count);
	end = (const char *)s + s->alloc_size;
	for (i = 0; i < s->count; i++) {
		const struct pt_tag *t = &s->tags[i];

		if (i && name_cmp(&s->tags[i - 1], t) >= 0)
			return *why = "tags not sorted or not unique", false;
		if (!pt_name_valid(t->name, t->name_len))
			return *why = "invalid name in set", false;
		if (t->name < blob || t->name + t->name_len > end)
			return *why = "name outside the blob", false;
		if (t->value) {
			if (!t->value_len)
				return *why = "empty value", false;
			if (t->value < blob || t->value + t->value_len > end)
				return *why = "value outside the blob", false;
			bytes += t->value_len;
		} else if (t->value_len) {
			return *why = "value_len without value", false;
		}
		bytes += t->name_len;
		nkept += t->keep;
	}
	if (nkept != s->nkept)
		return *why = "nkept wrong", false;
	if (bytes != s->bytes)
		return *why = "bytes wrong", false;
	if (s->alloc_size != sizeof(*s) + s->count * sizeof(s->tags[0]) +
			     bytes)
		return *why = "alloc_size wrong", false;
	if (s->nkept && s->nkept < s->count) {
		const struct pt_set *e = s->exec;
		uint32_t j = 0;

		if (!e)
			return *why = "missing exec companion", false;
		if (e->exec || e->count != s->nkept || e->nkept != e->count)
			return *why = "bad exec companion counters", false;
		if (e->head.ref < 1)
			return *why = "exec companion unreferenced", false;
		for (i = 0; i < s->count; i++) {
			const struct pt_tag *a = &s->tags[i], *b;

			if (!a->keep)
				continue;
			b = &e->tags[j++];
			if (name_cmp(a, b) || !b->keep ||
			    !a->value != !b->value ||
			    a->value_len != b->value_len ||
			    (a->value && memcmp(a->value, b->value,
						a->value_len)))
				return *why = "exec companion differs", false;
		}
		if (!set_sane(e, why))
			return false;
	} else if (s->exec) {
		return *why = "unexpected exec companion", false;
	}
	return true;
}

bool no_leak(void)
{
	return shim_outstanding() == 0 && shim_live_sets() == 0;
}

/* The write, printable, for diagnostics. */
static void diag_write(const char *w, size_t n)
{
	struct sbuf b = { 0 };
	size_t i;

	sb_add(&b, "", 0);
	for (i = 0; i < n && i < 200; i++) {
		char e[8];
		unsigned char c = (unsigned char)w[i];

		if (c == '\n')
			sb_add(&b, "\\n", 2);
		else if (c < 0x20 || c >= 0x7f)
			sb_add(&b, e, (size_t)snprintf(e, sizeof(e), "\\x%02x",
						       c));
		else
			sb_add(&b, w + i, 1);
	}
	diag("write: \"%s\"%s", b.p, n > 200 ? "..." : "");
	free(b.p);
}

bool check_buf(const char *name, const char *before, const char *write,
	       size_t wlen, const struct wspec *ws,
	       const struct pt_limits *lim, int exp_err, size_t exp_line,
	       const char *after)
{
	static const struct wspec none;
	struct pt_set *old, *rights = NULL, *opener = NULL;
	struct pt_writer w = { 0 };
	struct pt_result res;
	char *got;
	const char *why = "", *expect;
	bool good = true;
	int err;

	if (!ws)
		ws = &none;
	if (!lim)
		lim = &LIM_BIG;
	old = mk(before);
	if (ws->rights_is_target)
		rights = pt_set_get(old);
	else if (ws->rights)
		rights = mk(ws->rights);
	if (ws->other_opener && ws->opener)
		opener = mk(ws->opener);
	w.rights = rights;
	w.opener = opener;
	w.same_opener = !ws->other_opener;
	w.self = !ws->other;
	w.privileged = ws->priv;

	memset(&res, 0x5a, sizeof(res));
	err = pt_apply(old, write, wlen, &w, lim, &res);
	expect = after ? after : before;
	if (err != -exp_err) {
		diag("errno: got %d, expected %d", -err, exp_err);
		good = false;
	}
	if (err && res.line != exp_line) {
		diag("line: got %zu, expected %zu", res.line, exp_line);
		good = false;
	}
	if (!err && res.line != 0) {
		diag("line: got %zu on success", res.line);
		good = false;
	}
	if (err && (res.set || res.changed)) {
		diag("failure returned a set or changed");
		good = false;
	}
	if (!err && !res.changed && res.set) {
		diag("unchanged result returned a set");
		good = false;
	}
	got = text_of(res.changed ? res.set : old);
	if (strcmp(got, expect)) {
		diag("after: got \"%s\"", got);
		diag("expected \"%s\"", expect);
		good = false;
	}
	if (!err && res.changed != !!strcmp(expect, before)) {
		diag("changed is %d", res.changed);
		good = false;
	}
	if (!err && !set_sane(res.set, &why)) {
		diag("result set: %s", why);
		good = false;
	}
	if (!err && res.set && res.set->head.ref != 1) {
		diag("new set has %ld references", res.set->head.ref);
		good = false;
	}
	free(got);
	if (!err)
		pt_set_put(res.set);
	pt_set_put(old);
	pt_set_put(rights);
	pt_set_put(opener);
	if (!no_leak()) {
		diag("leak: %ld allocations, %ld sets outstanding",
		     shim_outstanding(), shim_live_sets());
		good = false;
	}
	if (!good)
		diag_write(write, wlen);
	return ok(good, "%s", name);
}
