#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make deb": build the Debian packages ptags-dkms, libptags1, libptags-dev
# and ptags with Debian's tools (dpkg-buildpackage, debhelper, dh-dkms) from
# a clean copy of the sources under $BUILD (default <repo>/build/deb), so
# that nothing is written next to the work tree, then check them with
# lintian.  Prints the paths of the .deb files.

set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$repo/build/deb}

need=()
for p in dpkg-dev debhelper dh-dkms lintian; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		need+=("$p")
done
if [ ${#need[@]} != 0 ]; then
	[ "$(id -u)" = 0 ] || { echo "deb: missing ${need[*]}" >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
		--no-install-recommends "${need[@]}" >&2 </dev/null
fi

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$repo/dkms.conf")
deb=$(cd "$repo" && dpkg-parsechangelog -S Version)
[ "$ver" = "$deb" ] ||
	{ echo "deb: dkms.conf says $ver, debian/changelog $deb" >&2; exit 1; }

rm -rf "$BUILD"
src=$BUILD/ptags-$ver
mkdir -p "$src"
cp -a "$repo"/{debian,dkms.conf,Kbuild,Makefile,VERSION,module,include,lib,tools,LICENSE,LICENSE.MIT} "$src/"
(cd "$src" && make -C lib clean && make -C tools clean) >/dev/null
(cd "$src" && dpkg-buildpackage -b -us -uc) >"$BUILD/build.log" 2>&1 ||
	{ cat "$BUILD/build.log" >&2; exit 1; }
# lintian's verdict on every package; the tags it may report and why they
# are accepted are in debian/lintian-accepted.
(cd "$BUILD" && lintian --pedantic --display-info --fail-on error,warning,info,pedantic \
	--suppress-tags-from-file "$repo/debian/lintian-accepted" \
	ptags_"$ver"_*.changes) >"$BUILD/lintian.log" 2>&1 ||
	{ cat "$BUILD/lintian.log" >&2; echo "deb: lintian failed" >&2; exit 1; }
ls "$BUILD"/*_"$ver"_*.deb
