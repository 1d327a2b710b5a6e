/* SPDX-License-Identifier: GPL-2.0 */
/* The "ptags" file system (fs.c), and watching it (SPEC §3.5). */
#ifndef PTAGS_FS_H
#define PTAGS_FS_H

#include <linux/types.h>

struct pid;
struct user_namespace;

int ptags_fs_init(void);
void ptags_fs_uninit(void);
int ptags_scopes_init(void);
void ptags_scopes_uninit(void);
bool ptags_watched(struct pid *pid, const struct user_namespace *level);
void ptags_notify(struct pid *pid, const struct user_namespace *level,
		  unsigned int events);

/* What happened to a process's tags (SPEC §3.5), for ptags_notify(). */
#define PTAGS_EV_CREATE		1u	/* it became tagged */
#define PTAGS_EV_MODIFY		2u	/* its set changed */
#define PTAGS_EV_DELETE		4u	/* it stopped being tagged */

#endif /* PTAGS_FS_H */
