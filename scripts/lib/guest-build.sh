# SPDX-License-Identifier: GPL-2.0
#
# The build half of scripts/guest-test.sh, sourced by it (its variables:
# repo, BUILD, KVER, arch, bench, scale, smoke, only, TESTS, MODTREE, MODSRC,
# GUEST_TESTS, GUEST_BINS, kmake, umake; its functions msg, check, fatal).
#
#   guest_kernel     the image to boot (vmlinuz) and the headers to build
#                    against (kdir; kroot when they are in a chroot)
#   guest_module     1. ptags.ko (and the benchmark's modules)
#   guest_initramfs  2. the initramfs, $BUILD/initrd.gz; ntests

MODTREE=${MODTREE:-}

# The kernel: its image and, unless a DKMS tree brings the module, its headers.
guest_kernel() {
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

}

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

# build_module NAME SRCDIR [MAKE ARGS]: a module for the benchmark.
build_module() {
	local name=$1 src=$2
	shift 2
	kbuild "$src" W=1 "$@" modules >"$BUILD/$name.log" 2>&1 ||
		fatal "$name builds"
}

# 1. The module, built from a private copy of its sources.
guest_module() {
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

	if [ $bench = 1 ] && [ $scale = 0 ] && [ $smoke = 0 ] && [ -z "$only" ]; then
		rm -rf "$BUILD/src-floor" "$BUILD/kprobe-floor"
		cp -a "$BUILD/src" "$BUILD/src-floor"
		kbuild "$BUILD/src-floor" clean >/dev/null 2>&1
		build_module ptags_floor "$BUILD/src-floor" CONFIG_PTAGS_FLOOR=y
		cp -a tests/bench/kprobe-floor "$BUILD/kprobe-floor"
		build_module kprobe_floor "$BUILD/kprobe-floor"
	fi
}

# The benchmark's initramfs has no test programs.
wanted() { [ $bench = 0 ] && { [ -z "$TESTS" ] || [[ " $TESTS " == *" $1 "* ]]; }; }

# 2. The initramfs.
guest_initramfs() {
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
		if [ $smoke = 0 ] && [ -z "$only" ]; then
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
	# packages unpacked (scripts/lib/arch.sh).
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
}
