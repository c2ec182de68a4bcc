/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where numaplace trial keeps what it leaves: STATE/trials/ID/ (STATE the
 * state directory: --state-dir, else /var/lib/numaplace under the root), a
 * directory a trial, holding each run's output and trial.json. A running
 * trial holds a lock on its directory (flock), so that a prune never takes
 * the outputs of a trial under way. */
#ifndef NUMAPLACE_TRIAL_OUTPUTS_H
#define NUMAPLACE_TRIAL_OUTPUTS_H

#include <stddef.h>

#include "base/context.h"

#define NP_TRIALS_SUBDIR "trials"

/* Makes STATE/trials/ID, the parents it lacks too, and locks it: its path
 * into path (PATH_MAX bytes), *dirfd the directory, open, whose lock lasts
 * until it is closed. -EEXIST when that trial's directory exists already. */
int np_trial_dir_create(struct np_ctx *ctx, const char *state_dir, const char *id, char *path, int *dirfd);

/* Removes the directories of the trials older than the newest keep, the
 * files in them with them, but for a trial that still runs (its lock held).
 * Only names a trial gives its directory are touched. The ids removed,
 * oldest first, in *removed (NULL when none; free each and the array). A
 * state directory without trials has nothing to prune. */
int np_trial_dirs_prune(struct np_ctx *ctx, const char *state_dir, size_t keep, char ***removed,
			size_t *nremoved);

#endif
