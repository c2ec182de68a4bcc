/* The advisor: turns what the report sees into a placement plan, each line
 * with its reason. The plan is computed from the topology and the devices,
 * never from current affinities, so advising again after applying it finds
 * nothing to change. */
#ifndef NUMAPLACE_ADVISE_H
#define NUMAPLACE_ADVISE_H

#include <stdbool.h>
#include <stddef.h>

#include "attr.h"
#include "machine.h"
#include "profile.h"

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
	struct np_cpuset exclude;    /* CPUs kept free of IRQs */
	struct np_device_policy *devices; /* one per m->pci.devs entry */
	bool devices_only;           /* the devices' settings only, nothing machine-wide
				      * (profile rules speak for the devices they match) */
};

struct np_rec {
	enum np_attr kind;
	int dev;            /* index into m->pci.devs; -1 for a machine-wide kind */
	int irq;            /* -1 when not an IRQ */
	int queue;          /* -1 when none */
	const char *vector; /* the IRQ's action name (borrowed), or NULL */
	const char *net;    /* interface (borrowed), or NULL */
	const char *block;  /* block device (borrowed), or NULL */
	char *current;      /* normalized current value; NULL when unreadable */
	char *recommended;
	char *reason;
	bool change;        /* current differs from recommended */
};

struct np_plan {
	struct np_rec *v;
	size_t n;
	char **warnings;
	size_t nwarnings;
};

/* CPUs that may take IRQs: online, not isolated, not nohz_full, not excluded. */
int np_usable_cpus(const struct np_topology *topo, const struct np_cpuset *exclude, struct np_cpuset *out);
/* The nodes nearest to node (by distance) that have usable CPUs, as CPUs. */
int np_nearest_cpus(const struct np_topology *topo, int node, const struct np_cpuset *usable, struct np_cpuset *out);

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
