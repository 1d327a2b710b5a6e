// SPDX-License-Identifier: GPL-2.0
/*
 * ptags add, rm, set, unset, keep, unkeep: one transaction of the
 * command's lines for its arguments, sent to the process in one write.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tool.h"

struct change {
	const char *cmd;
	enum ptags_op op;
	const char *verb;	/* "add %s to %s" */
	int all_ok;		/* accepts --all */
};

enum { ADD, RM, SET, UNSET, KEEP, UNKEEP };

static const struct change changes[] = {
	[ADD] = { "add", PTAGS_OP_ADD, "add %s to %s", 0 },
	[RM] = { "rm", PTAGS_OP_REMOVE, "remove %s from %s", 1 },
	[SET] = { "set", PTAGS_OP_SET, "set %s on %s", 0 },
	[UNSET] = { "unset", PTAGS_OP_SET, "unset the value of %s on %s", 0 },
	[KEEP] = { "keep", PTAGS_OP_KEEP, "keep %s on %s", 1 },
	[UNKEEP] = { "unkeep", PTAGS_OP_UNKEEP, "unkeep %s on %s", 1 },
};

/* Add one argument of @c to @txn; an exit code on invalid input. */
static int build_arg(const struct change *c, struct ptags_txn *txn, char *arg)
{
	char *eq, *name = arg;
	int keep = 0, rc;

	/* "@NAME" as "ptags PID" prints it: the flag is the command's to set. */
	if (c->op != PTAGS_OP_ADD && *name == '@')
		name++;
	if (c->all_ok && (!strcmp(arg, "--all") || !strcmp(arg, "-a"))) {
		if (c->op == PTAGS_OP_REMOVE)
			return ptags_txn_remove_all(txn) ? EX_OTHER : 0;
		if (c->op == PTAGS_OP_KEEP)
			return ptags_txn_keep_all(txn) ? EX_OTHER : 0;
		return ptags_txn_unkeep_all(txn) ? EX_OTHER : 0;
	}
	switch (c->op) {
	case PTAGS_OP_ADD:
		if (*name == '@') {
			keep = 1;
			name++;
		}
		eq = strchr(name, '=');
		if (eq)
			*eq = 0;
		rc = check_name(name, 0);
		if (!rc && eq)
			rc = check_value(name, eq + 1);
		if (rc)
			return rc;
		if (keep)
			ptags_txn_add_kept(txn, name);
		else
			ptags_txn_add(txn, name);
		if (eq) {
			ptags_txn_set_value(txn, name, eq + 1);
			*eq = '=';
		}
		return 0;
	case PTAGS_OP_SET:
		if (!strcmp(c->cmd, "unset")) {
			rc = check_name(name, 0);
			return rc ? rc : (ptags_txn_clear_value(txn, name) ? EX_OTHER : 0);
		}
		eq = strchr(name, '=');
		if (!eq)
			return usage_error("set takes NAME=VALUE, not '%s'", arg);
		*eq = 0;
		rc = check_name(name, 0);
		if (!rc)
			rc = check_value(name, eq + 1);
		if (!rc)
			ptags_txn_set_value(txn, name, eq + 1);
		*eq = '=';
		return rc;
	case PTAGS_OP_REMOVE:
		rc = check_name(name, 1);
		return rc ? rc : (ptags_txn_remove(txn, name) ? EX_OTHER : 0);
	case PTAGS_OP_KEEP:
		rc = check_name(name, 1);
		return rc ? rc : (ptags_txn_keep(txn, name) ? EX_OTHER : 0);
	default:
		rc = check_name(name, 1);
		return rc ? rc : (ptags_txn_unkeep(txn, name) ? EX_OTHER : 0);
	}
}

static int cmd_change(const struct change *c, int argc, char **argv)
{
	struct ptags_txn *txn;
	char names[1024], target[64];
	const char *one = NULL;
	pid_t pid;
	int i, rc = 0, err;

	if (argc < 2)
		return usage_error("%s needs a PID and at least one tag", c->cmd);
	if (parse_pid(argv[0], &pid))
		return usage_error("not a process id: '%s'", argv[0]);
	txn = ptags_txn_new();
	if (!txn)
		return report(-ENOMEM, c->op, NULL, 0, "%s", c->cmd);
	for (i = 1; i < argc && !rc; i++)
		rc = build_arg(c, txn, argv[i]);
	if (rc) {
		ptags_txn_free(txn);
		return rc;
	}
	err = ptags_txn_commit(txn, pid);
	ptags_txn_free(txn);
	if (!err)
		return EX_OK;
	join(names, sizeof(names), argc - 1, argv + 1);
	if (argc == 2) {
		/* Explain with the bare name: no '@', no '=VALUE'. */
		static char bare[PTAGS_NAME_MAX + 1];

		snprintf(bare, sizeof(bare), "%s", argv[1] + (argv[1][0] == '@'));
		bare[strcspn(bare, "=")] = 0;
		one = strcmp(bare, "--all") && strcmp(bare, "-a") ? bare : NULL;
	}
	snprintf(target, sizeof(target), "%s", pid_str(pid));
	/* "add NAME=VALUE" is two lines (+ and !): either right may be missing. */
	if (c->op == PTAGS_OP_ADD && argc == 2 && strchr(argv[1], '='))
		return report(err, PTAGS_OP_WRITE, NULL, pid, c->verb, names, target);
	return report(err, c->op, one, pid, c->verb, names, target);
}

int cmd_add(int argc, char **argv)
{
	return cmd_change(&changes[ADD], argc, argv);
}

int cmd_rm(int argc, char **argv)
{
	return cmd_change(&changes[RM], argc, argv);
}

int cmd_set(int argc, char **argv)
{
	return cmd_change(&changes[SET], argc, argv);
}

int cmd_unset(int argc, char **argv)
{
	return cmd_change(&changes[UNSET], argc, argv);
}

int cmd_keep(int argc, char **argv)
{
	return cmd_change(&changes[KEEP], argc, argv);
}

int cmd_unkeep(int argc, char **argv)
{
	return cmd_change(&changes[UNKEEP], argc, argv);
}
