// SPDX-License-Identifier: GPL-2.0
/*
 * ptags's trace events (module/ptags_trace.h) through tracefs, as ftrace,
 * perf and bpftrace see them: a write and a refused write (ptags_change
 * with the errno), a tagged fork (ptags_inherit), an exec that prunes
 * (ptags_prune), untagging and exit (ptags_release); nothing while the
 * events are disabled.
 */
#include "guest.h"

#define EVENTS	TRACEFS "/events/ptags/"

static char trace[1 << 20];

/* The trace buffer's text since the last clear. */
static const char *read_trace(void)
{
	ssize_t n = file_read(TRACEFS "/trace", trace, sizeof(trace) - 1);

	trace[n > 0 ? n : 0] = 0;
	return trace;
}

static bool has(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool has(const char *fmt, ...)
{
	char want[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	if (strstr(trace, want))
		return true;
	diag("no \"%s\" in the trace", want);
	return false;
}

static int enable(const char *v)
{
	return file_write(EVENTS "enable", v);
}

int main(void)
{
	pid_t me = getpid(), v, c;
	const char *names[] = { "ptags_change", "ptags_inherit", "ptags_prune",
				"ptags_release" };
	char path[128];
	unsigned int i;
	int st;

	if (!tracefs_ready()) {
		ok(true, "# SKIP no tracefs (%s)", strerror(errno));
		return tap_done();
	}
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), EVENTS "%s/format", names[i]);
		ok(!access(path, R_OK), "tracefs has events/ptags/%s", names[i]);
	}

	pt_write(0, "-\n");
	v = pt_sleeper(NULL);
	/* Disabled: nothing is recorded. */
	if (enable("0\n") || trace_clear())
		die("clear the trace");
	pt_write(v, "+tr:off\n");
	read_trace();
	ok(!strstr(trace, "ptags_"), "disabled: a write records nothing");

	if (enable("1\n"))
		die("enable events/ptags");
	ok(!pt_write(v, "+tr:a\n+@tr:k\n"), "a write to V");
	ok(pt_write(v, "bad line\n") == EINVAL, "a refused write to V (EINVAL)");
	ok(!pt_write(0, "+tr:parent\n"), "we tag ourselves");
	c = tap_fork();
	if (!c) {
		execl("/bin/sh", "sh", "-c", "exit 0", (char *)NULL);
		_exit(127);
	}
	waitpid(c, &st, 0);
	pt_write(0, "-\n");
	pt_stop(v);
	enable("0\n");
	read_trace();

	ok(has("ptags_change: pid=%d level=0 writer=%d bytes=13 result=0", v, me),
	   "ptags_change: V's write, its size and result 0");
	ok(has("ptags_change: pid=%d level=0 writer=%d bytes=9 result=-22", v, me),
	   "ptags_change: the refused write, result -EINVAL");
	ok(has("ptags_inherit: parent=%d child=%d level=0 tags=1", me, c),
	   "ptags_inherit: the fork shared our one tag");
	ok(has("ptags_prune: pid=%d level=0 tags=1 kept=0", c),
	   "ptags_prune: the child's exec removed its unkept tag");
	ok(has("ptags_release: pid=%d level=0 tags=1", c),
	   "ptags_release: so the child's set went");
	ok(has("ptags_release: pid=%d level=0 tags=1", me),
	   "ptags_release: our untagging");
	ok(has("ptags_release: pid=%d level=0 tags=3", v),
	   "ptags_release: V's exit with its 3 tags");
	return tap_done();
}
