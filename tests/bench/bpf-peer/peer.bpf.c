// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF peer of ptags: one tag blob (peer.h) per process in task storage,
 * with ptags's life cycle.
 *
 * Fork: tp_btf/sched_process_fork.  It runs in the parent once the child is
 * complete and before it can run, for every clone, and hands both tasks over
 * as BTF pointers (trusted, on kernels that track trust).  fentry/wake_up_new_task would see the same
 * event, but only the child (the parent is current), and costs a
 * trampoline (register save and restore, migrate_disable/enable) where the
 * raw tracepoint is a direct call behind a static key: on 6.1 the
 * tracepoint is the one with fewer instructions, and it cannot be lost to
 * inlining.  ptags hooks the same tracepoints.
 *
 * Processes, not threads: task storage belongs to a task, that is a
 * thread.  The blob lives on the thread-group leader only, which is the task
 * a process's pidfd names, so user space reads and writes it there.  A new
 * thread gets nothing (one compare) and shares its process's blob; a new
 * process created by any thread copies its parent's leader's blob.
 * Limitation: when a non-leader thread execs, de_thread() makes it the
 * leader and releases the old one, blob included: such an exec loses the
 * tags.
 *
 * Exec: tp_btf/sched_process_exec, after the point of no return, in the new
 * leader: drop the tags without the keep flag, in place.  No BPF LSM needed.
 *
 * Exit: nothing.  Task storage goes with the task_struct: free_task() calls
 * bpf_task_storage_free() (kernel/fork.c, 6.1 to mainline), once the last
 * reference to the task is put, that is after the zombie was reaped and an
 * RCU grace period (delayed_put_task_struct()).  Unloading frees every
 * task's blob with the map (bpf_local_storage_map_free()).
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
	__type(value, struct peer_blob);
} peer_tags SEC(".maps");

/* Forks of a tagged parent whose child could not get its copy. */
__u64 lost;

SEC("tp_btf/sched_process_fork")
int BPF_PROG(peer_fork, struct task_struct *parent, struct task_struct *child)
{
	struct peer_blob *b;

	if (child->pid != child->tgid)
		return 0;	/* a thread: its leader holds the blob */
	b = bpf_task_storage_get(&peer_tags, parent->group_leader, NULL, 0);
	if (!b || !b->count)
		return 0;
	/*
	 * The kernel allocates the child's element (GFP_ATOMIC here: this
	 * program cannot sleep) and copies the parent's whole value into it.
	 */
	if (!bpf_task_storage_get(&peer_tags, child, b,
				  BPF_LOCAL_STORAGE_GET_F_CREATE))
		__sync_fetch_and_add(&lost, 1);
	return 0;
}

struct prune_ctx {
	struct peer_blob *b;
};

/*
 * One step of the compaction: b->nkept is the write index.  It lives in
 * the map value rather than on the stack so that the verifier sees the same
 * state at every step (it does not track map contents) and checks this
 * callback once, on 6.1 as on kernels that iterate callbacks to a fixed
 * point.  The index is a u32 that the kernel passes zero-extended: taken as
 * a u64, the register that is bounds-checked is the one used to index (as
 * a u32, clang zero-extends it again for each use, and the verifier does
 * not carry the bound over to the copies).
 */
static long prune_one(__u64 i, struct prune_ctx *ctx)
{
	struct peer_blob *b = ctx->b;
	__u32 k = b->nkept;

	if (i >= PEER_MAX_TAGS || k >= PEER_MAX_TAGS || k > i)
		return 1;
	if (!b->keep[i])
		return 0;
	if (k != i) {
		b->value[k] = b->value[i];
		b->keep[k] = 1;
	}
	b->nkept = k + 1;
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(peer_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	struct prune_ctx pc;
	struct peer_blob *b;
	__u32 n;

	b = bpf_task_storage_get(&peer_tags, p, NULL, 0);
	if (!b)
		return 0;
	n = b->count;
	if (b->nkept >= n)
		return 0;	/* every tag is kept */
	if (!b->nkept) {
		bpf_task_storage_delete(&peer_tags, p);
		return 0;
	}
	if (n > PEER_MAX_TAGS)
		n = PEER_MAX_TAGS;
	pc.b = b;
	b->nkept = 0;
	bpf_loop(n, prune_one, &pc, 0);
	b->count = b->nkept;
	return 0;
}
