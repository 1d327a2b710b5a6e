/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF peer of ptags, for the benchmark: the design a BPF engineer
 * would build instead of ptags on a stock kernel (>= 5.11 for task
 * storage; bpf_loop and atomics with fetch, 5.17).  Shared by the BPF
 * programs (peer.bpf.c, which includes vmlinux.h first) and user space
 * (peer.c, the bench, peer-smoke.c).
 *
 * A process holds a handle, 8 bytes of task storage on its thread-group
 * leader: the id of its tag set and the id of the set it keeps across
 * exec.  Sets are immutable, reference counted and shared: a fork copies
 * the handle and takes a reference on each id, an exec swaps in the kept
 * set, the release of a task drops its references.  None of them touches
 * a tag, so their cost does not depend on how many there are.
 *
 *   peer_sets	 an mmapable array: per set id, its reference count, a
 *		 generation, and where its tags are in peer_arena
 *   peer_arena	 an mmapable array used as one byte region: the tags of
 *		 every set, packed (struct peer_rec, then name, then value)
 *   peer_handles task storage: struct peer_handle of a process
 *   peer_stats	 counters the programs keep (lost copies, dead sets,
 *		 refusals of a busy task storage lock)
 *
 * The writer (a daemon holding the map descriptors: the loader's user)
 * builds the new set and its kept subset in the arena, points the
 * target's handle at them and drops the old references; a set whose count
 * reaches 0 is freed by the writer's reaper after an RCU grace period
 * (membarrier(MEMBARRIER_CMD_GLOBAL)), which every program that may still
 * take a reference to it has left by then.  Readers map the two arrays and
 * copy a set out after one bpf(2) call that fetches the handle, checking
 * the set's generation before and after the copy.
 */
#ifndef PTAGS_BPF_PEER_H
#define PTAGS_BPF_PEER_H

#ifndef __VMLINUX_H__
#include <stddef.h>
#include <linux/types.h>
#endif

/*
 * Set ids: the low PEER_SET_BITS index peer_sets, the bits above them up
 * to bit 30 a generation; never 0.
 */
#define PEER_SET_BITS	14
#define PEER_ID_MASK	0x7fffffffu
#define PEER_SETS	(1u << PEER_SET_BITS)	/* index 0 is "no set" */
#define PEER_SET_INDEX(id)	((id) & (PEER_SETS - 1))

/* The tag bytes of every live set together. */
#define PEER_ARENA_BYTES	(16u << 20)

struct peer_set {
	__u64 refs;		/* handles that name it, plus the writer's */
	__u32 id;		/* the live id at this index; 0 while free */
	__u32 gen;		/* the generation of the last id here */
	__u32 off;		/* its records in the arena */
	__u32 len;
	__u32 ntags;
	__u32 pad;
};

/*
 * What task storage holds: the set in the low 32 bits, the kept set (0:
 * none kept) in the high ones, and PEER_PRUNED once the process exec'ed
 * (its tags are then the kept set's); one 64-bit word, so that programs and
 * the writer's lookups see it whole.  A handle holds one reference on each
 * of its ids (one when they are equal) until the task is released or the
 * writer replaces it, pruned or not: only the writer and the release drop
 * references, which keeps the counts exact while the writer replaces a
 * handle that an exec marks at the same time.
 */
struct peer_handle {
	__u64 ids;
};

#define PEER_PRUNED		(1ull << 63)
#define PEER_HANDLE(set, exec)	((__u64)(exec) << 32 | (set))
#define PEER_HANDLE_SET(h)	((__u32)(h))
#define PEER_HANDLE_EXEC(h)	((__u32)((h) >> 32) & PEER_ID_MASK)
/* The set whose tags the process has. */
#define PEER_HANDLE_TAGS(h)	((h) & PEER_PRUNED ? PEER_HANDLE_EXEC(h) : \
				 PEER_HANDLE_SET(h))

/*
 * The programs' counters, and one of the writer's (peer.c).  busy: a
 * program found the task storage lock of its CPU taken (Linux 6.1: a
 * lookup then fails even where a handle exists; peer.bpf.c) for a task with
 * task storage, and so may have lost a fork's copy, an exec's pruning or a
 * release's references.  raced: a fork
 * found its child's handle already made by the writer, which had the new
 * child's pidfd, and dropped the references it had taken for it.
 */
struct peer_stats {
	__u64 lost;		/* forks whose child could not get a handle */
	__u64 dead;		/* references dropped to 0 by the programs */
	__u64 unref;		/* references a program could not drop */
	__u64 busy;		/* refusals that may have lost something */
	__u64 raced;		/* forks that found the child's handle made */
	__u64 retried;		/* the writer's: updates retried (EEXIST...) */
};

/* One tag in a set: this header, the name, the value, 8-byte aligned. */
struct peer_rec {
	__u16 name_len;
	__u16 value_len;
	__u16 keep;		/* survives exec */
	__u16 pad;
};

#ifndef __bpf__
#include <stdbool.h>
#include <sys/types.h>

struct peer_tag {
	const char *name;
	const void *value;
	size_t name_len, value_len;
	bool keep;
};

/*
 * The loader.  Every function returns 0 or a negative errno; none of them
 * may be called before bpf_peer_load() or bpf_peer_spawn() succeeded (they
 * return -ENODEV).
 *
 * bpf_peer_load()	load the programs (CO-RE against the running
 *			kernel's BTF), attach them and map the arrays; needs
 *			CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN
 * bpf_peer_spawn()	the same in a child process that it forks: the child
 *			loads and attaches, hands the maps over (SCM_RIGHTS)
 *			and holds the programs until bpf_peer_unload().  What
 *			libbpf allocates (the kernel's BTF for CO-RE, several
 *			MB) is the child's, so the caller's memory stays as
 *			it was, which the benchmark needs: a fork costs more
 *			the more the parent has resident
 * bpf_peer_loader()	the pid of that child (0 after bpf_peer_load())
 * bpf_peer_write()	give the process @pidfd refers to exactly @n tags
 *			(n 0 removes its handle); -ENOSPC when no set id or
 *			arena room is left after reaping.  Creates a handle
 *			with BPF_NOEXIST, replaces one with BPF_EXIST, and
 *			looks again when a fork changed that meanwhile
 * bpf_peer_read()	copy that process's packed records (struct
 *			peer_rec ...) into @buf; their length, 0 untagged;
 *			-ERANGE when @size is too small; -EAGAIN when the
 *			writer replaced them during every one of 16 tries
 * bpf_peer_next()	the tag at *@off of what bpf_peer_read() gave, and
 *			*@off moved past it; false at the end
 * bpf_peer_reap()	free the sets nothing refers to (the writer calls it
 *			when it runs out); how many it freed
 * bpf_peer_stats()	the programs' counters, this writer's retried, and
 *			the sets and arena bytes in use
 * bpf_peer_unload()	detach and free everything, every task's handle
 *			included (the kernel frees them with the map); after
 *			bpf_peer_spawn(), close the maps and the socket, and
 *			reap the child, which unloads
 */
int bpf_peer_load(void);
int bpf_peer_spawn(void);
pid_t bpf_peer_loader(void);
int bpf_peer_write(int pidfd, const struct peer_tag *tags, unsigned int n);
ssize_t bpf_peer_read(int pidfd, void *buf, size_t size);
bool bpf_peer_next(const void *buf, size_t len, size_t *off,
		   struct peer_tag *tag);
int bpf_peer_reap(void);
int bpf_peer_stats(struct peer_stats *st, unsigned int *sets,
		   size_t *arena_bytes);
void bpf_peer_unload(void);
#endif

#endif /* PTAGS_BPF_PEER_H */
