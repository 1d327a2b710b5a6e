#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the whole in-guest suite (tests/guest/*, stress last,
# s07_faults with fault injection) on the debug kernel of
# scripts/debug-kernel.sh (KASAN, lockdep, PROVE_RCU, atomic-sleep and
# debug-objects checks, kmemleak, failslab).  Fails on any failed test and
# on any sanitizer, lockdep, RCU, debug-objects, kmemleak or WARNING report
# on the console.  Ends with "N passed, M failed".
#
# Environment: BUILD (default <repo>/build/debug), DEBUG_KERNEL_CACHE and
# JOBS (scripts/debug-kernel.sh), TESTS, TIMEOUT (default 5400 s for the
# boot), TEST_TIMEOUT (default 1800 s per test).

set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. scripts/lib/common.sh
build_dir "$repo/build/debug"

t0=$(date +%s)
kdir=$(scripts/debug-kernel.sh) || {
	echo "check-debug: the debug kernel does not build" >&2
	echo "0 passed, 1 failed"
	exit 1
}
t1=$(date +%s)
kver=$(cat "$kdir/include/config/kernel.release")
echo "check-debug: debug kernel $kver ready in $((t1 - t0)) s ($kdir)" >&2

rc=0
BUILD=$BUILD KVER=$kver KDIR=$kdir VMLINUZ=$kdir/arch/x86/boot/bzImage \
KAPPEND="slub_debug=A,ptags_proc ${KAPPEND:-}" \
TIMEOUT=${TIMEOUT:-5400} TEST_TIMEOUT=${TEST_TIMEOUT:-1800} \
	scripts/guest-test.sh || rc=$?
t2=$(date +%s)

# Reports guest-test.sh's list may not name: lockdep and debug-objects
# headers, atomic-sleep, fault-injection dumps (the test turns them off).
extra='INFO: |ODEBUG|possible (recursive|circular|irq lock)|suspicious RCU|inconsistent lock|sleeping function called|FAULT_INJECTION: forcing'
if tr -d '\r' <"$BUILD/console.log" | grep -v 'command line' | grep -E "$extra" >/dev/null; then
	echo "check-debug: debug reports in $BUILD/console.log:" >&2
	tr -d '\r' <"$BUILD/console.log" | grep -E -A20 "$extra" | head -n 80 >&2
	echo "not ok - debug kernel console has no lockdep/RCU/ODEBUG report" >>"$BUILD/results.tap"
	rc=1
else
	echo "ok - debug kernel console has no lockdep/RCU/ODEBUG report" >>"$BUILD/results.tap"
fi

read -r pass fail < <(tap_count "$BUILD/results.tap")
[ $rc = 0 ] || [ "$fail" != 0 ] || fail=1
echo "check-debug: kernel $((t1 - t0)) s (build $(cat "${kdir%/build}/build.seconds" 2>/dev/null || echo ?) s when built), suite $((t2 - t1)) s" >&2
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
