/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The queue settings that follow a device's IRQs: rq_affinity of its block
 * devices, XPS, RPS and (on request) channels of its interfaces. */
#ifndef NUMAPLACE_ADVISE_QUEUES_H
#define NUMAPLACE_ADVISE_QUEUES_H

#include <stdbool.h>

/* The facts rq_affinity is decided on, and the decision. blk-mq completes a
 * request where its interrupt ran when that CPU submitted it or, under 1,
 * shares its cache; otherwise it sends the completion to the submitting CPU
 * by IPI (blk_mq_complete_need_ipi()). So 1 and 2 differ only for
 * submitters that share the interrupt CPU's LLC without being it, and
 * neither sends anything under forced IRQ threads. */
struct np_rq_facts {
	int current;             /* the value today, -1 when unknown */
	bool pinned;             /* submitters bound to known CPUs */
	const char *irq_threads; /* why IRQ handlers are forced into threads, NULL when not */
	bool per_cpu_queues;     /* hardware queues map one-to-one to the submitters (managed per-CPU) */
	bool irq_on_submitters;  /* every submitter is a CPU its completions are delivered on */
	bool shares_llc;         /* a submitter shares a completion CPU's LLC without being that CPU */
};
/* 0..2, or -1 to leave the value alone; *why is a static sentence. */
int np_rq_affinity_decide(const struct np_rq_facts *f, const char **why);

#endif
