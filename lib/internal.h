/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* libptags: declarations shared by the library's files, not exported. */
#ifndef PTAGS_LIB_INTERNAL_H
#define PTAGS_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ptags.h"


struct ptags_set {
	size_t count;
	struct ptags_tag *tags;
	char *buf;		/* the names and values, NUL-terminated */
};

/*
 * pt_mountinfo_ptags() - parse one line of /proc/PID/mountinfo (proc(5)),
 * in place.  Returns 1 for a ptags mount, with *@dev (its MAJ:MIN),
 * *@dir (its mount point, unescaped, inside @line) and *@level (its
 * "level=" super option; 0 without one); 0 for a mount of another type;
 * -EINVAL for a line that is not a mountinfo line.
 */
int pt_mountinfo_ptags(char *line, dev_t *dev, char **dir, int *level);

/*
 * pt_level_mount_open() - the first ptags mount listed in the file
 * @mountinfo that shows @level, is still the one mounted at its mount
 * point, and serves the caller ("self" resolves there and is the caller).
 * A descriptor of its root, -ENOENT when none does, -ENOMEM.
 */
int pt_level_mount_open(const char *mountinfo, int level);

/* SPEC §4 (module/engine/valid.c, shared with the module): pt_utf8_seq() etc. */
#include "valid.h"

#endif /* PTAGS_LIB_INTERNAL_H */
