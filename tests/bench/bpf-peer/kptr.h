/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kptr peer of ptags (issue 24), for the benchmark: the design a BPF
 * engineer would build on a kernel with program-allocated objects
 * (bpf_obj_new, bpf_refcount, kptrs in task storage and in allocated
 * objects: 6.12 on, 7.2 the target).  Shared by kptr.bpf.c and
 * kptr-bench.c.
 *
 * A process's task storage (on its thread-group leader) holds two
 * referenced kptrs: its tag set and the set it keeps across exec.  A set
 * is one object the writer allocates with bpf_obj_new() (struct
 * kptr_set: the reference count, the record count and length, the
 * records), 4 KB at most (bpf_mem_alloc's largest), so KPTR_SET_BYTES of
 * records: those of the handle peer (struct peer_rec, name, value, 8-byte
 * aligned), 72 of the bench's tags (10-byte names, 32-byte values, 56
 * bytes a record).
 *
 * Why one object: a set of more (a head with kptrs to chunks) cannot be
 * dropped by tp_btf fork and exec programs.  7.2 refuses bpf_obj_drop() in
 * tracing programs (tp_btf included) "on types with NMI unsafe fields",
 * which a kptr field is; and a tp_btf program that stores a kptr with
 * bpf_kptr_xchg() must drop what that returns.  BPF LSM programs may:
 * kptr-lsm.bpf.o (KPTR_LSM, below) hooks fork and exec there and holds
 * sets of chunks, up to KPTR_BIG_BYTES (1377 of the bench's tags).
 *
 * Sets are immutable and shared: a fork takes a reference on each of its
 * parent's sets (bpf_refcount_acquire) and stores them in the child's
 * storage (bpf_kptr_xchg), an exec swaps the kept set in for the set, and
 * the kernel drops the references when it frees the task's storage with
 * the task (bpf_task_storage_free: bpf_obj_free_fields on each kptr, which
 * frees a set when its last reference goes).  No reaper,
 * no reference count array, no release program.
 *
 * The writer is a BPF_PROG_TYPE_SYSCALL program run with BPF_PROG_RUN:
 * user space puts the records of the set and of its kept subset in the
 * program's .bss (kptr_stage), runs kptr_write with the target's pid,
 * and the program builds both sets and swaps them into the target's
 * storage (creating it), dropping the old ones.  kptr_read copies the
 * sets of a pid back into .bss (kptr_out) for the checks; it takes its
 * own references as a fork does (the exchange way, kptr.bpf.c), so a
 * concurrent fork of that pid may briefly see no set.
 *
 * Three objects from kptr.bpf.c: kptr.bpf.o (tp_btf; a fork takes the
 * parent's references by exchange), kptr-direct.bpf.o (KPTR_DIRECT: by a
 * direct RCU load), kptr-lsm.bpf.o (KPTR_LSM and KPTR_DIRECT: BPF LSM
 * hooks, sets of chunks; needs "bpf" in the kernel's LSM list, which
 * Debian's 6.12 and 7.2 have).  Loads on 6.12 and 7.2; not on 6.1, which
 * has no bpf_obj_new and friends.
 */
#ifndef PTAGS_BPF_KPTR_H
#define PTAGS_BPF_KPTR_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define KPTR_SET_WORDS		507	/* 4056 bytes of records */
#define KPTR_SET_BYTES		(KPTR_SET_WORDS * 8)

/*
 * KPTR_LSM (kptr-lsm.bpf.o): the fork and exec programs are BPF LSM
 * programs (lsm/task_alloc, lsm/bprm_committed_creds), which may drop
 * objects with kptrs in them, so a set may be a head (struct kptr_set:
 * KPTR_HEAD_WORDS of records, kptrs to KPTR_CHUNKS chunks) whose chunks
 * (struct kptr_chunk) each hold KPTR_CHUNK_WORDS and a kptr to a leaf
 * (struct kptr_leaf) of as many: two levels, as 7.2 takes at most 11
 * special fields in a type (the refcount and 10 kptrs: -E2BIG) and
 * refuses a chunk type with a kptr to its own type (-ELOOP).
 */
#define KPTR_HEAD_WORDS		496	/* 3968 bytes in the head */
#define KPTR_CHUNK_WORDS	508	/* 4064 bytes in each chunk and leaf */
#define KPTR_CHUNKS		9
#define KPTR_PARTS		(2 * KPTR_CHUNKS)
#define KPTR_BIG_WORDS		(KPTR_HEAD_WORDS + KPTR_PARTS * KPTR_CHUNK_WORDS)
#define KPTR_BIG_BYTES		(KPTR_BIG_WORDS * 8)	/* 77120: 1377 tags */

/* Stamped on every object, for the counting of frees (kptr_drop). */
#define KPTR_MAGIC_SET		0x7465732d72747061ull
#define KPTR_MAGIC_CHUNK	0x6b6e632d72747061ull

/* The records of one set, as user space gives them and kptr_read returns. */
struct kptr_recs {
	__u32 ntags;
	__u32 len;		/* bytes of records, a multiple of 8 */
	__u64 w[KPTR_BIG_WORDS];	/* either object's */
};

/*
 * kptr_write's input.  kept_same: the kept set is the set (every tag
 * kept: one object, two references); otherwise kept.len 0 means nothing
 * is kept.  set.len 0 removes both.
 */
struct kptr_stage {
	__u32 kept_same;
	__u32 pad;
	struct kptr_recs set;
	struct kptr_recs kept;
};

/* kptr_read's output: what the pid's storage names. */
struct kptr_out {
	__u32 has_storage;
	__u32 same;		/* set and kept are one object */
	__u64 set_id, kept_id;	/* the writer's serial of each (0: none) */
	struct kptr_recs set;
	struct kptr_recs kept;
};

/* The programs' counters. */
struct kptr_stats {
	__u64 sets_made;	/* allocated by the writer */
	__u64 sets_freed;	/* seen by kptr_drop: last reference gone */
	__u64 chunks_made;	/* chunks and leaves (KPTR_LSM) */
	__u64 chunks_freed;
	__u64 forks;		/* tagged forks that copied */
	__u64 lost;		/* forks whose child got no storage */
	__u64 noref;		/* bpf_refcount_acquire() gave NULL */
	__u64 raced;		/* a slot changed under a fork or exec */
	__u64 execs;		/* execs that swapped */
	__u64 writes;
	__u64 nomem;		/* writes that could not allocate */
};

/* The syscall programs' context. */
struct kptr_args {
	__s32 pid;
	__s32 ret;
};

#endif /* PTAGS_BPF_KPTR_H */
