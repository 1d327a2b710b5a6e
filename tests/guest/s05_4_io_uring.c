// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring writes (raw system calls, no liburing): SPEC §3.4, one call is
 * one transaction however many buffers carry it; SPEC §5.4, a write that
 * an io_uring worker thread executes (IOSQE_ASYNC) for a user process has
 * exactly that process's rights: the worker's kernel-thread-like flags
 * grant nothing.
 */
#include "guest.h"

#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <linux/io_uring.h>

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_setup(struct ring *r)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -errno;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -ENOMEM;
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* One IORING_OP_WRITEV of @iov to @fd, run by an io-wq worker; its result. */
static int ring_writev(struct ring *r, int fd, struct iovec *iov, int n)
{
	unsigned int tail = *r->sq_tail, head, idx = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[idx];
	int res;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_WRITEV;
	sqe->flags = IOSQE_ASYNC;
	sqe->fd = fd;
	sqe->addr = (uint64_t)(uintptr_t)iov;
	sqe->len = n;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -errno;
	head = *r->cq_head;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -EIO;
	res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

struct job {
	pid_t target;
	const char *parts[3];
	bool unpriv;
};

/* Child: io_uring writev of the parts to the target; the result (+200). */
static int run_job(void *arg)
{
	const struct job *j = arg;
	struct iovec iov[3];
	struct ring r;
	char path[64];
	int i, n = 0, fd, res;

	if (j->unpriv && drop_privileges(65534))
		return 1;
	if (ring_setup(&r))
		return 2;
	pt_path(path, sizeof(path), j->target);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return 3;
	for (i = 0; i < 3 && j->parts[i]; i++, n++) {
		iov[i].iov_base = (void *)j->parts[i];
		iov[i].iov_len = strlen(j->parts[i]);
	}
	res = ring_writev(&r, fd, iov, n);
	return res < 0 ? 200 + (-res > 50 ? 50 : -res) : 200;
}

int main(void)
{
	struct ring probe;
	struct job j;
	pid_t t;
	int st, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	err = ring_setup(&probe);
	if (err) {
		printf("ok 1 # SKIP io_uring not available (%s)\n", strerror(-err));
		return tap_done();
	}
	close(probe.fd);
	t = pt_sleeper("target");

	j = (struct job){ t, { "+a\n", "?nothing\n" }, false };
	st = run_child(run_job, &j);
	ok(st == 200 + ENOENT && pt_is(t, ""),
	   "SPEC §3.4: an io_uring writev whose second buffer fails changes nothing (%d)",
	   st - 200);
	j = (struct job){ t, { "+a\n+", "b\n", "!b=v\n" }, false };
	st = run_child(run_job, &j);
	ok(st == 200 && pt_is(t, "a\nb=v\n"),
	   "SPEC §3.4: an io_uring writev of three buffers is one transaction (%d)",
	   st - 200);
	j = (struct job){ t, { "-a\n" }, true };
	st = run_child(run_job, &j);
	ok(st == 200 + EPERM && pt_is(t, "a\nb=v\n"),
	   "SPEC §5.4: run by an io_uring worker for an unprivileged process, a removal is EPERM (%d)",
	   st - 200);
	j = (struct job){ t, { "-\n" }, false };
	st = run_child(run_job, &j);
	ok(st == 200 && pt_is(t, ""),
	   "SPEC §5.4: for root (CAP_MAC_ADMIN) the worker may (%d)", st - 200);
	pt_stop(t);
	return tap_done();
}
