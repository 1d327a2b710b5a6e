#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and install ptags for one Debian kernel the way a user's machine
# does, through DKMS ("dkms add", "dkms build -k KVER", "dkms install -k
# KVER"), against that kernel's own headers and compiler, and lay the
# installed module tree out for a guest:
#
#   scripts/dkms-build.sh KVER HOW OUT
#
# HOW says where the headers come from (column 4 of tests/qemu/kernels.list):
#   host     linux-headers-KVER installed on this machine with apt-get
#            (refused when that would install a kernel image)
#   unpack   linux-headers-KVER, its -common and its linux-kbuild unpacked
#            with dpkg-deb -x into a private root under the cache (they may
#            not be installable here); the compiler the headers name
#            (.kernelvariables) is installed with apt-get (gcc-10 comes from
#            bullseye)
#   chroot   everything happens inside a chroot of the kernel's suite made
#            with debootstrap and cached (trixie's gcc-14, sid's gcc-16: they
#            do not install here)
#
# DKMS runs with private trees (--dkmstree, --sourcetree, --installtree)
# under OUT, so nothing of this machine's own DKMS state changes, except in
# the chroot, which is private anyway.  The DKMS build is the default
# "make -C KDIR M=..." that dkms.conf gets from Kbuild alone; a second,
# plain kbuild run with W=1 checks for warnings (the DKMS log is checked
# too).
#
# OUT gets: lib/modules/KVER (the install tree: updates/dkms/ptags.ko and
# the depmod files), ptags.ko (the installed module, uncompressed), dkms.log,
# dkms-make.log (kbuild's output in the DKMS build), w1.log, and cc (the
# compiler's version line).  Exits non-zero on any
# failure or warning.  Needs root.
#
# Cache: $PTAGS_CACHE (default <repo>/.cache/kernels) for private roots;
# $PTAGS_CHROOTS (default <repo>/.cache/chroot) for the chroots.

set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${PTAGS_CACHE:-$repo/.cache/kernels}
chroots=${PTAGS_CHROOTS:-$repo/.cache/chroot}

. "$repo/scripts/lib/arch.sh"

msg() { echo "dkms-build: $*" >&2; }
die() { msg "$*"; exit 1; }

[ $# = 3 ] || die "usage: dkms-build.sh KVER host|unpack|chroot OUT"
kver=$1 how=$2 out=$3
arch=$(arch_of "$kver")
arch_set "$arch"
[ "$(id -u)" = 0 ] || die "needs root (apt-get, dkms, chroot)"

name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' "$repo/dkms.conf")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$repo/dkms.conf")
[ -n "$name" ] && [ -n "$ver" ] || die "dkms.conf has no PACKAGE_NAME/VERSION"

export DEBIAN_FRONTEND=noninteractive
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The DKMS source directory: what the ptags-dkms package ships.
stage_source() {
	local dir=$1

	rm -rf "$dir"
	mkdir -p "$dir/include"
	cp -a "$repo/dkms.conf" "$repo/Kbuild" "$repo/module" "$dir/"
	cp -a "$repo/include/uapi" "$dir/include/"
	find "$dir" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \
		-o -name '*.mod' -o -name '*.mod.c' \) -delete
}

# warnings LOG: fail when kbuild printed a warning.
warnings() {
	if grep -qi 'warning' "$1"; then
		grep -i -B2 -A4 'warning' "$1" | head -n 40 >&2
		die "warnings in $1"
	fi
}

# The compiler the headers were made for: CC (and CROSS_COMPILE, which
# sid sets to the host's triplet) in .kernelvariables.
kernel_cc() {
	local v=$1/.kernelvariables

	sed -n 's/^override CROSS_COMPILE = *//p' "$v" | grep -v '\$(' | head -n1 | tr -d '\n'
	sed -n 's/^CC = .*)\(gcc[-0-9]*\).*$/\1/p' "$v" | head -n1
}

# The compiler of the headers in KDIR for this build: CROSS (scripts/lib/arch.sh)
# before it when the headers leave CROSS_COMPILE to the caller (6.1's do,
# 6.12's name aarch64-linux-gnu- themselves).
build_cc() {
	local cc

	cc=$(kernel_cc "$1")
	[ -n "$cc" ] || die "no CC in $1/.kernelvariables"
	case $cc in
	*-linux-gnu-*) echo "$cc" ;;
	*) echo "$CROSS$cc" ;;
	esac
}

# The package of compiler CC: gcc-N for this machine's triplet, gcc-N-TRIPLET
# for a cross compiler.
cc_package() {
	local pkg=${1##*-linux-gnu-} triplet=${1%-gcc*}

	[ "$triplet" = "$1" ] || [ "$triplet" = "$(gcc -dumpmachine)" ] ||
		pkg=$pkg-$triplet
	echo "$pkg"
}

# need_cc CC: install the kernel's compiler on this machine if missing.
need_cc() {
	local pkg

	pkg=$(cc_package "$1")

	command -v "$1" >/dev/null && return
	msg "installing $pkg"
	apt-cache show "$pkg" >/dev/null 2>&1 || apt-get update -qq >&2
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "$pkg" >&2 </dev/null
}

# dkms_host KDIR: DKMS on this machine, with private trees under OUT.
dkms_host() {
	local kdir=$1 cc trees
	local -a opts=()

	cc=$(build_cc "$kdir")
	# Another architecture's kernel: cross (DKMS passes the environment
	# on to make).
	if [ "$arch" != amd64 ]; then
		export ARCH=$arch CROSS_COMPILE=$CROSS
		opts+=(--arch "$UNAME_M")
	else
		unset ARCH CROSS_COMPILE	# a cross shell's
	fi
	need_cc "$cc"
	"$cc" --version | head -n1 >"$out/cc"

	rm -rf "$out/dkms" "$out/lib" "$out/w1"
	trees=$out/dkms
	mkdir -p "$trees/tree" "$trees/src" "$out/lib/modules/$kver"
	stage_source "$trees/src/$name-$ver"
	opts+=(--dkmstree "$trees/tree" --sourcetree "$trees/src"
	       --installtree "$out/lib/modules" --no-depmod)
	[ "$how" = host ] || opts+=(--kernelsourcedir "$kdir")
	{
		dkms add "$name/$ver" "${opts[@]}" &&
		dkms build "$name/$ver" -k "$kver" "${opts[@]}" &&
		dkms install "$name/$ver" -k "$kver" "${opts[@]}"
	} >"$out/dkms.log" 2>&1 || { cat "$out/dkms.log" >&2; die "dkms failed for $kver"; }
	cat "$trees/tree/$name/$ver/$kver/"*/log/make.log >"$out/dkms-make.log"
	warnings "$out/dkms-make.log"

	# W=1, plain kbuild, same headers and compiler.
	stage_source "$out/w1"
	make -C "$kdir" M="$out/w1" W=1 modules >"$out/w1.log" 2>&1 ||
		{ cat "$out/w1.log" >&2; die "W=1 build failed for $kver"; }
	warnings "$out/w1.log"
}

# chroot_cross_headers DIR: another architecture's headers in the chroot
# DIR, the way a cross build on a machine of SUITE has them: its
# linux-headers-KVER unpacked (not installed: they depend on that
# architecture's compiler and kbuild), and installed with apt-get their
# -common, the kbuild of the chroot's own architecture and the version the
# headers name, and the cross compiler.
chroot_cross_headers() {
	local dir=$1 pkg=linux-headers-$kver:$arch v deps tmp gcc

	[ -e "$dir/usr/src/linux-headers-$kver/.cross-done" ] && return
	arch_deps "$arch" || die "cannot install the packages $arch needs"
	read -r v deps <<<"$("$repo/scripts/kernel.sh" header-packages "$kver")"
	[ -n "$v" ] || die "cannot resolve $pkg"
	tmp=$(mktemp -d)
	chmod 777 "$tmp"	# apt-get download runs as _apt
	(cd "$tmp" && apt-get download -q "$pkg=$v" >&2) || die "cannot download $pkg"
	dpkg-deb -x "$tmp"/*.deb "$tmp/root"
	rm -rf "$dir/usr/src/linux-headers-$kver"
	cp -a "$tmp/root/usr/src/linux-headers-$kver" "$dir/usr/src/"
	rm -rf "$tmp"
	mkdir -p "$dir/usr/lib/modules/$kver"
	ln -sfn "/usr/src/linux-headers-$kver" "$dir/usr/lib/modules/$kver/build"
	gcc=$(cc_package "$(build_cc "$dir/usr/src/linux-headers-$kver")")
	msg "installing dkms, $deps and $gcc in the $suite chroot"
	chroot "$dir" sh -c "apt-get update -qq && apt-get -o DPkg::Lock::Timeout=600 install -y -q \
		--no-install-recommends dkms make $deps $gcc" >&2 </dev/null ||
		die "cannot install the $kver cross build in the $suite chroot"
	touch "$dir/usr/src/linux-headers-$kver/.cross-done"
}

# dkms_chroot SUITE: DKMS inside the cached chroot of SUITE.
dkms_chroot() {
	local suite=$1 dir=$chroots/$1 mirror src

	mkdir -p "$chroots"
	exec 8>"$chroots/.$suite.lock"
	flock 8
	if [ ! -e "$dir/.done" ]; then
		command -v debootstrap >/dev/null ||
			apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends debootstrap >&2 </dev/null
		mirror=$("$repo/scripts/apt-suites.sh")
		rm -rf "$dir"
		msg "debootstrap $suite into $dir"
		debootstrap --variant=minbase --include=ca-certificates "$suite" \
			"$dir" "$mirror" >"$chroots/$suite-debootstrap.log" 2>&1 ||
			{ tail -n 30 "$chroots/$suite-debootstrap.log" >&2; die "debootstrap $suite failed"; }
		# The host's view of the archive's dates (a mirror may
		# serve a frozen snapshot): same in the chroot.
		apt-config dump | grep -E '^Acquire::Check-(Valid-Until|Date) ' \
			>"$dir/etc/apt/apt.conf.d/99ptags-host" || true
		touch "$dir/.done"
	fi
	if [ "$arch" != amd64 ]; then
		chroot_cross_headers "$dir"
	elif [ ! -d "$dir/usr/src/linux-headers-$kver" ] ||
	   ! chroot "$dir" sh -c 'command -v dkms' >/dev/null; then
		msg "installing dkms and linux-headers-$kver in the $suite chroot"
		chroot "$dir" sh -c "apt-get update -qq && apt-get -o DPkg::Lock::Timeout=600 install -y -q \
			--no-install-recommends dkms linux-headers-$kver" >&2 </dev/null ||
			die "cannot install linux-headers-$kver in the $suite chroot"
	fi
	# objtool reads /proc/self.
	if ! mountpoint -q "$dir/proc"; then
		mount -t proc proc "$dir/proc"
		chroot_proc=$dir/proc
		trap 'umount "$chroot_proc"' EXIT
	fi
	cc=$(build_cc "$dir/usr/src/linux-headers-$kver")
	chroot "$dir" "$cc" --version | head -n1 >"$out/cc"
	# Cross (DKMS passes the environment on to make).
	local -a env=(env -u ARCH -u CROSS_COMPILE)
	[ "$arch" = amd64 ] ||
		env+=(ARCH="$arch" CROSS_COMPILE="$CROSS")

	src=/usr/src/$name-$ver
	chroot "$dir" dkms remove "$name/$ver" --all >/dev/null 2>&1 || true
	stage_source "$dir$src"
	rm -rf "$dir/tmp/ptags-w1"
	stage_source "$dir/tmp/ptags-w1"
	{
		chroot "$dir" dkms add "$name/$ver" &&
		chroot "$dir" "${env[@]}" dkms build "$name/$ver" -k "$kver" -a "$UNAME_M" &&
		chroot "$dir" dkms install "$name/$ver" -k "$kver" -a "$UNAME_M" --no-depmod
	} >"$out/dkms.log" 2>&1 </dev/null ||
		{ cat "$out/dkms.log" >&2; die "dkms failed for $kver in the $suite chroot"; }
	cat "$dir/var/lib/dkms/$name/$ver/$kver/"*/log/make.log >"$out/dkms-make.log"
	warnings "$out/dkms-make.log"
	chroot "$dir" "${env[@]}" make -C "/usr/src/linux-headers-$kver" M=/tmp/ptags-w1 W=1 \
		modules >"$out/w1.log" 2>&1 </dev/null ||
		{ cat "$out/w1.log" >&2; die "W=1 build failed for $kver"; }
	warnings "$out/w1.log"

	rm -rf "$out/lib"
	mkdir -p "$out/lib/modules/$kver"
	cp -a "$dir/lib/modules/$kver/updates" "$out/lib/modules/$kver/"
	chroot "$dir" dkms remove "$name/$ver" --all >/dev/null 2>&1 || true
	exec 8>&-
}

case $how in
host)
	[ -d "/lib/modules/$kver/build" ] || {
		apt-cache show "linux-headers-$kver" >/dev/null 2>&1 || apt-get update -qq >&2
		# Some headers (6.12's) depend on their kernel image: never
		# install a kernel on this machine for a test, unpack those.
		if apt-get install -s --no-install-recommends "linux-headers-$kver" |
		   grep -q '^Inst linux-image-'; then
			die "linux-headers-$kver would install a kernel image here: use HOW unpack"
		fi
		msg "installing linux-headers-$kver"
		apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "linux-headers-$kver" >&2 </dev/null
	}
	dkms_host "$(readlink -f "/lib/modules/$kver/build")"
	;;
unpack)
	kdir=$("$repo/scripts/kernel.sh" headers "$kver" unpack) ||
		die "cannot unpack the headers of $kver"
	dkms_host "$kdir"
	;;
chroot)
	case $kver in
	*+deb13-*) dkms_chroot trixie ;;
	*+deb14-*) dkms_chroot sid ;;
	*) die "no chroot suite known for $kver" ;;
	esac
	;;
*)	die "unknown HOW $how" ;;
esac

# The install tree as the guest sees it: depmod's files next to the module.
rm -f "$out/lib/modules/$kver/build" "$out/lib/modules/$kver/source"
ko=$(find "$out/lib/modules/$kver" -name "$name.ko*" | head -n1)
[ -n "$ko" ] || die "dkms installed no $name.ko for $kver"
case $ko in
*.ko.xz) xz -dc "$ko" >"$out/$name.ko" ;;
*.ko.zst) zstd -qdc "$ko" >"$out/$name.ko" ;;
*.ko.gz) gzip -dc "$ko" >"$out/$name.ko" ;;
*) cp "$ko" "$out/$name.ko" ;;
esac
# Only ptags is here: the kernel's own lists are empty.
for f in modules.order modules.builtin modules.builtin.modinfo; do
	touch "$out/lib/modules/$kver/$f"
done
depmod -b "$out" "$kver"
grep -q "$name.ko" "$out/lib/modules/$kver/modules.dep" ||
	die "depmod did not list $name in modules.dep"
msg "$kver: installed ${ko#"$out"/} ($(cat "$out/cc"))"
