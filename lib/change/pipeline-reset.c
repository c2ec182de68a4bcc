/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pipeline's write when a change resets an interface's queues (a
 * channel count, attr.h's resets_queues): that change first, then the
 * profile resolved again on the machine as the driver left it, so that the
 * IRQ, XPS and RPS values are found by queue (ixgbe and i40e re-request
 * their vectors, IRQ numbers change; virtio-net rewrites every queue's IRQ
 * affinity and XPS), as hold finds a re-probed device's. One transaction:
 * the later values' old ones are read after the reset, so a revert (which
 * restores the channels first, pipeline.h) treats the driver's own writes
 * as its, not someone else's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change/pipeline.h"

struct again {
	struct np_pipeline *p;
	bool with_ban;          /* the ban is among the changes written */
	bool called;
	struct np_resolved res; /* resolved again: the values, then the ban */
	size_t nvalues;
	struct np_irqban ban;
};

static bool resets(const struct np_change *c)
{
	return np_attrs[c->attr].resets_queues;
}

/* Moves the changes that reset queues to the front of c[0..n), the others
 * kept in their order (the ban last): how many there are. */
static size_t resets_first(struct np_change *c, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!resets(&c[i]))
			continue;
		struct np_change t = c[i];
		memmove(&c[k + 1], &c[k], (i - k) * sizeof(*c));
		c[k++] = t;
	}
	return k;
}

/* The transaction's second batch (np_txn_opts.more): the profile resolved
 * again on the machine read again, but for the resets (written), and the
 * irqbalance decision made again for the IRQs it places now. */
static int resolved_again(struct np_ctx *ctx, void *arg, struct np_change **changes, size_t *n)
{
	struct again *a = arg;
	struct np_machine m;
	*changes = NULL;
	*n = 0;
	if (a->called)
		return 0;
	a->called = true;
	int rc = np_machine_load_some(ctx, &m, NP_LOAD_NO_NAMES | NP_LOAD_NO_PROCESSES);
	if (rc == 0) {
		rc = np_profile_resolve(ctx, &m, a->p->prof, &a->res);
		np_machine_free(&m);
	}
	if (rc) {
		char detail[sizeof(ctx->err)];
		snprintf(detail, sizeof(detail), "%s", ctx->err);
		return np_fail(ctx, rc, "once the channels were changed: %s", detail);
	}
	size_t k = 0;
	for (size_t i = 0; i < a->res.n; i++) {
		if (resets(&a->res.changes[i]))
			np_change_free(&a->res.changes[i]);
		else
			a->res.changes[k++] = a->res.changes[i];
	}
	a->res.n = a->nvalues = k;
	if ((rc = np_irqban_plan(ctx, a->p->running, a->res.changes, a->res.n, a->p->mode, &a->ban)))
		return rc;
	if (np_irqban_take(&a->ban, &a->res.changes, &a->res.n))
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	*changes = a->res.changes;
	*n = a->with_ban ? a->res.n : a->nvalues;
	return 0;
}

/* p's changes from first on become what was resolved again: p->res and
 * p->ban say what the write did. */
static int take_again(struct np_pipeline *p, size_t first, struct again *a)
{
	struct np_change *v = realloc(p->res.changes, (first + a->res.n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->res.changes = v;
	for (size_t i = first; i < p->res.n; i++)
		np_change_free(&v[i]);
	if (a->res.n)
		memcpy(v + first, a->res.changes, a->res.n * sizeof(*v));
	p->res.n = first + a->res.n;
	p->nplaced = first + a->nvalues;
	free(a->res.changes);
	a->res.changes = NULL;
	a->res.n = 0;
	np_irqban_free(&p->ban);
	p->ban = a->ban;
	memset(&a->ban, 0, sizeof(a->ban));
	return 0;
}

int pipeline_write_reset(struct np_ctx *ctx, struct np_pipeline *p, const struct np_txn_opts *opts, const char *name,
			 size_t count)
{
	size_t first = resets_first(p->res.changes, count);
	/* A write that hands more itself (a move's) has no channels. */
	if (!first || (opts && opts->more))
		return 1;
	bool differs = false;
	for (size_t i = 0; i < first; i++) {
		const struct np_change *c = &p->res.changes[i];
		int same = np_value_matches(ctx, c->path, np_attrs[c->attr].value, c->new_value);
		if (same < 0)
			return same;
		differs |= !same;
	}
	if (!differs)
		return 1;
	/* Nothing to resolve the others again from (hold's drifted values):
	 * the resets alone, the others left to the next pass, which finds them
	 * by queue on the machine as the reset left it. */
	if (!p->prof) {
		np_irqban_free(&p->ban); /* the IRQs it was decided for come with the others */
		return np_txn_apply(ctx, opts, name, p->res.changes, first, &p->txn);
	}
	struct again a = { .p = p, .with_ban = count == p->res.n };
	struct np_txn_opts o = opts ? *opts : (struct np_txn_opts){ 0 };
	o.more = resolved_again;
	o.more_arg = &a;
	int rc = np_txn_apply(ctx, &o, name, p->res.changes, first, &p->txn);
	if (rc == 0 && !a.called) {
		/* Another writer set the channels meanwhile: nothing was reset. */
		np_txn_free(&p->txn);
		rc = np_txn_apply(ctx, opts, name, p->res.changes + first, count - first, &p->txn);
	} else if (a.called && take_again(p, first, &a) && rc == 0) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	np_resolved_free(&a.res);
	np_irqban_free(&a.ban);
	return rc;
}
