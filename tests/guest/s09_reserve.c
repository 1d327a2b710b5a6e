// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §9 fail closed on a stock kernel: a SCHED_FIFO tagged parent forks
 * a burst of children on CPU 0 while a SCHED_FIFO spinner holds CPU 1, so
 * the worker that refills the fork hook's per-CPU reserve cannot run.  On a
 * PREEMPT_RT kernel (no atomic allocation in the hook) the reserve runs dry
 * and children must be killed before their first instruction; elsewhere
 * the hook falls back to an atomic allocation.  Either way: no child runs
 * untagged, and every child either ran tagged or was killed and counted.
 */
#include "guest.h"

#include <sched.h>
#include <time.h>
#include <sys/mman.h>

#define BURST		300
#define SPIN_SECONDS	3
#define RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"

static void fifo_on(int cpu)
{
	struct sched_param sp = { .sched_priority = 50 };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(90);
}

int main(void)
{
	long killed0 = pt_stat("killed"), killed, rt_runtime;
	int report[2], go[2], i, ran = 0, wrong = 0, st;
	pid_t spinner, parent;
	char c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("ok 1 # SKIP needs two CPUs\n");
		return tap_done();
	}
	rt_runtime = file_long(RT_RUNTIME);
	if (pipe(report) || pipe(go))
		die("setup");
	/* No throttling of SCHED_FIFO for the few seconds of the burst. */
	file_write(RT_RUNTIME, "-1\n");

	spinner = tap_fork();
	if (!spinner) {
		time_t end = time(NULL) + SPIN_SECONDS;

		fifo_on(1);
		while (time(NULL) < end)
			;
		_exit(0);
	}

	parent = tap_fork();
	if (!parent) {
		close(report[0]);
		if (pt_write(0, "+@inherited\n") || read(go[0], &c, 1) != 1)
			_exit(91);
		fifo_on(0);
		for (i = 0; i < BURST; i++) {
			pid_t ch = fork();

			if (!ch) {
				/* first user instruction: are we tagged? */
				char r = pt_is(0, "@inherited\n") ? 'T' : 'U';

				if (write(report[1], &r, 1) != 1)
					_exit(92);
				_exit(0);
			}
			if (ch < 0)
				_exit(93);
		}
		while (wait(NULL) > 0)
			;
		_exit(0);
	}
	close(report[1]);
	if (write(go[1], "g", 1) != 1)
		die("go");
	st = wait_exit(parent);
	while (read(report[0], &c, 1) == 1) {
		ran++;
		wrong += c != 'T';
	}
	wait_exit(spinner);
	if (rt_runtime != -1) {
		char v[32];

		snprintf(v, sizeof(v), "%ld\n", rt_runtime);
		file_write(RT_RUNTIME, v);
	}
	killed = pt_stat("killed") - killed0;
	diag("%d children ran, %ld were killed (reserve exhausted)", ran, killed);
	ok(st == 0, "setup: the burst of %d forks ran (status %d)", BURST, st);
	ok(wrong == 0, "SPEC §9: no child ran without its parent's tags (%d did)",
	   wrong);
	ok(ran + killed == BURST,
	   "SPEC §9: every child ran tagged or was killed and counted (%d + %ld of %d)",
	   ran, killed, BURST);
	ok(pt_counters_are(0, 0, 0, "after the burst"),
	   "SPEC §8: nothing stays tagged after the burst");
	return tap_done();
}
