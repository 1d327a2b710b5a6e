// SPDX-License-Identifier: GPL-2.0
/*
 * The kptr peer of ptags (kptr.h): task storage holding referenced kptrs
 * to program-allocated, reference-counted, immutable tag sets.
 *
 * Fork: tp_btf/sched_process_fork, as the handle peer (peer.bpf.c): the
 * child of a process (not a thread) gets a new reference to each of its
 * parent leader's sets.  KPTR_DIRECT (kptr-direct.bpf.o) takes it from a
 * direct load of the parent's kptr (an RCU pointer: a refcounted local
 * type), which leaves the parent's slot alone; without it, the program
 * takes the parent's reference out with bpf_kptr_xchg(), acquires a
 * second one and puts the first back, and if a writer stored a newer set
 * meanwhile, that one goes back instead (counted: raced).  Between the two
 * exchanges a reader of the parent sees no set.
 *
 * Exec: tp_btf/sched_process_exec: the kept set (a new reference) replaces
 * the set, whose reference is dropped.
 *
 * KPTR_LSM: the same in lsm/task_alloc (in copy_process(), the child not
 * yet visible; CLONE_THREAD tells a thread) and lsm/bprm_committed_creds,
 * which may drop sets that hold kptrs to chunks (kptr.h).
 *
 * Release: none.  The task's storage is freed with it, and its kptrs
 * with it: the kernel drops each reference, and frees a set when that
 * was the last.
 *
 * kptr_drop (fentry on __bpf_obj_drop_impl, the kernel's drop of an
 * allocated object) counts the frees of our objects for the leak checks:
 * it sees the storage's drops; whether it sees the programs' own
 * bpf_obj_drop() depends on the compiler's inlining in the kernel, so the
 * programs count their last drops of a set too (drop_set()) and
 * kptr-bench.c finds out which of the two counts it must add.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "kptr.h"

char LICENSE[] SEC("license") = "GPL";

#define ENOMEM	12
#define ESRCH	3
#define E2BIG	7

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void *bpf_refcount_acquire_impl(void *kptr, void *meta) __ksym;
extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

#define obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define obj_drop(p) bpf_obj_drop_impl(p, NULL)
#define refcount_acquire(p) \
	((typeof(p))bpf_refcount_acquire_impl(p, NULL))

#ifndef KPTR_LSM
/* One set (kptr.h): no kptr in it, so that tracing programs may drop it. */
struct kptr_set {
	struct bpf_refcount ref;	/* first: kptr_drop reads it at 0 */
	__u32 ntags;
	__u64 magic;
	__u64 id;
	__u32 len;
	__u32 pad;
	__u64 w[KPTR_SET_WORDS];
};
#define SET_BYTES	KPTR_SET_BYTES
#else
/* A head, chunks and leaves (kptr.h). */
struct kptr_leaf {
	__u64 index;
	__u64 magic;			/* at 8, as in a set */
	__u64 w[KPTR_CHUNK_WORDS];
};

struct kptr_chunk {
	__u64 index;
	__u64 magic;
	struct kptr_leaf __kptr *leaf;
	__u64 w[KPTR_CHUNK_WORDS];
};

struct kptr_set {
	struct bpf_refcount ref;
	__u32 ntags;
	__u64 magic;
	__u64 id;
	__u32 len;
	__u32 nparts;
	struct kptr_chunk __kptr *c[KPTR_CHUNKS];
	__u64 w[KPTR_HEAD_WORDS];
};
#define SET_BYTES	KPTR_BIG_BYTES
#endif

/* What a process's task storage holds. */
struct kptr_slot {
	struct kptr_set __kptr *set;
	struct kptr_set __kptr *kept;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct kptr_slot);
} kptr_slots SEC(".maps");

struct kptr_stage stage;
struct kptr_out out;
struct kptr_stats stats;
__u64 serial;
__u64 sets_freed_prog;	/* last references dropped by the programs */

static __always_inline void count(__u64 *c)
{
	__sync_fetch_and_add(c, 1);
}

/* Drop a reference to @s, counting it when it was the last. */
static __always_inline void drop_set(struct kptr_set *s)
{
	__u32 refs = 0;

	bpf_probe_read_kernel(&refs, sizeof(refs), s);
	if (refs == 1)
		count(&sets_freed_prog);
	obj_drop(s);
}

/*
 * A new reference to the set in @field (of a task's slot), left there:
 * taken out, acquired, put back.  For any program.
 */
static __always_inline struct kptr_set *ref_xchg(struct kptr_set __kptr **field)
{
	struct kptr_set *s, *r, *c;

	s = bpf_kptr_xchg(field, NULL);
	if (!s)
		return NULL;
	c = refcount_acquire(s);
	if (!c)
		count(&stats.noref);
	r = bpf_kptr_xchg(field, s);
	if (r) {
		/* A writer's set came in meanwhile: it stays. */
		count(&stats.raced);
		s = bpf_kptr_xchg(field, r);
		if (s)
			drop_set(s);
	}
	return c;
}

#ifdef KPTR_DIRECT
/* The same from a direct load, in an RCU read section (tp_btf). */
static __always_inline struct kptr_set *ref_of(struct kptr_set __kptr **field)
{
	struct kptr_set *s = *field, *c;

	if (!s)
		return NULL;
	c = refcount_acquire(s);
	if (!c)
		count(&stats.noref);
	return c;
}
#else
#define ref_of ref_xchg
#endif

static __always_inline void put_in(struct kptr_set __kptr **field,
				   struct kptr_set *s)
{
	struct kptr_set *old = bpf_kptr_xchg(field, s);

	if (old)
		drop_set(old);
}

#ifndef KPTR_LSM
SEC("tp_btf/sched_process_fork")
int BPF_PROG(kptr_fork, struct task_struct *parent, struct task_struct *child)
{
	struct kptr_slot *h, *c;
	struct kptr_set *s, *k;

	if (child->pid != child->tgid)
		return 0;	/* a thread: its leader holds the slot */
	h = bpf_task_storage_get(&kptr_slots, parent->group_leader, NULL, 0);
#else
#define CLONE_THREAD	0x00010000
/*
 * In copy_process(), before the child is visible; a fork that fails later
 * frees the child's storage with it.  May fail the fork: never does.
 */
SEC("lsm/task_alloc")
int BPF_PROG(kptr_fork, struct task_struct *child, unsigned long clone_flags)
{
	struct task_struct *parent = bpf_get_current_task_btf();
	struct kptr_slot *h, *c;
	struct kptr_set *s, *k;

	if (clone_flags & CLONE_THREAD)
		return 0;	/* a thread: its leader holds the slot */
	h = bpf_task_storage_get(&kptr_slots, parent->group_leader, NULL, 0);
#endif
	if (!h || (!h->set && !h->kept))
		return 0;
	c = bpf_task_storage_get(&kptr_slots, child, NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c) {
		count(&stats.lost);
		return 0;
	}
	s = ref_of(&h->set);
	k = ref_of(&h->kept);
	put_in(&c->set, s);
	put_in(&c->kept, k);
	count(&stats.forks);
	return 0;
}

#ifndef KPTR_LSM
SEC("tp_btf/sched_process_exec")
int BPF_PROG(kptr_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	struct kptr_slot *h;

#else
/* After the point of no return, in the new image (the leader by then). */
SEC("lsm/bprm_committed_creds")
int BPF_PROG(kptr_exec, const struct linux_binprm *bprm)
{
	struct task_struct *p = bpf_get_current_task_btf();
	struct kptr_slot *h;

#endif
	h = bpf_task_storage_get(&kptr_slots, p, NULL, 0);
	if (!h || h->set == h->kept)
		return 0;	/* nothing to prune */
	put_in(&h->set, ref_of(&h->kept));
	count(&stats.execs);
	return 0;
}

SEC("fentry/__bpf_obj_drop_impl")
int BPF_PROG(kptr_drop, void *p, const struct btf_record *rec, bool percpu)
{
	__u64 hdr[2] = {};

	if (bpf_probe_read_kernel(hdr, sizeof(hdr), p))
		return 0;
	if (hdr[1] == KPTR_MAGIC_SET && (__u32)hdr[0] == 1)
		count(&stats.sets_freed);
	else if (hdr[1] == KPTR_MAGIC_CHUNK)
		count(&stats.chunks_freed);
	return 0;
}

#ifndef KPTR_LSM
/*
 * Word copies at constant offsets (an allocated object's fields take no
 * variable offset), in subprograms.
 */
static __noinline void fill(struct kptr_set *s, const __u64 *src)
{
	int i;

#pragma clang loop unroll(full)
	for (i = 0; i < KPTR_SET_WORDS; i++)
		s->w[i] = src[i];
}

static __noinline void copy_words(__u64 *dst, const struct kptr_set *s)
{
	int i;

#pragma clang loop unroll(full)
	for (i = 0; i < KPTR_SET_WORDS; i++)
		dst[i] = s->w[i];
}

/*
 * A new set holding @r's records, or NULL for none (*@err 0) or when out
 * of memory (*@err -ENOMEM).
 */
static __always_inline struct kptr_set *build(struct kptr_recs *r, int *err)
{
	__u32 len = r->len;
	struct kptr_set *s;

	*err = 0;
	if (!len)
		return NULL;
	if (len > SET_BYTES || len & 7) {
		*err = -E2BIG;
		return NULL;
	}
	s = obj_new(struct kptr_set);
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	count(&stats.sets_made);
	s->magic = KPTR_MAGIC_SET;
	s->id = __sync_add_and_fetch(&serial, 1);
	s->ntags = r->ntags;
	s->len = len;
	fill(s, r->w);
	return s;
}

#else
/*
 * Word copies at constant offsets (an allocated object's fields take no
 * variable offset), in subprograms: unrolled inline, the programs' jumps
 * would not fit in 16 bits.
 */
static __noinline void fill_chunk(struct kptr_chunk *c, const __u64 *src)
{
	int i;

#pragma clang loop unroll(full)
	for (i = 0; i < KPTR_CHUNK_WORDS; i++)
		c->w[i] = src[i];
}

static __noinline void fill_leaf(struct kptr_leaf *l, const __u64 *src)
{
	int i;

#pragma clang loop unroll(full)
	for (i = 0; i < KPTR_CHUNK_WORDS; i++)
		l->w[i] = src[i];
}

static __noinline void fill_head(struct kptr_set *s, const __u64 *src)
{
	int i;

#pragma clang loop unroll(full)
	for (i = 0; i < KPTR_HEAD_WORDS; i++)
		s->w[i] = src[i];
}

static __noinline void head_out(__u64 *dst, const struct kptr_set *s)
{
	int i;

#pragma clang loop unroll(full)
	for (i = 0; i < KPTR_HEAD_WORDS; i++)
		dst[i] = s->w[i];
}

/*
 * A new set holding @r's records, or NULL for none (*@err 0) or when out
 * of memory (*@err -ENOMEM).  Unrolled: a kptr's offset must be constant.
 */
static __always_inline struct kptr_set *build(struct kptr_recs *r, int *err)
{
	__u32 len = r->len, words, nparts = 0;
	struct kptr_chunk *c, *oldc;
	struct kptr_leaf *l, *oldl;
	struct kptr_set *s;
	int j;

	*err = 0;
	if (!len)
		return NULL;
	if (len > SET_BYTES || len & 7) {
		*err = -E2BIG;
		return NULL;
	}
	words = len / 8;
	if (words > KPTR_HEAD_WORDS)
		nparts = (words - KPTR_HEAD_WORDS + KPTR_CHUNK_WORDS - 1) /
			 KPTR_CHUNK_WORDS;
	s = obj_new(struct kptr_set);
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	count(&stats.sets_made);
	s->magic = KPTR_MAGIC_SET;
	s->id = __sync_add_and_fetch(&serial, 1);
	s->ntags = r->ntags;
	s->len = len;
	s->nparts = nparts;
	fill_head(s, r->w);
#pragma clang loop unroll(full)
	for (j = 0; j < KPTR_CHUNKS; j++) {
		if (2 * j >= nparts)
			break;
		c = obj_new(struct kptr_chunk);
		if (!c)
			goto nomem;
		count(&stats.chunks_made);
		c->index = 2 * j;
		c->magic = KPTR_MAGIC_CHUNK;
		fill_chunk(c, &r->w[KPTR_HEAD_WORDS + 2 * j * KPTR_CHUNK_WORDS]);
		if (2 * j + 1 < nparts) {
			l = obj_new(struct kptr_leaf);
			if (!l) {
				obj_drop(c);
				goto nomem;
			}
			count(&stats.chunks_made);
			l->index = 2 * j + 1;
			l->magic = KPTR_MAGIC_CHUNK;
			fill_leaf(l, &r->w[KPTR_HEAD_WORDS +
					   (2 * j + 1) * KPTR_CHUNK_WORDS]);
			oldl = bpf_kptr_xchg(&c->leaf, l);
			if (oldl)
				obj_drop(oldl);
		}
		oldc = bpf_kptr_xchg(&s->c[j], c);
		if (oldc)
			obj_drop(oldc);
	}
	return s;
nomem:
	drop_set(s);	/* and the chunks made */
	*err = -ENOMEM;
	return NULL;
}

#endif

SEC("syscall")
int kptr_write(struct kptr_args *a)
{
	struct kptr_set *s, *k = NULL;
	struct task_struct *t;
	struct kptr_slot *h;
	int err;

	count(&stats.writes);
	t = bpf_task_from_pid(a->pid);
	if (!t) {
		a->ret = -ESRCH;
		return 0;
	}
	h = bpf_task_storage_get(&kptr_slots, t, NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!h) {
		a->ret = -ENOMEM;
		goto out;
	}
	s = build(&stage.set, &err);
	if (err)
		goto fail;
	if (stage.kept_same) {
		if (s) {
			k = refcount_acquire(s);
			if (!k) {
				drop_set(s);
				err = -ENOMEM;
				goto fail;
			}
		}
	} else {
		k = build(&stage.kept, &err);
		if (err) {
			if (s)
				drop_set(s);
			goto fail;
		}
	}
	put_in(&h->set, s);
	put_in(&h->kept, k);
	a->ret = 0;
	goto out;
fail:
	if (err == -ENOMEM)
		count(&stats.nomem);
	a->ret = err;
out:
	bpf_task_release(t);
	return 0;
}

#ifndef KPTR_LSM
/* Copy @s's records to @r (nothing for no set); its writer's serial. */
static __always_inline __u64 copy_out(struct kptr_set *s, struct kptr_recs *r)
{
	r->ntags = 0;
	r->len = 0;
	if (!s)
		return 0;
	r->ntags = s->ntags;
	r->len = s->len;
	copy_words(r->w, s);
	return s->id;
}

#else
/* Copy @s's records to @r (nothing for no set); its writer's serial. */
static __always_inline __u64 copy_out(struct kptr_set *s, struct kptr_recs *r)
{
	struct kptr_chunk *c;
	struct kptr_leaf *l;
	int j;

	r->ntags = 0;
	r->len = 0;
	if (!s)
		return 0;
	r->ntags = s->ntags;
	r->len = s->len;
	head_out(r->w, s);
	/*
	 * A kptr in an allocated object takes no direct load ("direct access
	 * to kptr is disallowed"), and an exchange would change a shared
	 * set: the chunks are read with bpf_probe_read_kernel(), kept alive
	 * by our reference to the head, which owns them.
	 */
#pragma clang loop unroll(full)
	for (j = 0; j < KPTR_CHUNKS; j++) {
		c = NULL;
		l = NULL;
		bpf_probe_read_kernel(&c, sizeof(c), &s->c[j]);
		if (!c)
			break;
		bpf_probe_read_kernel(&r->w[KPTR_HEAD_WORDS + 2 * j * KPTR_CHUNK_WORDS],
				      KPTR_CHUNK_WORDS * 8, c->w);
		bpf_probe_read_kernel(&l, sizeof(l), &c->leaf);
		if (!l)
			break;
		bpf_probe_read_kernel(&r->w[KPTR_HEAD_WORDS + (2 * j + 1) * KPTR_CHUNK_WORDS],
				      KPTR_CHUNK_WORDS * 8, l->w);
	}
	return s->id;
}

#endif

SEC("syscall")
int kptr_read(struct kptr_args *a)
{
	struct kptr_set *s, *k;
	struct task_struct *t;
	struct kptr_slot *h;

	t = bpf_task_from_pid(a->pid);
	if (!t) {
		a->ret = -ESRCH;
		return 0;
	}
	a->ret = 0;
	out.has_storage = 0;
	out.same = 0;
	out.set_id = 0;
	out.kept_id = 0;
	out.set.len = 0;
	out.kept.len = 0;
	h = bpf_task_storage_get(&kptr_slots, t, NULL, 0);
	if (h) {
		out.has_storage = 1;
		s = ref_xchg(&h->set);
		k = ref_xchg(&h->kept);
		out.set_id = copy_out(s, &out.set);
		out.kept_id = copy_out(k, &out.kept);
		out.same = s && s == k;
		if (s)
			drop_set(s);
		if (k)
			drop_set(k);
	}
	bpf_task_release(t);
	return 0;
}
