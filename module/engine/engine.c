// SPDX-License-Identifier: GPL-2.0
/*
 * The ptags tag engine: the write protocol (SPEC §3.4),
 * permissions (SPEC §5, §6) and immutable, reference-counted tag sets.
 *
 * This file includes no kernel header itself: engine_shim.h supplies types,
 * errno values, memory and reference counts, so that the same code runs in
 * ptags.ko and in the user-space unit tests.
 *
 * A set is one allocation: the struct pt_set header, tags[count], then a blob
 * holding every name and value; the tags point into the blob.
 *
 * A write is applied to a scratch array of struct pt_tag whose pointers refer
 * either into the old set or into the write buffer (both outlive the call);
 * the new set is copied out of the scratch array once, at the end.
 */
#include "engine.h"
#include "uapi/linux/ptags.h"

#define PT_PREFIX	PTAGS_SPECIAL_PREFIX
#define PT_PREFIX_LEN	(sizeof(PT_PREFIX) - 1)

/* ------------------------------------------------------------------ */
/* Helpers (SPEC §4's rules are in valid.c, shared with the library)  */
/* ------------------------------------------------------------------ */

static bool pt_starts_with(const char *s, size_t len, const char *p,
			   size_t plen)
{
	return len >= plen && !memcmp(s, p, plen);
}

static bool pt_ends_with(const char *s, size_t len, const char *p,
			 size_t plen)
{
	return len >= plen && !memcmp(s + len - plen, p, plen);
}

/* ------------------------------------------------------------------ */
/* Sets                                                               */
/* ------------------------------------------------------------------ */

/* memcmp order, a prefix sorts first. */
static int pt_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int r = memcmp(a, b, alen < blen ? alen : blen);

	if (r)
		return r;
	if (alen == blen)
		return 0;
	return alen < blen ? -1 : 1;
}

/* Index of the first tag of @t[0..@n) whose name is not below @name. */
static size_t pt_lower_bound(const struct pt_tag *t, size_t n,
			     const char *name, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pt_cmp(t[mid].name, t[mid].name_len, name, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool pt_tag_is(const struct pt_tag *t, const char *name, size_t len)
{
	return t->name_len == len && !memcmp(t->name, name, len);
}

struct pt_set *pt_set_get(struct pt_set *s)
{
	if (s)
		pt_ref_inc(&s->head);
	return s;
}

/*
 * The last reference to a set is gone: account for it now, hand its memory
 * to the shim (freed at once, or after an RCU grace period in the kernel)
 * and drop its reference on the exec companion, which has no companion.
 */
static void pt_set_release(struct pt_set *s)
{
	pt_shim_set_gone(s);
	pt_shim_set_release(s);
}

void pt_set_put(struct pt_set *s)
{
	struct pt_set *e;

	if (!s || !pt_ref_dec_and_test(&s->head))
		return;
	e = s->exec;
	pt_set_release(s);
	if (e && pt_ref_dec_and_test(&e->head))
		pt_set_release(e);
}

void pt_set_destroy(struct pt_set *s)
{
	pt_free(s);
}

struct pt_set *pt_set_exec(struct pt_set *s)
{
	if (!s || !s->nkept)
		return NULL;
	if (s->nkept == s->count)
		return s;
	return s->exec;
}

const struct pt_tag *pt_set_find(const struct pt_set *s, const char *name,
				 size_t len)
{
	size_t i;

	if (!s)
		return NULL;
	i = pt_lower_bound(s->tags, s->count, name, len);
	if (i < s->count && pt_tag_is(&s->tags[i], name, len))
		return &s->tags[i];
	return NULL;
}

/* Length of the SPEC §3.3 line of @t. */
static uint64_t pt_line_len(const struct pt_tag *t)
{
	uint64_t n = (uint64_t)t->name_len + 1;

	if (t->keep)
		n++;
	if (t->value)
		n += (uint64_t)t->value_len + 1;
	return n;
}

uint64_t pt_set_text_size(const struct pt_set *s)
{
	uint64_t n = 0;
	uint32_t i;

	if (!s)
		return 0;
	for (i = 0; i < s->count; i++)
		n += pt_line_len(&s->tags[i]);
	return n;
}

/*
 * Copy the part of @src (@slen bytes) that lies at or after *@off into
 * @buf[*@done..@len); consume *@off.
 */
static void pt_emit(const char *src, size_t slen, uint64_t *off, char *buf,
		    size_t *done, size_t len)
{
	size_t n;

	if (*off >= slen) {
		*off -= slen;
		return;
	}
	src += *off;
	slen -= *off;
	*off = 0;
	n = len - *done;
	if (n > slen)
		n = slen;
	memcpy(buf + *done, src, n);
	*done += n;
}

size_t pt_set_render(const struct pt_set *s, uint64_t off, char *buf,
		     size_t len)
{
	size_t done = 0;
	uint32_t i;

	if (!s)
		return 0;
	for (i = 0; i < s->count && done < len; i++) {
		const struct pt_tag *t = &s->tags[i];
		uint64_t l = pt_line_len(t);

		if (off >= l) {
			off -= l;
			continue;
		}
		if (t->keep)
			pt_emit("@", 1, &off, buf, &done, len);
		pt_emit(t->name, t->name_len, &off, buf, &done, len);
		if (t->value) {
			pt_emit("=", 1, &off, buf, &done, len);
			pt_emit(t->value, t->value_len, &off, buf, &done,
				len);
		}
		pt_emit("\n", 1, &off, buf, &done, len);
	}
	return done;
}

/*
 * Bytes of a set holding the tags of @t[0..@n) (only the kept ones when
 * @kept_only); 0 when it cannot be represented.
 */
static size_t pt_set_size(const struct pt_tag *t, size_t n, bool kept_only,
			  uint32_t *count, uint32_t *nkept, uint64_t *bytes)
{
	uint64_t size;
	size_t i;

	*count = 0;
	*nkept = 0;
	*bytes = 0;
	for (i = 0; i < n; i++) {
		if (kept_only && !t[i].keep)
			continue;
		(*count)++;
		if (t[i].keep)
			(*nkept)++;
		*bytes += t[i].name_len;
		if (t[i].value)
			*bytes += t[i].value_len;
	}
	size = sizeof(struct pt_set) +
	       (uint64_t)*count * sizeof(struct pt_tag) + *bytes;
	if (size != (size_t)size)
		return 0;
	return (size_t)size;
}

/* Allocate a set for @t[0..@n) and fill it, without publishing it. */
static struct pt_set *pt_set_build(const struct pt_tag *t, size_t n,
				   bool kept_only)
{
	struct pt_set *s;
	uint32_t count, nkept;
	uint64_t bytes;
	size_t size, i;
	char *blob;
	struct pt_tag *d;

	size = pt_set_size(t, n, kept_only, &count, &nkept, &bytes);
	if (!size)
		return NULL;
	s = pt_alloc(size);
	if (!s)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->count = count;
	s->nkept = nkept;
	s->bytes = bytes;
	s->alloc_size = size;
	s->exec = NULL;
	d = s->tags;
	blob = (char *)(s->tags + count);
	for (i = 0; i < n; i++) {
		if (kept_only && !t[i].keep)
			continue;
		memcpy(blob, t[i].name, t[i].name_len);
		d->name = blob;
		d->name_len = t[i].name_len;
		blob += t[i].name_len;
		d->value = NULL;
		d->value_len = 0;
		if (t[i].value) {
			memcpy(blob, t[i].value, t[i].value_len);
			d->value = blob;
			d->value_len = t[i].value_len;
			blob += t[i].value_len;
		}
		d->keep = t[i].keep;
		d->memo = 0;
		d++;
	}
	pt_ref_init(&s->head);
	return s;
}

/*
 * Build the set for @t[0..@n) (@n > 0) and, when it mixes kept and unkept
 * tags, its exec companion.  Both are allocated before either is announced,
 * so that a failure leaves nothing behind.
 */
static struct pt_set *pt_set_publish(const struct pt_tag *t, size_t n)
{
	struct pt_set *s, *e = NULL;

	s = pt_set_build(t, n, false);
	if (!s)
		return NULL;
	if (s->nkept && s->nkept < s->count) {
		e = pt_set_build(t, n, true);
		if (!e) {
			pt_free(s);
			return NULL;
		}
		pt_shim_set_born(e);
		s->exec = e;
	}
	pt_shim_set_born(s);
	return s;
}

/* The permission tags ("ptags:...") of @s are its tags [*@lo, returned). */
static size_t pt_special_range(const struct pt_set *s, size_t *lo)
{
	size_t i = pt_lower_bound(s->tags, s->count, PT_PREFIX, PT_PREFIX_LEN);

	*lo = i;
	while (i < s->count && pt_starts_with(s->tags[i].name,
					      s->tags[i].name_len, PT_PREFIX,
					      PT_PREFIX_LEN))
		i++;
	return i;
}

/**
 * pt_set_rights() - a private copy of the permission tags of a set
 * @s: a tag set (NULL: empty)
 * @out: receives the copy (one reference), or NULL when @s holds no
 *	 permission tag
 *
 * SPEC §5.5 and §8: what an open file remembers of its opener's rights,
 * allocated for (and charged to) the caller instead of pinning @s.
 *
 * Return: 0 or -ENOMEM.
 */
int pt_set_rights(const struct pt_set *s, struct pt_set **out)
{
	size_t lo, hi;

	*out = NULL;
	if (!s)
		return 0;
	hi = pt_special_range(s, &lo);
	if (lo == hi)
		return 0;
	*out = pt_set_build(s->tags + lo, hi - lo, false);
	if (!*out)
		return -ENOMEM;
	pt_shim_set_born(*out);
	return 0;
}

/* ------------------------------------------------------------------ */
/* SPEC §5: rights                                                    */
/* ------------------------------------------------------------------ */

struct pt_piece {
	const char *p;
	size_t len;
};

/* Compare @a with the concatenation of @pc[0..@npc), memcmp order. */
static int pt_cmp_pieces(const char *a, size_t alen,
			 const struct pt_piece *pc, unsigned int npc)
{
	size_t pos = 0;
	unsigned int i;

	for (i = 0; i < npc; i++) {
		size_t m = alen - pos;
		int r;

		if (m > pc[i].len)
			m = pc[i].len;
		r = memcmp(a + pos, pc[i].p, m);
		if (r)
			return r;
		if (m < pc[i].len)
			return -1;	/* @a is a proper prefix */
		pos += m;
	}
	return pos < alen ? 1 : 0;
}

/* Does @s hold the tag named by the concatenation of @pc? */
static bool pt_set_has_pieces(const struct pt_set *s,
			      const struct pt_piece *pc, unsigned int npc)
{
	size_t lo = 0, hi = s->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pt_tag *t = &s->tags[mid];
		int r = pt_cmp_pieces(t->name, t->name_len, pc, npc);

		if (!r)
			return true;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Does @s hold any permission tag ("ptags:...")? */
static bool pt_set_has_special(const struct pt_set *s)
{
	size_t i = pt_lower_bound(s->tags, s->count, PT_PREFIX, PT_PREFIX_LEN);

	return i < s->count &&
	       pt_starts_with(s->tags[i].name, s->tags[i].name_len,
			      PT_PREFIX, PT_PREFIX_LEN);
}

/**
 * pt_has() - SPEC §5.1: does @s grant right @r over the tag @n?
 * @s: a tag set (NULL: grants nothing)
 * @r: "add", "sub", "set" or "others"
 * @rlen: length of @r
 * @n: tag name
 * @nlen: length of @n
 *
 * True when @n is not special and @s holds "ptags:R", or when @s holds
 * "ptags:P:R" where P is @n itself or the part of @n before one of its
 * colons.
 *
 * Return: true when the right is granted.
 */
static bool pt_has(const struct pt_set *s, const char *r, size_t rlen,
		   const char *n, size_t nlen)
{
	struct pt_piece pc[4] = {
		{ PT_PREFIX, PT_PREFIX_LEN }, { n, 0 }, { ":", 1 }, { r, rlen },
	};
	size_t i;

	if (!s || !pt_set_has_special(s))
		return false;
	if (!pt_starts_with(n, nlen, PT_PREFIX, PT_PREFIX_LEN)) {
		struct pt_piece g[2] = {
			{ PT_PREFIX, PT_PREFIX_LEN }, { r, rlen },
		};

		if (pt_set_has_pieces(s, g, 2))
			return true;
	}
	for (i = 0; i <= nlen; i++) {
		if (i < nlen && n[i] != ':')
			continue;
		pc[1].len = i;
		if (pt_set_has_pieces(s, pc, 4))
			return true;
	}
	return false;
}

enum pt_action { PT_ADD, PT_SUB, PT_SET };

static const struct pt_piece pt_action_names[] = {
	[PT_ADD] = { "add", 3 },
	[PT_SUB] = { "sub", 3 },
	[PT_SET] = { "set", 3 },
};

/* SPEC §5.5: a right counts only if the writer and the opener hold it. */
static bool pt_right(const struct pt_writer *w, const char *r, size_t rlen,
		     const char *n, size_t nlen)
{
	if (!pt_has(w->rights, r, rlen, n, nlen))
		return false;
	return w->same_opener || pt_has(w->opener, r, rlen, n, nlen);
}

/* SPEC §5.2-5.4: may @w do @a on the tag @n? */
static bool pt_allowed(const struct pt_writer *w, enum pt_action a,
		       const char *n, size_t nlen)
{
	const struct pt_piece *r = &pt_action_names[a];

	if (w->privileged)
		return true;
	if (!pt_right(w, r->p, r->len, n, nlen))
		return false;
	return w->self || pt_right(w, "others", 6, n, nlen);
}

/*
 * Does @s hold any permission tag for right @r ("ptags:R" or "ptags:P:R")?
 * Without one, pt_has(@s, @r, ...) is false for every name.
 */
static bool pt_set_has_any(const struct pt_set *s, const char *r, size_t rlen)
{
	size_t i, hi;

	if (!s)
		return false;
	for (hi = pt_special_range(s, &i); i < hi; i++) {
		const struct pt_tag *t = &s->tags[i];

		if (t->name_len > rlen && t->name[t->name_len - rlen - 1] == ':' &&
		    pt_ends_with(t->name, t->name_len, r, rlen))
			return true;
	}
	return false;
}

/* Could pt_right(@w, @r, ...) be true for some name? */
static bool pt_right_any(const struct pt_writer *w, const char *r, size_t rlen)
{
	return pt_set_has_any(w->rights, r, rlen) &&
	       (w->same_opener || pt_set_has_any(w->opener, r, rlen));
}

/*
 * The actions @w may do on some tag (bit 1 << PT_ADD...): an action outside
 * it is refused for every tag, so a line over many tags need not look at
 * them.  A necessary condition of pt_allowed(), computed once per write.
 */
static unsigned int pt_writer_can(const struct pt_writer *w)
{
	unsigned int a, can = 0;

	if (w->privileged)
		return (1U << PT_ADD) | (1U << PT_SUB) | (1U << PT_SET);
	if (!w->self && !pt_right_any(w, "others", 6))
		return 0;
	for (a = PT_ADD; a <= PT_SET; a++)
		if (pt_right_any(w, pt_action_names[a].p,
				 pt_action_names[a].len))
			can |= 1U << a;
	return can;
}

/* ------------------------------------------------------------------ */
/* SPEC §3.4, §6: the write protocol                                  */
/* ------------------------------------------------------------------ */

/*
 * Where the writer's rights for one action may apply, computed once per
 * write (SPEC §3.4 cost bound).  @all: it holds "ptags:ACTION" (every
 * ordinary tag) or is privileged, so a line looks at every tag it matches.
 * Otherwise only tags named P or "P:..." for a P of @p[0..@n) can be
 * allowed; no P is a field-prefix of another, so their tags are disjoint
 * and a line looks at each candidate once.
 */
struct pt_scope {
	bool all;
	struct pt_piece *p;
	size_t n;
};

/*
 * A transaction: the evolving tag array @t[0..@n), sorted by name, holding
 * @bytes bytes of names and values.  @dirty once any line changed it.
 * @can: pt_writer_can(@w).  @work: units done since the last yield;
 * @stopped once pt_shim_yield() asked to stop.
 */
struct pt_tx {
	struct pt_tag *t;
	size_t n;
	uint64_t bytes;
	bool dirty;
	bool stopped;
	unsigned int can;
	size_t work;
	const struct pt_writer *w;
	const struct pt_limits *lim;
	struct pt_scope scope[PT_SUB + 1];	/* for "+@..." and "-..." */
	struct pt_piece *scope_mem;
};

/*
 * SPEC §3.4: account @units of work (lines, tags looked at or moved) and
 * give the host a chance to reschedule or to stop us every PT_YIELD_WORK.
 */
static void pt_tx_work(struct pt_tx *tx, size_t units)
{
	tx->work += units;
	while (tx->work >= PT_YIELD_WORK) {
		tx->work -= PT_YIELD_WORK;
		if (!tx->stopped && pt_shim_yield())
			tx->stopped = true;
	}
}

/* Memo bits of one action: the rights are known / granted. */
#define PT_MEMO_KNOWN(a)	(1U << (2 * (a)))
#define PT_MEMO_ALLOWED(a)	(2U << (2 * (a)))

/* pt_allowed() for a name, counting its cost (one search per field). */
static bool pt_tx_allowed(struct pt_tx *tx, enum pt_action a, const char *n,
			  size_t nlen)
{
	size_t i, fields = 1;

	if (!(tx->can & (1U << a)))
		return false;
	if (tx->w->privileged)
		return true;
	for (i = 0; i < nlen; i++)
		fields += n[i] == ':';
	pt_tx_work(tx, fields);
	return pt_allowed(tx->w, a, n, nlen);
}

/*
 * pt_allowed() for a tag of the transaction: computed once per write and
 * remembered in the tag, so a line that looks at many tags costs one test
 * per tag however many colons their names hold (SPEC §3.4 cost bound).
 */
static bool pt_tx_allowed_tag(struct pt_tx *tx, enum pt_action a,
			      struct pt_tag *t)
{
	if (!(t->memo & PT_MEMO_KNOWN(a))) {
		t->memo |= PT_MEMO_KNOWN(a);
		if (pt_tx_allowed(tx, a, t->name, t->name_len))
			t->memo |= PT_MEMO_ALLOWED(a);
	}
	return t->memo & PT_MEMO_ALLOWED(a);
}

static uint64_t pt_tag_bytes(const struct pt_tag *t)
{
	return (uint64_t)t->name_len + (t->value ? t->value_len : 0);
}

/* Remove @tx->t[@i]. */
static void pt_tx_remove(struct pt_tx *tx, size_t i)
{
	pt_tx_work(tx, tx->n - i);
	tx->bytes -= pt_tag_bytes(&tx->t[i]);
	memmove(&tx->t[i], &tx->t[i + 1], (tx->n - i - 1) * sizeof(*tx->t));
	tx->n--;
	tx->dirty = true;
}

/* "+NAME" and "+@NAME": SPEC §6, adding. */
static int pt_op_add(struct pt_tx *tx, const char *name, size_t len, bool keep)
{
	size_t i = pt_lower_bound(tx->t, tx->n, name, len);
	struct pt_tag *t;

	if (i < tx->n && pt_tag_is(&tx->t[i], name, len)) {
		t = &tx->t[i];
		if (!keep || t->keep)
			return 0;	/* nothing to change */
		if (!pt_tx_allowed_tag(tx, PT_ADD, t))
			return -EPERM;
		t->keep = true;
		tx->dirty = true;
		return 0;
	}
	if (!pt_tx_allowed(tx, PT_ADD, name, len))
		return -EPERM;
	if (tx->n >= tx->lim->max_tags ||
	    tx->bytes + len > tx->lim->max_bytes)
		return -ECANCELED;
	pt_tx_work(tx, tx->n - i);
	memmove(&tx->t[i + 1], &tx->t[i], (tx->n - i) * sizeof(*tx->t));
	t = &tx->t[i];
	t->name = name;
	t->name_len = (uint32_t)len;
	t->value = NULL;
	t->value_len = 0;
	t->keep = keep;
	t->memo = 0;
	tx->n++;
	tx->bytes += len;
	tx->dirty = true;
	return 0;
}

/* "-NAME" and "-@NAME": SPEC §6, removing. */
static int pt_op_sub(struct pt_tx *tx, const char *name, size_t len,
		     bool keep_only)
{
	size_t i = pt_lower_bound(tx->t, tx->n, name, len);

	if (i >= tx->n || !pt_tag_is(&tx->t[i], name, len))
		return 0;	/* absent: nothing to change */
	if (keep_only && !tx->t[i].keep)
		return 0;
	if (!pt_tx_allowed_tag(tx, PT_SUB, &tx->t[i]))
		return -EPERM;
	if (keep_only)
		tx->t[i].keep = false;
	else
		pt_tx_remove(tx, i);
	tx->dirty = true;
	return 0;
}

/*
 * Byte order with ':' below every other byte (no name holds a byte below
 * 0x20): a prefix P, then every "P:...", then the rest.
 */
static int pt_cmp_fields(const struct pt_piece *a, const struct pt_piece *b)
{
	size_t i, n = a->len < b->len ? a->len : b->len;

	for (i = 0; i < n; i++) {
		unsigned char x = (unsigned char)a->p[i];
		unsigned char y = (unsigned char)b->p[i];

		if (x == y)
			continue;
		x = x == ':' ? 0 : x;
		y = y == ':' ? 0 : y;
		return x < y ? -1 : 1;
	}
	return a->len == b->len ? 0 : a->len < b->len ? -1 : 1;
}

static void pt_sift(struct pt_piece *v, size_t i, size_t n)
{
	struct pt_piece tmp;
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && pt_cmp_fields(&v[c], &v[c + 1]) < 0)
			c++;
		if (pt_cmp_fields(&v[i], &v[c]) >= 0)
			return;
		tmp = v[i];
		v[i] = v[c];
		v[c] = tmp;
		i = c;
	}
}

/* Heapsort: O(n log n), no recursion, no allocation. */
static void pt_sort_fields(struct pt_piece *v, size_t n)
{
	struct pt_piece tmp;
	size_t i;

	for (i = n / 2; i-- > 0;)
		pt_sift(v, i, n);
	while (n > 1) {
		tmp = v[0];
		v[0] = v[--n];
		v[n] = tmp;
		pt_sift(v, 0, n);
	}
}

/* Keep the prefixes of @sc that no other prefix of it covers. */
static void pt_scope_minimal(struct pt_scope *sc)
{
	size_t i, k = 0;

	pt_sort_fields(sc->p, sc->n);
	for (i = 0; i < sc->n; i++) {
		const struct pt_piece *last = k ? &sc->p[k - 1] : NULL;

		/* sorted: a prefix's "P:..." extensions follow it */
		if (last && sc->p[i].len > last->len &&
		    sc->p[i].p[last->len] == ':' &&
		    !memcmp(sc->p[i].p, last->p, last->len))
			continue;
		if (last && sc->p[i].len == last->len &&
		    !memcmp(sc->p[i].p, last->p, last->len))
			continue;
		sc->p[k++] = sc->p[i];
	}
	sc->n = k;
}

/*
 * Once per write: for "+@..." (add) and "-..." (sub) lines, where the
 * writer's own permission tags can grant anything.  0 or -ENOMEM.
 */
static int pt_tx_scope(struct pt_tx *tx)
{
	const struct pt_set *r = tx->w->rights;
	size_t lo, hi, i, a;

	for (a = PT_ADD; a <= PT_SUB; a++)
		tx->scope[a].all = tx->w->privileged;
	if (tx->w->privileged || !r)
		return 0;
	hi = pt_special_range(r, &lo);
	if (lo == hi)
		return 0;
	tx->scope_mem = pt_alloc(2 * (hi - lo) * sizeof(struct pt_piece));
	if (!tx->scope_mem)
		return -ENOMEM;
	tx->scope[PT_ADD].p = tx->scope_mem;
	tx->scope[PT_SUB].p = tx->scope_mem + (hi - lo);
	for (i = lo; i < hi; i++) {
		/* "ptags:" X, where X is "ACTION" or "P:ACTION" */
		const char *x = r->tags[i].name + PT_PREFIX_LEN;
		size_t len = r->tags[i].name_len - PT_PREFIX_LEN;

		pt_tx_work(tx, 1);
		for (a = PT_ADD; a <= PT_SUB; a++) {
			const struct pt_piece *an = &pt_action_names[a];
			struct pt_scope *sc = &tx->scope[a];

			if (len == an->len && !memcmp(x, an->p, an->len))
				sc->all = true;
			else if (len > an->len && x[len - an->len - 1] == ':' &&
				 pt_ends_with(x, len, an->p, an->len))
				sc->p[sc->n++] = (struct pt_piece){
					x, len - an->len - 1 };
		}
	}
	for (a = PT_ADD; a <= PT_SUB; a++)
		pt_scope_minimal(&tx->scope[a]);
	return 0;
}

/* First index from @from on whose name does not begin with @p. */
static size_t pt_prefix_end(const struct pt_tag *t, size_t from, size_t n,
			    const char *p, size_t plen)
{
	size_t lo = from, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pt_starts_with(t[mid].name, t[mid].name_len, p, plen))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

enum pt_global_op { PT_G_KEEP, PT_G_UNKEEP, PT_G_REMOVE };

/* One tag of a global line: apply @op where allowed; true to drop it. */
static bool pt_global_one(struct pt_tx *tx, enum pt_global_op op,
			  enum pt_action a, struct pt_tag *t)
{
	pt_tx_work(tx, 1);
	switch (op) {
	case PT_G_KEEP:
		if (!t->keep && pt_tx_allowed_tag(tx, a, t)) {
			t->keep = true;
			tx->dirty = true;
		}
		return false;
	case PT_G_UNKEEP:
		if (t->keep && pt_tx_allowed_tag(tx, a, t)) {
			t->keep = false;
			tx->dirty = true;
		}
		return false;
	default:
		return pt_tx_allowed_tag(tx, a, t);
	}
}

#define PT_MEMO_DROP	0x80	/* to be removed by the current line */

/* Mark @t[@from..@to) for @op; returns the first index marked for removal. */
static size_t pt_global_range(struct pt_tx *tx, enum pt_global_op op,
			      enum pt_action a, size_t from, size_t to,
			      size_t first)
{
	size_t i;

	for (i = from; i < to && !tx->stopped; i++) {
		if (pt_global_one(tx, op, a, &tx->t[i])) {
			tx->t[i].memo |= PT_MEMO_DROP;
			if (i < first)
				first = i;
		}
	}
	return first;
}

/*
 * "+@PREFIX:*", "+@", "-@PREFIX:*", "-@", "-PREFIX:*", "-": apply @op to
 * every tag whose name begins with @prefix (@plen 0: every tag) where it is
 * allowed; silently skip the others (SPEC §4.3).  Looks only where the
 * writer's rights can apply (struct pt_scope).  Stops early, leaving the
 * transaction to be discarded, when the host asks to stop.
 */
static void pt_op_global(struct pt_tx *tx, enum pt_global_op op,
			 const char *prefix, size_t plen)
{
	enum pt_action a = op == PT_G_KEEP ? PT_ADD : PT_SUB;
	const struct pt_scope *sc = &tx->scope[a];
	size_t lo, hi, i, j, k, first = tx->n;

	if (!(tx->can & (1U << a)))
		return;		/* allowed nowhere: nothing can change */
	lo = pt_lower_bound(tx->t, tx->n, prefix, plen);
	hi = pt_prefix_end(tx->t, lo, tx->n, prefix, plen);
	if (sc->all) {
		first = pt_global_range(tx, op, a, lo, hi, first);
	} else {
		for (k = 0; k < sc->n && !tx->stopped; k++) {
			const struct pt_piece *p = &sc->p[k];
			size_t s, e;

			pt_tx_work(tx, 1);
			/* the tag P itself */
			s = pt_lower_bound(tx->t, tx->n, p->p, p->len);
			if (s < tx->n && pt_tag_is(&tx->t[s], p->p, p->len) &&
			    s >= lo && s < hi)
				first = pt_global_range(tx, op, a, s, s + 1,
							first);
			/* "P:...": P is followed by ':' where it is stored */
			s = pt_lower_bound(tx->t, tx->n, p->p, p->len + 1);
			e = pt_prefix_end(tx->t, s, tx->n, p->p, p->len + 1);
			s = s < lo ? lo : s;
			e = e > hi ? hi : e;
			if (s < e)
				first = pt_global_range(tx, op, a, s, e, first);
		}
	}
	if (tx->stopped || first == tx->n)
		return;
	pt_tx_work(tx, tx->n - first);
	for (i = j = first; i < tx->n; i++) {
		if (tx->t[i].memo & PT_MEMO_DROP)
			tx->bytes -= pt_tag_bytes(&tx->t[i]);
		else
			tx->t[j++] = tx->t[i];
	}
	tx->n = j;
	tx->dirty = true;
}

/* "?..." (SPEC §3.4, §5.6): does a matching tag (with keep) exist? */
static int pt_op_query(struct pt_tx *tx, const char *p, size_t plen,
		       bool global, bool keep)
{
	size_t i = pt_lower_bound(tx->t, tx->n, p, plen);

	for (; i < tx->n && !tx->stopped; i++) {
		const struct pt_tag *t = &tx->t[i];

		pt_tx_work(tx, 1);
		if (global ? !pt_starts_with(t->name, t->name_len, p, plen) :
			     !pt_tag_is(t, p, plen))
			break;
		if (!keep || t->keep)
			return 0;
	}
	return -ENOENT;
}

/* "!NAME=VALUE", "!NAME=", "!NAME": SPEC §6, setting a value. */
static int pt_op_set(struct pt_tx *tx, const char *name, size_t len,
		     const char *value, size_t vlen)
{
	struct pt_tag *t;
	size_t i;
	uint64_t bytes;

	if (!pt_tx_allowed(tx, PT_SET, name, len))
		return -EPERM;
	i = pt_lower_bound(tx->t, tx->n, name, len);
	if (i >= tx->n || !pt_tag_is(&tx->t[i], name, len))
		return -ENOENT;
	t = &tx->t[i];
	if (!vlen) {
		if (!t->value)
			return 0;
		tx->bytes -= t->value_len;
		t->value = NULL;
		t->value_len = 0;
		tx->dirty = true;
		return 0;
	}
	if (t->value && t->value_len == vlen && !memcmp(t->value, value, vlen))
		return 0;
	bytes = tx->bytes - pt_tag_bytes(t) + t->name_len + vlen;
	if (bytes > tx->bytes && bytes > tx->lim->max_bytes)
		return -ECANCELED;
	tx->bytes = bytes;
	t->value = value;
	t->value_len = (uint32_t)vlen;
	tx->dirty = true;
	return 0;
}

/* Index of the first '=' in @s, or @len. */
static size_t pt_find_eq(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] == '=')
			break;
	return i;
}

/* One line, without its '\n'.  Returns 0 or a negative errno. */
static int pt_line(struct pt_tx *tx, const char *l, size_t len)
{
	char op;
	bool keep = false, global;
	size_t plen, eq;

	if (!pt_utf8_valid(l, len))
		return -EINVAL;
	if (!len || l[0] == '#')
		return 0;
	op = l[0];
	l++;
	len--;
	if (op == '!') {
		eq = pt_find_eq(l, len);
		if (!pt_name_valid(l, eq))
			return -EINVAL;
		if (eq == len)
			return pt_op_set(tx, l, eq, NULL, 0);
		if (!pt_value_valid(l + eq + 1, len - eq - 1))
			return -EINVAL;
		return pt_op_set(tx, l, eq, l + eq + 1, len - eq - 1);
	}
	if (op != '+' && op != '-' && op != '?')
		return -EINVAL;
	if (len && l[0] == '@') {
		keep = true;
		l++;
		len--;
	}
	if (!len) {
		/* "+@", "-", "-@", "?", "?@" (a lone "+" fails below) */
		global = true;
		plen = 0;
	} else if (!pt_pattern_valid(l, len, &global, &plen)) {
		return -EINVAL;
	}
	switch (op) {
	case '+':
		if (!keep && global)
			return -EINVAL;	/* adding requires a name */
		if (!global)
			return pt_op_add(tx, l, len, keep);
		pt_op_global(tx, PT_G_KEEP, l, plen);
		return 0;
	case '-':
		if (!global)
			return pt_op_sub(tx, l, len, keep);
		pt_op_global(tx, keep ? PT_G_UNKEEP : PT_G_REMOVE, l, plen);
		return 0;
	default:
		return pt_op_query(tx, l, plen, global, keep);
	}
}

/* Is @t[0..@n) the same set as @old? */
static bool pt_tx_same(const struct pt_set *old, const struct pt_tag *t,
		       size_t n)
{
	size_t i;

	if (n != (old ? old->count : 0))
		return false;
	for (i = 0; i < n; i++) {
		const struct pt_tag *a = &old->tags[i], *b = &t[i];

		if (a->keep != b->keep || !pt_tag_is(a, b->name, b->name_len))
			return false;
		if (!a->value != !b->value)
			return false;
		if (a->value && (a->value_len != b->value_len ||
				 memcmp(a->value, b->value, a->value_len)))
			return false;
	}
	return true;
}

/**
 * pt_apply() - apply one write(2) buffer to a tag set as one transaction
 * @old: the current set (NULL: empty)
 * @buf: the written bytes; must stay alive during the call
 * @len: number of bytes; 0 succeeds and changes nothing
 * @w: the writer and its rights, snapshotted when the write started
 * @lim: the current limits
 * @res: the result
 *
 * SPEC §3.4: the lines are applied in order to a private copy; the first
 * failing line stops the transaction, its errno is returned and its 1-based
 * number is stored in @res->line.  On success @res->changed tells whether
 * the set changes; if so @res->set is the new set (one reference, NULL when
 * empty).  On failure nothing stays allocated.
 *
 * Return: 0, -EINVAL, -EPERM, -ENOENT, -ECANCELED, -ENOMEM, or -EINTR when
 * pt_shim_yield() asked to stop (@res->line is then the line being applied).
 */
int pt_apply(const struct pt_set *old, const char *buf, size_t len,
	     const struct pt_writer *w, const struct pt_limits *lim,
	     struct pt_result *res)
{
	struct pt_tx tx = { .w = w, .lim = lim, .can = pt_writer_can(w) };
	size_t nadd = 0, count = old ? old->count : 0, cap, i, start, line;
	int err = 0;

	res->set = NULL;
	res->changed = false;
	res->line = 0;
	if (!len)
		return 0;
	if (buf[len - 1] != '\n')
		return -EINVAL;

	/*
	 * Scratch space: only a "+" line adds a tag, one at most, and no
	 * line adds one beyond max_tags, so the set never grows past
	 * max(count, min(count + nadd, max_tags)).
	 */
	for (i = 0; i < len; i++)
		if (buf[i] == '+' && (i == 0 || buf[i - 1] == '\n'))
			nadd++;
	cap = count + nadd;
	if (cap > lim->max_tags)
		cap = count > lim->max_tags ? count : lim->max_tags;
	if (!cap)
		cap = 1;
	if (cap > ((size_t)-1) / sizeof(struct pt_tag))
		return -ENOMEM;
	tx.t = pt_alloc(cap * sizeof(struct pt_tag));
	if (!tx.t)
		return -ENOMEM;
	err = pt_tx_scope(&tx);
	if (err)
		goto out;
	if (count) {
		memcpy(tx.t, old->tags, count * sizeof(struct pt_tag));
		tx.n = count;
		tx.bytes = old->bytes;
	}

	for (start = 0, line = 1; start < len; line++) {
		for (i = start; buf[i] != '\n'; i++)
			;
		pt_tx_work(&tx, 1);
		err = pt_line(&tx, buf + start, i - start);
		if (tx.stopped)
			err = -EINTR;
		if (err) {
			res->line = line;
			goto out;
		}
		start = i + 1;
	}

	if (!tx.dirty || pt_tx_same(old, tx.t, tx.n))
		goto out;
	if (tx.n) {
		res->set = pt_set_publish(tx.t, tx.n);
		if (!res->set) {
			err = -ENOMEM;
			goto out;
		}
	}
	res->changed = true;
out:
	pt_free(tx.scope_mem);
	pt_free(tx.t);
	return err;
}

/*
 * Below this many pids, an insertion sort in place: the radix sort's
 * histograms cost more than the whole list.
 */
#define PT_PIDS_SMALL	32

/* Ascending @a's distinct values into @out, which may be @a itself. */
static size_t pt_pids_unique(const uint32_t *a, uint32_t *out, size_t n)
{
	size_t i, j = 0;

	for (i = 0; i < n; i++)
		if (!j || out[j - 1] != a[i])
			out[j++] = a[i];
	return j;
}

size_t pt_pids_sort_unique(uint32_t *a, uint32_t *out, size_t n)
{
	uint32_t count[256], sum, c, v, *from = a, *to = out, *t;
	unsigned int shift;
	size_t i, j;

	if (n < PT_PIDS_SMALL) {
		for (i = 1; i < n; i++) {
			v = a[i];
			for (j = i; j && a[j - 1] > v; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return pt_pids_unique(a, out, n);
	}
	/* Least significant byte first; each pass keeps the order of ties. */
	for (shift = 0; shift < 32; shift += 8) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(from[i] >> shift) & 0xff]++;
		/* One value of this byte for all (the top one, usually). */
		if (count[(from[0] >> shift) & 0xff] == n)
			continue;
		for (i = 0, sum = 0; i < 256; i++) {
			c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			to[count[(from[i] >> shift) & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	return pt_pids_unique(from, out, n);
}
