/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One write of a profile, the same sequence for apply, hold (its first
 * apply and each re-apply), trial and move: resolve (the profile on this
 * machine, or changes made otherwise: move's) -> the irqbalance decision
 * for the IRQs the changes place -> one transaction, the ban written last
 * in it -> its result. Each step is a call, so that a command says what it
 * does between them its own way (apply's dry run stops after the decision).
 *
 * A change that resets an interface's queues (its channels: attr.h's
 * resets_queues) is written first, alone; the machine is then read again
 * and the profile resolved again, so that its IRQ, XPS and RPS values are
 * found by queue where the driver re-created them (IRQ numbers change), with
 * the irqbalance decision made again for them: one transaction still, the
 * others' old values read after the reset (the driver's own).
 *
 *	struct np_pipeline p = { 0 };
 *	np_pipeline_resolve(ctx, m, prof, &p);       // p.res
 *	np_pipeline_decide(ctx, &p, NULL, 0, running, mode); // p.ban
 *	np_pipeline_write(ctx, &p, &opts, name, NP_PIPELINE_ALL); // p.txn
 *	np_pipeline_free(&p);
 */
#ifndef NUMAPLACE_PIPELINE_H
#define NUMAPLACE_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "change/irqbalance.h"
#include "change/resolve.h"
#include "change/txn.h"

struct np_pipeline {
	struct np_resolved res; /* the changes (owned), and what resolving them left alone */
	struct np_irqban ban;   /* what is done about irqbalance */
	bool joined;            /* the ban is the last of res.changes */
	size_t nplaced;         /* once joined: the changes before it */
	struct np_txn txn;      /* the last transaction written (nchanges 0: nothing was) */
	struct np_txn recovered; /* what that write rolled back first (opts->recover): an
				  * unfinished transaction of its profile; id NULL: none */
	/* What res was resolved from (borrowed), resolved again after a change
	 * that resets queues; NULL: only such changes are written then, the
	 * others left to a later pass (hold's, which resolves the profile
	 * again). np_pipeline_resolve sets it. */
	const struct np_profile *prof;
	bool running;           /* the irqbalance decision's, made again then */
	enum np_irqb_mode mode;
};
#define NP_PIPELINE_ALL SIZE_MAX

/* The profile's changes on m into p->res. Errors as np_profile_resolve's
 * (-EINVAL: the profile does not fit this machine). */
int np_pipeline_resolve(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *prof,
			struct np_pipeline *p);
/* Changes made otherwise (a move's) instead: p owns them from now on
 * (*changes and *n are emptied). Such changes place no IRQ: there is
 * nothing to decide about irqbalance. */
void np_pipeline_take(struct np_pipeline *p, struct np_change **changes, size_t *n);
/* The irqbalance decision (np_irqban_plan) for the IRQs scope places
 * (NULL: p->res's changes): a hold pass decides over every value it
 * checked, drifted or not. running: an irqbalance process runs. Decided
 * again, the earlier decision is replaced. 0 or -errno (ctx->err). */
int np_pipeline_decide(struct np_ctx *ctx, struct np_pipeline *p, const struct np_change *scope, size_t nscope,
		       bool running, enum np_irqb_mode mode);
/* The ban joins the changes, last (once; nothing when none was decided), so
 * that when it cannot be written the transaction undoes the placement too.
 * 0 or -ENOMEM. */
int np_pipeline_join(struct np_pipeline *p);
/* Joins, then writes the first n changes (NP_PIPELINE_ALL: all, the ban
 * with them) as one transaction into p->txn (np_txn_apply; an earlier
 * one freed first), and what it recovered first into p->recovered.
 * 0 or -errno, ctx->err saying what was left; -EINTR when a terminating
 * signal (opts->stop, change/stop.h) stopped it: nothing changed. After a
 * change that resets queues, p->res and p->ban hold what was resolved and
 * decided again (the first changes those that reset). */
int np_pipeline_write(struct np_ctx *ctx, struct np_pipeline *p, const struct np_txn_opts *opts, const char *name,
		      size_t n);
void np_pipeline_free(struct np_pipeline *p);

/* For np_pipeline_write only (pipeline-reset.c): when the first count
 * changes hold one that resets queues and differs from the machine's, the
 * write in two steps as said above: 0 or -errno; 1 when there is none (the
 * caller writes them as they are). */
int pipeline_write_reset(struct np_ctx *ctx, struct np_pipeline *p, const struct np_txn_opts *opts, const char *name,
			 size_t count);

#endif
