// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: one write(2) buffer applied by pt_apply() to a tag set,
 * by a writer with rights, held against the reference model of SPEC
 * §3.4-§6 (tests/unit/model.c).  Every result must agree: the errno, the
 * failing line and the text of the resulting set (§3.3), read in one piece
 * and through random windows of pt_set_render().  Also checked: what
 * pt_set_exec() leaves (§9), and that nothing leaks.  With an injected
 * allocation failure the engine may fail with ENOMEM, and must then leave
 * nothing behind (§7).
 *
 * Input: a header, then four parts separated by the two bytes FF FE:
 *   byte 0	bit 0 self, bit 1 privileged, bit 2 same opener, bit 3 the
 *		writer's rights are the target set, bit 4 inject a failure
 *   byte 1	max_tags (255: unlimited)
 *   byte 2-3	max_bytes, little endian (65535: unlimited)
 *   byte 4	which allocation fails (with bit 4 of byte 0)
 *   byte 5-6	render window seed
 *   then	TARGET-SET FF FE RIGHTS-SET FF FE OPENER-SET FF FE WRITE
 * A set part is SPEC §3.3 text; lines that are not a valid tag are
 * skipped.  WRITE is everything after the third separator, as is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "model.h"
#include "shim_user.h"

#define die(...)							\
	do {								\
		fprintf(stderr, "fuzz_apply: " __VA_ARGS__);		\
		fputc('\n', stderr);					\
		abort();						\
	} while (0)

static const struct pt_limits no_limits = {
	.max_tags = UINT32_MAX,
	.max_bytes = UINT64_MAX,
};

/* Parse SPEC §3.3 text into @m, keeping the valid tags only. */
static void parse_set(struct model_set *m, const char *p, size_t len)
{
	size_t start = 0;

	model_init(m);
	while (start < len) {
		const char *nl = memchr(p + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - p) : len;
		const char *l = p + start, *eq;
		size_t ll = end - start, nlen;
		bool keep = false;

		start = end + 1;
		if (ll && l[0] == '@') {
			keep = true;
			l++;
			ll--;
		}
		eq = memchr(l, '=', ll);
		nlen = eq ? (size_t)(eq - l) : ll;
		if (!model_name(l, nlen))
			continue;
		if (eq && (ll - nlen - 1 == 0 ||
			   !model_value(eq + 1, ll - nlen - 1)))
			continue;
		model_put(m, l, nlen, eq ? eq + 1 : NULL,
			  eq ? ll - nlen - 1 : 0, eq != NULL, keep);
	}
}

static void append(char **buf, size_t *len, const char *s, size_t n)
{
	*buf = realloc(*buf, *len + n + 1);
	if (!*buf)
		die("out of memory");
	memcpy(*buf + *len, s, n);
	*len += n;
}

/* The engine's set with the tags of @m: a privileged write from empty. */
static struct pt_set *engine_set(const struct model_set *m)
{
	struct pt_writer priv = { .privileged = true, .self = true,
				  .same_opener = true };
	struct pt_result res;
	char *buf = NULL;
	size_t len = 0, i;
	int err;

	for (i = 0; i < m->count; i++) {
		const struct model_tag *t = &m->tags[i];

		append(&buf, &len, t->keep ? "+@" : "+", t->keep ? 2 : 1);
		append(&buf, &len, t->name, t->name_len);
		append(&buf, &len, "\n", 1);
		if (t->value) {
			append(&buf, &len, "!", 1);
			append(&buf, &len, t->name, t->name_len);
			append(&buf, &len, "=", 1);
			append(&buf, &len, t->value, t->value_len);
			append(&buf, &len, "\n", 1);
		}
	}
	if (!len)
		return NULL;
	err = pt_apply(NULL, buf, len, &priv, &no_limits, &res);
	if (err)
		die("a privileged write of %zu valid tags failed: %d, line %zu",
		    m->count, err, res.line);
	free(buf);
	return res.set;
}

/* The text of @s rendered in one call, and again through windows. */
static char *engine_text(const struct pt_set *s, size_t *len,
			 unsigned int seed)
{
	uint64_t size = pt_set_text_size(s);
	char *p = malloc(size + 1), *q = malloc(size + 1);
	uint64_t off = 0;

	if (!p || !q)
		die("out of memory");
	if (pt_set_render(s, 0, p, size) != size)
		die("render of %llu bytes came short",
		    (unsigned long long)size);
	if (pt_set_render(s, size, q, 16) != 0 ||
	    pt_set_render(s, size + 1 + seed, q, 16) != 0 ||
	    pt_set_render(s, UINT64_MAX - seed % 64, q, 16) != 0)
		die("render at or past the end returned bytes");
	if (size && pt_set_render(s, size - 1, q, 0) != 0)
		die("render of 0 bytes returned bytes");
	/* Windows of 1..(seed % 97 + 1) bytes, the rest of the text. */
	while (off < size) {
		size_t want, got;

		seed = seed * 1103515245u + 12345u;
		want = 1 + (seed >> 8) % ((seed >> 20) % 97 + 1);
		got = pt_set_render(s, off, q + off, want);

		if (got != (want < size - off ? want : size - off))
			die("render(%llu, %zu) returned %zu of %llu",
			    (unsigned long long)off, want, got,
			    (unsigned long long)size);
		off += got;
	}
	if (size && memcmp(p, q, size))
		die("windowed render differs from the whole");
	free(q);
	p[size] = 0;
	*len = size;
	return p;
}

static void same_text(const char *what, const struct pt_set *s,
		      const struct model_set *m, unsigned int seed)
{
	size_t elen, mlen;
	char *e = engine_text(s, &elen, seed), *t = model_text(m, &mlen);

	if (elen != mlen || memcmp(e, t, elen))
		die("%s: engine text\n%.*s\ndiffers from the model's\n%.*s",
		    what, (int)elen, e, (int)mlen, t);
	free(e);
	free(t);
}

/* SPEC §9: after exec only the kept tags remain. */
static void check_exec(struct pt_set *s, const struct model_set *m,
		       unsigned int seed)
{
	struct model_set kept;
	size_t i;

	model_init(&kept);
	for (i = 0; i < m->count; i++)
		if (m->tags[i].keep)
			model_put(&kept, m->tags[i].name, m->tags[i].name_len,
				  m->tags[i].value, m->tags[i].value_len,
				  m->tags[i].value != NULL, true);
	same_text("pt_set_exec", pt_set_exec(s), &kept, seed);
	model_free(&kept);
}

static const char *split(const char *p, const char *end, size_t *len)
{
	const char *q;

	for (q = p; q + 1 < end; q++)
		if ((unsigned char)q[0] == 0xff && (unsigned char)q[1] == 0xfe)
			break;
	if (q + 1 >= end)
		q = end;
	*len = (size_t)(q - p);
	return q < end ? q + 2 : end;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data + 7, *end = (const char *)data + size;
	const char *parts[3], *wbuf;
	size_t plen[3], wlen, mline, i;
	struct model_set target, rights, opener, before;
	struct model_writer mw;
	struct model_limits ml;
	struct pt_limits el;
	struct pt_writer ew;
	struct pt_set *old, *eright, *eopen;
	struct pt_result res;
	unsigned int seed;
	int eerr, merr;
	bool inject;

	if (size < 7)
		return 0;
	for (i = 0; i < 3; i++) {
		parts[i] = p;
		p = split(p, end, &plen[i]);
	}
	wbuf = p;
	wlen = (size_t)(end - p);

	parse_set(&target, parts[0], plen[0]);
	parse_set(&rights, parts[1], plen[1]);
	parse_set(&opener, parts[2], plen[2]);
	model_copy(&before, &target);

	mw.self = data[0] & 1;
	mw.privileged = data[0] & 2;
	mw.same_opener = data[0] & 4;
	mw.rights = (data[0] & 8) ? &target : &rights;
	mw.opener = &opener;
	inject = data[0] & 16;
	ml.max_tags = data[1] == 255 ? UINT64_MAX : data[1];
	ml.max_bytes = (data[2] | data[3] << 8) == 65535 ? UINT64_MAX :
		       (uint64_t)(data[2] | data[3] << 8);
	el.max_tags = ml.max_tags == UINT64_MAX ? UINT32_MAX :
		      (uint32_t)ml.max_tags;
	el.max_bytes = ml.max_bytes;
	seed = data[5] | data[6] << 8;

	old = engine_set(&target);
	eright = (data[0] & 8) ? pt_set_get(old) : engine_set(&rights);
	eopen = engine_set(&opener);
	same_text("the target set", old, &target, seed);
	ew.rights = eright;
	ew.opener = eopen;
	ew.same_opener = mw.same_opener;
	ew.self = mw.self;
	ew.privileged = mw.privileged;

	if (inject)
		shim_fail_nth(1 + data[4] % 8);
	memset(&res, 0x5a, sizeof(res));
	eerr = pt_apply(old, wbuf, wlen, &ew, &el, &res);
	shim_fail_nth(0);
	/* The model works on a copy of the rights, which it may not change. */
	merr = model_apply(&target, wbuf, wlen, &mw, &ml, &mline);

	if (eerr == -ENOMEM && inject) {
		/* Nothing changed; the old set is intact. */
		same_text("old set after ENOMEM", old, &before, seed);
	} else if (eerr != -merr) {
		die("engine errno %d (line %zu), model errno %d (line %zu)",
		    -eerr, eerr ? res.line : 0, merr, mline);
	} else if (eerr) {
		if (res.line != mline)
			die("errno %d: engine line %zu, model line %zu", merr,
			    res.line, mline);
		same_text("old set after a failed write", old, &before, seed);
	} else {
		size_t a, b;
		char *ta = model_text(&before, &a), *tb = model_text(&target, &b);
		bool changed = a != b || memcmp(ta, tb, a);

		free(ta);
		free(tb);
		if (res.changed != changed)
			die("engine says changed=%d, model %d", res.changed,
			    changed);
		if (res.changed) {
			same_text("the new set", res.set, &target, seed);
			if (res.set)
				check_exec(res.set, &target, seed);
			pt_set_put(res.set);
		} else {
			same_text("the unchanged set", old, &target, seed);
		}
	}
	if (old)
		check_exec(old, &before, seed);

	pt_set_put(old);
	pt_set_put(eright);
	pt_set_put(eopen);
	if (shim_outstanding() || shim_live_sets())
		die("leak: %ld allocations, %ld sets outstanding",
		    shim_outstanding(), shim_live_sets());
	model_free(&target);
	model_free(&rights);
	model_free(&opener);
	model_free(&before);
	return 0;
}
