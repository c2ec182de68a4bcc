/* SPDX-License-Identifier: GPL-2.0-or-later */
/* irqbalance moves every IRQ it was not told to leave alone every 10 s, and
 * so undoes any placement. What it leaves alone it is told at start: banned
 * IRQs, from --banirq=N arguments. Debian's package takes its arguments from
 * IRQBALANCE_ARGS in NP_IRQBALANCE_CONFIG (the systemd unit's EnvironmentFile,
 * which the SysV init script sources too); this module makes the edit that
 * bans the IRQs a profile places, for the transaction to apply and revert. */
#ifndef NUMAPLACE_IRQBALANCE_H
#define NUMAPLACE_IRQBALANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "conffile.h"
#include "context.h"
#include "txn.h"

/* Heads the line above the IRQBALANCE_ARGS that numaplace edited. */
#define NP_IRQBALANCE_MARK "# numaplace: banned IRQs"

/* The IRQs whose affinity changes set (attr NP_ATTR_IRQ_AFFINITY, by their
 * target), ascending and each once; *irqs is malloc'd, NULL when none. */
int np_irqbalance_irqs(const struct np_change *changes, size_t n, int **irqs, size_t *count);

/* The text of NP_IRQBALANCE_CONFIG with irqs banned: one --banirq=N for each
 * IRQ that the last IRQBALANCE_ARGS assignment does not ban yet, added at the
 * end of its value (or of a new assignment at the end of the file, when there
 * is none), under a NP_IRQBALANCE_MARK line listing every IRQ numaplace
 * banned there. The user's arguments and every other line stay as they are.
 * *out is NULL when every IRQ is banned already; *added (malloc'd, NULL when
 * none) lists the IRQs it bans. -EINVAL when the assignment is more than
 * numaplace edits safely (a value over several lines, text after it,
 * characters that would need quoting), the reason in ctx->err. */
int np_irqbalance_ban_text(struct np_ctx *ctx, const char *text, const int *irqs, size_t n,
			   char **out, int **added, size_t *nadded);

/* Where the banned-IRQ lines of a file stand against a ban edit. */
enum np_ban_state {
	NP_BANS_NEW,   /* as the edit left them */
	NP_BANS_OLD,   /* as they were before it: nothing to restore */
	NP_BANS_OTHER, /* changed by someone else since */
};

/* What a revert of the ban edit from old to new (a journal's texts) writes
 * over current, the file as it is now: current with its banned-IRQ lines
 * (the last IRQBALANCE_ARGS assignment and the NP_IRQBALANCE_MARK line above
 * it) put back as old had them, and every other line as it is now; when old
 * had no assignment, the one the edit appended goes, with the blank line
 * before it. The journal's text is never written whole, so lines edited
 * since the apply stay. *state says where current's lines stand; *out
 * (malloc'd) is NULL for NP_BANS_OLD. */
int np_irqbalance_unban_text(struct np_ctx *ctx, const char *current, const char *old, const char *new,
			     enum np_ban_state *state, char **out);

/* Whether new is old with only what the ban edit makes: IRQBALANCE_ARGS
 * gaining --banirq=N words (or a new assignment of them), the
 * NP_IRQBALANCE_MARK line above it, every other line the same; and old's
 * assignment one the edit takes. What a journal of the irqbalance kind may
 * hold: a revert writes old's assignment line back, and nothing else of it. */
bool np_irqbalance_edit_ok(const char *old, const char *new);

/* The change that bans irqs in NP_IRQBALANCE_CONFIG under ctx's root, as
 * read now: attr NP_ATTR_IRQBALANCE_CONFIG (a text file), subject
 * "irqbalance: --banirq=34 ...",
 * old_value the text it was made from (so the apply refuses a file changed
 * in between), new_value the edited text. All NULL, and 0, when every IRQ is
 * banned already. -ENOENT when the file is missing; -EINVAL as above. */
int np_irqbalance_ban_change(struct np_ctx *ctx, const int *irqs, size_t n, struct np_change *out,
			     int **added, size_t *nadded);

#endif
