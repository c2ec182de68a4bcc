/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What to do with a device's IRQs, its receive steering and its channels:
 * the policies a command line (--policy, --channels) or a profile's rule
 * ("irqs", "rps", "channels") gives the planner (judge/plan.h). */
#ifndef NUMAPLACE_POLICIES_H
#define NUMAPLACE_POLICIES_H

enum np_irq_policy { NP_IRQS_KEEP, NP_IRQS_LOCAL, NP_IRQS_APP, NP_IRQS_SPREAD, NP_IRQS_CPUS };
enum np_rps_policy { NP_RPS_KEEP, NP_RPS_OFF, NP_RPS_APP };
/* A network device's channel count: not judged (KEEP), judged and offered
 * without being carried by the plan (OFFER: a channel change resets the
 * queues, so it is made only when asked), or carried: one busy queue per
 * core the plan gives the device (PER_CORE), or one per node (PER_NODE,
 * with spread). */
enum np_channels_policy { NP_CHANNELS_KEEP, NP_CHANNELS_OFFER, NP_CHANNELS_PER_CORE, NP_CHANNELS_PER_NODE };

#endif
