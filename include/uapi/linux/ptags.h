/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ptags: the user-space interface of the ptags module.
 *
 * docs/SPEC.md is the contract.  This header documents the interface as
 * the module implements it, and is where its errors are listed: the
 * ptags(1) man page, the README and the module's comments refer to the
 * "Errors" section below instead of repeating it.
 */
#ifndef _UAPI_LINUX_PTAGS_H
#define _UAPI_LINUX_PTAGS_H

/**
 * DOC: Entries and reading
 *
 * A process's tags live in /proc/ptags/PID (a file system of type "ptags").
 * /proc/ptags/self names the caller's own entry in the pid namespace of the
 * mount: through the initial /proc/ptags, a process of a child pid
 * namespace finds its global pid there, as in procfs; through a ptags
 * mount made inside its namespace, its pid there.
 *
 * Reading returns one line per tag, sorted by name in byte order::
 *
 *	["@"] NAME ["=" VALUE] "\n"
 *
 * where a leading PTAGS_KEEP_CHAR marks the keep flag: the tag survives
 * execve.
 */

/**
 * DOC: Writing
 *
 * Writing is a line protocol; one write(2) call is one all-or-nothing
 * transaction.  The lines (SPEC §3.4)::
 *
 *	+NAME  +@NAME  +@PATTERN:*  +@
 *	-NAME  -PATTERN:*  -  -@NAME  -@PATTERN:*  -@
 *	!NAME=VALUE  !NAME=  !NAME
 *	?NAME  ?PATTERN:*  ?  ?@NAME  ?@PATTERN:*  ?@
 *	#comment
 *
 * and the empty line.  The last byte of a write must be "\n".
 *
 * The bare forms (the lines "-" and "?", and "+", "-" or "?" followed by
 * PTAGS_KEEP_CHAR alone) act like a pattern that matches every tag: the
 * tags the writer may not change are skipped silently (SPEC §4.3).  A
 * write whose lines leave the set as it was ("+b\n-b\n") succeeds and
 * publishes nothing.
 */

/**
 * DOC: Rights
 *
 * Rights are those of SPEC §5, read as follows.  "ptags:ptags:add" also
 * covers the ordinary tag named plain "ptags" (SPEC §5.1's "the tag P").
 * Through a descriptor opened by another process, tag rights count only if
 * the opener held them as tags when it opened the file (SPEC §5.5, read
 * literally): an opener's CAP_MAC_ADMIN is not a tag right, so a descriptor
 * opened by root and handed to a process holding ptags:add and ptags:others
 * grants nothing.  The opener's rights are those it had at open time, even
 * after it exits.
 */

/**
 * DOC: Mounts
 *
 * Options: hidepid=off|noaccess|invisible (or 0|1|2), gid=N and level=N or
 * level=own.  hidepid= and gid= mean what they mean for procfs (SPEC §3.1);
 * as in procfs, gid defaults to 0, whose members are exempt.
 * hidepid=noaccess refuses opening another user's entry in any mode, since
 * a write-only descriptor would otherwise learn tag names from "?NAME" and
 * "-NAME"; a manager that writes to other users' processes under it needs
 * CAP_SYS_PTRACE or the mount's gid=, as in procfs.  procfs's
 * hidepid=ptraceable has no ptags equivalent: a /proc mounted with it gives
 * /proc/ptags hidepid=invisible, the stricter of the two.
 *
 * level=N (SPEC §12) names the ancestor at depth N of the user namespace of
 * the mounter, the process that configures the mount; the process that
 * creates it (fsconfig(2)'s FSCONFIG_CMD_CREATE, or mount(2)) must have that
 * level on its chain too.  level=own and level=N with N the mounter's own
 * depth are the same.  A remount may repeat the level, not change it.
 *
 * At most 64 ptags instances (each mount -t ptags or fsmount(2); bind
 * mounts are free) exist per level and pid namespace; the next mount fails
 * with %ENOSPC.  Any user can mount in a namespace of its own, and this
 * bounds what one change costs the watch worker.
 */

/**
 * DOC: Watching
 *
 * Watching is that of SPEC §3.5.  Events are delivered by a worker, a
 * moment after the change; a read that races with a change may see POLLPRI
 * for a change it already read, never miss one.  An entry's events are its
 * tag changes only: its files are opened FMODE_NONOTIFY, so the VFS's own
 * IN_MODIFY for every write (even one that changed nothing), IN_OPEN,
 * IN_ACCESS and IN_CLOSE_* are not reported.  Untagging is IN_DELETE on the
 * directory (not also IN_MODIFY) and IN_MODIFY on the entry.  A mount with
 * hidepid=invisible gets no directory events: inotify cannot hide an event
 * from a watcher who may not see that process.  IN_DELETE_SELF on a
 * thread's entry needs Linux 6.9 (pidfd wakeups for threads); a process's
 * entry gets it on every kernel.
 *
 * Through a mount of a level, a watch event is dropped when its process has
 * left the level; an IN_DELETE for a process that left the level and has
 * already been reaped can still reach that level's directory watchers (the
 * pid it names was visible there when it was tagged).
 */

/**
 * DOC: Levels
 *
 * Levels are those of SPEC §12.  "CAP_MAC_ADMIN in L" is the kernel's
 * answer to ns_capable(L, CAP_MAC_ADMIN): besides the processes of L (or
 * below) that hold it, the privileged processes of L's ancestors and the
 * user who created L (its owner, from the parent namespace) hold it.  So
 * the host's administrator can act at every level (through a path to a
 * mount of it, such as /proc/PID/root/...), and a rootless user at the
 * levels of the namespaces it made, as the kernel lets them act on those
 * namespaces anyway.  Rights come only from the writer's own set at L, so a
 * writer outside L has none there.
 *
 * Whether a process is in a level is decided at each access, from its user
 * namespace then: a process that moves out (setns to an unrelated user
 * namespace) is not shown nor changed there from then on; its set stays
 * until it exits, and a fork copies it.  Its sets at levels it left are
 * still copied by fork and pruned by exec.
 *
 * max_levels bounds the levels one process carries as a depth: only levels
 * 0 to max_levels - 1 take a first tag (%ECANCELED beyond), so whether a
 * set may start depends on its level alone, never on the process's sets at
 * other levels.  A process's levels all lie on its own chain, one per
 * depth, so the number SPEC §12 bounds is bounded the same.
 */

/**
 * DOC: Counters
 *
 * The counters of /sys/module/ptags/stats/ (SPEC §8).  bytes counts names
 * and values only; the process table's memory for a tagged process (96
 * bytes per set) and the sets' headers count in memory.  tagged_processes
 * counts processes tagged at any level; live_sets and bytes count sets and
 * bytes of every level; pruned counts an exec once however many levels it
 * pruned; inherited counts a fork once.  refused counts writes that failed,
 * whatever their errno.
 */

/**
 * DOC: Errors
 *
 * The errors of a ptags file system, each with what it means (SPEC §7).
 * A call that fails changes nothing.
 *
 * write(2), pwrite(2), writev(2), pwritev(2) and io_uring writes (one call,
 * however many buffers, is one transaction):
 *
 * - %E2BIG: the write is larger than the max_write parameter.  Checked
 *   first, before the bytes are copied in.
 * - %EINVAL: the last byte is not "\n" (checked next, before any line); a
 *   malformed line; an invalid name, value or pattern (SPEC §4); a line
 *   that is not valid UTF-8 (comment lines included).
 * - %EPERM: the writer lacks the right for a change: a ptags:...:add, :sub,
 *   :set or :others tag, or CAP_MAC_ADMIN in the initial user namespace
 *   (SPEC §5), or, at a level, in the level's user namespace (SPEC §12).
 *   Through a descriptor opened by another process, the opener must have
 *   held the right too (SPEC §5.5).
 * - %ENOENT: a "!" line names an absent tag, or a "?" line matches nothing.
 * - %ECANCELED: the set would exceed max_tags or max_bytes, or a first tag
 *   would start a set at a level whose depth is max_levels or more.
 * - %ENOMEM: the kernel could not allocate memory.
 * - %EFAULT: the buffer cannot be read.
 * - %EINTR: a fatal signal arrived during the write.  Its caller is being
 *   killed, so only a tracer or io_uring may see it; SPEC §7's table does
 *   not list it.
 * - %ESRCH: the process has exited, or its parent's fork has not yet given
 *   it its tags: it does not exist for ptags before it has inherited them.
 *
 * Lines are applied in order, and the first line that fails decides the
 * errno.  When one line has several faults, the errno is the first of
 * %EINVAL, %EPERM, %ENOENT, %ECANCELED: "!N=<invalid value>" is %EINVAL
 * even without the right.  Limits are checked line by line, on the set as
 * the previous lines left it: at max_tags, "+x\n-d\n" fails with
 * %ECANCELED and "-d\n+x\n" succeeds.  A zero-byte write succeeds,
 * returns 0 and changes nothing (there is no last byte to check).
 *
 * Other calls:
 *
 * - lookup (open(2), stat(2) of /proc/ptags/PID): %ENOENT for a pid that
 *   the mount does not show (not in its pid namespace, outside its level,
 *   hidden by hidepid=invisible) or whose process has exited, a zombie
 *   included (SPEC §3.2).
 * - open(2): %EACCES for another user's entry under hidepid=noaccess, in
 *   every mode (SPEC §3.1); %ESRCH when the process has exited since its
 *   lookup.
 * - read(2): %ESRCH once the process has exited, unless the read continues
 *   (at a later offset) a snapshot taken before; %EINVAL for a negative
 *   offset; %EFAULT; %ENOMEM.
 * - listing the directory: %EINTR on a fatal signal; %ENOMEM.
 * - mount(2), fsconfig(2): %EINVAL for an unknown option, a hidepid= other
 *   than off, noaccess, invisible, 0, 1 or 2, a gid= with no mapping, a
 *   level= that is neither "own" nor a depth on the mounter's chain, a
 *   creator whose chain does not hold that level, or a remount that changes
 *   the level; %EPERM for a level the mounter may not mount (SPEC §12);
 *   %ENOSPC when the level and pid namespace already have 64 instances;
 *   %EAGAIN while the module is still loading (only root of the initial
 *   namespaces may mount then).
 */

/* Bumped when the text format or protocol changes incompatibly. */
#define PTAGS_INTERFACE_VERSION		1

/* Where the module mounts its file system in the initial mount namespace. */
#define PTAGS_DEFAULT_ROOT		"/proc/ptags"
#define PTAGS_FS_TYPE			"ptags"
/* statfs(2) f_type of a ptags file system. */
#define PTAGS_SUPER_MAGIC		0x70746167	/* "ptag" */

/* Fixed limits of names, values and patterns (bytes). */
#define PTAGS_NAME_MAX			4000
#define PTAGS_VALUE_MAX			32700

/* Defaults of the run-time limits (module parameters). */
#define PTAGS_DEFAULT_MAX_TAGS		4000
#define PTAGS_DEFAULT_MAX_BYTES		(4 << 20)
#define PTAGS_DEFAULT_MAX_WRITE		(1 << 20)
#define PTAGS_DEFAULT_MAX_LEVELS	8

/* Line syntax. */
#define PTAGS_KEEP_CHAR			'@'
#define PTAGS_VALUE_CHAR		'='
#define PTAGS_SPECIAL_PREFIX		"ptags:"

#endif /* _UAPI_LINUX_PTAGS_H */
