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

/* SPEC §4 (module/valid.c, shared with the module): pt_utf8_seq() etc. */
#include "valid.h"

#endif /* PTAGS_LIB_INTERNAL_H */
