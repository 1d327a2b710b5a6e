// SPDX-License-Identifier: GPL-2.0
/*
 * For measurement only: the probes a kprobe-based ptags would need, with
 * empty handlers.  A kretprobe on copy_process() (to learn the child), a
 * kretprobe on begin_new_exec() (to prune only once exec cannot fail) and a
 * kprobe on do_exit().  make bench compares its cost on fork, exec and exit
 * with ptags's tracepoint probes built empty (PTAGS_FLOOR).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>

static int kf_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static int kf_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static struct kretprobe kf_fork = {
	.kp.symbol_name = "copy_process",
	.handler = kf_ret,
	.maxactive = 64,
};

static struct kretprobe kf_exec = {
	.kp.symbol_name = "begin_new_exec",
	.handler = kf_ret,
	.maxactive = 64,
};

static struct kprobe kf_exit = {
	.symbol_name = "do_exit",
	.pre_handler = kf_pre,
};

static int __init kf_init(void)
{
	int err;

	err = register_kretprobe(&kf_fork);
	if (err)
		return err;
	err = register_kretprobe(&kf_exec);
	if (err)
		goto err_fork;
	err = register_kprobe(&kf_exit);
	if (err)
		goto err_exec;
	return 0;

err_exec:
	unregister_kretprobe(&kf_exec);
err_fork:
	unregister_kretprobe(&kf_fork);
	return err;
}

static void __exit kf_exit_module(void)
{
	unregister_kprobe(&kf_exit);
	unregister_kretprobe(&kf_exec);
	unregister_kretprobe(&kf_fork);
}

module_init(kf_init);
module_exit(kf_exit_module);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Empty kprobes on fork, exec and exit, for comparison");
