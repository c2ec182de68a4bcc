/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The queue settings that follow a device's IRQs: rq_affinity of its block
 * devices, XPS, RPS and (on request) channels of its interfaces. */
#ifndef NUMAPLACE_ADVISE_QUEUES_H
#define NUMAPLACE_ADVISE_QUEUES_H

#include <stdbool.h>

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

#endif
