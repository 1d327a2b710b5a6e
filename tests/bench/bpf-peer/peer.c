// SPDX-License-Identifier: GPL-2.0
/*
 * User space of the BPF peer (peer.h): loader, writer with its reaper,
 * reader.  One writer process at a time (the daemon that holds the maps);
 * any number of readers.
 *
 * bpf_peer_spawn() loads in a child process, which hands the maps over:
 * the caller then only makes bpf(2) calls (libbpf's bpf_map_*_elem() fill
 * a union bpf_attr on the stack: nothing allocated) and touches the two
 * arrays it maps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "peer.h"
#include "peer.skel.h"

enum { FD_HANDLES, FD_SETS, FD_ARENA, FD_STATS, NR_FDS };

static struct peer_bpf *skel;
static int fds[NR_FDS] = { -1, -1, -1, -1 };
static struct peer_set *sets;
static unsigned char *arena;
static struct peer_stats *pstats;
static bool mapped_here;	/* the three are mapped in this process */

/* bpf_peer_spawn(): the loader child and our end of its socket. */
static pid_t loader;
static int loader_sock = -1;

#define SETS_BYTES	(PEER_SETS * sizeof(struct peer_set))
#define STATS_BYTES	4096

/*
 * The writer's arena allocator: power-of-two chunks of 64 bytes up to the
 * whole arena, a free list per size (its links in the free chunks), and
 * the never used rest.
 */
#define CHUNK_MIN_SHIFT	6
#define NR_CLASSES	(24 - CHUNK_MIN_SHIFT + 1)
#define NO_CHUNK	0xffffffffu

static __u32 free_chunk[NR_CLASSES];
static __u32 arena_top, arena_used;
/* Free set indexes, a stack. */
static __u32 free_set[PEER_SETS], nfree_set;
static __u64 dead_seen, dead_here;	/* sets dead: reaped, by the writer */
static __u64 retried;		/* handle updates tried again */

static void writer_reset(void)
{
	int i;

	for (i = 0; i < NR_CLASSES; i++)
		free_chunk[i] = NO_CHUNK;
	arena_top = arena_used = 0;
	dead_seen = dead_here = retried = 0;
	for (nfree_set = 0; nfree_set < PEER_SETS - 1; nfree_set++)
		free_set[nfree_set] = PEER_SETS - 1 - nfree_set;
}

static int size_class(size_t len)
{
	int c = 0;

	while (((size_t)1 << (c + CHUNK_MIN_SHIFT)) < len)
		c++;
	return c;
}

static int chunk_alloc(size_t len, __u32 *off)
{
	int c = size_class(len);
	__u32 size = 1u << (c + CHUNK_MIN_SHIFT);

	if (c >= NR_CLASSES)
		return -E2BIG;
	if (free_chunk[c] != NO_CHUNK) {
		*off = free_chunk[c];
		memcpy(&free_chunk[c], arena + *off, sizeof(__u32));
	} else if (PEER_ARENA_BYTES - arena_top >= size) {
		*off = arena_top;
		arena_top += size;
	} else {
		return -ENOSPC;
	}
	arena_used += size;
	return 0;
}

static void chunk_free(__u32 off, size_t len)
{
	int c = size_class(len);

	memcpy(arena + off, &free_chunk[c], sizeof(__u32));
	free_chunk[c] = off;
	arena_used -= 1u << (c + CHUNK_MIN_SHIFT);
}

/* What this process mapped (mapped() forgets a parent's first). */
static void unmap_all(void)
{
	if (sets)
		munmap(sets, SETS_BYTES);
	if (arena)
		munmap(arena, PEER_ARENA_BYTES);
	if (pstats)
		munmap(pstats, STATS_BYTES);
	sets = NULL;
	arena = NULL;
	pstats = NULL;
	mapped_here = false;
}

/*
 * The arrays are mapped MADV_DONTFORK: a BPF array's mapping is
 * VM_MIXEDMAP, whose page table entries fork() would copy one by one (16
 * MiB of arena made every fork of the bench 1.9 ms dearer).  A child maps
 * them again on first use (mapped_here, cleared in every child by an
 * atfork handler: a store, where a getpid() per call would be a syscall).
 */
static void forked(void)
{
	mapped_here = false;
}

static void *map_one(size_t len, int prot, int fd)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (madvise(p, len, MADV_DONTFORK)) {
		munmap(p, len);
		return NULL;
	}
	return p;
}

static bool atfork_set;

static int map_arrays(void)
{
	sets = map_one(SETS_BYTES, PROT_READ | PROT_WRITE, fds[FD_SETS]);
	arena = map_one(PEER_ARENA_BYTES, PROT_READ | PROT_WRITE, fds[FD_ARENA]);
	pstats = map_one(STATS_BYTES, PROT_READ, fds[FD_STATS]);
	if (!sets || !arena || !pstats) {
		int err = -errno;

		unmap_all();
		return err;
	}
	if (!atfork_set && pthread_atfork(NULL, NULL, forked)) {
		unmap_all();
		return -ENOMEM;
	}
	atfork_set = true;
	mapped_here = true;
	return 0;
}

static int map_all(void)
{
	int err = map_arrays();

	if (!err)
		writer_reset();
	return err;
}

/* 0 when the arrays are mapped in this process (again after a fork). */
static int mapped(void)
{
	if (fds[FD_SETS] < 0)
		return -ENODEV;
	if (mapped_here)
		return 0;
	/* Not ours: what the parent mapped is not in this process. */
	sets = NULL;
	arena = NULL;
	pstats = NULL;
	return map_arrays();
}

int bpf_peer_load(void)
{
	int err;

	if (skel || loader)
		return -EALREADY;
	skel = peer_bpf__open_and_load();
	if (!skel)
		return -errno ?: -EINVAL;
	err = peer_bpf__attach(skel);
	if (!err) {
		fds[FD_HANDLES] = bpf_map__fd(skel->maps.peer_handles);
		fds[FD_SETS] = bpf_map__fd(skel->maps.peer_sets);
		fds[FD_ARENA] = bpf_map__fd(skel->maps.peer_arena);
		fds[FD_STATS] = bpf_map__fd(skel->maps.peer_stats);
		err = map_all();
	}
	if (err) {
		/* Closed with the skeleton: they may name someone else's soon. */
		for (int i = 0; i < NR_FDS; i++)
			fds[i] = -1;
		peer_bpf__destroy(skel);
		skel = NULL;
	}
	return err;
}

/* One int, and the NR_FDS maps with it when @with_fds. */
static int send_fds(int sock, int val, bool with_fds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(fds))];
	} u;
	struct iovec iov = { .iov_base = &val, .iov_len = sizeof(val) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (with_fds) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(fds));
		memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	}
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) != sizeof(val))
		return -EIO;
	return 0;
}

/* What send_fds() sent, the maps into fds[] (-EIO without them). */
static int recv_fds(int sock, int *val)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(fds))];
	} u;
	struct iovec iov = { .iov_base = val, .iov_len = sizeof(*val) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;

	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != sizeof(*val))
		return -EIO;
	cm = CMSG_FIRSTHDR(&mh);
	if (cm && cm->cmsg_level == SOL_SOCKET &&
	    cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(fds)) &&
	    !(mh.msg_flags & MSG_CTRUNC)) {
		memcpy(fds, CMSG_DATA(cm), sizeof(fds));
		return 0;
	}
	return *val ?: -EIO;
}

/*
 * The loader child: load, send the result and the maps, then hold the
 * programs until the other end is closed; unload then.
 */
static void __attribute__((noreturn)) loader_main(int sock)
{
	int err = bpf_peer_load();
	char c;

	if (send_fds(sock, err, !err) || err)
		_exit(1);
	while (read(sock, &c, 1) == 1)
		;
	bpf_peer_unload();
	_exit(0);
}

static void close_fds(void)
{
	int i;

	for (i = 0; i < NR_FDS; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

int bpf_peer_spawn(void)
{
	int sv[2], err, val = 0;
	pid_t pid;

	if (skel || loader)
		return -EALREADY;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (!pid) {
		close(sv[0]);
		loader_main(sv[1]);
	}
	close(sv[1]);
	err = recv_fds(sv[0], &val);
	if (!err)
		err = map_all();
	if (err) {
		close_fds();
		close(sv[0]);
		waitpid(pid, NULL, 0);
		return err;
	}
	loader = pid;
	loader_sock = sv[0];
	return 0;
}

pid_t bpf_peer_loader(void)
{
	return loader;
}

void bpf_peer_unload(void)
{
	if (mapped_here)
		unmap_all();
	if (loader) {
		/* Our map references first, then the loader's links. */
		close_fds();
		close(loader_sock);
		waitpid(loader, NULL, 0);
		loader = 0;
		loader_sock = -1;
	} else if (skel) {
		peer_bpf__destroy(skel);
		skel = NULL;
		for (int i = 0; i < NR_FDS; i++)
			fds[i] = -1;
	}
}

static size_t rec_size(size_t name_len, size_t value_len)
{
	return (sizeof(struct peer_rec) + name_len + value_len + 7) & ~(size_t)7;
}

/* Drop one reference the writer held or took over from a handle. */
static void set_put(__u32 id)
{
	struct peer_set *s = &sets[PEER_SET_INDEX(id)];

	if (__atomic_fetch_sub(&s->refs, 1, __ATOMIC_ACQ_REL) == 1)
		dead_here++;
}

int bpf_peer_reap(void)
{
	__u64 dead;
	__u32 i;
	int n = 0;

	n = mapped();
	if (n)
		return n;
	dead = __atomic_load_n(&pstats->dead, __ATOMIC_ACQUIRE) + dead_here;
	if (dead == dead_seen)
		return 0;
	/*
	 * A program that read a handle naming a set may still take a
	 * reference to it: each runs under rcu_read_lock() with preemption
	 * off, so after a grace period a count of 0 stays 0.
	 */
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return -errno;
	for (i = 1; i < PEER_SETS; i++) {
		struct peer_set *s = &sets[i];

		if (!s->id || __atomic_load_n(&s->refs, __ATOMIC_ACQUIRE))
			continue;
		/*
		 * Readers check the id after copying: clear it before the
		 * slot and its chunk are reused (chunk_free() writes the
		 * chunk at once, set_new() the slot and a chunk).  The fence
		 * orders the clear before those later stores; it pairs with
		 * the acquire fence in bpf_peer_read() between its copy and
		 * its second look at the id: a reader that copied anything
		 * stored after this fence sees the id changed.
		 */
		__atomic_store_n(&s->id, 0, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		chunk_free(s->off, s->len);
		free_set[nfree_set++] = i;
		n++;
	}
	dead_seen = dead;
	return n;
}

/* A new set of the tags of @t (the kept ones only when @kept) in *@id. */
static int set_new(const struct peer_tag *t, unsigned int n, bool kept,
		   __u32 *id)
{
	size_t len = 0, r;
	unsigned int i, k = 0;
	struct peer_set *s;
	struct peer_rec rec;
	__u32 off, gen;
	int err;

	for (i = 0; i < n; i++)
		if (!kept || t[i].keep) {
			if (t[i].name_len > 0xffff || t[i].value_len > 0xffff)
				return -EINVAL;
			len += rec_size(t[i].name_len, t[i].value_len);
		}
	if (!nfree_set)
		return -ENOSPC;
	err = chunk_alloc(len ?: 1, &off);
	if (err)
		return err;
	s = &sets[free_set[--nfree_set]];
	for (i = 0, r = off; i < n; i++) {
		if (kept && !t[i].keep)
			continue;
		rec.name_len = t[i].name_len;
		rec.value_len = t[i].value_len;
		rec.keep = t[i].keep;
		rec.pad = 0;
		memcpy(arena + r, &rec, sizeof(rec));
		memcpy(arena + r + sizeof(rec), t[i].name, t[i].name_len);
		memcpy(arena + r + sizeof(rec) + t[i].name_len, t[i].value,
		       t[i].value_len);
		r += rec_size(t[i].name_len, t[i].value_len);
		k++;
	}
	/* The next generation at this index; never 0 (the index is not). */
	gen = (s->gen + 1) & (PEER_ID_MASK >> PEER_SET_BITS);
	s->gen = gen;
	s->off = off;
	s->len = len;
	s->ntags = k;
	__atomic_store_n(&s->refs, 1, __ATOMIC_RELAXED);
	*id = gen << PEER_SET_BITS | (__u32)(s - sets);
	__atomic_store_n(&s->id, *id, __ATOMIC_RELEASE);
	return 0;
}

static int set_new_reaping(const struct peer_tag *t, unsigned int n,
			   bool kept, __u32 *id)
{
	int err = set_new(t, n, kept, id);

	if (err == -ENOSPC && bpf_peer_reap() > 0)
		err = set_new(t, n, kept, id);
	return err;
}

static void handle_put(__u64 h)
{
	__u32 set = PEER_HANDLE_SET(h), exec = PEER_HANDLE_EXEC(h);

	set_put(set);
	if (exec && exec != set)
		set_put(exec);
}

/* Whether @pidfd's process has a handle, in *@old; -errno on error. */
static int handle_lookup(int pidfd, struct peer_handle *old)
{
	if (!bpf_map_lookup_elem(fds[FD_HANDLES], &pidfd, old))
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

/*
 * Whether an update of a handle that @had one (BPF_EXIST) or had none
 * (BPF_NOEXIST) that failed with @err may succeed if tried again after a
 * new lookup: a fork created the handle since ours (-EEXIST; -EAGAIN when
 * the fork and we both made the task's first storage and it won), or it
 * went away (-ENOENT; -EAGAIN while its storage is being freed).  -ENOENT
 * for a handle it did not have is the process gone.
 */
static bool update_raced(bool had, int err)
{
	return err == -EAGAIN || err == (had ? -ENOENT : -EEXIST);
}

#define WRITE_TRIES	8

int bpf_peer_write(int pidfd, const struct peer_tag *t, unsigned int n)
{
	struct peer_handle h, old = { 0 };
	unsigned int i, kept = 0;
	__u32 set, exec = 0;
	int err, tries;
	bool had;

	err = mapped();
	if (err)
		return err;
	err = handle_lookup(pidfd, &old);
	if (err < 0)
		return err;
	had = err;
	if (!n) {
		if (!had)
			return 0;
		if (bpf_map_delete_elem(fds[FD_HANDLES], &pidfd))
			return errno == ENOENT ? 0 : -errno;
		handle_put(old.ids);
		return 0;
	}
	for (i = 0; i < n; i++)
		kept += t[i].keep;
	err = set_new_reaping(t, n, false, &set);
	if (err)
		return err;
	if (kept == n) {
		exec = set;
	} else if (kept) {
		err = set_new_reaping(t, n, true, &exec);
		if (err) {
			set_put(set);
			return err;
		}
	}
	h.ids = PEER_HANDLE(set, exec);
	/*
	 * What we looked up is what we replace: only this writer replaces
	 * handles, a fork creates the child's, an exec marks one in place.
	 * But a fork may create the handle of a child whose pidfd we have
	 * between our lookup and our update: never BPF_ANY, which would
	 * overwrite it and lose its references.
	 */
	for (tries = 1;; tries++) {
		if (!bpf_map_update_elem(fds[FD_HANDLES], &pidfd, &h,
					 had ? BPF_EXIST : BPF_NOEXIST)) {
			if (had)
				handle_put(old.ids);
			return 0;
		}
		err = -errno;
		if (tries == WRITE_TRIES || !update_raced(had, err))
			break;
		retried++;
		err = handle_lookup(pidfd, &old);
		if (err < 0)
			break;
		had = err;
	}
	handle_put(h.ids);
	return err;
}

/* Whether set @s still has @id after what the caller read of it. */
static bool set_still(struct peer_set *s, __u32 id)
{
	/* Pairs with the release fence of bpf_peer_reap(). */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&s->id, __ATOMIC_RELAXED) == id;
}

ssize_t bpf_peer_read(int pidfd, void *buf, size_t size)
{
	struct peer_handle h;
	struct peer_set *s;
	__u32 id, off, len;
	int tries, err;

	err = mapped();
	if (err)
		return err;
	for (tries = 0; tries < 16; tries++) {
		if (bpf_map_lookup_elem(fds[FD_HANDLES], &pidfd, &h))
			return errno == ENOENT ? 0 : -errno;
		id = PEER_HANDLE_TAGS(h.ids);
		if (!id)
			return 0;
		s = &sets[PEER_SET_INDEX(id)];
		if (__atomic_load_n(&s->id, __ATOMIC_ACQUIRE) != id)
			continue;	/* replaced since: look again */
		/*
		 * The writer may reuse the slot from here on: read where the
		 * records are once, never copy from outside the arena, and
		 * believe nothing read (a length too large included) unless
		 * the id is still the same afterwards.
		 */
		off = __atomic_load_n(&s->off, __ATOMIC_RELAXED);
		len = __atomic_load_n(&s->len, __ATOMIC_RELAXED);
		if (off > PEER_ARENA_BYTES || len > PEER_ARENA_BYTES - off)
			continue;	/* torn: the slot is being reused */
		if (len > size) {
			if (set_still(s, id))
				return -ERANGE;
			continue;
		}
		memcpy(buf, arena + off, len);
		if (set_still(s, id))
			return len;
	}
	return -EAGAIN;
}

bool bpf_peer_next(const void *buf, size_t len, size_t *off,
		   struct peer_tag *tag)
{
	const unsigned char *p = buf;
	struct peer_rec rec;

	if (*off + sizeof(rec) > len)
		return false;
	memcpy(&rec, p + *off, sizeof(rec));
	if (*off + rec_size(rec.name_len, rec.value_len) > len)
		return false;
	tag->name = (const char *)p + *off + sizeof(rec);
	tag->name_len = rec.name_len;
	tag->value = p + *off + sizeof(rec) + rec.name_len;
	tag->value_len = rec.value_len;
	tag->keep = rec.keep;
	*off += rec_size(rec.name_len, rec.value_len);
	return true;
}

int bpf_peer_stats(struct peer_stats *st, unsigned int *nsets,
		   size_t *arena_bytes)
{
	__u32 i;
	int err = mapped();

	if (err)
		return err;
	st->lost = __atomic_load_n(&pstats->lost, __ATOMIC_RELAXED);
	st->dead = __atomic_load_n(&pstats->dead, __ATOMIC_RELAXED);
	st->unref = __atomic_load_n(&pstats->unref, __ATOMIC_RELAXED);
	st->busy = __atomic_load_n(&pstats->busy, __ATOMIC_RELAXED);
	st->raced = __atomic_load_n(&pstats->raced, __ATOMIC_RELAXED);
	st->retried = retried;
	*nsets = 0;
	for (i = 1; i < PEER_SETS; i++)
		*nsets += !!sets[i].id;
	*arena_bytes = arena_used;
	return 0;
}
