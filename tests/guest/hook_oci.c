// SPDX-License-Identifier: GPL-2.0
/*
 * Containers run by real OCI runtimes (crun and runc from Debian, copied
 * into the guest with their libraries) with ptags-oci-hook as their
 * createRuntime hook.  The container's root file system is busybox-static
 * and this very program, which is also the workload ("hook_oci workload").
 *
 * What must hold: every process of the container (its init with a thread,
 * a child that exec'ed busybox, a child and a grandchild) carries
 * @oci:id=ID and the Kubernetes tags of its annotations; "ptags ps
 * oci:id=ID" lists exactly the processes of its cgroup; the workload, root
 * in the container with every capability it can have there (all but
 * CAP_MAC_ADMIN without a user namespace, all of them in its own), cannot
 * remove, change or unkeep them; two containers at once each list only
 * their own; without ptags the hook fails and the container never runs;
 * crun run rootless, with the hook as packaged, tags its container at the
 * runtime's own level (SPEC §12) and leaves level 0 alone.
 */
#include "guest.h"

#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "ptags.h"

#define TOP	"/tmp/oci"
#define SELF	"/tests/hook_oci"
#define HOOK	"/bin/ptags-oci-hook"

/* ------------------------------------------------------------ workload */

static FILE *out;

static void note(const char *what, bool good, int err)
{
	fprintf(out, "%s %s %d\n", good ? "ok" : "FAIL", what, err);
	fflush(out);
}

/* A write of @line to its own tags through the bind-mounted host root. */
static int self_write(const char *line)
{
	return file_write("/ptags/self", line);
}

static bool self_has(const char *want)
{
	char buf[4096];
	ssize_t n = file_read("/ptags/self", buf, sizeof(buf) - 1);

	if (n < 0)
		return false;
	buf[n] = 0;
	return strstr(buf, want) != NULL;
}

static void *thread_main(void *arg)
{
	const char *id_line = arg;

	note("a thread reads its process's tags", self_has(id_line), 0);
	note("a thread cannot remove them", self_write("-oci:id\n") == EPERM, 0);
	for (;;)
		pause();
	return NULL;
}

static int workload(const char *id)
{
	static char id_line[256];
	static const char *const refused[] = {
		"-oci:id\n", "!oci:id=forged\n", "-@oci:id\n", "+oci:extra\n",
		"!oci:id\n",
	};
	pthread_t t;
	size_t i;
	int err;

	out = fopen("/out/result", "w");
	if (!out)
		return 10;
	snprintf(id_line, sizeof(id_line), "@oci:id=%s\n", id);
	note("init is tagged @oci:id=ID (kept)", self_has(id_line), 0);
	note("init has the pod's tag", self_has("@oci:k8s:pod=pod-a\n"), 0);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char what[64];

		err = self_write(refused[i]);
		snprintf(what, sizeof(what), "refused with EPERM: %.*s",
			 (int)strlen(refused[i]) - 1, refused[i]);
		note(what, err == EPERM, err);
	}
	/* A pattern skips, silently, the tags it may not touch (SPEC §4.3). */
	err = self_write("-oci:*\n");
	note("\"-oci:*\" leaves the identity", !err && self_has(id_line), err);
	err = self_write("-\n");
	note("\"-\" leaves the identity", !err && self_has(id_line), err);
	err = self_write("-@\n");
	note("\"-@\" leaves it kept", !err && self_has(id_line), err);
	if (pthread_create(&t, NULL, thread_main, id_line))
		return 11;
	if (fork() == 0) {
		execl("/bin/busybox", "sleep", "1000", (char *)NULL);
		_exit(12);
	}
	if (fork() == 0) {
		if (fork() == 0)
			for (;;)
				pause();
		for (;;)
			pause();
	}
	usleep(200000);
	fclose(fopen("/out/ready", "w"));
	for (;;)
		pause();
}

/* "workload probe NAME ID": record whether it carries the identity. */
static int probe(const char *name, const char *id)
{
	char path[128], id_line[256];
	FILE *f;

	snprintf(id_line, sizeof(id_line), "@oci:id=%s\n", id);
	snprintf(path, sizeof(path), "/out/probe-%s", name);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%s\n", self_has(id_line) ? "tagged" : "untagged");
	fclose(f);
	return 0;
}

/* ---------------------------------------------------------------- host */

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), o, err = 0;
	ssize_t n;

	if (in < 0)
		return -1;
	o = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (o < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(o, buf, n) != n)
			err = -1;
	close(in);
	close(o);
	return n < 0 ? -1 : err;
}

static const char *const caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER",
	"CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
	"CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
	"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
	"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD",
	"CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP",
	"CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
};

/* The JSON array of capabilities, CAP_MAC_ADMIN only with @mac_admin. */
static void cap_list(FILE *f, bool mac_admin)
{
	size_t i;
	bool first = true;

	fputc('[', f);
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		if (!mac_admin && !strcmp(caps[i], "CAP_MAC_ADMIN"))
			continue;
		fprintf(f, "%s\"%s\"", first ? "" : ",", caps[i]);
		first = false;
	}
	fputc(']', f);
}

/* Make the bundle TOP/ID: rootfs, out directory and config.json. */
static void bundle(const char *id, bool userns, const char *hook_env,
		   const char *ptags_src)
{
	char path[256];
	FILE *f;
	int k;

	snprintf(path, sizeof(path), "rm -rf " TOP "/%s", id);
	if (system(path))
		die("rm");
	mkdir(TOP, 0755);
	snprintf(path, sizeof(path), TOP "/%s", id);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), TOP "/%s/out", id);
	mkdir(path, 0777);
	chmod(path, 0777);
	static const char *const dirs[] = { "rootfs", "rootfs/bin", "rootfs/proc",
		"rootfs/ptags", "rootfs/out", "rootfs/dev", "rootfs/tmp" };
	for (k = 0; k < 7; k++) {
		snprintf(path, sizeof(path), TOP "/%s/%s", id, dirs[k]);
		mkdir(path, 0755);
	}
	snprintf(path, sizeof(path), TOP "/%s/rootfs/bin/busybox", id);
	if (copy_file("/bin/busybox", path))
		die("copy busybox");
	snprintf(path, sizeof(path), TOP "/%s/rootfs/bin/workload", id);
	if (copy_file(SELF, path))
		die("copy the workload");
	/* In a user namespace, the container's root is host uid 100000. */
	snprintf(path, sizeof(path), "chown -R 100000:100000 " TOP "/%s/rootfs", id);
	if (userns && system(path))
		die("chown");
	snprintf(path, sizeof(path), TOP "/%s/config.json", id);
	f = fopen(path, "w");
	if (!f)
		die("config.json");
	fprintf(f, "{\"ociVersion\":\"1.0.2\",\"process\":{\"terminal\":false,"
		"\"user\":{\"uid\":0,\"gid\":0},\"args\":[\"/bin/workload\",\"workload\",\"%s\"],"
		"\"env\":[\"PATH=/bin\"],\"cwd\":\"/\",\"capabilities\":{", id);
	static const char *const sets[] = { "bounding", "effective", "permitted" };
	for (k = 0; k < 3; k++) {
		fprintf(f, "%s\"%s\":", k ? "," : "", sets[k]);
		cap_list(f, userns);
	}
	fprintf(f, "}},\"root\":{\"path\":\"rootfs\"},\"hostname\":\"c\","
		"\"mounts\":[{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\"},"
		"{\"destination\":\"/ptags\",\"type\":\"bind\",\"source\":\"%s\",\"options\":[\"rbind\"]},"
		"{\"destination\":\"/out\",\"type\":\"bind\",\"source\":\"" TOP "/%s/out\",\"options\":[\"rbind\"]}],"
		"\"annotations\":{\"io.kubernetes.cri.sandbox-name\":\"pod-a\","
		"\"io.kubernetes.cri.sandbox-namespace\":\"ns-a\","
		/* A tenant's annotation with CRI-O's key: containerd ignores it. */
		"\"io.kubernetes.pod.namespace\":\"forged\"},"
		"\"hooks\":{\"createRuntime\":[{\"path\":\"" HOOK "\","
		"\"args\":[\"ptags-oci-hook\",\"--kubernetes=containerd\"]%s%s%s}]},"
		"\"linux\":{\"cgroupsPath\":\"/s12-%s\",\"namespaces\":["
		"{\"type\":\"pid\"},{\"type\":\"mount\"},{\"type\":\"ipc\"},"
		"{\"type\":\"uts\"},{\"type\":\"network\"}%s]%s}}\n",
		ptags_src, id, hook_env ? ",\"env\":[\"" : "", hook_env ? hook_env : "",
		hook_env ? "\"]" : "", id, userns ? ",{\"type\":\"user\"}" : "",
		userns ? ",\"uidMappings\":[{\"containerID\":0,\"hostID\":100000,\"size\":65536}],"
			 "\"gidMappings\":[{\"containerID\":0,\"hostID\":100000,\"size\":65536}]" : "");
	fclose(f);
}

/* "crun run --no-pivot -b BUNDLE ID" (the guest's root is an initramfs). */
static pid_t run_container(const char *runtime, const char *id)
{
	char bundle_dir[128], log[128];
	pid_t pid;

	snprintf(bundle_dir, sizeof(bundle_dir), TOP "/%s", id);
	snprintf(log, sizeof(log), TOP "/%s.log", id);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setsid();
		execl(runtime, runtime, "run", "--no-pivot", "-b", bundle_dir,
		      id, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static bool wait_file(const char *path, int seconds)
{
	int i;

	for (i = 0; i < seconds * 10; i++) {
		if (!access(path, F_OK))
			return true;
		usleep(100000);
	}
	return false;
}

/* The pids of a cgroup, sorted; returns how many. */
static size_t cgroup_pids(const char *id, pid_t *pids, size_t max)
{
	char path[128], buf[4096], *p, *end;
	ssize_t len;
	size_t n = 0, i, j;

	snprintf(path, sizeof(path), "/sys/fs/cgroup/s12-%s/cgroup.procs", id);
	len = file_read(path, buf, sizeof(buf) - 1);
	if (len < 0)
		return 0;
	buf[len] = 0;
	for (p = buf; n < max; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		pids[n++] = v;
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && pids[j - 1] > pids[j]; j--) {
			pid_t t = pids[j];

			pids[j] = pids[j - 1];
			pids[j - 1] = t;
		}
	return n;
}

/* Does "ptags ps oci:id=ID" (the CLI, as an agent would run it) list @pids? */
static bool cli_lists(const char *id, const pid_t *pids, size_t n)
{
	char cmd[160], line[512];
	size_t seen = 0, i;
	bool extra = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "/bin/ptags ps oci:id=%s", id);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		long v = strtol(line, NULL, 10);
		bool found = false;

		for (i = 0; i < n; i++)
			found |= pids[i] == v;
		if (found)
			seen++;
		else if (v > 0)
			extra = true;
	}
	pclose(p);
	return seen == n && !extra;
}

struct ctr {
	const char *runtime, *id;
	bool userns;
	pid_t run;
};

static void start(struct ctr *c)
{
	char ready[128];

	bundle(c->id, c->userns, NULL, "/proc/ptags");
	c->run = run_container(c->runtime, c->id);
	snprintf(ready, sizeof(ready), TOP "/%s/out/ready", c->id);
	if (!wait_file(ready, 60)) {
		char log[128], buf[2048];
		ssize_t n;

		snprintf(log, sizeof(log), TOP "/%s.log", c->id);
		n = file_read(log, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = 0;
		diag("%s %s never became ready; its log: %s", c->runtime, c->id, buf);
	}
}

static void stop(struct ctr *c)
{
	char cmd[160];
	int st;

	snprintf(cmd, sizeof(cmd), "%s kill %s KILL >/dev/null 2>&1", c->runtime, c->id);
	if (system(cmd))
		diag("%s failed", cmd);
	st = wait_exit(c->run);
	snprintf(cmd, sizeof(cmd), "%s delete -f %s >/dev/null 2>&1", c->runtime, c->id);
	if (system(cmd))
		(void)0;	/* "run" already deleted it */
	(void)st;
}

/* Check a running container: its own report, the listing, the cgroup. */
static void check(struct ctr *c)
{
	char path[128], buf[4096], query[64], *line, *save;
	struct ptags_proc *procs;
	size_t n, i, ncg;
	pid_t cg[16];
	ssize_t len;
	bool same;
	int r, bad = 0, lines = 0;

	snprintf(path, sizeof(path), TOP "/%s/out/result", c->id);
	len = file_read(path, buf, sizeof(buf) - 1);
	buf[len > 0 ? len : 0] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lines++;
		if (strncmp(line, "ok ", 3)) {
			bad++;
			diag("%s %s: %s", c->runtime, c->id, line);
		}
	}
	ok(lines >= 11 && !bad,
	   "%s%s: the workload (root, %s) sees its tags and cannot remove, change or unkeep them (%d checks, %d failed)",
	   c->runtime, c->userns ? " + user namespace" : "",
	   c->userns ? "every capability in its user namespace" : "every capability but CAP_MAC_ADMIN",
	   lines, bad);

	snprintf(query, sizeof(query), "oci:id=%s", c->id);
	ncg = cgroup_pids(c->id, cg, 16);
	r = ptags_list(query, &procs, &n);
	same = !r && n == ncg && ncg == 4;
	for (i = 0; same && i < n; i++)
		same = procs[i].pid == cg[i] &&
		       ptags_set_match(procs[i].tags, "oci:k8s:namespace=ns-a") == 1;
	ok(same, "%s%s: ptags_list(%s) is exactly the container's cgroup (%zu listed, %zu in the cgroup, 4 expected), each with the pod's tags",
	   c->runtime, c->userns ? " + user namespace" : "", query, r ? 0 : n, ncg);
	ok(ncg == 4 && cli_lists(c->id, cg, ncg), "%s%s: \"ptags ps %s\" lists exactly them",
	   c->runtime, c->userns ? " + user namespace" : "", query);
	if (!r)
		ptags_list_free(procs, n);
}

static bool have(const char *path)
{
	return !access(path, X_OK);
}

/* The init pid "RUNTIME state ID" reports, or 0. */
static pid_t init_pid(struct ctr *c)
{
	char cmd[160], buf[4096], *p;
	size_t n;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s state %s", c->runtime, c->id);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	pclose(f);
	buf[n] = 0;
	p = strstr(buf, "\"pid\"");
	return p ? (pid_t)strtol(p + 6 + strspn(p + 6, " :"), NULL, 10) : 0;
}

/*
 * A process started later with "RUNTIME exec" descends from the exec
 * command, not from the container's init: untagged, unless the exec
 * command runs under "ptags exec --from INIT --match 'oci:*'".
 */
static void test_exec(struct ctr *c)
{
	char cmd[384], path[128], buf[64];
	pid_t init = init_pid(c);
	ssize_t n;

	snprintf(cmd, sizeof(cmd), "%s exec %s /bin/workload probe plain %s", c->runtime,
		 c->id, c->id);
	if (system(cmd))
		diag("%s failed", cmd);
	snprintf(path, sizeof(path), TOP "/%s/out/probe-plain", c->id);
	n = file_read(path, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	ok(!strcmp(buf, "untagged\n"), "%s exec: without help the new process is untagged (%s)",
	   c->runtime, n > 0 ? "untagged" : "no report");
	snprintf(cmd, sizeof(cmd), "/bin/ptags exec --from %d --match 'oci:*' -- "
		 "%s exec %s /bin/workload probe joined %s", (int)init, c->runtime, c->id, c->id);
	if (system(cmd))
		diag("%s failed", cmd);
	snprintf(path, sizeof(path), TOP "/%s/out/probe-joined", c->id);
	n = file_read(path, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	ok(init > 0 && !strcmp(buf, "tagged\n"),
	   "ptags exec --from INIT --match 'oci:*' -- %s exec: the new process carries the container's tags (init %d)",
	   c->runtime, (int)init);
}

/* Without ptags (its root gone), the hook fails and nothing runs. */
static void test_fail_closed(const char *runtime)
{
	char started[128];
	struct ctr c = { runtime, "nomod", false, 0 };
	int st;

	bundle(c.id, false, "PTAGS_ROOT=/tmp/oci/no-ptags-here", "/proc/ptags");
	c.run = run_container(runtime, c.id);
	st = wait_exit(c.run);
	snprintf(started, sizeof(started), TOP "/%s/out/result", c.id);
	ok(st != 0 && access(started, F_OK) && errno == ENOENT,
	   "%s: with no ptags file system the hook fails, the run fails (%d) and the workload never ran",
	   runtime, st);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "%s delete -f nomod >/dev/null 2>&1", runtime);
		if (system(cmd))
			(void)0;
	}
}

/*
 * A rootless runtime, as rootless podman runs crun: uid 1000 in a user and
 * mount namespace of its own (unshare -Urm, one uid mapped), in the host's
 * pid namespace, with the packaged hook's arguments (no --level).  Level 0
 * refuses the hook, which then tags the container at the runtime's own
 * level (SPEC §12); the runtime mounts that level and binds it into the
 * container as /ptags, where the workload finds its tags unremovable.
 */
#define RL_ID		"rl"
#define RL_LEVEL	TOP "/rl-level"
#define RL_STATE	TOP "/rl-state"
#define RL_UID		1000

static int map_write(const char *file, const char *text)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	return file_write(path, text);
}

/* The manager: start the container, report, wait for @go, remove it. */
static int rootless_manager(int ready, int go)
{
	char map[32], path[128], c;
	pid_t run;
	int err;

	/* dumpable again after setuid, or /proc/self is root's */
	if (drop_privileges(RL_UID) || prctl(PR_SET_DUMPABLE, 1) ||
	    unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return 20;
	snprintf(map, sizeof(map), "0 %d 1\n", RL_UID);
	if (map_write("setgroups", "deny") || map_write("uid_map", map) ||
	    map_write("gid_map", map))
		return 21;
	err = mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	      mount("ptags", RL_LEVEL, "ptags", 0, "level=own");
	if (err)
		return 22;
	setenv("XDG_RUNTIME_DIR", RL_STATE, 1);
	run = fork();
	if (!run) {
		int fd = open(TOP "/" RL_ID "/out/crun.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setsid();
		execl("/bin/crun", "crun", "--root", RL_STATE,
		      "--cgroup-manager=disabled", "run", "--no-pivot", "-b",
		      TOP "/" RL_ID, RL_ID, (char *)NULL);
		_exit(127);
	}
	if (!wait_file(TOP "/" RL_ID "/out/ready", 60))
		return 23;
	if (system("/bin/ptags --level own ps oci:id=" RL_ID " >" TOP "/" RL_ID "/out/ps-own 2>&1") ||
	    system("/bin/ptags ps oci:id=" RL_ID " >" TOP "/" RL_ID "/out/ps-0 2>&1; echo $? >>" TOP "/" RL_ID "/out/ps-0"))
		return 24;
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		return 25;
	snprintf(path, sizeof(path), "/bin/crun --root %s kill %s KILL", RL_STATE, RL_ID);
	if (system(path))
		return 26;
	wait_exit(run);
	snprintf(path, sizeof(path), "/bin/crun --root %s delete -f %s >/dev/null 2>&1",
		 RL_STATE, RL_ID);
	if (system(path))
		(void)0;	/* "run" already deleted it */
	return 0;
}

/* The pids "ptags ps" wrote to @file, below its header line; how many. */
static size_t ps_pids(const char *file, pid_t *pids, size_t max)
{
	char buf[1024], *line, *save, *end;
	ssize_t len = file_read(file, buf, sizeof(buf) - 1);
	size_t n = 0;

	buf[len > 0 ? len : 0] = 0;
	for (line = strtok_r(buf, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		long v = strtol(line, &end, 10);

		if (end != line && v > 0)
			pids[n++] = v;
	}
	return n;
}

static void test_rootless(void)
{
	struct ctr c = { "/bin/crun", RL_ID, false, 0 };
	char buf[4096], path[128], *line, *save, st0[16];
	int ready[2], go[2], lines = 0, bad = 0, st, mine = 0, at0 = 0;
	pid_t mgr, pids[16];
	struct stat me, them;
	size_t n, i;
	ssize_t len;

	bundle(RL_ID, false, NULL, RL_LEVEL);
	snprintf(path, sizeof(path), "chown -R %d:%d " TOP "/" RL_ID "/rootfs", RL_UID, RL_UID);
	mkdir(RL_LEVEL, 0755);
	mkdir(RL_STATE, 0700);
	if (system(path) || chown(RL_STATE, RL_UID, RL_UID) || pipe(ready) || pipe(go))
		die("rootless setup");
	mgr = tap_fork();
	if (!mgr) {
		close(ready[0]);
		close(go[1]);
		_exit(rootless_manager(ready[1], go[0]));
	}
	close(ready[1]);
	close(go[0]);
	if (read(ready[0], buf, 1) != 1) {
		len = file_read(TOP "/" RL_ID "/out/crun.log", buf, sizeof(buf) - 1);
		buf[len > 0 ? len : 0] = 0;
		diag("the rootless crun never became ready; its log: %s", buf);
	}

	len = file_read(TOP "/" RL_ID "/out/result", buf, sizeof(buf) - 1);
	buf[len > 0 ? len : 0] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lines++;
		if (strncmp(line, "ok ", 3)) {
			bad++;
			diag("rootless crun: %s", line);
		}
	}
	ok(lines >= 11 && !bad,
	   "rootless crun, hook without --level: the workload (root in the runtime's user namespace, no CAP_MAC_ADMIN) sees its tags at the runtime's level and cannot remove, change or unkeep them (%d checks, %d failed)",
	   lines, bad);

	/* The 4 processes listed at the runtime's level are in its namespace. */
	n = ps_pids(TOP "/" RL_ID "/out/ps-own", pids, 16);
	if (n != 4) {
		len = file_read(TOP "/" RL_ID "/out/ps-own", buf, sizeof(buf) - 1);
		buf[len > 0 ? len : 0] = 0;
		diag("ptags --level own ps printed: %s", buf);
	}
	if (stat("/proc/self/ns/user", &me))
		die("stat ns/user");
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pids[i]);
		mine += !stat(path, &them) && them.st_ino != me.st_ino;
		pt_path(path, sizeof(path), pids[i]);
		len = file_read(path, buf, sizeof(buf) - 1);
		buf[len > 0 ? len : 0] = 0;
		at0 += len < 0 || strstr(buf, "oci:") != NULL;
	}
	ok(n == 4 && mine == 4,
	   "rootless crun: \"ptags --level own ps oci:id=%s\" in the runtime's namespaces lists its 4 processes (%zu listed, %d in a user namespace below ours)",
	   RL_ID, n, mine);
	len = file_read(TOP "/" RL_ID "/out/ps-0", st0, sizeof(st0) - 1);
	st0[len > 0 ? len : 0] = 0;
	ok(n == 4 && at0 == 0 && !strcmp(st0, "1\n"),
	   "rootless crun: level 0 is untouched: none of them has an oci: tag in /proc/ptags (%d do), and \"ptags ps\" at level 0 finds none (exit %.*s)",
	   at0, (int)strcspn(st0, "\n"), st0);

	signal(SIGPIPE, SIG_IGN);
	if (write(go[1], "k", 1) != 1)
		diag("the rootless manager ended early");
	st = wait_exit(mgr);
	ok(st == 0, "rootless crun: the runtime started, reported and removed the container (manager status %d)", st);
	close(ready[0]);
	close(go[1]);
	(void)c;
}

int main(int argc, char **argv)
{
	static const char *const runtimes[] = { "/bin/crun", "/bin/runc" };
	size_t k;

	if (argc == 3 && !strcmp(argv[1], "workload"))
		return workload(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "probe"))
		return probe(argv[2], argv[3]);

	if (!have(HOOK) || !have(runtimes[0]) || !have(runtimes[1])) {
		ok(true, "# SKIP crun, runc or ptags-oci-hook is not in the guest");
		return tap_done();
	}
	mkdir("/run", 0755);
	if (access("/sys/fs/cgroup/cgroup.procs", F_OK) &&
	    mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL))
		die("mount cgroup2");
	pt_write(0, "-\n");

	for (k = 0; k < 2; k++) {
		struct ctr a = { runtimes[k], "a1", false, 0 };
		struct ctr b = { runtimes[k], "b2", true, 0 };

		/*
		 * runc sets up cgroup v2 device rules with a BPF program: a
		 * kernel without the bpf() syscall (the debug kernel of make
		 * check-debug) cannot run its containers at all.
		 */
		if (k == 1 && syscall(SYS_bpf, 0, NULL, 0) < 0 && errno == ENOSYS) {
			ok(true, "# SKIP runc: this kernel has no bpf() syscall, which runc needs for cgroup v2 devices");
			continue;
		}

		/* Two at once: one plain, one in its own user namespace. */
		start(&a);
		start(&b);
		check(&a);
		check(&b);
		test_exec(&a);
		stop(&a);
		stop(&b);
		{
			struct ptags_proc *procs;
			size_t n;
			int r = ptags_list("oci:*", &procs, &n);

			ok(!r && n == 0, "%s: after the containers, no process is left tagged (%zu)",
			   runtimes[k], r ? 0 : n);
			if (!r)
				ptags_list_free(procs, n);
		}
		test_fail_closed(runtimes[k]);
	}
	test_rootless();
	return tap_done();
}
