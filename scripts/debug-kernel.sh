#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the debug kernel of "make check-debug": Debian's
# linux-source-6.1 with x86_64_defconfig + kvm_guest.config +
# tests/qemu/debug.config (KASAN, lockdep, kmemleak, fault injection).
#
#   scripts/debug-kernel.sh          build if needed; print the build dir
#                                    (vmlinuz is BUILDDIR/arch/x86/boot/bzImage;
#                                    modules build with make -C BUILDDIR M=...)
#
# Environment:
#   DEBUG_KERNEL_CACHE  where source and build live (default
#                       <repo>/.cache/debug-kernel); the build is reused when
#                       the linux-source-6.1 version, the config fragment and
#                       this script are unchanged
#   JOBS                make -j (default: number of CPUs)
#
# The build runs under nice; its log is CACHE/build.log and its duration in
# seconds CACHE/build.seconds.

set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${DEBUG_KERNEL_CACHE:-$repo/.cache/debug-kernel}
fragment=$repo/tests/qemu/debug.config
jobs=${JOBS:-$(nproc)}
pkg=linux-source-6.1

msg() { echo "debug-kernel: $*" >&2; }
die() { msg "$*"; exit 1; }

"$repo/scripts/deps.sh" base || die "cannot install the build dependencies"
missing=()
for p in $pkg flex bison bc libelf-dev libssl-dev cpio; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} != 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]}"
	msg "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
		--no-install-recommends "${missing[@]}" </dev/null >&2
fi

version=$(dpkg-query -W -f='${Version}' $pkg)
tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n1)
[ -n "$tarball" ] || die "no /usr/src/linux-source-6.1.tar.*"
key=$( { echo "$version"; cat "$fragment" "$0"; } | sha256sum | cut -c1-16)

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
src=$cache/src
out=$cache/build
exec 9>"$cache/.lock"
flock 9

if [ -s "$cache/key" ] && [ "$(cat "$cache/key")" = "$key" ] &&
   [ -s "$out/arch/x86/boot/bzImage" ] && [ -s "$out/Module.symvers" ]; then
	echo "$out"
	exit 0
fi

start=$(date +%s)
rm -f "$cache/key"
if [ "$(cat "$cache/src.version" 2>/dev/null)" != "$version" ] ||
   [ ! -e "$src/Makefile" ]; then
	msg "unpacking $tarball ($version)"
	rm -rf "$src" "$out"
	mkdir -p "$src"
	nice tar -xf "$tarball" -C "$src" --strip-components=1
	echo "$version" >"$cache/src.version"
fi

mkdir -p "$out"
msg "configuring (x86_64_defconfig + kvm_guest.config + $(basename "$fragment"))"
make -s -C "$src" O="$out" x86_64_defconfig kvm_guest.config >"$cache/build.log" 2>&1
(cd "$src" && ./scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "$fragment") \
	>>"$cache/build.log" 2>&1
make -s -C "$src" O="$out" olddefconfig >>"$cache/build.log" 2>&1

# Every line of the fragment must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case $line in CONFIG_*=*) ;; *) continue ;; esac
	opt=${line%%=*}
	val=${line#*=}
	if [ "$val" = n ]; then
		grep -qx "$opt=[ym]" "$out/.config" || continue
	elif grep -qx "$opt=$val" "$out/.config"; then
		continue
	fi
	msg "config: wanted $line, got: $(grep -E "^$opt=|^# $opt is not set" "$out/.config" || echo unset)"
	bad=1
done <"$fragment"
[ $bad = 0 ] || die "tests/qemu/debug.config does not apply to $version"

msg "building bzImage and modules with -j$jobs under nice; log: $cache/build.log"
nice -n 10 make -C "$src" O="$out" -j"$jobs" bzImage modules >>"$cache/build.log" 2>&1 ||
	{ tail -n 40 "$cache/build.log" >&2; die "kernel build failed"; }
# modules_prepare leaves what "make M=" needs; Module.symvers comes from modules.
[ -s "$out/Module.symvers" ] || die "no Module.symvers after the build"
secs=$(($(date +%s) - start))
echo "$secs" >"$cache/build.seconds"
echo "$key" >"$cache/key"
msg "built in ${secs}s: $out/arch/x86/boot/bzImage"
echo "$out"
