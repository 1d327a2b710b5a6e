#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make check": host unit tests, host tests of libptags, then the in-guest
# suite.  Each stage's output is saved under $BUILD (default <repo>/build):
# unit.log, unit.tap, libtest.log, libtest.tap, guest.log, guest.tap.
# The last line is exactly "N passed, M failed":
# N and M count the "ok" / "not ok" lines of all TAP streams, plus one
# failure for each stage that failed without saying "not ok" (a build error,
# a crash).  Exits non-zero when anything failed.
#
# Environment: BUILD, and whatever scripts/guest-test.sh takes (KVER,
# TESTS, TIMEOUT, TEST_TIMEOUT).

set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. scripts/lib/common.sh
build_dir "$repo/build"

scripts/deps.sh base || { echo "check: cannot install the packages it needs"; echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0

# count STAGE RC TAPFILE: add the stage's results to the totals.
count() {
	local stage=$1 rc=$2 tap=$3 ok notok

	read -r ok notok < <(tap_count "$tap")
	passed=$((passed + ok))
	failed=$((failed + notok))
	if [ "$rc" != 0 ] && [ "$notok" = 0 ]; then
		echo "check: $stage failed (exit $rc) without a \"not ok\"" >&2
		failed=$((failed + 1))
	fi
	echo "check: $stage: $ok passed, $notok failed (exit $rc)" >&2
}

# The contract lives in the repository (docs/SPEC.md); where the shared
# original sits beside the checkout (../shared/SPEC.md), the copy must be
# identical.  A user's clone has no ../shared: the check says it skipped.
{
	if [ ! -f ../shared/SPEC.md ]; then
		echo "ok - docs/SPEC.md is ../shared/SPEC.md # SKIP no ../shared/SPEC.md beside this checkout"
	elif cmp -s docs/SPEC.md ../shared/SPEC.md; then
		echo "ok - docs/SPEC.md is ../shared/SPEC.md"
	else
		echo "not ok - docs/SPEC.md differs from ../shared/SPEC.md (copy it: cp ../shared/SPEC.md docs/)"
	fi
} | tee "$BUILD/spec.tap"
count spec 0 "$BUILD/spec.tap"

# One version number for the module, library, command and packages.
rc=0
scripts/versions.sh | tee "$BUILD/versions.tap" || rc=$?
count versions "$rc" "$BUILD/versions.tap"

# Unit tests: the whole output is the TAP stream (make's chatter never
# starts with "ok").
if [ -f tests/unit/Makefile ]; then
	rc=0
	make --no-print-directory unit BUILD="$BUILD" 2>&1 |
		tee "$BUILD/unit.log" || rc=$?
	cp "$BUILD/unit.log" "$BUILD/unit.tap"
	count unit "$rc" "$BUILD/unit.tap"
else
	echo "check: no tests/unit/Makefile: no unit tests" >&2
	: >"$BUILD/unit.tap"
fi

# Host tests of libptags (fake root; no module needed).
if [ -f tests/lib/Makefile ]; then
	rc=0
	make --no-print-directory libtest BUILD="$BUILD" 2>&1 |
		tee "$BUILD/libtest.log" || rc=$?
	cp "$BUILD/libtest.log" "$BUILD/libtest.tap"
	count libtest "$rc" "$BUILD/libtest.tap"
fi

# Host tests of the ptags command line (a fake root; no module needed).
if [ -x tests/cli/run.sh ]; then
	rc=0
	{ make --no-print-directory tools >"$BUILD/cli-build.log" 2>&1 &&
		make --no-print-directory -C tools ptags.anyroot >>"$BUILD/cli-build.log" 2>&1 &&
		tests/cli/run.sh; } 2>&1 | tee "$BUILD/cli.tap" || rc=$?
	count cli "$rc" "$BUILD/cli.tap"
fi

# Guest suite: results.tap has the guest's TAP and the host-side checks.
rc=0
rm -f "$BUILD/guest/results.tap"
BUILD="$BUILD/guest" scripts/guest-test.sh 2>&1 | tee "$BUILD/guest.log" || rc=$?
cp "$BUILD/guest/results.tap" "$BUILD/guest.tap" 2>/dev/null || : >"$BUILD/guest.tap"
count guest "$rc" "$BUILD/guest.tap"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
