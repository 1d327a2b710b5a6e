/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptags's own trace events, in tracefs under events/ptags/: what security
 * tools (ftrace, perf, bpftrace) can watch without ptags's help.  Each costs
 * a patched-out branch while disabled.  Pids are global (the initial pid
 * namespace's), levels are depths (SPEC §12: 0 for /proc/ptags).
 *
 *   ptags_change   a write to an entry: its target, level, writer, size and
 *                  result (0, or the negative errno it returned; SPEC §7)
 *   ptags_inherit  a fork shared a level's set with the child (SPEC §9)
 *   ptags_prune    an exec removed unkept tags at a level (SPEC §9)
 *   ptags_release  a process's set at a level went: untagged, or exit
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ptags

#if !defined(PTAGS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define PTAGS_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(ptags_change,
	TP_PROTO(pid_t pid, int level, pid_t writer, size_t bytes, int result),
	TP_ARGS(pid, level, writer, bytes, result),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(int, level)
		__field(pid_t, writer)
		__field(size_t, bytes)
		__field(int, result)
	),
	TP_fast_assign(
		__entry->pid = pid;
		__entry->level = level;
		__entry->writer = writer;
		__entry->bytes = bytes;
		__entry->result = result;
	),
	TP_printk("pid=%d level=%d writer=%d bytes=%zu result=%d",
		  __entry->pid, __entry->level, __entry->writer,
		  __entry->bytes, __entry->result)
);

TRACE_EVENT(ptags_inherit,
	TP_PROTO(pid_t parent, pid_t child, int level, unsigned int tags),
	TP_ARGS(parent, child, level, tags),
	TP_STRUCT__entry(
		__field(pid_t, parent)
		__field(pid_t, child)
		__field(int, level)
		__field(unsigned int, tags)
	),
	TP_fast_assign(
		__entry->parent = parent;
		__entry->child = child;
		__entry->level = level;
		__entry->tags = tags;
	),
	TP_printk("parent=%d child=%d level=%d tags=%u", __entry->parent,
		  __entry->child, __entry->level, __entry->tags)
);

TRACE_EVENT(ptags_prune,
	TP_PROTO(pid_t pid, int level, unsigned int before, unsigned int after),
	TP_ARGS(pid, level, before, after),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(int, level)
		__field(unsigned int, before)
		__field(unsigned int, after)
	),
	TP_fast_assign(
		__entry->pid = pid;
		__entry->level = level;
		__entry->before = before;
		__entry->after = after;
	),
	TP_printk("pid=%d level=%d tags=%u kept=%u", __entry->pid,
		  __entry->level, __entry->before, __entry->after)
);

TRACE_EVENT(ptags_release,
	TP_PROTO(pid_t pid, int level, unsigned int tags),
	TP_ARGS(pid, level, tags),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(int, level)
		__field(unsigned int, tags)
	),
	TP_fast_assign(
		__entry->pid = pid;
		__entry->level = level;
		__entry->tags = tags;
	),
	TP_printk("pid=%d level=%d tags=%u", __entry->pid, __entry->level,
		  __entry->tags)
);

#endif /* PTAGS_TRACE_H */

/* Out of the kernel tree: found through Kbuild's -I$(src)/module. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ptags_trace
#include <trace/define_trace.h>
