// SPDX-License-Identifier: GPL-2.0
/*
 * Loader of the BPF peer (peer.bpf.c) for the benchmark, on the skeleton
 * that bpftool generates from it.  The blob of a process is the value of
 * the task-storage map under the key "pidfd of that process".
 */
#include <errno.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "peer.h"
#include "peer.skel.h"

static struct peer_bpf *skel;
static int map_fd = -1;

int bpf_peer_load(void)
{
	int err;

	if (skel)
		return -EALREADY;
	skel = peer_bpf__open_and_load();
	if (!skel)
		return -errno ?: -EINVAL;
	err = peer_bpf__attach(skel);
	if (err) {
		peer_bpf__destroy(skel);
		skel = NULL;
		return err;
	}
	map_fd = bpf_map__fd(skel->maps.peer_tags);
	return 0;
}

void bpf_peer_unload(void)
{
	peer_bpf__destroy(skel);
	skel = NULL;
	map_fd = -1;
}

void bpf_peer_blob_init(struct peer_blob *b)
{
	b->count = 0;
	b->nkept = 0;
}

int bpf_peer_blob_add(struct peer_blob *b, const void *value, size_t len,
		      int keep)
{
	struct peer_value *v;

	if (b->count >= PEER_MAX_TAGS)
		return -E2BIG;
	if (len > PEER_VALUE_SIZE)
		return -EINVAL;
	v = &b->value[b->count];
	memcpy(v->bytes, value, len);
	memset(v->bytes + len, 0, PEER_VALUE_SIZE - len);
	b->keep[b->count++] = !!keep;
	b->nkept += !!keep;
	return 0;
}

/* What the exec program relies on: count in range, nkept right. */
static int blob_check(const struct peer_blob *b)
{
	__u32 i, kept = 0;

	if (b->count > PEER_MAX_TAGS)
		return -E2BIG;
	for (i = 0; i < b->count; i++) {
		if (b->keep[i] > 1)
			return -EINVAL;
		kept += b->keep[i];
	}
	return kept == b->nkept ? 0 : -EINVAL;
}

int bpf_peer_write(int pidfd, const struct peer_blob *b)
{
	int err;

	if (map_fd < 0)
		return -ENODEV;
	err = blob_check(b);
	if (err)
		return err;
	if (!b->count) {
		if (bpf_map_delete_elem(map_fd, &pidfd) && errno != ENOENT)
			return -errno;
		return 0;
	}
	if (bpf_map_update_elem(map_fd, &pidfd, b, BPF_ANY))
		return -errno;
	return 0;
}

int bpf_peer_read(int pidfd, struct peer_blob *b)
{
	if (map_fd < 0)
		return -ENODEV;
	if (bpf_map_lookup_elem(map_fd, &pidfd, b)) {
		if (errno != ENOENT)
			return -errno;
		bpf_peer_blob_init(b);
	}
	return 0;
}

long bpf_peer_lost(void)
{
	if (!skel)
		return -ENODEV;
	return (long)__atomic_load_n(&skel->bss->lost, __ATOMIC_RELAXED);
}
