#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the ptags command line (no module needed): arguments,
# options and messages, against a fake root ($PTAGS_ROOT) whose files
# record what the command wrote.  TAP on stdout; exits non-zero when a test
# failed.
#
#   tests/cli/run.sh [PTAGS]     PTAGS: the binary (default tools/ptags)

set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
PTAGS=${1:-$repo/tools/ptags}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
export PTAGS_ROOT=$root
n=0
failed=0

ok() {	# ok COND-STATUS NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# run ARGS...: status in $rc, output in $out, errors in $err.
run() {
	out=$("$PTAGS" "$@" 2>"$root/.err")
	rc=$?
	err=$(cat "$root/.err")
}

# A fresh fake process 50 with the tags (SPEC text) $1.
proc() {
	printf '%s' "$1" >"$root/50"
}
written() { cat "$root/50"; }

proc ''
run add 50 X --json
ok $([ $rc = 0 ] && [ "$(written)" = "+X" ] && echo 0 || echo 1) \
	"options after the arguments are options: 'add 50 X --json' writes only +X ($rc, '$(written)')"

proc ''
run add 50 --help
ok $([ $rc = 0 ] && [ -z "$(written)" ] && [[ "$out" == *"add PID"* ]] && echo 0 || echo 1) \
	"'add 50 --help' shows the command's usage and writes nothing ($rc)"

for c in rm set unset keep unkeep has apply ps exec; do
	run "$c" --help
	ok $([ $rc = 0 ] && [[ "$out" == "Usage: ptags $c"* ]] && echo 0 || echo 1) \
		"'$c --help' shows the usage of $c ($rc)"
done

run exec --from 50 -- true
ok $([ $rc = 2 ] && [[ "$err" == *"go together"* ]] && echo 0 || echo 1) \
	"'exec --from' without --match is a usage error ($rc: $err)"
run exec --from +5 --match 'a:*' -- true
ok $([ $rc = 2 ] && [[ "$err" == *"not a process id"* ]] && echo 0 || echo 1) \
	"'exec --from +5' is not a process id ($rc)"
run exec --from 50 --match 'bad*' -- true
ok $([ $rc = 5 ] && echo 0 || echo 1) "'exec --match bad*': an invalid pattern ($rc)"
run exec --from $$ --match 'a:*' -- true
ok $([ $rc = 8 ] && echo 0 || echo 1) \
	"'exec --from' on a root that is not a ptags file system: not available ($rc: $err)"

run --root
ok $([ $rc = 2 ] && [[ "$err" == *"--root needs a directory"* ]] && echo 0 || echo 1) \
	"'--root' without a directory says so ($rc: $err)"

proc ''
run add 50 -- -dash
ok $([ $rc = 0 ] && [ "$(written)" = "+-dash" ] && echo 0 || echo 1) \
	"'--' ends the options: a tag may begin with '-' ('$(written)')"

run add 50 --bogus X
ok $([ $rc = 2 ] && [[ "$err" == *"unknown option '--bogus'"* ]] && echo 0 || echo 1) \
	"an unknown option is a usage error, not a tag ($rc)"

proc ''
run rm 50 @X
ok $([ $rc = 0 ] && [ "$(written)" = "-X" ] && echo 0 || echo 1) \
	"'rm 50 @X' takes the name as 'ptags PID' prints it ($rc, '$(written)')"

proc ''
run set 50 @X=v
ok $([ $rc = 0 ] && [ "$(written)" = "!X=v" ] && echo 0 || echo 1) \
	"'set 50 @X=v' sets the value of X ($rc, '$(written)')"

proc ''
run keep 50 @X
ok $([ $rc = 0 ] && [ "$(written)" = "$(printf '?X\n+@X')" ] && echo 0 || echo 1) \
	"'keep 50 @X' keeps X ($rc, '$(written)')"

printf '@X=v\nY\n' >"$root/50"
run has 50 @X
ok $rc "'has 50 @X': X is kept: yes"
run has 50 @X=v
ok $rc "'has 50 @X=v': yes"
run has 50 @Y
ok $([ $rc = 1 ] && echo 0 || echo 1) "'has 50 @Y': Y is not kept: no ($rc)"
run has 50 Y
ok $rc "'has 50 Y': yes"

for bad in ' 12' '+1' '012' '1 ' '0x1' '-1' '99999999999'; do
	run "$bad"
	ok $([ $rc = 2 ] && echo 0 || echo 1) "'$bad' is not a process id ($rc)"
	run add "$bad" X
	ok $([ $rc = 2 ] && echo 0 || echo 1) "'add \"$bad\" X': not a process id ($rc)"
done

proc ''
printf '+a\n# fine\n+b*\n-c\n' >"$root/in"
run apply 50 "$root/in"
ok $([ $rc = 5 ] && [[ "$err" == *"line 3 '+b*'"* ]] && [ -z "$(written)" ] && echo 0 || echo 1) \
	"apply names the invalid line and writes nothing ($rc: $err)"

run add 50 'a*'
ok $([ $rc = 5 ] && [[ "$err" != *SPEC* ]] && [[ "$err" == *"contains '*'"* ]] && echo 0 || echo 1) \
	"an invalid name is explained by its rule, not by a SPEC section ($err)"
run has 50 'a*b'
ok $([ $rc = 5 ] && [[ "$err" != *SPEC* ]] && echo 0 || echo 1) \
	"an invalid query is explained without a SPEC section ($err)"

echo "1..$n"
[ $failed = 0 ]
