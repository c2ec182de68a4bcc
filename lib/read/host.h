/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which host and which boot a reading comes from: what a fleet compares
 * machines by (and tells two boots of one machine apart with). */
#ifndef NUMAPLACE_HOST_H
#define NUMAPLACE_HOST_H

#include "base/context.h"

struct np_host {
	char *hostname; /* /proc/sys/kernel/hostname */
	char *kernel;   /* /proc/sys/kernel/osrelease */
	char *boot_id;  /* /proc/sys/kernel/random/boot_id */
};

/* Reads them through the root-aware layer. A file that is absent or empty
 * (a partial copy of a machine) leaves its field NULL: unknown, not an
 * error. Returns 0, or -errno for any other failure (detail in ctx->err). */
int np_host_read(struct np_ctx *ctx, struct np_host *host);
void np_host_free(struct np_host *host);

#endif
