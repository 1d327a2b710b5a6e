// SPDX-License-Identifier: GPL-2.0
/*
 * ptags-permd: a tiny permission daemon.  It serves a unix socket only to
 * peers whose process holds a tag matching QUERY: those read "granted\n";
 * any other connection is closed without a word.
 *
 *   ptags-permd [-n COUNT] SOCKET QUERY
 *
 * QUERY is NAME, PREFIX:* or NAME=VALUE (for example S:camera).  With -n it
 * exits after COUNT connections.  One line per decision goes to stderr.
 *
 * The check is ptags_peer_has(): it names the peer by pidfd, so a client
 * that exits and whose pid is reused by a tagged process is not served.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "ptags.h"

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *path, *query;
	long count = -1;
	int srv, opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			goto usage;
		count = strtol(optarg, NULL, 10);
	}
	if (argc - optind != 2)
		goto usage;
	path = argv[optind];
	query = argv[optind + 1];
	if (ptags_query_valid(query, NULL)) {
		fprintf(stderr, "ptags-permd: invalid query '%s'\n", query);
		return 2;
	}
	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "ptags-permd: socket path too long\n");
		return 2;
	}
	strcpy(addr.sun_path, path);
	signal(SIGPIPE, SIG_IGN);
	unlink(path);
	srv = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (srv < 0 || bind(srv, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(srv, 16)) {
		fprintf(stderr, "ptags-permd: %s: %s\n", path, strerror(errno));
		return 1;
	}
	fprintf(stderr, "ptags-permd: serving %s to holders of %s\n", path, query);
	while (count < 0 || count-- > 0) {
		struct ptags_peer peer = { 0 };
		struct ptags_set *tags;
		int c, r;

		c = accept4(srv, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "ptags-permd: accept: %s\n", strerror(errno));
			return 1;
		}
		/* Check right after accept(): see ptags_peer_read() in ptags.h. */
		r = ptags_peer_read(c, 0, &peer, &tags);
		if (!r) {
			r = ptags_set_match(tags, query);
			ptags_set_free(tags);
		}
		if (r == 1) {
			fprintf(stderr, "ptags-permd: pid %d: granted\n", (int)peer.pid);
			if (write(c, "granted\n", 8) != 8)
				fprintf(stderr, "ptags-permd: pid %d: write: %s\n",
					(int)peer.pid, strerror(errno));
		} else if (r == 0) {
			fprintf(stderr, "ptags-permd: pid %d: refused (no %s)\n",
				(int)peer.pid, query);
		} else {
			fprintf(stderr, "ptags-permd: refused: %s\n", ptags_strerror(r));
		}
		close(c);
	}
	close(srv);
	return 0;
usage:
	fprintf(stderr, "usage: ptags-permd [-n COUNT] SOCKET QUERY\n");
	return 2;
}
