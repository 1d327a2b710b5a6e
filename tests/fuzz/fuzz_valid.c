// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the SPEC §4 validity functions of the engine
 * (pt_utf8_valid, pt_name_valid, pt_value_valid, pt_pattern_valid) against
 * the model's (tests/unit/model.c) on arbitrary bytes.
 *
 * Byte 0 picks the shape of the string: the rest of the input as is, or
 * repeated to a length next to a limit of §4 (4000 for names and pattern
 * prefixes, 32700 for values), so that the bounds are reached.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "model.h"

#define die(...)							\
	do {								\
		fprintf(stderr, "fuzz_valid: " __VA_ARGS__);		\
		fputc('\n', stderr);					\
		abort();						\
	} while (0)

static void compare(const char *s, size_t len)
{
	bool eg = false, mg = false;
	size_t ep = 0, mp = 0;
	bool e, m;

	e = pt_utf8_valid(s, len);
	m = model_utf8(s, len);
	if (e != m)
		die("pt_utf8_valid %d, model %d (length %zu)", e, m, len);
	e = pt_name_valid(s, len);
	m = model_name(s, len);
	if (e != m)
		die("pt_name_valid %d, model %d (length %zu)", e, m, len);
	e = pt_value_valid(s, len);
	m = model_value(s, len);
	if (e != m)
		die("pt_value_valid %d, model %d (length %zu)", e, m, len);
	e = pt_pattern_valid(s, len, &eg, &ep);
	m = model_pattern(s, len, &mg, &mp);
	if (e != m)
		die("pt_pattern_valid %d, model %d (length %zu)", e, m, len);
	if (e && (eg != mg || (eg && ep != mp)))
		die("pattern: engine global %d prefix %zu, model %d %zu", eg,
		    ep, mg, mp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t limits[] = { 4000, 4001, 4002, 32700, 32701 };
	size_t len, i, n;
	char *buf;

	if (size < 1)
		return 0;
	n = size - 1;
	if (data[0] < 0xf0 || n == 0) {
		/* As is, in its own allocation so ASan sees overreads. */
		buf = malloc(n ? n : 1);
		if (!buf)
			die("out of memory");
		memcpy(buf, data + 1, n);
		compare(buf, n);
		free(buf);
		return 0;
	}
	/* Repeat the rest to a limit, -3..+3, then keep its tail intact. */
	len = limits[data[0] % 5] + (data[0] >> 1) % 7 - 3;
	buf = malloc(len);
	if (!buf)
		die("out of memory");
	for (i = 0; i < len; i++)
		buf[i] = (char)data[1 + i % n];
	if (n <= len)
		memcpy(buf + len - n, data + 1, n);
	compare(buf, len);
	free(buf);
	return 0;
}
