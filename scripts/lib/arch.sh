# SPDX-License-Identifier: GPL-2.0
#
# What differs between the guests' architectures, in one place.  Sourced by
# the scripts that build for a guest or boot one; needs "repo" set.
#
#   amd64  qemu-system-x86_64, console ttyS0, TAP port ttyS1, this machine's
#          gcc and busybox-static, crun and runc as installed here
#   arm64  qemu-system-aarch64 -M virt -cpu max (TCG), console ttyAMA0 (the
#          PL011, virt's only UART), TAP port a PCI serial port (ttyS0);
#          everything cross-built with aarch64-linux-gnu-gcc; busybox-static,
#          crun and runc are Debian's arm64 packages unpacked into the cache,
#          their libraries installed as multiarch (dpkg --add-architecture
#          arm64) and copied from /usr/lib/aarch64-linux-gnu
#
#   arch_of ABI          amd64 or arm64 (a Debian ABI ends in its flavour;
#                        a flavour is also taken)
#   arch_set ARCH        sets QEMU (an array: binary, machine, CPU),
#                        CONSOLE_TTY, TAP_TTY, TAP_DEV (QEMU arguments that
#                        connect a chardev "tap" to TAP_TTY), CROSS (the
#                        compiler prefix, empty for amd64), KMAKE (kbuild's
#                        variables: ARCH and CROSS_COMPILE, empty for amd64,
#                        so that a cross shell's environment does not reach
#                        an amd64 build), GNU_TYPE,
#                        UNAME_M (the kernel's name: x86_64, aarch64)
#   arch_deps ARCH       install what ARCH's guests need (scripts/deps.sh)
#   arch_userland ARCH   print a directory holding bin/busybox,
#                        usr/bin/crun and usr/sbin/runc for ARCH
#   arch_with_libs ARCH BIN ROOT
#                        copy BIN's shared libraries (and its loader) into
#                        ROOT at their paths

arch_of() {
	case $1 in
	arm64|*-arm64) echo arm64 ;;
	*) echo amd64 ;;
	esac
}

arch_set() {
	case $1 in
	amd64)
		QEMU=(qemu-system-x86_64 -cpu max)
		CONSOLE_TTY=ttyS0
		TAP_TTY=ttyS1
		TAP_DEV=(-serial chardev:tap)
		CROSS=
		KMAKE=(CROSS_COMPILE=)
		GNU_TYPE=x86_64-linux-gnu
		UNAME_M=x86_64
		;;
	arm64)
		# pauth-impdef: QEMU's own pointer-authentication hash, much
		# cheaper to emulate than the architected QARMA.
		QEMU=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on)
		CONSOLE_TTY=ttyAMA0
		TAP_TTY=ttyS0
		TAP_DEV=(-device pci-serial,chardev=tap)
		CROSS=aarch64-linux-gnu-
		KMAKE=(ARCH=arm64 CROSS_COMPILE=$CROSS)
		GNU_TYPE=aarch64-linux-gnu
		UNAME_M=aarch64
		;;
	*)
		echo "arch.sh: unknown architecture $1 (amd64, arm64)" >&2
		return 1
		;;
	esac
}

arch_deps() {
	[ "$1" = arm64 ] || return 0
	"$repo/scripts/deps.sh" arm64
}

# The arm64 packages the guest takes files from: unpacked, never installed
# (busybox-static and crun are not co-installable with this machine's own).
arch_userland() {
	local arch=$1 dir tmp p

	if [ "$arch" = amd64 ]; then
		echo /
		return
	fi
	dir=${PTAGS_CACHE:-$repo/.cache/kernels}/userland-$arch
	mkdir -p "$dir"
	exec 7>"$dir.lock"
	flock 7
	if [ ! -e "$dir/.done" ]; then
		tmp=$(mktemp -d "$dir.XXXXXX")
		chmod 777 "$tmp"	# apt-get download runs as _apt
		for p in busybox-static crun runc; do
			(cd "$tmp" && apt-get download -q "$p:$arch" >&2) ||
				{ rm -rf "$tmp"; exec 7>&-; return 1; }
		done
		for p in "$tmp"/*.deb; do
			dpkg-deb -x "$p" "$dir" ||
				{ rm -rf "$tmp"; exec 7>&-; return 1; }
		done
		rm -rf "$tmp"
		touch "$dir/.done"
	fi
	exec 7>&-
	echo "$dir"
}

# The libraries BIN needs, by its ELF NEEDED entries (ldd cannot run a
# foreign binary), looked up where Debian's multiarch packages put them.
arch_with_libs() {
	local arch=$1 bin=$2 root=$3 lib interp todo seen=" " f d

	if [ "$arch" = amd64 ]; then
		for lib in $(ldd "$bin" | grep -oE '/[^ ]+'); do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
		return
	fi
	arch_set "$arch"
	interp=$("${CROSS}readelf" -l "$bin" | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
	if [ -n "$interp" ]; then
		mkdir -p "$root$(dirname "$interp")"
		cp -L "$interp" "$root$interp" || return 1
	fi
	todo=$bin
	while [ -n "$todo" ]; do
		f=${todo%% *}
		[ "$todo" = "$f" ] && todo= || todo=${todo#* }
		for lib in $("${CROSS}readelf" -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			[[ $seen == *" $lib "* ]] && continue
			seen+="$lib "
			for d in /lib/$GNU_TYPE /usr/lib/$GNU_TYPE; do
				[ -e "$d/$lib" ] || continue
				mkdir -p "$root$d"
				cp -L "$d/$lib" "$root$d/$lib"
				todo+="${todo:+ }$d/$lib"
				continue 2
			done
			echo "arch.sh: $bin needs $lib: not in /lib/$GNU_TYPE" >&2
			return 1
		done
	done
}
