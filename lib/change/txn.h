/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Transactional writes to sysfs/procfs: every old value saved durably before
 * the first write, every write read back, everything undone if one fails,
 * and any transaction revertible later, even after a crash. */
#ifndef NUMAPLACE_TXN_H
#define NUMAPLACE_TXN_H

#include <stdbool.h>
#include <stddef.h>

#include "change/attr.h"
#include "base/context.h"

#define NP_STATE_DIR "/var/lib/numaplace"
/* Test builds only: exit(3) right after this many writes, as a crash
 * would. np_txn_fault_after says how many (0: never); the library's is a
 * weak 0 that tests/testing.c, linked into test binaries only, overrides. */
#define NP_FAULT_ENV "NUMAPLACE_FAULT_AFTER_WRITES"
long np_txn_fault_after(void);

enum np_txn_state {
	NP_TXN_PENDING,     /* journal written, writes may be partly done: crash or kill */
	NP_TXN_APPLIED,
	NP_TXN_ROLLED_BACK, /* a write failed and the earlier ones were undone */
	NP_TXN_REVERTED,
	NP_TXN_STALE,       /* from an earlier boot: the reboot reset the values */
	NP_TXN_UNREADABLE,  /* a journal file that is malformed, a link or unreadable:
			     * listed with the reason, never reverted */
};

struct np_txn {
	char *id;           /* "20261130-031500-1234": sortable, unique */
	char *profile;      /* name or path of the profile applied */
	char *cause;        /* what made it, as hold says ("add net eth4",
			     * "interval check"); NULL for apply and revert, and
			     * in journals from before the field */
	char *session;      /* a re-apply of hold: the id of its session's first
			     * transaction (which has none); NULL otherwise */
	char *trial;        /* numaplace trial's evidence when a trial kept
			     * it (one line); NULL otherwise */
	char *boot_id;
	long long time;     /* seconds since the epoch */
	enum np_txn_state state;
	struct np_change *changes;
	size_t nchanges;
	char *unreadable;   /* NP_TXN_UNREADABLE: the file and why, else NULL */
};

struct np_txn_opts {
	const char *state_dir;   /* NULL: NP_STATE_DIR under the context's root */
	bool wait_for_lock;      /* false: fail at once when another apply holds the lock */
	unsigned lock_timeout;   /* with wait_for_lock: give up (-EBUSY) after this many
				  * seconds; 0 waits as long as it takes */
	bool dry_run;            /* np_txn_revert: check and plan, take no lock, write nothing */
	const char *cause;       /* np_txn_apply: kept in the journal as the transaction's cause */
	const char *session;     /* np_txn_apply: kept in the journal as the transaction's session
				  * (hold: the id of its first transaction) */
	const char *trial;       /* np_txn_apply: the trial's evidence, kept in the journal */
	/* np_txn_apply: asked after the writes for more changes of the same
	 * transaction (move: the threads that appeared meanwhile), again after
	 * those are written, until it hands back none; their old values are
	 * journaled before they are written, as the first ones'. The changes
	 * stay the callback's (old_value filled as np_txn_apply's own). */
	int (*more)(struct np_ctx *ctx, void *arg, struct np_change **changes, size_t *n);
	void *more_arg;
};

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
 * before the apply read it, in txn_out's when gone by its write). */
int np_txn_apply(struct np_ctx *ctx, const struct np_txn_opts *opts, const char *profile,
		 struct np_change *changes, size_t nchanges, struct np_txn *txn_out);

/* Restores the old values of transaction id (NULL: the latest one that is
 * applied or pending) through the same write/read-back/rollback machinery.
 * A value changed by someone else since the apply is refused unless force
 * (-EBUSY, listing it in ctx->err); a value already at its old value is not
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

/* The transactions of id's hold session (id: any of them; NULL: the session
 * of the latest applied or pending transaction) that are still applied or
 * pending, newest first: the order in which reverting them undoes the
 * session. A transaction of no session is a session of one. */
int np_txn_session(struct np_ctx *ctx, const struct np_txn_opts *opts, const char *id, char ***ids,
		   size_t *count);

/* Every transaction in the state directory, oldest first; a journal that
 * cannot be read is listed as NP_TXN_UNREADABLE, the others as they are. */
int np_txn_list(struct np_ctx *ctx, const struct np_txn_opts *opts, struct np_txn **txns, size_t *count);
/* The id of an unfinished (pending) journal, if any: the caller must tell the
 * user to run revert before writing again. Returns 0 and *id NULL when none. */
int np_txn_pending(struct np_ctx *ctx, const struct np_txn_opts *opts, char **id);
/* How many transactions np_txn_prune keeps when the caller has no opinion
 * (apply prunes to it after each transaction: apply --boot adds one a boot). */
#define NP_TXN_KEEP 50
/* Removes the journals of transactions older than the newest keep that can
 * no longer be reverted to any effect: reverted, rolled back, stale, and
 * applied during an earlier boot without a file that survives a reboot.
 * Applied transactions of this boot and pending ones are never removed, so
 * more than keep may remain. Takes the lock as apply does. The ids removed,
 * oldest first, in *removed (NULL when none; free each and the array). */
int np_txn_prune(struct np_ctx *ctx, const struct np_txn_opts *opts, size_t keep, char ***removed,
		 size_t *nremoved);
/* A journal's text (the state directory's ID.json) and back, for tools and
 * the fuzz harness: the same checks as a revert makes (path names the file
 * in messages; id is what its name says). *error gets its "error", or NULL. */
int np_txn_parse(struct np_ctx *ctx, const char *path, const char *id, const char *text, size_t len,
		 struct np_txn *txn, char **error);
/* The journal text of txn (malloc'd), with error unless NULL; NULL on ENOMEM. */
char *np_txn_format(const struct np_txn *txn, const char *error);
void np_txn_free(struct np_txn *txn);
void np_txns_free(struct np_txn *txns, size_t count);
const char *np_txn_state_name(enum np_txn_state state);

#endif
