/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CPUs kept free of IRQs, and where each comes from. Every source is one
 * row of forbidden.c's table: the kernel's isolated and nohz_full CPUs, the
 * user's exclusions (--exclude-cpus), the containers' exclusive CPUs (the
 * kubelet's CPU manager), TuneD's isolated cores and irqbalance's banned
 * CPUs. The rules judge a device's IRQs against them (an IRQ on an isolated
 * CPU stalls the work kept there), the planner keeps IRQs off them and its
 * reasons name the source. Adding a source is an id here and a row there. */
#ifndef NUMAPLACE_FORBIDDEN_H
#define NUMAPLACE_FORBIDDEN_H

#include "base/cpuset.h"
#include "read/machine.h"

enum np_forbid_source {
	NP_FORBID_ISOLATED,   /* isolcpus= (/sys/devices/system/cpu/isolated) */
	NP_FORBID_NOHZ_FULL,  /* nohz_full= */
	NP_FORBID_EXCLUDED,   /* the user's: --exclude-cpus */
	NP_FORBID_EXCLUSIVE,  /* exclusive to a Kubernetes container (read/kubelet) */
	NP_FORBID_TUNED,      /* TuneD's isolated_cores (read/tuned) */
	NP_FORBID_IRQBALANCE, /* irqbalance's banned CPUs (read/irqbalance-conf) */
	NP_FORBID_NSOURCES
};

struct np_forbidden {
	struct np_cpuset by[NP_FORBID_NSOURCES]; /* each source's CPUs */
	/* What the rules judge by: where latency-critical work runs that the
	 * kernel keeps quiet (isolated, nohz_full), and the containers' CPUs
	 * that are not quiet too (each CPU is judged by one rule). */
	struct np_cpuset quiet;
	struct np_cpuset exclusive;
	/* CPUs only irqbalance's configuration bans: an IRQ someone pinned
	 * there is left as it is (an admin may have dedicated the CPU to it). */
	struct np_cpuset banned_only;
	struct np_cpuset all;                    /* every source's */
};

/* The machine's sources (the user's exclusions: excluded, NULL for none).
 * 0 or -ENOMEM; free with np_forbidden_free either way. */
int np_forbidden_find(const struct np_machine *m, const struct np_cpuset *excluded, struct np_forbidden *out);
void np_forbidden_free(struct np_forbidden *f);
/* The source's name: "isolated", "nohz_full", "excluded", "exclusive",
 * "tuned", "irqbalance". */
const char *np_forbid_name(enum np_forbid_source s);
/* "isolated CPUs 3,11 and irqbalance-banned CPU 8": the CPUs of set that
 * the sources forbid, each CPU said once by the first source that has it
 * (malloc'd); NULL when none does, or on ENOMEM (*failed then set). */
char *np_forbidden_text(const struct np_forbidden *f, const struct np_cpuset *set, bool *failed);
/* "irqbalance-banned CPU 7 kept free of IRQs: IRQBALANCE_BANNED_CPULIST=7 in
 * /etc/sysconfig/irqbalance": where a source read from a configuration file
 * found its CPUs, for a plan's notes (malloc'd); NULL when it has none, or
 * on ENOMEM (*failed then set). */
char *np_forbid_source_line(const struct np_machine *m, const struct np_forbidden *f, enum np_forbid_source s,
			    bool *failed);
/* What that source's reader could not use ("isolated_cores=${f:...} is
 * evaluated by TuneD only"), NULL when nothing. */
const char *np_forbid_note(const struct np_machine *m, enum np_forbid_source s);

/* CPUs that may take IRQs: online, not isolated, not nohz_full, not excluded. */
int np_usable_cpus(const struct np_topology *topo, const struct np_cpuset *exclude, struct np_cpuset *out);
/* The nodes nearest to node (by distance) that have usable CPUs, as CPUs. */
int np_nearest_cpus(const struct np_topology *topo, int node, const struct np_cpuset *usable, struct np_cpuset *out);

#endif
