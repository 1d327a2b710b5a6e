// SPDX-License-Identifier: GPL-2.0
/*
 * ptags ps [QUERY]: the tagged processes, their commands and tags.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

/* Print @s as a JSON string to stdout. */
static int put_json(const char *s)
{
	char *j = ptags_json_string(s);

	if (!j)
		return -ENOMEM;
	fputs(j, stdout);
	free(j);
	return 0;
}

static void read_comm(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, size - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(buf, size, "?");
		return;
	}
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

int cmd_ps(int argc, char **argv)
{
	const char *query = argc ? argv[0] : NULL;
	struct ptags_proc *procs;
	size_t count, i;
	int err;

	if (argc > 1)
		return usage_error("ps takes at most one NAME, PREFIX:* or NAME=VALUE");
	if (query && (err = check_query(query)))
		return err;
	err = ptags_list(query, &procs, &count);
	if (err)
		return report(err, PTAGS_OP_READ, NULL, 0, "list tagged processes");
	if (opt_json)
		putchar('[');
	else if (count)
		printf("%7s %-16s %s\n", "PID", "COMMAND", "TAGS");
	for (i = 0; i < count; i++) {
		const struct ptags_set *set = procs[i].tags;
		char comm[64], scomm[4 * 64];

		read_comm(procs[i].pid, comm, sizeof(comm));
		if (opt_json) {
			char *j = ptags_set_json(set, query);

			if (!j)
				err = -ENOMEM;
			printf("%s{\"pid\":%d,\"comm\":", i ? "," : "",
			       (int)procs[i].pid);
			put_json(comm);
			printf(",\"tags\":%s}", j ? j : "[]");
			free(j);
			continue;
		}
		printf("%7d %-16s", (int)procs[i].pid,
		       safe(comm, scomm, sizeof(scomm)));
		print_matching(set, query);
	}
	if (opt_json)
		puts("]");
	ptags_list_free(procs, count);
	if (err)
		return report(err, PTAGS_OP_READ, NULL, 0, "print");
	return count ? EX_OK : EX_NO;
}
