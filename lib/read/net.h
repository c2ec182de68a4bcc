/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A network interface's queues and their RPS/XPS CPU masks. */
#ifndef NUMAPLACE_NET_H
#define NUMAPLACE_NET_H

#include <stdbool.h>

#include "base/context.h"
#include "base/cpuset.h"

struct np_netif {
	char *name;
	int nrx, ntx;
	bool queues_known;       /* its queues/ directory was there: else nrx, ntx say nothing */
	struct np_cpuset *rps;   /* nrx entries; empty when RPS is off */
	int *rps_flow_cnt;       /* nrx entries: RFS's flow table size (0: off); -1 where unreadable */
	struct np_cpuset *xps;   /* ntx entries */
	bool *xps_known;         /* ntx entries: false where xps_cpus is absent or unreadable */
};

/* Reads /sys/class/net/NAME/queues. Missing queues/ gives 0 queues, not an error. */
int np_net_read(struct np_ctx *ctx, const char *name, struct np_netif *out);
void np_netif_free(struct np_netif *nif);

#endif
