// SPDX-License-Identifier: GPL-2.0
/*
 * ptags has PID [@]QUERY: exit 0 if the process holds a matching tag
 * (a kept one), 1 if not.
 */
#include "tool.h"

/* Does @pid hold a kept tag matching @query?  1, 0 or a negative errno. */
static int has_kept(pid_t pid, const char *query)
{
	struct ptags_set *set;
	size_t i;
	int r;

	r = ptags_read(pid, &set);
	if (r)
		return r;
	for (i = 0; i < ptags_set_count(set) && r != 1; i++) {
		const struct ptags_tag *t = ptags_set_tag(set, i);

		r = t->keep && ptags_match(query, t->name, t->value) == 1;
	}
	ptags_set_free(set);
	return r;
}

int cmd_has(int argc, char **argv)
{
	const char *query;
	pid_t pid;
	int r;

	if (argc != 2)
		return usage_error("has takes a PID and one NAME, PREFIX:* or NAME=VALUE");
	if (parse_pid(argv[0], &pid))
		return usage_error("not a process id: '%s'", argv[0]);
	query = argv[1] + (argv[1][0] == '@');
	r = check_query(query);
	if (r)
		return r;
	r = argv[1][0] == '@' ? has_kept(pid, query) : ptags_has(pid, query);
	if (r == 1)
		return EX_OK;
	if (r == 0)
		return EX_NO;
	return report(r, PTAGS_OP_READ, NULL, pid, "read the tags of %s",
		      pid_str(pid));
}
