/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ptags: the user-space interface of the ptags module.
 *
 * A process's tags live in /proc/ptags/PID (a file system of type "ptags").
 *
 * Reading returns one line per tag, sorted by name in byte order:
 *
 *	["@"] NAME ["=" VALUE] "\n"
 *
 * where "@" marks the keep flag (the tag survives execve).
 *
 * Writing is a line protocol; one write(2) call is one all-or-nothing
 * transaction.  Lines: "+NAME", "+@NAME", "+@PATTERN:*", "+@", "-NAME",
 * "-PATTERN:*", "-", "-@NAME", "-@PATTERN:*", "-@", "!NAME=VALUE", "!NAME=",
 * "!NAME", "?NAME", "?PATTERN:*", "?", "?@NAME", "?@PATTERN:*", "?@",
 * "#comment" and the empty line.  The last byte of a write must be "\n".
 *
 * Errors of write(2):
 *	EINVAL		malformed line, invalid name/value/pattern/UTF-8,
 *			missing final newline
 *	EPERM		the writer lacks the right (ptags:...:add/sub/set/others
 *			or CAP_MAC_ADMIN in the initial user namespace)
 *	ENOENT		"!" on an absent tag, "?" that matches nothing
 *	ECANCELED	max_tags or max_bytes would be exceeded
 *	ENOMEM		the kernel could not allocate memory; nothing changed
 *	E2BIG		the write is larger than max_write
 *	ESRCH		the process exited
 */
#ifndef _UAPI_LINUX_PTAGS_H
#define _UAPI_LINUX_PTAGS_H

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
