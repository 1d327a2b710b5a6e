#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages a target needs, if they are missing.  Quick
# when everything is there; needs root otherwise.  Every script that builds
# or boots something calls this first, so that the README's commands work on
# a fresh Debian 12 machine.
#
#   scripts/deps.sh [GROUP...]     default group: base
#
# Groups: base (build the module, the host tests and boot the guest; crun
# and runc are copied into the guest for the container tests),
# style (checkpatch.pl from the kernel source), arm64 (QEMU for arm64, the
# cross compiler, and as multiarch packages the arm64 libraries that the
# guest's static programs link with and its crun and runc load; adds the
# arm64 architecture to dpkg first).

set -euo pipefail

pkgs_base=(
	build-essential gcc make clang libclang-rt-14-dev
	qemu-system-x86 busybox-static cpio kmod libelf-dev bc python3
	libjansson-dev crun runc groff-base
)

pkgs_style=(linux-source-6.1 perl xz-utils)

pkgs_arm64=(
	qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	libjansson-dev:arm64 libc6:arm64 libcap2:arm64 libseccomp2:arm64
	libsystemd0:arm64 libyajl2:arm64
)

# bpf: the BPF peer of the benchmark (tests/bench/bpf-peer): clang's BPF
# target, bpftool for vmlinux.h and the skeleton, the static libbpf and
# what it links.
pkgs_bpf=(clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libzstd-dev)
# bpf-kptr: the kptr peer (tests/bench/bpf-peer/kptr.bpf.c) needs BTF type
# tags (__kptr), which bookworm's clang 14 does not emit; its clang-19 does.
pkgs_bpf_kptr=("${pkgs_bpf[@]}" clang-19)

want=()
for group in "${@:-base}"; do
	var="pkgs_${group//-/_}[@]"
	if ! declare -p "pkgs_${group//-/_}" >/dev/null 2>&1; then
		echo "deps: unknown group $group" >&2
		exit 2
	fi
	want+=("${!var}")
done

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]} (run as root, or install them)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
for p in "${missing[@]}"; do
	a=${p#*:}
	[ "$a" != "$p" ] || continue
	dpkg --print-foreign-architectures | grep -qx "$a" || dpkg --add-architecture "$a"
done
apt-get update -q >&2
apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" </dev/null >&2
