/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny TAP producer for the ptags unit tests.  Every ok() line is one
 * test; tap_section() names the SPEC section that following tests count
 * under, for the per-section summary printed by tap_done().
 */
#ifndef PTAGS_TAP_H
#define PTAGS_TAP_H

#include <stdbool.h>

void tap_section(const char *name);
bool ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Prints the plan and the summary; returns the process exit status. */
int tap_done(void);

#endif /* PTAGS_TAP_H */
