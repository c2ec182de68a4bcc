/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A profile resolved on this machine: the (file, value) changes it asks for,
 * every value validated before anything is written. Rules go through the
 * advisor; settings are looked up by stable identity. */
#ifndef NUMAPLACE_RESOLVE_H
#define NUMAPLACE_RESOLVE_H

#include <stddef.h>

#include "read/machine.h"
#include "change/profile.h"
#include "change/txn.h"

struct np_resolved {
	struct np_change *changes; /* one per file; a later entry for the same file wins */
	size_t n;
	char **warnings;           /* what rules left alone, and why */
	size_t nwarnings;
};

/* Returns 0; -EINVAL when the profile does not fit this machine (unknown
 * device or queue, CPUs that are not online, a managed IRQ), with ctx->err
 * naming the profile file and field; -ENOMEM. */
int np_profile_resolve(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
		       struct np_resolved *out);
void np_resolved_free(struct np_resolved *r);
/* The other way: an advisor's plan as a settings profile (every planned
 * value, changed or not), named by stable identity: PCI address and queue
 * index where the index is unique among the device's IRQs, else the
 * vector's name. Free with np_profile_free. */
struct np_plan;
int np_plan_to_profile(const struct np_machine *m, const struct np_plan *plan, const char *name,
		       const char *description, struct np_profile *out);
/* The application CPUs a profile's "app" section names, or an empty set. */
int np_profile_app_cpus(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
			struct np_cpuset *out);

#endif
