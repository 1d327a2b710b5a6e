// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libptags: tags and sets -- parsing SPEC §3.3 text, reading a process's
 * tags (include/ptags.h, "Tags and sets", and ptags_has()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Read the whole of @fd (one snapshot: SPEC §3.3) into a malloc'ed buffer. */
static int read_all(int fd, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *nbuf;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				free(buf);
				return -ENOMEM;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return n == -ENOENT ? -ESRCH : (int)n;
		}
		if (!n)
			break;
		len += n;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

/* Read and parse the entry @fd (or pass on its error), then close it. */
int pt_read_entry(int fd, struct ptags_set **set)
{
	size_t len = 0;
	char *buf = NULL;
	int err;

	*set = NULL;
	if (fd < 0)
		return fd;
	err = read_all(fd, &buf, &len);
	close(fd);
	if (!err)
		err = ptags_parse(buf, len, set);
	free(buf);
	return err;
}

void ptags_set_free(struct ptags_set *set)
{
	if (!set)
		return;
	free(set->tags);
	free(set->buf);
	free(set);
}

size_t ptags_set_count(const struct ptags_set *set)
{
	return set ? set->count : 0;
}

const struct ptags_tag *ptags_set_tag(const struct ptags_set *set, size_t i)
{
	return set && i < set->count ? &set->tags[i] : NULL;
}

const struct ptags_tag *ptags_set_find(const struct ptags_set *set,
				       const char *name)
{
	size_t i;

	for (i = 0; set && i < set->count; i++)
		if (!strcmp(set->tags[i].name, name))
			return &set->tags[i];
	return NULL;
}

int ptags_parse(const char *text, size_t len, struct ptags_set **out)
{
	struct ptags_set *set;
	size_t i, lines = 0;
	char *p, *end;

	*out = NULL;
	if (len && text[len - 1] != '\n')
		return -EINVAL;
	if (memchr(text, 0, len))
		return -EINVAL;
	for (i = 0; i < len; i++)
		lines += text[i] == '\n';
	set = calloc(1, sizeof(*set));
	if (!set)
		return -ENOMEM;
	set->buf = malloc(len + 1);
	set->tags = calloc(lines ? lines : 1, sizeof(*set->tags));
	if (!set->buf || !set->tags) {
		ptags_set_free(set);
		return -ENOMEM;
	}
	memcpy(set->buf, text, len);
	set->buf[len] = 0;
	for (p = set->buf; p < set->buf + len; p = end + 1) {
		struct ptags_tag *t = &set->tags[set->count];
		char *eq;

		end = strchr(p, '\n');
		*end = 0;
		if (*p == '@') {
			t->keep = 1;
			p++;
		}
		eq = strchr(p, '=');
		if (eq) {
			*eq = 0;
			t->value = eq + 1;
		}
		t->name = p;
		if (!*p) {
			ptags_set_free(set);
			return -EINVAL;
		}
		set->count++;
	}
	*out = set;
	return 0;
}

int ptags_read(pid_t pid, struct ptags_set **set)
{
	return pt_read_entry(pt_open_entry(ptags_root(), pid, O_RDONLY), set);
}

int ptags_root_read(const struct ptags_root *root, pid_t pid,
		    struct ptags_set **set)
{
	return pt_read_entry(pt_entry_at(root->fd, pid, O_RDONLY), set);
}

int ptags_has(pid_t pid, const char *query)
{
	struct ptags_set *set;
	int r;

	r = ptags_query_valid(query, NULL);
	if (r)
		return r;
	r = ptags_read(pid, &set);
	if (r)
		return r;
	r = ptags_set_match(set, query);
	ptags_set_free(set);
	return r;
}
