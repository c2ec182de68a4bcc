/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change/hold.h"
#include "change/irqbalance.h"
#include "change/pipeline.h"
#include "read/sysfs.h"

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

static struct np_hold_device *device_get(struct np_hold *h, const char *key)
{
	for (size_t i = 0; i < h->ndevices; i++)
		if (!strcmp(h->devices[i].key, key))
			return &h->devices[i];
	struct np_hold_device *more = realloc(h->devices, (h->ndevices + 1) * sizeof(*more));
	if (!more)
		return NULL;
	h->devices = more;
	struct np_hold_device *dev = &h->devices[h->ndevices];
	memset(dev, 0, sizeof(*dev));
	if (!(dev->key = strdup(key)))
		return NULL;
	h->ndevices++;
	return dev;
}

/* The device c belongs to (see hold.h), named as the log shows it:
 * "0000:23:00.0 (eth4)", "veth0", "irq 40", or the file. */
static char *device_of(const struct np_machine *m, const struct np_change *c)
{
	const struct np_target *t = &c->target;
	const struct np_pci_dev *d = NULL;
	char buf[512];
	if (t->irq >= 0) {
		const struct np_irq *irq = np_irqs_find((struct np_irqs *)&m->irqs, t->irq);
		if (irq && irq->dev >= 0)
			d = &m->pci.devs[irq->dev];
	} else if (t->net || t->block) {
		d = owner(m, t->net ? t->net : t->block);
	}
	if (!d) {
		if (t->net || t->block)
			return strdup(t->net ? t->net : t->block);
		if (t->irq >= 0) {
			snprintf(buf, sizeof(buf), "irq %d", t->irq);
			return strdup(buf);
		}
		return strdup(c->path);
	}
	/* Its interfaces and block devices: what the user knows it by. */
	size_t len = (size_t)snprintf(buf, sizeof(buf), "%s", d->addr);
	for (size_t i = 0; i < d->nnet + d->nblock && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ", " : " (",
					i < d->nnet ? d->net[i].name : d->block[i - d->nnet].name);
	if (d->nnet + d->nblock && len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len, ")");
	return strdup(buf);
}

/* Who most likely rewrites a device, from what drifted on it this pass
 * (changes: n of them): what the log line tells the user. */
static char *culprit(struct np_ctx *ctx, const struct np_machine *m, const struct np_change *const *changes,
		     size_t n)
{
	char buf[PATH_MAX + 1024];
	const struct np_change *c = changes[0];
	for (size_t i = 0; i < n; i++)
		if (changes[i]->attr == NP_ATTR_IRQ_AFFINITY) {
			c = changes[i];
			break;
		}
	if (c->attr == NP_ATTR_IRQ_AFFINITY) {
		char *text = NULL, *out = NULL;
		int *added = NULL;
		size_t nadded = 0;
		bool banned = false;
		struct np_irqb_conf conf;
		if (np_irqbalance_conf_find(ctx, &conf))
			return NULL;
		if (!np_read_text(ctx, &text, "%s", conf.path) &&
		    !np_irqbalance_ban_text(ctx, text, conf.var, &c->target.irq, 1, &out, &added, &nadded))
			banned = out == NULL;
		free(text);
		free(out);
		free(added);
		if (m->irqbalance && !banned)
			snprintf(buf, sizeof(buf), "irqbalance is running and IRQ %d is not banned: ban it "
				 "(--irqbalance=ban, or --banirq=%d in %s of %s) or stop irqbalance",
				 c->target.irq, c->target.irq, conf.var, conf.path);
		else if (m->irqbalance)
			snprintf(buf, sizeof(buf), "irqbalance is running with IRQ %d banned, so its driver or another "
				 "tool rewrites it (was irqbalance restarted since the ban?)", c->target.irq);
		else
			snprintf(buf, sizeof(buf), "the driver (re-requesting its vectors) or another tuning tool "
				 "(tuned, CRI-O) rewrites IRQ %d's affinity", c->target.irq);
	} else {
		snprintf(buf, sizeof(buf), "another tuning tool (tuned, CRI-O, a network or udev script) rewrites %s%s",
			 c->path, n > 1 ? " and more of its files" : "");
	}
	return strdup(buf);
}

static void drift_free(struct np_hold_drift *d)
{
	free(d->path);
	free(d->subject);
	free(d->current);
	free(d->wanted);
	free(d->device);
}

void np_hold_result_free(struct np_hold_result *r)
{
	for (size_t i = 0; i < r->ndrift; i++)
		drift_free(&r->drift[i]);
	free(r->drift);
	for (size_t i = 0; i < r->nmissing; i++)
		free(r->missing[i]);
	free(r->missing);
	for (size_t i = 0; i < r->ngave_up; i++) {
		free(r->gave_up[i].device);
		free(r->gave_up[i].culprit);
	}
	free(r->gave_up);
	free(r->finished);
	np_irqban_free(&r->ban);
	np_txn_free(&r->txn);
	np_txn_free(&r->recovered);
	memset(r, 0, sizeof(*r));
}

void np_hold_free(struct np_hold *h)
{
	if (h->loaded)
		np_machine_free(&h->machine);
	h->loaded = false;
	for (size_t i = 0; i < h->ndevices; i++)
		free(h->devices[i].key);
	free(h->devices);
	h->devices = NULL;
	h->ndevices = 0;
}

static int add_drift(struct np_hold_result *r, const struct np_change *c, char *current, char *device)
{
	struct np_hold_drift *more = realloc(r->drift, (r->ndrift + 1) * sizeof(*more));
	if (!more) {
		free(current);
		free(device);
		return -ENOMEM;
	}
	r->drift = more;
	struct np_hold_drift *d = &r->drift[r->ndrift++];
	memset(d, 0, sizeof(*d));
	d->current = current;
	d->device = device;
	d->path = strdup(c->path);
	d->subject = strdup(c->subject);
	d->wanted = strdup(c->new_value);
	return d->path && d->subject && d->wanted && d->device ? 0 : -ENOMEM;
}

static int add_missing(struct np_hold_result *r, const char *subject)
{
	char **more = realloc(r->missing, (r->nmissing + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	r->missing = more;
	return (r->missing[r->nmissing++] = strdup(subject)) ? 0 : -ENOMEM;
}

/* Decides what to do with a drifted value of device: fix it now, wait
 * for the device's once-a-second limit, or leave it alone (given up). */
static int decide(struct np_hold *h, const char *device, long long now, long long *wait)
{
	struct np_hold_device *dev = device_get(h, device);
	if (!dev)
		return -ENOMEM;
	if (dev->given_up)
		return NP_HOLD_LEFT_ALONE;
	if (dev->tries[0] && now - dev->tries[0] < NP_HOLD_MIN_GAP_MS) {
		long long w = NP_HOLD_MIN_GAP_MS - (now - dev->tries[0]);
		if (!*wait || w < *wait)
			*wait = w;
		return NP_HOLD_WAIT;
	}
	return NP_HOLD_FIX;
}

/* Records a re-apply of device; true when it has now been re-applied
 * NP_HOLD_FIGHT_TRIES times within the window, each after drifting back. */
static bool record_try(struct np_hold *h, const char *device, long long now)
{
	struct np_hold_device *dev = device_get(h, device);
	if (!dev)
		return false;
	memmove(&dev->tries[1], &dev->tries[0], (NP_HOLD_FIGHT_TRIES - 1) * sizeof(dev->tries[0]));
	dev->tries[0] = now;
	long long oldest = dev->tries[NP_HOLD_FIGHT_TRIES - 1];
	if (oldest && now - oldest <= NP_HOLD_FIGHT_WINDOW_MS)
		dev->given_up = true;
	return dev->given_up;
}

/* After the re-apply: one try for each device it wrote (changes, each of
 * devices[i]), and the devices given up on, with their likely culprit,
 * into r. */
static int record_devices(struct np_ctx *ctx, struct np_hold *h, struct np_machine *m,
			  const struct np_change *const *changes, const char *const *devices, size_t n,
			  long long now, struct np_hold_result *r)
{
	const struct np_change **mine = calloc(n + 1, sizeof(*mine));
	if (!mine)
		return -ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(devices[j], devices[i]);
		if (seen || !record_try(h, devices[i], now))
			continue;
		if (!m->irqbalance_known && (rc = np_machine_find_irqbalance(ctx, m)))
			break;
		size_t nmine = 0;
		for (size_t j = i; j < n; j++)
			if (!strcmp(devices[j], devices[i]))
				mine[nmine++] = changes[j];
		struct np_hold_giveup *more = realloc(r->gave_up, (r->ngave_up + 1) * sizeof(*more));
		if (!more) {
			rc = -ENOMEM;
			break;
		}
		r->gave_up = more;
		struct np_hold_giveup *g = &r->gave_up[r->ngave_up++];
		g->device = strdup(devices[i]);
		g->culprit = culprit(ctx, m, mine, nmine);
		if (!g->device || !g->culprit)
			rc = -ENOMEM;
	}
	free(mine);
	return rc;
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

/* The irqbalance decision for the IRQs the profile places on what this pass
 * checked (scope), as the first apply made it: a device re-probed with new
 * IRQ numbers has them banned in the transaction that places them. Whether
 * irqbalance runs is looked up only when the file is missing (it decides
 * whether to warn), not at every pass. */
static int plan_ban(struct np_ctx *ctx, struct np_hold *h, struct np_machine *m, const struct np_change *scope,
		    size_t nscope, struct np_pipeline *w)
{
	int rc = np_pipeline_decide(ctx, w, scope, nscope, m->irqbalance_known && m->irqbalance, h->irqbalance);
	if (rc || w->ban.ban || w->ban.banned || !w->ban.nirqs || m->irqbalance_known)
		return rc;
	if ((rc = np_machine_find_irqbalance(ctx, m)))
		return rc;
	return np_pipeline_decide(ctx, w, scope, nscope, m->irqbalance, h->irqbalance);
}

/* The pass's result of its write: the transaction, and the ban with its
 * change (the subject hold logs, the text it replaced). */
static void take_write(struct np_pipeline *w, struct np_hold_result *r)
{
	r->txn = w->txn;
	memset(&w->txn, 0, sizeof(w->txn));
	r->recovered = w->recovered;
	memset(&w->recovered, 0, sizeof(w->recovered));
	r->ban = w->ban;
	memset(&w->ban, 0, sizeof(w->ban));
	if (r->ban.ban && w->joined && w->res.n > w->nplaced) {
		np_change_free(&r->ban.change);
		r->ban.change = w->res.changes[--w->res.n];
	}
}

int np_hold_pass(struct np_ctx *ctx, struct np_hold *h, const struct np_profile *p, const char *device,
		 const char *cause, long long now_ms, struct np_hold_result *r)
{
	struct np_resolved res;
	/* The values to re-apply, taken from res, and the ban: this pass's write. */
	struct np_pipeline w = { 0 };
	struct np_change *fix = NULL;
	size_t nfix = 0, *fix_drift = NULL; /* fix[i]'s entry in r->drift */
	const struct np_change **written = NULL;
	const char **devices = NULL;
	int rc;

	memset(r, 0, sizeof(*r));
	if (h->unfinished && !h->report_only) {
		/* Forced: the values are hold's own, and the profile's come next. */
		rc = np_txn_revert(ctx, &h->txn, h->unfinished, true, NULL);
		if (rc && rc != -ESTALE) {
			char detail[sizeof(ctx->err)];
			snprintf(detail, sizeof(detail), "%s", ctx->err);
			return np_fail(ctx, rc, "transaction %s, left pending by an earlier re-apply, cannot be "
				       "finished yet: %s", h->unfinished, detail);
		}
		r->finished = h->unfinished;
		h->unfinished = NULL;
	}
	/* Neither names nor processes: a pass shows no name, and only a
	 * culprit needs to know whether irqbalance runs (record_devices). A
	 * device event leaves CPUs and nodes as they were; the check of every
	 * device (each --interval) reads them again. */
	const unsigned skip = NP_LOAD_NO_NAMES | NP_LOAD_NO_PROCESSES | NP_LOAD_NO_CPU_TIME;
	if (device && h->loaded) {
		rc = np_machine_reload_devices(ctx, &h->machine, skip);
	} else {
		if (h->loaded)
			np_machine_free(&h->machine);
		rc = np_machine_load_some(ctx, &h->machine, skip);
	}
	h->loaded = rc == 0;
	if (rc)
		return rc;
	struct np_machine *m = &h->machine;
	if ((rc = resolve_tolerant(ctx, m, p, &res, r)))
		return rc;
	const struct np_pci_dev *d = device ? owner(m, device) : NULL;
	struct np_change *scope = NULL; /* the changes this pass checks, shallow */
	size_t nscope = 0;
	fix = calloc(res.n + 1, sizeof(*fix));
	fix_drift = calloc(res.n + 1, sizeof(*fix_drift));
	scope = calloc(res.n + 1, sizeof(*scope));
	if (!fix || !fix_drift || !scope) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	for (size_t i = 0; i < res.n; i++) {
		const struct np_change *c = &res.changes[i];
		if (device && !concerns(c, device, d))
			continue;
		r->checked++;
		scope[nscope++] = *c;
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
		if ((rc = add_drift(r, c, cur, device_of(m, c))))
			goto nomem;
		int what = decide(h, r->drift[r->ndrift - 1].device, now_ms, &r->retry_ms);
		if (what < 0) {
			rc = what;
			goto nomem;
		}
		r->drift[r->ndrift - 1].what = what;
		if (what == NP_HOLD_FIX) {
			/* Moved to the write (scope still borrows its strings). */
			fix_drift[nfix] = r->ndrift - 1;
			fix[nfix++] = *c;
			res.changes[i] = (struct np_change){ .target = NP_TARGET_NONE };
		}
	}
	np_pipeline_take(&w, &fix, &nfix);
	if (h->report_only)
		goto out;
	if ((rc = plan_ban(ctx, h, m, scope, nscope, &w)))
		goto out;
	size_t nvalues = w.res.n;
	if (!nvalues && !w.ban.ban)
		goto out;
	struct np_txn_opts opts = h->txn;
	opts.cause = cause;
	opts.session = h->session;
	rc = np_pipeline_write(ctx, &w, &opts, p->name, NP_PIPELINE_ALL);
	take_write(&w, r);
	if (rc && r->txn.id && r->txn.state == NP_TXN_PENDING && !h->unfinished)
		h->unfinished = strdup(r->txn.id); /* NULL (ENOMEM): the next apply says it is pending */
	if (rc)
		goto out;
	if (r->txn.nchanges && !h->session && !(h->session = strdup(r->txn.id))) {
		rc = -ENOMEM;
		goto nomem;
	}
	/* What was written: a value back in place by the time of the apply was not. */
	written = calloc(nvalues + 1, sizeof(*written));
	devices = calloc(nvalues + 1, sizeof(*devices));
	if (!written || !devices) {
		rc = -ENOMEM;
		goto nomem;
	}
	size_t nwritten = 0;
	for (size_t i = 0; i < nvalues; i++)
		for (size_t j = 0; j < r->txn.nchanges; j++)
			if (!strcmp(r->txn.changes[j].path, w.res.changes[i].path)) {
				written[nwritten] = &w.res.changes[i];
				devices[nwritten++] = r->drift[fix_drift[i]].device;
				break;
			}
	rc = record_devices(ctx, h, m, written, devices, nwritten, now_ms, r);
	if (rc)
		goto nomem;
	goto out;
nomem:
	if (rc == -ENOMEM)
		np_fail(ctx, rc, "%s", strerror(ENOMEM));
out:
	free(scope);
	for (size_t i = 0; i < nfix; i++)
		np_change_free(&fix[i]);
	free(fix);
	free(fix_drift);
	free(written);
	free(devices);
	np_pipeline_free(&w);
	np_resolved_free(&res);
	return rc;
}
