/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF peer of ptags, for the benchmark: what a user would write instead
 * of ptags on a stock kernel (>= 5.11, BPF_MAP_TYPE_TASK_STORAGE).  One tag
 * blob per process, copied to the child at fork, stripped of its unkept tags
 * at exec, freed with the task.  This header is shared by the BPF programs
 * (peer.bpf.c, which includes vmlinux.h first) and by user space (peer.c,
 * the bench, peer-smoke.c).
 */
#ifndef PTAGS_BPF_PEER_H
#define PTAGS_BPF_PEER_H

#ifndef __VMLINUX_H__
#include <stddef.h>
#include <linux/types.h>
#endif

#define PEER_VALUE_SIZE	32

/*
 * The local-storage value-size limit: a task-storage map refuses (E2BIG) a
 * value_size above BPF_LOCAL_STORAGE_MAX_VALUE_SIZE, that is
 * U16_MAX - sizeof(struct bpf_local_storage_elem), the element size being a
 * u16.  The element header is 128 bytes (its data starts a second 64-byte
 * cache line) in Debian's 6.1, 6.12 and 7.2 amd64 kernels (their BTF):
 * 65407 bytes.
 *
 * What it forced: one blob holds at most 1981 tags of 32-byte values (a
 * 33rd byte per tag is the keep flag, the header 8 bytes), and, the value
 * size being fixed, every copy at fork moves the whole 64 KiB, whatever
 * the count: the kernel copies value_size bytes when it creates storage
 * from an initial value.
 *
 * Allocation is a second limit.  6.1 kzalloc()s the element (GFP_ATOMIC
 * from the fork program, an order-4 page allocation for 64 KiB); 6.12
 * takes it from a bpf_mem_alloc cache of that size.  7.2 (no per-map
 * allocator choice left in its BTF, bpf_map_kmalloc_nolock() present) and
 * mainline allocate task-storage elements with kmalloc_nolock(),
 * which returns NULL above KMALLOC_MAX_CACHE_SIZE (8 KiB, of which the
 * header takes 72 bytes): there every create fails with ENOMEM unless the
 * blob is built with PEER_MAX_TAGS=245 (an 8096-byte value).
 */
#define PEER_VALUE_MAX	65407
#ifndef PEER_MAX_TAGS
#define PEER_MAX_TAGS	1981
#endif

/* 8-byte aligned: the exec program moves a value as four 64-bit words. */
struct peer_value {
	__u8 bytes[PEER_VALUE_SIZE];
} __attribute__((aligned(8)));

/*
 * Tags 0..count-1 are in use.  keep[i] (0 or 1) says whether tag i
 * survives exec; nkept is how many of them do, kept up to date by the
 * writer (bpf_peer_write() checks it), so that exec does nothing when every
 * tag is kept and only deletes the storage when none is.  Exec moves the
 * kept tags down in order, so the survivors keep their relative order.
 */
struct peer_blob {
	__u32 count;
	__u32 nkept;
	__u8 keep[PEER_MAX_TAGS];
	struct peer_value value[PEER_MAX_TAGS];
};

_Static_assert(sizeof(struct peer_blob) <= PEER_VALUE_MAX,
	       "peer_blob exceeds the local-storage value-size limit");

#ifndef __bpf__
#include <sys/types.h>

/*
 * The loader.  Every function returns 0 or a negative errno; none of them
 * may be called before bpf_peer_load() or bpf_peer_spawn() succeeded (they
 * return -ENODEV).
 *
 * bpf_peer_load()	load the programs (CO-RE against the running
 *			kernel's BTF) and attach them; needs CAP_BPF and
 *			CAP_PERFMON, or CAP_SYS_ADMIN
 * bpf_peer_spawn()	the same in a child process that it forks: the child
 *			loads and attaches, hands the map over (SCM_RIGHTS)
 *			and holds the programs until bpf_peer_unload().  What
 *			libbpf allocates (the kernel's BTF for CO-RE, several
 *			MB) is the child's, so the caller's memory stays as
 *			it was, which the benchmark needs: a fork costs more
 *			the more the parent has resident.  The caller then
 *			reads and writes with bpf(2) calls that allocate
 *			nothing
 * bpf_peer_loader()	the pid of that child (0 after bpf_peer_load())
 * bpf_peer_write()	replace the blob of the process @pidfd refers to
 *			(a pidfd from pidfd_open(2) or clone(CLONE_PIDFD)); a
 *			blob with count 0 deletes the storage
 * bpf_peer_read()	copy that process's blob into @b (count 0 if it has
 *			none)
 * bpf_peer_lost()	how many forks of a tagged parent could not give
 *			the child its copy (allocation failure in the fork
 *			program): those children are untagged
 * bpf_peer_unload()	detach and free everything, every task's blob
 *			included (the kernel frees them with the map); after
 *			bpf_peer_spawn(), close the map and the socket, and
 *			reap the child, which unloads
 */
int bpf_peer_load(void);
int bpf_peer_spawn(void);
pid_t bpf_peer_loader(void);
int bpf_peer_write(int pidfd, const struct peer_blob *b);
int bpf_peer_read(int pidfd, struct peer_blob *b);
long bpf_peer_lost(void);
void bpf_peer_unload(void);

/* Blob building: empty @b, then append one tag (-E2BIG when full). */
void bpf_peer_blob_init(struct peer_blob *b);
int bpf_peer_blob_add(struct peer_blob *b, const void *value, size_t len,
		      int keep);
#endif

#endif /* PTAGS_BPF_PEER_H */
