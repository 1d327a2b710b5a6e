// SPDX-License-Identifier: GPL-2.0
/*
 * ptags: tamper-proof tags for processes, as a loadable module.
 *
 * Its parts, each with a header of its own:
 *
 *   engine/   the tag engine: plain C, also built into user-space tests,
 *             fuzzers and (valid.c, SPEC §4) libptags
 *   shim.c    what the engine needs from the kernel: memory charged to the
 *             caller, sets freed after a grace period
 *   table/    which process holds which set, per level (SPEC §12); fork,
 *             exec and exit (SPEC §9); listings; fail-closed kills
 *   hooks.c   the sched tracepoints that drive the table
 *   level.c   which level a process belongs to (SPEC §12)
 *   write.c   a write's change published in turn (SPEC §3.4)
 *   fs/       the "ptags" file system (SPEC §3) and watching it (§3.5)
 *   stats.c   limits and counters (SPEC §8); audit.c audit records
 *
 * Load order: audit's rate limits, counters, the shim, the process table, the
 * watched mounts' registry (which the hooks ask), the life-cycle hooks, the
 * writers' turns, then the file system (which mounts /proc/ptags).  Unload
 * runs the reverse; it can only start once every ptags mount is gone, so no
 * file is open and only the hooks still touch the table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "audit.h"
#include "fs/fs.h"
#include "fs/notify.h"
#include "hooks.h"
#include "shim.h"
#include "stats.h"
#include "table/table.h"
#include "write.h"

static int __init ptags_init(void)
{
	int err;

	ptags_audit_init();
	err = ptags_stats_init();
	if (err)
		return err;
	err = ptags_shim_init();
	if (err)
		goto err_stats;
	err = ptags_table_init();
	if (err)
		goto err_shim;
	err = ptags_scopes_init();
	if (err)
		goto err_table;
	err = ptags_hooks_init();
	if (err)
		goto err_scopes;
	ptags_write_init();
	err = ptags_fs_init();
	if (err)
		goto err_hooks;
	return 0;

err_hooks:
	ptags_hooks_uninit();
err_scopes:
	ptags_scopes_uninit();
err_table:
	ptags_table_uninit();
err_shim:
	ptags_shim_uninit();
err_stats:
	ptags_stats_uninit();
	return err;
}

static void __exit ptags_exit(void)
{
	ptags_fs_uninit();
	ptags_hooks_uninit();
	ptags_table_uninit();	/* the watch worker is done with the scopes */
	ptags_scopes_uninit();
	ptags_shim_uninit();
	ptags_stats_uninit();
}

module_init(ptags_init);
module_exit(ptags_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tamper-proof process tags in /proc/ptags");
MODULE_VERSION("1.1.0");
