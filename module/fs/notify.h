/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Watching (SPEC §3.5, notify.c): what the process table asks and tells the
 * file system's mounts when a process's tags change.
 */
#ifndef PTAGS_FS_NOTIFY_H
#define PTAGS_FS_NOTIFY_H

#include <linux/types.h>

struct pid;
struct user_namespace;

int ptags_scopes_init(void);
void ptags_scopes_uninit(void);
bool ptags_watched(struct pid *pid, const struct user_namespace *level);
void ptags_notify(struct pid *pid, const struct user_namespace *level,
		  unsigned int events);

/* What happened to a process's tags (SPEC §3.5), for ptags_notify(). */
#define PTAGS_EV_CREATE		1u	/* it became tagged */
#define PTAGS_EV_MODIFY		2u	/* its set changed */
#define PTAGS_EV_DELETE		4u	/* it stopped being tagged */

#endif /* PTAGS_FS_NOTIFY_H */
