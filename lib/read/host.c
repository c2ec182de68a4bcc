/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/host.h"
#include "read/sysfs.h"

static int read_optional(struct np_ctx *ctx, char **out, const char *path)
{
	int rc = np_read_text(ctx, out, "%s", path);
	if (rc == -ENOENT || (!rc && !**out)) {
		free(*out);
		*out = NULL;
		return 0;
	}
	return rc;
}

int np_host_read(struct np_ctx *ctx, struct np_host *host)
{
	memset(host, 0, sizeof(*host));
	int rc = read_optional(ctx, &host->hostname, "/proc/sys/kernel/hostname");
	if (!rc)
		rc = read_optional(ctx, &host->kernel, "/proc/sys/kernel/osrelease");
	if (!rc)
		rc = read_optional(ctx, &host->boot_id, "/proc/sys/kernel/random/boot_id");
	if (rc)
		np_host_free(host);
	return rc;
}

void np_host_free(struct np_host *host)
{
	free(host->hostname);
	free(host->kernel);
	free(host->boot_id);
	memset(host, 0, sizeof(*host));
}
