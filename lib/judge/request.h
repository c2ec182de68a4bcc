/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A judgement request, after git's struct rev_info and setup_revisions():
 * one object holding everything a judgement of the machine depends on (the
 * policy, the devices selected, the volume threshold, the CPUs kept free of
 * IRQs and where each comes from, the application's scope, the interval),
 * set up once from the parsed options, judged once, and rendered by every
 * command that judges or counts by it: report (and its SVG), advise, app,
 * metrics and top. Two commands given the same options judge the same.
 *
 *	struct np_request_opts o = NP_REQUEST_OPTS_INIT; // the options bind to its fields
 *	np_request_check(ctx, &o);                // the options alone: usage errors
 *	np_machine_load(ctx, &m);
 *	np_request_setup(ctx, &m, &o, sample, &req); // the interval, the selection, the
 *	                                             // application, the policies, the forbidden CPUs
 *	np_request_judge(&req);                   // req.findings: the problems and their plan
 *	...render req.findings, req.policy, req.selected...
 *	np_request_free(&req);
 *
 * Extending it: a source of forbidden CPUs is a row of judge/forbidden.c
 * (every request and profile rule then keeps IRQs off it, and the rules
 * judge by it); data the judgement needs is loaded in np_request_setup, kept
 * here and reaches the rules through req->policy (judge/plan.h); a rule is a
 * row of judge/findings.c. */
#ifndef NUMAPLACE_REQUEST_H
#define NUMAPLACE_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/context.h"
#include "judge/app-place.h"
#include "judge/findings.h"
#include "judge/plan.h"
#include "read/machine.h"

/* Device filters given one by one (--device FILTER, repeatable): PCI
 * addresses, interfaces, block devices or drivers, NULL-terminated. */
struct np_filters {
	const char **v;
	size_t n;
};
/* Appends filter (borrowed). 0 or -ENOMEM. */
int np_filters_add(struct np_filters *filters, const char *filter);
void np_filters_free(struct np_filters *filters);

/* What the user asked, as the options give it: a command's option table
 * binds to these fields (the strings are borrowed from argv). */
struct np_request_opts {
	const char *policy;        /* "local", "app" or "spread" */
	struct np_filters devices; /* --device: the devices judged (none: every one that matters) */
	const char *app_cpus;      /* --app-cpus LIST: the application's CPUs */
	int app_node;              /* --app-node: its node; -1 none */
	int app_pid;               /* --app-pid, or app's PID: the application is this process; -1 none */
	const char *pod;           /* --pod UID[/CONTAINER]: its CPUs are the pod's exclusive ones */
	bool app_judged;           /* numaplace app: the process itself is judged (read whole or an
				    * error, its CPU time sampled over the interval, its devices the
				    * selection, its placement's CPUs the policy's) */
	const char *exclude;       /* --exclude-cpus LIST: kept free of IRQs */
	double interval;           /* --interval: seconds to sample (0: counts since boot) */
	enum np_channels_policy channels; /* --channels: offered unless per-core or per-node asks */
	bool xps;                  /* --xps: XPS follows the IRQs of devices the plan does not move too */
	bool plan_unshown;         /* the command shows the problems, not the plan's IRQ lines: their
				    * reasons are not written (judge/plan.h no_irq_reasons) */
};
#define NP_REQUEST_OPTS_INIT { .policy = "local", .app_node = -1, .app_pid = -1, .channels = NP_CHANNELS_OFFER }

/* The options alone, before any machine: -EINVAL with ctx->err the usage
 * error (a policy not known, two applications, the app policy without
 * one), else 0. */
int np_request_check(struct np_ctx *ctx, const struct np_request_opts *o);

struct np_request {
	struct np_machine *m;
	struct np_request_opts opts;
	enum np_irq_policy irqs;       /* the policy every selected device is judged by */
	bool *selected;                /* per m->pci.devs: judged */
	/* What the planner and the rules are given: each device's policy, the
	 * forbidden CPUs by source (policy.forbidden), the volume threshold,
	 * the application's CPUs and the process to judge. */
	struct np_advise_opts policy;
	struct np_app app;             /* with app_pid: the process, its devices, where it belongs
					* (policy.app points here once it is placed) */
	char fix_hint[96];             /* how the user gets the plan: "numaplace advise --policy spread" */
	/* What the judgement took into account, for the reader: the notes lead
	 * the plan's (what --app-pid inferred, the interval), the warnings
	 * follow its (devices whose IRQs stay where they are). */
	char **notes;
	size_t nnotes;
	char **warnings;
	size_t nwarnings;
	struct np_findings findings;   /* after np_request_judge: the problems, and the plan that fixes them */
};

/* Waits seconds and replaces m's counts by those of the interval (the
 * command's: it may show a countdown). 0 or -errno, ctx->err says why. */
typedef int np_request_sampler(struct np_ctx *ctx, struct np_machine *m, double seconds);

/* Sets up req from o on m (both borrowed: they outlive req): the
 * application read (app_judged), the interval sampled with sample (when
 * o->interval > 0), the devices selected (or inferred from the
 * application's files under the app policy), the application's CPUs, each
 * device's policy and the forbidden CPUs. Returns 0; 1 when the options
 * cannot be on this machine (a usage error: a CPU list, a node that is
 * not); or -errno (ctx->err says why: a filter matching nothing, a process
 * that cannot be read).
 * Free req with np_request_free whatever it returns. */
int np_request_setup(struct np_ctx *ctx, struct np_machine *m, const struct np_request_opts *o,
		     np_request_sampler *sample, struct np_request *req);
/* Judges: req->findings, once. 0 or -ENOMEM. */
int np_request_judge(struct np_request *req);
void np_request_free(struct np_request *req);

#endif
