#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make e2e": the user's path, end to end, on a real Debian 12 system in
# QEMU (TCG).
#
#   1. A bookworm root file system made with debootstrap (systemd, udev,
#      dkms, kmod, linux-image-KVER and linux-headers-KVER, podman, auditd,
#      containerd, python3-grpcio, python3-protobuf, protobuf-compiler, and
#      the CRI's api.proto from golang-k8s-cri-api-dev, which only sid has),
#      cached in $PTAGS_E2E (default <repo>/.cache/e2e/root); a fresh ext4
#      disk image is made from it for every run.
#   2. The packages of scripts/deb.sh (ptags-dkms, libptags1, libptags-dev,
#      ptags, ptags-oci-hook) are copied into it, with tests/e2e/ptags-e2e (the steps),
#      its Kubernetes node steps (ptags-e2e-cri.sh, the CRI client ptags-cri,
#      the runc wrapper ptags-e2e-runc) and a systemd unit that runs them.
#   3. First boot: dpkg -i of the four packages (DKMS builds and installs
#      the module for the running kernel), modprobe ptags, /proc/ptags/$$
#      read and written, the packaged ptags command (/usr/bin/ptags, linked
#      with the packaged libptags.so.1) used, podman's and containerd's
#      (CRI) containers tagged by ptags-oci-hook, modprobe -r ptags (the
#      modprobe.d "remove" line unmounts), reboot.  Second boot: the module is still installed for the running
#      kernel, modprobe ptags loads it, /proc/ptags/$$ works, power off.
#
# The guest reports TAP on its second serial port ($BUILD/tap.out); the
# console is $BUILD/console.log.  Ends with "N passed, M failed".
#
# Environment: BUILD (default <repo>/build/e2e), KVER (default
# scripts/kernel.sh abi), TIMEOUT (seconds for both boots, default 2400).
# Needs root.

set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
BUILD=${BUILD:-$repo/build/e2e}
TIMEOUT=${TIMEOUT:-2400}
cache=${PTAGS_E2E:-$repo/.cache/e2e}
root=$cache/root

msg() { echo "e2e: $*" >&2; }
die() { msg "$*"; echo "0 passed, 1 failed"; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot)"
scripts/deps.sh base || die "cannot install the packages it needs"
export DEBIAN_FRONTEND=noninteractive
for p in debootstrap e2fsprogs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "$p" >&2 </dev/null
done
KVER=${KVER:-$(ARCH= scripts/kernel.sh abi)}	# amd64 only
mkdir -p "$BUILD" "$cache"
BUILD=$(cd "$BUILD" && pwd)
t0=$(date +%s)

# chrooted CMD...: run in the root with /proc, /sys and /dev mounted.
chrooted() {
	local rc=0

	mount -t proc proc "$root/proc"
	mount -t sysfs sysfs "$root/sys"
	mount --bind /dev "$root/dev"
	chroot "$root" "$@" || rc=$?
	umount "$root/dev" "$root/sys" "$root/proc"
	return $rc
}

# 1. The root file system.
exec 9>"$cache/.lock"
flock 9
if [ ! -e "$root/.done-$KVER-7" ]; then
	rm -rf "$root"
	mirror=$(awk '/^URIs:/ { u = $2 } /^Suites:/ && !/-security/ { print u; exit }' \
		/etc/apt/sources.list.d/debian.sources)
	[ -n "$mirror" ] || die "no mirror in /etc/apt/sources.list.d/debian.sources"
	msg "debootstrap bookworm into $root"
	debootstrap --variant=minbase \
		--include=systemd,systemd-sysv,udev,kmod,ca-certificates \
		bookworm "$root" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		{ tail -n 30 "$cache/debootstrap.log" >&2; die "debootstrap failed"; }
	# The same archive as this machine (bookworm-security has the kernel).
	rm -f "$root/etc/apt/sources.list"
	cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
	apt-config dump | grep -E '^Acquire::Check-(Valid-Until|Date) ' \
		>"$root/etc/apt/apt.conf.d/99ptags-host" || true
	msg "installing dkms, linux-image-$KVER and its headers in the root"
	chrooted sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends dkms \
		linux-image-$KVER linux-headers-$KVER initramfs-tools \
		libjansson4 podman uidmap busybox-static auditd containerd linux-perf \
		prometheus-node-exporter \
		python3-grpcio python3-protobuf protobuf-compiler" \
		>"$cache/install.log" 2>&1 </dev/null ||
		{ tail -n 30 "$cache/install.log" >&2; die "apt-get install in the root failed"; }
	chroot "$root" apt-get clean
	# The CRI (runtime.v1) api.proto for the e2e's CRI client: Debian has
	# it in golang-k8s-cri-api-dev, in sid only (scripts/apt-suites.sh
	# makes sid known, at a low pin); the .deb is only unpacked.
	scripts/apt-suites.sh >/dev/null || die "scripts/apt-suites.sh failed"
	dl=$cache/cri-api
	rm -rf "$dl"
	mkdir -p "$dl"
	(cd "$dl" && apt-get download -q golang-k8s-cri-api-dev/sid) >"$cache/cri-api.log" 2>&1 &&
		dpkg-deb -x "$dl"/golang-k8s-cri-api-dev_*.deb "$dl/x" ||
		{ tail -n 30 "$cache/cri-api.log" >&2; die "cannot get golang-k8s-cri-api-dev"; }
	mkdir -p "$root/usr/local/share/ptags-e2e/cri-api/v1"
	cp "$dl/x/usr/share/gocode/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto" \
		"$root/usr/local/share/ptags-e2e/cri-api/v1/" || die "no api.proto in golang-k8s-cri-api-dev"
	dpkg-deb -f "$dl"/golang-k8s-cri-api-dev_*.deb Version \
		>"$root/usr/local/share/ptags-e2e/cri-api/VERSION"
	rm -rf "$dl"
	echo ptags-e2e >"$root/etc/hostname"
	printf '/dev/vda / ext4 defaults 0 1\n' >"$root/etc/fstab"
	chroot "$root" passwd -d root >/dev/null
	touch "$root/.done-$KVER-7"
fi

# 2. This run's disk: the cached root plus the package and the steps.
debs=$(BUILD=$BUILD/deb scripts/deb.sh) || die "scripts/deb.sh failed"
img=$BUILD/disk.img
rm -f "$img"
stage=$BUILD/stage
rm -rf "$stage"
mkdir -p "$stage"
cp "$root/boot/vmlinuz-$KVER" "$root/boot/initrd.img-$KVER" "$stage/" ||
	die "no kernel or initrd in the root"
overlay=$BUILD/overlay
rm -rf "$overlay"
mkdir -p "$overlay/root" "$overlay/usr/local/sbin" "$overlay/etc/systemd/system"
for deb in $debs; do
	case $deb in
	*-dbgsym_*) ;;
	*) cp "$deb" "$overlay/root/" ;;
	esac
done
install -m 755 tests/e2e/ptags-e2e "$overlay/usr/local/sbin/ptags-e2e"
install -m 755 tests/e2e/ptags-cri tests/e2e/ptags-e2e-runc "$overlay/usr/local/sbin/"
install -D -m 644 tests/e2e/ptags-e2e-cri.sh "$overlay/usr/local/lib/ptags-e2e/cri.sh"
cp tests/e2e/ptags-e2e.service "$overlay/etc/systemd/system/"
mkdir -p "$overlay/etc/systemd/system/multi-user.target.wants"
ln -s ../ptags-e2e.service \
	"$overlay/etc/systemd/system/multi-user.target.wants/ptags-e2e.service"
# mkfs.ext4 -d takes one tree: the root and the overlay merged in a copy.
tree=$BUILD/tree
rm -rf "$tree"
cp -a "$root" "$tree"
cp -a "$overlay/." "$tree/"
rm -f "$tree"/.done-*
size=$(( $(du -sm "$tree" | cut -f1) + 1536 ))
mkfs.ext4 -q -F -L ptags-e2e -d "$tree" "$img" "${size}M" ||
	die "mkfs.ext4 -d failed"
rm -rf "$tree"
exec 9>&-
msg "disk ready ($((size))M) after $(($(date +%s) - t0)) s"

# 3. Two boots: the guest reboots itself once, then powers off.
rm -f "$BUILD/console.log" "$BUILD/tap.out"
start=$(date +%s)
rc=0
timeout -k 10 "$TIMEOUT" qemu-system-x86_64 -accel tcg,thread=single -cpu max \
	-smp 2 -m 2048 -nographic -monitor none -nic none \
	-kernel "$stage/vmlinuz-$KVER" -initrd "$stage/initrd.img-$KVER" \
	-append "root=/dev/vda rw console=ttyS0 systemd.show_status=0" \
	-drive file="$img",format=raw,if=virtio \
	-chardev file,id=con,path="$BUILD/console.log" -serial chardev:con \
	-chardev file,id=tap,path="$BUILD/tap.out" -serial chardev:tap \
	</dev/null || rc=$?
booted=$(($(date +%s) - start))
msg "guest ran for ${booted}s (qemu exit status $rc)"

touch "$BUILD/tap.out"
tr -d '\r' <"$BUILD/tap.out" | tee "$BUILD/results.tap"
grep -qx '# ptags-e2e: done' "$BUILD/results.tap" ||
	{ echo "not ok - guest finished both boots (qemu status $rc, ${booted}s)" | tee -a "$BUILD/results.tap"; tail -n 40 "$BUILD/console.log" >&2; }
passed=$(grep -cE '^ok( |$)' "$BUILD/results.tap")
failed=$(grep -cE '^not ok( |$)' "$BUILD/results.tap")
msg "total ${booted}s in QEMU, $(($(date +%s) - t0))s in all"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
