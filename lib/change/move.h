/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Moving a running process (numaplace move): where to (a node, or the CPUs
 * and memory near a device, as run --near binds), what it takes (every
 * thread's affinity, or the cpuset of the cgroup that owns its placement),
 * as the changes of one transaction, and its memory (numa_migrate_pages),
 * which no revert moves back. */
#ifndef NUMAPLACE_MOVE_H
#define NUMAPLACE_MOVE_H

#include <stdbool.h>
#include <stddef.h>

#include "change/attr.h"
#include "base/context.h"
#include "base/cpuset.h"
#include "read/task.h"

struct np_machine;
struct np_pci_dev;
struct np_topology;

/* The CPUs and memory nodes for an application that should sit with
 * device d (run --near, move --near): its node's usable CPUs, else the
 * nearest node's that has some. -EINVAL (ctx->err says why) when its node
 * is unknown or no CPU is usable. */
int np_device_binding(struct np_ctx *ctx, const struct np_machine *m, const struct np_pci_dev *d,
		      struct np_cpuset *cpus, struct np_cpuset *nodes);

/* Where a process goes: node N's online CPUs and, for its memory, node N;
 * -EINVAL naming the node when it does not exist, has no online CPU, or
 * (memory) has no memory. */
int np_move_node_target(struct np_ctx *ctx, const struct np_topology *topo, int node, bool memory,
			struct np_cpuset *cpus, struct np_cpuset *nodes);

struct np_move {
	int pid;
	char comm[64];
	struct np_cpuset cpus, nodes;  /* where to: CPUs; memory nodes (with memory) */
	bool memory, use_cgroup;
	/* The cgroup that owns the placement (its cpuset.cpus or cpuset.mems
	 * set explicitly: a kubelet's or systemd's cpuset, which rewrites
	 * thread affinity), relative to /sys/fs/cgroup; NULL when none. */
	char *cgroup;
	/* The threads as found, ascending TID. */
	struct np_task_stat *threads;
	size_t nthreads;
	/* The transaction's changes: each thread's affinity, the main
	 * thread's as the process's (process_affinity: what a revert gives the
	 * threads started since), or (use_cgroup and a cgroup) the cgroup's
	 * cpuset.cpus and, with memory, cpuset.mems, its threads following
	 * through np_move_more. */
	struct np_change *changes;
	size_t nchanges;
	/* The threads that appeared while the first changes were written
	 * (np_move_more), their changes as the engine filled them. */
	struct np_change *more;
	size_t nmore, passes;
	/* A cgroup's move: its threads' own affinity comes after its cpuset
	 * (the first np_move_more lists them all). */
	bool threads_after_cgroup;
};

/* Plans moving process pid to cpus (and its memory to nodes when memory).
 * -ESRCH: no such process; -EINVAL: a kernel thread, or a target its
 * cpuset cannot run on; -EPERM: a cgroup owns its placement and use_cgroup
 * is false (ctx->err names the cgroup's file and says --cgroup). */
int np_move_plan(struct np_ctx *ctx, int pid, const struct np_cpuset *cpus, const struct np_cpuset *nodes,
		 bool memory, bool use_cgroup, struct np_move *mv);
/* The np_txn_opts.more of a move's transaction (arg: the struct np_move):
 * the threads of mv->pid not seen yet, as changes, until a listing finds
 * none (a process that spawns threads while being moved); -EAGAIN after
 * NP_MOVE_MAX_PASSES listings that each found new ones. */
#define NP_MOVE_MAX_PASSES 64
int np_move_more(struct np_ctx *ctx, void *arg, struct np_change **changes, size_t *n);
/* Migrates the process's pages to mv->nodes (numa_migrate_pages from every
 * node with memory). *left: pages the kernel could not move. */
int np_move_memory(struct np_ctx *ctx, const struct np_move *mv, long *left);
void np_move_free(struct np_move *mv);

#endif
