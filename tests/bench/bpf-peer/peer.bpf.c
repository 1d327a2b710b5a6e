// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF peer of ptags (peer.h): a handle per process in task storage,
 * naming shared, reference-counted, immutable tag sets.
 *
 * Fork: tp_btf/sched_process_fork, in the parent once the child is
 * complete and before it can run, for every clone; both tasks as BTF
 * pointers.  A raw tracepoint is a direct call behind a static key, where
 * fentry/wake_up_new_task would add a trampoline; ptags hooks the same
 * tracepoints.
 *
 * Processes, not threads: task storage belongs to a task, that is a
 * thread.  The handle lives on the thread-group leader only, which is the
 * task a process's pidfd names.  A new thread gets nothing (one compare);
 * a new process created by any thread copies its leader's handle and takes
 * a reference on each id.  Limitation: when a non-leader thread execs,
 * de_thread() makes it the leader and releases the old one, handle and
 * all: such an exec loses the tags (their references are dropped).
 *
 * Exec: tp_btf/sched_process_exec, after the point of no return, in the new
 * leader: mark the handle pruned, one store.  No BPF LSM needed.
 *
 * Release: tp_btf/sched_process_free, from delayed_put_task_struct(), an
 * RCU callback once the task is reaped: drop the handle's references.  Its
 * storage is freed with the task_struct (bpf_task_storage_free()).
 *
 * The writer races a fork: it may have the pidfd of a child whose fork
 * program has not run yet (the pid is visible from attach_pid() on), and
 * create the child's handle first.  It creates with BPF_NOEXIST and
 * replaces with BPF_EXIST (peer.c), so it never overwrites the fork's
 * handle unseen; the fork program, finding a handle that is not the one it
 * tried to create, drops the references it took for it (counted: raced).
 * The writer replaces a handle whole (a new storage element), so the one
 * the fork program created keeps the ids it wrote even once replaced.
 *
 * Limitation (Linux 6.1, up to 6.2's "bpf: Avoid taking spinlock in
 * bpf_task_storage_get if potential deadlock is detected"): every task
 * storage helper takes a per-CPU busy count, and gives up when it is
 * already taken on this CPU: bpf_task_storage_get() then returns NULL even
 * for a task that has a handle.  It is taken by the bpf(2) side of task
 * storage (the writer's and readers' lookups, updates and deletes) and by
 * bpf_task_storage_free(), with migration off but preemption on: a program
 * that runs on that CPU meanwhile, in an interrupt (sched_process_free runs
 * in an RCU callback, often in softirq) or, on a preemptible kernel, in a
 * task that preempted it, is refused.  Then a release leaks the handle's
 * references (its sets are never freed), a fork gives the child nothing,
 * an exec does not prune.  None of that can be retried from the program;
 * it is counted instead: after a NULL, bpf_task_storage_delete() on the
 * same task, of peer_probe, a task storage map that never holds anything,
 * returns -EBUSY for a busy count and -ENOENT otherwise (a delete of
 * peer_handles itself could remove a handle the writer created between the
 * two calls).  A lookup for a task without any task storage (its
 * bpf_storage NULL: every untagged process, the common case) loses nothing
 * and is not probed, so untagged forks, execs and exits pay no extra
 * helper; a refusal for a task with storage, or of a child's handle being
 * created, counts as busy.  Seen in a guest of 6.1 (BENCH_SMOKE_ONLY): 0 to
 * 8 per boot.  From 6.2 on, a lookup no longer fails that way and a delete
 * of nothing returns -ENOENT whatever the count, so the probe never fires
 * there; only the fork's creation can still be refused, and that counts as
 * lost.  The bench reports busy; lost and unref fail it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "peer.h"

char LICENSE[] SEC("license") = "GPL";

#define EBUSY	16	/* vmlinux.h has no errno values */

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct peer_handle);
} peer_handles SEC(".maps");

/* Never holds anything: see storage_busy(). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} peer_probe SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, PEER_SETS);
	__type(key, __u32);
	__type(value, struct peer_set);
} peer_sets SEC(".maps");

/* Only user space reads and writes the tags: one byte region. */
struct peer_page {
	__u8 bytes[4096];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, PEER_ARENA_BYTES / sizeof(struct peer_page));
	__type(key, __u32);
	__type(value, struct peer_page);
} peer_arena SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct peer_stats);
} peer_stats SEC(".maps");

static void count(__u64 *counter)
{
	__sync_fetch_and_add(counter, 1);
}

static struct peer_stats *stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&peer_stats, &zero);
}

static struct peer_set *set_of(__u32 id)
{
	__u32 i = PEER_SET_INDEX(id);

	return bpf_map_lookup_elem(&peer_sets, &i);
}

/* The caller's handle holds a reference to @id, so it cannot be freed. */
static void set_get(__u32 id)
{
	struct peer_set *s = set_of(id);

	if (s)
		__sync_fetch_and_add(&s->refs, 1);
}

static void set_put(__u32 id)
{
	struct peer_set *s = set_of(id);
	struct peer_stats *st = stats();

	if (!s) {
		if (st)
			count(&st->unref);
		return;
	}
	if (__sync_fetch_and_sub(&s->refs, 1) == 1 && st)
		count(&st->dead);
}

/*
 * After bpf_task_storage_get() gave NULL for @p: whether that was a refusal
 * of the busy task storage lock (Linux 6.1) that may have cost something,
 * counted in busy.  A task without task storage (most of them) had nothing
 * to lose and is not probed unless the caller wanted to create its storage
 * (@create).  The count is per CPU and whoever holds it on this CPU cannot
 * run before we return, so the delete sees what the get saw.
 */
static bool storage_busy(struct task_struct *p, bool create)
{
	struct peer_stats *st;

	if (!create && !p->bpf_storage)
		return false;
	if (bpf_task_storage_delete(&peer_probe, p) != -EBUSY)
		return false;
	st = stats();
	if (st)
		count(&st->busy);
	return true;
}

static void handle_get(__u32 set, __u32 exec)
{
	set_get(set);
	if (exec && exec != set)
		set_get(exec);
}

static void handle_put(__u32 set, __u32 exec)
{
	set_put(set);
	if (exec && exec != set)
		set_put(exec);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(peer_fork, struct task_struct *parent, struct task_struct *child)
{
	struct task_struct *leader = parent->group_leader;
	struct peer_handle *h, c;
	struct peer_stats *st;
	__u64 ids;
	__u32 set, exec;

	if (child->pid != child->tgid)
		return 0;	/* a thread: its leader holds the handle */
	h = bpf_task_storage_get(&peer_handles, leader, NULL, 0);
	if (!h) {
		storage_busy(leader, false);
		return 0;
	}
	ids = *(volatile __u64 *)&h->ids;
	/* An exec'ed parent's child has only the kept set. */
	set = PEER_HANDLE_TAGS(ids);
	exec = PEER_HANDLE_EXEC(ids);
	if (!set)
		return 0;
	handle_get(set, exec);
	c.ids = PEER_HANDLE(set, exec);
	h = bpf_task_storage_get(&peer_handles, child, &c,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	/*
	 * 6.1 looks up, then creates with BPF_NOEXIST: a writer's handle made
	 * in between fails the creation (-EEXIST, or -EAGAIN for the task's
	 * first storage), so look once more.
	 */
	if (!h)
		h = bpf_task_storage_get(&peer_handles, child, NULL, 0);
	/*
	 * Ours: only an exec changes a handle in place, and the child has not
	 * run yet.
	 */
	if (h && (*(volatile __u64 *)&h->ids & ~PEER_PRUNED) == c.ids)
		return 0;
	handle_put(set, exec);
	st = stats();
	if (h) {
		/* The writer's, made first: it holds its own references. */
		if (st)
			count(&st->raced);
		return 0;
	}
	if (!storage_busy(child, true) && st)
		count(&st->lost);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(peer_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	struct peer_handle *h;
	__u64 ids;

	h = bpf_task_storage_get(&peer_handles, p, NULL, 0);
	if (!h) {
		storage_busy(p, false);
		return 0;
	}
	ids = *(volatile __u64 *)&h->ids;
	if (!(ids & PEER_PRUNED) && PEER_HANDLE_SET(ids) != PEER_HANDLE_EXEC(ids))
		*(volatile __u64 *)&h->ids = ids | PEER_PRUNED;
	return 0;
}

SEC("tp_btf/sched_process_free")
int BPF_PROG(peer_free, struct task_struct *p)
{
	struct peer_handle *h;
	__u64 ids;

	h = bpf_task_storage_get(&peer_handles, p, NULL, 0);
	if (!h) {
		storage_busy(p, false);	/* its references leak */
		return 0;
	}
	ids = *(volatile __u64 *)&h->ids;
	handle_put(PEER_HANDLE_SET(ids), PEER_HANDLE_EXEC(ids));
	return 0;
}
