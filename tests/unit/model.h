/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference model of SPEC §3.3-§6 and §8 (limits), written from the SPEC
 * text alone and deliberately naive: tags in an unsorted array, linear
 * search, every string copied.  It shares no code with module/engine/engine.c, not
 * even the §4 validity functions, so that the unit test (test_model.c) and
 * the fuzzers (tests/fuzz/) can hold the engine against it.
 *
 * Every function takes arbitrary bytes (NUL included) with a length.
 */
#ifndef PTAGS_MODEL_H
#define PTAGS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct model_tag {
	char *name;
	size_t name_len;
	char *value;		/* NULL: no value */
	size_t value_len;
	bool keep;
};

struct model_set {
	struct model_tag *tags;	/* in no particular order */
	size_t count;
	size_t cap;
};

/* Who writes (SPEC §5); the sets may be NULL (no tags). */
struct model_writer {
	const struct model_set *rights;	/* the writer's set at write start */
	const struct model_set *opener;	/* the opener's set at open */
	bool same_opener;		/* §5.5 */
	bool self;			/* §5.2 vs §5.3 */
	bool privileged;		/* §5.4, for writer and opener */
};

struct model_limits {
	uint64_t max_tags;
	uint64_t max_bytes;
};

/* SPEC §4. */
bool model_utf8(const char *s, size_t len);
bool model_name(const char *s, size_t len);
bool model_value(const char *s, size_t len);
/* *@global and *@prefix_len as pt_pattern_valid() defines them. */
bool model_pattern(const char *s, size_t len, bool *global,
		   size_t *prefix_len);

/* Sets.  model_free() leaves an empty set that may be reused. */
void model_init(struct model_set *s);
void model_free(struct model_set *s);
void model_copy(struct model_set *dst, const struct model_set *src);
/*
 * Add NAME (no check of any kind) with an optional value; returns false
 * when the name is already there.
 */
bool model_put(struct model_set *s, const char *name, size_t name_len,
	       const char *value, size_t value_len, bool has_value, bool keep);
uint64_t model_bytes(const struct model_set *s);

/* SPEC §3.3: the text of @s in malloc()ed memory; its length in *@len. */
char *model_text(const struct model_set *s, size_t *len);

/*
 * SPEC §3.4: apply one write of @len bytes to @s.  Returns 0 or a positive
 * errno; on failure @s is unchanged and *@line is the failing line (1-based;
 * 0 when the whole write is refused).
 */
int model_apply(struct model_set *s, const char *buf, size_t len,
		const struct model_writer *w, const struct model_limits *lim,
		size_t *line);

#endif /* PTAGS_MODEL_H */
