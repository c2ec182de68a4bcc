/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What to do with a device's IRQs and its receive steering: the policies a
 * command line (--policy) or a profile's rule ("irqs", "rps") gives the
 * planner (judge/plan.h). */
#ifndef NUMAPLACE_POLICIES_H
#define NUMAPLACE_POLICIES_H

enum np_irq_policy { NP_IRQS_KEEP, NP_IRQS_LOCAL, NP_IRQS_APP, NP_IRQS_SPREAD, NP_IRQS_CPUS };
enum np_rps_policy { NP_RPS_KEEP, NP_RPS_OFF, NP_RPS_APP };

#endif
