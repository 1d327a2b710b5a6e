#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": tests/bench/bench.c in BENCH_BOOTS (default 2) boots of the
# same guest, one after the other (each boot's whole output in
# $BUILD/bootN/tap.out), then every target line of every boot side by side:
# a target is met only if it is met in every boot (docs/PERFORMANCE.md,
# "Method").  Exits non-zero only if a boot did not run to its end; missed
# targets are figures, not failures.  A target's figure may be inf or nan
# (a ratio to an extra that was not positive).  The two boots take about
# 55 minutes on this project's build machine (2 cores).
#
# BENCH_SMP=1 (default 0): after them, one more boot of the bench's smp
# section (scripts/guest-test.sh with BENCH_ONLY=smp: four vCPUs without
# icount, wall clock; output in $BUILD/smp/tap.out), whose targets join
# the table as "smp boot"; it adds about 8 minutes (builds, and a guest
# that ran for 356 s in the one run so far).

set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$repo/build/bench}
BOOTS=${BENCH_BOOTS:-2}
SMP=${BENCH_SMP:-0}

rc=0
for i in $(seq 1 "$BOOTS"); do
	echo "bench: boot $i of $BOOTS"
	BUILD=$BUILD/boot$i "$repo/scripts/guest-test.sh" --bench || rc=1
done
if [ "$SMP" = 1 ]; then
	echo "bench: the smp boot"
	BUILD=$BUILD/smp BENCH_ONLY=smp "$repo/scripts/guest-test.sh" --bench || rc=1
fi

# The names of the targets in the output $1.
targets() {
	sed -n 's/^target \(.*[^ ]\) \{1,\}\([-0-9.]\{1,\}\|-\{0,1\}inf\|-\{0,1\}nan\) (limit .*$/\1/p' "$1" 2>/dev/null
}

# table LABEL DIR...: each target of the first DIR's output, in every DIR's.
missed=0
table() {
	local label=$1 what line met i t
	shift
	while IFS= read -r what; do
		line="target $what:"
		met=1
		i=0
		for dir in "$@"; do
			i=$((i + 1))
			t=$(grep -F "target $what " "$dir/tap.out" 2>/dev/null | head -n1 || true)
			[ $# = 1 ] && [ "$label" != boot ] && i=
			if [ -z "$t" ]; then
				line+=" $label${i:+ $i}: -"
				met=0
				continue
			fi
			line+=" $label${i:+ $i}: $(echo "$t" | awk '{ print $(NF - 3) }')"
			[ "${t##* }" = met ] || met=0
		done
		[ $met = 1 ] && line+=" met" || { line+=" MISSED"; missed=$((missed + 1)); }
		echo "$line"
	done < <(targets "$1/tap.out")
}

echo
echo "bench: targets over $BOOTS boots (met only if met in every boot)"
dirs=()
for i in $(seq 1 "$BOOTS"); do
	dirs+=("$BUILD/boot$i")
done
table boot "${dirs[@]}"
smp=
if [ "$SMP" = 1 ]; then
	table "smp boot" "$BUILD/smp"
	smp=" and the smp boot"
fi
echo "bench: $missed target(s) missed over $BOOTS boots$smp"
exit $rc
