/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A running process as its /proc entries show it: where its threads may run
 * and last ran, the CPU time they used per node over an interval, and where
 * its memory is (numa_maps). All of it through the root-aware layer, so a
 * snapshot or fixture answers as the live machine did.
 *
 * Per-node arrays are indexed like np_topology.nodes (by index, not id).
 * Functions return 0 or -errno with a one-line detail in ctx->err:
 * -ENOENT no such process, -EPERM a kernel thread (no memory or devices of
 * its own), -EACCES and others a file that could not be read (named). */
#ifndef NUMAPLACE_PROCESS_H
#define NUMAPLACE_PROCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/context.h"
#include "base/cpuset.h"
#include "read/task.h"
#include "read/topology.h"

struct np_process {
	int pid;
	char *comm;                     /* status "Name:" (the kernel's bytes: escape to show) */
	struct np_cpuset allowed;       /* Cpus_allowed_list */
	struct np_cpuset mems_allowed;  /* Mems_allowed_list: node ids */
	char *cgroup;                   /* its cgroup ("/system.slice/db.service"); NULL when none is named */
	struct np_cpuset cgroup_cpus;   /* that cgroup's cpuset.cpus.effective */
	bool has_cgroup_cpus;           /* false: not readable (no cpuset controller there, a copy without it) */
	struct np_task_stat *tasks;     /* ascending TID */
	size_t ntasks;
	int nnodes;
	unsigned *threads_on;           /* threads whose last CPU (stat field 39) is on the node */
	/* After np_process_sample: utime+stime of the interval in clock ticks,
	 * by the node of the CPU each thread ran on last (a thread that moved
	 * during the interval is counted where it ended). */
	double seconds;                 /* 0: no interval */
	unsigned long long *ticks, ticks_total;
	unsigned busy_threads;          /* threads that used CPU time over it */
	/* numa_maps, read once: resident pages by node, and the same in KiB
	 * (each line's N<node>= counts are pages of its kernelpagesize_kB). */
	bool memory_known;              /* numa_maps was read */
	unsigned long long *pages, *kib, pages_total, kib_total;
	char **notes;                   /* what the reader should know: memory policies, what was unreadable */
	size_t nnotes;
};

/* The CPUs a process may run on (Cpus_allowed_list of /proc/PID/status):
 * 0, -ENOENT when there is no such process, -EINVAL when the list is not
 * readable, or -errno (ctx->err says why). */
int np_process_cpus(struct np_ctx *ctx, int pid, struct np_cpuset *out);
/* Reads /proc/PID/status, its threads, its cgroup's cpuset and numa_maps. */
int np_process_read(struct np_ctx *ctx, const struct np_topology *topo, int pid, struct np_process *out);
/* Reads the threads again after seconds have passed since np_process_read
 * (the caller waits) and fills ticks; threads_on follows the new reading. */
int np_process_sample(struct np_ctx *ctx, const struct np_topology *topo, struct np_process *p, double seconds);
void np_process_free(struct np_process *p);

/* The parse of numa_maps alone (for the tests): adds each line's N<id>=
 * pages and KiB into pages[] and kib[] (by topology node index), and one
 * note per memory policy that places pages on purpose (bind:, interleave:,
 * weighted interleave:) and for pages on a node the topology lacks. */
int np_numa_maps_parse(const char *text, const struct np_topology *topo, unsigned long long *pages,
		       unsigned long long *kib, char ***notes, size_t *nnotes);

/* Index in topo->nodes of node id, or -1. */
int np_node_index(const struct np_topology *topo, int id);
/* "1.5 GiB", "512 MiB", "96 KiB": an amount of KiB at a glance. */
const char *np_kib_text(unsigned long long kib, char buf[24]);

#endif
