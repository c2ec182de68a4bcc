/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The advisor: turns what the report sees into a placement plan, each line
 * with its reason. It makes the smallest change that meets the policy: an IRQ
 * already inside its target set, off forbidden CPUs and not stacked beyond
 * its device's per-core share is kept; the rest are spread per device over
 * distinct physical cores. Applying the plan makes every IRQ keepable, so
 * advising again finds nothing to change. What it is asked and what it
 * answers: judge/plan.h. */
#ifndef NUMAPLACE_ADVISE_H
#define NUMAPLACE_ADVISE_H

#include "judge/plan.h"
#include "read/machine.h"

/* Where some selected device's IRQ has a mask but no effective_affinity
 * (older kernels), the sentence that says delivery is judged on the mask;
 * else NULL. */
const char *np_effective_note(const struct np_machine *m, const struct np_advise_opts *opts);

int np_advise(const struct np_machine *m, const struct np_advise_opts *opts, struct np_plan *out);

#endif
