/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where transactions are kept: the state directory, its lock, the list of
 * journals, new ids, retention, hold sessions. What every transaction call
 * is given (np_txn_opts) is said here, where its state directory and lock
 * are used. */
#ifndef NUMAPLACE_TXN_STORE_H
#define NUMAPLACE_TXN_STORE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "change/stop.h"
#include "change/txn-journal.h"

#define NP_STATE_DIR "/var/lib/numaplace"
/* At boot, another apply holding the lock is unusual (a revert by hand, a
 * second unit): apply --boot and hold's first apply wait for it, but never
 * hold the boot up for long. */
#define NP_BOOT_LOCK_TIMEOUT 30

struct np_txn_opts {
	const char *state_dir;   /* NULL: NP_STATE_DIR under the context's root */
	bool wait_for_lock;      /* false: fail at once when another apply holds the lock */
	unsigned lock_timeout;   /* with wait_for_lock: give up (-EBUSY) after this many
				  * seconds, or at a pending stop (-EINTR); 0 waits as
				  * long as it takes */
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
	/* np_txn_apply and np_txn_revert: blocked signals (struct np_stop's
	 * stops) that, once pending, stop the writes: those made are undone
	 * and -EINTR returned, naming the signal. NULL: none. */
	const sigset_t *stop;
	/* np_txn_apply: an unfinished (pending) transaction of the same
	 * profile, or of session, is rolled back first, as a plain revert
	 * would (each value checked; one that someone else changed since
	 * refuses, naming it), instead of refusing the apply: a kill (-9, a
	 * power cut) of a hold or an apply needs no one to revert by hand, as
	 * SQLite's next opener rolls back a hot journal. What it rolled back
	 * goes to *recovered (what was there freed first) unless recovered is
	 * NULL; when there is none, *recovered is left as it is. */
	bool recover;
	struct np_txn *recovered;
};

/* The transactions of id's hold session (id: any of them; NULL: the session
 * of the latest applied or pending transaction) that are still applied or
 * pending, newest first: the order in which reverting them undoes the
 * session. A transaction of no session is a session of one. */
int np_txn_session(struct np_ctx *ctx, const struct np_txn_opts *opts, const char *id, char ***ids,
		   size_t *count);

/* One hold per state directory, for two would undo each other's values:
 * the state directory's lock "hold.pid", made when missing, held for as
 * long as *fd stays open, with the PID of its holder in it. -EBUSY naming
 * the PID of the hold that has it. */
int np_txn_hold_claim(struct np_ctx *ctx, const struct np_txn_opts *opts, int *fd);

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

/* ---- for the transaction layer only ---- */

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"
#define UNKNOWN_BOOT "unknown"
#define TXN_SUBDIR "txn"
#define LOCK_NAME "lock"
#define HOLD_NAME "hold.pid"
#define JOURNAL_EXT ".json"
#define TMP_EXT ".tmp"
/* A journal holds one entry per written file; this bounds what a corrupt
 * file can make us allocate while leaving room for very large machines. */
#define JOURNAL_MAX_BYTES (256u << 20)

struct txn_store {
	char dir[PATH_MAX];
	char txndir[PATH_MAX + sizeof(TXN_SUBDIR) + 1];
	int dirfd; /* -1: the state directory does not exist (read-only callers) */
	int txnfd; /* -1: no journal was ever written */
	int lockfd;
};

int txn_state_open(struct np_ctx *ctx, const struct np_txn_opts *opts, bool create,
		   struct txn_store *st);
void txn_state_close(struct txn_store *st);
int txn_state_lock(struct np_ctx *ctx, const struct np_txn_opts *opts, struct txn_store *st);
int txn_write_journal(struct np_ctx *ctx, struct txn_store *st, const struct np_txn *txn,
		      const char *error);
int txn_write_journal_sync(struct np_ctx *ctx, struct txn_store *st, const struct np_txn *txn,
			   const char *error, bool sync_dir);
int txn_journal_load(struct np_ctx *ctx, struct txn_store *st, const char *id, struct np_txn *txn,
		     char **error);
int txn_load_all(struct np_ctx *ctx, struct txn_store *st, struct np_txn **txns, size_t *count);
int txn_new_id(struct np_ctx *ctx, struct txn_store *st, time_t now, char **id);
int txn_read_boot_id(struct np_ctx *ctx, char **out);
bool txn_boot_differs(const char *a, const char *b);
int txn_pick(struct np_ctx *ctx, struct txn_store *st, const char *id, char **picked);
/* Keeps hold's journals bounded: latest, a re-apply just applied, makes
 * each earlier applied re-apply of its session drop the values it rewrote,
 * but for the session's first change of each value (what the session's
 * revert restores); a journal left with none is removed. So a session holds
 * at most two changes per value it sets. Under the lock; best effort (a
 * failure leaves more journals, never a wrong one). */
void txn_fold_session(struct np_ctx *ctx, struct txn_store *st, const struct np_txn *latest);

#endif
