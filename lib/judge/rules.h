/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kinds of problem numaplace knows: one id per row of lib/judge/findings.c's
 * rules table. The planner tags each change with the problem it fixes, and
 * the report and the plan are both made from those tagged records. */
#ifndef NUMAPLACE_RULES_H
#define NUMAPLACE_RULES_H

enum np_rule_id {
	NP_RULE_NONE,               /* a value kept as it is: it fixes nothing */
	NP_RULE_IRQBALANCE,         /* irqbalance runs and will undo a placement */
	NP_RULE_ISOLATED,           /* a device's IRQs on CPUs the plan forbids */
	NP_RULE_EXCLUSIVE,          /* a device's IRQs on CPUs a container holds exclusively (kubelet) */
	NP_RULE_REMOTE,             /* a device's interrupts delivered off its node */
	NP_RULE_OUTSIDE,            /* delivered outside the CPUs the policy gives the device */
	NP_RULE_BALANCE,            /* a device's data queues stacked on a core, or left to the interrupt controller */
	NP_RULE_APART,              /* the vectors of one queue pair run apart */
	NP_RULE_UNREADABLE,         /* an IRQ's affinity cannot be read */
	NP_RULE_RQ_AFFINITY,        /* block completions away from the submitters */
	NP_RULE_RPS,                /* receive steering that adds a hop or misses the application */
	NP_RULE_XPS,                /* transmit queues not following the IRQs */
	NP_RULE_CHANNELS,           /* one queue per node, on request (judgement) */
	NP_RULE_DEFAULT_AFFINITY,   /* new IRQs would start on forbidden CPUs */
	NP_RULE_SYSTEM_ISOLATED,    /* system IRQs on isolated CPUs */
	NP_RULE_NO_NODE,            /* firmware gives no NUMA node */
	NP_RULE_MANAGED,            /* the kernel owns some IRQs' placement */
	NP_RULE_APP_MEMORY,         /* an application's memory mostly off its threads' node (lib/judge/app-place) */
	NP_RULE_APP_THREADS,        /* its threads spread over nodes, its memory and devices on one */
	NP_RULE_APP_IRQS,           /* its devices' interrupts where neither its threads nor its memory are */
	NP_RULE_COUNT
};

/* The rule's stable name ("remote_irqs"): JSON "kind" of a finding. */
const char *np_rule_name(enum np_rule_id rule);

#endif
