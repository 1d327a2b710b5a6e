// SPDX-License-Identifier: GPL-2.0
/*
 * ptags [PID...]: the tags of processes, one per line (--json: as JSON).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tool.h"

int cmd_show(int argc, char **argv)
{
	pid_t pids[argc ? argc : 1];
	int i, n, rc = EX_OK, shown = 0;

	if (!argc) {
		pids[0] = getppid();
		if (!pids[0]) {
			fputs("ptags: the parent process is outside this pid namespace: name a PID\n",
			      stderr);
			return EX_NOPROC;
		}
		n = 1;
	} else {
		for (i = 0; i < argc; i++)
			if (parse_pid(argv[i], &pids[i]))
				return usage_error("not a process id: '%s'", argv[i]);
		n = argc;
	}
	if (opt_json)
		putchar('[');
	for (i = 0; i < n; i++) {
		struct ptags_set *set;
		size_t k;
		int err;

		err = ptags_read(pids[i], &set);
		if (err) {
			rc = report(err, PTAGS_OP_READ, NULL, pids[i],
				    "read the tags of %s", pid_str(pids[i]));
			continue;
		}
		if (opt_json) {
			char *j = ptags_set_json(set, NULL);

			if (!j) {
				ptags_set_free(set);
				return report(-ENOMEM, PTAGS_OP_READ, NULL, 0, "print");
			}
			printf("%s{\"pid\":%d,\"tags\":%s}", shown ? "," : "",
			       pids[i] ? (int)pids[i] : (int)getpid(), j);
			free(j);
		} else {
			for (k = 0; k < ptags_set_count(set); k++) {
				if (n > 1)
					printf("%s\t", pid_str(pids[i]));
				print_tag(ptags_set_tag(set, k));
				putchar('\n');
			}
		}
		shown++;
		ptags_set_free(set);
	}
	if (opt_json)
		puts("]");
	return rc;
}
