// SPDX-License-Identifier: GPL-2.0
/*
 * ptags watch [PID... | QUERY]: one line per change (SPEC §3.5).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

static volatile sig_atomic_t watch_stop;

static void watch_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

/* Pids a QUERY watch has shown as matching (to report their leaving). */
struct pidset {
	pid_t *p;
	size_t n, cap;
};

static int pidset_has(const struct pidset *s, pid_t pid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->p[i] == pid)
			return 1;
	return 0;
}

static void pidset_put(struct pidset *s, pid_t pid, int in)
{
	size_t i;

	for (i = 0; i < s->n && s->p[i] != pid; i++)
		;
	if (!in && i < s->n)
		s->p[i] = s->p[--s->n];
	if (!in || i < s->n)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		pid_t *np = realloc(s->p, cap * sizeof(*np));

		if (!np)
			return;
		s->p = np;
		s->cap = cap;
	}
	s->p[s->n++] = pid;
}

/* One event: time, pid, what, and the tags (matching @query) when known. */
static void watch_print(pid_t pid, unsigned int what,
			const struct ptags_set *set, const char *query)
{
	struct timespec ts;
	char when[40];
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	if (opt_json) {
		char *j = set ? ptags_set_json(set, query) : NULL;

		printf("{\"time\":\"%s.%03ldZ\",\"pid\":%d,\"event\":\"%s\",\"tags\":%s}\n",
		       when, ts.tv_nsec / 1000000, (int)pid,
		       ptags_watch_what(what), j ? j : "[]");
		free(j);
	} else {
		printf("%s.%03ldZ %d %s", when, ts.tv_nsec / 1000000, (int)pid,
		       ptags_watch_what(what));
		print_matching(set, query);
	}
	fflush(stdout);
}

/*
 * ptags watch [PID... | QUERY]: one line per event until interrupted (or,
 * watching PIDs, until they all exited).
 */
int cmd_watch(int argc, char **argv)
{
	const char *query = NULL;
	struct ptags_root *root = NULL;
	struct ptags_watch *w = NULL;
	struct pidset matching = { 0 };
	struct sigaction sa = { .sa_handler = watch_signal };
	int i, err, live = 0, pids = argc > 0;
	pid_t pid;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "self"))
			return usage_error("'watch self' would watch this ptags process, which exits with the watch; give a pid ($$ for the shell)");
		if (parse_pid(argv[i], &pid))
			pids = 0;
	}
	if (argc && !pids) {
		if (argc > 1)
			return usage_error("watch takes PIDs, or one NAME, PREFIX:* or NAME=VALUE");
		query = argv[0];
		err = check_query(query);
		if (err)
			return err;
	}
	err = open_root(&root);
	if (!err)
		err = ptags_watch_open(root, pids ? 0 : PTAGS_WATCH_ALL, &w);
	if (err) {
		ptags_root_close(root);
		return report(err, PTAGS_OP_READ, NULL, 0, "watch %s", root_name());
	}
	for (i = 0; pids && i < argc; i++) {
		int pidfd;

		parse_pid(argv[i], &pid);
		pidfd = pidfd_of(pid);
		err = pidfd < 0 ? pidfd : ptags_watch_pidfd(w, pidfd);
		if (pidfd >= 0)
			close(pidfd);
		if (err) {
			ptags_watch_close(w);
			ptags_root_close(root);
			return report(err, PTAGS_OP_READ, NULL, 1, "watch %d", (int)pid);
		}
		live++;
	}
	if (query) {
		struct ptags_listing *l;
		size_t k;

		if (!ptags_root_list(root, query, 0, &l)) {
			for (k = 0; k < ptags_listing_count(l); k++)
				pidset_put(&matching, ptags_listing_pid(l, k), 1);
			ptags_listing_free(l);
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!watch_stop && (!pids || live)) {
		struct pollfd p = { .fd = ptags_watch_fd(w), .events = POLLIN };
		unsigned int what;

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		while ((err = ptags_watch_next(w, &pid, &what)) == 1) {
			struct ptags_set *set = NULL;
			int show = 1;

			if (what == PTAGS_WATCH_TAGGED || what == PTAGS_WATCH_CHANGED)
				ptags_root_read(root, pid, &set);
			if (query && what != PTAGS_WATCH_OVERFLOW) {
				int now = set && ptags_set_match(set, query) == 1;

				show = now || pidset_has(&matching, pid);
				pidset_put(&matching, pid, now);
			}
			if (show)
				watch_print(pid, what, set, query);
			ptags_set_free(set);
			if (pids && what == PTAGS_WATCH_EXITED)
				live--;
		}
		if (err < 0)
			break;
		err = 0;
	}
	free(matching.p);
	ptags_watch_close(w);
	ptags_root_close(root);
	if (err < 0)
		return report(err, PTAGS_OP_READ, NULL, 0, "watch");
	return EX_OK;
}
