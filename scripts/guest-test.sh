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
#                 cross-built (scripts/arch.sh)
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

. scripts/arch.sh
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

DONE_MARKER='# ptags-guest: done'
# Kernel log lines that fail a run, whatever the tests said.
# ("stall" only in RCU's phrases: "install" is not a problem.)
PROBLEMS='BUG:|WARNING:|Oops|Call Trace|general protection|soft lockup|hard LOCKUP|hung_task|blocked for more than|rcu: INFO|detected stall|stall on CPU|rcu.*stall|KASAN|UBSAN|kmemleak|Kernel panic|refcount_t|list_add corruption|BUG kmalloc'

mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)
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

MODTREE=${MODTREE:-}
# A kernel of another suite whose headers name that suite's compiler (sid's
# 7.2: gcc-16; trixie's 6.12: gcc-14): its modules are built in the chroot
# of scripts/dkms-build.sh, where KDIR is a path inside the chroot.
chroots=${PTAGS_CHROOTS:-$repo/.cache/chroot}
ksuite=
kroot=
if [ -z "${KDIR:-}" ] && [ "$arch" = amd64 ]; then
	case $KVER in
	*+deb13-*) ksuite=trixie ;;
	*+deb14-*) ksuite=sid ;;
	esac
fi
# VMLINUZ and KDIR: a kernel built here (make check-debug) instead of Debian's.
if [ -n "${VMLINUZ:-}" ]; then
	vmlinuz=$VMLINUZ
else
	image_only=()
	[ -z "$MODTREE$ksuite" ] || image_only=(image-only)
	vmlinuz=$(scripts/kernel.sh fetch "$KVER" "${image_only[@]}") ||
		fatal "fetch kernel $KVER"
fi
if [ -n "${KDIR:-}" ]; then
	kdir=$KDIR
elif [ -n "$MODTREE" ] && [ $bench = 0 ]; then
	:
elif [ -n "$ksuite" ]; then
	kroot=$chroots/$ksuite
	kdir=/usr/src/linux-headers-$KVER
	if [ ! -d "$kroot$kdir" ]; then
		msg "the $ksuite chroot with the headers of $KVER (scripts/dkms-build.sh)"
		scripts/dkms-build.sh "$KVER" chroot "$BUILD/dkms" >"$BUILD/dkms-build.log" 2>&1 ||
			{ tail -n 30 "$BUILD/dkms-build.log" >&2; fatal "the $ksuite chroot for $KVER"; }
	fi
else
	kdir=$(scripts/kernel.sh headers "$KVER") || fatal "headers of $KVER"
fi

# kbuild DIR [ARGS]: "make -C KDIR M=DIR ARGS", in the chroot when there is
# one: DIR is copied in and back, under the chroot's lock, with /proc
# mounted in a mount namespace of its own (objtool reads /proc/self).
kbuild() {
	local dir=$1 tmp rc=0

	shift
	if [ -z "$kroot" ]; then
		make -C "$kdir" M="$dir" "${kmake[@]}" "$@"
		return
	fi
	tmp=/tmp/ptags-guest.$$.$(basename "$dir")
	(
		flock 8
		rm -rf "$kroot$tmp" && cp -a "$dir" "$kroot$tmp" || exit 1
		unshare -m sh -c 'mount -t proc proc "$1/proc" && shift &&
			exec chroot "$@"' sh "$kroot" "$kroot" \
			env -u ARCH -u CROSS_COMPILE make -C "$kdir" M="$tmp" "$@" \
			</dev/null || rc=$?
		[ $rc = 0 ] && { rm -rf "$dir" && cp -a "$kroot$tmp" "$dir" || rc=1; }
		rm -rf "$kroot$tmp"
		exit $rc
	) 8>"$chroots/.$ksuite.lock"
}

# 1. The module, built from a private copy of its sources.
rm -rf "$BUILD/src"
mkdir -p "$BUILD/src"
for f in Kbuild module include; do
	cp -a "$MODSRC/$f" "$BUILD/src/" || fatal "$MODSRC/$f is there"
done
if [ -n "$MODTREE" ]; then
	[ -e "$MODTREE/lib/modules/$KVER/modules.dep" ] && [ -e "$MODTREE/ptags.ko" ] ||
		fatal "DKMS install tree $MODTREE has lib/modules/$KVER and ptags.ko"
	cp "$MODTREE/ptags.ko" "$BUILD/src/ptags.ko"
	check 0 "ptags.ko installed by DKMS for $KVER ($MODTREE)"
else
msg "building ptags.ko for $KVER"
rc=0
kbuild "$BUILD/src" W=1 modules >"$BUILD/module.log" 2>&1 || rc=$?
if [ $rc != 0 ] || grep -qi 'warning' "$BUILD/module.log"; then
	cat "$BUILD/module.log" >&2
	[ $rc != 0 ] && fatal "ptags.ko builds (make exited $rc)"
	fatal "ptags.ko builds without warnings"
fi
check 0 "ptags.ko builds without warnings ($KVER)"
fi

# build_module NAME SRCDIR [MAKE ARGS]: a module for the benchmark.
build_module() {
	local name=$1 src=$2
	shift 2
	kbuild "$src" W=1 "$@" modules >"$BUILD/$name.log" 2>&1 ||
		fatal "$name builds"
}
if [ $bench = 1 ] && [ $scale = 0 ] && [ $smoke = 0 ]; then
	rm -rf "$BUILD/src-floor" "$BUILD/kprobe-floor"
	cp -a "$BUILD/src" "$BUILD/src-floor"
	kbuild "$BUILD/src-floor" clean >/dev/null 2>&1
	build_module ptags_floor "$BUILD/src-floor" CONFIG_PTAGS_FLOOR=y
	cp -a tests/bench/kprobe-floor "$BUILD/kprobe-floor"
	build_module kprobe_floor "$BUILD/kprobe-floor"
fi

# 2. The initramfs.
root=$BUILD/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,etc,tests}
ln -s bin "$root/sbin"
mkdir -p "$root/usr"
ln -s ../bin "$root/usr/bin"
ln -s ../bin "$root/usr/sbin"
cp "$BUILD/src/ptags.ko" "$root/ptags.ko"
[ -n "$MODTREE" ] && cp -a "$MODTREE/lib" "$root/"

CC=${CROSS}gcc
CFLAGS="-static -O2 -g -Wall -Wextra -Werror -pthread"
$CC $CFLAGS -o "$root/init" tests/qemu/init.c || fatal "tests/qemu/init.c compiles"
# libptags (static), /bin/ptags and the examples, built in a private copy;
# the tests link with its libptags.a.
user=$BUILD/user
rm -rf "$user" && mkdir -p "$user" && cp -a VERSION include module lib tools examples "$user/"
{ make -C "$user/lib" clean && make -C "$user/tools" STATIC=1 "${umake[@]}" &&
	make -C "$user/examples" STATIC=1 "${umake[@]}"; } >"$BUILD/user.log" 2>&1 ||
	{ cat "$BUILD/user.log" >&2; fatal "libptags, ptags and the examples build"; }
cp "$user/tools/ptags" "$user/tools/ptags-oci-hook" "$user/examples/ptags-permd" \
	"$user/examples/ptags-launch" "$root/bin/"
cp tests/qemu/demo.sh "$root/demo.sh"
if [ $scale = 1 ]; then
	$CC $CFLAGS -o "$root/bench" tests/bench/scale.c ||
		fatal "tests/bench/scale.c compiles"
elif [ $bench = 1 ]; then
	if [ $smoke = 0 ]; then
		cp "$BUILD/src-floor/ptags.ko" "$root/ptags_floor.ko"
		cp "$BUILD/kprobe-floor/kprobe_floor.ko" "$root/kprobe_floor.ko"
	fi
	# With the BPF peer (tests/bench/bpf-peer) and its smoke test, built
	# for this machine's architecture only (its libbpf is the static one
	# of libbpf-dev).
	peer=()
	if [ "$arch" = amd64 ]; then
		scripts/deps.sh bpf || fatal "the BPF peer's packages install"
		make -C tests/bench/bpf-peer BUILD="$BUILD/bpf-peer" >"$BUILD/bpf-peer.log" 2>&1 ||
			{ cat "$BUILD/bpf-peer.log" >&2; fatal "the BPF peer builds"; }
		cp "$BUILD/bpf-peer/peer-smoke" "$root/peer-smoke"
		peer=(-DPTAGS_BPF_PEER -I"$BUILD/bpf-peer" -Itests/bench/bpf-peer
		      "$BUILD/bpf-peer/libbpfpeer.a" -lbpf -lelf -lz -lzstd)
	else
		msg "bench: no BPF peer on $arch"
	fi
	$CC $CFLAGS -Wno-unused-parameter -o "$root/bench" tests/bench/bench.c "${peer[@]}" ||
		fatal "tests/bench/bench.c compiles"
fi

# The benchmark's initramfs has no test programs.
wanted() { [ $bench = 0 ] && { [ -z "$TESTS" ] || [[ " $TESTS " == *" $1 "* ]]; }; }
ntests=0
for src in "$GUEST_TESTS"/*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	wanted "$name" || continue
	$CC $CFLAGS -Iinclude -Itests/guest -o "$root/tests/$name" "$src" -L"$user/lib" -lptags \
		|| fatal "$src compiles"
	ntests=$((ntests + 1))
done
for bin in ${GUEST_BINS:-}; do
	wanted "$(basename "$bin")" || continue
	cp "$bin" "$root/tests/" || fatal "$bin is there"
	ntests=$((ntests + 1))
done
for t in $TESTS; do
	if [ ! -e "$GUEST_TESTS/$t.c" ] && [[ " ${GUEST_BINS:-} " != *"/$t "* ]]; then
		msg "no test $GUEST_TESTS/$t.c"
	fi
done

# hook_oci runs Debian's crun and runc: each with the shared libraries it
# loads, at the same paths.  This machine's, or the guest architecture's
# packages unpacked (scripts/arch.sh).
userland=$(arch_userland "$arch") || fatal "Debian's busybox-static, crun and runc for $arch"
if [ $bench = 0 ] && wanted hook_oci; then
	for rt in usr/bin/crun usr/sbin/runc; do
		bin=$userland/$rt
		[ -x "$bin" ] || fatal "$bin is installed (scripts/deps.sh)"
		cp "$bin" "$root/bin/"
		arch_with_libs "$arch" "$bin" "$root" || fatal "$bin's libraries"
	done
fi

# busybox: its applets are the same on every architecture (one Debian
# configuration): this machine's busybox lists them.
busybox=$(command -v busybox) || fatal "busybox is installed (busybox-static)"
ldd "$busybox" >/dev/null 2>&1 && fatal "busybox is static (install busybox-static)"
if [ "$arch" = amd64 ]; then
	cp "$busybox" "$root/bin/busybox"
else
	cp "$userland/bin/busybox" "$root/bin/busybox" || fatal "busybox-static:$arch"
fi
for applet in $("$busybox" --list); do
	[ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
done
for applet in sh mount umount insmod rmmod lsmod cat ls echo sleep grep poweroff su; do
	[ -e "$root/bin/$applet" ] || fatal "busybox has $applet"
done
printf 'root:x:0:0:root:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/tmp:/bin/sh\n' \
	>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$BUILD/initrd.gz"

# 3. Boot.
append="console=$CONSOLE_TTY pttap=$TAP_TTY quiet panic=-1 oops=panic panic_on_warn=1"
append+=" softlockup_panic=1 hung_task_panic=1 pttimeout=$TEST_TIMEOUT"
[ -n "${KAPPEND:-}" ] && append+=" $KAPPEND"
[ -n "$TESTS" ] && append+=" pttests=$(echo $TESTS | tr ' ' ',')"
[ $demo = 1 ] && append+=" ptdemo=1"
[ -n "$MODTREE" ] && append+=" ptmodprobe=1"
# Two vCPUs, run by one host thread.  With QEMU 7.2's multi-threaded TCG we
# saw both vCPUs spin for ever on a stale int3 in do_exit() after the kernel
# live-patched a tracepoint's jump label during a module load while other
# processes exited (memory held the new jmp; real CPUs cannot do that after
# text_poke's serialising IPIs).  QEMU_TCG=multi brings it back.
if [ "${QEMU_TCG:-single}" = multi ]; then
	accel=(-accel tcg -smp 2)
else
	accel=(-accel tcg,thread=single -smp 2)
fi
if [ $smoke = 1 ]; then
	append+=" ptbench=smoke"
elif [ $bench = 1 ]; then
	append+=" ptbench=1"
	# GUIDE §2: the guest clock counts executed instructions.
	accel=(-accel tcg,thread=single -icount shift=0 -smp 1)
fi

rm -f "$BUILD/console.log" "$BUILD/tap.out"
if [ $demo = 1 ]; then
	console=stdio,id=con,signal=off,logfile=$BUILD/console.log
else
	console=file,id=con,path=$BUILD/console.log
fi
msg "booting $KVER ($ntests tests, timeout ${TIMEOUT}s); console: $BUILD/console.log"
# A kernel that dies before PID 1 has said anything (seen once with the
# debug kernel under TCG: KASAN in an interrupt during CPU identification)
# ran nothing of ptags, whose module PID 1 loads: boot once more, and keep
# that console as console-boot1.log.
for boot in 1 2; do
	start=$(date +%s)
	rc=0
	timeout --foreground -k 10 "$TIMEOUT" \
		"${QEMU[@]}" "${accel[@]}" -m "$GUEST_MEM" \
			-nographic -no-reboot -monitor none -nic none \
			-kernel "$vmlinuz" -initrd "$BUILD/initrd.gz" -append "$append" \
			-chardev "$console" -serial chardev:con \
			-chardev file,id=tap,path="$BUILD/tap.out" "${TAP_DEV[@]}" \
			$QEMU_EXTRA </dev/null || rc=$?
	elapsed=$(($(date +%s) - start))
	msg "guest ran for ${elapsed}s (qemu exit status $rc)"
	[ $boot = 1 ] && [ $rc != 124 ] && [ ! -s "$BUILD/tap.out" ] || break
	mv "$BUILD/console.log" "$BUILD/console-boot1.log"
	echo "# the kernel died before PID 1 started (console-boot1.log): booting again" |
		tee -a "$results"
	tail -n 30 "$BUILD/console-boot1.log" >&2
done

# 4. Verdict.
touch "$BUILD/tap.out" "$BUILD/console.log"
tr -d '\r' <"$BUILD/tap.out" | tee -a "$results"

[ $rc = 124 ] && msg "timed out after ${TIMEOUT}s"
done=0
grep -qxF "$DONE_MARKER" "$BUILD/tap.out" || done=1
check $done "guest ran to completion (done marker; qemu status $rc, ${elapsed}s)"

# The command line itself names hung_task_panic etc.: not a problem.  No
# "grep -q": it stops reading at the first match, and under pipefail the
# writer's SIGPIPE would turn a found problem into "ok".
kernlog() { tr -d '\r' <"$BUILD/console.log" | grep -v 'command line'; }
if kernlog | grep -E "$PROBLEMS" >/dev/null; then
	msg "kernel problems in $BUILD/console.log:"
	kernlog | grep -E -B2 -A25 "$PROBLEMS" | head -n 120 >&2
	check 1 "kernel log has no BUG/WARNING/Oops/lockup/stall"
else
	check 0 "kernel log has no BUG/WARNING/Oops/lockup/stall"
fi

if grep -q '^not ok' "$results"; then
	[ $demo = 1 ] || tail -n 40 "$BUILD/console.log" >&2
	msg "FAIL ($(grep -c '^not ok' "$results") failed; see $results)"
	exit 1
fi
msg "PASS"
