#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make matrix": the whole in-guest suite on every kernel of
# tests/qemu/kernels.list, each module built and installed through DKMS
# against that kernel's headers with that kernel's compiler
# (scripts/dkms-build.sh), booted with the kernel's Debian image and loaded
# with "modprobe ptags" (scripts/guest-test.sh with MODTREE).
#
#   scripts/matrix.sh [N]      the first N kernels of the list (default all)
#
# Environment: BUILD (default <repo>/build/matrix; one directory per
# kernel below it), KERNELS (space-separated ABIs or flavours/suites to
# keep, e.g. "sid rt-amd64"), ROWS (space-separated line numbers of the
# list, 1 for its first kernel, to keep: CI's subset), and what
# guest-test.sh takes (TESTS, TIMEOUT, TEST_TIMEOUT).
#
# Prints a table (kernel, architecture, suite and flavour, compiler, W=1,
# result, time) that is also written to $BUILD/table.md, then
# "N passed, M failed" over the TAP lines
# of every kernel (a kernel that failed before its guest ran counts as one
# failure).  Exits non-zero when anything failed.  Needs root.
#
# A kernel whose line in kernels.list ends with "xfail" is a known failure
# (the list says why): its result is XFAIL and its TAP lines are not
# counted, or XPASS, counted, when it passes after all.

set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. scripts/lib/common.sh
build_dir "$repo/build/matrix"
limit=${1:-0}
KERNELS=${KERNELS:-}
ROWS=${ROWS:-}

. scripts/lib/arch.sh

msg() { echo "matrix: $*" >&2; }

scripts/deps.sh base || { msg "cannot install the packages it needs"; echo "0 passed, 1 failed"; exit 1; }
for p in dkms debootstrap; do
	command -v "$p" >/dev/null && continue
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "$p" >&2 </dev/null
done

passed=0
failed=0
rows=()
n=0
start_all=$(date +%s)

xfails=()
lineno=0
while read -r suite flavour series how note _; do
	lineno=$((lineno + 1))
	[ -z "$ROWS" ] || [[ " $ROWS " == *" $lineno "* ]] || continue
	[ "$limit" != 0 ] && [ "$n" -ge "$limit" ] && break
	n=$((n + 1))
	t0=$(date +%s)
	kver=$(scripts/kernel.sh abi "$suite" "$flavour" "$series") || {
		msg "cannot resolve $suite $flavour $series"
		rows+=("| $suite $flavour $series | ? | $suite $flavour | ? | ? | FAIL (no ABI) | 0 s |")
		failed=$((failed + 1))
		continue
	}
	if [ -n "$KERNELS" ] && [[ " $KERNELS " != *" $kver "* ]] &&
	   [[ " $KERNELS " != *" $suite "* ]] && [[ " $KERNELS " != *" $flavour "* ]]; then
		n=$((n - 1))
		continue
	fi
	dir=$BUILD/$kver
	mkdir -p "$dir"
	msg "=== $kver ($suite, $flavour, headers: $how)"
	w1=FAIL
	cc=?
	result=
	if ! scripts/kernel.sh fetch "$kver" image-only >/dev/null; then
		result="FAIL (no image)"
	elif ! scripts/dkms-build.sh "$kver" "$how" "$dir/dkms" 2>"$dir/dkms-build.log"; then
		tail -n 30 "$dir/dkms-build.log" >&2
		cc=$(cat "$dir/dkms/cc" 2>/dev/null || echo ?)
		result="FAIL (DKMS build)"
	else
		w1=clean
		cc=$(cat "$dir/dkms/cc")
		rc=0
		BUILD=$dir/guest MODTREE=$dir/dkms KVER=$kver scripts/guest-test.sh \
			>"$dir/guest.log" 2>&1 || rc=$?
		tap=$dir/guest/results.tap
		read -r ok notok < <(tap_count "$tap")
		passed=$((passed + ${ok:-0}))
		failed=$((failed + ${notok:-0}))
		if [ "$rc" = 0 ] && [ "${notok:-0}" = 0 ]; then
			result="PASS ($ok ok)"
			[ "$note" = xfail ] && result="XPASS ($ok ok): remove xfail"
		elif [ "$note" = xfail ]; then
			passed=$((passed - ${ok:-0}))
			failed=$((failed - ${notok:-0}))
			result="XFAIL (${notok:-0} not ok of $((${ok:-0} + ${notok:-0})))"
			xfails+=("$kver")
		else
			[ "${notok:-0}" = 0 ] && failed=$((failed + 1))
			result="FAIL (${notok:-0} not ok of $((${ok:-0} + ${notok:-0})))"
			tail -n 40 "$dir/guest.log" >&2
		fi
	fi
	case $result in
	PASS*|X*) ;;
	*FAIL\ \(no*|*DKMS*) failed=$((failed + 1)) ;;
	esac
	secs=$(($(date +%s) - t0))
	# "gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0" -> "gcc-12 12.2.0"
	ccs=$(sed -E 's/^([^ ]+) \([^)]*\) ([^ ]+).*/\1 \2/' <<<"$cc")
	row="| $kver | $(arch_of "$kver") | $suite $flavour | $ccs | $w1 | $result | ${secs} s |"
	rows+=("$row")
	msg "$row"
done < <(scripts/kernel.sh list)

total=$(($(date +%s) - start_all))
{
	echo "| kernel | arch | suite, flavour | compiler | W=1 | result | time |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	printf '%s\n' "${rows[@]}"
	echo
	echo "Whole matrix: ${total} s on $(nproc) CPUs ($(date -u +%F))."
} | tee "$BUILD/table.md"
[ ${#xfails[@]} = 0 ] ||
	msg "known failures (xfail in kernels.list), not counted: ${xfails[*]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
