/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Transactional writes to sysfs/procfs: every old value saved durably before
 * the first write, every write read back, everything undone if one fails,
 * and any transaction revertible later, even after a crash. */
#ifndef NUMAPLACE_TXN_H
#define NUMAPLACE_TXN_H

#include <stdbool.h>
#include <stddef.h>

#include "change/txn-store.h"

/* Test builds only: exit(3) right after this many writes of a
 * transaction (an apply's, or a revert's), as a crash would. np_txn_fault_after says how many (0: never); the library's is a
 * weak 0 that tests/testing.c, linked into test binaries only, overrides. */
#define NP_FAULT_ENV "NUMAPLACE_FAULT_AFTER_WRITES"
long np_txn_fault_after(void);
/* With it, NP_FAULT_SIGNAL_ENV=SIG (TERM, INT, HUP, KILL...) raises that
 * signal at the fault instead: a kill from outside at that very write. */
#define NP_FAULT_SIGNAL_ENV "NUMAPLACE_FAULT_SIGNAL"
int np_txn_fault_signal(void);

/* Whether the current value at path equals value once both are normalized.
 * Returns 1 equal, 0 different, -errno when unreadable (detail in ctx->err). */
int np_value_matches(struct np_ctx *ctx, const char *path, enum np_value_kind kind, const char *value);
/* The same, handing back the text read (malloc'd) in *current: one read for
 * who shows the value that drifted (hold). *current is NULL on error. */
int np_value_matches_current(struct np_ctx *ctx, const char *path, enum np_value_kind kind,
			     const char *value, char **current);

/* Applies changes (made by np_change_make, or path, attr, subject and
 * new_value filled by the caller; a path must be its attr's own) as one
 * transaction: lock, read every old value, write the journal durably (fsync
 * of file and directory), write each value and read it back, and on any
 * failure undo the writes made so far in reverse order and mark the journal
 * rolled back. Changes whose value already matches are dropped first; when
 * none is left nothing is written and *txn_out->nchanges is 0 (no journal).
 * On success txn_out holds the applied transaction (free with np_txn_free).
 * A journal that cannot be rewritten once the values are written (a full
 * state directory) has the values put back too. Errors: -errno with
 * ctx->err naming the file and the kernel's error text, and saying exactly
 * what was left; when a transaction is left pending (its revert must come
 * before any other apply) txn_out->id names it, state NP_TXN_PENDING.
 * A value whose target is gone (a thread that exited: its access method's
 * -ESRCH) is skipped, not a failure: marked gone (in changes[] when gone
 * before the apply read it, in txn_out's when gone by its write).
 * An unfinished transaction refuses the apply (-EBUSY), unless it is the
 * apply's own to roll back (opts->recover). A terminating signal of
 * opts->stop stops the writes (-EINTR): the transaction is rolled back. */
int np_txn_apply(struct np_ctx *ctx, const struct np_txn_opts *opts, const char *profile,
		 struct np_change *changes, size_t nchanges, struct np_txn *txn_out);

/* Restores the old values of transaction id (NULL: the latest one that is
 * applied or pending) through the same write/read-back/rollback machinery.
 * First a kind's access method may add the values its journal lacks (a
 * move's threads started since: marked added, journaled with the others)
 * or refuse (a move's process is not this machine's). A value changed by
 * someone else since the apply is refused unless force (-EBUSY, listing it
 * in ctx->err), but for a kind that keeps theirs (a thread re-pinned by its
 * application: left, marked theirs); a value already at its old value is not
 * (it is left as it is), nor one whose target is gone (a thread that
 * exited, or whose TID a newer thread has: marked gone, nothing written
 * there), nor, in a hold session, a value that a later
 * transaction of the same session found there (a driver's reset it re-applied
 * over), so that its transactions revert in any order; a transaction from an earlier boot is
 * marked stale and nothing is written (-ESTALE), but for its files that
 * survive a reboot (np_attrs[].survives_reboot: configuration files), which
 * are restored as by a revert, drift checked, before it is marked stale.
 * Journals from before the attr table (a value "kind" and a path) load: the
 * path tells the attr, and one that is no kind's own path is refused.
 * With opts->dry_run it takes no lock and writes nothing (not even the journal
 * of a stale transaction): txn_out holds only the changes the revert would
 * write, each new_value replaced by the value it would overwrite now. */
int np_txn_revert(struct np_ctx *ctx, const struct np_txn_opts *opts, const char *id, bool force,
		  struct np_txn *txn_out);

/* What np_txn_apply of profile with opts->recover does first, alone: the
 * unfinished transaction of the profile (or of opts->session) rolled back,
 * into txn_out (id NULL: none; state NP_TXN_STALE: one from an earlier boot,
 * marked so). With opts->dry_run, no lock and nothing written: txn_out is
 * the plan (as np_txn_revert's dry run), and an error says what the apply
 * would meet: an unfinished transaction of another profile (-EBUSY), or a
 * value someone else changed since (-EBUSY, naming it). */
int np_txn_recover(struct np_ctx *ctx, const struct np_txn_opts *opts, const char *profile,
		   struct np_txn *txn_out);

#endif
