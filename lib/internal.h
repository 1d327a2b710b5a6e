/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* libptags: declarations shared by the library's files, not exported. */
#ifndef PTAGS_LIB_INTERNAL_H
#define PTAGS_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "ptags.h"


struct ptags_set {
	size_t count;
	struct ptags_tag *tags;
	char *buf;		/* the names and values, NUL-terminated */
};

/* Is @s (@len bytes) valid UTF-8 per RFC 3629? */
bool ptags_utf8_valid(const unsigned char *s, size_t len);
/* Length of the valid UTF-8 sequence at @s (at most @len), 0 if invalid. */
size_t ptags_utf8_seq(const unsigned char *s, size_t len);

#endif /* PTAGS_LIB_INTERNAL_H */
