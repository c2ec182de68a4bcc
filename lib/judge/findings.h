/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The problem list: what a report points out and what advise changes, one
 * list for both. Each row of the rules table (findings.c) looks at one thing
 * and emits problems: the facts (which IRQs, where they were delivered, the
 * volume: the same under every policy), how heavy the problem is, and the
 * plan's changes that fix it. Whether a fact is a problem depends on the
 * policy: a device's interrupts off its node are one under "local", a fact
 * under "spread". One finding per (rule, device or class of IRQs). */
#ifndef NUMAPLACE_FINDINGS_H
#define NUMAPLACE_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "judge/advise.h"
#include "read/machine.h"
#include "judge/rules.h"

enum np_severity { NP_INFO, NP_WARNING };

struct np_finding {
	enum np_severity severity;
	enum np_rule_id rule;
	const char *kind;   /* the rule's stable name: "remote_irqs", "no_numa_node", ... */
	char *subject;      /* the objects involved: "0000:22:00.0", "system irqs", "sda" */
	char *message;      /* one line of facts, says why it matters */
	/* The facts the summary is made of. */
	int dev;            /* index into m->pci.devs, -1 for a class of IRQs */
	char *who;          /* "sda 0000:22:00.0 (megaraid_sas, node 3)", "system IRQs (timer, acpi)" */
	int nirqs, irq;     /* IRQs involved; irq: the one when nirqs is 1 */
	unsigned long long interrupts; /* at stake: remote, or on isolated CPUs */
	const char *unit;   /* what interrupts counts when not interrupts: an application's
			     * "pages", "cpu_ms", "threads" (NULL: interrupts) */
	unsigned long long total;      /* of the IRQs involved */
	unsigned long long *per_node;  /* total by topology node index (NULL when none) */
	struct np_cpuset cpus;         /* where they are set to run (effective affinity) or ran */
	const char *what;   /* "remote", "on isolated CPUs" */
	char *fix;          /* the command that fixes it, NULL when none */
	double weight;      /* interrupts at stake x severity of the kind */
	bool minor;         /* under the volume threshold: shown only on request */
	size_t *fixes;      /* the changes that fix it: indexes into the plan */
	size_t nfixes;
};

struct np_findings {
	struct np_finding *v; /* heaviest first */
	size_t n;
	unsigned long long min_interrupts; /* the volume threshold applied */
	struct np_plan plan;  /* every change (and every value kept), each fixing one finding */
};

/* Remote or isolated-CPU interrupts under this many (per device, since boot)
 * are findings of no weight (minor), not warnings. */
#define NP_FINDINGS_MIN_INTERRUPTS 10000ULL
/* The same over a sampled interval, a second. */
#define NP_FINDINGS_MIN_RATE 100.0

/* The volume threshold: NP_FINDINGS_MIN_INTERRUPTS since boot, or
 * NP_FINDINGS_MIN_RATE a second over an interval of seconds (> 0). */
unsigned long long np_findings_threshold(double seconds);

/* The problems of m under the policy of opts (opts->min_interrupts: the
 * volume threshold, NP_FINDINGS_MIN_INTERRUPTS for counts since boot, scaled
 * for an interval), with the plan that fixes them. fix_hint: how the user
 * gets that plan ("numaplace advise --policy spread"); the device is added. */
int np_findings_collect(const struct np_machine *m, const struct np_advise_opts *opts, const char *fix_hint,
			struct np_findings *out);
void np_findings_free(struct np_findings *f);
const char *np_severity_name(enum np_severity s);
/* The summary: warnings that are not minor, most important first (the
 * findings are sorted so). Returns how many lead f->v. */
size_t np_findings_summary(const struct np_findings *f);
/* One line of the summary, and one group of advise's plan: a device's
 * problems (the most important first) or one machine-wide problem. */
struct np_summary_line {
	int dev;            /* index into m->pci.devs, -1 for a machine-wide problem */
	size_t *v;          /* its findings: indexes into f->v, most important first */
	size_t n;
	char *text;         /* "who: facts; also facts" */
	const char *fix;    /* the command that fixes them (borrowed), NULL when none */
};
/* The summary's findings, one line per device: report's summary and
 * advise's groups are both made of these. Free with np_summary_lines_free. */
int np_findings_lines(const struct np_findings *f, struct np_summary_line **out, size_t *n);
void np_summary_lines_free(struct np_summary_line *v, size_t n);
/* The rule's row: what it looks at ("where each device's interrupts were
 * delivered, against its node"). */
const char *np_rule_looks_at(enum np_rule_id rule);

#endif
