# SPDX-License-Identifier: GPL-2.0
#
# What the entry scripts of scripts/ share; sourced, after "repo" is set:
#
#   build_dir DEFAULT   BUILD (DEFAULT when unset) made and made absolute
#   tap_count FILE      prints "OK NOTOK": the "ok" and "not ok" lines of a
#                       TAP file ("0 0" when there is no file), the counts
#                       of "make check", "make matrix" and "make check-debug"

build_dir() {
	BUILD=${BUILD:-$1}
	mkdir -p "$BUILD"
	BUILD=$(cd "$BUILD" && pwd)
}

tap_count() {
	local ok notok

	ok=$(grep -cE '^ok( |$)' "$1" 2>/dev/null)
	notok=$(grep -cE '^not ok( |$)' "$1" 2>/dev/null)
	echo "${ok:-0} ${notok:-0}"
}
