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
#   kernel.sh fetch ABI [HOW]        unpack linux-image-ABI-unsigned (sid:
#                                    linux-binary-ABI) into the
#                                    cache and print the path of vmlinuz;
#                                    when HOW is "host" (the default), also
#                                    install linux-headers-ABI when
#                                    /lib/modules/ABI/build is missing
#   kernel.sh list                   print the lines of kernels.list
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

msg() { echo "kernel.sh: $*" >&2; }
die() { msg "$*"; exit 1; }

kernels() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list"; }

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
		line=$(kernels | head -n1)
		read -r suite flavour series _ <<<"$line"
	fi
	flavour=${flavour:-amd64}
	series=${series:--}
	other_suites "$suite"
	if [ "$series" != - ]; then
		a=$(series_abi "$suite" "$flavour" "$series")
		[ -n "$a" ] || die "no linux-image-$series.*-$flavour in $suite"
		echo "$a"
		return
	fi
	# The host's own release: apt's candidate, which includes the
	# security suite (the point release lags behind it).  Another suite:
	# that suite's version of the metapackage.
	pkg=linux-image-$flavour
	[ "$suite" = "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" ] ||
		pkg=$pkg/$suite
	a=$(apt-cache depends "$pkg" 2>/dev/null |
	    sed -n "s/^ *Depends: linux-image-\([0-9].*-$flavour\)\(-unsigned\)\?\$/\1/p" |
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
	local abi=$1 how=${2:-host} dir=$cache/$1 pkg=linux-image-$1-unsigned tmp

	mkdir -p "$dir"
	# Concurrent runs fetch the same kernel once.
	exec 9>"$dir/.lock"
	flock 9
	if [ ! -s "$dir/vmlinuz" ]; then
		known "$pkg" || known "linux-binary-$abi" || apt_update
		# sid splits the image: linux-binary-ABI has vmlinuz.
		known "$pkg" || pkg=linux-binary-$abi
		known "$pkg" || die "the archive has no linux-image-$abi-unsigned nor $pkg"
		tmp=$(mktemp -d "$dir/tmp.XXXXXX")
		chmod 777 "$tmp"	# apt-get download runs as _apt
		msg "downloading $pkg"
		(cd "$tmp" && apt-get download -q "$pkg" >&2)
		dpkg-deb -x "$tmp"/"$pkg"_*.deb "$tmp/root"
		# /boot, or (sid) the module directory.
		cp "$tmp/root/boot/vmlinuz-$abi" "$dir/vmlinuz.new" 2>/dev/null ||
			cp "$tmp/root/usr/lib/modules/$abi/vmlinuz" "$dir/vmlinuz.new"
		cp "$tmp/root/boot/config-$abi" "$dir/config" 2>/dev/null || true
		mv "$dir/vmlinuz.new" "$dir/vmlinuz"
		rm -rf "$tmp"
	fi
	if [ "$how" = host ] && [ ! -d "/lib/modules/$abi/build" ]; then
		[ "$(id -u)" = 0 ] || die "linux-headers-$abi missing and not root"
		known "linux-headers-$abi" || apt_update
		msg "installing linux-headers-$abi"
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
			--no-install-recommends "linux-headers-$abi" >&2
	fi
	exec 9>&-
	echo "$dir/vmlinuz"
}

case ${1:-} in
abi)	shift; abi "$@" ;;
fetch)	[ $# = 2 ] || [ $# = 3 ] || die "usage: kernel.sh fetch ABI [HOW]"
	shift; fetch "$@" ;;
list)	kernels ;;
*)	sed -n '4,24s/^# \?//p' "$0" >&2; exit 2 ;;
esac
