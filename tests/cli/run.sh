#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the ptags command line (no module needed): arguments,
# options and messages, against a fake root ($PTAGS_ROOT) whose files
# record what the command wrote.  TAP on stdout; exits non-zero when a test
# failed.
#
#   tests/cli/run.sh [PTAGS]     PTAGS: the binary (default tools/ptags.anyroot,
#                                whose libptags reads a plain directory as a
#                                root; the installed ptags refuses one)

set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
PTAGS=${1:-$repo/tools/ptags.anyroot}
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

for c in rm set unset keep unkeep has apply ps exec stats; do
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

# --level N|own (SPEC §12): usage errors.
for bad in 01 x -1 +1 1x ' 1' OWN 1234567890; do
	run --level "$bad" ps
	ok $([ $rc = 2 ] && [ "$err" = "ptags: --level takes a depth (0, 1, ...) or 'own', not '$bad'
Try 'ptags --help'." ] && echo 0 || echo 1) \
		"'--level \"$bad\"' is not a level ($rc: ${err%%$'\n'*})"
done
for args in --level --level= "ps --level"; do
	run $args
	ok $([ $rc = 2 ] && [ "$err" = "ptags: --level needs a depth (0, 1, ...) or 'own'
Try 'ptags --help'." ] && echo 0 || echo 1) \
		"'$args' without a level says so ($rc: ${err%%$'\n'*})"
done
for args in "--level 1 --root $root ps" "--root=$root ps --level=own" \
	    "--level 0 --root $root --help"; do
	run $args
	ok $([ $rc = 2 ] && [ "$err" = "ptags: --level and --root cannot be given together
Try 'ptags --help'." ] && echo 0 || echo 1) \
		"'${args//$root/ROOT}': --level and --root exclude each other ($rc: ${err%%$'\n'*})"
done
run --level=own --help
ok $([ $rc = 0 ] && [[ "$out" == *"--level N|own"* ]] && echo 0 || echo 1) \
	"'--level=own --help' shows the usage ($rc)"

# --level on this host, without the module: never $PTAGS_ROOT (the fake
# entry 50 exists); a caller that may mount (CAP_SYS_ADMIN) hears that
# ptags is not available (8), one that may not (no mount of the level
# either) permission denied (3).
proc 'X
'
if grep -q '^nodev	ptags$' /proc/filesystems; then
	echo "ok $((n += 1)) - --level without the module # SKIP ptags is loaded here"
else
	cap=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
	nodev="ptags: cannot open level 0: ptags is not available (load the module: modprobe ptags)"
	noperm="ptags: cannot open level 0: permission denied (mounting a level needs CAP_SYS_ADMIN over this process's pid and mount namespaces, and no mount of the level in /proc/self/mountinfo shows this process)"
	run --level 0 50
	if [ $(((0x$cap >> 21) & 1)) = 1 ]; then
		ok $([ $rc = 8 ] && [ "$err" = "$nodev" ] && [ -z "$out" ] && echo 0 || echo 1) \
			"'--level 0 50' with CAP_SYS_ADMIN, no module: not available ($rc: ${err%%$'\n'*})"
	else
		ok $([ $rc = 3 ] && [ "$err" = "$noperm" ] && [ -z "$out" ] && echo 0 || echo 1) \
			"'--level 0 50' without CAP_SYS_ADMIN, no ptags mount: permission denied ($rc: ${err%%$'\n'*})"
	fi
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
			--inh-caps=-all "$PTAGS" --level own ps 2>"$root/.err")
		rc=$?
		err=$(cat "$root/.err")
		ok $([ $rc = 3 ] && [ "$err" = "ptags: cannot open level own: permission denied (mounting its own level needs CAP_SYS_ADMIN in its user namespace and over its mount namespace, as after 'unshare -Urm')" ] && echo 0 || echo 1) \
			"'--level own' as uid 65534: permission denied, no fallback ($rc: ${err%%$'\n'*})"
	fi
fi

# libptags.a defines no global symbol but the API's: its pt_* helpers
# (shared with the module) must not meet a program's own pt_* names.
if [ -e "$repo/lib/libptags.a" ]; then
	other=$(nm -g --defined-only "$repo/lib/libptags.a" 2>/dev/null | awk 'NF == 3 && $3 !~ /^ptags_/ { print $3 }' | tr '\n' ' ')
	ok $([ -z "$other" ] && echo 0 || echo 1) "libptags.a: every global symbol is ptags_* (others: ${other:-none})"
fi

# The man pages: no control bytes in the source (a "\f" typed into a
# script once became a form feed there), and groff has nothing to warn of.
for page in "$repo"/tools/*.1; do
	cntrl=$(LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f\x7f]' "$page")
	warn=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
	ok $([ "$cntrl" = 0 ] && [ -z "$warn" ] && echo 0 || echo 1) \
		"$(basename "$page"): no control bytes ($cntrl lines), no groff warnings (${warn:0:100})"
done

# Terminal escapes from a workload (its process name, its tags' text) are
# printed as \xHH, as util-linux prints names.
proc $'E:x=a\x1b[31mb\\c\xc2\x9bd\xe2\x82\xac\n'
run 50
ok $([ $rc = 0 ] && [ "$out" = 'E:x=a\x1b[31mb\c\xc2\x9bd€' ] && echo 0 || echo 1) \
	"ptags PID: ESC and a C1 control in a value are escaped; UTF-8 text and a backslash (the SPEC text) are not ('$out')"
evil=$root/.bin/$'\x1b]0;x\a'
mkdir -p "$root/.bin" && cp "$(command -v sleep)" "$evil"
"$evil" 30 &
epid=$!
sleep 0.2
printf 'E:y\n' >"$root/$epid"
run ps E:y
kill "$epid" 2>/dev/null
wait "$epid" 2>/dev/null
rm -f "$root/$epid"
ok $([ $rc = 0 ] && [[ "$out" == *'\x1b]0;x\x07'*'E:y'* ]] && [[ "$out" != *$'\x1b'* ]] && echo 0 || echo 1) \
	"ptags ps: a process name with terminal escapes is printed escaped ('$out')"
run exec --tag A true -h
ok $([ $rc != 0 ] || [[ "$out" != *"Usage"* ]] && [[ "$out" != *"usage"* ]] && echo 0 || echo 1) \
	"'ptags exec --tag A CMD -h': -h is CMD's, not ptags's help ($rc: $out)"
run watch self
ok $([ $rc = 2 ] && [[ "$err" == *"self"* ]] && echo 0 || echo 1) \
	"'ptags watch self' is a usage error that says why ($rc: $err)"

# The ptags that is installed reads tags from a ptags file system only: a
# plain directory of forged files named by PTAGS_ROOT (or a container's
# empty /proc/ptags) is "not available", exit 8, for every kind of call.
REAL=$(dirname "$PTAGS")/ptags
if [ -x "$REAL" ] && [ "$REAL" != "$PTAGS" ]; then
	proc 'S:camera'
	for args in "50" "has 50 S:camera" "ps" "ps --json" "add 50 X"; do
		# shellcheck disable=SC2086
		err=$("$REAL" $args 2>&1 >/dev/null)
		rc=$?
		ok $([ $rc = 8 ] && [[ "$err" == *"not available"* ]] && [ "$(written)" = 'S:camera' ] && echo 0 || echo 1) \
			"installed ptags: 'ptags $args' with PTAGS_ROOT a plain directory: not available, exit 8 ($rc: $err)"
	done
fi

# ptags-oci-hook (built next to ptags): with no ptags file system at
# PTAGS_ROOT, as while the module is not loaded.
HOOK=$(dirname "$PTAGS")/ptags-oci-hook
if [ -x "$HOOK" ]; then
	nofs=$(mktemp -d)
	state='{"ociVersion":"1.0.2","id":"c1","pid":'$$',"status":"created","bundle":"/"}'
	hook() {	# hook ARGS...: status in $rc, errors in $err
		err=$(printf '%s' "$state" | PTAGS_ROOT=$nofs/none "$HOOK" "$@" 2>&1 >/dev/null)
		rc=$?
	}
	hook
	ok $([ $rc = 1 ] && [[ "$err" == *"not loaded"* ]] && echo 0 || echo 1) \
		"hook: ptags not loaded: the container is refused by default ($rc: $err)"
	hook --if-loaded
	ok $([ $rc = 0 ] && [[ "$err" == *"starts untagged"* ]] && echo 0 || echo 1) \
		"hook --if-loaded: ptags not loaded: the container starts untagged, and says so ($rc: $err)"
	hook --kubernetes
	ok $([ $rc = 2 ] && [[ "$err" == *"containerd"* ]] && echo 0 || echo 1) \
		"hook --kubernetes needs the runtime whose annotations to trust ($rc: $err)"
	hook --kubernetes=podman
	ok $([ $rc = 2 ] && echo 0 || echo 1) "hook --kubernetes=podman: no such preset ($rc: $err)"
	hook --kubernetes=containerd --kubernetes=cri-o
	ok $([ $rc = 2 ] && [[ "$err" == *"k8s:"* ]] && echo 0 || echo 1) \
		"hook: two presets map two keys onto one tag: refused ($rc: $err)"
	hook --annotation a=x --annotation b=x
	ok $([ $rc = 2 ] && [[ "$err" == *"x"* ]] && echo 0 || echo 1) \
		"hook: two annotations onto one tag name: refused ($rc: $err)"
	hook --kubernetes=cri-o --if-loaded
	ok $([ $rc = 0 ] && echo 0 || echo 1) "hook --kubernetes=cri-o --if-loaded runs ($rc: $err)"
	out=$("$HOOK" -V 2>&1)
	ok $([ $? = 0 ] && [[ "$out" == "ptags-oci-hook "* ]] && echo 0 || echo 1) "hook -V prints its version ($out)"
	esc=$(printf '{"id":"a\\u001b[2Jb","pid":99999999}' | PTAGS_ROOT=$nofs/none "$HOOK" 2>&1 >/dev/null)
	ok $([[ "$esc" == *'a\x1b[2Jb'* ]] && [[ "$esc" != *$'\x1b'* ]] && echo 0 || echo 1) \
		"hook: a container id with a terminal escape is shown escaped in its messages ($esc)"
	big=$( { printf '{"id":"c","pid":1,"x":"'; head -c $((5 << 20)) /dev/zero | tr '\0' a; printf '"}'; } |
		PTAGS_ROOT=$nofs/none "$HOOK" 2>&1 >/dev/null)
	rc=$?
	ok $([ $rc = 1 ] && [[ "$big" == *"larger than 4 MiB"* ]] && echo 0 || echo 1) \
		"hook: a state over 4 MiB on stdin is refused, not read to the end ($rc: ${big:0:120})"
	rm -rf "$nofs"
fi

# ptags stats (issue 26): the module's counters from $PTAGS_STATS_DIR (a
# fake /sys/module/ptags/stats), as lines, JSON and Prometheus text.
stats=$root/.stats
mkdir -p "$stats"
for f in live_sets=2 tagged_processes=3 bytes=40 memory=400 inherited=7 \
	 pruned=1 refused=5 killed=0 watch_queued=9 future_thing=4; do
	echo "${f#*=}" >"$stats/${f%=*}"
done
export PTAGS_STATS_DIR=$stats
run stats
ok $([ $rc = 0 ] && [ "$(echo "$out" | head -n1)" = "bytes 40" ] &&
	echo "$out" | grep -qx "refused 5" && echo "$out" | grep -qx "future_thing 4" &&
	[ "$(echo "$out" | wc -l)" = 10 ] && echo 0 || echo 1) \
	"stats: one NAME VALUE line per counter, sorted, unknown ones too ($rc)"
run stats --prometheus
ok $([ $rc = 0 ] && echo "$out" | grep -qx "ptags_refused_total 5" &&
	echo "$out" | grep -qx "# TYPE ptags_refused_total counter" &&
	echo "$out" | grep -qx "# TYPE ptags_tagged_processes gauge" &&
	echo "$out" | grep -qx "ptags_tagged_processes 3" &&
	echo "$out" | grep -qx "ptags_killed_total 0" &&
	echo "$out" | grep -qx "# TYPE ptags_future_thing untyped" &&
	[ "$(echo "$out" | grep -c '^# HELP ptags_')" = 10 ] && echo 0 || echo 1) \
	"stats --prometheus: HELP, TYPE and a sample per counter, _total on counters ($rc)"
run --json stats
ok $([ $rc = 0 ] && [ "$out" = '{"bytes":40,"future_thing":4,"inherited":7,"killed":0,"live_sets":2,"memory":400,"pruned":1,"refused":5,"tagged_processes":3,"watch_queued":9}' ] &&
	echo 0 || echo 1) "--json stats: one object ($rc, '$out')"
echo 3 >"$stats/we-ird\"x"
run --json stats
ok $([ $rc = 0 ] && [ "$out" = '{"bytes":40,"future_thing":4,"inherited":7,"killed":0,"live_sets":2,"memory":400,"pruned":1,"refused":5,"tagged_processes":3,"watch_queued":9}' ] &&
	echo 0 || echo 1) "stats: a file whose name is not [A-Za-z0-9_] is no counter, in any format ($rc, '$out')"
run stats --prometheus
ok $([ $rc = 0 ] && ! echo "$out" | grep -q 'ird' && echo 0 || echo 1) \
	"stats --prometheus: no metric of that name ($rc)"
rm -f "$stats/we-ird\"x"
run stats --prometheus --json
ok $([ $rc = 2 ] && echo 0 || echo 1) "stats: --prometheus and --json together are a usage error ($rc)"
run stats 50
ok $([ $rc = 2 ] && echo 0 || echo 1) "stats takes no argument ($rc)"
echo junk >"$stats/bytes"
run stats
ok $([ $rc = 9 ] && [[ "$err" == *bytes* ]] && echo 0 || echo 1) \
	"stats: a counter that is not a number is an error naming it ($rc, '$err')"
export PTAGS_STATS_DIR=$root/.nostats
run stats --prometheus
ok $([ $rc = 8 ] && [ -z "$out" ] && [[ "$err" == *"not loaded"* ]] && echo 0 || echo 1) \
	"stats without the module: exit 8, nothing on stdout ($rc, '$err')"
export PTAGS_STATS_DIR=$root/.statsfile
echo 1 >"$PTAGS_STATS_DIR"
run stats
ok $([ $rc = 9 ] && [[ "$err" != *"not loaded"* ]] && [[ "$err" == *.statsfile* ]] && echo 0 || echo 1) \
	"stats: a directory that cannot be read (not one) is an error, not \"not loaded\" ($rc, '$err')"
rm -f "$PTAGS_STATS_DIR"
unset PTAGS_STATS_DIR

echo "1..$n"
[ $failed = 0 ]
