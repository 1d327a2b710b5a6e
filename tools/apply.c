// SPDX-License-Identifier: GPL-2.0
/*
 * ptags apply PID [FILE]: protocol lines as one transaction; on failure,
 * the line that failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

/* Offsets of the lines of @buf (@len bytes, ending with a newline). */
static size_t *line_starts(const char *buf, size_t len, size_t *n)
{
	size_t i, k = 0, *v;

	*n = 0;
	for (i = 0; i < len; i++)
		*n += buf[i] == '\n';
	v = malloc((*n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	v[k++] = 0;
	for (i = 0; i + 1 < len; i++)
		if (buf[i] == '\n')
			v[k++] = i + 1;
	v[*n] = len;
	return v;
}

/*
 * Which line of @buf made the kernel refuse it with @err (1-based; 0 when
 * unknown)?  An invalid line is found here; for other errors the lines are
 * sent again, each time followed by the invalid line "x" so that nothing
 * can change: the shortest prefix that fails with @err ends with the line.
 */
static size_t failing_line(pid_t pid, const char *buf, size_t len, int err,
			   const char **why)
{
	size_t n, i, lo = 1, hi, *start = line_starts(buf, len, &n);
	char *probe;
	int r;

	*why = NULL;
	if (!start)
		return 0;
	for (i = 0; i < n; i++) {
		if (ptags_line_valid(buf + start[i], start[i + 1] - start[i] - 1,
				     why)) {
			free(start);
			return i + 1;
		}
	}
	*why = NULL;
	probe = err == -EINVAL ? NULL : malloc(len + 2);
	if (!probe) {
		free(start);
		return 0;
	}
	hi = n;		/* the whole text fails with @err */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(probe, buf, start[mid]);
		memcpy(probe + start[mid], "x\n", 2);
		r = ptags_write_text(pid, probe, start[mid] + 2);
		if (r == err) {
			hi = mid;
		} else if (r == -EINVAL) {
			lo = mid + 1;
		} else {
			lo = hi = 0;	/* something else changed: unknown */
			break;
		}
	}
	free(probe);
	free(start);
	return lo;
}

int cmd_apply(int argc, char **argv)
{
	const char *file = argc > 1 ? argv[1] : "-";
	const char *what = strcmp(file, "-") ? file : "standard input";
	const char *why;
	size_t len = 0, cap, line;
	long max;
	ssize_t n;
	char *buf;
	pid_t pid;
	int fd, err;

	if (argc < 1 || argc > 2)
		return usage_error("apply takes a PID and at most one FILE");
	if (parse_pid(argv[0], &pid))
		return usage_error("not a process id: '%s'", argv[0]);
	max = ptags_max_write();
	if (max < 0)
		max = PTAGS_DEFAULT_MAX_WRITE;
	fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		fprintf(stderr, "ptags: cannot open %s: %s\n", file, strerror(errno));
		return EX_OTHER;
	}
	cap = (size_t)max + 1;
	buf = malloc(cap);
	if (!buf)
		return report(-ENOMEM, PTAGS_OP_WRITE, NULL, pid, "read %s", what);
	/* Read at most max_write + 1 bytes: one more means too big. */
	while (len < cap && (n = read(fd, buf + len, cap - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "ptags: cannot read %s: %s\n", what, strerror(errno));
			free(buf);
			return EX_OTHER;
		}
		len += n;
	}
	if (fd)
		close(fd);
	if (len > (size_t)max) {
		fprintf(stderr, "ptags: cannot apply %s to %s: larger than max_write (%ld bytes): a transaction is one write; nothing was written\n",
			what, pid_str(pid), max);
		free(buf);
		return EX_LIMIT;
	}
	if (len && buf[len - 1] != '\n') {
		fprintf(stderr, "ptags: cannot apply %s to %s: the last line does not end with a newline; nothing was written\n",
			what, pid_str(pid));
		free(buf);
		return EX_INVALID;
	}
	/* An invalid line is refused here, before anything is written. */
	line = failing_line(0, buf, len, -EINVAL, &why);
	err = line ? -EINVAL : ptags_write_text(pid, buf, len);
	if (!err) {
		free(buf);
		return EX_OK;
	}
	if (!line && err != -E2BIG && err != -ESRCH && err != -ENODEV)
		line = failing_line(pid, buf, len, err, &why);
	if (line) {
		const char *l = buf;
		size_t k;

		for (k = 1; k < line; k++)
			l = memchr(l, '\n', buf + len - l) + 1;
		err = report(err, PTAGS_OP_WRITE, NULL, pid,
			     "apply %s to %s: line %zu '%.*s'%s%s", what,
			     pid_str(pid), line, (int)strcspn(l, "\n"), l,
			     why ? " " : "", why ? why : "");
		free(buf);
		return err;
	}
	free(buf);
	return report(err, PTAGS_OP_WRITE, NULL, pid, "apply %s to %s", what,
		      pid_str(pid));
}
