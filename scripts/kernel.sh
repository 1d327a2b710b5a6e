#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian kernels for building and booting ptags.
#
#   kernel.sh abi [SUITE [FLAVOUR [SERIES]]]
#                                    print the ABI (e.g. 6.1.0-57-amd64) of
#                                    linux-image-FLAVOUR in SUITE, or with a
#                                    SERIES (e.g. 6.12) the newest
#                                    linux-image-SERIES.*-FLAVOUR in SUITE
#                                    (a series with no metapackage); defaults
#                                    are the first line of tests/qemu/kernels.list
#                                    (its first arm64 line with ARCH=arm64)
#   kernel.sh fetch ABI [HOW]        unpack linux-image-ABI-unsigned (sid:
#                                    linux-binary-ABI) into the
#                                    cache and print the path of vmlinuz;
#                                    when HOW is "host" (the default), also
#                                    install linux-headers-ABI when
#                                    /lib/modules/ABI/build is missing
#   kernel.sh headers ABI [HOW]      print the build directory of ABI's
#                                    headers: HOW "host" (the default for
#                                    this machine's architecture) installs
#                                    linux-headers-ABI; "unpack" (always for
#                                    arm64) unpacks them, their -common and
#                                    this machine's linux-kbuild of the same
#                                    version into a private root in the cache
#                                    and installs what those need to run
#   kernel.sh header-packages ABI    print the version of linux-headers-ABI
#                                    (of ABI's architecture) and the -common
#                                    and linux-kbuild packages of that version
#                                    it names, the last two without an
#                                    architecture: this machine's (or all)
#   kernel.sh list                   print the lines of kernels.list
#
# An ABI names its architecture (…-arm64: arm64, scripts/lib/arch.sh); arm64
# packages are taken with dpkg's arm64 architecture (scripts/deps.sh arm64).
#
# Suites other than this machine's own are made known to apt by
# scripts/apt-suites.sh (low pin priority), which abi and fetch call first.
#
# The cache is $PTAGS_CACHE (default <repo>/.cache/kernels); the image of
# ABI is $PTAGS_CACHE/ABI/vmlinuz and is reused when present.

set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${PTAGS_CACHE:-$repo/.cache/kernels}
list=$repo/tests/qemu/kernels.list

. "$repo/scripts/lib/arch.sh"

msg() { echo "kernel.sh: $*" >&2; }
die() { msg "$*"; exit 1; }

kernels() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list"; }

# ":arm64" for a package of a foreign architecture's kernel (ABI or
# flavour), else nothing.
pkg_arch() {
	local a

	a=$(arch_of "$1")
	[ "$a" = "$(dpkg --print-architecture)" ] || echo ":$a"
}

# apt-cache knows PKG (in any suite)?
known() { apt-cache show "$1" >/dev/null 2>&1; }

# A suite that is not this machine's own: make it known to apt.
other_suites() {
	case $1 in
	"$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"*) ;;
	*)	if [ "$(id -u)" = 0 ]; then
			"$repo/scripts/apt-suites.sh" >/dev/null
		fi ;;
	esac
}

apt_update() {
	[ "$(id -u)" = 0 ] || die "need root to run apt-get update"
	"$repo/scripts/apt-suites.sh" >/dev/null
	msg "apt-get update"
	apt-get update -qq >&2
}

# The newest linux-image-SERIES.*-FLAVOUR(-unsigned) that SUITE has.
series_abi() {
	local suite=$1 flavour=$2 series=$3 p

	apt-cache pkgnames "linux-image-$series." |
	sed -n "s/^linux-image-\($series\.[0-9][^ -]*-$flavour\)-unsigned\$/\1/p" |
	sort -rV | while read -r p; do
		if apt-cache madison "linux-image-$p-unsigned" |
		   grep -q " $suite/"; then
			echo "$p"
			break
		fi
	done
}

abi() {
	local suite=${1:-} flavour=${2:-} series=${3:--} line a pkg

	if [ -z "$suite" ]; then
		# The first kernel of the list, or with ARCH=arm64 (make
		# ARCH=arm64 run) its first arm64 kernel.
		case ${ARCH:-} in
		arm64|aarch64) line=$(kernels | awk '$2 ~ /(^|-)arm64$/' | head -n1) ;;
		*) line=$(kernels | head -n1) ;;
		esac
		read -r suite flavour series _ <<<"$line"
	fi
	flavour=${flavour:-amd64}
	series=${series:--}
	other_suites "$suite"
	# Another architecture's packages: known to apt once dpkg has it.
	[ -z "$(pkg_arch "$flavour")" ] || arch_deps "$(arch_of "$flavour")" ||
		die "cannot add the $(arch_of "$flavour") architecture"
	if [ "$series" != - ]; then
		a=$(series_abi "$suite" "$flavour" "$series")
		[ -n "$a" ] || die "no linux-image-$series.*-$flavour in $suite"
		echo "$a"
		return
	fi
	# The host's own release: apt's candidate, which includes the
	# security suite (the point release lags behind it).  Another suite:
	# that suite's version of the metapackage.
	pkg=linux-image-$flavour$(pkg_arch "$flavour")
	[ "$suite" = "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" ] ||
		pkg=$pkg/$suite
	a=$(apt-cache depends "$pkg" 2>/dev/null |
	    sed -n "s/^ *Depends: linux-image-\([0-9].*-$flavour\)\(-unsigned\)\?\(:[a-z0-9]*\)\?\$/\1/p" |
	    head -n1) || true
	if [ -z "$a" ]; then
		# apt knows nothing: the newest kernel whose headers are here.
		a=$(for d in /lib/modules/*-"$flavour"; do
			[ -d "$d/build" ] && basename "$d"
		    done 2>/dev/null | sort -V | tail -n1)
	fi
	[ -n "$a" ] || die "cannot resolve the ABI of linux-image-$flavour ($suite)"
	echo "$a"
}

fetch() {
	local abi=$1 how=${2:-host} dir=$cache/$1 tmp
	local pkg=linux-image-$1-unsigned$(pkg_arch "$1")

	mkdir -p "$dir"
	# Concurrent runs fetch the same kernel once.
	exec 9>"$dir/.lock"
	flock 9
	if [ ! -s "$dir/vmlinuz" ]; then
		[ -z "$(pkg_arch "$abi")" ] || arch_deps "$(arch_of "$abi")"
		known "$pkg" || known "linux-binary-$abi" || apt_update
		# sid splits the image: linux-binary-ABI has vmlinuz.
		known "$pkg" || pkg=linux-binary-$abi
		known "$pkg" || die "the archive has no linux-image-$abi-unsigned nor $pkg"
		tmp=$(mktemp -d "$dir/tmp.XXXXXX")
		chmod 777 "$tmp"	# apt-get download runs as _apt
		msg "downloading $pkg"
		(cd "$tmp" && apt-get download -q "$pkg" >&2)
		dpkg-deb -x "$tmp"/"${pkg%:*}"_*.deb "$tmp/root"
		# /boot, or (sid) the module directory.
		cp "$tmp/root/boot/vmlinuz-$abi" "$dir/vmlinuz.new" 2>/dev/null ||
			cp "$tmp/root/usr/lib/modules/$abi/vmlinuz" "$dir/vmlinuz.new"
		cp "$tmp/root/boot/config-$abi" "$dir/config" 2>/dev/null || true
		mv "$dir/vmlinuz.new" "$dir/vmlinuz"
		rm -rf "$tmp"
	fi
	if [ "$how" = host ] && [ -z "$(pkg_arch "$abi")" ] &&
	   [ ! -d "/lib/modules/$abi/build" ]; then
		[ "$(id -u)" = 0 ] || die "linux-headers-$abi missing and not root"
		known "linux-headers-$abi" || apt_update
		msg "installing linux-headers-$abi"
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
			--no-install-recommends "linux-headers-$abi" >&2
	fi
	exec 9>&-
	echo "$dir/vmlinuz"
}

# header_packages ABI: "VERSION COMMON KBUILD" of linux-headers-ABI.
header_packages() {
	local kver=$1 pkg v deps

	pkg=linux-headers-$kver$(pkg_arch "$kver")
	known "$pkg" || apt_update
	v=$(apt-cache show "$pkg" | sed -n 's/^Version: //p' | head -n1)
	[ -n "$v" ] || die "the archive has no $pkg"
	deps=$(apt-cache depends "$pkg=$v" |
	       grep -oE 'linux-(headers|kbuild)-[^ :>]+' |
	       grep -vxF "linux-headers-$kver" | sort -u)
	echo $v $deps
}

# unpack_headers ABI: the private root of ABI's headers; prints the kernel
# build directory.  For another architecture, its linux-headers-ABI and
# -common with this machine's linux-kbuild of the same version: the
# headers' scripts and tools links point at the kbuild, whose programs
# (fixdep, modpost, ...) must run here; the compiler is the cross one.
unpack_headers() {
	local kver=$1 root=$cache/$1/root pkg v deps tmp l t p a

	a=$(pkg_arch "$kver")
	[ -z "$a" ] || arch_deps "$(arch_of "$kver")"
	mkdir -p "$cache/$kver"
	exec 8>"$cache/$kver/.headers-lock"
	flock 8
	# (.native: a root unpacked before it existed is unpacked again.)
	if [ ! -e "$root/.done" ] || [ ! -e "$root/.native" ]; then
		pkg=linux-headers-$kver$a
		# The headers, their -common and their kbuild, all of version
		# v, the last two of this machine's architecture (or all).
		read -r v deps <<<"$(header_packages "$kver")"
		[ -n "$v" ] || exit 1
		rm -rf "$root" "$cache/$kver/debs"
		tmp=$cache/$kver/debs
		mkdir -p "$tmp" "$root"
		chmod 777 "$tmp"	# apt-get download runs as _apt
		msg "downloading $pkg $deps ($v)"
		for p in $pkg $deps; do
			(cd "$tmp" && apt-get download -q "$p=$v" >&2)
		done
		for p in "$tmp"/*.deb; do
			dpkg-deb -x "$p" "$root"
		done
		# Absolute links and includes point into /: into the root.
		find "$root" -type l -lname '/*' | while read -r l; do
			t=$(readlink "$l")
			ln -sfn "$root$t" "$l"
		done
		sed -i "s|^include /usr/src/|include $root/usr/src/|" \
			"$root/usr/src/linux-headers-$kver/Makefile"
		# What runs here: the packages of this machine's architecture.
		echo $deps >"$root/.native"
		[ -n "$a" ] || echo "$pkg" >>"$root/.native"
		rm -rf "$tmp"
		touch "$root/.done"
	fi
	# Unpacking skips the packages' dependencies, yet the build runs what
	# they name (pahole for BTF since 6.12, the kbuild tools' libraries):
	# install those here, first alternative of each; never a kernel image
	# (the headers of +deb12 kernels depend on theirs), nor the compiler
	# marker (dkms-build.sh installs the compiler).
	local need=() dep
	for dep in $(for p in $(cat "$root/.native"); do
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

headers() {
	local abi=$1 how=${2:-host}

	[ -z "$(pkg_arch "$abi")" ] || how=unpack
	case $how in
	host)
		fetch "$abi" host >/dev/null
		readlink -f "/lib/modules/$abi/build"
		;;
	unpack)	unpack_headers "$abi" ;;
	*)	die "headers: HOW is host or unpack" ;;
	esac
}

case ${1:-} in
abi)	shift; abi "$@" ;;
headers) [ $# = 2 ] || [ $# = 3 ] || die "usage: kernel.sh headers ABI [HOW]"
	shift; headers "$@" ;;
header-packages) [ $# = 2 ] || die "usage: kernel.sh header-packages ABI"
	header_packages "$2" ;;
fetch)	[ $# = 2 ] || [ $# = 3 ] || die "usage: kernel.sh fetch ABI [HOW]"
	shift; fetch "$@" ;;
list)	kernels ;;
*)	sed -n '4,42s/^# \?//p' "$0" >&2; exit 2 ;;
esac
