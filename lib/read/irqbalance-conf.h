/* SPDX-License-Identifier: GPL-2.0-or-later */
/* irqbalance's configuration file on a machine: which one it reads on each
 * distribution (the systemd unit's EnvironmentFile, else the distribution's
 * path), and the CPUs it will not place IRQs on. The edit that bans IRQs
 * there is change/irqbalance.h's. */
#ifndef NUMAPLACE_IRQBALANCE_CONF_H
#define NUMAPLACE_IRQBALANCE_CONF_H

#include <limits.h>
#include <stdbool.h>

#include "base/context.h"
#include "base/cpuset.h"

/* irqbalance's configuration file on a machine, and how it was found. */
struct np_irqb_conf {
	char path[PATH_MAX]; /* machine path: "/etc/sysconfig/irqbalance" */
	const char *var;     /* the variable of its arguments: "IRQBALANCE_ARGS" or "IRQBALANCE_OPTS" */
	char from[PATH_MAX + 64]; /* "EnvironmentFile= of /usr/lib/systemd/system/irqbalance.service",
				   * "the Debian layout", ... */
	bool exists;
};

/* The file irqbalance reads under ctx's root: the last EnvironmentFile= under
 * /etc of the irqbalance unit (and its drop-ins), where a unit file is
 * readable; else the first of /etc/default/irqbalance (Debian),
 * /etc/sysconfig/irqbalance (RHEL family), /etc/conf.d/irqbalance (OpenRC)
 * that exists; else, with exists false, what the unit names or the Debian
 * path. 0 or -ENOMEM. */
int np_irqbalance_conf_find(struct np_ctx *ctx, struct np_irqb_conf *out);

/* The CPUs irqbalance will not place IRQs on, as configured by text (the
 * file's content, NULL when none): IRQBALANCE_BANNED_CPULIST when assigned
 * (even empty), else a non-empty IRQBALANCE_BANNED_CPUS (a mask), else its
 * default, isolated and nohz_full. *why says which ("IRQBALANCE_BANNED_CPULIST",
 * "IRQBALANCE_BANNED_CPUS", "isolated and nohz_full"). -EINVAL (reason in
 * ctx->err) for a value irqbalance would not parse either; -ENOMEM. */
int np_irqbalance_avoided_cpus(struct np_ctx *ctx, const char *text, const struct np_cpuset *isolated,
			       const struct np_cpuset *nohz_full, struct np_cpuset *out, const char **why);

#endif
