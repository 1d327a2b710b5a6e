// SPDX-License-Identifier: GPL-2.0
/*
 * libptags's peer check as deployments run it: a daemon and its client as
 * different users (both unprivileged, or one of them root), a daemon in a
 * child pid namespace, a daemon started with a forged $PTAGS_ROOT, and a
 * daemon whose /proc/ptags is an empty mount point.  ptags-permd serves a
 * tagged client of another user and refuses an untagged one.
 */
#include "guest.h"

#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "ptags.h"

#define SOCK	"/tmp/lib_peer.sock"
#define FAKE	"/tmp/lib_peer_fake_root"
#define NSROOT	"/tmp/lib_peer_ns_ptags"
#define PERMD_DIR	"/tmp/lib_peer_permd"	/* owned by the daemon's user */
#define PERMD_SOCK	PERMD_DIR "/sock"

enum mode { PLAIN, FORGED_ENV, EMPTY_ROOT, CHILD_PIDNS };

struct scenario {
	const char *what;
	uid_t daemon, client;		/* 0: stays root */
	const char *client_tags;	/* "" : untagged */
	enum mode mode;
	int want;			/* ptags_peer_has(conn, "S:camera") */
	int want2;			/* CHILD_PIDNS: after mounting its own root */
};

static const struct scenario scenarios[] = {
	{ "daemon 1000, client 1000", 1000, 1000, "+S:camera\n", PLAIN, 1, 0 },
	{ "daemon 1000, client 1001", 1000, 1001, "+S:camera\n", PLAIN, 1, 0 },
	{ "daemon 1001, client 1000", 1001, 1000, "+S:camera\n", PLAIN, 1, 0 },
	{ "daemon 1000, client root", 1000, 0, "+S:camera\n", PLAIN, 1, 0 },
	{ "daemon root, client 1000", 0, 1000, "+S:camera\n", PLAIN, 1, 0 },
	{ "daemon 1000, untagged client 1001", 1000, 1001, "", PLAIN, 0, 0 },
	{ "daemon 1000, client 1001 with another tag", 1000, 1001,
	  "+S:mic\n", PLAIN, 0, 0 },
	{ "a forged $PTAGS_ROOT is not read (untagged client)", 1000, 1000,
	  "", FORGED_ENV, 0, 0 },
	{ "an empty /proc/ptags mount point: -ENODEV, not \"no such process\"",
	  1000, 1001, "+S:camera\n", EMPTY_ROOT, -ENODEV, 0 },
	{ "a daemon in a child pid namespace reading the initial /proc/ptags: -EXDEV; with its own mount: yes",
	  0, 0, "+S:camera\n", CHILD_PIDNS, -EXDEV, 1 },
};

static int become(uid_t uid)
{
	if (!uid)
		return 0;
	return drop_privileges(uid);
}

static int listen_on(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(a.sun_path, SOCK);
	unlink(SOCK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 4))
		return -1;
	return s;
}

static int connect_to(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(a.sun_path, path);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	return s;
}

/* A client: tagged by root while it waits, then @uid, then it connects. */
static pid_t client(const struct scenario *sc, int *release)
{
	int go[2], rel[2];
	pid_t pid;
	char c;

	if (pipe(go) || pipe(rel))
		die("pipe");
	pid = tap_fork();
	if (!pid) {
		close(go[1]);
		close(rel[1]);
		if (read(go[0], &c, 1) != 1 || become(sc->client))
			_exit(1);
		if (connect_to(SOCK) < 0)
			_exit(2);
		if (read(rel[0], &c, 1) < 0)	/* until the verdict */
			_exit(3);
		_exit(0);
	}
	close(go[0]);
	close(rel[0]);
	if (*sc->client_tags && pt_write(pid, sc->client_tags))
		die("tagging the client");
	if (write(go[1], "g", 1) != 1)
		die("go");
	close(go[1]);
	*release = rel[1];
	return pid;
}

/* In the daemon, per mode, before it drops privilege. */
static int daemon_setup(const struct scenario *sc)
{
	if (sc->mode == EMPTY_ROOT) {
		if (unshare(CLONE_NEWNS) ||
		    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("tmpfs", PT_ROOT, "tmpfs", 0, NULL))
			return -1;
	}
	return 0;
}

/* The daemon: accept one client and report what the peer check says. */
static int daemon_serve(const struct scenario *sc, int srv, int out)
{
	char path[128], line[] = "S:camera\n";
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int c, r, fd;

	c = accept(srv, NULL, NULL);
	if (c < 0)
		return 4;
	if (sc->mode == FORGED_ENV) {
		/* whoever started the daemon controls its environment */
		if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len))
			return 5;
		snprintf(path, sizeof(path), FAKE "/%d", (int)cred.pid);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, line, strlen(line)) < 0)
			return 6;
		close(fd);
		setenv("PTAGS_ROOT", FAKE, 1);
	}
	r = ptags_peer_has(c, "S:camera", 0);
	if (write(out, &r, sizeof(r)) != sizeof(r))
		return 7;
	if (sc->mode == CHILD_PIDNS) {
		/* its own instance, in its pid namespace */
		mkdir(NSROOT, 0755);
		if (mount("ptags", NSROOT, "ptags", 0, NULL) ||
		    ptags_set_root(NSROOT))
			return 8;
		r = ptags_peer_has(c, "S:camera", 0);
		if (write(out, &r, sizeof(r)) != sizeof(r))
			return 9;
	}
	close(c);
	return 0;
}

/*
 * CHILD_PIDNS: the daemon is pid 1 of a new pid namespace (with its own
 * mount namespace, still seeing the initial /proc/ptags); its client, a
 * child of it, is pid 2 there.
 */
static int pidns_daemon(const struct scenario *sc, int out)
{
	int srv, st, rel[2];
	pid_t d, c;
	char ch;

	if (unshare(CLONE_NEWPID | CLONE_NEWNS) ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 20;
	d = fork();
	if (d < 0)
		return 21;
	if (d)
		return waitpid(d, &st, 0) == d && WIFEXITED(st) ?
		       WEXITSTATUS(st) : 22;
	srv = listen_on();
	if (srv < 0 || pipe(rel))
		_exit(23);
	c = fork();
	if (!c) {
		close(rel[1]);
		if (pt_write(0, sc->client_tags) || connect_to(SOCK) < 0 ||
		    read(rel[0], &ch, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(rel[0]);
	st = daemon_serve(sc, srv, out);
	close(rel[1]);
	waitpid(c, NULL, 0);
	_exit(st);
}

static void run(const struct scenario *sc)
{
	int ready[2], res[2], r = -1000, r2 = -1000, srv, st, release = -1;
	pid_t d, c = 0;
	char ch;

	if (pipe(ready) || pipe(res))
		die("pipe");
	d = tap_fork();
	if (!d) {
		close(ready[0]);
		close(res[0]);
		if (sc->mode == CHILD_PIDNS)
			_exit(pidns_daemon(sc, res[1]));
		umask(0);	/* a socket every user may connect to */
		if (daemon_setup(sc))
			_exit(10);
		srv = listen_on();
		if (srv < 0 || become(sc->daemon) ||
		    write(ready[1], "r", 1) != 1)
			_exit(11);
		_exit(daemon_serve(sc, srv, res[1]));
	}
	close(ready[1]);
	close(res[1]);
	if (sc->mode != CHILD_PIDNS) {
		if (read(ready[0], &ch, 1) != 1)
			die("daemon for %s", sc->what);
		c = client(sc, &release);
	}
	if (read(res[0], &r, sizeof(r)) != sizeof(r))
		r = -1000;
	if (sc->mode == CHILD_PIDNS && read(res[0], &r2, sizeof(r2)) != sizeof(r2))
		r2 = -1000;
	if (release >= 0)
		close(release);
	if (c)
		wait_exit(c);
	st = wait_exit(d);
	close(ready[0]);
	close(res[0]);
	if (sc->mode == CHILD_PIDNS)
		ok(st == 0 && r == sc->want && r2 == sc->want2,
		   "peer check: %s (%d then %d, daemon status %d)", sc->what,
		   r, r2, st);
	else
		ok(st == 0 && r == sc->want,
		   "peer check: %s: %d (want %d; daemon status %d)", sc->what,
		   r, sc->want, st);
}

/* ptags-permd as uid 1000; one client of uid 1001 tagged, one untagged. */
static void test_permd(void)
{
	const char *args[] = { "ptags-permd", "-n", "2", PERMD_SOCK, "S:camera",
			       NULL };
	static const struct scenario tagged = { .client = 1001,
						.client_tags = "+S:camera\n" };
	char buf[64];
	int i, st, s, n;
	pid_t d, c;

	mkdir(PERMD_DIR, 0755);
	if (chown(PERMD_DIR, 1000, 1000))
		die("chown " PERMD_DIR);
	d = tap_fork();
	if (!d) {
		umask(0);
		if (drop_privileges(1000))
			_exit(100);
		execv("/bin/ptags-permd", (char **)args);
		_exit(127);
	}
	for (i = 0; i < 100 && access(PERMD_SOCK, F_OK); i++)
		usleep(20000);
	for (i = 0; i < 2; i++) {
		int p[2], go[2];
		char ch;

		if (pipe(p) || pipe(go))
			die("pipe");
		c = tap_fork();
		if (!c) {
			close(p[0]);
			close(go[1]);
			if (read(go[0], &ch, 1) != 1 || drop_privileges(1001))
				_exit(100);
			s = connect_to(PERMD_SOCK);
			n = s < 0 ? -1 : (int)read(s, buf, sizeof(buf) - 1);
			if (write(p[1], &n, sizeof(n)) != sizeof(n))
				_exit(101);
			_exit(0);
		}
		close(p[1]);
		close(go[0]);
		if (i == 0 && pt_write(c, tagged.client_tags))
			die("tagging the client");
		if (write(go[1], "g", 1) != 1)
			die("go");
		close(go[1]);
		if (read(p[0], &n, sizeof(n)) != sizeof(n))
			n = -2;
		close(p[0]);
		wait_exit(c);
		if (i == 0)
			ok(n == 8, "ptags-permd (uid 1000) serves a tagged client of uid 1001 (read %d)", n);
		else
			ok(n == 0, "ptags-permd (uid 1000) refuses an untagged client of uid 1001 (read %d)", n);
	}
	st = wait_exit(d);
	ok(st == 0, "ptags-permd exits 0 after two connections (%d)", st);
}

int main(void)
{
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mkdir(FAKE, 0777);
	chmod(FAKE, 0777);
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		run(&scenarios[i]);
	test_permd();
	unlink(SOCK);
	return tap_done();
}
