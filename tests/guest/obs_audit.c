// SPDX-License-Identifier: GPL-2.0
/*
 * Audit records of writes (module/audit.c), received as the audit daemon
 * receives them: this test registers itself as the daemon over
 * NETLINK_AUDIT (AUDIT_SET: enabled, pid, backlog limit) and reads the
 * AUDIT_KERNEL_OTHER (1316) records.  A change to another process's tags
 * and a refusal with EPERM are recorded with the writer's identity; a
 * change to one's own tags, a write that changes nothing and other
 * refusals are not; the lines are hex and cut at 1024 bytes; the "audit"
 * parameter and audit's own switch turn records off; refusals over their
 * budget are suppressed and counted, and do not suppress changes.
 *
 * Records reach the daemon in the order they were made, so "nothing was
 * recorded" is checked by making a marker record after the action and
 * seeing that it is the next record.
 */
#include "guest.h"

#include <poll.h>
#include <sys/socket.h>
#include <linux/audit.h>
#include <linux/netlink.h>

#define KERNEL_OTHER	1316
#define MAX_RECORDS	256
#define BURST		100	/* module/audit.c's PTAGS_AUDIT_BURST */

static int audit_fd = -1;
static char records[MAX_RECORDS][4096];
static int nrecords;

/* AUDIT_SET with @mask of the fields; the kernel's ack: 0 or errno. */
static int audit_set(unsigned int mask, unsigned int enabled, pid_t pid,
		     unsigned int backlog)
{
	struct {
		struct nlmsghdr h;
		struct audit_status s;
	} m;
	char ack[512];
	struct nlmsghdr *h = (struct nlmsghdr *)ack;
	ssize_t n;

	memset(&m, 0, sizeof(m));
	m.h.nlmsg_len = sizeof(m);
	m.h.nlmsg_type = AUDIT_SET;
	m.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	m.s.mask = mask;
	m.s.enabled = enabled;
	m.s.pid = (unsigned int)pid;
	m.s.backlog_limit = backlog;
	if (send(audit_fd, &m, sizeof(m), 0) != sizeof(m))
		return errno;
	for (;;) {
		n = recv(audit_fd, ack, sizeof(ack), 0);
		if (n < 0)
			return errno;
		if (h->nlmsg_type == NLMSG_ERROR)
			return -((struct nlmsgerr *)NLMSG_DATA(h))->error;
	}
}

/*
 * Read 1316 records into records[] until one holds @until, for at most
 * 5 s.  Returns how many came (the last one holds @until), or -1.
 */
static int records_until(const char *until)
{
	static char msg[8192 + NLMSG_HDRLEN];
	struct nlmsghdr *h = (struct nlmsghdr *)msg;
	struct pollfd p = { .fd = audit_fd, .events = POLLIN };
	size_t len;
	ssize_t n;

	nrecords = 0;
	while (poll(&p, 1, 5000) == 1) {
		n = recv(audit_fd, msg, sizeof(msg), 0);
		if (n < (ssize_t)NLMSG_HDRLEN || h->nlmsg_type != KERNEL_OTHER)
			continue;
		len = n - NLMSG_HDRLEN;
		if (len >= sizeof(records[0]))
			len = sizeof(records[0]) - 1;
		if (nrecords == MAX_RECORDS)
			nrecords--;
		memcpy(records[nrecords], NLMSG_DATA(h), len);
		records[nrecords][len] = 0;
		if (strstr(records[nrecords++], until))
			return nrecords;
	}
	diag("no record with \"%s\" within 5 s (%d others)", until, nrecords);
	return -1;
}

/* @s as upper-case hex, as the records carry the lines. */
static const char *hex(const char *s)
{
	static char buf[4096];
	size_t i;

	for (i = 0; s[i] && 2 * i + 2 < sizeof(buf); i++)
		sprintf(buf + 2 * i, "%02X", (unsigned char)s[i]);
	buf[2 * i] = 0;
	return buf;
}

static pid_t target;
static int marks;

/*
 * A change to the target that is recorded; true when it is the next
 * record, i.e. what was done since the last one recorded nothing.
 */
static bool nothing_since(const char *what)
{
	char line[64], want[160];
	int n;

	snprintf(line, sizeof(line), "+au:mark%d\n", ++marks);
	if (pt_write(target, line))
		die("marker write");
	snprintf(want, sizeof(want), "target=%d level=0 res=1 bytes=%zu lines=%s",
		 target, strlen(line), hex(line));
	n = records_until(want);
	if (n != 1)
		diag("%s: %d records before the marker: %s", what, n - 1,
		     n > 1 ? tap_esc(records[0]) : "");
	return n == 1;
}

/* As nobody: @n writes of "+ptags:add" to itself; exits 0 if all EPERM. */
static int refused_writes(void *arg)
{
	int i, n = *(int *)arg;

	if (drop_privileges(65534))
		return 10;
	for (i = 0; i < n; i++)
		if (pt_write(0, "+ptags:add\n") != EPERM)
			return 11;
	return 0;
}

int main(void)
{
	char want[256], big[3001];
	const char *r;
	long audited, suppressed;
	pid_t me = getpid();
	int err, n, i, one = 1, many = 2 * BURST;

	setvbuf(stdout, NULL, _IOLBF, 0);
	audit_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (audit_fd < 0) {
		ok(true, "# SKIP no audit in this kernel (%s)", strerror(errno));
		return tap_done();
	}
	err = audit_set(AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID |
			AUDIT_STATUS_BACKLOG_LIMIT, 1, me, 8192);
	ok(!err, "setup: this test is the audit daemon (%s)", strerror(err));
	target = pt_sleeper("target");

	/* A change to another process: recorded, with the writer. */
	ok(!pt_write(target, "+au:a\n!au:a=1\n"), "root tags another process");
	snprintf(want, sizeof(want),
		 "op=ptags_write target=%d level=0 res=1 bytes=14 lines=%s",
		 target, hex("+au:a\n!au:a=1\n"));
	n = records_until(want);
	ok(n == 1, "a change to another process's tags is recorded: %s",
	   n > 0 ? tap_esc(records[n - 1]) : "none");
	snprintf(want, sizeof(want), " pid=%d auid=", me);
	r = n > 0 ? records[n - 1] : "";
	ok(strstr(r, want) && strstr(r, " ses=") && strstr(r, " comm=\"obs_audit\""),
	   "the record names the writer (pid, auid, ses, comm)");

	/* Not recorded: no change, one's own tags, other refusals. */
	ok(!pt_write(target, "?au:a\n") && !pt_write(target, "+au:a\n") &&
	   !pt_write(target, "!au:a=1\n") &&
	   nothing_since("no change"),
	   "a write to another process that changes nothing is not recorded");
	ok(!pt_write(0, "+au:self\n") && !pt_write(0, "-\n") &&
	   nothing_since("own tags"),
	   "a change to one's own tags is not recorded");
	ok(pt_write(target, "bad line\n") == EINVAL &&
	   pt_write(target, "!au:none\n") == ENOENT &&
	   nothing_since("EINVAL, ENOENT"),
	   "refusals other than EPERM are not recorded");

	/* A refusal with EPERM: recorded, whoever the target. */
	ok(run_child(refused_writes, &one) == 0,
	   "nobody is refused ptags:add on itself (EPERM)");
	snprintf(want, sizeof(want), "level=0 res=0 errno=1 bytes=11 lines=%s",
		 hex("+ptags:add\n"));
	n = records_until(want);
	r = n > 0 ? records[n - 1] : "";
	ok(n == 1 && strstr(r, " uid=65534 "),
	   "the refusal is recorded with errno 1 and uid 65534: %s", tap_esc(r));

	/* The lines are cut at 1024 bytes; bytes= is the whole write. */
	for (i = 0; i < 300; i++)
		snprintf(big + 10 * i, 11, "+au:%05d\n", i);
	ok(!pt_write(target, big), "a write of 3000 bytes to another process");
	snprintf(want, sizeof(want), "target=%d level=0 res=1 bytes=3000 lines=",
		 target);
	n = records_until(want);
	r = n > 0 ? strstr(records[n - 1], "lines=") + 6 : "";
	big[1024] = 0;
	ok(n == 1 && strlen(r) >= 2048 && !strncmp(r, hex(big), 2048) &&
	   (r[2048] == ' ' || !r[2048]),
	   "its record holds the first 1024 bytes, in hex");

	/* Off: the module's parameter, and audit's own switch. */
	ok(!pt_set_param("audit", 0) && !pt_write(target, "+au:off\n") &&
	   !pt_set_param("audit", 1) && nothing_since("audit=0"),
	   "with the parameter audit=0 nothing is recorded");
	ok(!audit_set(AUDIT_STATUS_ENABLED, 0, 0, 0) &&
	   !pt_write(target, "+au:disabled\n") &&
	   !audit_set(AUDIT_STATUS_ENABLED, 1, 0, 0) &&
	   nothing_since("audit disabled"),
	   "with audit disabled nothing is recorded");

	/* The budget: refusals over it are counted, changes still recorded. */
	audited = pt_stat("audited");
	suppressed = pt_stat("audit_suppressed");
	ok(run_child(refused_writes, &many) == 0,
	   "nobody is refused %d times in a row", many);
	ok(!pt_write(target, "+au:after\n"), "then root changes another process");
	snprintf(want, sizeof(want), "target=%d level=0 res=1 bytes=10 lines=%s",
		 target, hex("+au:after\n"));
	n = records_until(want);
	audited = pt_stat("audited") - audited;
	suppressed = pt_stat("audit_suppressed") - suppressed;
	diag("%d records of refusals, audited +%ld, audit_suppressed +%ld",
	     n - 1, audited, suppressed);
	ok(n >= 1 && n - 1 <= BURST && suppressed >= many - BURST &&
	   n - 1 + suppressed == many && audited == n,
	   "refusals over the budget (%d per 5 s) are suppressed and counted",
	   BURST);
	ok(n >= 1, "and the change after them is still recorded");

	ok(!audit_set(AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID, 0, 0, 0),
	   "teardown: no audit daemon, audit disabled");
	pt_stop(target);
	return tap_done();
}
