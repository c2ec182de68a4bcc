/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/net.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/sysfs.h"

static int count_queues(char **names, size_t n, const char *prefix)
{
	int count = 0;
	for (size_t i = 0; i < n; i++)
		if (!strncmp(names[i], prefix, strlen(prefix)))
			count++;
	return count;
}

int np_net_read(struct np_ctx *ctx, const char *name, struct np_netif *out)
{
	memset(out, 0, sizeof(*out));
	if (!(out->name = strdup(name)))
		return -ENOMEM;
	char **names;
	size_t n;
	int rc = np_list_dir(ctx, &names, &n, "/sys/class/net/%s/queues", name);
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return rc;
	out->queues_known = true;
	out->nrx = count_queues(names, n, "rx-");
	out->ntx = count_queues(names, n, "tx-");
	np_names_free(names, n);
	out->rps = calloc((size_t)out->nrx + 1, sizeof(*out->rps));
	out->xps = calloc((size_t)out->ntx + 1, sizeof(*out->xps));
	out->xps_known = calloc((size_t)out->ntx + 1, sizeof(*out->xps_known));
	out->rps_flow_cnt = calloc((size_t)out->nrx + 1, sizeof(*out->rps_flow_cnt));
	if (!out->rps || !out->xps || !out->xps_known || !out->rps_flow_cnt)
		return -ENOMEM;
	for (int q = 0; q < out->nrx; q++) {
		rc = np_read_cpumask(ctx, &out->rps[q], "/sys/class/net/%s/queues/rx-%d/rps_cpus", name, q);
		if (rc && rc != -ENOENT)
			return rc;
		/* Absent without CONFIG_RPS, or in a copy that lacks it: unknown. */
		long long cnt;
		out->rps_flow_cnt[q] = np_read_int(ctx, &cnt, "/sys/class/net/%s/queues/rx-%d/rps_flow_cnt", name, q) == 0 &&
					       cnt >= 0 && cnt <= 1 << 30 ? (int)cnt : -1;
	}
	for (int q = 0; q < out->ntx; q++) {
		/* Drivers without XPS support refuse to read it (ENOENT, EINVAL): unknown, not fatal. */
		rc = np_read_cpumask(ctx, &out->xps[q], "/sys/class/net/%s/queues/tx-%d/xps_cpus", name, q);
		out->xps_known[q] = rc == 0;
	}
	return 0;
}

void np_netif_free(struct np_netif *nif)
{
	for (int q = 0; nif->rps && q < nif->nrx; q++)
		np_cpuset_free(&nif->rps[q]);
	for (int q = 0; nif->xps && q < nif->ntx; q++)
		np_cpuset_free(&nif->xps[q]);
	free(nif->rps);
	free(nif->xps);
	free(nif->xps_known);
	free(nif->rps_flow_cnt);
	free(nif->name);
	memset(nif, 0, sizeof(*nif));
}
