/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The advisor: turns what the report sees into a placement plan, each line
 * with its reason. It makes the smallest change that meets the policy: an IRQ
 * already inside its target set, off forbidden CPUs and not stacked beyond
 * its device's per-core share is kept; the rest are spread per device over
 * distinct physical cores. Applying the plan makes every IRQ keepable, so
 * advising again finds nothing to change. */
#ifndef NUMAPLACE_ADVISE_H
#define NUMAPLACE_ADVISE_H

#include <stdbool.h>
#include <stddef.h>

#include "change/attr.h"
#include "read/machine.h"
#include "change/profile.h"
#include "judge/rules.h"

struct np_app;

/* What to do with one device; the command line gives every selected device
 * the same policy, profile rules give each its own. */
struct np_device_policy {
	bool selected;
	enum np_irq_policy irqs;    /* NP_IRQS_KEEP: leave its IRQs alone */
	struct np_cpuset irq_cpus;  /* NP_IRQS_CPUS */
	int rq_affinity;            /* NP_RQ_AUTO, NP_RQ_KEEP, or 0..2 to force */
	enum np_rps_policy rps;     /* NP_RPS_KEEP means "decide" when auto_net is set */
	bool xps_follow_irq;
	bool auto_net;              /* decide RPS and XPS by the advisor's rules */
};
#define NP_RQ_AUTO (-1)
#define NP_RQ_KEEP (-2)

struct np_advise_opts {
	const char *policy_name;     /* for the output: "local", "app", "spread", "profile" */
	struct np_cpuset app_cpus;   /* where the application runs (app policy, rq_affinity, RPS) */
	bool app_pinned;             /* its threads are bound to app_cpus (not merely allowed everywhere) */
	struct np_cpuset exclude;    /* CPUs kept free of IRQs */
	struct np_device_policy *devices; /* one per m->pci.devs entry */
	bool devices_only;           /* the devices' settings only, nothing machine-wide
				      * (profile rules speak for the devices they match) */
	/* Interrupts a device must carry for its IRQs to move for locality or
	 * balance (0: any; a profile's rules always apply). An IRQ on a CPU the
	 * plan forbids moves whatever its volume. */
	unsigned long long min_interrupts;
	bool channels_per_node;      /* also offer one queue per node (ethtool -L), as judgement */
	const struct np_app *app;    /* a process to judge too (lib/judge/app-place: NP_RULE_APP_*); NULL when none */
};

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
	unsigned long long interrupts; /* IRQ recommendations: interrupts at stake (of the queue's vectors) */
	double remote;      /* their share handled today off the device's node (0..1), whatever the policy */
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

/* The facts rq_affinity is decided on, and the decision (Alan D. Brunelle's
 * measurements, linux-kernel, 2008-04-15). */
struct np_rq_facts {
	bool pinned;            /* submitters bound to known CPUs */
	bool irq_on_submitters; /* a completion CPU is one of the submitters' */
	bool shares_l3;         /* a completion CPU shares an L3 with a submitter */
	bool per_cpu_queues;    /* hardware queues map one-to-one to the submitters (managed per-CPU) */
};
/* 2, or -1 to leave the value alone; *why is a static sentence. */
int np_rq_affinity_decide(const struct np_rq_facts *f, const char **why);
/* Vectors an x86 CPU can hold with room to spare (about 200 of its 256). */
#define NP_VECTORS_PER_CPU 200

/* CPUs that may take IRQs: online, not isolated, not nohz_full, not excluded. */
int np_usable_cpus(const struct np_topology *topo, const struct np_cpuset *exclude, struct np_cpuset *out);
/* The nodes nearest to node (by distance) that have usable CPUs, as CPUs. */
int np_nearest_cpus(const struct np_topology *topo, int node, const struct np_cpuset *usable, struct np_cpuset *out);

/* Where some selected device's IRQ has a mask but no effective_affinity
 * (older kernels), the sentence that says delivery is judged on the mask;
 * else NULL. */
const char *np_effective_note(const struct np_machine *m, const struct np_advise_opts *opts);

int np_advise(const struct np_machine *m, const struct np_advise_opts *opts, struct np_plan *out);
void np_plan_free(struct np_plan *plan);

/* The CPUs a process may run on (Cpus_allowed_list of /proc/PID/status). */
int np_process_cpus(struct np_ctx *ctx, int pid, struct np_cpuset *out);
/* The application's CPUs from the one of cpus (a list; non-NULL), node or
 * pid (>= 0) given. Returns 0, -EINVAL for a list or node that cannot be
 * (ctx->err says why), or what np_process_cpus returns. */
int np_app_cpus(struct np_ctx *ctx, const struct np_topology *topo, const char *cpus, int node, int pid,
		struct np_cpuset *out);

/* The plan as a settings profile (every planned value, changed or not), named
 * by stable identity: PCI address and queue index where the index is unique
 * among the device's IRQs, else the vector's name. Free with np_profile_free. */
int np_plan_to_profile(const struct np_machine *m, const struct np_plan *plan, const char *name,
		       const char *description, struct np_profile *out);

#endif
