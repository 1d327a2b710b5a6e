// SPDX-License-Identifier: GPL-2.0
/*
 * Administration (SPEC §8): limits as module parameters under
 * /sys/module/ptags/parameters/ and counters under /sys/module/ptags/stats/.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/sysfs.h>

#include "uapi/linux/ptags.h"
#include "stats.h"

unsigned int ptags_max_tags = PTAGS_DEFAULT_MAX_TAGS;
module_param_named(max_tags, ptags_max_tags, uint, 0644);
MODULE_PARM_DESC(max_tags, "Most tags per process");

unsigned int ptags_max_bytes = PTAGS_DEFAULT_MAX_BYTES;
module_param_named(max_bytes, ptags_max_bytes, uint, 0644);
MODULE_PARM_DESC(max_bytes, "Most bytes of names and values per process");

unsigned int ptags_max_write = PTAGS_DEFAULT_MAX_WRITE;
module_param_named(max_write, ptags_max_write, uint, 0644);
MODULE_PARM_DESC(max_write, "Largest write(2) to /proc/ptags/PID, in bytes");

unsigned int ptags_max_levels = PTAGS_DEFAULT_MAX_LEVELS;
module_param_named(max_levels, ptags_max_levels, uint, 0644);
MODULE_PARM_DESC(max_levels, "Levels (user namespaces) of depth 0 to max_levels - 1 may hold tags");

struct ptags_stats ptags_stats;

static struct kobject *ptags_stats_kobj;

#define PTAGS_STAT(name)						\
static ssize_t name##_show(struct kobject *kobj,			\
			   struct kobj_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%lld\n",				\
			  (long long)atomic64_read(&ptags_stats.name));	\
}									\
static struct kobj_attribute ptags_attr_##name = __ATTR_RO(name)

PTAGS_STAT(live_sets);
PTAGS_STAT(tagged_processes);
PTAGS_STAT(bytes);
PTAGS_STAT(inherited);
PTAGS_STAT(pruned);
PTAGS_STAT(refused);
PTAGS_STAT(killed);
PTAGS_STAT(memory);
PTAGS_STAT(watch_queued);
PTAGS_STAT(audited);
PTAGS_STAT(audit_suppressed);

static struct attribute *ptags_stats_attrs[] = {
	&ptags_attr_live_sets.attr,
	&ptags_attr_tagged_processes.attr,
	&ptags_attr_bytes.attr,
	&ptags_attr_inherited.attr,
	&ptags_attr_pruned.attr,
	&ptags_attr_refused.attr,
	&ptags_attr_killed.attr,
	&ptags_attr_memory.attr,
	&ptags_attr_watch_queued.attr,
	&ptags_attr_audited.attr,
	&ptags_attr_audit_suppressed.attr,
	NULL,
};

static const struct attribute_group ptags_stats_group = {
	.attrs = ptags_stats_attrs,
};

int ptags_stats_init(void)
{
	int err;

	ptags_stats_kobj = kobject_create_and_add("stats",
						  &THIS_MODULE->mkobj.kobj);
	if (!ptags_stats_kobj)
		return -ENOMEM;
	err = sysfs_create_group(ptags_stats_kobj, &ptags_stats_group);
	if (err)
		kobject_put(ptags_stats_kobj);
	return err;
}

/* A counter computed elsewhere (table/table.c: longest_chain). */
int ptags_stats_add(const struct attribute *attr)
{
	return sysfs_create_file(ptags_stats_kobj, attr);
}

void ptags_stats_remove(const struct attribute *attr)
{
	sysfs_remove_file(ptags_stats_kobj, attr);
}

void ptags_stats_uninit(void)
{
	sysfs_remove_group(ptags_stats_kobj, &ptags_stats_group);
	kobject_put(ptags_stats_kobj);
}
