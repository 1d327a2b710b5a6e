/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libptags: read and change the tags of processes (the ptags module).
 *
 * A process's tags are served by the module at /proc/ptags/PID (SPEC §3).
 * This library parses them, builds transactions so that callers never format
 * protocol lines, lists tagged processes and checks the tags of the peer of
 * a unix socket without being fooled by pid reuse.
 *
 * Conventions:
 *  - Functions that can fail return 0 (or a count, or 1/0 for a yes/no
 *    question) on success and a NEGATIVE errno on failure.  The errno values
 *    mean what SPEC §7 says, with one normalisation: a process that does not
 *    exist (or has exited) is always -ESRCH, so -ENOENT always means "no such
 *    tag" (a "!" or "?" line found nothing).  -ENODEV means the ptags root
 *    does not exist (module not loaded, file system not mounted).
 *  - A pid of 0 means the calling process ("self").
 *  - Strings are NUL-terminated UTF-8.  Names, values and patterns are
 *    validated here with the rules of SPEC §4 before anything is written, so
 *    a caller's string can never inject a protocol line.
 *  - Thread safety: every function may be called from several threads at
 *    once on different objects, except ptags_set_root().  A program with
 *    threads, or serving several ptags mounts, opens each root once with
 *    ptags_root_openat() (a level's: ptags_root_open_level(), PTAGS_3) and
 *    passes the handle (PTAGS_2).
 *
 * ABI: the shared library is libptags.so.1.  Symbols of the first release
 * carry the version PTAGS_1, later ones PTAGS_2 and PTAGS_3.  The
 * structures a caller allocates (struct ptags_peer) or receives in an array
 * (struct ptags_proc) never change size; new interfaces use opaque objects
 * with accessors (struct ptags_root, struct ptags_listing) so they can grow.
 */
#ifndef PTAGS_H
#define PTAGS_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Restated from <uapi/linux/ptags.h> (identical definitions may coexist). */
#define PTAGS_INTERFACE_VERSION		1
#define PTAGS_DEFAULT_ROOT		"/proc/ptags"
#define PTAGS_NAME_MAX			4000
#define PTAGS_VALUE_MAX			32700
#define PTAGS_DEFAULT_MAX_WRITE		(1 << 20)
#define PTAGS_SUPER_MAGIC		0x70746167

/* Library version: major * 10000 + minor * 100 + patch. */
#define PTAGS_LIB_VERSION		10100

/* ------------------------------------------------------------------ */
/* Root                                                               */

/*
 * ptags_root() - the directory holding the PID entries.
 *
 * In order: the path given to ptags_set_root(), the environment variable
 * PTAGS_ROOT when it is set and not empty (ignored in set-user-ID and other
 * secure-execution programs: secure_getenv(3)), else "/proc/ptags".
 * Whichever it is, every call reads and writes tags only through a ptags
 * file system there: a directory of another kind (a container's own
 * procfs, whose ptags directory is empty; files someone made) is -ENODEV,
 * "ptags is not available".
 */
const char *ptags_root(void);

/*
 * ptags_set_root() - use @root instead (NULL: back to the default).
 * The string is copied.  Not thread-safe: call it before starting threads.
 * Returns 0 or -ENOMEM.
 */
int ptags_set_root(const char *root);

/*
 * Root handles (PTAGS_2): an opened ptags directory, for programs with
 * threads and managers serving several mounts (a container's own instance,
 * a level's).  A handle may be used by several threads at once.
 */
struct ptags_root;

/*
 * ptags_root_openat() - open @path (relative to @dirfd, as openat(2); NULL:
 * ptags_root()) and check that it is a ptags file system.  @flags must be
 * 0.  Returns 0 and *@root, or -ENODEV (missing, or not ptags: an empty
 * mount point), -EINVAL, -ENOMEM, another open(2) error.
 */
int ptags_root_openat(int dirfd, const char *path, unsigned int flags,
		      struct ptags_root **root);
/* ptags_root_open_level(): the caller's own user namespace. */
#define PTAGS_LEVEL_OWN		(-1)

/*
 * ptags_root_open_level() (PTAGS_3) - a root showing the tags of level
 * @level (SPEC §12): a depth on the caller's chain of user namespaces (0:
 * the initial one, the level of /proc/ptags; 1 its child on the chain, and
 * so on up to the depth of the caller's own), or PTAGS_LEVEL_OWN, the
 * caller's own user namespace.  @flags must be 0.
 *
 * The handle holds a private mount of its own ("ptags" with "level=", made
 * by fsopen(2) and fsmount(2) and attached nowhere, nosuid, nodev, noexec):
 * nobody else sees it, and it goes away with ptags_root_close().  Pids are
 * the caller's pid namespace's.  Who may mount it (SPEC §12): whoever has
 * CAP_SYS_ADMIN in the user namespace that owns its pid namespace, any
 * level of its chain; whoever has CAP_SYS_ADMIN only in its own user
 * namespace (a rootless manager, "unshare -Urm"), PTAGS_LEVEL_OWN only.
 * Either also needs CAP_SYS_ADMIN over its mount namespace (fsopen(2)).
 *
 * A caller that may not mount (-EPERM; or -ENOSYS, no fsopen(2)) and asks
 * for a depth gets instead the first mount of that level listed in
 * /proc/self/mountinfo (no "level=" option: level 0) that resolves pids in
 * its pid namespace and in which it is visible (a mount of another chain's
 * level of the same depth hides it).  PTAGS_LEVEL_OWN has no such
 * fallback: a process cannot learn its own depth.
 *
 * Returns 0 and *@root, or: -EINVAL @level is neither a depth nor
 * PTAGS_LEVEL_OWN or @flags is not 0, or (when mounting) @level is deeper
 * than the caller's user namespace; -ENODEV the module is not loaded;
 * -EPERM the caller may not mount the level and no mount of it serves it;
 * -ENOSYS no fsopen(2) and no such mount; -EAGAIN the module is still
 * loading; -ENOSPC the level has its 64 instances in the caller's pid
 * namespace (the module's bound) and none went within a second of waiting;
 * -ENOMEM, -EMFILE, another error of fsopen(2), fsconfig(2) or fsmount(2).
 */
int ptags_root_open_level(int level, unsigned int flags,
			  struct ptags_root **root);
/* The directory's descriptor (owned by the handle). */
int ptags_root_fd(const struct ptags_root *root);
void ptags_root_close(struct ptags_root *root);

/* ------------------------------------------------------------------ */
/* Tags and sets                                                      */

/* One tag: a line of SPEC §3.3 parsed. */
struct ptags_tag {
	const char *name;	/* never NULL */
	const char *value;	/* NULL when the tag has no value */
	int keep;		/* 1 when the keep flag is set ("@") */
};

/* A parsed tag set (opaque), sorted by name as the module returns it. */
struct ptags_set;

/*
 * ptags_read() - read the tags of process @pid (0: self) into *@set.
 * One consistent snapshot (SPEC §3.3).  Free with ptags_set_free().
 * Errors: -ESRCH no such process, -ENODEV no ptags root, -EINVAL the text
 * is not in the SPEC §3.3 format, -ENOMEM, other read errors.
 */
int ptags_read(pid_t pid, struct ptags_set **set);

/*
 * ptags_parse() - parse @len bytes of SPEC §3.3 text into *@set.
 * Every line must end with "\n".  Returns 0, -EINVAL or -ENOMEM.
 */
int ptags_parse(const char *text, size_t len, struct ptags_set **set);

void ptags_set_free(struct ptags_set *set);

/* Number of tags in @set. */
size_t ptags_set_count(const struct ptags_set *set);

/* Tag number @i (0-based) of @set, or NULL when @i is out of range. */
const struct ptags_tag *ptags_set_tag(const struct ptags_set *set, size_t i);

/* The tag named exactly @name, or NULL. */
const struct ptags_tag *ptags_set_find(const struct ptags_set *set,
				       const char *name);

/* ------------------------------------------------------------------ */
/* Queries: "NAME", "PREFIX:*" (SPEC §4.3) or "NAME=VALUE"            */

/*
 * ptags_query_valid() - 0 when @query is a valid query, else -EINVAL
 * (and, when @why is not NULL, *@why explains it in a few words).
 */
int ptags_query_valid(const char *query, const char **why);

/*
 * ptags_match() - does the tag (@name, @value) match @query?
 * "NAME" matches that tag whatever its value, "PREFIX:*" every tag whose
 * name begins with PREFIX:, "NAME=VALUE" the tag NAME when its value is
 * exactly VALUE.  Returns 1 yes, 0 no, -EINVAL invalid query.
 */
int ptags_match(const char *query, const char *name, const char *value);

/* Does any tag of @set (NULL: the empty set) match @query?  1, 0 or -EINVAL. */
int ptags_set_match(const struct ptags_set *set, const char *query);

/* Does process @pid hold a tag matching @query?  1, 0 or a negative errno. */
int ptags_has(pid_t pid, const char *query);

/* ------------------------------------------------------------------ */
/* Validation (SPEC §4)                                               */

/*
 * Each returns 0 when the string is valid, else -EINVAL and, when @why is
 * not NULL, a short static explanation in *@why ("contains '='", ...).
 */
int ptags_name_valid(const char *name, const char **why);
int ptags_value_valid(const char *value, const char **why);
/* A name or a "PREFIX:*" pattern. */
int ptags_pattern_valid(const char *pattern, const char **why);

/*
 * ptags_line_valid() - 0 when the @len bytes at @line (without its "\n")
 * form a valid line of the write protocol (the empty line, "#..." and the
 * lines of SPEC §3.4's table), else -EINVAL and a reason in *@why (when
 * @why is not NULL).  Whether the line is allowed is for the kernel to
 * say.  Since version PTAGS_2.
 */
int ptags_line_valid(const char *line, size_t len, const char **why);

/* ------------------------------------------------------------------ */
/* Transactions (SPEC §3.4)                                           */

/*
 * A transaction collects lines and sends them in ONE write(2): every line
 * applies, or none does.  Each helper validates its arguments and returns 0,
 * -EINVAL or -ENOMEM; the first such error is remembered and returned by
 * ptags_txn_commit() without writing anything, so helpers may be chained
 * without checking each one.
 */
struct ptags_txn;

struct ptags_txn *ptags_txn_new(void);	/* NULL when out of memory */
void ptags_txn_free(struct ptags_txn *txn);

/* "+NAME": add the tag (no keep flag).  Needs the add right. */
int ptags_txn_add(struct ptags_txn *txn, const char *name);
/* "+@NAME": add the tag with the keep flag, or set it on the existing tag. */
int ptags_txn_add_kept(struct ptags_txn *txn, const char *name);
/* "-NAME" or "-PREFIX:*": remove the tag / every matching tag. */
int ptags_txn_remove(struct ptags_txn *txn, const char *name_or_pattern);
/* "-": remove every tag. */
int ptags_txn_remove_all(struct ptags_txn *txn);
/* "!NAME=VALUE": set the value of an existing tag (VALUE not empty). */
int ptags_txn_set_value(struct ptags_txn *txn, const char *name,
			const char *value);
/* "!NAME": remove the value of an existing tag. */
int ptags_txn_clear_value(struct ptags_txn *txn, const char *name);
/*
 * Set the keep flag.  For a NAME this is "?NAME" then "+@NAME": the tag must
 * exist (-ENOENT otherwise; use ptags_txn_add_kept() to add it); for a
 * "PREFIX:*" pattern it is "+@PREFIX:*" (matching nothing is success).
 */
int ptags_txn_keep(struct ptags_txn *txn, const char *name_or_pattern);
/* "+@": set the keep flag on every tag. */
int ptags_txn_keep_all(struct ptags_txn *txn);
/* "-@NAME" or "-@PREFIX:*": clear the keep flag (the tag stays). */
int ptags_txn_unkeep(struct ptags_txn *txn, const char *name_or_pattern);
/* "-@": clear every keep flag. */
int ptags_txn_unkeep_all(struct ptags_txn *txn);
/*
 * Guards: "?X" / "?@X" make the whole transaction fail with -ENOENT unless
 * a tag (a kept tag) matches X; X NULL means "any tag" ("?" / "?@").
 */
int ptags_txn_require(struct ptags_txn *txn, const char *name_or_pattern);
int ptags_txn_require_kept(struct ptags_txn *txn, const char *name_or_pattern);

/* The exact bytes ptags_txn_commit() writes; *@len gets their number. */
const char *ptags_txn_text(const struct ptags_txn *txn, size_t *len);

/*
 * ptags_txn_commit() - apply @txn to process @pid (0: self) in one write.
 * An empty transaction writes zero bytes (it still fails for a missing
 * process).  Returns 0, the first helper error, or the write's error, as
 * the "Errors" section of <linux/ptags.h> lists them (-EPERM, -ENOENT,
 * -EINVAL, -ECANCELED, -E2BIG, -ENOMEM; -ESRCH: no such process), or
 * -ENODEV (no ptags root).
 */
int ptags_txn_commit(const struct ptags_txn *txn, pid_t pid);

/*
 * ptags_write_text() - write @len bytes of protocol text (SPEC §3.4) to the
 * tags of @pid in one write(2), unchecked: the module validates it.  For
 * transactions read from files.  Errors as ptags_txn_commit().
 */
int ptags_write_text(pid_t pid, const char *text, size_t len);

/*
 * ptags_max_write() - the module's current max_write parameter (SPEC §8),
 * or a negative errno when it cannot be read (module not loaded).
 */
long ptags_max_write(void);

/*
 * ptags_root_read(), ptags_root_write_text(), ptags_root_commit() (PTAGS_2)
 * - as ptags_read(), ptags_write_text() and ptags_txn_commit(), at @root:
 * @pid is a pid of the pid namespace @root serves (0: the caller, if it has
 * a pid there).
 */
int ptags_root_read(const struct ptags_root *root, pid_t pid,
		    struct ptags_set **set);
int ptags_root_write_text(const struct ptags_root *root, pid_t pid,
			  const char *text, size_t len);
int ptags_root_commit(const struct ptags_root *root, pid_t pid,
		      const struct ptags_txn *txn);

/*
 * By pidfd (PTAGS_2): read or change the tags of the process of @pidfd
 * (pidfd_open(2), SO_PEERPIDFD, clone(CLONE_PIDFD), a listing), never of
 * a process that reused its pid.  How: the pid of @pidfd in the caller's
 * pid namespace (PIDFD_GET_INFO, Linux 6.13+, else the pidfd's fdinfo in
 * /proc), the entry of that pid opened, then the pidfd's process checked
 * to still run -- so the opened entry, bound to one process for its life,
 * is that process's -- and the read or write made through it.
 *
 * @root must resolve pids in the caller's pid namespace (its "self" is the
 * caller): -EXDEV otherwise.  Errors as the pid functions, and -ESRCH (the
 * process exited, or has no pid in the caller's namespace), -EBADF (@pidfd
 * is no pidfd), -ENOSYS (no PIDFD_GET_INFO and no /proc of the caller's
 * namespace).
 */
int ptags_pidfd_read(const struct ptags_root *root, int pidfd,
		     struct ptags_set **set);
int ptags_pidfd_write_text(const struct ptags_root *root, int pidfd,
			   const char *text, size_t len);
int ptags_pidfd_commit(const struct ptags_root *root, int pidfd,
		       const struct ptags_txn *txn);

/* ------------------------------------------------------------------ */
/* Listing                                                            */

struct ptags_proc {
	pid_t pid;
	struct ptags_set *tags;	/* all its tags, not only the matching ones */
};

/*
 * ptags_list() - the tagged processes of the root (SPEC §3.2), sorted by
 * pid, each with its tags; with @query not NULL only those holding a tag
 * that matches it.  Processes that exit during the listing are left out,
 * and so are those the caller may not read (a root mounted with
 * hidepid=noaccess lists other users' processes but refuses their reads).
 * On success *@procs (free with ptags_list_free()) holds *@count entries.
 * Errors: -EINVAL invalid query, -ENODEV no ptags root, -ENOMEM, others.
 */
int ptags_list(const char *query, struct ptags_proc **procs, size_t *count);
void ptags_list_free(struct ptags_proc *procs, size_t count);

/* A listing of a root (PTAGS_2), opaque, sorted by pid. */
struct ptags_listing;

#define PTAGS_LIST_PIDFD	1u	/* a pidfd for each process */

/*
 * ptags_root_list() - as ptags_list(), at @root.  With PTAGS_LIST_PIDFD,
 * each process comes with a pidfd (taken before its tags were read, and
 * checked after, so the tags are that process's); it needs a root of the
 * caller's pid namespace (-EXDEV otherwise).  Other @flags: -EINVAL.
 * Free with ptags_listing_free(), which closes the pidfds (dup(2) one to
 * keep it).
 */
int ptags_root_list(const struct ptags_root *root, const char *query,
		    unsigned int flags, struct ptags_listing **listing);
size_t ptags_listing_count(const struct ptags_listing *listing);
/* Entry @i: its pid (0), pidfd (-1) and tags (NULL) when out of range. */
pid_t ptags_listing_pid(const struct ptags_listing *listing, size_t i);
int ptags_listing_pidfd(const struct ptags_listing *listing, size_t i);
const struct ptags_set *ptags_listing_tags(const struct ptags_listing *listing,
					   size_t i);
void ptags_listing_free(struct ptags_listing *listing);

/* ------------------------------------------------------------------ */
/* Peer checks for servers                                            */

#define PTAGS_PEER_SO_PEERPIDFD	1	/* method: SO_PEERPIDFD */
#define PTAGS_PEER_PIDFD_OPEN	2	/* method: SO_PEERCRED + pidfd_open */

/* Flags of ptags_peer_read() and ptags_peer_has(). */
#define PTAGS_PEER_REQUIRE_PEERPIDFD	1u	/* no fallback: -EOPNOTSUPP */

struct ptags_peer {
	pid_t pid;		/* in the caller's pid namespace */
	uid_t uid;		/* from SO_PEERCRED (at connect time) */
	gid_t gid;
	int method;		/* PTAGS_PEER_SO_PEERPIDFD or _PIDFD_OPEN */
};

/*
 * ptags_peer_read() - the tags of the process at the other end of the
 * connected unix socket @sock, read without being fooled by pid reuse.
 *
 * How: the library takes a pidfd of the peer -- SO_PEERPIDFD (Linux 6.5+)
 * names the very process that connected (or created the socket pair);
 * without it, pidfd_open(2) (Linux 5.3+) of the pid SO_PEERCRED recorded.
 * It then reads the tags of that pid from the ptags root and, after
 * reading, confirms through the pidfd that the process is still alive.  A
 * pid number is only reused once its process is gone, and a pidfd never
 * follows a new process, so a live pidfd after the read proves that the
 * tags read belong to the pidfd's process.
 *
 * What it proves: with SO_PEERPIDFD, the process that connected held
 * exactly these tags at some moment during the call.  With the fallback,
 * the same holds unless the connecting process exited and its pid was
 * reused before the call: the library refuses a connection whose peer end
 * is already closed (-ESRCH; stream and seqpacket sockets report that),
 * which covers a peer that simply exits, but a
 * peer that hands its end to another process (fork, SCM_RIGHTS) and exits
 * can make the fallback read the tags of whatever process reuses the pid.
 * Pass PTAGS_PEER_REQUIRE_PEERPIDFD to refuse the fallback, and call this
 * right after accept(2) to keep the window small.
 *
 * Which root: the one given to ptags_set_root(), else /proc/ptags; never
 * $PTAGS_ROOT (whoever starts a daemon controls its environment).  The root
 * must be a ptags file system (statfs) that resolves pids in the caller's
 * pid namespace (its "self" names the caller's own pid; a root of another
 * namespace where the caller happens to have the same pid number passes):
 * a daemon in a container mounts its own instance and passes it to
 * ptags_set_root().
 *
 * Liveness is checked with poll(2) on the pidfd, which needs no permission
 * over the peer: a daemon of any user can check a client of any user.
 *
 * What it does not prove: tags can change at any time after the check
 * (a manager may remove them); the peer may hand the connection to another
 * process afterwards; threads share the tags of their process.
 *
 * Returns 0 and fills *@peer (if not NULL) and *@set (if not NULL; free it
 * with ptags_set_free()), or: -ESRCH the peer exited (or is not visible in
 * the caller's pid namespace), -ENOTCONN @sock is not connected,
 * -EOPNOTSUPP SO_PEERPIDFD is missing and the flag forbids the fallback,
 * -ENOSYS no pidfd_open, -ENOTSOCK, -ENODEV the root is missing or not a
 * ptags file system, -EXDEV the root resolves pids in another pid
 * namespace, -ENOMEM.
 */
int ptags_peer_read(int sock, unsigned int flags, struct ptags_peer *peer,
		    struct ptags_set **set);

/*
 * ptags_peer_has() - does the peer of @sock hold a tag matching @query?
 * ptags_peer_read() then ptags_set_match(): 1 yes, 0 no, negative errno
 * (a peer that exited gives -ESRCH, never 0 or 1).
 */
int ptags_peer_has(int sock, const char *query, unsigned int flags);

/*
 * ptags_root_peer_read() (PTAGS_2) - ptags_peer_read() at @root (NULL: the
 * root ptags_peer_read() uses), which must resolve pids in the caller's
 * pid namespace (-EXDEV), handing the peer's pidfd to the caller in
 * *@pidfd (when not NULL; -1 on failure; close it): with it the caller can
 * wait for the peer's exit (poll(2)) or act on its tags later
 * (ptags_pidfd_read()) without trusting its pid.  Unknown @flags: -EINVAL.
 */
int ptags_root_peer_read(const struct ptags_root *root, int sock,
			 unsigned int flags, struct ptags_peer *peer,
			 int *pidfd, struct ptags_set **set);

/* ------------------------------------------------------------------ */
/* Watching (SPEC §3.5, PTAGS_2)                                      */

/*
 * A watch is an inotify descriptor on a root's directory (every process
 * that becomes tagged, changes, stops being tagged) and on chosen
 * processes' entries, for a daemon's own event loop: poll(2) the
 * descriptor, then call ptags_watch_next() until it returns 0.
 */
struct ptags_watch;

#define PTAGS_WATCH_ALL		1u	/* ptags_watch_open(): the directory */

/* What happened (ptags_watch_next()). */
#define PTAGS_WATCH_TAGGED	1	/* the process became tagged */
#define PTAGS_WATCH_CHANGED	2	/* its tags changed */
#define PTAGS_WATCH_UNTAGGED	3	/* its last tag was removed */
#define PTAGS_WATCH_EXITED	4	/* it exited */
#define PTAGS_WATCH_OVERFLOW	5	/* events were lost: list again */

/*
 * ptags_watch_open() - a watch of @root; with PTAGS_WATCH_ALL, of its
 * directory.  inotify takes paths, so the root and its entries are named
 * through /proc/self/fd: /proc must be mounted.  Returns 0, -EINVAL
 * (flags), or inotify's errors (-EMFILE, -ENOSPC: its limits).
 */
int ptags_watch_open(const struct ptags_root *root, unsigned int flags,
		     struct ptags_watch **watch);
/* The descriptor to poll for POLLIN. */
int ptags_watch_fd(const struct ptags_watch *watch);
void ptags_watch_close(struct ptags_watch *watch);

/*
 * ptags_watch_pidfd() - also watch the process of @pidfd (which the caller
 * keeps): its changes and its exit.  Its entry is found as by
 * ptags_pidfd_read(), so the watch is on that process even if its pid is
 * reused.  Errors as ptags_pidfd_read(), and inotify's.
 */
int ptags_watch_pidfd(struct ptags_watch *watch, int pidfd);

/*
 * ptags_watch_next() - the next event: 1 and *@pid (in the root's pid
 * namespace; 0 for an overflow) and *@what (PTAGS_WATCH_*), 0 when none is
 * waiting, or a negative errno.  A change seen through the directory names
 * a pid: a process that exited just after may have given its pid to
 * another, so act on it through a pidfd.  Through the directory, an exit
 * and an untagging look alike; the library tells them apart by whether the
 * process still exists, which can be wrong if its pid was reused at once.
 */
int ptags_watch_next(struct ptags_watch *watch, pid_t *pid,
		     unsigned int *what);
/* "tagged", "changed", "untagged", "exited", "overflow". */
const char *ptags_watch_what(unsigned int what);

/* ------------------------------------------------------------------ */
/* Errors and output                                                  */

/*
 * ptags_strerror() - a short message for @err (positive or negative) in
 * ptags' terms: "permission denied", "no such tag", "no such process",
 * "tag set limit reached", "transaction larger than max_write", ...
 */
const char *ptags_strerror(int err);

/* What was attempted, for ptags_explain(). */
enum ptags_op {
	PTAGS_OP_READ,		/* reading tags, listing */
	PTAGS_OP_ADD,		/* +NAME, +@NAME */
	PTAGS_OP_REMOVE,	/* -NAME, -PATTERN, - */
	PTAGS_OP_SET,		/* !NAME=VALUE, !NAME */
	PTAGS_OP_KEEP,		/* +@... */
	PTAGS_OP_UNKEEP,	/* -@... */
	PTAGS_OP_REQUIRE,	/* ?... */
	PTAGS_OP_WRITE,		/* a transaction of several kinds of lines */
};

/*
 * ptags_explain() - what to do about @err, in SPEC terms, for operation @op
 * on the tag @name (may be NULL) of the caller itself (@other 0) or of
 * another process (@other 1).  Example: EPERM, ADD, "S:x", 1 gives "the
 * writer needs ptags:S:add and ptags:S:others, or CAP_MAC_ADMIN".  Writes
 * at most @size bytes (NUL included) to @buf and returns the length of the
 * full text like snprintf(3); the text is empty when there is nothing to
 * add to ptags_strerror().
 */
int ptags_explain(char *buf, size_t size, int err, enum ptags_op op,
		  const char *name, int other);

/*
 * ptags_json_string() - @s as a JSON string literal (quotes included),
 * escaping '"', '\\' and control characters; invalid UTF-8 bytes become
 * U+FFFD.  Returns a malloc'ed string, or NULL when out of memory.
 */
char *ptags_json_string(const char *s);

/*
 * ptags_set_json() - @set as a JSON array of objects
 * {"name":STRING,"value":STRING|null,"keep":true|false}, in set order;
 * with @query not NULL only the matching tags.  Malloc'ed, NULL on ENOMEM.
 */
char *ptags_set_json(const struct ptags_set *set, const char *query);

#ifdef __cplusplus
}
#endif

#endif /* PTAGS_H */
