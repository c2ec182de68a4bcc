/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A transaction as its journal holds it (the state directory's ID.json):
 * the record in memory, its text and back, and the checks a journal read
 * from disk must pass before anything is reverted from it. The lowest of the
 * transaction layer's three parts: txn-journal, txn-store (the state
 * directory), txn (the engine). */
#ifndef NUMAPLACE_TXN_JOURNAL_H
#define NUMAPLACE_TXN_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/context.h"
#include "change/attr.h"

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

/* ---- for the transaction layer only ---- */

#define ID_MAX 96

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

#endif
