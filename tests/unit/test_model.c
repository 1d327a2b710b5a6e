// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.4, §5, §6, §8: a differential test.  Random writes by random
 * writers over random sets, applied by the engine and by a naive model
 * written straight from the SPEC (strings built with snprintf, linear
 * search, no shared code but the §4 validity functions); the errno, the
 * failing line and the resulting text must agree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tutil.h"

#define MAXT 64

struct mtag {
	char name[64];
	char value[16];
	bool has_value, keep;
};

struct mset {
	struct mtag t[MAXT];
	int n;
};

static const char *const pool[] = {
	"a", "b", "S", "S:a", "S:b", "S:a:x", "S:add", "S:add:x", "Sa", "T:a",
	":x", "::y", "ptags", "ptags:add", "ptags:sub", "ptags:set",
	"ptags:others", "ptags:S:add", "ptags:S:sub", "ptags:S:set",
	"ptags:S:others", "ptags:S:a:add", "ptags:S:a:sub", "ptags:T:add",
	"ptags:ptags:add", "ptags:ptags:sub", "ptags:ptags:set",
	"ptags:ptags:others", "ptags::add", "ptags::sub", "ptags:S:add:add",
	"ptags:S:add:x:add", "ptags:ptags:S:add", "ptags:Sa:sub", "ptags:S:add:x:sub",
	"ptags:S:add:sub",
};
#define NPOOL ((int)(sizeof(pool) / sizeof(pool[0])))
static const char *const pats[] = {
	"S:*", ":*", "ptags:*", "S:a:*", "T:*", "ptags:S:*", "Q:*",
	"ptags:ptags:*",
};
#define NPATS ((int)(sizeof(pats) / sizeof(pats[0])))
static const char *const vals[] = { "1", "22", "333", "v", "4444444" };

static unsigned long long rng = 88172645463325252ull;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng % n);
}

static int mfind(const struct mset *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->t[i].name, name))
			return i;
	return -1;
}

static bool mcontains(const struct mset *s, const char *name)
{
	return s && mfind(s, name) >= 0;
}

static bool begins(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* SPEC §5.1, read literally. */
static bool mhas(const struct mset *s, const char *r, const char *n)
{
	char key[256], p[128];
	size_t i, len = strlen(n);

	if (!s)
		return false;
	snprintf(key, sizeof(key), "ptags:%s", r);
	if (!begins(n, "ptags:") && mcontains(s, key))
		return true;
	for (i = 0; i <= len; i++) {
		if (i < len && n[i] != ':')
			continue;
		memcpy(p, n, i);
		p[i] = 0;
		snprintf(key, sizeof(key), "ptags:%s:%s", p, r);
		if (mcontains(s, key))
			return true;
	}
	return false;
}

struct mwriter {
	struct mset rights, opener;
	bool same_opener, self, priv;
};

static bool mright(const struct mwriter *w, const char *r, const char *n)
{
	return mhas(&w->rights, r, n) &&
	       (w->same_opener || mhas(&w->opener, r, n));
}

static bool mallowed(const struct mwriter *w, const char *r, const char *n)
{
	return w->priv ||
	       (mright(w, r, n) && (w->self || mright(w, "others", n)));
}

static uint64_t mbytes(const struct mset *s)
{
	uint64_t b = 0;
	int i;

	for (i = 0; i < s->n; i++)
		b += strlen(s->t[i].name) +
		     (s->t[i].has_value ? strlen(s->t[i].value) : 0);
	return b;
}

static bool matches(const char *name, const char *pat, bool global)
{
	return global ? begins(name, pat) : !strcmp(name, pat);
}

/* One line of the model; @l is NUL-terminated, without '\n'. */
static int mline(struct mset *s, const char *l, const struct mwriter *w,
		 const struct pt_limits *lim)
{
	char op = l[0], pat[128];
	bool keep = false, global = false;
	size_t plen;
	int i, j;

	if (!op || op == '#')
		return 0;
	l++;
	if (op == '!') {
		const char *eq = strchr(l, '=');
		char name[128];
		size_t nl = eq ? (size_t)(eq - l) : strlen(l);

		memcpy(name, l, nl);
		name[nl] = 0;
		if (!pt_name_valid(name, nl) ||
		    (eq && !pt_value_valid(eq + 1, strlen(eq + 1))))
			return EINVAL;
		if (!mallowed(w, "set", name))
			return EPERM;
		i = mfind(s, name);
		if (i < 0)
			return ENOENT;
		if (!eq || !eq[1]) {
			s->t[i].has_value = false;
			return 0;
		}
		if (strlen(eq + 1) > (s->t[i].has_value ?
				      strlen(s->t[i].value) : 0) &&
		    mbytes(s) - (s->t[i].has_value ?
				 strlen(s->t[i].value) : 0) +
		    strlen(eq + 1) > lim->max_bytes)
			return ECANCELED;
		strcpy(s->t[i].value, eq + 1);
		s->t[i].has_value = true;
		return 0;
	}
	if (op != '+' && op != '-' && op != '?')
		return EINVAL;
	if (*l == '@') {
		keep = true;
		l++;
	}
	strcpy(pat, l);
	plen = strlen(pat);
	if (!plen) {
		global = true;
	} else if (plen >= 2 && !strcmp(pat + plen - 2, ":*")) {
		global = true;
		pat[plen - 1] = 0;
	} else if (!pt_name_valid(pat, plen)) {
		return EINVAL;
	}
	if (op == '?') {
		for (i = 0; i < s->n; i++)
			if (matches(s->t[i].name, pat, global) &&
			    (!keep || s->t[i].keep))
				return 0;
		return ENOENT;
	}
	if (op == '+' && !global) {
		i = mfind(s, pat);
		if (i >= 0) {
			if (!keep || s->t[i].keep)
				return 0;
			if (!mallowed(w, "add", pat))
				return EPERM;
			s->t[i].keep = true;
			return 0;
		}
		if (!mallowed(w, "add", pat))
			return EPERM;
		if ((uint64_t)s->n + 1 > lim->max_tags ||
		    mbytes(s) + plen > lim->max_bytes)
			return ECANCELED;
		for (i = 0; i < s->n && strcmp(s->t[i].name, pat) < 0; i++)
			;
		memmove(&s->t[i + 1], &s->t[i], (size_t)(s->n - i) *
			sizeof(s->t[0]));
		memset(&s->t[i], 0, sizeof(s->t[i]));
		strcpy(s->t[i].name, pat);
		s->t[i].keep = keep;
		s->n++;
		return 0;
	}
	if (op == '+' && !keep)
		return EINVAL;
	if (!global) {
		/* "-NAME", "-@NAME" */
		i = mfind(s, pat);
		if (i < 0 || (keep && !s->t[i].keep))
			return 0;
		if (!mallowed(w, "sub", pat))
			return EPERM;
		if (keep) {
			s->t[i].keep = false;
		} else {
			memmove(&s->t[i], &s->t[i + 1],
				(size_t)(s->n - i - 1) * sizeof(s->t[0]));
			s->n--;
		}
		return 0;
	}
	for (i = j = 0; i < s->n; i++) {
		struct mtag *t = &s->t[i];
		bool drop = false;

		if (matches(t->name, pat, true)) {
			if (op == '+' && mallowed(w, "add", t->name))
				t->keep = true;
			else if (op == '-' && keep &&
				 mallowed(w, "sub", t->name))
				t->keep = false;
			else if (op == '-' && !keep &&
				 mallowed(w, "sub", t->name))
				drop = true;
		}
		if (!drop)
			s->t[j++] = *t;
	}
	s->n = j;
	return 0;
}

static char *mtext(const struct mset *s)
{
	char *p = malloc(MAXT * 100 + 1), *q = p;
	int i;

	*q = 0;
	for (i = 0; i < s->n; i++)
		q += sprintf(q, "%s%s%s%s\n", s->t[i].keep ? "@" : "",
			     s->t[i].name, s->t[i].has_value ? "=" : "",
			     s->t[i].has_value ? s->t[i].value : "");
	return p;
}

static void rand_set(struct mset *s, int max, bool special_only)
{
	int k, n = (int)rnd((unsigned int)max + 1);

	memset(s, 0, sizeof(*s));
	for (k = 0; k < n; k++) {
		const char *name = pool[rnd(NPOOL)];
		int i;

		if (special_only && !begins(name, "ptags:"))
			continue;
		if (mfind(s, name) >= 0)
			continue;
		for (i = 0; i < s->n && strcmp(s->t[i].name, name) < 0; i++)
			;
		memmove(&s->t[i + 1], &s->t[i],
			(size_t)(s->n - i) * sizeof(s->t[0]));
		memset(&s->t[i], 0, sizeof(s->t[i]));
		strcpy(s->t[i].name, name);
		s->t[i].keep = !special_only && rnd(3) == 0;
		if (!special_only && rnd(3) == 0) {
			strcpy(s->t[i].value, vals[rnd(5)]);
			s->t[i].has_value = true;
		}
		s->n++;
	}
}

static char *rand_line(void)
{
	const char *n = pool[rnd(NPOOL)], *p = pats[rnd(NPATS)];
	const char *v = vals[rnd(5)];

	switch (rnd(24)) {
	case 0: case 1: case 2: return fmt("+%s", n);
	case 3: case 4: return fmt("+@%s", n);
	case 5: return fmt("+@%s", p);
	case 6: return fmt("+@");
	case 7: case 8: case 9: return fmt("-%s", n);
	case 10: return fmt("-%s", p);
	case 11: return fmt("-");
	case 12: return fmt("-@%s", n);
	case 13: return fmt("-@%s", p);
	case 14: return fmt("-@");
	case 15: case 16: return fmt("!%s=%s", n, v);
	case 17: return fmt("!%s%s", n, rnd(2) ? "=" : "");
	case 18: return fmt("?%s%s", rnd(2) ? "@" : "", n);
	case 19: return fmt("?%s%s", rnd(2) ? "@" : "", p);
	case 20: return fmt("?%s", rnd(2) ? "@" : "");
	case 21: return fmt("#%s", n);
	case 22: return fmt("%s", "");
	default: return fmt("+%s", p);	/* malformed */
	}
}

void test_model(void)
{
	struct mwriter *mw = calloc(1, sizeof(*mw));
	struct mset *ms = malloc(sizeof(*ms)), *m0 = malloc(sizeof(*ms));
	int iter, bad = 0, errs[160] = { 0 };

	tap_section("SPEC §3.4/§5/§6/§8 differential model");
	for (iter = 0; iter < 20000; iter++) {
		struct pt_limits lim = { .max_tags = 3 + rnd(20),
					 .max_bytes = 10 + rnd(150) };
		struct pt_writer w = { 0 };
		struct pt_set *old, *rights, *opener;
		struct pt_result res;
		char *write = fmt("%s", ""), *otext, *rtext, *etext, *mt;
		int nl = 1 + (int)rnd(6), i, merr = 0, err;
		size_t mline_no = 0, pos;

		rand_set(m0, 12, false);
		rand_set(&mw->rights, 8, true);
		rand_set(&mw->opener, 8, true);
		mw->priv = rnd(5) == 0;
		mw->self = rnd(2);
		mw->same_opener = rnd(3) != 0;
		*ms = *m0;
		for (i = 0; i < nl; i++) {
			char *l = rand_line(), *t = fmt("%s%s\n", write, l);

			if (!merr) {
				merr = mline(ms, l, mw, &lim);
				if (merr)
					mline_no = (size_t)i + 1;
			}
			free(write);
			free(l);
			write = t;
		}
		otext = mtext(m0);
		rtext = mtext(&mw->rights);
		old = mk(otext);
		rights = mk(rtext);
		free(rtext);
		rtext = mtext(&mw->opener);
		opener = mk(rtext);
		w.rights = rights;
		w.opener = opener;
		w.same_opener = mw->same_opener;
		w.self = mw->self;
		w.privileged = mw->priv;
		err = pt_apply(old, write, strlen(write), &w, &lim, &res);
		etext = text_of(err || !res.changed ? old : res.set);
		mt = merr ? fmt("%s", otext) : mtext(ms);
		if (err != -merr || (err && res.line != mline_no) ||
		    strcmp(etext, mt) ||
		    (!err && res.changed != !!strcmp(mt, otext))) {
			if (bad++ < 3) {
				diag("model %d line %zu, engine %d line %zu",
				     merr, mline_no, -err, res.line);
				for (pos = 0; write[pos]; pos++)
					if (write[pos] == '\n')
						write[pos] = '|';
				diag("write %s", write);
				for (pos = 0; otext[pos]; pos++)
					if (otext[pos] == '\n')
						otext[pos] = '|';
				diag("before %s", otext);
			}
		}
		errs[merr < 160 ? merr : 0]++;
		if (!err)
			pt_set_put(res.set);
		pt_set_put(old);
		pt_set_put(rights);
		pt_set_put(opener);
		free(write);
		free(otext);
		free(rtext);
		free(etext);
		free(mt);
	}
	diag("outcomes: ok %d, EINVAL %d, EPERM %d, ENOENT %d, ECANCELED %d",
	     errs[0], errs[EINVAL], errs[EPERM], errs[ENOENT],
	     errs[ECANCELED]);
	ok(!bad && no_leak(),
	   "SPEC §3.4/§5/§6/§8: 20000 random writes agree with the model (%d differ)",
	   bad);
	ok(errs[0] > 1000 && errs[EPERM] > 1000 && errs[ENOENT] > 500 &&
	   errs[ECANCELED] > 100 && errs[EINVAL] > 500,
	   "SPEC §3.4: the random writes reach every outcome");
	free(mw);
	free(ms);
	free(m0);
}
