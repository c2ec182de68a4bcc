/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Keeping a profile applied: one pass re-resolves the profile on the
 * machine as it is now, finds the values that drifted (for every device, or
 * for the one an event named), and re-applies them as one small
 * transaction. Between passes it remembers, per device, when it last
 * re-applied it: a device is re-applied at most once a second, and a device
 * that drifts back after each of NP_HOLD_FIGHT_TRIES re-applies within a
 * minute is being fought over (irqbalance, a driver, another tuning tool)
 * and left alone. A device is a PCI function with its interfaces, block
 * devices and IRQs (what a driver re-requests together), else an interface,
 * block device or IRQ of no PCI function, else the file of a machine-wide
 * setting. */
#ifndef NUMAPLACE_HOLD_H
#define NUMAPLACE_HOLD_H

#include <stdbool.h>
#include <stddef.h>

#include "change/irqbalance.h"
#include "read/machine.h"
#include "change/profile.h"
#include "change/txn.h"

#define NP_HOLD_FIGHT_TRIES 5
#define NP_HOLD_FIGHT_WINDOW_MS 60000
#define NP_HOLD_MIN_GAP_MS 1000

/* What hold remembers of one device it re-applied. */
struct np_hold_device {
	char *key;                            /* see np_hold_result.gave_up */
	long long tries[NP_HOLD_FIGHT_TRIES]; /* monotonic ms of the latest re-applies, newest first */
	bool given_up;
};

struct np_hold {
	struct np_hold_device *devices;
	size_t ndevices;
	struct np_txn_opts txn;
	/* The id of this hold's first transaction (malloc'd; NULL until one
	 * wrote something): every re-apply names it as its session, so that
	 * the whole hold undoes as one (revert --session). */
	char *session;
	/* A re-apply's transaction left pending (malloc'd; NULL when none): its
	 * journal could not be rewritten (a full state directory). The next
	 * pass reverts it first, for no transaction may follow a pending one;
	 * until that succeeds every pass fails saying so, and holding goes on. */
	char *unfinished;
	bool report_only;
	/* As at the first apply, at each re-apply: the IRQs it places are
	 * banned in the same transaction (a re-probed device has new numbers). */
	enum np_irqb_mode irqbalance;
	/* The machine of the last pass: a pass over one device reads its
	 * devices and IRQs again and keeps the topology; a pass over all
	 * loads it whole. */
	struct np_machine machine;
	bool loaded;
};

/* One drifted value a pass found. */
struct np_hold_drift {
	char *path, *subject, *current, *wanted;
	char *device; /* the device it belongs to, as np_hold_giveup names it */
	enum { NP_HOLD_FIX, NP_HOLD_WAIT, NP_HOLD_LEFT_ALONE } what;
};

/* A device this pass gave up on. */
struct np_hold_giveup {
	char *device;  /* "0000:23:00.0 (eth4)", "eth9", "irq 40", or a file */
	char *culprit; /* who most likely rewrites it: the log line's advice */
};

struct np_hold_result {
	struct np_hold_drift *drift;
	size_t ndrift;
	size_t checked;       /* values of the profile that concern the device */
	char **missing;       /* what is gone (a device that left): a subject, or
			       * why a setting no longer fits the machine */
	size_t nmissing;
	struct np_hold_giveup *gave_up;
	size_t ngave_up;
	struct np_txn txn;    /* the re-apply; nchanges 0 when nothing was written */
	struct np_irqban ban; /* the irqbalance decision for the IRQs the pass placed */
	long long retry_ms;   /* > 0: a drifted device is rate limited; pass again after this */
	char *finished;       /* np_hold.unfinished, reverted by this pass; else NULL */
	struct np_txn recovered; /* an unfinished transaction of the profile (not this
				  * hold's: another's, killed), rolled back by the
				  * re-apply first (np_txn_opts.recover); id NULL: none */
};

/* One pass. device: an interface, block device or PCI address whose
 * values only are checked (with those of its PCI function: a re-created
 * interface comes with re-requested IRQs), NULL for all. cause: the
 * transaction's cause ("add net eth4"), which history shows. now_ms: CLOCK_MONOTONIC in ms. A setting that no longer fits (its
 * device left) is listed in r->missing and the rest is held. Returns 0
 * (see r) or the failing step's -errno, the detail in ctx->err. r is filled as far as it got; free with
 * np_hold_result_free. */
int np_hold_pass(struct np_ctx *ctx, struct np_hold *h, const struct np_profile *p, const char *device,
		 const char *cause, long long now_ms, struct np_hold_result *r);
void np_hold_result_free(struct np_hold_result *r);
/* Frees what hold remembers of the devices; the session stays (SIGHUP). */
void np_hold_free(struct np_hold *h);

#endif
