/* SPDX-License-Identifier: GPL-2.0 */
/* Publishing writes in turn (write.c, SPEC §3.4). */
#ifndef PTAGS_WRITE_H
#define PTAGS_WRITE_H

#include <linux/types.h>

#include "engine/engine.h"

struct task_struct;
struct user_namespace;

void ptags_write_init(void);
int ptags_write_apply(struct task_struct *task, struct user_namespace *level,
		      const char *buf, size_t len, const struct pt_writer *w,
		      bool *changed);

#endif /* PTAGS_WRITE_H */
