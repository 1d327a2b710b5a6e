// SPDX-License-Identifier: GPL-2.0
/*
 * ptags-oci-hook: an OCI runtime hook for the createRuntime stage that
 * gives a container's init process its identity as kept tags, which every
 * process of the container inherits and its workload cannot remove.
 *
 * The runtime writes the container's state (runtime-spec "state": id,
 * pid, bundle, annotations) on stdin after the init process exists and
 * before the user program is executed; a hook that fails stops the
 * container.  JSON is parsed with Jansson (Debian's libjansson), a parser
 * used and fuzzed far more widely than one written for this program could
 * be.  The tags are written in ONE transaction through a pidfd of the init
 * process (libptags), so they reach that process or nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "tool.h"

#define MAX_MAPS	64
/* The state is small (id, pid, bundle, annotations): refuse a flood. */
#define MAX_STATE	(4 << 20)

static const char usage_text[] =
"usage: ptags-oci-hook [--prefix P] [--kubernetes=containerd|cri-o]\n"
"                      [--annotation KEY=NAME]... [--level N|own]\n"
"                      [--if-loaded] [--optional] < STATE.json\n"
"An OCI createRuntime hook: tags the container's init process with\n"
"@P:id=CONTAINER_ID (P defaults to \"oci\") and, for each annotation mapped\n"
"with --annotation (or a --kubernetes preset) that the container has,\n"
"@P:NAME=VALUE; every earlier P:* tag of the process is removed.  The tags\n"
"are those of level 0 (of the hook's own user namespace when level 0\n"
"refuses it: a rootless runtime), of --level N (a depth of user namespaces)\n"
"or of --level own.  Exits 1 (the runtime then stops the container) when the\n"
"tags cannot be written, unless --optional; with --if-loaded, a container\n"
"starts untagged while ptags is not loaded.  See ptags-oci-hook(1).\n";

/* An annotation to copy: its key, and the tag name under the prefix. */
struct map {
	const char *key, *name;
};

/*
 * The Kubernetes presets: what containerd's CRI plugin and CRI-O put in a
 * container's annotations, mapped to the same four tags.  One runtime's
 * keys only: the other runtime's are plain annotations there, which a
 * tenant may set, so trusting both would let a pod forge its identity.
 */
#define K8S_MAPS	4

static const struct preset {
	const char *runtime;
	struct map maps[K8S_MAPS];
} kubernetes[] = {
	{ "containerd", {
		{ "io.kubernetes.cri.sandbox-name", "k8s:pod" },
		{ "io.kubernetes.cri.sandbox-namespace", "k8s:namespace" },
		{ "io.kubernetes.cri.sandbox-uid", "k8s:pod-uid" },
		{ "io.kubernetes.cri.container-name", "k8s:container" },
	} },
	{ "cri-o", {
		{ "io.kubernetes.pod.name", "k8s:pod" },
		{ "io.kubernetes.pod.namespace", "k8s:namespace" },
		{ "io.kubernetes.pod.uid", "k8s:pod-uid" },
		{ "io.kubernetes.container.name", "k8s:container" },
	} },
};

static struct map maps[MAX_MAPS];
static size_t nmaps;
static const char *prefix = "oci";
static int optional;
static int if_loaded;		/* --if-loaded: untagged while not loaded */
static const char *container_id;	/* the state's "id", as it is */
static const char *container = "?";	/* for messages: shown() */
static char container_shown[4 * 256 + 1];
static const char *level_arg;	/* --level as given; NULL: none */
static int level;

static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ptags-oci-hook: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Why the container cannot be tagged; returns -1. */
static int __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ptags-oci-hook: container %s: ", container);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static int usage(const char *what)
{
	say("%s", what);
	fputs(usage_text, stderr);
	return EX_USAGE;
}

/* "PREFIX:NAME" in a malloc'ed string, or NULL when it is not a valid name. */
static char *tag_name(const char *name, const char **why)
{
	char *s;

	if (asprintf(&s, "%s:%s", prefix, name) < 0)
		return NULL;
	if (ptags_name_valid(s, why)) {
		free(s);
		return NULL;
	}
	return s;
}

static int add_map(const char *key, const char *name)
{
	size_t i;

	for (i = 0; i < nmaps; i++) {
		if (!strcmp(maps[i].key, key))
			return 0;	/* the first mapping of a key wins */
		if (!strcmp(maps[i].name, name)) {
			say("annotations %s and %s would both give %s:%s: one key per tag",
			    maps[i].key, key, prefix, name);
			return EX_USAGE;
		}
	}
	if (nmaps == MAX_MAPS)
		return usage("too many --annotation options");
	maps[nmaps].key = key;
	maps[nmaps].name = name;
	nmaps++;
	return 0;
}

/* Add the kept tag PREFIX:NAME with @value to @txn; 0 or -1. */
static int add_tag(struct ptags_txn *txn, const char *name, const char *value)
{
	const char *why = "";
	char *t = tag_name(name, &why);

	if (!t)
		return fail("cannot form the tag %s:%s: %s", prefix, name, why);
	if (ptags_value_valid(value, &why)) {
		free(t);
		return fail("the value for %s:%s is not a valid tag value: %s",
			    prefix, name, why);
	}
	ptags_txn_add_kept(txn, t);
	if (*value)
		ptags_txn_set_value(txn, t, value);
	else
		ptags_txn_clear_value(txn, t);
	free(t);
	return 0;
}

/* Build the transaction from the state; 0 or -1. */
static int build(json_t *state, struct ptags_txn *txn)
{
	json_t *annotations = json_object_get(state, "annotations");
	char *pattern;
	size_t i;

	if (asprintf(&pattern, "%s:*", prefix) < 0)
		return fail("out of memory");
	/* Stale identity (inherited from a tagged runtime) goes first. */
	ptags_txn_remove(txn, pattern);
	free(pattern);
	if (add_tag(txn, "id", container_id))
		return -1;
	if (annotations && !json_is_object(annotations))
		return fail("\"annotations\" is not an object");
	for (i = 0; annotations && i < nmaps; i++) {
		json_t *v = json_object_get(annotations, maps[i].key);

		if (!v)
			continue;
		if (!json_is_string(v))
			return fail("annotation %s is not a string", maps[i].key);
		if (add_tag(txn, maps[i].name, json_string_value(v)))
			return -1;
	}
	return 0;
}

/* Why the root of --level's level cannot be opened; returns -1. */
static int level_fail(int err)
{
	switch (-err) {
	case ENODEV:
		return fail("ptags is not loaded (cannot mount level %s)",
			    level_arg);
	case EINVAL:
		return fail("no level %s: a level is a depth from 0 to that of the hook's user namespace, or own",
			    level_arg);
	case EPERM:
		return fail("cannot mount level %s: permission denied (%s)",
			    level_arg, level == PTAGS_LEVEL_OWN ?
			    "its own level needs CAP_SYS_ADMIN in the hook's user namespace and over its mount namespace" :
			    "a level needs CAP_SYS_ADMIN over the hook's pid and mount namespaces, and no mount of it shows the hook");
	default:
		return fail("cannot mount level %s: %s", level_arg,
			    ptags_strerror(err));
	}
}

/*
 * Without --level: level 0, through the root of PTAGS_ROOT or /proc/ptags.
 * When level 0 refuses the hook (-EPERM: a rootless runtime, in a user
 * namespace of its own) or that path has no ptags file system (-ENODEV),
 * the hook's own level instead, unless PTAGS_ROOT names the root to use.
 * For a runtime in the initial user namespace its own level is level 0.
 * Returns 0 or the error to report: level 0's, unless its own level was
 * reached and failed for another reason.
 */
static int commit_default(int pidfd, struct ptags_txn *txn)
{
	struct ptags_root *root;
	int err, own;

	err = ptags_root_openat(AT_FDCWD, NULL, 0, &root);
	if (!err)
		err = ptags_pidfd_commit(root, pidfd, txn);
	ptags_root_close(root);
	if ((err != -EPERM && err != -ENODEV) || getenv("PTAGS_ROOT"))
		return err;
	own = ptags_root_open_level(PTAGS_LEVEL_OWN, 0, &root);
	if (own) {
		if (own != -ENODEV)
			say("container %s: its own level cannot be mounted either: %s",
			    container, ptags_strerror(own));
		return err;
	}
	own = ptags_pidfd_commit(root, pidfd, txn);
	ptags_root_close(root);
	return own;
}

/*
 * @id as messages show it: printable ASCII as it is, every other byte as
 * \xHH, so a container id cannot send escape sequences to a terminal; long
 * ids are cut.
 */
static const char *shown(const char *id)
{
	const unsigned char *p = (const unsigned char *)id;
	size_t o = 0;

	while (*p && o + 5 <= sizeof(container_shown)) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			container_shown[o++] = *p++;
		else
			o += snprintf(container_shown + o,
				      sizeof(container_shown) - o, "\\x%02x", *p++);
	}
	container_shown[o] = 0;
	return container_shown;
}

/* Jansson's reader of stdin, which stops after MAX_STATE bytes. */
struct capped {
	size_t total;
	int over;
};

static size_t read_capped(void *buf, size_t len, void *data)
{
	struct capped *c = data;
	size_t n;

	if (c->total >= MAX_STATE) {
		/* One byte more tells a state of exactly MAX_STATE bytes. */
		if (fread(buf, 1, 1, stdin) == 1) {
			c->over = 1;
			return (size_t)-1;
		}
		return 0;
	}
	if (len > MAX_STATE - c->total)
		len = MAX_STATE - c->total;
	n = fread(buf, 1, len, stdin);
	if (!n && ferror(stdin))
		return (size_t)-1;
	c->total += n;
	return n;
}

static int run(void)
{
	struct ptags_root *root = NULL;
	struct ptags_txn *txn;
	json_error_t jerr;
	json_t *state, *id, *pid;
	json_int_t nr;
	int pidfd, err, rc;

	struct capped cap = { 0 };

	state = json_load_callback(read_capped, &cap, JSON_REJECT_DUPLICATES,
				   &jerr);
	if (!state && cap.over)
		return fail("the state on stdin is larger than %d MiB",
			    MAX_STATE >> 20);
	if (!state)
		return fail("the state on stdin is not JSON: %s (line %d)",
			    jerr.text, jerr.line);
	id = json_object_get(state, "id");
	pid = json_object_get(state, "pid");
	if (!json_is_string(id) || !*json_string_value(id)) {
		json_decref(state);
		return fail("the state has no container \"id\"");
	}
	container_id = json_string_value(id);
	container = shown(container_id);
	nr = json_is_integer(pid) ? json_integer_value(pid) : 0;
	if (nr <= 0 || nr > 0x7fffffff) {
		rc = fail("the state has no valid \"pid\" (is the hook in the createRuntime stage?)");
		json_decref(state);
		return rc;
	}
	txn = ptags_txn_new();
	if (!txn) {
		json_decref(state);
		return fail("out of memory");
	}
	rc = build(state, txn);
	if (rc)
		goto out;
	pidfd = syscall(SYS_pidfd_open, (pid_t)nr, 0);
	if (pidfd < 0) {
		rc = fail("cannot open process %lld: %s", (long long)nr,
			  strerror(errno));
		goto out;
	}
	if (level_arg) {
		err = ptags_root_open_level(level, 0, &root);
		if (err == -ENODEV && if_loaded)
			goto not_loaded;
		if (err) {
			close(pidfd);
			rc = level_fail(err);
			goto out;
		}
		err = ptags_pidfd_commit(root, pidfd, txn);
		ptags_root_close(root);
	} else {
		err = commit_default(pidfd, txn);
	}
not_loaded:
	close(pidfd);
	if (err == -ENODEV && if_loaded)
		say("container %s: ptags is not loaded: it starts untagged (--if-loaded)",
		    container);
	else if (err == -ENODEV)
		rc = fail("ptags is not loaded (no ptags file system at %s)",
			  ptags_root());
	else if (err)
		rc = fail("cannot tag process %lld: %s", (long long)nr,
			  ptags_strerror(err));
out:
	ptags_txn_free(txn);
	json_decref(state);
	return rc;
}

int main(int argc, char **argv)
{
	const char *why = "";
	char *probe;
	size_t k;
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			printf("ptags-oci-hook %s\n", PTAGS_VERSION);
			return 0;
		} else if (!strcmp(a, "--optional")) {
			optional = 1;
		} else if (!strcmp(a, "--if-loaded")) {
			if_loaded = 1;
		} else if (!strncmp(a, "--kubernetes", 12) &&
			   (!a[12] || a[12] == '=')) {
			const struct preset *p = NULL;

			for (k = 0; a[12] && k < sizeof(kubernetes) / sizeof(kubernetes[0]); k++)
				if (!strcmp(a + 13, kubernetes[k].runtime))
					p = &kubernetes[k];
			if (!p)
				return usage("--kubernetes needs the runtime whose annotations to trust: --kubernetes=containerd or --kubernetes=cri-o");
			for (k = 0; k < K8S_MAPS; k++)
				if ((rc = add_map(p->maps[k].key, p->maps[k].name)))
					return rc;
		} else if (!strcmp(a, "--level") ||
			   !strncmp(a, "--level=", 8)) {
			level_arg = a[7] ? a + 8 :
				    i + 1 < argc ? argv[++i] : NULL;
			if (!level_arg || !*level_arg)
				return usage("--level needs a depth (0, 1, ...) or own");
			if (parse_level(level_arg, &level)) {
				say("--level takes a depth (0, 1, ...) or own, not '%s'",
				    level_arg);
				return EX_USAGE;
			}
		} else if (!strcmp(a, "--prefix") || !strcmp(a, "--annotation")) {
			if (i + 1 == argc)
				return usage(!strcmp(a, "--prefix") ?
					     "--prefix needs a value" :
					     "--annotation needs KEY=NAME");
			if (!strcmp(a, "--prefix")) {
				prefix = argv[++i];
				continue;
			}
			{
				char *eq = strchr(argv[++i], '=');

				if (!eq || eq == argv[i] || !eq[1])
					return usage("--annotation needs KEY=NAME");
				*eq = 0;
				rc = add_map(argv[i], eq + 1);
				if (rc)
					return rc;
			}
		} else {
			say("unknown argument '%s'", a);
			return usage("the state comes on stdin, not as an argument");
		}
	}
	/* The prefix must form names: checked once, whatever the order. */
	probe = tag_name("id", &why);
	if (!probe) {
		say("--prefix %s does not form valid tag names: %s", prefix, why);
		return EX_USAGE;
	}
	free(probe);
	for (k = 0; k < nmaps; k++) {
		probe = tag_name(maps[k].name, &why);
		if (!probe) {
			say("%s:%s is not a valid tag name: %s", prefix,
			    maps[k].name, why);
			return EX_USAGE;
		}
		free(probe);
	}
	if (!run())
		return 0;
	fprintf(stderr, optional ?
		"ptags-oci-hook: --optional: the container starts untagged\n" :
		"ptags-oci-hook: the container is not started\n");
	return optional ? 0 : 1;
}
