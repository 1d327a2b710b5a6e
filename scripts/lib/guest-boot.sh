# SPDX-License-Identifier: GPL-2.0
#
# The boot and judge half of scripts/guest-test.sh, sourced by it (its
# variables and functions as for lib/guest-build.sh).
#
#   guest_boot   3. QEMU with $BUILD/initrd.gz: console.log, tap.out (rc,
#                elapsed: QEMU's status and seconds)
#   guest_judge  4. tap.out and the host's checks into results.tap; exits
#                1 on a "not ok"

DONE_MARKER='# ptags-guest: done'
# Kernel log lines that fail a run, whatever the tests said.
# ("stall" only in RCU's phrases: "install" is not a problem.)
PROBLEMS='BUG:|WARNING:|Oops|Call Trace|general protection|soft lockup|hard LOCKUP|hung_task|blocked for more than|rcu: INFO|detected stall|stall on CPU|rcu.*stall|KASAN|UBSAN|kmemleak|Kernel panic|refcount_t|list_add corruption|BUG kmalloc'

# 3. Boot.
guest_boot() {
	append="console=$CONSOLE_TTY pttap=$TAP_TTY quiet panic=-1 oops=panic panic_on_warn=1"
	append+=" softlockup_panic=1 hung_task_panic=1 pttimeout=$TEST_TIMEOUT"
	[ -n "${KAPPEND:-}" ] && append+=" $KAPPEND"
	[ -n "$TESTS" ] && append+=" pttests=$(echo $TESTS | tr ' ' ',')"
	[ $demo = 1 ] && append+=" ptdemo=1"
	[ -n "$MODTREE" ] && append+=" ptmodprobe=1"
	# Two vCPUs, run by one host thread.  With QEMU 7.2's multi-threaded TCG we
	# saw both vCPUs spin for ever on a stale int3 in do_exit() after the kernel
	# live-patched a tracepoint's jump label during a module load while other
	# processes exited (memory held the new jmp; real CPUs cannot do that after
	# text_poke's serialising IPIs).  QEMU_TCG=multi brings it back.
	if [ "${QEMU_TCG:-single}" = multi ]; then
		accel=(-accel tcg -smp 2)
	else
		accel=(-accel tcg,thread=single -smp 2)
	fi
	if [ $smoke = 1 ]; then
		append+=" ptbench=smoke"
	elif [ $bench = 1 ]; then
		append+=" ptbench=1"
		# GUIDE §2: the guest clock counts executed instructions.
		accel=(-accel tcg,thread=single -icount shift=0 -smp 1)
		# BENCH_ONLY: ptbench=NAME.  smp: multi-threaded TCG (see above:
		# the bench loads and unloads ptags only while it runs alone), on
		# however few host CPUs, which the bench reports.  copy: a later
		# -cpu overrides arch.sh's.
		case $only in
		smp)	append=${append% ptbench=1}" ptbench=smp pthostcpus=$(nproc)"
			accel=(-accel tcg,thread=multi -smp 4) ;;
		copy)	[ "$arch" = amd64 ] || fatal "BENCH_ONLY=copy is for amd64"
			append=${append% ptbench=1}" ptbench=copy"
			accel+=(-cpu "${BENCH_COPY_CPU:-max,erms=off,fsrm=off}") ;;
		mem)	append=${append% ptbench=1}" ptbench=mem" ;;
		esac
	fi

	rm -f "$BUILD/console.log" "$BUILD/tap.out"
	if [ $demo = 1 ]; then
		console=stdio,id=con,signal=off,logfile=$BUILD/console.log
	else
		console=file,id=con,path=$BUILD/console.log
	fi
	msg "booting $KVER ($ntests tests, timeout ${TIMEOUT}s); console: $BUILD/console.log"
	# A kernel that dies before PID 1 has said anything (seen once with the
	# debug kernel under TCG: KASAN in an interrupt during CPU identification)
	# ran nothing of ptags, whose module PID 1 loads: boot once more, and keep
	# that console as console-boot1.log.
	for boot in 1 2; do
		start=$(date +%s)
		rc=0
		timeout --foreground -k 10 "$TIMEOUT" \
			"${QEMU[@]}" "${accel[@]}" -m "$GUEST_MEM" \
				-nographic -no-reboot -monitor none -nic none \
				-kernel "$vmlinuz" -initrd "$BUILD/initrd.gz" -append "$append" \
				-chardev "$console" -serial chardev:con \
				-chardev file,id=tap,path="$BUILD/tap.out" "${TAP_DEV[@]}" \
				$QEMU_EXTRA </dev/null || rc=$?
		elapsed=$(($(date +%s) - start))
		msg "guest ran for ${elapsed}s (qemu exit status $rc)"
		[ $boot = 1 ] && [ $rc != 124 ] && [ ! -s "$BUILD/tap.out" ] || break
		mv "$BUILD/console.log" "$BUILD/console-boot1.log"
		echo "# the kernel died before PID 1 started (console-boot1.log): booting again" |
			tee -a "$results"
		tail -n 30 "$BUILD/console-boot1.log" >&2
	done
}

# The command line itself names hung_task_panic etc.: not a problem.  No
# "grep -q": it stops reading at the first match, and under pipefail the
# writer's SIGPIPE would turn a found problem into "ok".
kernlog() { tr -d '\r' <"$BUILD/console.log" | grep -v 'command line'; }

# 4. Verdict.
guest_judge() {
	touch "$BUILD/tap.out" "$BUILD/console.log"
	tr -d '\r' <"$BUILD/tap.out" | tee -a "$results"

	[ $rc = 124 ] && msg "timed out after ${TIMEOUT}s"
	done=0
	grep -qxF "$DONE_MARKER" "$BUILD/tap.out" || done=1
	check $done "guest ran to completion (done marker; qemu status $rc, ${elapsed}s)"

	if kernlog | grep -E "$PROBLEMS" >/dev/null; then
		msg "kernel problems in $BUILD/console.log:"
		kernlog | grep -E -B2 -A25 "$PROBLEMS" | head -n 120 >&2
		check 1 "kernel log has no BUG/WARNING/Oops/lockup/stall"
	else
		check 0 "kernel log has no BUG/WARNING/Oops/lockup/stall"
	fi

	if grep -q '^not ok' "$results"; then
		[ $demo = 1 ] || tail -n 40 "$BUILD/console.log" >&2
		msg "FAIL ($(grep -c '^not ok' "$results") failed; see $results)"
		exit 1
	fi
	msg "PASS"
}
