// SPDX-License-Identifier: GPL-2.0
/*
 * ptags: show and change the tags of processes (see ptags.1).
 *
 * Every change is one transaction built with libptags and sent in one
 * write(2) (SPEC §3.4): all of a command's arguments apply, or none does.
 * This is the command line: its options, and the table of the commands,
 * each in a file of its own (show.c for "ptags [PID...]").
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

static const char *const all_opts[] = { "--all", "-a", NULL };
static const char *const stats_opts[] = { "--prometheus", NULL };
static const char *const exec_opts[] = { "--tag", "-t", "--from", "--match", NULL };

/* The commands, in the order of "ptags --help". */
static const struct command commands[] = {
	{
		.name = "add",
		.fn = cmd_add,
		.usage =
			"add PID [@]NAME[=VALUE]...\n"
			"  Add tags (@: keep flag, the tag survives execve; =VALUE: set a value).\n",
		.summary =
			"  add PID [@]NAME[=VALUE]...      add tags (@: keep flag; =VALUE: set a value)\n",
	},
	{
		.name = "rm",
		.fn = cmd_rm,
		.usage =
			"rm PID [@]NAME|PREFIX:*|--all...\n"
			"  Remove tags.\n",
		.summary =
			"  rm PID NAME|PREFIX:*|--all...   remove tags\n",
		.opts = all_opts,
	},
	{
		.name = "set",
		.fn = cmd_set,
		.usage =
			"set PID [@]NAME=VALUE...\n"
			"  Set the value of existing tags.\n",
		.summary =
			"  set PID NAME=VALUE...           set the value of existing tags\n",
	},
	{
		.name = "unset",
		.fn = cmd_unset,
		.usage =
			"unset PID [@]NAME...\n"
			"  Remove the value of tags.\n",
		.summary =
			"  unset PID NAME...               remove the value of tags\n",
	},
	{
		.name = "keep",
		.fn = cmd_keep,
		.usage =
			"keep PID [@]NAME|PREFIX:*|--all...\n"
			"  Set the keep flag (the tag survives execve).\n",
		.summary =
			"  keep PID NAME|PREFIX:*|--all... set the keep flag (the tag survives execve)\n",
		.opts = all_opts,
	},
	{
		.name = "unkeep",
		.fn = cmd_unkeep,
		.usage =
			"unkeep PID [@]NAME|PREFIX:*|--all...\n"
			"  Clear the keep flag.\n",
		.summary =
			"  unkeep PID NAME|PREFIX:*|--all... clear the keep flag\n"
			"                                  (a NAME may be written @NAME, as shown)\n",
		.opts = all_opts,
	},
	{
		.name = "has",
		.fn = cmd_has,
		.usage =
			"has PID [@]NAME|PREFIX:*|NAME=VALUE\n"
			"  Exit 0 if PID has a matching tag (with @: a kept one), 1 if not.\n",
		.summary =
			"  has PID [@]NAME|PREFIX:*|NAME=VALUE  exit 0 if PID has a matching tag\n"
			"                                  (@: with the keep flag), 1 if not\n",
	},
	{
		.name = "apply",
		.fn = cmd_apply,
		.usage =
			"apply PID [FILE]\n"
			"  Send FILE (default or -: standard input) as one transaction of\n"
			"  protocol lines; on failure, name the line that failed.\n",
		.summary =
			"  apply PID [FILE]                send FILE (default: standard input) as one\n"
			"                                  transaction of protocol lines (ptags(1))\n",
	},
	{
		.name = "ps",
		.fn = cmd_ps,
		.usage =
			"ps [NAME|PREFIX:*|NAME=VALUE]\n"
			"  Tagged processes: pid, command, matching tags (--json: as JSON).\n",
		.summary =
			"  ps [NAME|PREFIX:*|NAME=VALUE]   tagged processes: pid, command, matching tags\n",
	},
	{
		.name = "watch",
		.fn = cmd_watch,
		.usage =
			"watch [--json] [PID... | NAME|PREFIX:*|NAME=VALUE]\n"
			"  One line per change until interrupted: time, pid, what happened (tagged,\n"
			"  changed, untagged, exited, overflow) and the tags (those matching the\n"
			"  query).  PIDs: their changes, until they all exited.  --json: one object\n"
			"  per line.\n",
		.summary =
			"  watch [PID...|QUERY]           one line per change until interrupted\n",
	},
	{
		.name = "exec",
		.fn = cmd_exec,
		.usage =
			"exec [--tag NAME[=VALUE]]... [--from PID --match PATTERN...] -- CMD [ARG...]\n"
			"  Add kept tags to itself, then execute CMD (which also inherits every\n"
			"  kept tag ptags holds, permission tags included: see ptags(1)).\n"
			"  --from PID --match PATTERN: copy PID's tags matching PATTERN (read by\n"
			"  pidfd), kept, after removing ptags's own: \"runc exec\" joins a container\n"
			"  with  ptags exec --from INIT_PID --match 'oci:*' -- runc exec ID CMD\n",
		.summary =
			"  exec [--tag NAME[=VALUE]]... [--from PID --match PATTERN...] -- CMD [ARG...]\n"
			"                                  add kept tags (or copy PID's tags matching\n"
			"                                  PATTERN) to itself, then execute CMD\n",
		.opts = exec_opts,
		.own_args = true,
	},
	{
		.name = "stats",
		.fn = cmd_stats,
		.usage =
			"stats [--prometheus]\n"
			"  The module's counters (/sys/module/ptags/stats), one NAME VALUE line each;\n"
			"  --json: one object; --prometheus: Prometheus's text format, for the node\n"
			"  exporter's textfile collector (counters end in _total).\n",
		.summary =
			"  stats [--prometheus]            the module's counters (--prometheus: the\n"
			"                                  node exporter's textfile format)\n",
		.opts = stats_opts,
	},
};

#define NCOMMANDS	(sizeof(commands) / sizeof(commands[0]))

/* "ptags --help": this, each command's summary, then usage_tail. */
static const char usage_head[] =
"Usage: ptags [--json] [--root DIR | --level N|own] [PID...]\n"
"       ptags [--root DIR | --level N|own] COMMAND ...\n"
"                                 (options may also follow; -- ends them)\n"
"\n"
"Show the tags of each PID; without PID, those of the parent process (the\n"
"shell that ran ptags: ptags itself was just exec'ed and keeps only kept tags).\n"
"\n"
"Commands (each is ONE transaction: all arguments apply, or none does):\n";

static const char usage_tail[] =
"\n"
"Options:\n"
"  --json      listings (PID..., ps) as JSON; watch: one object per line\n"
"  --root DIR  use DIR instead of $PTAGS_ROOT or /proc/ptags\n"
"  --level N|own\n"
"              the tags of level N (a depth on this process's chain of user\n"
"              namespaces, 0: the initial one) or of its own user namespace\n"
"  -h, --help  this text;  -V, --version\n"
"\n"
"Exit status: 0 success, 1 no (has, ps without match), 2 usage error,\n"
"3 permission denied, 4 no such process, 5 invalid name, value, pattern,\n"
"line or level, 6 no such tag (a value or guard needs one), 7 limit (max_tags,\n"
"max_bytes, max_write), 8 ptags not available, 9 other error; exec: 126/127\n"
"when CMD cannot be run.  See ptags(1).\n";

static const struct command *command_of(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* Is @arg one of @opts (NULL: none)? */
static bool listed(const char *const *opts, const char *arg)
{
	for (; opts && *opts; opts++)
		if (!strcmp(*opts, arg))
			return true;
	return false;
}

static void help(const struct command *cmd)
{
	size_t i;

	if (cmd) {
		printf("Usage: ptags %s", cmd->usage);
		return;
	}
	fputs(usage_head, stdout);
	for (i = 0; i < NCOMMANDS; i++)
		fputs(commands[i].summary, stdout);
	fputs(usage_tail, stdout);
}

int main(int argc, char **argv)
{
	char **pos = calloc(argc + 1, sizeof(*pos));
	const struct command *cmd = NULL;
	const char *level_arg = NULL;
	int i, npos = 0, want_help = 0, own_args = 0, root_given = 0;
	int level = 0, rc;

	if (!pos)
		return EX_OTHER;
	/*
	 * Options may come anywhere, before or after the command and its
	 * arguments; "--" ends them (tag names may begin with '-').  What
	 * follows "exec" is exec's own.
	 */
	for (i = 1; i < argc; i++) {
		const char *o = argv[i];

		if (cmd && cmd->own_args) {
			/* Its options end at "--" or at its first word. */
			if (own_args) {
				pos[npos++] = argv[i];
			} else if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
				want_help = 1;
			} else if (listed(cmd->opts, o)) {
				pos[npos++] = argv[i];
				if (i + 1 < argc)
					pos[npos++] = argv[++i];
			} else {
				own_args = !strcmp(o, "--") || o[0] != '-';
				pos[npos++] = argv[i];
			}
		} else if (!strcmp(o, "--")) {
			while (++i < argc)
				pos[npos++] = argv[i];
		} else if (o[0] != '-' || !o[1] || (cmd && listed(cmd->opts, o))) {
			if (!npos)
				cmd = command_of(o);
			pos[npos++] = argv[i];
		} else if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			want_help = 1;
		} else if (!strcmp(o, "-V") || !strcmp(o, "--version")) {
			printf("ptags %s (libptags, interface %d)\n",
			       PTAGS_VERSION, PTAGS_INTERFACE_VERSION);
			return EX_OK;
		} else if (!strcmp(o, "--json") || !strcmp(o, "-j")) {
			opt_json = 1;
		} else if (!strcmp(o, "--root") || !strncmp(o, "--root=", 7)) {
			const char *dir = o[6] ? o + 7 : (i + 1 < argc ? argv[++i] : NULL);

			if (!dir || !*dir)
				return usage_error("--root needs a directory");
			if (ptags_set_root(dir))
				return EX_OTHER;
			root_given = 1;
		} else if (!strcmp(o, "--level") || !strncmp(o, "--level=", 8)) {
			level_arg = o[7] ? o + 8 : (i + 1 < argc ? argv[++i] : NULL);
			if (!level_arg || !*level_arg)
				return usage_error("--level needs a depth (0, 1, ...) or 'own'");
			if (parse_level(level_arg, &level))
				return usage_error("--level takes a depth (0, 1, ...) or 'own', not '%s'",
						   level_arg);
		} else {
			return usage_error("unknown option '%s'", o);
		}
	}
	if (level_arg && root_given)
		return usage_error("--level and --root cannot be given together");
	if (want_help) {
		help(cmd);
		return EX_OK;
	}
	if (level_arg) {
		rc = open_level(level_arg, level);
		if (rc)
			return rc;
	}
	if (!npos)
		return cmd_show(0, pos);
	if (!cmd) {
		pid_t pid;

		for (i = 0; i < npos; i++)
			if (parse_pid(pos[i], &pid))
				return usage_error("unknown command or process id '%s'",
						   pos[i]);
		return cmd_show(npos, pos);
	}
	return cmd->fn(npos - 1, pos + 1);
}
