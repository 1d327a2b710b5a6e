// SPDX-License-Identifier: GPL-2.0
/*
 * What ptags costs with many processes alive (issue 14), in one QEMU boot
 * whose clock counts instructions (make bench-scale; run as /bench by the
 * guest's init).  With 0, 1 000, 10 000 and 100 000 sleeping processes,
 * untagged, tagged (all sharing one set) and untagged again (the two
 * untagged rows tell the noise between rows), it measures fork+exit+wait
 * of an untagged and of a tagged process, a lookup (open and close of
 * /proc/ptags/PID), a read of one entry, a listing of /proc/ptags,
 * `ptags ps` of the shared tag, and what the kernel holds per process.
 * Then the 100 000 again with a sixteenth of the buckets: chains sixteen
 * times as long as with the default table (24 entries in the 12 GiB guest),
 * and with the fewest the module takes (table_bits=4: 16 chains of about
 * 6 250).  Each row reads stats/longest_chain; "read" is of the newest
 * entry, at the head of its chain, "tail" of the holder's, the oldest
 * entry of its bucket, so the last of its chain.
 *
 * The sleepers are processes (each its own signal_struct: what the table
 * keys on) made with clone(CLONE_VM | ...) by a holder process: they share
 * its memory, so that 100 000 of them fit in the guest, and nothing of
 * them is in the memory of the process whose fork is measured.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "bench.h"

#define MAX_ALIVE	100000
#define STACK_SLOT	1024	/* a sleeper's stack: read() and exit() */
#define SCALE_TAG	"bench:scale"

extern char **environ;

static void write_sysctl(const char *path, const char *value)
{
	errno = file_write(path, value);
	if (errno)
		fail(path);
}

/*
 * What the kernel holds for processes, in kB: slab (task_struct,
 * signal_struct, pids, ptags's entries...), kernel stacks, page tables.
 */
static long kernel_kb(void)
{
	return meminfo_kb("Slab:") + meminfo_kb("KernelStack:") +
	       meminfo_kb("PageTables:");
}

/* A sleeper: blocks until the pipe's last writer is gone, then exits. */
static int sleeper(void *arg)
{
	char c;

	while (syscall(SYS_read, (int)(long)arg, &c, 1) < 0)
		;
	syscall(SYS_exit, 0);
	return 0;
}

struct holder {
	pid_t pid;		/* the holder, parent of the sleepers */
	pid_t last;		/* its last sleeper, or itself */
	int release;		/* closing it lets them all go */
};

/*
 * A holder of @n sleepers, tagged @tagged (they inherit its set) or not.
 * Returns once all of them exist.
 */
static void holder_start(struct holder *h, int n, bool tagged)
{
	const int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND;
	int go[2], ready[2], i;
	char *stacks;
	pid_t pid;

	if (pipe(go) || pipe(ready))
		fail("pipe");
	h->pid = fork();
	if (h->pid < 0)
		fail("fork holder");
	if (!h->pid) {
		close(go[1]);
		close(ready[0]);
		if (tagged)
			tags_write("+" SCALE_TAG "\n", strlen(SCALE_TAG) + 2);
		stacks = mmap(NULL, (size_t)(n ? n : 1) * STACK_SLOT,
			      PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			      -1, 0);
		if (stacks == MAP_FAILED)
			fail("sleepers' stacks");
		pid = getpid();		/* none: the holder itself */
		for (i = 0; i < n; i++) {
			/* Exit signal 0: reaped below with __WALL. */
			pid = clone(sleeper, stacks + (size_t)(i + 1) * STACK_SLOT,
				    flags, (void *)(long)go[0]);
			if (pid < 0)
				fail("clone a sleeper");
		}
		if (write(ready[1], &pid, sizeof(pid)) != sizeof(pid))
			_exit(1);
		/* Until released, like them. */
		while (read(go[0], &pid, 1) < 0)
			;
		for (i = 0; i < n; i++)
			while (waitpid(-1, NULL, __WALL) < 0)
				if (errno != EINTR)
					fail("reap a sleeper");
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	if (read(ready[0], &h->last, sizeof(h->last)) != sizeof(h->last))
		fail("holder ready");
	close(ready[0]);
	h->release = go[1];
}

static void holder_stop(struct holder *h)
{
	close(h->release);
	reap(h->pid);
}

static void op_lookup(void *arg)
{
	int fd = open(arg, O_RDONLY);

	if (fd < 0)
		fail("open an entry");
	close(fd);
}

static void op_ps(void *arg)
{
	char *argv[] = { "/bin/ptags", "ps", SCALE_TAG, NULL };
	posix_spawn_file_actions_t fa;
	int status;
	pid_t pid;

	(void)arg;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ))
		fail("spawn ptags ps");
	posix_spawn_file_actions_destroy(&fa);
	/* 0: it found the tagged processes. */
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		fail("ptags ps");
}

struct row {
	int alive;
	bool tagged, again;
	unsigned int bits;
	double fork_us, fork_tagged_us, lookup_us, read_us, tail_us, list_us;
	double ps_us;
	long ptags_bytes, mem_kb, longest;
};

static struct row rows[16];
static int nrows;

static void run_row(int alive, bool tagged, bool again, unsigned int bits)
{
	struct row *r = &rows[nrows];
	char path[64];
	long mem0, bytes0;
	struct holder h;
	int fd, n;

	if (nrows++ == (int)(sizeof(rows) / sizeof(rows[0]))) {
		errno = ENOSPC;
		fail("rows");
	}
	r->alive = alive;
	r->tagged = tagged;
	r->again = again;
	r->bits = bits;
	sleep(1);	/* the last row's processes are freed after RCU */
	mem0 = kernel_kb();
	bytes0 = stat_read("memory");
	holder_start(&h, alive, tagged);
	r->mem_kb = kernel_kb() - mem0;
	r->ptags_bytes = stat_read("memory") - bytes0;
	r->longest = stat_read("longest_chain");

	/* Fewer calls where a call costs more: the same guest time. */
	n = alive >= 10000 ? 3 : 20;
	r->fork_us = measure(op_fork, NULL, 40);
	tags_write("+bench:self\n", 12);
	r->fork_tagged_us = measure(op_fork, NULL, 40);
	tags_write("-\n", 2);

	snprintf(path, sizeof(path), "/proc/ptags/%d", (int)h.last);
	r->lookup_us = measure(op_lookup, path, 200);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		fail("open the last sleeper's entry");
	r->read_us = measure(op_read, &fd, 200);
	close(fd);
	snprintf(path, sizeof(path), "/proc/ptags/%d", (int)h.pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		fail("open the holder's entry");
	r->tail_us = measure(op_read, &fd, 200);
	close(fd);
	r->list_us = measure_reps(op_list, NULL, n, alive >= 100000 ? 3 : REPS);
	r->ps_us = tagged ? measure_reps(op_ps, NULL, 1,
					 alive >= 10000 ? 3 : REPS) : 0;
	holder_stop(&h);
	printf("scale: %d alive, %s, table_bits %u: done\n", alive,
	       tagged ? "tagged" : "untagged", bits);
}

static const struct row *find(int alive, bool tagged, bool again,
			      unsigned int bits)
{
	int i;

	for (i = 0; i < nrows; i++)
		if (rows[i].alive == alive && rows[i].tagged == tagged &&
		    rows[i].again == again && rows[i].bits == bits)
			return &rows[i];
	printf("bench: no row %d %d %d %u\n", alive, tagged, again, bits);
	exit(1);
}

int main(int argc, char **argv)
{
	static const int alive[] = { 0, 1000, 10000, MAX_ALIVE };
	const struct row *u, *u2, *t, *r;
	unsigned int bits, small_bits;
	char params[32];
	int i, k;

	(void)argc;
	(void)argv;
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(readbuf, 1, sizeof(readbuf));

	/* Room for the sleepers: pids and the kernel's task limit. */
	write_sysctl("/proc/sys/kernel/pid_max", "4194304");
	write_sysctl("/proc/sys/kernel/threads-max", "1000000");

	/* Warm up past a fresh boot's climbing fork cost (bench.c). */
	for (i = 0; i < 3; i++)
		measure(op_fork, NULL, 40);

	module_load("/ptags.ko");
	bits = file_long("/sys/module/ptags/parameters/table_bits");
	if ((int)bits < 14) {	/* the small table below is a 16th of it */
		errno = ERANGE;
		fail("table_bits below 14 (GUEST_MEM too small)");
	}
	/* Untagged, tagged, untagged again: how much rows drift apart. */
	for (i = 0; i < 4; i++)
		for (k = 0; k < 3; k++)
			if (alive[i] || !k)
				run_row(alive[i], k == 1, k == 2, bits);
	module_unload("ptags", 1);

	/* A 16th of the buckets: chains 16 times as long. */
	small_bits = bits - 4;
	snprintf(params, sizeof(params), "table_bits=%u", small_bits);
	module_load_params("/ptags.ko", params);
	run_row(MAX_ALIVE, false, false, small_bits);
	run_row(MAX_ALIVE, true, false, small_bits);
	module_unload("ptags", 1);

	/* The fewest buckets the module takes. */
	module_load_params("/ptags.ko", "table_bits=4");
	run_row(MAX_ALIVE, false, false, 4);
	run_row(MAX_ALIVE, true, false, 4);
	module_unload("ptags", 1);

	printf("\nscale: table_bits %u (%u buckets); MemTotal-sized default\n",
	       bits, 1u << bits);
	printf("%7s %-14s %4s | %13s | %13s | %9s | %9s | %9s | %13s | %13s | %8s | %7s | %9s\n",
	       "alive", "", "bits", "fork untagged", "fork 1 tag",
	       "lookup", "read", "tail", "list", "ptags ps", "load",
	       "longest", "kB/proc");
	for (i = 0; i < nrows; i++) {
		r = &rows[i];
		printf("%7d %-14s %4u | %10.2f us | %10.2f us | %6.2f us | %6.2f us | %6.2f us | %10.1f us | %10.1f us | %8.3f | %7ld | %9.2f\n",
		       r->alive, r->tagged ? "tagged" : r->again ?
		       "untagged again" : "untagged", r->bits,
		       r->fork_us, r->fork_tagged_us, r->lookup_us, r->read_us,
		       r->tail_us, r->list_us, r->ps_us,
		       r->tagged ? (double)r->alive / (1u << r->bits) : 0,
		       r->longest,
		       r->alive ? (double)r->mem_kb / r->alive : 0);
	}
	printf("\n");
	for (i = 1; i < 4; i++) {
		t = find(alive[i], true, false, bits);
		printf("scale: %d tagged: ptags memory %ld bytes, %.1f bytes per process; list %.3f us per listed process; ptags ps %.2f us per process\n",
		       alive[i], t->ptags_bytes,
		       (double)t->ptags_bytes / alive[i],
		       t->list_us / (alive[i] + 1),
		       t->ps_us / (alive[i] + 1));
	}
	printf("\n");

	/*
	 * Issue 14's target at scale, against the mean of the untagged rows
	 * before and after; their own difference is the noise.
	 */
	for (i = 1; i < 4; i++) {
		u = find(alive[i], false, false, bits);
		u2 = find(alive[i], false, true, bits);
		t = find(alive[i], true, false, bits);
		printf("scale: %d alive: untagged fork, tagged alive / untagged alive %.4f (untagged again / untagged %.4f)\n",
		       alive[i], 2 * t->fork_us / (u->fork_us + u2->fork_us),
		       u2->fork_us / u->fork_us);
	}
	u = find(MAX_ALIVE, false, false, bits);
	u2 = find(MAX_ALIVE, false, true, bits);
	t = find(MAX_ALIVE, true, false, bits);
	target(2 * t->fork_us <= 1.01 * (u->fork_us + u2->fork_us),
	       "100000 alive: untagged fork, tagged alive / untagged alive",
	       2 * t->fork_us / (u->fork_us + u2->fork_us), 1.01);
	u = find(MAX_ALIVE, false, false, small_bits);
	t = find(MAX_ALIVE, true, false, small_bits);
	printf("(with a 16th of the buckets: %.4f)\n", t->fork_us / u->fork_us);
	u = find(MAX_ALIVE, false, false, 4);
	t = find(MAX_ALIVE, true, false, 4);
	printf("scale: table_bits 4, 100000 tagged in 16 chains, the longest %ld: untagged fork %.4f x the empty table's (%.2f us more, each a walk of one whole chain), read of the tail %.2f us, of the head %.2f us\n",
	       t->longest, t->fork_us / u->fork_us, t->fork_us - u->fork_us,
	       t->tail_us, t->read_us);
	printf("bench: done, %d target(s) missed\n", failures);
	return 0;
}
