/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the planner (judge/advise) is asked and what it answers: each
 * device's policy and the CPUs kept free of IRQs in; a plan out, one record
 * per value it looked at (a change, or the value kept), each tagged with the
 * problem it fixes. */
#ifndef NUMAPLACE_PLAN_H
#define NUMAPLACE_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "change/attr.h"
#include "judge/forbidden.h"
#include "judge/policies.h"
#include "judge/rules.h"
#include "read/machine.h"

struct np_app;

/* What to do with one device; the command line gives every selected device
 * the same policy, profile rules give each its own. */
struct np_device_policy {
	bool selected;
	enum np_irq_policy irqs;    /* NP_IRQS_KEEP: leave its IRQs alone */
	struct np_cpuset irq_cpus;  /* NP_IRQS_CPUS */
	int rq_affinity;            /* NP_RQ_AUTO, NP_RQ_KEEP, or 0..2 to force */
	enum np_rps_policy rps;     /* NP_RPS_KEEP means "decide" when auto_net is set */
	bool xps_follow_irq;        /* XPS follows its IRQs whether they move or not (--xps, a profile's rule) */
	bool auto_net;              /* decide RPS and XPS by the advisor's rules (XPS: when its IRQs move) */
	enum np_channels_policy channels; /* judge its channel count, and carry it or only offer it */
};
#define NP_RQ_AUTO (-1)
#define NP_RQ_KEEP (-2)

struct np_advise_opts {
	const char *policy_name;     /* for the output: "local", "app", "spread", "profile" */
	struct np_cpuset app_cpus;   /* where the application runs (app policy, rq_affinity, RPS) */
	bool app_pinned;             /* its threads are bound to app_cpus (not merely allowed everywhere) */
	/* The CPUs kept free of IRQs by source, as the rules judge them; and
	 * the planner's share of them beyond isolated and nohz_full (the
	 * user's and, after np_advise_opts_forbid, the other sources'). */
	struct np_forbidden forbidden;
	struct np_cpuset exclude;
	struct np_device_policy *devices; /* one per m->pci.devs entry */
	bool devices_only;           /* the devices' settings only, nothing machine-wide
				      * (profile rules speak for the devices they match) */
	/* The caller shows the problems, never the plan's IRQ lines (report):
	 * their reasons are left empty ("") rather than written for no one. */
	bool no_irq_reasons;
	/* Interrupts a device must carry for its IRQs to move for locality or
	 * balance (0: any; a profile's rules always apply). An IRQ on a CPU the
	 * plan forbids moves whatever its volume. */
	unsigned long long min_interrupts;
	const struct np_app *app;    /* a process to judge too (lib/judge/app-place: NP_RULE_APP_*); NULL when none */
	/* The application is a process (--app-pid, app): RPS steers to its CPUs
	 * only on the NICs it uses (app_devices, per device; NULL: none known). */
	bool app_is_process;
	const bool *app_devices;
};

/* The command line's policy for every device selected (selected: one per
 * PCI function), and the machine's forbidden CPUs with o->exclude as the
 * user's: what advise and report judge by. Free with np_advise_opts_free
 * (also after a failure). */
int np_advise_opts_for(const struct np_machine *m, enum np_irq_policy irqs, const bool *selected,
		       struct np_advise_opts *o);
void np_advise_opts_free(struct np_advise_opts *o);
/* Makes the sources beyond isolated, nohz_full and the user's forbidden to
 * every movable IRQ of the plan o describes (adds them to o->exclude): TuneD's
 * and irqbalance's CPUs as they are, the containers' exclusive CPUs after a
 * guard: clearing
 * them must not rebuild a pile-up elsewhere, so a device whose queues
 * would hold more than their share plus one per remaining core (its share:
 * its queues over the cores of its target with the exclusive CPUs) keeps
 * its IRQs where they are (NP_IRQS_KEEP), said in a warning appended to
 * *warnings. Returns 0 or -ENOMEM. */
int np_advise_opts_forbid(const struct np_machine *m, struct np_advise_opts *o, char ***warnings, size_t *nwarnings);

/* Appends text (malloc'd, taken; NULL: out of memory) to the list *v of *n. 0 or -ENOMEM. */
int np_texts_take(char ***v, size_t *n, char *text);

/* One change (or a value kept) and the rule of the problem it fixes. */
struct np_rec {
	enum np_attr kind;
	struct np_target target; /* {attr, target, value}: kind, this, recommended */
	enum np_rule_id rule;  /* the problem it fixes; NP_RULE_NONE when kept */
	int dev;            /* index into m->pci.devs; -1 for a machine-wide kind */
	int irq;            /* -1 when not an IRQ */
	int queue;          /* -1 when none */
	const char *vector; /* the IRQ's action name (borrowed), or NULL */
	const char *net;    /* interface (borrowed), or NULL */
	const char *block;  /* block device (borrowed), or NULL */
	char *current;      /* normalized current value; NULL when unreadable */
	char *recommended;
	char *reason;
	bool change;        /* current differs from recommended; false: kept as it is */
	bool advice;        /* a judgement offered, not carried: in no saved profile, never
			     * applied (a channel count unless asked: it resets the queues) */
	unsigned long long interrupts; /* IRQ recommendations: interrupts at stake (of the queue's vectors) */
	double remote;      /* their share handled today off the device's node (0..1), whatever the policy;
			     * -1 when the IRQ never fired or the node is unknown */
	int node_move;      /* +1: moves work onto the device's node, -1: off it, 0: neither */
	double impact;      /* interrupts x distance: the order of the recommendations */
};

struct np_plan {
	struct np_rec *v;
	size_t n;
	char **warnings;
	size_t nwarnings;
	char **notes;       /* what the plan took into account, for the reader */
	size_t nnotes;
};

/* For the planner's parts. Adds a recommendation; takes ownership of
 * current, recommended and reason. A value kept as it is fixes no problem:
 * its rule is cleared. */
int plan_add_rec(const struct np_machine *m, struct np_plan *plan, struct np_rec *r);
int plan_warn(struct np_plan *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int plan_note(struct np_plan *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A volume of interrupts as the reader weighs it: a rate when what the
 * counts cover is known ("1.7k/s"), else the count ("9127 interrupts"). */
const char *np_volume_text(const struct np_machine *m, unsigned long long n, char buf[32]);
/* What a plan's lines call a device: its interface, disk or driver. */
const char *plan_dev_label(const struct np_pci_dev *d);
void np_plan_free(struct np_plan *plan);


#endif
