/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a report points out: placements that cost performance, and facts the
 * user must know before changing anything. One finding per (kind, device or
 * class of IRQs), stated from the counts and effective affinities (what
 * happened, not what may), weighed by the interrupts at stake. */
#ifndef NUMAPLACE_FINDINGS_H
#define NUMAPLACE_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "machine.h"

enum np_severity { NP_INFO, NP_WARNING };

struct np_finding {
	enum np_severity severity;
	const char *kind;   /* stable identifier: "remote_irqs", "no_numa_node", ... */
	char *subject;      /* the objects involved: "0000:22:00.0", "system irqs", "sda" */
	char *message;      /* one line of facts, says why it matters */
	/* The facts the summary is made of. */
	int dev;            /* index into m->pci.devs, -1 for a class of IRQs */
	char *who;          /* "sda 0000:22:00.0 (megaraid_sas, node 3)", "system IRQs (timer, acpi)" */
	int nirqs, irq;     /* IRQs involved; irq: the one when nirqs is 1 */
	unsigned long long interrupts; /* at stake: remote, or on isolated CPUs */
	unsigned long long total;      /* of the IRQs involved */
	unsigned long long *per_node;  /* total by topology node index (NULL when none) */
	struct np_cpuset cpus;         /* where they are set to run (effective affinity) or ran */
	const char *what;   /* "remote", "on isolated CPUs" */
	char *fix;          /* the command that fixes it, NULL when none */
	double weight;      /* interrupts at stake x severity of the kind */
	bool minor;         /* under the volume threshold: shown only on request */
};

struct np_findings {
	struct np_finding *v; /* heaviest first */
	size_t n;
	unsigned long long min_interrupts; /* the volume threshold applied */
};

/* Remote or isolated-CPU interrupts under this many (per device, since boot)
 * are findings of no weight (minor), not warnings. */
#define NP_FINDINGS_MIN_INTERRUPTS 10000ULL
/* The same over a sampled interval, a second. */
#define NP_FINDINGS_MIN_RATE 100.0

/* min_interrupts: the volume threshold (NP_FINDINGS_MIN_INTERRUPTS for
 * counts since boot; scaled for an interval). */
int np_findings_collect(const struct np_machine *m, unsigned long long min_interrupts, struct np_findings *out);
void np_findings_free(struct np_findings *f);
const char *np_severity_name(enum np_severity s);
/* The summary: warnings that are not minor, most important first (the
 * findings are sorted so). Returns how many lead f->v. */
size_t np_findings_summary(const struct np_findings *f);
/* "48.2M", "9127", "1.2G": a count at a glance. */
const char *np_count_text(unsigned long long n, char buf[16]);

#endif
