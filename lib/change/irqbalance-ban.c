/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether a write path bans the IRQs it places in irqbalance's file: one
 * decision for apply, hold's first apply and each of hold's re-applies, so
 * that a device re-probed with new IRQ numbers has them banned in the same
 * transaction that places them. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change/irqbalance.h"
#include "read/sysfs.h"

void np_irqban_free(struct np_irqban *ib)
{
	free(ib->irqs);
	free(ib->added);
	np_change_free(&ib->change);
	memset(ib, 0, sizeof(*ib));
}

const char *np_irqban_list(char *buf, size_t size, const int *irqs, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && len + 24 < size; i++) {
		if (i == 8) {
			snprintf(buf + len, size - len, " and %zu more", n - i);
			break;
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? " " : "", irqs[i]);
	}
	return buf;
}

int np_irqban_plan(struct np_ctx *ctx, bool running, const struct np_change *changes, size_t n,
		   enum np_irqb_mode mode, struct np_irqban *ib)
{
	char path[PATH_MAX];
	memset(ib, 0, sizeof(*ib));
	ib->change.target = NP_TARGET_NONE;
	ib->running = running;
	if (mode == NP_IRQB_IGNORE)
		return 0;
	if (np_irqbalance_irqs(changes, n, &ib->irqs, &ib->nirqs) || np_irqbalance_conf_find(ctx, &ib->conf))
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	bool config = ib->conf.exists;
	/* No irqbalance here, running or installed: nothing would undo the placement. */
	if (!ib->nirqs || (!ib->running && !config && mode != NP_IRQB_BAN))
		return 0;
	if (mode == NP_IRQB_WARN) {
		ib->warn = true;
		return 0;
	}
	if (!config) {
		int rc = np_sysfs_path(ctx, path, "%s", ib->conf.path);
		if (rc)
			return rc;
		/* Asked to ban: placing IRQs irqbalance will move is not what was asked. */
		if (mode == NP_IRQB_BAN)
			return np_fail(ctx, -ENOENT, "cannot ban IRQs: irqbalance's configuration file '%s' (%s) is "
				       "missing; create it, or use --irqbalance=warn", path, ib->conf.from);
		snprintf(ib->note, sizeof(ib->note),
			 "irqbalance's configuration file '%s' (%s) is missing: cannot ban the IRQs", path,
			 ib->conf.from);
		ib->warn = ib->running;
		return 0;
	}
	int rc = np_irqbalance_ban_change(ctx, &ib->conf, ib->irqs, ib->nirqs, &ib->change, &ib->added, &ib->nadded);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		snprintf(ib->note, sizeof(ib->note), "cannot ban the IRQs in irqbalance's configuration: %s",
			 ctx->err);
		ib->warn = true;
		return 0;
	}
	ib->ban = ib->change.path != NULL;
	ib->banned = !ib->ban;
	return 0;
}

int np_irqban_take(struct np_irqban *ib, struct np_change **changes, size_t *n)
{
	if (!ib->ban)
		return 0;
	struct np_change *more = realloc(*changes, (*n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	*changes = more;
	more[(*n)++] = ib->change;
	memset(&ib->change, 0, sizeof(ib->change));
	ib->change.target = NP_TARGET_NONE;
	return 0;
}
