/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How long the interrupt counts cover and how much CPU time interrupts
 * cost: /proc/uptime (counts since boot become rates), /proc/stat (each
 * CPU's time in hard IRQs and softirqs, what irqbalance balances on) and
 * /proc/softirqs (which of those softirqs serve devices: NET_RX, NET_TX,
 * BLOCK, IRQ_POLL, TASKLET, and which do not: TIMER, SCHED, RCU...). A file
 * that is absent (a partial copy) leaves its part unknown, never an error. */
#ifndef NUMAPLACE_CPU_LOAD_H
#define NUMAPLACE_CPU_LOAD_H

#include <stdbool.h>

#include "base/context.h"
#include "read/topology.h"

/* One CPU's time (/proc/stat, USER_HZ ticks) and softirqs (/proc/softirqs). */
struct np_cpu_time {
	unsigned long long irq, softirq, all; /* all: every state but guest (in user already) */
	unsigned long long dev_softirqs, softirqs; /* those raised for devices, and all of them */
};

struct np_cpu_load {
	double uptime;           /* seconds since boot (/proc/uptime); 0 unknown */
	double seconds;          /* what the interrupt counts cover: the interval, else the
				  * uptime; 0 unknown (counts since an unknown boot) */
	bool sampled;            /* the counts are an interval's (--interval) */
	struct np_cpu_time *cpu; /* by CPU id, max_cpu + 1 of them; NULL: /proc/stat unknown */
	int ncpu;
	bool has_softirqs;       /* /proc/softirqs read: softirq time split by what raised it */
};

/* Reads the three files under the root. 0, or -ENOMEM / -EINVAL with
 * ctx->err naming the file (a file that is there but malformed). */
int np_cpu_load_read(struct np_ctx *ctx, const struct np_topology *topo, struct np_cpu_load *out);
/* The same parse of the three files' text (NULL: absent). */
int np_cpu_load_parse(struct np_ctx *ctx, const struct np_topology *topo, const char *uptime, const char *stat,
		      const char *softirqs, struct np_cpu_load *out);
/* Makes before the difference until after (read seconds later): the
 * interval's counts. */
void np_cpu_load_delta(struct np_cpu_load *before, const struct np_cpu_load *after, double seconds);
void np_cpu_load_free(struct np_cpu_load *l);

/* Share (0..1) of CPU cpu's time spent on devices' interrupts: hard IRQs,
 * and the softirqs devices raised (all softirq time when /proc/softirqs is
 * unknown); -1 when unknown. */
double np_cpu_irq_share(const struct np_cpu_load *l, int cpu);
/* count over the seconds the counts cover, per second; -1 when unknown. */
double np_cpu_load_rate(const struct np_cpu_load *l, unsigned long long count);

#endif
