// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.1-3.2 and §10 (pid namespaces, extra ptags mounts) and the §9 row
 * "setuid, capability changes, unshare, setns: nothing changes".
 *
 * Children report their checks to this process as lines on a pipe:
 *   "R <1|0> <name>"  one result, turned into ok() here
 *   "P <number>"      a value for the parent
 *   "D"               end of a phase: the child waits for a go byte
 */
#define _GNU_SOURCE
#include <grp.h>		/* setgroups(), used by guest.h */
#include "guest.h"
#include <dirent.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define NS_DIR "/tmp/ns_ptags"

static FILE *rep;		/* child: report stream */
static int go_fd = -1;		/* child: read end of the go pipe */

static void __attribute__((format(printf, 2, 3)))
report(bool cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(rep, "R %d ", cond ? 1 : 0);
	va_start(ap, fmt);
	vfprintf(rep, fmt, ap);
	va_end(ap);
	fputc('\n', rep);
	fflush(rep);
}

static void __attribute__((format(printf, 1, 2)))
rdiag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", rep);
	va_start(ap, fmt);
	vfprintf(rep, fmt, ap);
	va_end(ap);
	fputc('\n', rep);
	fflush(rep);
}

/* Child: end a phase and wait for the parent. */
static void barrier(void)
{
	char b;

	fputs("D\n", rep);
	fflush(rep);
	if (read(go_fd, &b, 1) != 1)
		_exit(3);
}

/* Parent: turn report lines into ok() up to the next "D" or EOF; returns
 * the last "P" value seen (or -1), true in *done at a barrier. */
static long relay(FILE *in, bool *barrier_seen)
{
	char line[1024];
	long val = -1;
	size_t n;

	*barrier_seen = false;
	while (fgets(line, sizeof(line), in)) {
		n = strlen(line);
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		if (!strcmp(line, "D")) {
			*barrier_seen = true;
			break;
		}
		if (line[0] == 'R' && n > 4)
			ok(line[2] == '1', "%s", line + 4);
		else if (line[0] == 'P')
			val = strtol(line + 2, NULL, 10);
		else if (line[0] == '#')
			printf("%s\n", line), fflush(stdout);
	}
	return val;
}

static void go(int fd)
{
	if (write(fd, "g", 1) != 1)
		die("go");
}

static bool file_is(const char *path, const char *want, void (*say)(const char *, ...))
{
	static char buf[8192];
	ssize_t n = file_read(path, buf, sizeof(buf));

	if (n < 0) {
		say("read %s: %s", path, strerror(-n));
		return false;
	}
	if (strcmp(buf, want)) {
		say("%s has [%s], expected [%s]", path, tap_esc(buf), tap_esc(want));
		return false;
	}
	return true;
}

/*
 * Numeric entries of directory @dir into @pids (at most @max); also whether
 * "self", "." and ".." were there and how many other names.  Count or -errno.
 */
static int list_dir(const char *dir, long *pids, int max, bool *has_self,
		    int *others)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;
	char *end;
	long v;

	*has_self = false;
	*others = 0;
	if (!dp)
		return -errno;
	while ((d = readdir(dp))) {
		if (!strcmp(d->d_name, "self")) {
			*has_self = true;
			continue;
		}
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		v = strtol(d->d_name, &end, 10);
		if (*end || v <= 0) {
			(*others)++;
			continue;
		}
		if (n < max)
			pids[n] = v;
		n++;
	}
	closedir(dp);
	return n;
}

static bool has_pid(const long *pids, int n, long pid)
{
	int i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

static void say_rdiag(const char *fmt, ...)
{
	char b[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	rdiag("%s", b);
}

static void say_diag(const char *fmt, ...)
{
	char b[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	diag("%s", b);
}

/* ------------------------------------------------ pid namespace: child */

struct ns_info {
	long g;		/* our global pid */
	long go;	/* global pid of the tagged outside process */
};

static int ns_init(int rep_fd, int gofd)
{
	struct ns_info info;
	char path[128], link[64], buf[256];
	long pids[16], kid_g = -1;
	int kp[2], gp[2], n, others, rc;
	bool self;
	pid_t kid;
	ssize_t len;
	char b;

	rep = fdopen(rep_fd, "w");
	go_fd = gofd;
	if (!rep)
		_exit(4);
	if (read(go_fd, &info, sizeof(info)) != sizeof(info))
		_exit(5);

	report(getpid() == 1, "SPEC §10: setup: the clone(CLONE_NEWPID) child is pid 1 in its namespace");
	rc = mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	report(rc == 0, "setup: mount --make-rprivate / in the new mount namespace");
	mkdir(NS_DIR, 0755);
	rc = mount("ptags", NS_DIR, "ptags", 0, NULL);
	report(rc == 0, "SPEC §3.1: mount -t ptags ptags " NS_DIR " inside the pid namespace (%s)",
	       rc ? strerror(errno) : "ok");
	if (rc) {
		barrier();
		barrier();
		return 0;
	}

	/* a second, tagged process of the namespace (pid 2) */
	if (pipe(kp) || pipe(gp))
		_exit(6);
	fflush(rep);
	kid = fork();
	if (kid == 0) {
		close(kp[1]);
		close(gp[0]);
		link_read("/proc/self", link, sizeof(link));
		if (write(gp[1], link, strlen(link) + 1) < 0)
			_exit(1);
		close(gp[1]);
		while (read(kp[0], &b, 1) > 0)
			;
		_exit(0);
	}
	close(kp[0]);
	close(gp[1]);
	len = read(gp[0], link, sizeof(link) - 1);
	link[len > 0 ? len : 0] = 0;
	close(gp[0]);
	kid_g = strtol(link, NULL, 10);
	report(kid == 2 && kid_g > 2, "setup: the namespace's second process is pid 2 (global %ld)", kid_g);
	fprintf(rep, "P %ld\n", kid_g);
	fflush(rep);

	report(file_is(NS_DIR "/1", "NS:init=1\n", say_rdiag),
	       "SPEC §3.1/§10: ns mount: /1 reads the namespace init's tags set through its global pid");
	report(file_is(NS_DIR "/2", "NS:init=1\n", say_rdiag),
	       "SPEC §3.1/§9: ns mount: /2 reads the inherited tags");
	len = link_read(NS_DIR "/self", link, sizeof(link));
	report(len > 0 && !strcmp(link, "1"),
	       "SPEC §3.2: ns mount: self is a symlink to the namespace pid 1 (got '%s')", link);
	report(file_is(NS_DIR "/self", "NS:init=1\n", say_rdiag),
	       "SPEC §3.2: ns mount: reading self gives the own tags");

	n = list_dir(NS_DIR, pids, 16, &self, &others);
	report(n == 2 && has_pid(pids, n, 1) && has_pid(pids, n, 2) && self && !others,
	       "SPEC §3.2: ns mount lists exactly self, 1 and 2 (got %d pids, self %d, %d other names)",
	       n, self, others);
	report(!has_pid(pids, n > 16 ? 16 : n, info.go) && !has_pid(pids, n > 16 ? 16 : n, info.g),
	       "SPEC §3.2: ns mount does not list the outside process nor global numbers");

	if (info.go > 2) {
		snprintf(path, sizeof(path), NS_DIR "/%ld", info.go);
		rc = open(path, O_RDONLY);
		report(rc < 0 && errno == ENOENT,
		       "SPEC §3.2: ns mount: the tagged outside process (global pid %ld) -> ENOENT", info.go);
		if (rc >= 0)
			close(rc);
		report(file_write(path, "+X\n") == ENOENT,
		       "SPEC §3.2: ns mount: writing to the outside process's global pid -> ENOENT");
	} else {
		report(false, "setup: outside pid %ld is not above 2", info.go);
	}
	if (info.g > 2) {
		snprintf(path, sizeof(path), NS_DIR "/%ld", info.g);
		rc = open(path, O_RDONLY);
		report(rc < 0 && errno == ENOENT,
		       "SPEC §3.2: ns mount: our own global pid %ld -> ENOENT", info.g);
		if (rc >= 0)
			close(rc);
	}
	rc = open(NS_DIR "/3", O_RDONLY);
	report(rc < 0 && errno == ENOENT, "SPEC §3.2: ns mount: unused pid 3 -> ENOENT");
	if (rc >= 0)
		close(rc);

	/* the original mount keeps resolving global pids */
	snprintf(path, sizeof(path), PT_ROOT "/%ld", info.g);
	report(file_is(path, "NS:init=1\n", say_rdiag),
	       "SPEC §3.1: /proc/ptags/<global pid> from inside the namespace reads our tags");
	snprintf(path, sizeof(path), PT_ROOT "/%ld", info.go);
	report(file_is(path, "OUT\n", say_rdiag),
	       "SPEC §3.1: /proc/ptags/<outside global pid> from inside the namespace reads its tags");
	len = link_read(PT_ROOT "/self", link, sizeof(link));
	report(len > 0 && strtol(link, NULL, 10) == info.g,
	       "SPEC §3.1/§3.2: /proc/ptags/self from inside the namespace is the global pid (got '%s')", link);
	len = file_read(PT_ROOT "/1", buf, sizeof(buf));
	report(len >= 0 && !strstr(buf, "NS:init"),
	       "SPEC §3.1: /proc/ptags/1 from inside the namespace is the global init, not us");
	n = list_dir(PT_ROOT, pids, 16, &self, &others);
	report(n == 3 && has_pid(pids, n, info.g) && has_pid(pids, n, info.go) &&
	       has_pid(pids, n, kid_g) && self && !others,
	       "SPEC §3.2: /proc/ptags from inside the namespace lists the 3 tagged processes by global pid (got %d)", n);

	/* writes through the namespace mount (we are privileged) */
	rc = file_write(NS_DIR "/self", "+NS:inside\n");
	report(rc == 0, "SPEC §3.1/§5.4: privileged write through the ns mount's self (%s)", strerror(rc));
	rc = file_write(NS_DIR "/2", "+NS:kid\n");
	report(rc == 0, "SPEC §3.1/§5.4: privileged write to ns pid 2 through the ns mount (%s)", strerror(rc));
	barrier();

	report(file_is(NS_DIR "/1", "NS:init=1\nNS:inside\nNS:outside\n", say_rdiag),
	       "SPEC §10: the tag the parent added through the global pid shows in the ns mount");

	close(kp[1]);
	waitpid(kid, &rc, 0);
	n = list_dir(NS_DIR, pids, 16, &self, &others);
	report(n == 1 && pids[0] == 1,
	       "SPEC §3.2: ns mount no longer lists the reaped pid 2 (got %d pids)", n);
	rc = umount(NS_DIR);
	report(rc == 0, "setup: umount " NS_DIR " (%s)", rc ? strerror(errno) : "ok");
	rmdir(NS_DIR);
	barrier();
	return 0;
}

static void test_pid_namespace(void)
{
	int rp[2], gp[2], st;
	struct ns_info info;
	long pids[16], kid_g;
	struct idler out;
	pid_t outside, nsinit;
	bool bar, self;
	char path[64];
	int n, others;
	FILE *in;

	/* a tagged process outside the namespace */
	idler_start(&out);
	outside = out.pid;
	ok(pt_write(outside, "+OUT\n") == 0, "setup: root tags the outside process");

	if (pipe(rp) || pipe(gp))
		die("pipe");
	fflush(stdout);
	nsinit = syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | SIGCHLD, NULL,
			 NULL, NULL, NULL);
	if (nsinit < 0) {
		ok(false, "setup: clone(CLONE_NEWPID|CLONE_NEWNS): %s", strerror(errno));
		idler_reap(&out);
		return;
	}
	if (nsinit == 0) {
		close(rp[0]);
		close(gp[1]);
		close(out.go);
		_exit(ns_init(rp[1], gp[0]));
	}
	close(rp[1]);
	close(gp[0]);
	in = fdopen(rp[0], "r");
	if (!in)
		die("fdopen");

	st = pt_write(nsinit, "+NS:init\n!NS:init=1\n");
	ok(st == 0,
	   "setup: root tags the namespace init through /proc/ptags/<global pid> (%s)",
	   strerror(st));
	info.g = nsinit;
	info.go = outside;
	if (write(gp[1], &info, sizeof(info)) != sizeof(info))
		die("write info");

	kid_g = relay(in, &bar);
	if (bar) {
		snprintf(path, sizeof(path), PT_ROOT "/%d", (int)nsinit);
		ok(file_is(path, "NS:init=1\nNS:inside\n", say_diag),
		   "SPEC §10: tags follow the process: the parent sees the in-namespace write via the global pid");
		if (kid_g > 0) {
			snprintf(path, sizeof(path), PT_ROOT "/%ld", kid_g);
			ok(file_is(path, "NS:init=1\nNS:kid\n", say_diag),
			   "SPEC §10: the parent sees ns pid 2's tags via its global pid");
		}
		n = list_dir(PT_ROOT, pids, 16, &self, &others);
		ok(n == 3 && has_pid(pids, n, nsinit) && has_pid(pids, n, outside) &&
		   has_pid(pids, n, kid_g) && self && !others,
		   "SPEC §3.2: /proc/ptags lists the 3 tagged processes by global pid (got %d)", n);
		ok(pt_write(nsinit, "+NS:outside\n") == 0,
		   "SPEC §10: root adds a tag through the global pid");
		go(gp[1]);
		relay(in, &bar);
		go(gp[1]);
		relay(in, &bar);
	}
	close(gp[1]);
	fclose(in);
	st = -1;
	if (waitpid(nsinit, &st, 0) != nsinit)
		st = -1;
	ok(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "setup: the namespace init exited cleanly (status %#x)", st);
	idler_reap(&out);
	ok(access(NS_DIR, F_OK) && errno == ENOENT,
	   "setup: " NS_DIR " is gone (the namespace mount did not leak out)");
	n = list_dir(PT_ROOT, pids, 16, &self, &others);
	ok(n == 0, "SPEC §3.2: /proc/ptags lists no process once they are gone (got %d)", n);
}

/* --------------------------------------- §9: namespaces/setuid keep tags */

#define KEEP_TAGS "K\n@L=v\n"

static bool self_ok(void)
{
	return pt_is(0, KEEP_TAGS);
}

static int drop_one_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0))
		return -1;
	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[cap / 32].effective &= ~(1u << (cap % 32));
	data[cap / 32].permitted &= ~(1u << (cap % 32));
	return syscall(SYS_capset, &hdr, data);
}

static int keep_child(int rep_fd, int gofd)
{
	int fd, rc, st;
	pid_t gc;
	char b;

	rep = fdopen(rep_fd, "w");
	go_fd = gofd;
	if (!rep || read(go_fd, &b, 1) != 1)
		_exit(4);
	report(self_ok(), "SPEC §9: setup: the child has its tags");

	rc = unshare(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC);
	report(rc == 0 && self_ok(),
	       "SPEC §9: unshare(CLONE_NEWNS|CLONE_NEWUTS|CLONE_NEWIPC) keeps the tags (rc %d)", rc);
	barrier();

	fd = open("/proc/1/ns/uts", O_RDONLY);
	rc = fd < 0 ? -1 : setns(fd, CLONE_NEWUTS);
	if (fd >= 0)
		close(fd);
	fd = open("/proc/1/ns/mnt", O_RDONLY);
	rc |= fd < 0 ? -1 : setns(fd, CLONE_NEWNS);
	if (fd >= 0)
		close(fd);
	report(rc == 0 && self_ok(), "SPEC §9: setns back to init's uts and mount namespaces keeps the tags (rc %d)", rc);
	barrier();

	rc = drop_one_cap(CAP_NET_ADMIN);
	report(rc == 0 && self_ok(), "SPEC §9: a capability change (drop CAP_NET_ADMIN) keeps the tags (rc %d)", rc);
	barrier();

	rc = unshare(CLONE_NEWPID);
	if (rc == 0) {
		fflush(rep);
		gc = fork();
		if (gc == 0)
			_exit(getpid() == 1 && pt_is(0, KEEP_TAGS) ? 0 : 1);
		rc = gc > 0 && waitpid(gc, &st, 0) == gc && WIFEXITED(st) ?
		     WEXITSTATUS(st) : -1;
	}
	report(rc == 0 && self_ok(),
	       "SPEC §9/§10: unshare(CLONE_NEWPID) keeps the tags, and the new namespace's pid 1 inherits them (rc %d)", rc);
	barrier();

	rc = setresgid(65534, 65534, 65534) | setresuid(65534, 65534, 65534);
	report(rc == 0 && getuid() == 65534 && self_ok(),
	       "SPEC §9: setresuid(65534) keeps the tags (rc %d)", rc);
	barrier();

	rc = unshare(CLONE_NEWUSER);
	report(rc == 0 && self_ok(), "SPEC §9: unshare(CLONE_NEWUSER) keeps the tags (rc %d, %s)",
	       rc, rc ? strerror(errno) : "ok");
	barrier();
	return 0;
}

static void test_keep_across(void)
{
	int rp[2], gp[2], st, step;
	bool bar = true;
	pid_t kid;
	FILE *in;

	if (pipe(rp) || pipe(gp))
		die("pipe");
	kid = tap_fork();
	if (kid == 0) {
		close(rp[0]);
		close(gp[1]);
		_exit(keep_child(rp[1], gp[0]));
	}
	close(rp[1]);
	close(gp[0]);
	in = fdopen(rp[0], "r");
	if (!in)
		die("fdopen");
	ok(pt_write(kid, "+K\n+@L\n!L=v\n") == 0, "setup: root tags the child");
	go(gp[1]);
	for (step = 1; bar; step++) {
		relay(in, &bar);
		if (!bar)
			break;
		ok(pt_is(kid, KEEP_TAGS),
		   "SPEC §9: after step %d the parent still reads the same tags via the global pid", step);
		go(gp[1]);
	}
	close(gp[1]);
	fclose(in);
	st = -1;
	if (waitpid(kid, &st, 0) != kid)
		st = -1;
	ok(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "setup: the child exited cleanly (status %#x)", st);
	ok(step == 7, "setup: all 6 steps ran (%d)", step - 1);
}

int main(void)
{
	pt_start_untagged();
	test_pid_namespace();
	test_keep_across();
	return tap_done();
}
