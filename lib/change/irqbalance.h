/* SPDX-License-Identifier: GPL-2.0-or-later */
/* irqbalance moves every IRQ it was not told to leave alone every 10 s, and
 * so undoes any placement. What it leaves alone it is told at start: banned
 * IRQs, from --banirq=N arguments in a variable of its configuration file
 * (the systemd unit's EnvironmentFile, which the init scripts source too:
 * IRQBALANCE_ARGS on Debian and the RHEL family, IRQBALANCE_OPTS under
 * OpenRC). read/irqbalance-conf finds that file and reads what irqbalance
 * will avoid; this module makes the edit that bans the IRQs a profile
 * places (irqbalance-edit.c, for the transaction to apply and revert) and
 * decides, for every write path (apply, hold's first apply and each
 * re-apply), whether to ban (irqbalance-ban.c). */
#ifndef NUMAPLACE_IRQBALANCE_H
#define NUMAPLACE_IRQBALANCE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "change/attr.h"
#include "base/context.h"
#include "base/cpuset.h"
#include "read/irqbalance-conf.h"

/* What apply and hold do about irqbalance (--irqbalance ban|warn|ignore);
 * DEFAULT bans when irqbalance runs or is installed (its file exists). */
enum np_irqb_mode { NP_IRQB_DEFAULT, NP_IRQB_BAN, NP_IRQB_WARN, NP_IRQB_IGNORE };

/* Heads the line above the IRQBALANCE_ARGS that numaplace edited. */
#define NP_IRQBALANCE_MARK "# numaplace: banned IRQs"

/* The IRQs whose affinity changes set (attr NP_ATTR_IRQ_AFFINITY, by their
 * target), ascending and each once; *irqs is malloc'd, NULL when none. */
int np_irqbalance_irqs(const struct np_change *changes, size_t n, int **irqs, size_t *count);

/* The text of irqbalance's file with irqs banned: one --banirq=N for each
 * IRQ that the last assignment of var (IRQBALANCE_ARGS or IRQBALANCE_OPTS,
 * np_irqb_conf.var) does not ban yet, added at the
 * end of its value (or of a new assignment at the end of the file, when there
 * is none), under a NP_IRQBALANCE_MARK line listing every IRQ numaplace
 * banned there. The user's arguments and every other line stay as they are.
 * *out is NULL when every IRQ is banned already; *added (malloc'd, NULL when
 * none) lists the IRQs it bans. -EINVAL when the assignment is more than
 * numaplace edits safely (a value over several lines, text after it,
 * characters that would need quoting), the reason in ctx->err. */
int np_irqbalance_ban_text(struct np_ctx *ctx, const char *text, const char *var, const int *irqs, size_t n,
			   char **out, int **added, size_t *nadded);

/* Where the banned-IRQ lines of a file stand against a ban edit. */
enum np_ban_state {
	NP_BANS_NEW,   /* as the edit left them */
	NP_BANS_OLD,   /* as they were before it: nothing to restore */
	NP_BANS_OTHER, /* changed by someone else since */
};

/* What a revert of the ban edit from old to new (a journal's texts) writes
 * over current, the file as it is now: current with its banned-IRQ lines
 * (the NP_IRQBALANCE_MARK line and the assignment below it, whose variable
 * says which one new edited) put back as old had them, and every other line as it is now; when old
 * had no assignment, the one the edit appended goes, with the blank line
 * before it. The journal's text is never written whole, so lines edited
 * since the apply stay. *state says where current's lines stand; *out
 * (malloc'd) is NULL for NP_BANS_OLD. */
int np_irqbalance_unban_text(struct np_ctx *ctx, const char *current, const char *old, const char *new,
			     enum np_ban_state *state, char **out);

/* Whether new is old with only what the ban edit makes: the variable under
 * new's NP_IRQBALANCE_MARK line (IRQBALANCE_ARGS or IRQBALANCE_OPTS) gaining --banirq=N words (or a new assignment of them), the
 * NP_IRQBALANCE_MARK line above it, every other line the same; and old's
 * assignment one the edit takes. What a journal of the irqbalance kind may
 * hold: a revert writes old's assignment line back, and nothing else of it. */
bool np_irqbalance_edit_ok(const char *old, const char *new);

/* The change that bans irqs in conf's file under ctx's root, as read now:
 * attr NP_ATTR_IRQBALANCE_CONFIG (a text file), subject
 * "irqbalance: --banirq=34 ...",
 * old_value the text it was made from (so the apply refuses a file changed
 * in between), new_value the edited text. All NULL, and 0, when every IRQ is
 * banned already. -ENOENT when the file is missing; -EINVAL as above. */
int np_irqbalance_ban_change(struct np_ctx *ctx, const struct np_irqb_conf *conf, const int *irqs, size_t n,
			     struct np_change *out, int **added, size_t *nadded);

/* ---- the decision ---- */

/* What a write path does about irqbalance for the changes it is about to
 * write: one decision, which each command then says its own way. */
struct np_irqban {
	struct np_irqb_conf conf;
	int *irqs, *added;       /* the IRQs the changes place; those the ban adds */
	size_t nirqs, nadded;
	struct np_change change; /* the edit of conf.path, until np_irqban_take */
	bool ban;                /* the transaction bans IRQs (change was made) */
	bool running, banned;    /* banned: every IRQ was banned already */
	bool known;              /* whether running says anything (the caller's: process information read) */
	bool warn;               /* irqbalance would undo the placement: say so */
	char note[2 * PATH_MAX + 1280]; /* why the IRQs cannot be banned; "" when they can */
};

/* Decides and, for a ban, prepares the change, for the IRQ affinities among
 * changes; running: an irqbalance process runs. mode NP_IRQB_DEFAULT bans
 * when irqbalance runs or is installed (its configuration file exists).
 * NP_IRQB_BAN without the file is an error (-ENOENT): nothing may be written
 * when the IRQs cannot be banned. Returns 0 or -errno, the detail in
 * ctx->err. */
int np_irqban_plan(struct np_ctx *ctx, bool running, const struct np_change *changes, size_t n,
		   enum np_irqb_mode mode, struct np_irqban *ib);
/* Moves the ban to the end of the changes (*changes, *n: realloc'd): when it
 * cannot be written, the transaction undoes the placement too. 0 or -ENOMEM. */
int np_irqban_take(struct np_irqban *ib, struct np_change **changes, size_t *n);
void np_irqban_free(struct np_irqban *ib);
/* "34 40 41", the first few of a long list: a warning must stay readable. */
const char *np_irqban_list(char *buf, size_t size, const int *irqs, size_t n);

/* Why numaplace bans with --banirq=N and not with a --policyscript: said in
 * apply's output and the man page. */
#define NP_IRQBALANCE_WHY_BANIRQ \
	"numaplace bans by IRQ number (--banirq), not with a --policyscript: irqbalance runs one " \
	"policy script, which may be the distribution's or yours; apply at boot and hold re-ban " \
	"the numbers a reboot or a re-probed device gives"

#endif
