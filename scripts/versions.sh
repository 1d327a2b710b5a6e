#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One version everywhere (VERSION is the source): prints one TAP line per
# place that states it, "ok" when it agrees.  Used by make check.

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 1
v=$(cat VERSION)
lib=$(sed -n 's/^#define PTAGS_LIB_VERSION[[:space:]]*\([0-9]*\)$/\1/p' include/ptags.h)
st=0
check() {	# check PLACE FOUND
	if [ "$2" = "$v" ]; then
		echo "ok - version: $1 says $v"
	else
		echo "not ok - version: $1 says '$2', VERSION says $v"
		st=1
	fi
}
check dkms.conf "$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)"
check "debian/changelog" "$(dpkg-parsechangelog -S Version 2>/dev/null || sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog)"
check "module/main.c MODULE_VERSION" "$(sed -n 's/^MODULE_VERSION("\(.*\)");$/\1/p' module/main.c)"
check "tools/ptags.1" "$(sed -n 's/^\.TH .*"ptags \([^"]*\)".*/\1/p' tools/ptags.1)"
check "tools/ptags-oci-hook.1" "$(sed -n 's/^\.TH .*"ptags \([^"]*\)".*/\1/p' tools/ptags-oci-hook.1)"
check "include/ptags.h PTAGS_LIB_VERSION" \
	"$((lib / 10000)).$((lib / 100 % 100)).$((lib % 100))"
exit $st
