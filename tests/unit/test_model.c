// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.4, §5, §6, §8: a differential test.  Random writes by random
 * writers over random sets, applied by the engine and by the reference
 * model of model.c (written from the SPEC, shares no code with the
 * engine; the fuzzer tests/fuzz/fuzz_apply.c uses it too); the errno, the
 * failing line and the resulting text must agree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "model.h"
#include "tutil.h"

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

static bool begins(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static void rand_set(struct model_set *s, int max, bool special_only)
{
	int k, n = (int)rnd((unsigned int)max + 1);

	model_free(s);
	for (k = 0; k < n; k++) {
		const char *name = pool[rnd(NPOOL)];
		const char *v = NULL;
		bool keep = false;

		if (special_only && !begins(name, "ptags:"))
			continue;
		if (!special_only) {
			keep = rnd(3) == 0;
			if (rnd(3) == 0)
				v = vals[rnd(5)];
		}
		model_put(s, name, strlen(name), v, v ? strlen(v) : 0, v,
			  keep);
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

/* The text of @s, NUL-terminated; free() it. */
static char *mtext(const struct model_set *s)
{
	size_t len;

	return model_text(s, &len);
}

void test_model(void)
{
	struct model_set ms, m0, mr, mo;
	int iter, bad = 0, errs[160] = { 0 };

	model_init(&ms);
	model_init(&m0);
	model_init(&mr);
	model_init(&mo);
	tap_section("SPEC §3.4/§5/§6/§8 differential model");
	for (iter = 0; iter < 20000; iter++) {
		struct pt_limits lim = { .max_tags = 3 + rnd(20),
					 .max_bytes = 10 + rnd(150) };
		struct model_limits mlim = { lim.max_tags, lim.max_bytes };
		struct model_writer mw = { &mr, &mo, false, false, false };
		struct pt_writer w = { 0 };
		struct pt_set *old, *rights, *opener;
		struct pt_result res;
		char *write = fmt("%s", ""), *otext, *rtext, *etext, *mt;
		int nl = 1 + (int)rnd(6), i, merr, err;
		size_t mline_no = 0, pos;

		rand_set(&m0, 12, false);
		rand_set(&mr, 8, true);
		rand_set(&mo, 8, true);
		mw.privileged = rnd(5) == 0;
		mw.self = rnd(2);
		mw.same_opener = rnd(3) != 0;
		for (i = 0; i < nl; i++) {
			char *l = rand_line(), *t = fmt("%s%s\n", write, l);

			free(write);
			free(l);
			write = t;
		}
		model_free(&ms);
		model_copy(&ms, &m0);
		merr = model_apply(&ms, write, strlen(write), &mw, &mlim,
				   &mline_no);
		otext = mtext(&m0);
		rtext = mtext(&mr);
		old = mk(otext);
		rights = mk(rtext);
		free(rtext);
		rtext = mtext(&mo);
		opener = mk(rtext);
		w.rights = rights;
		w.opener = opener;
		w.same_opener = mw.same_opener;
		w.self = mw.self;
		w.privileged = mw.privileged;
		err = pt_apply(old, write, strlen(write), &w, &lim, &res);
		etext = text_of(err || !res.changed ? old : res.set);
		mt = mtext(&ms);
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
	model_free(&ms);
	model_free(&m0);
	model_free(&mr);
	model_free(&mo);
}
