// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §5.5 "the writer is the opener too" against the real module.
 *
 * Actors are agents: children of this root test program, given permission
 * tags by root, then made unprivileged (drop_privileges(65534)).  They open
 * /proc/ptags entries, hand the descriptors around with SCM_RIGHTS (through
 * this parent, which does not change who opened the file) and write through
 * them on command; every assertion is made here with ok().
 *
 * Invoked as "s05_5_opener --deputy" the program is the privileged helper of
 * the confused-deputy scenario: it writes "+X\n" to its standard output and
 * exits with the errno (0 on success).
 */
#define _GNU_SOURCE
#include <grp.h>		/* setgroups(), used by guest.h */
#include "guest.h"
#include "agent.h"

/* ------------------------------------------------------------- (a) */

static void test_root_opened(void)
{
	struct agent *v = unpriv("");
	struct agent *w = unpriv("");
	struct agent *w2 = unpriv("+ptags:add\n+ptags:others\n");
	struct agent *m = agent_new(false);
	struct agent *r = agent_new(false);
	char path[64];
	int fd;

	expect(acmd(m, OP_DROPMAC, 0, NULL), 0,
	       "setup: uid 0 agent dropped only CAP_MAC_ADMIN");
	pt_path(path, sizeof(path), v->pid);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		die("open %s", path);
	expect(pt_fdwrite(fd, "+R\n"), 0,
	       "SPEC §5.5: root opened and root writes: +R");
	expect(pt_fdwrite(fd, "-R\n"), 0,
	       "SPEC §5.5: root opened and root writes: -R");
	expect(a_give(w, 0, fd), 0, "setup: root-opened fd passed to agent");
	expect(a_give(w2, 0, fd), 0, "setup: root-opened fd passed to agent 2");
	expect(a_give(m, 0, fd), 0, "setup: root-opened fd passed to uid-0 agent");
	close(fd);
	expect(a_fdw(w, 0, "+X\n"), EPERM,
	       "SPEC §5.5: root-opened fd, unprivileged writer without rights: +X -> EPERM");
	expect(a_fdw(w2, 0, "+X\n"), EPERM,
	       "SPEC §5.5: root-opened fd (opener holds no tag rights), writer with ptags:add+others: +X -> EPERM");
	expect(a_fdw(m, 0, "+X\n"), EPERM,
	       "SPEC §5.5: root-opened fd, uid-0 writer without CAP_MAC_ADMIN: +X -> EPERM");
	ok(pt_is(v->pid, ""), "SPEC §5.5: victim unchanged");
	expect(a_open(w2, v->pid, 1), 0, "setup: agent 2 opens the victim itself");
	expect(a_fdw(w2, 1, "+X\n"), 0,
	       "SPEC §5.3/§5.5: control: writer with ptags:add+others through its own fd: +X");
	ok(pt_is(v->pid, "X\n"), "SPEC §5.5: control write landed");

	/* uid 0 without CAP_MAC_ADMIN opens, root with it writes */
	expect(a_open(m, v->pid, 1), 0, "setup: uid-0 agent without CAP_MAC_ADMIN opens the victim");
	fd = a_take(m, 1);
	ok(fd >= 0, "setup: got that fd");
	if (fd >= 0) {
		expect(pt_fdwrite(fd, "-X\n"), EPERM,
		       "SPEC §5.5: opener without CAP_MAC_ADMIN, root writer with it: -X -> EPERM");
		expect(pt_fdwrite(fd, "+Z\n"), EPERM,
		       "SPEC §5.5: opener without CAP_MAC_ADMIN, root writer with it: +Z -> EPERM");
		close(fd);
	}
	ok(pt_is(v->pid, "X\n"), "SPEC §5.5: victim unchanged");

	/* one process: opened while privileged, writes after losing it */
	expect(a_open(r, v->pid, 0), 0, "setup: root agent opens the victim");
	expect(a_fdw(r, 0, "+P\n"), 0,
	       "SPEC §5.4/§5.5: root agent writes through the fd it opened: +P");
	expect(acmd(r, OP_DROP, 65534, NULL), 0,
	       "setup: that agent then drop_privileges(65534) returned 0");
	expect(a_fdw(r, 0, "-P\n"), EPERM,
	       "SPEC §5.5: the same fd after the writer lost CAP_MAC_ADMIN: -P -> EPERM");
	ok(pt_is(v->pid, "P\nX\n"), "SPEC §5.5: victim has P and X");
	agents_end();
}

/* ------------------------------------------------------------- (b) */

static int deputy_main(void)
{
	ssize_t n = write(1, "+X\n", 3);

	if (n < 0)
		return errno > 0 && errno < 200 ? errno : 200;
	return n == 3 ? 0 : 201;
}

/* Exec this program as a privileged helper whose stdout is @fd. */
static int run_deputy(int fd)
{
	pid_t pid;

	pid = tap_fork();
	if (pid == 0) {
		if (dup2(fd, 1) != 1)
			_exit(210);
		execl("/proc/self/exe", "s05_5_opener", "--deputy", (char *)NULL);
		_exit(211);
	}
	return wait_exit(pid);
}

static void test_confused_deputy(void)
{
	static char before[1 << 16];
	struct agent *v = unpriv("");
	struct agent *u = unpriv("");
	struct agent *o = unpriv("+ptags:S:add\n+ptags:S:others\n");
	ssize_t n;
	int fd, rc;
	char path[64];

	n = pt_read(1, before, sizeof(before));
	ok(n >= 0, "SPEC §3.2: /proc/ptags/1 is readable");
	expect(a_open(u, 1, 0), 0,
	       "SPEC §5.5: an unprivileged process may open /proc/ptags/1 for writing");
	fd = a_take(u, 0);
	ok(fd >= 0, "setup: got the fd of /proc/ptags/1 from the unprivileged opener");
	if (fd >= 0) {
		rc = pt_fdwrite(fd, "+X\n");
		expect(rc, EPERM,
		       "SPEC §5.5: root writing +X to /proc/ptags/1 opened by an unprivileged process -> EPERM");
		if (rc == 0)	/* do not leave init tagged */
			pt_write(1, "-X\n");
		close(fd);
	}
	ok(n >= 0 && pt_is(1, before), "SPEC §5.5: pid 1 unchanged");

	root_write(v->pid, "+Y\n");
	expect(a_open(u, v->pid, 1), 0,
	       "setup: unprivileged process opens the victim for writing");
	fd = a_take(u, 1);
	ok(fd >= 0, "setup: got the victim fd from the unprivileged opener");
	if (fd >= 0) {
		expect(pt_fdwrite(fd, "+X\n"), EPERM,
		       "SPEC §5.5: root writing +X through a victim fd opened by an unprivileged process -> EPERM");
		expect(pt_fdwrite(fd, "-Y\n"), EPERM,
		       "SPEC §5.5: root writing -Y through that fd -> EPERM");
		expect(pt_fdwrite(fd, "-\n"), 0,
		       "SPEC §4.3/§5.5: root writing '-' through that fd skips everything -> success");
		rc = run_deputy(fd);
		expect(rc, EPERM,
		       "SPEC §5.5: exec'ed privileged helper writing +X to its stdout (opened by an unprivileged process) -> EPERM");
		close(fd);
	}
	ok(pt_is(v->pid, "Y\n"), "SPEC §5.5: victim unchanged by the deputy");

	/* the opener holds ptags:S rights; the root writer holds no tags */
	expect(a_open(o, v->pid, 0), 0, "setup: S-rights agent opens the victim");
	fd = a_take(o, 0);
	ok(fd >= 0, "setup: got the fd from the S-rights opener");
	if (fd >= 0) {
		expect(pt_fdwrite(fd, "+S:r\n"), EPERM,
		       "SPEC §5.5: opener with S rights, root writer without tags: +S:r -> EPERM (CAP_MAC_ADMIN needs both, tag rights need the writer)");
		close(fd);
	}

	/* control: the helper writing to a root-opened stdout succeeds */
	pt_path(path, sizeof(path), v->pid);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		die("open %s", path);
	expect(run_deputy(fd), 0,
	       "SPEC §5.4/§5.5: control: the privileged helper writing to a root-opened stdout succeeds");
	close(fd);
	ok(pt_is(v->pid, "X\nY\n"), "SPEC §5.5: control write landed");
	agents_end();
}

/* ------------------------------------------------------------- (c) */

static void test_intersection(void)
{
	struct agent *v = unpriv("");
	struct agent *o = unpriv("+ptags:S:add\n+ptags:S:others\n");
	struct agent *w = unpriv("+ptags:T:add\n+ptags:T:others\n");
	struct agent *o2 = unpriv("+ptags:S:add\n+ptags:S:others\n");
	struct agent *w2 = unpriv("+ptags:S:add\n+ptags:S:others\n");
	struct agent *o3 = unpriv("");
	struct agent *w3 = unpriv("+ptags:add\n");

	expect(a_open(o, v->pid, 0), 0, "setup: S opener opens the victim");
	expect(a_pass(o, w, 0), 0, "setup: fd passed from S opener to T writer");
	expect(a_fdw(w, 0, "+S:x\n"), EPERM,
	       "SPEC §5.5: S-opened fd, T writer: +S:x -> EPERM (writer lacks S)");
	expect(a_fdw(w, 0, "+T:x\n"), EPERM,
	       "SPEC §5.5: S-opened fd, T writer: +T:x -> EPERM (opener lacked T)");
	ok(pt_is(v->pid, ""), "SPEC §5.5: victim unchanged");
	expect(a_open(w, v->pid, 1), 0, "setup: T writer opens the victim itself");
	expect(a_fdw(w, 1, "+T:x\n"), 0,
	       "SPEC §5.5: T writer through its own fd: +T:x");
	expect(a_fdw(o, 0, "+S:x\n"), 0,
	       "SPEC §5.5: S opener through its own fd: +S:x");
	ok(pt_is(v->pid, "S:x\nT:x\n"), "SPEC §5.5: both own-fd writes landed");

	expect(a_open(o2, v->pid, 0), 0, "setup: S opener 2 opens the victim");
	expect(a_pass(o2, w2, 0), 0, "setup: fd passed to S writer 2");
	expect(a_fdw(w2, 0, "+S:y\n"), 0,
	       "SPEC §5.5: opener and writer both hold S rights: +S:y through a passed fd");
	expect(a_fdw(w2, 0, "+T:y\n"), EPERM,
	       "SPEC §5.5: opener and writer both hold S rights: +T:y -> EPERM");
	ok(pt_is(v->pid, "S:x\nS:y\nT:x\n"), "SPEC §5.5: +S:y landed");

	/* the writer's own entry, opened by a process without rights */
	expect(a_open(o3, w3->pid, 0), 0,
	       "setup: agent without rights opens the writer's own entry");
	expect(a_pass(o3, w3, 0), 0, "setup: fd passed to its target");
	expect(a_fdw(w3, 0, "+X\n"), EPERM,
	       "SPEC §5.5: ptags:add writer, its own entry opened by a process without rights: +X -> EPERM");
	expect(a_open(w3, 0, 1), 0, "setup: writer opens its own entry");
	expect(a_fdw(w3, 1, "+X\n"), 0,
	       "SPEC §5.2/§5.5: ptags:add writer, own entry it opened itself: +X");
	ok(pt_is(w3->pid, "X\nptags:add\n"), "SPEC §5.5: only the second write landed");

	agents_end();
}

/* ------------------------------------------------------------- (d) */

#define SRIGHTS "+ptags:S:add\n+ptags:S:others\n"
#define SRIGHTS_OFF "-ptags:S:add\n-ptags:S:others\n"

static void test_timing(void)
{
	struct agent *v = unpriv("");
	struct agent *o4 = unpriv(SRIGHTS), *w4 = unpriv(SRIGHTS);
	struct agent *o5 = unpriv(""), *w5 = unpriv(SRIGHTS);
	struct agent *o6 = unpriv(SRIGHTS), *w6 = unpriv(SRIGHTS);
	struct agent *o7 = unpriv("");
	struct agent *o8 = unpriv(SRIGHTS);
	struct agent *o9 = unpriv(SRIGHTS), *w9 = unpriv(SRIGHTS);
	pid_t vp = v->pid;

	/* opener's rights removed after open: still counted */
	expect(a_open(o4, vp, 0), 0, "setup: opener with S rights opens the victim");
	root_write(o4->pid, SRIGHTS_OFF);
	ok(pt_is(o4->pid, ""), "setup: opener's rights removed after opening");
	expect(a_pass(o4, w4, 0), 0, "setup: fd passed to S writer");
	expect(a_fdw(w4, 0, "+S:d\n"), 0,
	       "SPEC §5.5: opener held S rights when it opened (removed since), writer holds them: +S:d succeeds");

	/* opener's rights granted after open: not counted */
	expect(a_open(o5, vp, 0), 0, "setup: opener without rights opens the victim");
	root_write(o5->pid, SRIGHTS);
	expect(a_pass(o5, w5, 0), 0, "setup: fd passed to S writer");
	expect(a_fdw(w5, 0, "+S:e\n"), EPERM,
	       "SPEC §5.5: opener got S rights only after opening: +S:e -> EPERM");

	/* the writer's rights are those it holds now */
	expect(a_open(o6, vp, 0), 0, "setup: S opener opens the victim");
	expect(a_pass(o6, w6, 0), 0, "setup: fd passed to S writer");
	root_write(w6->pid, SRIGHTS_OFF);
	expect(a_fdw(w6, 0, "+S:f\n"), EPERM,
	       "SPEC §5.5: writer lost its S rights after receiving the fd: +S:f -> EPERM");
	root_write(w6->pid, SRIGHTS);
	expect(a_fdw(w6, 0, "+S:f\n"), 0,
	       "SPEC §5.5: writer regained S rights: +S:f succeeds");

	/* writer == opener: only the rights held now count */
	expect(a_open(o7, vp, 0), 0, "setup: agent without rights opens the victim");
	root_write(o7->pid, SRIGHTS);
	expect(a_fdw(o7, 0, "+S:g\n"), 0,
	       "SPEC §5.5: the opener writing itself uses its rights now: +S:g succeeds");
	expect(a_open(o8, vp, 0), 0, "setup: S agent opens the victim");
	root_write(o8->pid, SRIGHTS_OFF);
	expect(a_fdw(o8, 0, "+S:h\n"), EPERM,
	       "SPEC §5.5: the opener writing itself after losing its rights: +S:h -> EPERM");

	/* the opener has exited: its rights at open time still count */
	expect(a_open(o9, vp, 0), 0, "setup: S opener opens the victim");
	expect(a_pass(o9, w9, 0), 0, "setup: fd passed to S writer");
	agent_end(o9);
	expect(a_fdw(w9, 0, "+S:i\n"), 0,
	       "SPEC §5.5: opener held S rights at open and has exited since: +S:i succeeds");

	ok(pt_is(vp, "S:d\nS:f\nS:g\nS:i\n"), "SPEC §5.5: victim's resulting tags");
	agents_end();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--deputy"))
		return deputy_main();
	pt_start_untagged();
	test_root_opened();
	test_confused_deputy();
	test_intersection();
	test_timing();
	return tap_done();
}
