/* SPDX-License-Identifier: GPL-2.0 */
/* The process life cycle (hooks.c): sched tracepoints into the table. */
#ifndef PTAGS_HOOKS_H
#define PTAGS_HOOKS_H

int ptags_hooks_init(void);
void ptags_hooks_uninit(void);

#endif /* PTAGS_HOOKS_H */
