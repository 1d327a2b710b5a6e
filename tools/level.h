/* SPDX-License-Identifier: GPL-2.0 */
/* The --level argument of ptags and ptags-oci-hook (SPEC §12). */
#ifndef PTAGS_TOOLS_LEVEL_H
#define PTAGS_TOOLS_LEVEL_H

#include <string.h>

#include "ptags.h"

/*
 * "own" (PTAGS_LEVEL_OWN), or a depth as the kernel prints it: digits, no
 * leading 0, at most 9 of them.  0 and *@level, or -1.
 */
static inline int parse_level(const char *s, int *level)
{
	size_t i, n = strlen(s);

	if (!strcmp(s, "own")) {
		*level = PTAGS_LEVEL_OWN;
		return 0;
	}
	if (!n || n > 9 || (s[0] == '0' && n > 1))
		return -1;
	for (*level = 0, i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*level = *level * 10 + (s[i] - '0');
	}
	return 0;
}

#endif
