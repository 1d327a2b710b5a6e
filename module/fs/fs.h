/* SPDX-License-Identifier: GPL-2.0 */
/* The "ptags" file system (SPEC §3): registered, and /proc/ptags mounted. */
#ifndef PTAGS_FS_FS_H
#define PTAGS_FS_FS_H

int ptags_fs_init(void);
void ptags_fs_uninit(void);

#endif /* PTAGS_FS_FS_H */
