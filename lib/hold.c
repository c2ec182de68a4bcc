#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hold.h"
#include "irqbalance.h"
#include "resolve.h"
#include "sysfs.h"

static const struct np_pci_dev *owner(const struct np_machine *m, const char *device)
{
	for (size_t i = 0; i < m->pci.ndevs; i++) {
		const struct np_pci_dev *d = &m->pci.devs[i];
		if (!strcmp(d->addr, device))
			return d;
		for (size_t j = 0; j < d->nnet; j++)
			if (!strcmp(d->net[j].name, device))
				return d;
		for (size_t j = 0; j < d->nblock; j++)
			if (!strcmp(d->block[j].name, device))
				return d;
	}
	return NULL;
}

/* Whether c belongs to device or to the PCI function d that owns it. */
static bool concerns(const struct np_change *c, const char *device, const struct np_pci_dev *d)
{
	const struct np_target *t = &c->target;
	if ((t->net && !strcmp(t->net, device)) || (t->block && !strcmp(t->block, device)))
		return true;
	if (!d)
		return false;
	if (t->irq >= 0) {
		if (t->irq == d->legacy_irq)
			return true;
		for (size_t i = 0; i < d->nmsi; i++)
			if (d->msi_irqs[i] == t->irq)
				return true;
	}
	for (size_t j = 0; t->net && j < d->nnet; j++)
		if (!strcmp(d->net[j].name, t->net))
			return true;
	for (size_t j = 0; t->block && j < d->nblock; j++)
		if (!strcmp(d->block[j].name, t->block))
			return true;
	return false;
}

static struct np_hold_file *file_get(struct np_hold *h, const char *path)
{
	for (size_t i = 0; i < h->nfiles; i++)
		if (!strcmp(h->files[i].path, path))
			return &h->files[i];
	struct np_hold_file *more = realloc(h->files, (h->nfiles + 1) * sizeof(*more));
	if (!more)
		return NULL;
	h->files = more;
	struct np_hold_file *f = &h->files[h->nfiles];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(path)))
		return NULL;
	h->nfiles++;
	return f;
}

/* Who most likely writes the file back: what the log line tells the user. */
static char *culprit(struct np_ctx *ctx, const struct np_machine *m, const struct np_change *c)
{
	char buf[512];
	if (c->attr == NP_ATTR_IRQ_AFFINITY) {
		char *text = NULL, *out = NULL;
		int *added = NULL;
		size_t nadded = 0;
		bool banned = false;
		if (!np_read_text(ctx, &text, "%s", NP_IRQBALANCE_CONFIG) &&
		    !np_irqbalance_ban_text(ctx, text, &c->target.irq, 1, &out, &added, &nadded))
			banned = out == NULL;
		free(text);
		free(out);
		free(added);
		if (m->irqbalance && !banned)
			snprintf(buf, sizeof(buf), "irqbalance is running and IRQ %d is not banned: ban it "
				 "(--irqbalance=ban, or --banirq=%d in " NP_IRQBALANCE_CONFIG ") or stop irqbalance",
				 c->target.irq, c->target.irq);
		else if (m->irqbalance)
			snprintf(buf, sizeof(buf), "irqbalance is running with IRQ %d banned, so its driver or another "
				 "tool rewrites it (was irqbalance restarted since the ban?)", c->target.irq);
		else
			snprintf(buf, sizeof(buf), "the driver (re-requesting its vectors) or another tuning tool "
				 "(tuned, CRI-O) rewrites IRQ %d's affinity", c->target.irq);
	} else {
		snprintf(buf, sizeof(buf), "another tuning tool (tuned, CRI-O, a network or udev script) rewrites %s",
			 c->path);
	}
	return strdup(buf);
}

static void drift_free(struct np_hold_drift *d)
{
	free(d->path);
	free(d->subject);
	free(d->current);
	free(d->wanted);
	free(d->culprit);
}

void np_hold_result_free(struct np_hold_result *r)
{
	for (size_t i = 0; i < r->ndrift; i++)
		drift_free(&r->drift[i]);
	free(r->drift);
	for (size_t i = 0; i < r->nmissing; i++)
		free(r->missing[i]);
	free(r->missing);
	np_txn_free(&r->txn);
	memset(r, 0, sizeof(*r));
}

void np_hold_free(struct np_hold *h)
{
	for (size_t i = 0; i < h->nfiles; i++)
		free(h->files[i].path);
	free(h->files);
	h->files = NULL;
	h->nfiles = 0;
}

static int add_drift(struct np_hold_result *r, const struct np_change *c, char *current)
{
	struct np_hold_drift *more = realloc(r->drift, (r->ndrift + 1) * sizeof(*more));
	if (!more) {
		free(current);
		return -ENOMEM;
	}
	r->drift = more;
	struct np_hold_drift *d = &r->drift[r->ndrift++];
	memset(d, 0, sizeof(*d));
	d->current = current;
	d->path = strdup(c->path);
	d->subject = strdup(c->subject);
	d->wanted = strdup(c->new_value);
	return d->path && d->subject && d->wanted ? 0 : -ENOMEM;
}

static int add_missing(struct np_hold_result *r, const char *subject)
{
	char **more = realloc(r->missing, (r->nmissing + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	r->missing = more;
	return (r->missing[r->nmissing++] = strdup(subject)) ? 0 : -ENOMEM;
}

/* Decides what to do with a drifted file: fix it now, wait for the
 * once-a-second limit, or leave it alone (given up earlier). */
static int decide(struct np_hold *h, const char *path, long long now, long long *wait)
{
	struct np_hold_file *f = file_get(h, path);
	if (!f)
		return -ENOMEM;
	if (f->given_up)
		return NP_HOLD_LEFT_ALONE;
	if (f->tries[0] && now - f->tries[0] < NP_HOLD_MIN_GAP_MS) {
		long long w = NP_HOLD_MIN_GAP_MS - (now - f->tries[0]);
		if (!*wait || w < *wait)
			*wait = w;
		return NP_HOLD_WAIT;
	}
	return NP_HOLD_FIX;
}

/* Records a write; true when the file has now been written back
 * NP_HOLD_FIGHT_TRIES times within the window. */
static bool record_try(struct np_hold *h, const char *path, long long now)
{
	struct np_hold_file *f = file_get(h, path);
	if (!f)
		return false;
	memmove(&f->tries[1], &f->tries[0], (NP_HOLD_FIGHT_TRIES - 1) * sizeof(f->tries[0]));
	f->tries[0] = now;
	long long oldest = f->tries[NP_HOLD_FIGHT_TRIES - 1];
	if (oldest && now - oldest <= NP_HOLD_FIGHT_WINDOW_MS)
		f->given_up = true;
	return f->given_up;
}

/* Moves what part resolved to the end of all. */
static int take(struct np_resolved *all, struct np_resolved *part)
{
	struct np_change *c = realloc(all->changes, (all->n + part->n + 1) * sizeof(*c));
	char **w = c ? realloc(all->warnings, (all->nwarnings + part->nwarnings + 1) * sizeof(*w)) : NULL;
	if (c)
		all->changes = c;
	if (!w) {
		np_resolved_free(part);
		return -ENOMEM;
	}
	all->warnings = w;
	if (part->n)
		memcpy(all->changes + all->n, part->changes, part->n * sizeof(*c));
	if (part->nwarnings)
		memcpy(all->warnings + all->nwarnings, part->warnings, part->nwarnings * sizeof(*w));
	all->n += part->n;
	all->nwarnings += part->nwarnings;
	free(part->changes);
	free(part->warnings);
	memset(part, 0, sizeof(*part));
	return 0;
}

/* The profile resolved as far as the machine allows: when it does not fit
 * as a whole (a device it names has left), each setting and the rules are
 * resolved on their own, and what does not fit is listed as missing, so
 * one vanished NIC does not stop the others from being held. In order, so
 * a later entry for the same file still wins. */
static int resolve_tolerant(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
			    struct np_resolved *out, struct np_hold_result *r)
{
	int rc = np_profile_resolve(ctx, m, p, out);
	if (rc != -EINVAL)
		return rc;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i <= p->nsettings; i++) {
		struct np_profile one = *p;
		struct np_resolved part;
		if (i < p->nsettings) {
			one.settings = &p->settings[i];
			one.nsettings = 1;
			one.nrules = 0;
		} else if (p->nrules) {
			one.nsettings = 0;
		} else {
			break;
		}
		rc = np_profile_resolve(ctx, m, &one, &part);
		if (rc == -EINVAL) {
			if ((rc = add_missing(r, ctx->err)))
				goto fail;
			continue;
		}
		if (rc || (rc = take(out, &part)))
			goto fail;
	}
	return 0;
fail:
	np_resolved_free(out);
	return rc == -ENOMEM ? np_fail(ctx, rc, "%s", strerror(ENOMEM)) : rc;
}

int np_hold_pass(struct np_ctx *ctx, struct np_hold *h, const struct np_profile *p, const char *device,
		 const char *cause, long long now_ms, struct np_hold_result *r)
{
	struct np_machine m;
	struct np_resolved res;
	struct np_change *fix = NULL;
	size_t nfix = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = np_machine_load_some(ctx, &m, NP_LOAD_NO_NAMES)))
		return rc;
	if ((rc = resolve_tolerant(ctx, &m, p, &res, r))) {
		np_machine_free(&m);
		return rc;
	}
	const struct np_pci_dev *d = device ? owner(&m, device) : NULL;
	if (!(fix = calloc(res.n ? res.n : 1, sizeof(*fix)))) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	for (size_t i = 0; i < res.n; i++) {
		const struct np_change *c = &res.changes[i];
		if (device && !concerns(c, device, d))
			continue;
		r->checked++;
		char *cur = NULL;
		int match = np_value_matches_current(ctx, c->path, np_attrs[c->attr].value, c->new_value, &cur);
		if (match < 0) {
			/* Gone between the load and now: the device is leaving. */
			if ((rc = add_missing(r, c->subject)))
				goto nomem;
			continue;
		}
		if (match) {
			free(cur);
			continue;
		}
		cur[strcspn(cur, "\n")] = '\0';
		if ((rc = add_drift(r, c, cur)))
			goto nomem;
		int what = decide(h, c->path, now_ms, &r->retry_ms);
		if (what < 0) {
			rc = what;
			goto nomem;
		}
		r->drift[r->ndrift - 1].what = what;
		if (what == NP_HOLD_FIX)
			fix[nfix++] = *c; /* shallow: res owns the strings (see below) */
	}
	if (h->report_only || !nfix)
		goto out;
	struct np_txn_opts opts = h->txn;
	opts.cause = cause;
	rc = np_txn_apply(ctx, &opts, p->name, fix, nfix, &r->txn);
	/* The apply fills in each change's old_value: hand those to res to free. */
	for (size_t i = 0, j = 0; i < nfix; i++) {
		while (strcmp(res.changes[j].path, fix[i].path))
			j++;
		res.changes[j].old_value = fix[i].old_value;
	}
	if (rc)
		goto out;
	for (size_t i = 0; i < r->txn.nchanges; i++) {
		const struct np_change *c = &r->txn.changes[i];
		if (!record_try(h, c->path, now_ms))
			continue;
		for (size_t j = 0; j < r->ndrift; j++)
			if (!strcmp(r->drift[j].path, c->path) && !r->drift[j].culprit &&
			    !(r->drift[j].culprit = culprit(ctx, &m, c))) {
				rc = -ENOMEM;
				goto nomem;
			}
	}
	goto out;
nomem:
	if (rc == -ENOMEM)
		np_fail(ctx, rc, "%s", strerror(ENOMEM));
out:
	free(fix);
	np_resolved_free(&res);
	np_machine_free(&m);
	return rc;
}
