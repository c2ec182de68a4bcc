/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A block device's request-queue settings and its blk-mq hardware queues. */
#ifndef NUMAPLACE_BLOCK_H
#define NUMAPLACE_BLOCK_H

#include "base/context.h"
#include "base/cpuset.h"

struct np_blockdev {
	char *name;
	int rq_affinity;          /* 0, 1, 2; -1 when unknown */
	char *scheduler;          /* the active one ("none", "mq-deadline"), or NULL */
	int nhwq;
	struct np_cpuset *hwq_cpus; /* nhwq entries, from mq/N/cpu_list */
};

/* Reads /sys/block/NAME/{queue,mq}. Absent files leave fields unknown. */
int np_block_read(struct np_ctx *ctx, const char *name, struct np_blockdev *out);
void np_blockdev_free(struct np_blockdev *bd);

#endif
