#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": tests/bench/bench.c in BENCH_BOOTS (default 2) boots of the
# same guest (each boot's whole output in
# $BUILD/bootN/tap.out), then every target line of every boot side by side:
# a target is met only if it is met in every boot (docs/PERFORMANCE.md,
# "Method").  Exits non-zero only if a boot did not run to its end; missed
# targets are figures, not failures.  A target's figure may be inf or nan
# (a ratio to an extra that was not positive).  The two boots take about
# 55 minutes one after the other on this project's build machine (2 cores).
#
# Then, unless BENCH_SMP=0, one boot of the bench's smp section
# (scripts/guest-test.sh with BENCH_ONLY=smp: four vCPUs without icount,
# wall clock; output in $BUILD/smp/tap.out), whose targets join the table
# as "smp boot", alone on the host (about 8 minutes); and unless
# BENCH_COPY=0 (amd64 only), one boot of its copy section (BENCH_ONLY=copy:
# the copy probe, reads and writes on a CPU model without ERMS and FSRM;
# $BUILD/copy/tap.out).
#
# BENCH_JOBS=2 runs the icount boots (the BENCH_BOOTS and the copy boot)
# two at a time: their clock counts instructions, so their figures do not
# depend on what else the host runs, only the wall time does.
# BENCH_KEEP=1 keeps a boot that ran to its end and passed before (its
# tap.out and results.tap) instead of booting it again: after a failed
# boot, or to run the smp boot alone later.

set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$repo/build/bench}
BOOTS=${BENCH_BOOTS:-2}
SMP=${BENCH_SMP:-1}
COPY=${BENCH_COPY:-1}
JOBS=${BENCH_JOBS:-1}
KEEP=${BENCH_KEEP:-0}
. "$repo/scripts/lib/arch.sh"
# One kernel for every boot, however long they take.
KVER=${KVER:-$("$repo/scripts/kernel.sh" abi)} || { echo "bench: no kernel version" >&2; exit 1; }
export KVER
[ "$(arch_of "$KVER")" = amd64 ] || COPY=0

rc=0
# boot NAME [ENV...]: one guest, its output under $BUILD/NAME.
boot() {
	local name=$1
	shift
	if [ "$KEEP" = 1 ] && grep -q '^bench: done' "$BUILD/$name/tap.out" 2>/dev/null &&
		[ -s "$BUILD/$name/results.tap" ] && ! grep -q '^not ok' "$BUILD/$name/results.tap"; then
		echo "bench: boot $name kept (BENCH_KEEP=1: it ran to its end before)"
		return 0
	fi
	echo "bench: boot $name"
	env "$@" BUILD="$BUILD/$name" "$repo/scripts/guest-test.sh" --bench \
		>"$BUILD/$name.log" 2>&1 || { echo "bench: boot $name failed (see $BUILD/$name.log)"; return 1; }
}
mkdir -p "$BUILD"
names=()
for i in $(seq 1 "$BOOTS"); do
	names+=("boot$i")
done
[ "$COPY" = 1 ] && names+=(copy)
running=0
for name in "${names[@]}"; do
	if [ "$name" = copy ]; then
		boot copy BENCH_ONLY=copy &
	else
		boot "$name" -u BENCH_ONLY &
	fi
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then
		wait -n || rc=1
		running=$((running - 1))
	fi
done
while [ "$running" -gt 0 ]; do
	wait -n || rc=1
	running=$((running - 1))
done
if [ "$SMP" = 1 ]; then
	boot smp BENCH_ONLY=smp || rc=1
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
more=
if [ "$SMP" = 1 ]; then
	table "smp boot" "$BUILD/smp"
	more+=" and the smp boot"
fi
echo "bench: $missed target(s) missed over $BOOTS boots$more"
exit $rc
