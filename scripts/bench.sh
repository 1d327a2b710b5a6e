#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": tests/bench/bench.c in BENCH_BOOTS (default 2) boots of the
# same guest, one after the other (each boot's whole output in
# $BUILD/bootN/tap.out), then every target line of every boot side by side:
# a target is met only if it is met in every boot (docs/PERFORMANCE.md,
# "Method").  Exits non-zero only if a boot did not run to its end; missed
# targets are figures, not failures.  A target's figure may be inf or nan
# (a ratio to an extra that was not positive).

set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$repo/build/bench}
BOOTS=${BENCH_BOOTS:-2}

rc=0
for i in $(seq 1 "$BOOTS"); do
	echo "bench: boot $i of $BOOTS"
	BUILD=$BUILD/boot$i "$repo/scripts/guest-test.sh" --bench || rc=1
done

echo
echo "bench: targets over $BOOTS boots (met only if met in every boot)"
missed=0
while IFS= read -r what; do
	line="target $what:"
	met=1
	for i in $(seq 1 "$BOOTS"); do
		t=$(grep -F "target $what " "$BUILD/boot$i/tap.out" 2>/dev/null | head -n1 || true)
		if [ -z "$t" ]; then
			line+=" boot $i: -"
			met=0
			continue
		fi
		line+=" boot $i: $(echo "$t" | awk '{ print $(NF - 3) }')"
		[ "${t##* }" = met ] || met=0
	done
	[ $met = 1 ] && line+=" met" || { line+=" MISSED"; missed=$((missed + 1)); }
	echo "$line"
done < <(sed -n 's/^target \(.*[^ ]\) \{1,\}\([-0-9.]\{1,\}\|-\{0,1\}inf\|-\{0,1\}nan\) (limit .*$/\1/p' "$BUILD/boot1/tap.out" 2>/dev/null)
echo "bench: $missed target(s) missed over $BOOTS boots"
exit $rc
