#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make the Debian suites of the kernel matrix known to apt, at a low pin
# priority so that nothing on this machine is upgraded from them:
#
#   /etc/apt/sources.list.d/ptags-matrix.sources   bullseye, trixie, sid
#   /etc/apt/preferences.d/ptags-matrix            Pin-Priority 100
#
# The mirror is the one this machine already uses (the URIs of
# /etc/apt/sources.list.d/debian.sources).  Runs apt-get update when it
# changed something, or when asked to (--update).  Needs root.
#
#   scripts/apt-suites.sh [--update]    print the mirror URI

set -euo pipefail

src=/etc/apt/sources.list.d/debian.sources
out=/etc/apt/sources.list.d/ptags-matrix.sources
pin=/etc/apt/preferences.d/ptags-matrix

die() { echo "apt-suites: $*" >&2; exit 1; }

[ -r "$src" ] || die "no $src to take the mirror from"
# The first URIs of a stanza whose suites are not the security ones.
mirror=$(awk '/^URIs:/ { u = $2 } /^Suites:/ && !/-security/ { print u; exit }' "$src")
security=$(awk '/^URIs:/ { u = $2 } /^Suites:/ && /-security/ { print u; exit }' "$src")
[ -n "$mirror" ] || die "no URIs in $src"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

want=$(cat <<EOT
# Written by ptags scripts/apt-suites.sh: the suites of its kernel matrix.
Types: deb
URIs: $mirror
Suites: bullseye trixie sid
Components: main
Signed-By: $keyring
${security:+
Types: deb
URIs: $security
Suites: bullseye-security
Components: main
Signed-By: $keyring}
EOT
)
wantpin=$(cat <<'EOT'
# Written by ptags scripts/apt-suites.sh: packages of the matrix's suites
# only when asked for by name or suite, never as upgrades.
Package: *
Pin: release n=bullseye
Pin-Priority: 100

Package: *
Pin: release n=bullseye-security
Pin-Priority: 100

Package: *
Pin: release n=trixie
Pin-Priority: 100

Package: *
Pin: release n=sid
Pin-Priority: 100
EOT
)

changed=0
if [ "$(cat "$out" 2>/dev/null)" != "$want" ] ||
   [ "$(cat "$pin" 2>/dev/null)" != "$wantpin" ]; then
	[ "$(id -u)" = 0 ] || die "need root to write $out"
	printf '%s\n' "$want" >"$out"
	printf '%s\n' "$wantpin" >"$pin"
	changed=1
fi
if [ $changed = 1 ] || [ "${1:-}" = --update ]; then
	echo "apt-suites: apt-get update" >&2
	apt-get update -qq >&2
fi
echo "$mirror"
