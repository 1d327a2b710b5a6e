// SPDX-License-Identifier: GPL-2.0
/*
 * ptags stats [--prometheus]: the module's counters.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

/*
 * ptags stats: the module's counters (SPEC §8), one file each under
 * /sys/module/ptags/stats ($PTAGS_STATS_DIR for tests), sorted by name:
 * NAME VALUE lines, one JSON object, or Prometheus's text format (the node
 * exporter's textfile collector reads it), where counters get "_total".
 * A counter this table does not know (a newer module) is shown too.
 */
static const struct {
	const char *name, *help;
	int counter;
} stat_info[] = {
	{ "audit_suppressed", "Audit records left out over the rate limit", 1 },
	{ "audited", "Audit records of changes to others' tags and of EPERM refusals", 1 },
	{ "bytes", "Bytes of tag names and values held", 0 },
	{ "inherited", "Forks that received tags", 1 },
	{ "killed", "Processes killed by the fail-closed rule (SPEC 9)", 1 },
	{ "live_sets", "Tag sets in memory", 0 },
	{ "longest_chain", "Entries on the process table's fullest bucket chain", 0 },
	{ "memory", "Bytes of kernel memory held for tag sets and process entries", 0 },
	{ "pruned", "Execs that removed tags", 1 },
	{ "refused", "Writes to /proc/ptags that failed", 1 },
	{ "tagged_processes", "Processes that hold tags", 0 },
	{ "watch_queued", "Changes handed to the watch worker", 1 },
};

#define STATS_MAX	64

struct stat_value {
	char name[64];
	long long value;
};

static int stat_cmp(const void *a, const void *b)
{
	return strcmp(((const struct stat_value *)a)->name,
		      ((const struct stat_value *)b)->name);
}

/* Every counter of @dir into @v (at most STATS_MAX); their number or -1. */
static int stats_read(const char *dir, struct stat_value *v)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d && errno == ENOENT) {
		fprintf(stderr, "ptags: ptags is not loaded (%s: %s)\n", dir,
			strerror(errno));
		return -1;
	}
	if (!d) {
		fprintf(stderr, "ptags: %s: %s\n", dir, strerror(errno));
		return -2;
	}
	while ((e = readdir(d)) && n < STATS_MAX) {
		char path[4096], buf[32], *end;
		size_t namelen = strlen(e->d_name);
		ssize_t len;
		int fd;

		/* A counter's name is a metric's and a JSON key: [A-Za-z0-9_]. */
		if (!namelen || namelen >= sizeof(v[n].name) ||
		    strspn(e->d_name, "abcdefghijklmnopqrstuvwxyz"
			   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != namelen)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (len <= 0)
			continue;	/* not a counter file */
		buf[len] = 0;
		errno = 0;
		v[n].value = strtoll(buf, &end, 10);
		if (errno || end == buf || (*end && strcmp(end, "\n"))) {
			fprintf(stderr, "ptags: %s: not a number\n", path);
			closedir(d);
			return -2;
		}
		strcpy(v[n].name, e->d_name);
		n++;
	}
	closedir(d);
	qsort(v, n, sizeof(v[0]), stat_cmp);
	return n;
}

int cmd_stats(int argc, char **argv)
{
	const char *dir = getenv("PTAGS_STATS_DIR");
	struct stat_value v[STATS_MAX];
	int prometheus = 0, i, n;
	size_t k;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--prometheus"))
			return usage_error("stats takes no argument but --prometheus");
		prometheus = 1;
	}
	if (prometheus && opt_json)
		return usage_error("stats: --prometheus or --json, not both");
	n = stats_read(dir && *dir ? dir : "/sys/module/ptags/stats", v);
	if (n < 0)
		return n == -1 ? EX_NOPTAGS : EX_OTHER;
	if (opt_json)
		putchar('{');
	for (i = 0; i < n; i++) {
		const char *help = NULL, *type = "untyped", *suffix = "";

		for (k = 0; k < sizeof(stat_info) / sizeof(stat_info[0]); k++)
			if (!strcmp(stat_info[k].name, v[i].name)) {
				help = stat_info[k].help;
				type = stat_info[k].counter ? "counter" : "gauge";
				suffix = stat_info[k].counter ? "_total" : "";
			}
		if (opt_json)
			printf("%s\"%s\":%lld", i ? "," : "", v[i].name, v[i].value);
		else if (!prometheus)
			printf("%s %lld\n", v[i].name, v[i].value);
		else
			printf("# HELP ptags_%s%s %s\n# TYPE ptags_%s%s %s\nptags_%s%s %lld\n",
			       v[i].name, suffix,
			       help ? help : "A counter of the ptags module",
			       v[i].name, suffix, type, v[i].name, suffix,
			       v[i].value);
	}
	if (opt_json)
		puts("}");
	return fflush(stdout) || ferror(stdout) ? EX_OTHER : EX_OK;
}
