/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/block.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/sysfs.h"

/* "mq-deadline kyber [bfq] none" -> "bfq"; "none" alone stays "none". */
static char *active_scheduler(const char *text)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;
	if (open && close)
		return strndup(open + 1, (size_t)(close - open - 1));
	return strdup(text);
}

int np_block_read(struct np_ctx *ctx, const char *name, struct np_blockdev *out)
{
	memset(out, 0, sizeof(*out));
	out->rq_affinity = -1;
	if (!(out->name = strdup(name)))
		return -ENOMEM;
	long long v;
	int rc = np_read_int(ctx, &v, "/sys/block/%s/queue/rq_affinity", name);
	if (rc == 0)
		out->rq_affinity = (int)v;
	else if (rc != -ENOENT)
		return rc;
	char *text;
	rc = np_read_text(ctx, &text, "/sys/block/%s/queue/scheduler", name);
	if (rc == 0) {
		out->scheduler = active_scheduler(text);
		free(text);
	} else if (rc != -ENOENT) {
		return rc;
	}
	char **names;
	size_t n;
	rc = np_list_dir(ctx, &names, &n, "/sys/block/%s/mq", name);
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return rc;
	out->hwq_cpus = calloc(n + 1, sizeof(*out->hwq_cpus));
	if (!out->hwq_cpus) {
		np_names_free(names, n);
		return -ENOMEM;
	}
	/* Natural order puts mq/10 after mq/9, so the index is the queue number. */
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = np_read_cpulist(ctx, &out->hwq_cpus[i], "/sys/block/%s/mq/%s/cpu_list", name, names[i]);
		if (rc == -ENOENT)
			rc = 0;
		out->nhwq++;
	}
	np_names_free(names, n);
	return rc;
}

void np_blockdev_free(struct np_blockdev *bd)
{
	for (int q = 0; bd->hwq_cpus && q < bd->nhwq; q++)
		np_cpuset_free(&bd->hwq_cpus[q]);
	free(bd->hwq_cpus);
	free(bd->name);
	free(bd->scheduler);
	memset(bd, 0, sizeof(*bd));
}
