/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the two parts of numaplace trial share, and nobody else: trial.c
 * (the options and the runner: the plan, the switches between the states,
 * CMD's runs) and trial-report.c (the statistics, the verdict and its keep
 * transaction, the table, the JSON and trial.json). */
#ifndef NUMAPLACE_CMD_TRIAL_H
#define NUMAPLACE_CMD_TRIAL_H

#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "change/pipeline.h"
#include "cmd.h"
#include "render/output.h"

struct seed_opt {
	bool set;
	unsigned long long value;
};

struct trial_opts {
	int pairs, warmup, timeout;
	int keep_output;    /* KiB of each run's output kept, its last ones */
	double settle, min_gain;
	const char *metric, *state_dir;
	bool lower, json, pretty, keep_going, require_keep;
	struct seed_opt seed;
	struct np_dirlist dirs;
	enum np_irqb_mode irqbalance;
	struct np_table_opts table;
};

enum arm { ARM_BASELINE, ARM_PROFILE };
extern const char *const trial_arm_names[];

struct run {
	size_t number;      /* 1-based, warm-ups first */
	enum arm arm;
	bool warmup;
	size_t pair;        /* 0-based, for counted runs */
	bool done, ok;      /* ran; exited 0 with a value */
	double value;       /* NAN when there is none */
	int status;         /* exit status, 128 + signal when killed */
	bool timed_out;
	double seconds;
	/* Its output's last keep_output KiB, held until the machine is at its
	 * baseline, then written (saved) and freed. */
	char *kept;
	size_t nkept;
	unsigned long long bytes; /* all it wrote */
	bool saved;
	char output[PATH_MAX];
};

struct trial {
	struct np_ctx *ctx;
	const struct np_command *self;
	struct trial_opts *o;
	struct np_txn_opts topts;
	const char *profile_name;
	struct np_pipeline *pipeline; /* the profile's changes and the irqbalance ban, last */
	char **cmd;
	char id[64];
	char dir[PATH_MAX];
	int dirfd;          /* dir, open and locked while the trial runs */
	uint64_t seed;
	regex_t re;
	bool has_re, progress;
	struct run *runs;
	size_t nruns;
	/* The trial's transactions applied now, to revert newest first. */
	char **applied;
	size_t napplied;
	enum arm state;
	bool restore_failed;
	size_t reapplied;
	/* The terminating signals, blocked and read from sigfd; stop is the
	 * first that came (0: none), stop_again a second. */
	int sigfd;
	sigset_t sigs, oldmask;
	int stop;
	bool stop_again;
	/* This machine, whatever --root says: CMD's processes are its. */
	struct np_ctx live;
	/* numaplace's own children before the first run (an archive root's
	 * remover): never CMD's. */
	int *own;
	size_t nown;
};

/* The columns of a run, and those shown unless -o says otherwise. */
extern const struct np_column trial_run_columns[];
#define TRIAL_RUN_DEFAULTS "run,arm,value,status,seconds"

/* The median of the counted values of arm so far; NAN when none. */
double trial_arm_median(const struct trial *t, enum arm arm);
/* After the runs, with the machine at its baseline: the statistics, the
 * keep transaction when the verdict is keep, trial.json and the report.
 * Returns an exit status. */
int trial_conclude(struct trial *t);

#endif
