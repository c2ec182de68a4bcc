/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "change/pipeline.h"

#include <errno.h>
#include <string.h>

int np_pipeline_resolve(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *prof,
			struct np_pipeline *p)
{
	p->prof = prof;
	return np_profile_resolve(ctx, m, prof, &p->res);
}

void np_pipeline_take(struct np_pipeline *p, struct np_change **changes, size_t *n)
{
	p->res.changes = *changes;
	p->res.n = *n;
	*changes = NULL;
	*n = 0;
}

int np_pipeline_decide(struct np_ctx *ctx, struct np_pipeline *p, const struct np_change *scope, size_t nscope,
		       bool running, enum np_irqb_mode mode)
{
	np_irqban_free(&p->ban);
	p->running = running;
	p->mode = mode;
	if (!scope) {
		scope = p->res.changes;
		nscope = p->joined ? p->nplaced : p->res.n;
	}
	return np_irqban_plan(ctx, running, scope, nscope, mode, &p->ban);
}

int np_pipeline_join(struct np_pipeline *p)
{
	if (p->joined)
		return 0;
	size_t n = p->res.n;
	if (np_irqban_take(&p->ban, &p->res.changes, &p->res.n))
		return -ENOMEM;
	p->joined = true;
	p->nplaced = n;
	return 0;
}

int np_pipeline_write(struct np_ctx *ctx, struct np_pipeline *p, const struct np_txn_opts *opts, const char *name,
		      size_t n)
{
	struct np_txn_opts o = opts ? *opts : (struct np_txn_opts){ 0 };
	np_txn_free(&p->txn);
	np_txn_free(&p->recovered);
	if (np_pipeline_join(p))
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	o.recovered = &p->recovered;
	size_t count = n < p->res.n ? n : p->res.n;
	int rc = pipeline_write_reset(ctx, p, &o, name, count);
	return rc <= 0 ? rc : np_txn_apply(ctx, &o, name, p->res.changes, count, &p->txn);
}

void np_pipeline_free(struct np_pipeline *p)
{
	np_txn_free(&p->txn);
	np_txn_free(&p->recovered);
	np_irqban_free(&p->ban);
	np_resolved_free(&p->res);
	memset(p, 0, sizeof(*p));
}
