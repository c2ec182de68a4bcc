/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the three parts of the transaction layer share, and nobody else:
 * txn-journal.c (a journal's text and the transaction in memory),
 * txn-store.c (the state directory: lock, list, ids, prune) and txn.c (the
 * engine: write, read back, undo, revert). */
#ifndef NUMAPLACE_TXN_INTERNAL_H
#define NUMAPLACE_TXN_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "change/txn.h"

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"
#define UNKNOWN_BOOT "unknown"
#define TXN_SUBDIR "txn"
#define LOCK_NAME "lock"
#define JOURNAL_EXT ".json"
#define TMP_EXT ".tmp"
#define ID_MAX 96
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

static inline bool attr_valid(enum np_attr attr)
{
	return (unsigned)attr < NP_ATTR_COUNT;
}

/* How a change's value is read, written and compared. */
static inline enum np_value_kind kind_of(const struct np_change *c)
{
	return np_attrs[c->attr].value;
}

static inline const char *subject_of(const struct np_change *c)
{
	return c->subject ? c->subject : "";
}

/* ---- txn-journal.c ---- */

/* A value as the user sees it: without the newlines a file ends in. */
char *txn_trimmed(const char *value);
/* Every value of txn trimmed so, for handing back to callers. */
int txn_trim_values(struct np_txn *txn);
bool txn_same_value(enum np_value_kind kind, const char *a, const char *b);
bool txn_path_fits(const char *path, enum np_attr attr);
bool txn_survives_reboot(const struct np_change *c);
bool txn_has_survivor(const struct np_txn *txn);
bool txn_id_valid(const char *id);
/* The hold session txn belongs to: its session's first id, or its own. */
static inline const char *txn_session_of(const struct np_txn *txn)
{
	return txn->session ? txn->session : txn->id;
}

/* ---- txn-store.c ---- */

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
int txn_refuse_pending(struct np_ctx *ctx, struct txn_store *st);
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
