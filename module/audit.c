// SPDX-License-Identifier: GPL-2.0
/*
 * Audit records of writes to /proc/ptags, type AUDIT_KERNEL_OTHER (1316,
 * the type for modules outside the tree), when the audit subsystem is
 * enabled and the "audit" parameter is on:
 *
 *   - a write that changed another process's tags (res=1);
 *   - a write refused for want of a right, EPERM (res=0 errno=1), whoever
 *     its target: the refusals an administrator looks for.
 *
 * A record reads "op=ptags_write target=PID level=L res=R [errno=E]
 * bytes=N lines=HEX" then the writer as audit_log_task_info() gives it
 * (pid, auid, ses, comm, exe ...).  PID is in the initial pid namespace.
 * HEX is the write's first PTAGS_AUDIT_LINES bytes, hex-encoded as audit
 * encodes every untrusted string holding control characters (the lines
 * end in newlines); "bytes" is the whole write's length.
 *
 * Any user can make refusals, so each kind has its own budget of
 * PTAGS_AUDIT_BURST records per PTAGS_AUDIT_INTERVAL: refusals cannot
 * crowd out the records of changes.  Records over budget are counted in
 * audit_suppressed.  audit_log_start() is asked not to sleep (GFP_NOWAIT):
 * with a full backlog the record is lost (audit counts it) rather than the
 * write waiting, uninterruptibly, for the audit daemon.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/audit.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/ratelimit.h>

#include "audit.h"
#include "stats.h"

#define PTAGS_AUDIT_LINES	1024
#define PTAGS_AUDIT_INTERVAL	(5 * HZ)
#define PTAGS_AUDIT_BURST	100

static bool ptags_audit_on = true;
module_param_named(audit, ptags_audit_on, bool, 0644);
MODULE_PARM_DESC(audit, "Audit records of changes to other processes' tags and of writes refused with EPERM");

static DEFINE_RATELIMIT_STATE(ptags_audit_changes, PTAGS_AUDIT_INTERVAL,
			      PTAGS_AUDIT_BURST);
static DEFINE_RATELIMIT_STATE(ptags_audit_refusals, PTAGS_AUDIT_INTERVAL,
			      PTAGS_AUDIT_BURST);

/* @n bytes at @p as upper-case hex, in pieces audit_log_format() takes. */
static void ptags_audit_hex(struct audit_buffer *ab, const u8 *p, size_t n)
{
	static const char digits[16] = "0123456789ABCDEF";
	char piece[2 * 32 + 1];
	size_t i, k;

	for (; n; p += k, n -= k) {
		k = min_t(size_t, n, 32);
		for (i = 0; i < k; i++) {
			piece[2 * i] = digits[p[i] >> 4];
			piece[2 * i + 1] = digits[p[i] & 15];
		}
		piece[2 * k] = 0;
		audit_log_format(ab, "%s", piece);
	}
}

/**
 * ptags_audit_write - audit a write to /proc/ptags/PID if it is of interest
 * @target: the process written to, in the initial pid namespace
 * @level: the depth of the mount's level (SPEC §12)
 * @buf: the write's bytes
 * @len: their number
 * @err: its result, 0 or a negative errno
 * @other: whether @target is another process than the writer's
 * @changed: whether it changed @target's tags
 */
void ptags_audit_write(pid_t target, int level, const char *buf, size_t len,
		       int err, bool other, bool changed)
{
	struct ratelimit_state *budget;
	struct audit_buffer *ab;

	if (err == -EPERM)
		budget = &ptags_audit_refusals;
	else if (!err && other && changed)
		budget = &ptags_audit_changes;
	else
		return;
	if (!READ_ONCE(ptags_audit_on) || audit_enabled == AUDIT_OFF)
		return;
	if (!__ratelimit(budget)) {
		ptags_count(&ptags_stats.audit_suppressed, 1);
		return;
	}
	ab = audit_log_start(audit_context(), GFP_NOWAIT | __GFP_NOWARN,
			     AUDIT_KERNEL_OTHER);
	if (!ab)
		return;
	audit_log_format(ab, "op=ptags_write target=%d level=%d res=%d",
			 target, level, !err);
	if (err)
		audit_log_format(ab, " errno=%d", -err);
	audit_log_format(ab, " bytes=%zu lines=", len);
	ptags_audit_hex(ab, buf, min_t(size_t, len, PTAGS_AUDIT_LINES));
	audit_log_task_info(ab);
	audit_log_end(ab);
	ptags_count(&ptags_stats.audited, 1);
}

void ptags_audit_init(void)
{
	/* Say nothing in the kernel log: audit_suppressed counts. */
	ratelimit_set_flags(&ptags_audit_changes, RATELIMIT_MSG_ON_RELEASE);
	ratelimit_set_flags(&ptags_audit_refusals, RATELIMIT_MSG_ON_RELEASE);
}
