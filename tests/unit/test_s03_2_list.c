// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.2: a listing's pids are ascending and each appears once
 * (pt_pids_sort_unique(), what the module's listing uses), against qsort.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tutil.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* A small, seeded generator: the same lists on every run. */
static uint32_t rnd(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 32;
}

/* @n values below @range (0: any 32-bit value), sorted both ways. */
static void sorted(size_t n, uint32_t range, uint64_t seed)
{
	uint32_t *a = malloc((n + 1) * sizeof(*a));
	uint32_t *out = malloc((n + 1) * sizeof(*a));
	uint32_t *want = malloc((n + 1) * sizeof(*a));
	size_t i, j = 0, got;
	bool good;

	for (i = 0; i < n; i++) {
		a[i] = rnd(&seed);
		if (range)
			a[i] %= range;
		want[i] = a[i];
	}
	qsort(want, n, sizeof(*want), cmp_u32);
	for (i = 0; i < n; i++)
		if (!j || want[j - 1] != want[i])
			want[j++] = want[i];
	got = pt_pids_sort_unique(a, out, n);
	good = got == j && !memcmp(out, want, j * sizeof(*want));
	if (!good)
		diag("got %zu values, want %zu", got, j);
	if (range)
		ok(good, "%zu pids below %u: ascending, each once", n, range);
	else
		ok(good, "%zu 32-bit values: ascending, each once", n);
	free(a);
	free(out);
	free(want);
}

void test_s03_2_list(void)
{
	static const size_t sizes[] = { 0, 1, 2, 31, 32, 33, 257, 1000,
					100000 };
	uint32_t desc[64], out[64];
	size_t i, n;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		sorted(sizes[i], 4194304, i + 1);	/* pid_max's limit */
		sorted(sizes[i], 0, i + 100);		/* every byte varies */
		sorted(sizes[i], sizes[i] / 4 + 1, i + 200); /* duplicates */
	}
	/* Descending, all equal: the worst orders of the small sort. */
	for (i = 0; i < 64; i++)
		desc[i] = 64 - i;
	n = pt_pids_sort_unique(desc, out, 64);
	ok(n == 64 && out[0] == 1 && out[63] == 64, "64 descending pids");
	for (i = 0; i < 64; i++)
		desc[i] = 7;
	n = pt_pids_sort_unique(desc, out, 64);
	ok(n == 1 && out[0] == 7, "64 equal pids: one");
}
