/* SPDX-License-Identifier: GPL-2.0 */
/* Audit records of changes to others' tags and of refusals (audit.c). */
#ifndef PTAGS_AUDIT_H
#define PTAGS_AUDIT_H

#include <linux/types.h>

void ptags_audit_init(void);
void ptags_audit_write(pid_t target, int level, const char *buf, size_t len,
		       int err, bool other, bool changed);

#endif /* PTAGS_AUDIT_H */
