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
