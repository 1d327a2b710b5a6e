// SPDX-License-Identifier: GPL-2.0
/*
 * SPEC §3.4: one call of any write system call is one transaction, however
 * many buffers carry its bytes: writev and pwritev gather every iovec
 * before a line is applied.
 */
#include "guest.h"

#include <sys/uio.h>

struct vcase {
	const char *name;
	const char *before;
	const char *parts[4];
	bool pwrite;
	int err;
	const char *after;	/* NULL: unchanged */
};

static const struct vcase cases[] = {
	{ "a second iovec that fails changes nothing", "",
	  { "+a\n", "?nothing\n" }, false, ENOENT, NULL },
	{ "a first iovec that fails changes nothing", "",
	  { "?nothing\n", "+a\n" }, false, ENOENT, NULL },
	{ "two iovecs apply as one transaction", "",
	  { "+a\n", "+b\n" }, false, 0, "a\nb\n" },
	{ "a line may span iovecs", "",
	  { "+a", "b", "c\n" }, false, 0, "abc\n" },
	{ "a guard in one iovec protects a change in another", "",
	  { "?go\n", "+a\n" }, false, ENOENT, NULL },
	{ "only the last iovec's last byte must be a newline", "",
	  { "+a\n", "+b" }, false, EINVAL, NULL },
	{ "empty iovecs between lines do nothing", "x\n",
	  { "-x\n", "", "+y\n" }, false, 0, "y\n" },
	{ "pwritev: a second iovec that fails changes nothing", "",
	  { "+a\n", "+\n" }, true, EINVAL, NULL },
	{ "pwritev: two iovecs apply as one transaction", "a\n",
	  { "-a\n", "+@b\n" }, true, 0, "@b\n" },
};

static void run_case(const struct vcase *c)
{
	struct iovec iov[4];
	char got[256];
	size_t total = 0;
	ssize_t n;
	int fd, i, cnt = 0, err;
	pid_t pid = pt_sleeper(NULL);
	char path[64];

	if (*c->before) {
		char *w = malloc(strlen(c->before) * 2 + 1), *p = w;
		const char *s = c->before;

		/* SPEC §3.3 text to "+" lines: "@x\n" -> "+@x\n" */
		while (*s) {
			*p++ = '+';
			while (*s && *s != '\n')
				*p++ = *s++;
			*p++ = *s++;
		}
		*p = 0;
		if (pt_write(pid, w))
			die("setup %s", c->name);
		free(w);
	}
	for (i = 0; i < 4 && c->parts[i]; i++) {
		iov[i].iov_base = (void *)c->parts[i];
		iov[i].iov_len = strlen(c->parts[i]);
		total += iov[i].iov_len;
		cnt++;
	}
	pt_path(path, sizeof(path), pid);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		die("open %s", path);
	n = c->pwrite ? pwritev(fd, iov, cnt, 0) : writev(fd, iov, cnt);
	err = n < 0 ? errno : 0;
	close(fd);
	pt_read(pid, got, sizeof(got));
	ok(err == c->err && (c->err || n == (ssize_t)total) &&
	   !strcmp(got, c->after ? c->after : c->before),
	   "SPEC §3.4: %s (errno %d, want %d; tags \"%s\")", c->name, err,
	   c->err, tap_esc(got));
	pt_stop(pid);
}

/* A write larger than max_write is E2BIG whether or not it is split. */
static void test_e2big(void)
{
	long max = pt_param("max_write");
	size_t half = (size_t)max / 2 + 2;
	char *a = malloc(half), *b = malloc(half);
	struct iovec iov[2] = { { a, half }, { b, half } };
	pid_t pid = pt_sleeper(NULL);
	char path[64];
	ssize_t n;
	int fd;

	memset(a, '#', half);
	memset(b, '#', half);
	a[half - 1] = '\n';
	b[half - 1] = '\n';
	pt_path(path, sizeof(path), pid);
	fd = open(path, O_WRONLY);
	n = writev(fd, iov, 2);
	ok(n < 0 && errno == E2BIG,
	   "SPEC §3.4: two iovecs of max_write/2 + 2 bytes each -> E2BIG (%zd, errno %d)",
	   n, n < 0 ? errno : 0);
	close(fd);
	free(a);
	free(b);
	pt_stop(pid);
}

int main(void)
{
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_e2big();
	return tap_done();
}
