/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A copy of the files numaplace (and hwloc) read from a machine, laid out as
 * on the machine (OUT/sys, OUT/proc) so that --root OUT and HWLOC_FSROOT=OUT
 * read it elsewhere as they would read the machine itself. Only those files:
 * no processes (but irqbalance's comm, which tells that it runs), no MAC
 * addresses, no serial numbers. */
#ifndef NUMAPLACE_SNAPSHOT_H
#define NUMAPLACE_SNAPSHOT_H

#include <stdbool.h>

#include "base/context.h"

struct np_snapshot_stats {
	unsigned long files;       /* regular files written */
	unsigned long links;       /* symbolic links recreated */
	unsigned long skipped;     /* present but unreadable: write-only, root-only, refused by the driver */
	unsigned long long bytes;  /* bytes of the regular files */
};

/* out ends in ".tar.gz" or ".tgz". */
bool np_snapshot_is_archive(const char *out);

/* Copies ctx's machine (ctx->root, or this machine) into out: a directory
 * that must not exist or be empty, or an archive that must not exist (made
 * by tar from a temporary tree next to it). On failure nothing is left
 * behind. Returns 0 or -errno with the detail in ctx->err. */
int np_snapshot(struct np_ctx *ctx, const char *out, struct np_snapshot_stats *stats);

#endif
