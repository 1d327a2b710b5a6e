// SPDX-License-Identifier: GPL-2.0
/*
 * ptags: tamper-proof tags for processes, as a loadable module.
 *
 * Load order: counters, the process table, the watched mounts' registry
 * (which the hooks ask), the life-cycle hooks, then the file system (which
 * mounts /proc/ptags).  Unload runs the reverse; it can
 * only start once every ptags mount is gone, so no file is open and only
 * the hooks still touch the table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "audit.h"
#include "fs.h"
#include "hooks.h"
#include "shim.h"
#include "stats.h"
#include "table.h"

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
