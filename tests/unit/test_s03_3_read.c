// SPDX-License-Identifier: GPL-2.0
/* SPEC §3.3: the text of a tag set, sorting, rendering windows, lookup. */
#include <stdio.h>
#include <stdlib.h>

#include "tutil.h"

/* Text of @in (any order) equals @want. */
static void text_is(const char *name, const char *in, const char *want)
{
	struct pt_set *s = mk(in);
	char *got = text_of(s);
	bool good = !strcmp(got, want) &&
		    pt_set_text_size(s) == strlen(want);

	if (!good)
		diag("got \"%s\"", got);
	free(got);
	pt_set_put(s);
	ok(good && no_leak(), "%s", name);
}

/* Every window [off, off + len) of the text of @s equals the full text's. */
static void windows(const char *name, const char *in)
{
	struct pt_set *s = mk(in);
	char *full = text_of(s);
	size_t n = strlen(full), off, len, bad = 0;
	char *buf = malloc(n + 8);

	for (off = 0; off <= n + 2; off++) {
		for (len = 0; len <= n + 2; len++) {
			size_t want = off >= n ? 0 :
				      (len < n - off ? len : n - off);
			size_t got;

			memset(buf, '#', n + 8);
			got = pt_set_render(s, off, buf, len);
			if (got != want || (want && memcmp(buf, full + off,
							   want)) ||
			    buf[got] != '#')
				bad++;
		}
	}
	if (bad)
		diag("%zu bad windows", bad);
	free(buf);
	free(full);
	pt_set_put(s);
	ok(!bad && no_leak(), "%s", name);
}

void test_s03_3_read(void)
{
	struct pt_set *s;
	char c = 'x';
	size_t i;
	bool good;

	tap_section("SPEC §3.3 reading");
	ok(pt_set_text_size(NULL) == 0 && pt_set_render(NULL, 0, &c, 1) == 0
	   && c == 'x', "SPEC §3.3: the empty set (NULL) renders nothing");
	text_is("SPEC §3.3: the example of the SPEC",
		"c-tag=value-of-c-tag\n@b-tag\na-tag\n",
		"a-tag\n@b-tag\nc-tag=value-of-c-tag\n");
	text_is("SPEC §3.3: a prefix sorts first, then memcmp byte order",
		"ab\na:b\na b\na\nB\n", "B\na\na b\na:b\nab\n");
	text_is("SPEC §3.3: the @ does not take part in sorting",
		"@c\nb\n@a\n", "@a\nb\n@c\n");
	text_is("SPEC §3.3: bytes above 0x7f sort after ASCII (unsigned)",
		"\xc3\xa9\nz\n~\n", "z\n~\n\xc3\xa9\n");
	text_is("SPEC §3.3: a tag without value has no '='", "a\n", "a\n");
	text_is("SPEC §3.3: keep flag and value together", "@a=1 2\n",
		"@a=1 2\n");

	windows("SPEC §3.3: every window of a mixed text equals the full text",
		"a-tag\n@b-tag\nc-tag=value-of-c-tag\n@d=\xe2\x82\xac\ne\n");
	windows("SPEC §3.3: every window of a one-tag text", "@k=v\n");
	windows("SPEC §3.3: every window of the empty text", "");

	/* A large set rendered in chunks of 7 bytes. */
	{
		char *in = NULL, *full, *chunks;
		size_t n, off = 0, got;

		for (i = 0; i < 300; i++) {
			char *t = fmt("%s%s%03zu%s\n", in ? in : "",
				      i % 3 ? "" : "@", i,
				      i % 2 ? "=val" : "");

			free(in);
			in = t;
		}
		s = mk(in);
		full = text_of(s);
		n = strlen(full);
		chunks = malloc(n + 1);
		while ((got = pt_set_render(s, off, chunks + off,
					    n - off < 7 ? n - off : 7)))
			off += got;
		chunks[off] = 0;
		ok(off == n && !strcmp(chunks, full) &&
		   pt_set_text_size(s) == n,
		   "SPEC §3.3: 300 tags read 7 bytes at a time equal the full text");
		ok(pt_set_render(s, n, chunks, 7) == 0 &&
		   pt_set_render(s, n + 100, chunks, 7) == 0,
		   "SPEC §3.3: reading at or past the end returns 0");
		free(in);
		free(full);
		free(chunks);
		pt_set_put(s);
		ok(no_leak(), "SPEC §3.3: no leak after rendering");
	}

	/* Lookup by binary search. */
	{
		char *in = NULL;

		for (i = 0; i < 1000; i += 2) {
			char *t = fmt("%sk%04zu\n", in ? in : "", i);

			free(in);
			in = t;
		}
		s = mk(in);
		good = s && s->count == 500;
		for (i = 0; i < 1000 && good; i++) {
			char name[8];
			const struct pt_tag *t;

			snprintf(name, sizeof(name), "k%04zu", i);
			t = pt_set_find(s, name, 5);
			if (i % 2)
				good = !t;
			else
				good = t && t->name_len == 5 &&
				       !memcmp(t->name, name, 5);
		}
		good = good && !pt_set_find(s, "k", 1) &&
		       !pt_set_find(s, "k00000", 6) &&
		       !pt_set_find(s, "", 0) && !pt_set_find(NULL, "k", 1);
		ok(good, "SPEC §3.3: pt_set_find finds every present name and no absent one");
		free(in);
		pt_set_put(s);
		ok(no_leak(), "SPEC §3.3: no leak after lookups");
	}

	/* Reference counting. */
	s = mk("a\n");
	good = pt_set_get(s) == s && s->head.ref == 2;
	pt_set_put(s);
	good = good && s->head.ref == 1 && shim_live_sets() == 1;
	pt_set_put(s);
	pt_set_put(NULL);
	good = good && pt_set_get(NULL) == NULL;
	ok(good && no_leak(),
	   "SPEC §3.3: sets are reference counted; get/put(NULL) are no-ops");
}
