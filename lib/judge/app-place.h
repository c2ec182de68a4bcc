/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An application next to its devices: a process (lib/read/process), the devices
 * it uses (lib/read/app-devices) with where their interrupts ran, where it should be
 * placed, and its problems as rules of the one problem model
 * (NP_RULE_APP_*: lib/judge/findings.c asks np_app_problems for them).
 *
 * The placement rule (issue 27): the node holding most of its memory wins
 * when that node's usable CPUs (online, not isolated, not nohz_full) can
 * hold its work (the CPUs its threads keep busy, over the interval or since
 * they started: mostly sleeping threads need few);
 * otherwise the node of its busiest device (most interrupts). The devices'
 * interrupts then follow the application (--policy app with the placement's
 * CPUs). The fix is a 'numaplace move' command line, with --memory when a
 * tenth or more of its memory is elsewhere, and --cgroup when its cgroup's
 * cpuset leaves the node's CPUs out. */
#ifndef NUMAPLACE_APPPLACE_H
#define NUMAPLACE_APPPLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "read/machine.h"
#include "read/process.h"
#include "judge/rules.h"

struct np_app_device {
	size_t dev;                    /* index into m->pci.devs */
	int node;                      /* np_device_node: its id, -1 unknown */
	unsigned long long interrupts; /* of its IRQs: since boot, or over the sampled interval */
	unsigned long long *per_node;  /* the same by topology node index */
};

enum np_app_place_by { NP_PLACE_NONE, NP_PLACE_MEMORY, NP_PLACE_DEVICE };

struct np_app {
	struct np_process proc;
	bool *selected;                /* per m->pci.devs: the devices it uses */
	char **why;                    /* how each was found, one sentence each */
	size_t nwhy;
	struct np_app_device *devs;    /* busiest first */
	size_t ndevs;
	/* Facts, by topology node index (-1 unknown). */
	int threads_node;              /* most CPU time over the interval, else most threads by last CPU */
	int memory_node;               /* most resident memory */
	/* The placement. */
	enum np_app_place_by by;
	int place_node;                /* index; -1 when none */
	double cpus_busy;              /* CPUs its threads keep busy (over the interval, else since
					* they started); -1 unknown */
	unsigned cpus_needed;          /* CPUs the node must give it: cpus_busy rounded up, at least 1;
					* its threads when cpus_busy is unknown */
	unsigned memory_node_cpus;     /* usable CPUs of memory_node */
	unsigned device_node_cpus;     /* usable CPUs of the busiest device's node */
	struct np_cpuset place_cpus;   /* usable CPUs of place_node; when no node wins, those of the
	                                * nodes its threads run on (its IRQs follow them) */
	bool move_memory;              /* the move takes its memory along (--memory) */
	bool cgroup_bars;              /* its cgroup's cpuset leaves place_cpus out: the move needs --cgroup */
	char *move;                    /* "numaplace move PID --node N [--memory]"; NULL: nothing to move */
	char *placement;               /* the rule's answer with its numbers, one sentence */
};

/* Reads process pid and infers its devices (np_app_devices). Errors as
 * np_process_read's. */
int np_app_load(struct np_ctx *ctx, const struct np_machine *m, int pid, struct np_app *out);
/* After m's interval sample (np_sample_interval): the threads' CPU time over
 * the same seconds. */
int np_app_sample(struct np_ctx *ctx, const struct np_machine *m, struct np_app *app, double seconds);
/* The facts, the devices' interrupts (m's counts) and the placement. */
int np_app_place(const struct np_machine *m, struct np_app *app);
void np_app_free(struct np_app *app);
/* advise --app-pid: loads and places process pid, or says why not. *note
 * (malloc'd) is the sentence to show: the placement (and, unless
 * app_policy, that its IRQs follow it under --policy app), or "not placed:
 * ..." with app left empty (place_node -1) when the process cannot be read
 * whole (a copy without its threads). 0 or -ENOMEM. */
int np_app_advise(struct np_ctx *ctx, const struct np_machine *m, int pid, bool app_policy, struct np_app *app,
		  char **note);

/* An application's problem of one rule, for lib/judge/findings.c. */
struct np_app_problem {
	int dev;              /* index into m->pci.devs; -1 for the process itself */
	char *subject;        /* "pid 4242", or the device's address */
	char *who;            /* "postgres (pid 4242)", "sda 0000:22:00.0 (megaraid_sas, node 3)" */
	char *message;
	char *fix;            /* a command line; NULL when none */
	unsigned long long amount; /* its weight, in unit */
	const char *unit;     /* "pages", "cpu_ms", "threads", "interrupts" */
	bool minor;           /* under the volume threshold */
};
/* The problems of rule (an NP_RULE_APP_* id) in *v (malloc'd, *n of them).
 * min_interrupts: the volume threshold of interrupts (findings'). irq_fix:
 * the command that plans the IRQ changes, for a problem the plan has none
 * for. 0 or -ENOMEM. */
int np_app_problems(const struct np_machine *m, const struct np_app *app, enum np_rule_id rule,
		    unsigned long long min_interrupts, struct np_app_problem **v, size_t *n);
void np_app_problems_free(struct np_app_problem *v, size_t n);
/* Resident memory off a node under this many KiB is a problem of no weight. */
#define NP_APP_MIN_KIB 65536ULL
/* Clock ticks a second in stat's times (USER_HZ: 100 on every Linux ABI). */
#define NP_USER_HZ 100

#endif
