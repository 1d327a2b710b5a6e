/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Administration (SPEC §8), in stats.c: the limits, as module parameters,
 * and the counters under /sys/module/ptags/stats/.
 */
#ifndef PTAGS_STATS_H
#define PTAGS_STATS_H

#include <linux/atomic.h>

struct attribute;

struct ptags_stats {
	atomic64_t live_sets;
	atomic64_t tagged_processes;
	atomic64_t bytes;
	atomic64_t inherited;
	atomic64_t pruned;
	atomic64_t refused;
	atomic64_t killed;
	atomic64_t memory;
	atomic64_t watch_queued;	/* entries handed to the watch worker */
	atomic64_t audited;		/* audit records sent */
	atomic64_t audit_suppressed;	/* records over the rate limit */
};

extern struct ptags_stats ptags_stats;
extern unsigned int ptags_max_tags;
extern unsigned int ptags_max_bytes;
extern unsigned int ptags_max_write;
extern unsigned int ptags_max_levels;

int ptags_stats_init(void);
void ptags_stats_uninit(void);
int ptags_stats_add(const struct attribute *attr);
void ptags_stats_remove(const struct attribute *attr);

static inline void ptags_count(atomic64_t *counter, long delta)
{
	atomic64_add(delta, counter);
}

#endif /* PTAGS_STATS_H */
