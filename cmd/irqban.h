/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What apply and hold do about irqbalance for a resolved profile: one
 * decision, which each command then says its own way. */
#ifndef NUMAPLACE_IRQBAN_H
#define NUMAPLACE_IRQBAN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "../lib/machine.h"
#include "../lib/resolve.h"
#include "cmd.h"

struct np_irqban {
	int *irqs, *added;       /* the IRQs the profile places; those the ban adds */
	size_t nirqs, nadded;
	struct np_change change; /* the edit of NP_IRQBALANCE_CONFIG, until np_irqban_take */
	bool ban;                /* the transaction bans IRQs (change was made) */
	bool running, banned;    /* banned: every IRQ was banned already */
	bool warn;               /* irqbalance would undo the placement: say so */
	char note[PATH_MAX + 1152]; /* why the IRQs cannot be banned; "" when they can */
};

/* Decides and, for a ban, prepares the change. mode NP_IRQB_DEFAULT bans
 * when irqbalance runs or is installed (its configuration file exists).
 * Returns 0 or -errno (-ENOMEM), the detail in ctx->err. */
int np_irqban_plan(struct np_ctx *ctx, const struct np_machine *m, const struct np_resolved *res,
		   enum np_irqb_mode mode, struct np_irqban *ib);
/* Moves the ban to the end of res's changes: when it cannot be written,
 * the transaction undoes the placement too. 0 or -ENOMEM. */
int np_irqban_take(struct np_irqban *ib, struct np_resolved *res);
void np_irqban_free(struct np_irqban *ib);
/* "34 40 41", the first few of a long list: a warning must stay readable. */
const char *np_irqban_list(char *buf, size_t size, const int *irqs, size_t n);

#endif
