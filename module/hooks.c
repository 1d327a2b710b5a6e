// SPDX-License-Identifier: GPL-2.0
/*
 * Process life cycle (SPEC §9) through the scheduler's tracepoints, found by
 * name at load time.  They fire on every target kernel at the right moments:
 *
 *   sched_process_fork  after copy_process(), before the child first runs;
 *   sched_process_exec  past exec's point of no return, before the new
 *                       program's first instruction;
 *   sched_process_exit  in do_exit(), once per thread.
 *
 * A tracepoint probe is a direct call from the traced site, far cheaper than
 * a kprobe's breakpoint trap; docs/PERFORMANCE.md has the measured cost.
 * Probes run with preemption disabled.
 *
 * Built with PTAGS_FLOOR, the probes are attached but do nothing: the least
 * any hook-based design can cost (make bench).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>

#include "compat.h"
#include "hooks.h"
#include "table/table.h"

static void ptags_probe_fork(void *data, struct task_struct *parent,
			     struct task_struct *child)
{
#ifndef PTAGS_FLOOR
	ptags_task_fork(parent, child);
#endif
}

static void ptags_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
			     struct linux_binprm *bprm)
{
#ifndef PTAGS_FLOOR
	ptags_task_exec(p);
#endif
}

static void ptags_probe_exit(void *data, PTAGS_EXIT_PROBE_ARGS)
{
#ifndef PTAGS_FLOOR
	ptags_task_exit(p);
#endif
}

/*
 * Let the compiler check each probe against the kernel's own prototype.
 * sizeof() does not evaluate the call, so nothing references the
 * tracepoint symbols, which the kernel does not export.
 */
static_assert(sizeof(register_trace_sched_process_fork(ptags_probe_fork, NULL)));
static_assert(sizeof(register_trace_sched_process_exec(ptags_probe_exec, NULL)));
static_assert(sizeof(register_trace_sched_process_exit(ptags_probe_exit, NULL)));

static struct ptags_hook {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool registered;
} ptags_hooks[] = {
	{ .name = "sched_process_fork", .probe = ptags_probe_fork },
	{ .name = "sched_process_exec", .probe = ptags_probe_exec },
	{ .name = "sched_process_exit", .probe = ptags_probe_exit },
};

static void ptags_find_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ptags_hooks); i++)
		if (!strcmp(tp->name, ptags_hooks[i].name))
			ptags_hooks[i].tp = tp;
}

void ptags_hooks_uninit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ptags_hooks); i++) {
		if (!ptags_hooks[i].registered)
			continue;
		tracepoint_probe_unregister(ptags_hooks[i].tp,
					    ptags_hooks[i].probe, NULL);
		ptags_hooks[i].registered = false;
	}
	/* No probe runs any more once this returns. */
	tracepoint_synchronize_unregister();
}

int ptags_hooks_init(void)
{
	unsigned int i;
	int err;

	for_each_kernel_tracepoint(ptags_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(ptags_hooks); i++) {
		if (!ptags_hooks[i].tp) {
			pr_err("tracepoint %s not found\n", ptags_hooks[i].name);
			err = -ENOENT;
			goto err;
		}
	}
	/*
	 * Exit first: a process that received tags through fork or a write is
	 * then always seen leaving.
	 */
	for (i = ARRAY_SIZE(ptags_hooks); i-- > 0;) {
		err = tracepoint_probe_register(ptags_hooks[i].tp,
						ptags_hooks[i].probe, NULL);
		if (err) {
			pr_err("cannot attach to %s: %d\n", ptags_hooks[i].name,
			       err);
			goto err;
		}
		ptags_hooks[i].registered = true;
	}
	return 0;

err:
	ptags_hooks_uninit();
	return err;
}
