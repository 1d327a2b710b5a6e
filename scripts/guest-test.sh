#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build ptags.ko and the in-guest tests, boot a Debian kernel in QEMU (TCG)
# with them in an initramfs, and check the results.
#
#   scripts/guest-test.sh           run tests/guest/* (TAP on stdout)
#   scripts/guest-test.sh --demo    run tests/qemu/demo.sh on the console
#   scripts/guest-test.sh --bench   run tests/bench/bench.c (make bench): one
#                                   boot, one CPU, clock counting instructions
#                                   (with BENCH_SMOKE_ONLY=1: only the BPF
#                                   peer's smoke test and counters, on two
#                                   CPUs, a few minutes)
#   scripts/guest-test.sh --scale   run tests/bench/scale.c (make bench-scale):
#                                   the same with 100 000 processes alive, in
#                                   a guest of GUEST_MEM (default 12288) MiB
#
# Environment:
#   KVER          kernel ABI (default: scripts/kernel.sh abi); an arm64 ABI
#                 (…-arm64) boots in qemu-system-aarch64 with everything
#                 cross-built (scripts/lib/arch.sh)
#   VMLINUZ, KDIR kernel image to boot and kernel build directory to build
#                 the module against (default: Debian's KVER; make
#                 check-debug passes its debug kernel)
#   BUILD         directory for everything this run writes (default
#                 <repo>/build/guest); runs with different BUILDs can go on
#                 at the same time
#   TESTS         space-separated test names (tests/guest/NAME.c) to run;
#                 default all
#   TIMEOUT       seconds for the whole boot (default 1800)
#   TEST_TIMEOUT  seconds for each test inside the guest (default 300)
#   QEMU_EXTRA    extra QEMU arguments
#   KAPPEND       extra kernel command line
#   PTAGS_CHROOTS where scripts/dkms-build.sh keeps its chroots (default
#                 <repo>/.cache/chroot): without KDIR, the modules of a
#                 kernel of trixie (+deb13) or sid (+deb14), whose headers
#                 need that suite's compiler, are built inside its chroot
#                 (made, with the headers, by a DKMS build when missing)
#   MODTREE       a DKMS install made by scripts/dkms-build.sh (lib/modules/
#                 KVER with depmod's files, and ptags.ko): the guest gets that
#                 tree instead of a fresh build and loads it with "modprobe
#                 ptags" (make matrix)
#   MODSRC, GUEST_TESTS  where Kbuild+module/+include/ and the test .c files
#                 come from (default: this tree, tests/guest); for testing the
#                 harness itself
#   GUEST_BINS    space-separated programs built elsewhere (static, for the
#                 guest's architecture) that run as tests too, by file name
#   GUEST_MEM     the guest's memory in MiB (default 2048; --scale 12288)
#   BENCH_SMOKE_ONLY  with --bench, 1: build and boot only what the BPF peer's
#                 smoke test needs (no floor modules), pass ptbench=smoke
#                 (the bench gets BENCH_SMOKE_ONLY=1: peer-smoke and the peer's
#                 counters, then it stops), and boot two vCPUs without
#                 icount, which the smoke test's races want and which
#                 measures nothing
#   BENCH_ONLY    with --bench, one section of the bench in a reduced boot
#                 (ptbench=NAME; the bench gets BENCH_ONLY=NAME): smp (four
#                 vCPUs, multi-threaded TCG, no icount: wall clock), copy (the
#                 copy probe and the read and write rows, icount, -cpu
#                 BENCH_COPY_CPU, default max,erms=off,fsrm=off), mem (memory
#                 by memcg, icount); no floor modules
#
# Output under $BUILD: module.log (kbuild output), console.log (ttyS0),
# tap.out (raw TAP from the guest on ttyS1), results.tap (tap.out plus the
# host-side checks below, as TAP).  Fails on a build warning, any "not ok",
# a missing done marker (crash, hang, timeout) or a kernel problem in the
# console log.

set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

demo=0
bench=0
scale=0
case ${1:-} in
--demo)	demo=1 ;;
--bench) bench=1 ;;
--scale) bench=1 scale=1 ;;
"")	;;
*)	echo "usage: $0 [--demo|--bench|--scale]" >&2; exit 2 ;;
esac
smoke=0
if [ $bench = 1 ] && [ $scale = 0 ] && [ -n "${BENCH_SMOKE_ONLY:-}" ] &&
	[ "$BENCH_SMOKE_ONLY" != 0 ]; then
	smoke=1
fi
only=
if [ $bench = 1 ] && [ $scale = 0 ] && [ $smoke = 0 ]; then
	only=${BENCH_ONLY:-}
	case $only in
	""|smp|copy|mem) ;;
	*) echo "guest-test: BENCH_ONLY is smp, copy or mem" >&2; exit 2 ;;
	esac
fi

. scripts/lib/common.sh
. scripts/lib/arch.sh
scripts/deps.sh base || { echo "guest-test: cannot install the packages it needs" >&2; exit 1; }
KVER=${KVER:-$(scripts/kernel.sh abi)}
arch=$(arch_of "$KVER")
arch_set "$arch"
arch_deps "$arch" || { echo "guest-test: cannot install the packages $arch needs" >&2; exit 1; }
# Cross builds: kbuild's and the user-space Makefiles' variables.
kmake=("${KMAKE[@]}")
umake=()
[ -z "$CROSS" ] || umake=(CC="${CROSS}gcc" AR="${CROSS}ar" OBJCOPY="${CROSS}objcopy")
BUILD=${BUILD:-$repo/build/guest}
TESTS=${TESTS:-}
TIMEOUT=${TIMEOUT:-$([ $smoke = 1 ] && echo 1200 || { [ $bench = 1 ] && echo 5400 || echo 1800; })}
TEST_TIMEOUT=${TEST_TIMEOUT:-$([ $smoke = 1 ] && echo 900 || { [ $bench = 1 ] && echo 5000 || echo 300; })}
QEMU_EXTRA=${QEMU_EXTRA:-}
GUEST_MEM=${GUEST_MEM:-$([ $scale = 1 ] && echo 12288 || echo 2048)}
MODSRC=${MODSRC:-$repo}
GUEST_TESTS=${GUEST_TESTS:-tests/guest}

build_dir "$repo/build/guest"
results=$BUILD/results.tap
: >"$results"

msg() { echo "guest-test: $*" >&2; }

# Host-side check as a TAP line in results.tap (and on stdout).
check() {
	local cond=$1
	shift
	if [ "$cond" = 0 ]; then
		echo "ok - $*" | tee -a "$results"
	else
		echo "not ok - $*" | tee -a "$results"
	fi
}

# A setup stage failed: record it and stop.
fatal() {
	check 1 "$*"
	msg "FAIL: $*"
	exit 1
}

# The build (scripts/lib/guest-build.sh), then the boot and the verdict
# (scripts/lib/guest-boot.sh).
. scripts/lib/guest-build.sh
. scripts/lib/guest-boot.sh
guest_kernel
guest_module
guest_initramfs
guest_boot
guest_judge
