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

/* The CPUs irqbalance's configuration bans from IRQs: IRQBALANCE_BANNED_CPULIST
 * and IRQBALANCE_BANNED_CPUS (a mask, "ffffffff,ffff0000" as CRI-O writes it),
 * each as the environment irqbalance's unit gives it (its Environment=, then
 * every EnvironmentFile= in order, the last assignment winning), else as the
 * distribution's file sets it. Empty values say nothing (irqbalance then bans
 * the isolated and nohz_full CPUs, which are sources of their own). */
struct np_irqb_banned {
	struct np_cpuset cpus; /* the union of both */
	char *source;          /* "IRQBALANCE_BANNED_CPULIST=7 in /etc/sysconfig/irqbalance"; NULL: none */
	char *note;            /* what else a reader should know (a value not read, both set apart); NULL */
};
/* 0, or -ENOMEM (ctx->err); a value that is no CPU set is a note, not an
 * error. Free with np_irqbalance_banned_free either way. */
int np_irqbalance_banned_read(struct np_ctx *ctx, struct np_irqb_banned *out);
void np_irqbalance_banned_free(struct np_irqb_banned *b);
/* Every file irqbalance's configuration may be read from (its unit in each
 * directory systemd searches, their drop-ins, the files they name, the
 * distributions' files), present or not, for snapshot: *paths malloc'd,
 * NULL-ended, free with np_names_free. 0 or -ENOMEM (ctx->err). */
int np_irqbalance_files(struct np_ctx *ctx, char ***paths, size_t *n);

#endif
