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

msg() { echo "dkms-build: $*" >&2; }
die() { msg "$*"; exit 1; }

[ $# = 3 ] || die "usage: dkms-build.sh KVER host|unpack|chroot OUT"
kver=$1 how=$2 out=$3
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

# unpack_headers: the private root of KVER; prints the kernel source dir.
unpack_headers() {
	local root=$cache/$kver/root pkg v deps tmp l t

	mkdir -p "$cache/$kver"
	exec 8>"$cache/$kver/.headers-lock"
	flock 8
	if [ ! -e "$root/.done" ]; then
		pkg=linux-headers-$kver
		apt-cache show "$pkg" >/dev/null 2>&1 || apt-get update -qq >&2
		v=$(apt-cache show "$pkg" | sed -n 's/^Version: //p' | head -n1)
		[ -n "$v" ] || die "the archive has no $pkg"
		# The headers, their -common and their kbuild, all of version v.
		deps=$(apt-cache depends "$pkg=$v" |
		       sed -n 's/^ *Depends: \(linux-\(headers\|kbuild\)-[^ ]*\)$/\1/p' |
		       sort -u)
		rm -rf "$root" "$cache/$kver/debs"
		tmp=$cache/$kver/debs
		mkdir -p "$tmp" "$root"
		chmod 777 "$tmp"	# apt-get download runs as _apt
		msg "downloading $pkg $deps ($v)"
		for p in $pkg $deps; do
			(cd "$tmp" && apt-get download -q "$p=$v" >&2)
		done
		for d in "$tmp"/*.deb; do
			dpkg-deb -x "$d" "$root"
		done
		# Absolute links and includes point into /: into the root.
		find "$root" -type l -lname '/*' | while read -r l; do
			t=$(readlink "$l")
			ln -sfn "$root$t" "$l"
		done
		sed -i "s|^include /usr/src/|include $root/usr/src/|" \
			"$root/usr/src/linux-headers-$kver/Makefile"
		rm -rf "$tmp"
		touch "$root/.done"
	fi
	# Unpacking skips the packages' dependencies, yet the build runs what
	# they name (pahole for BTF since 6.12, the kbuild tools' libraries):
	# install those here, first alternative of each; never a kernel image
	# (the headers of +deb12 kernels depend on theirs), nor the compiler
	# marker (need_cc installs the compiler).
	local need=() dep
	for dep in $(for p in "linux-headers-$kver" $(ls "$root/usr/src" | sed -n 's/^linux-\(kbuild\|headers\)-/&/p'); do
			apt-cache depends "$p" 2>/dev/null
		done | awk '/^ *\|?Depends:/ { if (!skip && $2 !~ /^</) print $2; skip = ($1 == "|Depends:") }' |
		grep -vE '^linux-(headers|kbuild|image|compiler)-' | sort -u); do
		dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q 'ok installed' ||
			need+=("$dep")
	done
	if [ ${#need[@]} != 0 ]; then
		msg "installing what the unpacked headers need: ${need[*]}"
		apt-get -o DPkg::Lock::Timeout=600 install -y -q \
			--no-install-recommends "${need[@]}" >&2 </dev/null ||
			die "cannot install ${need[*]}"
	fi
	exec 8>&-
	echo "$root/usr/src/linux-headers-$kver"
}

# need_cc CC: install the kernel's compiler on this machine if missing (the
# package is gcc-N whatever the triplet).
need_cc() {
	local pkg=${1##*-linux-gnu-}

	command -v "$1" >/dev/null && return
	msg "installing $pkg"
	apt-cache show "$pkg" >/dev/null 2>&1 || apt-get update -qq >&2
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "$pkg" >&2 </dev/null
}

# dkms_host KDIR: DKMS on this machine, with private trees under OUT.
dkms_host() {
	local kdir=$1 cc trees
	local -a opts

	cc=$(kernel_cc "$kdir")
	[ -n "$cc" ] || die "no CC in $kdir/.kernelvariables"
	need_cc "$cc"
	"$cc" --version | head -n1 >"$out/cc"

	rm -rf "$out/dkms" "$out/lib" "$out/w1"
	trees=$out/dkms
	mkdir -p "$trees/tree" "$trees/src" "$out/lib/modules/$kver"
	stage_source "$trees/src/$name-$ver"
	opts=(--dkmstree "$trees/tree" --sourcetree "$trees/src"
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
	if [ ! -d "$dir/usr/src/linux-headers-$kver" ] ||
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
	cc=$(kernel_cc "$dir/usr/src/linux-headers-$kver")
	chroot "$dir" "$cc" --version | head -n1 >"$out/cc"

	src=/usr/src/$name-$ver
	chroot "$dir" dkms remove "$name/$ver" --all >/dev/null 2>&1 || true
	stage_source "$dir$src"
	rm -rf "$dir/tmp/ptags-w1"
	stage_source "$dir/tmp/ptags-w1"
	{
		chroot "$dir" dkms add "$name/$ver" &&
		chroot "$dir" dkms build "$name/$ver" -k "$kver" &&
		chroot "$dir" dkms install "$name/$ver" -k "$kver" --no-depmod
	} >"$out/dkms.log" 2>&1 </dev/null ||
		{ cat "$out/dkms.log" >&2; die "dkms failed for $kver in the $suite chroot"; }
	cat "$dir/var/lib/dkms/$name/$ver/$kver/"*/log/make.log >"$out/dkms-make.log"
	warnings "$out/dkms-make.log"
	chroot "$dir" make -C "/usr/src/linux-headers-$kver" M=/tmp/ptags-w1 W=1 \
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
	dkms_host "$(unpack_headers)"
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
