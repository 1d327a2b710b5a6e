// SPDX-License-Identifier: GPL-2.0
/*
 * ptags exec [--tag T]... [--from PID --match PATTERN]... -- CMD: kept
 * tags added to itself (or copied from PID), then CMD executed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

#define EXEC_MAX_MATCH	16

/*
 * Copy to @txn, kept and with their values, the tags of @from that match
 * one of @pats, after removing from ptags itself whatever matches them.
 * The tags are read through a pidfd: never those of a process that took
 * @from's pid.  0 or an exit code.
 */
static int exec_from(struct ptags_txn *txn, pid_t from, char **pats, int npats)
{
	struct ptags_root *root = NULL;
	struct ptags_set *set = NULL;
	size_t i;
	int k, err, pidfd;

	pidfd = pidfd_of(from);
	if (pidfd < 0)
		return report(pidfd, PTAGS_OP_READ, NULL, 1, "read the tags of %d",
			      (int)from);
	err = open_root(&root);
	if (!err)
		err = ptags_pidfd_read(root, pidfd, &set);
	ptags_root_close(root);
	close(pidfd);
	if (err)
		return report(err, PTAGS_OP_READ, NULL, 1, "read the tags of %d",
			      (int)from);
	for (k = 0; k < npats; k++)
		ptags_txn_remove(txn, pats[k]);
	for (i = 0; i < ptags_set_count(set); i++) {
		const struct ptags_tag *t = ptags_set_tag(set, i);

		for (k = 0; k < npats; k++)
			if (ptags_match(pats[k], t->name, t->value) == 1)
				break;
		if (k == npats)
			continue;
		ptags_txn_add_kept(txn, t->name);
		if (t->value && *t->value)
			ptags_txn_set_value(txn, t->name, t->value);
		else
			ptags_txn_clear_value(txn, t->name);
	}
	ptags_set_free(set);
	return 0;
}

int cmd_exec(int argc, char **argv)
{
	struct ptags_txn *txn = ptags_txn_new();
	char *pats[EXEC_MAX_MATCH];
	char names[1024];
	int i, ntags = 0, npats = 0, rc = 0, err;
	pid_t from = -1;

	if (!txn)
		return report(-ENOMEM, PTAGS_OP_ADD, NULL, 0, "exec");
	for (i = 0; i < argc; i++) {
		char *t = NULL, *eq;

		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--from") || !strcmp(argv[i], "--match")) {
			const char *opt = argv[i++];

			if (i == argc)
				rc = usage_error("%s needs a value", opt);
			else if (!strcmp(opt, "--match"))
				rc = npats == EXEC_MAX_MATCH ?
				     usage_error("at most %d --match", EXEC_MAX_MATCH) :
				     check_name(argv[i], 1);
			else if (parse_pid(argv[i], &from) || from <= 0)
				rc = usage_error("--from: '%s' is not a process id", argv[i]);
			if (rc) {
				ptags_txn_free(txn);
				return rc;
			}
			if (!strcmp(opt, "--match"))
				pats[npats++] = argv[i];
			continue;
		}
		if (!strcmp(argv[i], "--tag") || !strcmp(argv[i], "-t")) {
			if (i + 1 == argc) {
				ptags_txn_free(txn);
				return usage_error("%s needs NAME[=VALUE]", argv[i]);
			}
			t = argv[++i];
		} else if (!strncmp(argv[i], "--tag=", 6)) {
			t = argv[i] + 6;
		} else if (argv[i][0] == '-') {
			ptags_txn_free(txn);
			return usage_error("exec: unknown option '%s'", argv[i]);
		} else {
			break;
		}
		eq = strchr(t, '=');
		if (eq)
			*eq = 0;
		rc = check_name(t, 0);
		if (!rc && eq)
			rc = check_value(t, eq + 1);
		if (rc) {
			ptags_txn_free(txn);
			return rc;
		}
		ptags_txn_add_kept(txn, t);
		if (eq) {
			ptags_txn_set_value(txn, t, eq + 1);
			*eq = '=';
		}
		argv[ntags++] = t;	/* remember for messages */
	}
	if (i >= argc)
		rc = usage_error("exec needs a command: ptags exec [--tag T[=V]]... [--from PID --match PATTERN]... -- CMD [ARG...]");
	else if ((from >= 0) != (npats > 0))
		rc = usage_error("--from PID and --match PATTERN go together");
	else if (from >= 0)
		rc = exec_from(txn, from, pats, npats);
	if (rc) {
		ptags_txn_free(txn);
		return rc;
	}
	if (ntags || npats) {
		err = ptags_txn_commit(txn, 0);
		if (err) {
			ptags_txn_free(txn);
			join(names, sizeof(names), ntags, argv);
			if (npats)
				return report(err, PTAGS_OP_WRITE, NULL, 0,
					      "copy the tags of %d to itself (pid %d)",
					      (int)from, (int)getpid());
			return report(err, ntags == 1 && !strchr(argv[0], '=') ?
				      PTAGS_OP_ADD : PTAGS_OP_WRITE,
				      ntags == 1 ? argv[0] : NULL, 0,
				      "add %s to itself (pid %d)", names,
				      (int)getpid());
		}
	}
	ptags_txn_free(txn);
	execvp(argv[i], argv + i);
	err = errno;
	fprintf(stderr, "ptags: cannot execute %s: %s\n", argv[i], strerror(err));
	return err == ENOENT ? 127 : 126;
}
