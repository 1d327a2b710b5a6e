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
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "peer.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct peer_handle);
} peer_handles SEC(".maps");

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
			__sync_fetch_and_add(&st->unref, 1);
		return;
	}
	if (__sync_fetch_and_sub(&s->refs, 1) == 1 && st)
		__sync_fetch_and_add(&st->dead, 1);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(peer_fork, struct task_struct *parent, struct task_struct *child)
{
	struct peer_handle *h, c;
	struct peer_stats *st;
	__u64 ids;
	__u32 set, exec;

	if (child->pid != child->tgid)
		return 0;	/* a thread: its leader holds the handle */
	h = bpf_task_storage_get(&peer_handles, parent->group_leader, NULL, 0);
	if (!h)
		return 0;
	ids = *(volatile __u64 *)&h->ids;
	/* An exec'ed parent's child has only the kept set. */
	set = PEER_HANDLE_TAGS(ids);
	exec = PEER_HANDLE_EXEC(ids);
	if (!set)
		return 0;
	set_get(set);
	if (exec && exec != set)
		set_get(exec);
	c.ids = PEER_HANDLE(set, exec);
	if (bpf_task_storage_get(&peer_handles, child, &c,
				 BPF_LOCAL_STORAGE_GET_F_CREATE))
		return 0;
	set_put(set);
	if (exec && exec != set)
		set_put(exec);
	st = stats();
	if (st)
		__sync_fetch_and_add(&st->lost, 1);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(peer_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	struct peer_handle *h;
	__u64 ids;

	h = bpf_task_storage_get(&peer_handles, p, NULL, 0);
	if (!h)
		return 0;
	ids = *(volatile __u64 *)&h->ids;
	if (!(ids & PEER_PRUNED) && PEER_HANDLE_SET(ids) != PEER_HANDLE_EXEC(ids))
		*(volatile __u64 *)&h->ids = ids | PEER_PRUNED;
	return 0;
}

SEC("tp_btf/sched_process_free")
int BPF_PROG(peer_free, struct task_struct *p)
{
	struct peer_handle *h;
	__u32 set, exec;
	__u64 ids;

	h = bpf_task_storage_get(&peer_handles, p, NULL, 0);
	if (!h)
		return 0;
	ids = *(volatile __u64 *)&h->ids;
	set = PEER_HANDLE_SET(ids);
	exec = PEER_HANDLE_EXEC(ids);
	set_put(set);
	if (exec && exec != set)
		set_put(exec);
	return 0;
}
