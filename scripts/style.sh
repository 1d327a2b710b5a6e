#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make style": the kernel's checkpatch.pl (from Debian's linux-source
# package) over the module and the interface header.  Ignored on purpose:
#   LINUX_VERSION_CODE, CONSTANT_COMPARISON  module/compat.h exists to compare
#                                            kernel versions
#   STATIC_CONST_CHAR_ARRAY                  call_usermodehelper() takes char **
#   PREFER_KERNEL_TYPES                      engine.[ch] is shared with user space
#   MACRO_ARG_REUSE                          PTAGS_STAT() pastes its argument
# and, in module/ptags_trace.h only, OPEN_ENDED_LINE and PARENTHESIS_ALIGNMENT:
# TRACE_EVENT()'s arguments are laid out as every kernel trace header does.

set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
"$repo/scripts/deps.sh" style

cache=${PTAGS_CACHE:-$repo/.cache}/checkpatch
tarball=$(ls /usr/src/linux-source-*.tar.xz | sort -V | tail -n1)
if [ ! -f "$cache/$(basename "$tarball").done" ]; then
	rm -rf "$cache"
	mkdir -p "$cache"
	tar -xJf "$tarball" -C "$cache" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
	touch "$cache/$(basename "$tarball").done"
fi

ignore=LINUX_VERSION_CODE,CONSTANT_COMPARISON,STATIC_CONST_CHAR_ARRAY,PREFER_KERNEL_TYPES,MACRO_ARG_REUSE
files=$(find module -name '*.[ch]' ! -path module/ptags_trace.h | sort; echo include/uapi/linux/ptags.h)
# shellcheck disable=SC2086
perl "$cache/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore "$ignore" -f $files
perl "$cache/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore "$ignore,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT" -f module/ptags_trace.h
