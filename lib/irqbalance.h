/* irqbalance moves every IRQ it was not told to leave alone every 10 s, and
 * so undoes any placement. What it leaves alone it is told at start: banned
 * IRQs, from --banirq=N arguments. Debian's package takes its arguments from
 * IRQBALANCE_ARGS in NP_IRQBALANCE_CONFIG (the systemd unit's EnvironmentFile,
 * which the SysV init script sources too); this module makes the edit that
 * bans the IRQs a profile places, for the transaction to apply and revert. */
#ifndef NUMAPLACE_IRQBALANCE_H
#define NUMAPLACE_IRQBALANCE_H

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

/* The change that bans irqs in NP_IRQBALANCE_CONFIG under ctx's root, as
 * read now: attr NP_ATTR_IRQBALANCE_CONFIG (a text file), subject
 * "irqbalance: --banirq=34 ...",
 * old_value the text it was made from (so the apply refuses a file changed
 * in between), new_value the edited text. All NULL, and 0, when every IRQ is
 * banned already. -ENOENT when the file is missing; -EINVAL as above. */
int np_irqbalance_ban_change(struct np_ctx *ctx, const int *irqs, size_t n, struct np_change *out,
			     int **added, size_t *nadded);

#endif
