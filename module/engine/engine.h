/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ptags tag engine: the write protocol, permissions and
 * immutable tag sets.  Plain C: it includes no kernel header itself and is
 * compiled both into ptags.ko and into the user-space tests and fuzzers.
 * engine_shim.h supplies allocation, reference counting and statistics.
 */
#ifndef PTAGS_ENGINE_H
#define PTAGS_ENGINE_H

#include "engine_shim.h"
#include "valid.h"		/* SPEC §4, shared with libptags */

/*
 * One tag.  @name and @value point into the blob of the set that holds the
 * tag; they are not NUL-terminated.  @value is NULL when the tag has no value.
 * @memo is scratch space of pt_apply() (the writer's rights over this tag,
 * computed once per write); it is 0 in a set.
 */
struct pt_tag {
	const char *name;
	const char *value;
	uint32_t name_len;
	uint32_t value_len;
	bool keep;
	uint8_t memo;
};

/*
 * An immutable tag set.  Once built it never changes; it is shared by
 * reference (fork shares, a write builds and publishes a new one).
 *
 * @exec is the set a process holds after execve when the set mixes kept and
 * unkept tags; it is built with the set so that exec never allocates.  Use
 * pt_set_exec() rather than reading it directly.
 */
struct pt_set {
	struct pt_shim_head head;	/* reference count (and rcu_head) */
	uint32_t count;			/* number of tags */
	uint32_t nkept;			/* tags with the keep flag */
	uint64_t bytes;			/* bytes of names and values */
	uint64_t alloc_size;		/* bytes of this allocation */
	struct pt_set *exec;		/* only when 0 < nkept < count */
	struct pt_tag tags[];		/* sorted by name, memcmp order */
};

/*
 * SPEC §3.4: pt_apply() calls pt_shim_yield() at least once per this many
 * units of work, a unit being a line or a tag that a line looks at.
 */
#define PT_YIELD_WORK	256

/* Run-time limits (module parameters max_tags and max_bytes). */
struct pt_limits {
	uint32_t max_tags;
	uint64_t max_bytes;
};

/*
 * Who writes, and with which rights (SPEC §5).
 *
 * @rights:	the writer's own tag set when the write started (NULL: none)
 * @opener:	the opener's tag set when it opened the file (NULL: none);
 *		used only when !@same_opener (SPEC §5.5)
 * @same_opener: the writer is the process that opened the file
 * @self:	the writer acts on its own tag set (SPEC §5.2 vs §5.3)
 * @privileged:	CAP_MAC_ADMIN in the level's user namespace (the initial
 *		one at level 0) for both the writer and the opener; being a
 *		kernel thread grants nothing by itself (SPEC §5.4, §12)
 */
struct pt_writer {
	const struct pt_set *rights;
	const struct pt_set *opener;
	bool same_opener;
	bool self;
	bool privileged;
};

/*
 * Result of pt_apply().
 *
 * @set:	when @changed, the new set (reference count 1), or NULL when
 *		the new set is empty
 * @changed:	the transaction changes the tag set
 * @line:	on failure, the 1-based number of the line that failed
 *		(0 when the whole write was refused, e.g. missing newline)
 */
struct pt_result {
	struct pt_set *set;
	bool changed;
	size_t line;
};

/* Reference counting.  pt_set_put(NULL) and pt_set_get(NULL) are no-ops. */
struct pt_set *pt_set_get(struct pt_set *s);
void pt_set_put(struct pt_set *s);
/* Frees the memory of a released set; called by the shim. */
void pt_set_destroy(struct pt_set *s);

/*
 * The set a process holds after a successful execve (SPEC §9): @s itself
 * when every tag is kept, NULL when none is, otherwise @s->exec.  Never
 * allocates; the caller takes its own reference on the result.
 */
struct pt_set *pt_set_exec(struct pt_set *s);

/* Exact lookup by name; NULL when absent or when @s is NULL. */
const struct pt_tag *pt_set_find(const struct pt_set *s, const char *name,
				 size_t len);

/*
 * A new set holding the permission tags ("ptags:...") of @s, or NULL in
 * *@out when there are none.  Returns 0 or -ENOMEM.
 */
int pt_set_rights(const struct pt_set *s, struct pt_set **out);

/*
 * SPEC §3.3: the text of @s.  pt_set_text_size() is the total length;
 * pt_set_render() copies up to @len bytes starting at offset @off into @buf
 * and returns the number copied (0 at or past the end).
 */
uint64_t pt_set_text_size(const struct pt_set *s);
size_t pt_set_render(const struct pt_set *s, uint64_t off, char *buf,
		     size_t len);

/*
 * SPEC §3.4, §5, §6: apply one write(2) buffer to @old (NULL: empty set) as
 * one transaction.  Returns 0 and fills @res, or a negative errno:
 * -EINVAL, -EPERM, -ENOENT, -ECANCELED, -ENOMEM, or -EINTR when
 * pt_shim_yield() asked to stop.  On failure nothing is allocated and
 * @res->line names the failing line (the one being applied for -EINTR).
 * The max_write check (E2BIG) belongs to the caller, before the buffer is
 * copied in.
 */
int pt_apply(const struct pt_set *old, const char *buf, size_t len,
	     const struct pt_writer *w, const struct pt_limits *lim,
	     struct pt_result *res);

/*
 * SPEC §3.2: the @n pids of @a (in any order, clobbered) as a listing
 * shows them, ascending and each once, in @out (room for @n, not
 * overlapping @a).  Returns how many.  Linear in @n (a byte-wise radix sort), with no call per
 * comparison: a listing costs what it lists.
 */
size_t pt_pids_sort_unique(uint32_t *a, uint32_t *out, size_t n);

#endif /* PTAGS_ENGINE_H */
