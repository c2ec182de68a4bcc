/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The engine: values read, written and read back; apply, undo and revert.
 * The journal format is txn-journal.c's, the state directory txn-store.c's. */
#include "change/txn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/conffile.h"
#include "change/irqbalance.h"
#include "read/sysfs.h"

/* ROOT + path for messages, so the user sees the file really touched. */
static const char *full_path(struct np_ctx *ctx, const char *path, char *buf)
{
	char saved[sizeof(ctx->err)];
	memcpy(saved, ctx->err, sizeof(saved));
	if (np_sysfs_path(ctx, buf, "%s", path)) {
		memcpy(ctx->err, saved, sizeof(saved));
		snprintf(buf, PATH_MAX, "%s", path);
	}
	return buf;
}

/* Every value is read whole, byte for byte, so that a revert restores
 * exactly what was there ("0-15" without a newline stays so). */
static int read_value(struct np_ctx *ctx, enum np_value_kind kind, const char *path, char **out)
{
	size_t len;
	const struct np_attr_access *access = np_attr_access_of(path);
	if (access)
		return access->read(ctx, path, out);
	if (kind == NP_VALUE_TEXT)
		return np_conf_read(ctx, path, out);
	return np_read_bytes(ctx, out, &len, "%s", path);
}

/* A configuration file is replaced by a rename, never truncated and
 * rewritten: a crash leaves the old text or the new, both in the journal.
 * exact: the bytes read before (a revert or an undo); else a value of the
 * profile, newline-terminated as the kernel prints it. */
static int write_value(struct np_ctx *ctx, enum np_value_kind kind, const char *path,
		       const char *value, bool exact)
{
	const struct np_attr_access *access = np_attr_access_of(path);
	if (access)
		return access->write(ctx, path, value);
	if (kind == NP_VALUE_TEXT)
		return np_conf_write(ctx, path, value, 0, false);
	if (exact)
		return np_write_bytes(ctx, value, strlen(value), "%s", path);
	return np_write_text(ctx, value, "%s", path);
}

/* A value quoted in a message: np_excerpt without the trailing newlines. */
static const char *show(const char *value, char *buf, size_t size)
{
	size_t len = strlen(value);
	while (len && value[len - 1] == '\n')
		len--;
	return np_excerpt_n(value, len, buf, size);
}

/* A value of c quoted in a drift message: a CPU mask as its list ("off"
 * when empty), as verify and revert --dry-run show it, not the file's hex. */
static const char *shown(const struct np_change *c, const char *value, char *buf, size_t size)
{
	char *list = kind_of(c) == NP_VALUE_CPUMASK ? np_value_normalize(NP_VALUE_CPUMASK, value) : NULL;
	if (!list)
		return show(value, buf, size);
	np_excerpt(*list ? list : "off", buf, size);
	free(list);
	return buf;
}

/* Reads the value at path; 1 when it equals value once both are normalized,
 * 0 when not, -errno when unreadable or malformed. *current gets the raw
 * text when asked for, and is NULL on error. */
static int current_matches(struct np_ctx *ctx, const char *path, enum np_value_kind kind,
			   const char *value, char **current)
{
	char fp[PATH_MAX], ex[64];
	char *want = np_value_normalize(kind, value), *cur = NULL, *have = NULL;
	int rc;

	if (current)
		*current = NULL;
	if (!want) {
		rc = np_fail(ctx, -EINVAL, "'%s' is not a valid %s value for '%s'",
			     np_excerpt(value ? value : "", ex, sizeof(ex)), np_value_kind_name(kind),
			     full_path(ctx, path, fp));
		goto out;
	}
	rc = read_value(ctx, kind, path, &cur);
	if (rc)
		goto out;
	have = np_value_normalize(kind, cur);
	if (!have) {
		rc = np_fail(ctx, -EINVAL, "'%s': expected a %s value, found '%s'",
			     full_path(ctx, path, fp), np_value_kind_name(kind),
			     show(cur, ex, sizeof(ex)));
		goto out;
	}
	rc = strcmp(want, have) == 0;
	if (current) {
		*current = cur;
		cur = NULL;
	}
out:
	free(want);
	free(have);
	free(cur);
	return rc;
}

int np_value_matches(struct np_ctx *ctx, const char *path, enum np_value_kind kind,
		     const char *value)
{
	return current_matches(ctx, path, kind, value, NULL);
}

int np_value_matches_current(struct np_ctx *ctx, const char *path, enum np_value_kind kind,
			     const char *value, char **current)
{
	return current_matches(ctx, path, kind, value, current);
}

/* How a change is named to the user: its subject, else its path. */
static const char *display_name(const struct np_change *c)
{
	return c->subject && *c->subject ? c->subject : c->path;
}

/* A value whose target no longer exists (a thread that exited): nothing
 * to write, restore or undo there. Only access methods say so; a file
 * that vanished is an error as ever. */
static bool gone(int rc, const struct np_change *c)
{
	return rc == -ESRCH && np_attr_access_of(c->path);
}

/* Appends the change's subject to the detail already in ctx->err. */
static int with_subject(struct np_ctx *ctx, int rc, const struct np_change *c)
{
	char detail[sizeof(ctx->err)];
	if (!*subject_of(c))
		return rc;
	memcpy(detail, ctx->err, sizeof(detail));
	return np_fail(ctx, rc, "%s (%s)", detail, c->subject);
}

/* The copy's target is read from its (validated) path, as a journal's is:
 * a transaction never holds a target its path does not say. */
static int change_copy(struct np_change *dst, const struct np_change *src)
{
	dst->attr = src->attr;
	dst->path = strdup(src->path);
	dst->subject = strdup(subject_of(src));
	dst->old_value = strdup(src->old_value);
	dst->new_value = strdup(src->new_value);
	if (!dst->path || !dst->subject || !dst->old_value || !dst->new_value ||
	    np_attr_match(dst->path, &dst->target) != (int)dst->attr) {
		np_change_free(dst);
		return -ENOMEM;
	}
	return 0;
}

/* 0: the release binary never reads NP_FAULT_ENV; test builds link
 * tests/testing.c, whose definition does. */
__attribute__((weak)) long np_txn_fault_after(void)
{
	return 0;
}

/* 0: as np_txn_fault_after. A signal number: the fault raises it instead
 * of ending the process, as a kill at that moment would. */
__attribute__((weak)) int np_txn_fault_signal(void)
{
	return 0;
}

/* The name of a terminating signal that is pending and stops the writes
 * (opts->stop), else NULL. */
static const char *stop_requested(const struct np_txn_opts *opts)
{
	int sig = opts ? np_stop_pending(opts->stop) : 0;
	return sig ? np_stop_name(sig) : NULL;
}

/* One write and its read-back. *written tells the caller whether the file
 * may have changed, so that a mismatching value is undone too. */
static int write_checked(struct np_ctx *ctx, const struct np_change *c, const char *value,
			 bool exact, bool *written)
{
	char fp[PATH_MAX], ex[64], ex2[64];
	char *cur;

	*written = false;
	int rc = write_value(ctx, kind_of(c), c->path, value, exact);
	if (rc)
		return with_subject(ctx, rc, c);
	*written = true;
	rc = current_matches(ctx, c->path, kind_of(c), value, &cur);
	if (rc == 0)
		rc = np_fail(
			ctx, -EIO,
			"wrote '%s' to '%s' but it reads back '%s': the kernel did not take the value",
			show(value, ex, sizeof(ex)), full_path(ctx, c->path, fp),
			show(cur, ex2, sizeof(ex2)));
	free(cur);
	if (rc == 1)
		return 0;
	return with_subject(ctx, rc, c);
}

/* One write of an apply or a revert: i goes into done[] when the value may
 * have changed (to be undone); a target gone meanwhile (a thread that
 * exited) is marked so, and no error: nothing of it to undo or restore. */
static int write_step(struct np_ctx *ctx, struct np_change *c, const char *value, bool exact, size_t i,
		      size_t *done, size_t *ndone)
{
	bool written;
	int rc = write_checked(ctx, c, value, exact, &written);
	if (gone(rc, c)) {
		c->gone = true;
		return 0;
	}
	if (written)
		done[(*ndone)++] = i;
	return rc;
}

/* Test builds: after the K-th write of a transaction (NP_FAULT_ENV), the
 * crash, or the signal a kill would send at that moment. *nwrites: the
 * transaction's count. */
static void fault_point(const struct np_change *c, long *nwrites)
{
	long k = np_txn_fault_after();
	if (!k || c->gone || ++*nwrites != k)
		return;
	int sig = np_txn_fault_signal();
	if (!sig)
		_exit(3);
	raise(sig);
}

/* Writes values[done[j]] back for j from last to first, reading each back.
 * Goes on past a failure so that as much as possible is restored; returns
 * the first error, its detail copied to err. */
static int undo_writes(struct np_ctx *ctx, const struct np_change *changes, char *const *values,
		       const size_t *done, size_t ndone, char *err, size_t errsize)
{
	int first = 0;
	for (size_t j = ndone; j-- > 0;) {
		bool written;
		int rc = write_checked(ctx, &changes[done[j]], values[done[j]], true, &written);
		if (gone(rc, &changes[done[j]]))
			continue;
		if (rc && !first) {
			first = rc;
			snprintf(err, errsize, "%s", ctx->err);
		}
	}
	return first;
}

static int by_path(const void *a, const void *b)
{
	return strcmp((*(const struct np_change *const *)a)->path,
		      (*(const struct np_change *const *)b)->path);
}

static int validate_changes(struct np_ctx *ctx, const struct np_change *changes, size_t n)
{
	char ex[64];
	int rc = 0;

	if (n && !changes)
		return np_fail(ctx, -EINVAL, "no changes given");
	for (size_t i = 0; i < n; i++) {
		const struct np_change *c = &changes[i];
		if (!attr_valid(c->attr))
			return np_fail(ctx, -EINVAL, "%s: unknown kind %d for '%s'",
				       display_name(c), (int)c->attr, c->path ? c->path : "(null)");
		if (!txn_path_fits(c->path, c->attr))
			return np_fail(ctx, -EINVAL, "%s: '%s' is not the path of %s (%s)",
				       c->subject && *c->subject ? c->subject : "change",
				       c->path ? c->path : "(null)", np_attr_name(c->attr),
				       np_attrs[c->attr].path);
		if (!np_attr_value_ok(c->attr, c->new_value))
			return np_fail(
				ctx, -EINVAL, "%s: '%s' is not a valid %s value for '%s'",
				display_name(c),
				np_excerpt(c->new_value ? c->new_value : "(null)", ex, sizeof(ex)),
				np_attr_name(c->attr), c->path);
	}
	/* Two changes of one file would journal the same old value twice and
	 * make the first one's "new" look changed by someone else at revert. */
	const struct np_change **sorted = n ? malloc(n * sizeof(*sorted)) : NULL;
	if (n && !sorted)
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	for (size_t i = 0; i < n; i++)
		sorted[i] = &changes[i];
	if (n)
		qsort(sorted, n, sizeof(*sorted), by_path);
	for (size_t i = 1; i < n && !rc; i++)
		if (!strcmp(sorted[i - 1]->path, sorted[i]->path))
			rc = np_fail(ctx, -EINVAL, "two changes of '%s' (%s; %s)", sorted[i]->path,
				     subject_of(sorted[i - 1]), subject_of(sorted[i]));
	free(sorted);
	return rc;
}

/* Fills changes[].old_value and keeps in txn the changes that differ. */
static int read_old_values(struct np_ctx *ctx, struct np_change *changes, size_t n,
			   struct np_txn *txn)
{
	char fp[PATH_MAX], ex[64];

	/* Appended to what txn holds already (a move's threads that appeared). */
	struct np_change *grown = n ? realloc(txn->changes, (txn->nchanges + n) * sizeof(*grown)) : txn->changes;
	if (n && !grown)
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	txn->changes = grown;
	if (n)
		memset(grown + txn->nchanges, 0, n * sizeof(*grown));
	for (size_t i = 0; i < n; i++) {
		struct np_change *c = &changes[i];
		char *old;
		int rc = read_value(ctx, kind_of(c), c->path, &old);
		if (gone(rc, c)) {
			c->gone = true;
			continue;
		}
		if (rc)
			return with_subject(ctx, rc, c);
		/* Made from another text than is there now: someone wrote the file
		 * since; writing ours would drop what they wrote. */
		if (kind_of(c) == NP_VALUE_TEXT && c->old_value && strcmp(c->old_value, old)) {
			free(old);
			rc = np_fail(ctx, -EAGAIN,
				     "'%s' changed while numaplace prepared its change; run it again",
				     full_path(ctx, c->path, fp));
			return with_subject(ctx, rc, c);
		}
		/* An old value we could not compare could not be checked at revert either. */
		char *norm = np_value_normalize(kind_of(c), old);
		if (!norm) {
			rc = np_fail(ctx, -EINVAL, "'%s': expected a %s value, found '%s'",
				     full_path(ctx, c->path, fp), np_value_kind_name(kind_of(c)),
				     show(old, ex, sizeof(ex)));
			free(old);
			return with_subject(ctx, rc, c);
		}
		free(norm);
		free(c->old_value);
		c->old_value = old;
		bool same = txn_same_value(kind_of(c), old, c->new_value);
		if (!same && change_copy(&txn->changes[txn->nchanges++], c))
			return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		/* The journal keeps the bytes; the caller gets the value. */
		if (kind_of(c) != NP_VALUE_TEXT && !(c->old_value = txn_trimmed(old)))
			rc = -ENOMEM;
		free(kind_of(c) != NP_VALUE_TEXT ? old : NULL);
		if (rc)
			return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	return 0;
}

/* What opts->more hands over after the writes, appended to txn: checked,
 * old values read and journaled (pending) before any is written, as the
 * first ones were. txn is left as it was when none differs. */
static int more_changes(struct np_ctx *ctx, const struct np_txn_opts *opts, struct txn_store *st,
			struct np_txn *txn, char ***olds, size_t **done)
{
	struct np_change *more = NULL;
	size_t nmore = 0, had = txn->nchanges;
	int rc = opts->more(ctx, opts->more_arg, &more, &nmore);
	if (rc || !nmore || (rc = validate_changes(ctx, more, nmore)))
		return rc;
	for (size_t i = 0; i < nmore; i++)
		for (size_t j = 0; j < had; j++)
			if (!strcmp(more[i].path, txn->changes[j].path))
				return np_fail(ctx, -EINVAL, "two changes of '%s' (%s)", more[i].path, subject_of(&more[i]));
	if ((rc = read_old_values(ctx, more, nmore, txn)) || txn->nchanges == had)
		return rc;
	char **o = realloc(*olds, txn->nchanges * sizeof(*o));
	size_t *d = o ? realloc(*done, txn->nchanges * sizeof(*d)) : NULL;
	if (o)
		*olds = o;
	if (d)
		*done = d;
	if (!o || !d)
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	for (size_t i = 0; i < txn->nchanges; i++)
		o[i] = txn->changes[i].old_value;
	return txn_write_journal(ctx, st, txn, NULL);
}

static int settle_unfinished(struct np_ctx *ctx, const struct np_txn_opts *opts, struct txn_store *st,
			     const char *profile, struct np_txn *recovered);

int np_txn_apply(struct np_ctx *ctx, const struct np_txn_opts *opts, const char *profile,
		 struct np_change *changes, size_t nchanges, struct np_txn *txn_out)
{
	struct np_txn txn = { 0 };
	struct txn_store st = { .dirfd = -1, .txnfd = -1, .lockfd = -1 };
	char primary[sizeof(ctx->err)], undo_err[sizeof(ctx->err)], both[2 * sizeof(ctx->err) + 64];
	char **olds = NULL;
	size_t *done = NULL, ndone = 0;
	bool left_pending = false;
	long nwrites = 0;
	struct np_write_batch batch;
	const char *stop;
	int rc, batched = 0;

	if (txn_out)
		memset(txn_out, 0, sizeof(*txn_out));
	if ((rc = validate_changes(ctx, changes, nchanges)))
		return rc;
	batched = np_write_batch_begin(ctx, &batch);
	if ((rc = txn_state_open(ctx, opts, true, &st)) || (rc = txn_state_lock(ctx, opts, &st)) ||
	    (rc = settle_unfinished(ctx, opts, &st, profile, opts ? opts->recovered : NULL)))
		goto out;
	if ((rc = txn_read_boot_id(ctx, &txn.boot_id)) ||
	    (rc = read_old_values(ctx, changes, nchanges, &txn)))
		goto out;
	if (!txn.nchanges)
		goto out;
	if ((stop = stop_requested(opts))) {
		rc = np_fail(ctx, -EINTR, "stopped by %s before writing anything: nothing changed", stop);
		goto out;
	}

	txn.time = (long long)time(NULL);
	txn.state = NP_TXN_PENDING;
	if (!(txn.profile = strdup(profile ? profile : "")) ||
	    (opts && opts->cause && !(txn.cause = strdup(opts->cause))) ||
	    (opts && opts->session && !(txn.session = strdup(opts->session))) ||
	    (opts && opts->trial && !(txn.trial = strdup(opts->trial)))) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	olds = calloc(txn.nchanges, sizeof(*olds));
	done = calloc(txn.nchanges, sizeof(*done));
	if (!olds || !done) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	for (size_t i = 0; i < txn.nchanges; i++)
		olds[i] = txn.changes[i].old_value;
	if ((rc = txn_new_id(ctx, &st, (time_t)txn.time, &txn.id)) ||
	    (rc = txn_write_journal(ctx, &st, &txn, NULL)))
		goto out;

	for (size_t from = 0;;) {
		for (size_t i = from; i < txn.nchanges; i++) {
			if ((stop = stop_requested(opts))) {
				rc = np_fail(ctx, -EINTR, "stopped by %s after writing %zu of %zu values", stop, i,
					     txn.nchanges);
				break;
			}
			if ((rc = write_step(ctx, &txn.changes[i], txn.changes[i].new_value, false, i, done, &ndone)))
				break;
			fault_point(&txn.changes[i], &nwrites);
		}
		from = txn.nchanges;
		if (rc || !opts || !opts->more || (rc = more_changes(ctx, opts, &st, &txn, &olds, &done)) ||
		    txn.nchanges == from)
			break;
	}

	if (rc) {
		snprintf(primary, sizeof(primary), "%s", ctx->err);
		int urc = undo_writes(ctx, txn.changes, olds, done, ndone, undo_err,
				      sizeof(undo_err));
		if (urc) {
			/* Some values are still new: the journal stays pending so that
			 * a revert can finish the job, and apply stays refused. */
			snprintf(both, sizeof(both),
				 "%s; undoing the earlier writes failed too: %s", primary,
				 undo_err);
			txn_write_journal(ctx, &st, &txn, both);
			np_fail(ctx, rc,
				"%s; transaction %s is left pending: run 'numaplace revert' to retry",
				both, txn.id);
			left_pending = true;
			goto out;
		}
		txn.state = NP_TXN_ROLLED_BACK;
		if (txn_write_journal(ctx, &st, &txn, primary) == 0) {
			if (rc == -EINTR)
				np_fail(ctx, rc, "%s: they were put back, nothing changed (transaction %s rolled back)",
					primary, txn.id);
			else
				np_fail(ctx, rc, "%s", primary);
		} else {
			snprintf(undo_err, sizeof(undo_err), "%s", ctx->err);
			np_fail(ctx, rc, "%s; the writes were undone but %s", primary, undo_err);
			left_pending = true;
		}
		goto out;
	}

	/* Not worth a directory sync: until the next one, a crash leaves the
	 * pending journal, whole, whose recovery (revert) restores the old
	 * values it holds, as it would have after a crash a moment earlier.
	 * The pending journal itself was synced, name and all, before the
	 * first write. */
	txn.state = NP_TXN_APPLIED;
	if ((rc = txn_write_journal_sync(ctx, &st, &txn, NULL, false))) {
		/* The journal on disk still says pending while the machine holds
		 * the new values (a full state directory: the rewrite needs room
		 * the pending one took). Put the old values back so that both
		 * say "not applied", and say so. */
		snprintf(primary, sizeof(primary), "%s", ctx->err);
		int urc = undo_writes(ctx, txn.changes, olds, done, ndone, undo_err, sizeof(undo_err));
		if (urc) {
			np_fail(ctx, rc,
				"the values were written but %s; putting them back failed too: %s; "
				"transaction %s is left pending: run 'numaplace revert' to retry",
				primary, undo_err, txn.id);
			left_pending = true;
			goto out;
		}
		txn.state = NP_TXN_ROLLED_BACK;
		if (txn_write_journal(ctx, &st, &txn, primary) == 0) {
			np_fail(ctx, rc, "the values were written but %s; they were put back: nothing changed "
				"(transaction %s rolled back)", primary, txn.id);
		} else {
			np_fail(ctx, rc, "the values were written but %s; they were put back, and transaction %s "
				"is left pending with the old values: 'numaplace revert' marks it reverted, writing "
				"nothing, once the journal can be written", primary, txn.id);
			left_pending = true;
		}
		goto out;
	}
	if (txn.session)
		txn_fold_session(ctx, &st, &txn);
	if (txn_out && txn_trim_values(&txn) == 0) {
		*txn_out = txn;
		memset(&txn, 0, sizeof(txn));
	}
out:
	/* Who keeps writing (hold) must know which transaction to finish first. */
	if (rc && left_pending && txn_out && (txn_out->id = strdup(txn.id)))
		txn_out->state = NP_TXN_PENDING;
	np_write_batch_end(ctx, batched);
	free(olds);
	free(done);
	np_txn_free(&txn);
	txn_state_close(&st);
	return rc;
}

/* ---- revert ---- */

static int refuse_finished(struct np_ctx *ctx, const struct np_txn *txn)
{
	switch (txn->state) {
	case NP_TXN_REVERTED:
		return np_fail(ctx, -EINVAL,
			       "transaction %s was already reverted: nothing to revert", txn->id);
	case NP_TXN_ROLLED_BACK:
		return np_fail(
			ctx, -EINVAL,
			"transaction %s failed and was rolled back when applied: nothing to revert",
			txn->id);
	case NP_TXN_STALE:
		return np_fail(
			ctx, -EINVAL,
			"transaction %s is stale (applied during an earlier boot): nothing to revert",
			txn->id);
	default:
		return 0;
	}
}

/* Where the current value of c stands, and what its revert writes over it
 * (*restore, malloc'd; NULL when it is the old value already): the old
 * value, or for the irqbalance kind the file as it is now with only its
 * banned-IRQ lines put back, so that what else someone edited stays. The
 * journal's text is never written whole. */
enum held { HELD_NEW, HELD_OLD, HELD_OTHER };

static int revert_value(struct np_ctx *ctx, const struct np_change *c, const char *current,
			enum held *held, char **restore)
{
	*restore = NULL;
	if (c->attr == NP_ATTR_IRQBALANCE_CONFIG) {
		enum np_ban_state bans;
		int rc = np_irqbalance_unban_text(ctx, current, c->old_value, c->new_value, &bans, restore);
		*held = bans == NP_BANS_NEW ? HELD_NEW : bans == NP_BANS_OLD ? HELD_OLD : HELD_OTHER;
		return rc;
	}
	*held = txn_same_value(kind_of(c), current, c->new_value)   ? HELD_NEW
		: txn_same_value(kind_of(c), current, c->old_value) ? HELD_OLD
								: HELD_OTHER;
	if (*held != HELD_OLD && !(*restore = strdup(c->old_value)))
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	return 0;
}

/* Where value at c's path stands in txn's hold session, by the old values
 * the session's other transactions journaled there. SEEN_LATER: a later
 * re-apply found it (a driver's reset it wrote over): the session's own
 * history, and txn's revert still restores its old value. SEEN_EARLIER:
 * it was there before an earlier transaction of the session (an earlier
 * revert of the session put it back): what txn's revert would restore
 * already, so nothing is written. */
enum seen { SEEN_NOT, SEEN_LATER, SEEN_EARLIER };

static enum seen seen_by_session(const struct np_txn *txn, const struct np_change *c, const char *value,
				 const struct np_txn *all, size_t nall)
{
	const char *session = txn_session_of(txn);
	enum seen seen = SEEN_NOT;
	for (size_t k = 0; k < nall; k++) {
		const struct np_txn *other = &all[k];
		int order = strverscmp(other->id, txn->id);
		if (other->state == NP_TXN_UNREADABLE || !order || strcmp(txn_session_of(other), session))
			continue;
		for (size_t j = 0; j < other->nchanges; j++) {
			if (strcmp(other->changes[j].path, c->path) ||
			    !txn_same_value(kind_of(c), other->changes[j].old_value, value))
				continue;
			if (order < 0)
				return SEEN_EARLIER;
			seen = SEEN_LATER;
		}
	}
	return seen;
}

/* Reads every current value into before[], what the revert writes into
 * restore[] (NULL: nothing), and refuses values that someone else changed
 * since the transaction, unless force. A value at the old value already is
 * no one's change to refuse: nothing is written there; nor is one of its
 * hold session's history (seen_by_session). stale: only the values that
 * survive a reboot (the others stay NULL). all: every transaction. */
static int check_drift(struct np_ctx *ctx, struct np_txn *txn, bool force, const char *force_how, bool stale,
		       const struct np_txn *all, size_t nall, char **before, char **restore)
{
	char fp[PATH_MAX], ex[64], exn[64], exo[64];
	size_t ndrift = 0, first = 0;

	for (size_t i = 0; i < txn->nchanges; i++) {
		struct np_change *c = &txn->changes[i];
		enum held held;
		if (stale && !txn_survives_reboot(c))
			continue;
		/* A value that does not parse (a file emptied by hand, a foreign
		 * write) is drift like any other: --force restores over it. */
		int rc = read_value(ctx, kind_of(c), c->path, &before[i]);
		if (gone(rc, c)) {
			c->gone = true; /* nothing there to restore: said, not refused */
			continue;
		}
		if (rc < 0)
			return with_subject(ctx, rc, c);
		if ((rc = revert_value(ctx, c, before[i], &held, &restore[i])))
			return with_subject(ctx, rc, c);
		if (held == HELD_NEW || held == HELD_OLD)
			continue;
		if (np_attrs[c->attr].keep_theirs) {
			c->theirs = true; /* said, neither written nor refused */
			free(restore[i]);
			restore[i] = NULL;
			continue;
		}
		enum seen seen = kind_of(c) == NP_VALUE_TEXT ? SEEN_NOT : seen_by_session(txn, c, before[i], all, nall);
		if (seen == SEEN_EARLIER) {
			free(restore[i]);
			restore[i] = NULL;
		}
		if (seen != SEEN_NOT)
			continue;
		if (!ndrift++)
			first = i;
	}
	if (!ndrift || force)
		return 0;
	const struct np_change *c = &txn->changes[first];
	char more[64] = "";
	if (ndrift > 1)
		snprintf(more, sizeof(more), " (and %zu more)", ndrift - 1);
	/* The subject lists every IRQ banned (hundreds of words): cut, so that
	 * what to do still fits the message. */
	if (c->attr == NP_ATTR_IRQBALANCE_CONFIG)
		return np_fail(ctx, -EBUSY,
			       "'%s' (%s): its banned-IRQ lines (IRQBALANCE_ARGS) changed since transaction %s%s; "
			       "%s to put back the ones from before it anyway",
			       full_path(ctx, c->path, fp), np_excerpt(display_name(c), ex, sizeof(ex)), txn->id, more,
			       force_how);
	char expected[200];
	if (txn->state == NP_TXN_PENDING)
		snprintf(expected, sizeof(expected), "'%s' or '%s'",
			 shown(c, c->new_value, exn, sizeof(exn)),
			 shown(c, c->old_value, exo, sizeof(exo)));
	else
		snprintf(expected, sizeof(expected), "'%s'",
			 shown(c, c->new_value, exn, sizeof(exn)));
	return np_fail(ctx, -EBUSY,
		       "'%s' (%s) changed since transaction %s: it is '%s', expected %s%s; "
		       "%s to revert anyway",
		       full_path(ctx, c->path, fp), display_name(c), txn->id,
		       shown(c, before[first], ex, sizeof(ex)), expected, more, force_how);
}

/* What a revert would write: the changes whose current value (before[i],
 * taken over) is not the old one yet, in journal order, and those it would
 * leave as theirs with theirs; the text of a configuration file as it
 * would be written (restore[i], taken over). */
static void revert_plan(struct np_txn *txn, bool stale, char **before, char **restore)
{
	size_t n = 0;
	for (size_t i = 0; i < txn->nchanges; i++) {
		struct np_change *c = &txn->changes[i];
		if ((stale && !txn_survives_reboot(c)) || (!restore[i] && !c->gone && !c->theirs)) {
			np_change_free(c);
			continue;
		}
		if (c->gone) {
			/* Shown as gone: nothing read, nothing to restore. */
			txn->changes[n++] = *c;
			continue;
		}
		free(c->new_value);
		c->new_value = before[i];
		before[i] = NULL;
		if (kind_of(c) == NP_VALUE_TEXT) {
			free(c->old_value);
			c->old_value = restore[i];
			restore[i] = NULL;
		}
		txn->changes[n++] = *c;
	}
	txn->nchanges = n;
}

/* Whether the value at c's path is no longer what the drift check read
 * (before) once a channel change was reverted: the driver's own reset (an
 * IRQ it re-requested, XPS it rewrote), or the value is gone with its IRQ. */
static bool reset_by_driver(struct np_ctx *ctx, const struct np_change *c, const char *before)
{
	char *now = NULL, saved[sizeof(ctx->err)];
	memcpy(saved, ctx->err, sizeof(saved));
	int rc = read_value(ctx, kind_of(c), c->path, &now);
	memcpy(ctx->err, saved, sizeof(saved));
	bool reset = rc || !txn_same_value(kind_of(c), now, before);
	free(now);
	return reset;
}

/* One write of a revert (i of txn, nwrite in all), unless a stop
 * (opts->stop) is pending: then none, -EINTR. */
static int revert_step(struct np_ctx *ctx, const struct np_txn_opts *opts, struct np_txn *txn, size_t i,
		       const char *value, size_t *done, size_t *ndone, size_t nwrite)
{
	const char *stop = stop_requested(opts);
	if (stop)
		return np_fail(ctx, -EINTR, "stopped by %s after restoring %zu of %zu values", stop, *ndone, nwrite);
	long nwrites = (long)*ndone;
	int rc = write_step(ctx, &txn->changes[i], value, true, i, done, ndone);
	if (!rc)
		fault_point(&txn->changes[i], &nwrites);
	return rc;
}

/* The revert's writes (nwrite of them): the changes that reset queues first
 * (a channel count: the queues the others name exist again only after it),
 * then the others, last first. A value the driver rewrote when its channels
 * were restored is left as it set it, as on any channel change. */
static int revert_writes(struct np_ctx *ctx, const struct np_txn_opts *opts, struct np_txn *txn, char **before,
			 char **restore, size_t *done, size_t *ndone, size_t nwrite)
{
	bool reset = false;
	int rc = 0;
	for (size_t i = 0; i < txn->nchanges && rc == 0; i++) {
		if (!restore[i] || !np_attrs[txn->changes[i].attr].resets_queues)
			continue;
		rc = revert_step(ctx, opts, txn, i, restore[i], done, ndone, nwrite);
		reset = true;
	}
	for (size_t i = txn->nchanges; rc == 0 && i-- > 0;) {
		struct np_change *c = &txn->changes[i];
		if (!restore[i] || np_attrs[c->attr].resets_queues)
			continue;
		if (reset && !c->gone && before[i] && reset_by_driver(ctx, c, before[i]))
			c->reset = true;
		else
			rc = revert_step(ctx, opts, txn, i, restore[i], done, ndone, nwrite);
	}
	return rc;
}

/* What the access method of a kind in txn adds to its revert (a move's
 * threads started since), appended: journaled with the others before any
 * is written. The first kind that has one is asked, once. */
static int revert_more(struct np_ctx *ctx, struct np_txn *txn)
{
	for (size_t i = 0; i < txn->nchanges; i++) {
		const struct np_attr_access *a = np_attrs[txn->changes[i].attr].access;
		struct np_change *more = NULL;
		size_t n = 0;
		if (!a || !a->revert_more)
			continue;
		int rc = a->revert_more(ctx, txn->changes, txn->nchanges, &more, &n);
		struct np_change *grown = rc || !n ? NULL : realloc(txn->changes, (txn->nchanges + n) * sizeof(*grown));
		if (grown) {
			memcpy(grown + txn->nchanges, more, n * sizeof(*more));
			txn->changes = grown;
			txn->nchanges += n;
		} else {
			for (size_t j = 0; j < n; j++)
				np_change_free(&more[j]);
		}
		free(more);
		if (!rc && n && !grown)
			rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		return rc;
	}
	return 0;
}

/* Reverts transaction picked of st, whose lock the caller holds (unless a
 * dry run). force_how: what the message tells a user to do to restore over
 * a value someone else changed. See np_txn_revert. */
static int revert_locked(struct np_ctx *ctx, const struct np_txn_opts *opts, struct txn_store *st,
			 const char *picked, bool force, const char *force_how, struct np_txn *txn_out)
{
	struct np_txn txn = { 0 };
	char primary[sizeof(ctx->err)], undo_err[sizeof(ctx->err)];
	char *error = NULL, *boot = NULL, **before = NULL, **restore = NULL;
	size_t *done = NULL, ndone = 0, nbefore = 0, nall = 0, nwrite = 0;
	struct np_txn *all = NULL;
	enum np_txn_state was;
	bool any = false, stale;
	const char *stop;
	int rc;

	if ((rc = txn_journal_load(ctx, st, picked, &txn, &error)) || (rc = refuse_finished(ctx, &txn)) ||
	    (rc = txn_read_boot_id(ctx, &boot)))
		goto out;

	stale = txn_boot_differs(txn.boot_id, boot);
	if (stale && !txn_has_survivor(&txn)) {
		txn.state = NP_TXN_STALE;
		rc = opts->dry_run ? 0 : txn_write_journal(ctx, st, &txn, error);
		if (!rc)
			rc = np_fail(
				ctx, -ESTALE,
				"transaction %s was applied during an earlier boot (boot id %s, now %s): "
				"the reboot already reset those values; %s",
				txn.id, txn.boot_id, boot,
				opts->dry_run ? "nothing to revert" : "marked it stale and wrote nothing");
		goto out;
	}

	if ((rc = revert_more(ctx, &txn)))
		goto out;
	before = calloc(txn.nchanges ? txn.nchanges : 1, sizeof(*before));
	restore = calloc(txn.nchanges ? txn.nchanges : 1, sizeof(*restore));
	done = calloc(txn.nchanges ? txn.nchanges : 1, sizeof(*done));
	if (!before || !restore || !done) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	nbefore = txn.nchanges;
	if ((rc = txn_load_all(ctx, st, &all, &nall)) ||
	    (rc = check_drift(ctx, &txn, force, force_how, stale, all, nall, before, restore)))
		goto out;
	if (opts->dry_run) {
		revert_plan(&txn, stale, before, restore);
		goto handout;
	}

	/* A writer killed between naming its temporary file and the rename
	 * left that name beside the file (np_replace_at); we hold the lock, so
	 * no writer of these files is alive. */
	for (size_t i = 0; i < txn.nchanges && txn.state == NP_TXN_PENDING; i++)
		if ((rc = np_remove_stale_temps(ctx, "%s", txn.changes[i].path)))
			goto out;

	for (size_t i = 0; i < txn.nchanges; i++)
		nwrite += restore[i] != NULL;
	any = nwrite > 0;
	if (any && (stop = stop_requested(opts))) {
		rc = np_fail(ctx, -EINTR, "stopped by %s before restoring anything: transaction %s is as it was",
			     stop, txn.id);
		goto out;
	}
	/* Pending while the revert writes: if it crashes half way, the next
	 * revert accepts old and new values alike and finishes the job. */
	was = txn.state;
	if (any && was != NP_TXN_PENDING) {
		txn.state = NP_TXN_PENDING;
		if ((rc = txn_write_journal(ctx, st, &txn, error)))
			goto out;
	}

	rc = revert_writes(ctx, opts, &txn, before, restore, done, &ndone, nwrite);

	if (rc) {
		snprintf(primary, sizeof(primary), "%s", ctx->err);
		int urc = undo_writes(ctx, txn.changes, before, done, ndone, undo_err,
				      sizeof(undo_err));
		if (urc) {
			/* Values are mixed now: pending is the truth, and lets a revert retry. */
			np_fail(ctx, rc,
				"%s; restoring the values the revert had changed failed too: %s; "
				"transaction %s is left pending: run 'numaplace revert' to retry",
				primary, undo_err, txn.id);
			goto out;
		}
		txn.state = was;
		const char *undone = ndone ? "; the revert's writes were undone" : "";
		if (any && was != NP_TXN_PENDING && txn_write_journal(ctx, st, &txn, error)) {
			snprintf(undo_err, sizeof(undo_err), "%s", ctx->err);
			np_fail(ctx, rc, "%s%s; %s", primary, undone, undo_err);
		} else {
			np_fail(ctx, rc, "%s%s", primary, undone);
		}
		goto out;
	}

	txn.state = stale ? NP_TXN_STALE : NP_TXN_REVERTED;
	if ((rc = txn_write_journal(ctx, st, &txn, error))) {
		snprintf(undo_err, sizeof(undo_err), "%s", ctx->err);
		np_fail(ctx, rc, "the old values were restored but %s", undo_err);
		goto out;
	}
	if (stale) {
		char fp[PATH_MAX];
		const char *kept = "";
		for (size_t i = txn.nchanges; i-- > 0;)
			if (txn_survives_reboot(&txn.changes[i]))
				kept = txn.changes[i].path;
		full_path(ctx, kept, fp);
		rc = np_fail(ctx, -ESTALE,
			     "transaction %s was applied during an earlier boot (boot id %s, now %s): "
			     "the reboot already reset its kernel values; %s '%s'%s and marked it stale",
			     txn.id, txn.boot_id, boot, any ? "restored" : "nothing to restore in", fp,
			     any ? ", which a reboot keeps," : "");
		goto out;
	}
handout:
	if (txn_out && txn_trim_values(&txn) == 0) {
		*txn_out = txn;
		memset(&txn, 0, sizeof(txn));
	}
out:
	for (size_t i = 0; i < nbefore; i++) {
		free(before[i]);
		free(restore[i]);
	}
	free(before);
	free(restore);
	free(done);
	free(error);
	free(boot);
	np_txns_free(all, nall);
	np_txn_free(&txn);
	return rc;
}

int np_txn_revert(struct np_ctx *ctx, const struct np_txn_opts *opts, const char *id, bool force,
		  struct np_txn *txn_out)
{
	struct txn_store st = { .dirfd = -1, .txnfd = -1, .lockfd = -1 };
	struct np_write_batch batch;
	char *picked = NULL;
	int rc, batched = 0;

	if (txn_out)
		memset(txn_out, 0, sizeof(*txn_out));
	if (id && !txn_id_valid(id))
		return np_fail(ctx, -EINVAL, "'%s' is not a transaction id", id);
	if ((rc = txn_state_open(ctx, opts, false, &st)))
		return rc;
	if (st.dirfd < 0) {
		rc = np_fail(ctx, -ENOENT, "nothing to revert: no state directory '%s'", st.dir);
		goto out;
	}
	/* A dry run reads a journal another revert may be rewriting: it shows
	 * the plan of that moment, which is all a dry run promises. */
	if ((rc = opts->dry_run ? 0 : txn_state_lock(ctx, opts, &st)) || (rc = txn_pick(ctx, &st, id, &picked)))
		goto out;
	batched = np_write_batch_begin(ctx, &batch);
	rc = revert_locked(ctx, opts, &st, picked, force, "use --force", txn_out);
out:
	/* Synced already when a journal was written after the values. */
	np_write_batch_end(ctx, batched);
	free(picked);
	txn_state_close(&st);
	return rc;
}

/* ---- recovery ---- */

/* Whether an apply of profile (in hold session session, or NULL) may roll
 * back the unfinished transaction txn by itself: it is the same profile's,
 * or the same session's. */
static bool own_unfinished(const struct np_txn *txn, const char *profile, const char *session)
{
	return (profile && *profile && !strcmp(txn->profile, profile)) ||
	       (session && !strcmp(txn_session_of(txn), session));
}

/* Before an apply of profile writes (the lock held, unless a dry run): the
 * unfinished (pending) transactions, newest first. Its own (own_unfinished)
 * are rolled back when opts->recover, as a plain revert would, each value
 * checked first; any other refuses the apply, as do all without recover.
 * *recovered (unless NULL) gets the last one rolled back: what revert
 * hands back (a dry run: its plan), or only id and state NP_TXN_STALE for
 * one from an earlier boot, marked so. */
static int settle_unfinished(struct np_ctx *ctx, const struct np_txn_opts *opts, struct txn_store *st,
			     const char *profile, struct np_txn *recovered)
{
	struct np_txn *txns;
	size_t n;
	int rc = txn_load_all(ctx, st, &txns, &n);
	if (rc)
		return rc;
	for (size_t i = n; i-- > 0 && !rc;) {
		const struct np_txn *t = &txns[i];
		char how[ID_MAX + 64], detail[sizeof(ctx->err)];
		if (t->state != NP_TXN_PENDING)
			continue;
		if (!opts || !opts->recover || !own_unfinished(t, profile, opts->session)) {
			rc = np_fail(ctx, -EBUSY,
				     "transaction %s (%s) did not finish (journal '%s/%s" JOURNAL_EXT
				     "' is pending): run 'numaplace revert' first",
				     t->id, *t->profile ? t->profile : "no profile", st->txndir, t->id);
			break;
		}
		struct np_txn back = { 0 };
		snprintf(how, sizeof(how), "run 'numaplace revert --force %s'", t->id);
		rc = revert_locked(ctx, opts, st, t->id, false, how, &back);
		if (rc == -ESTALE) {
			ctx->err[0] = '\0';
			back.state = NP_TXN_STALE;
			rc = (back.id = strdup(t->id)) ? 0 : np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		} else if (rc && rc != -EINTR) {
			snprintf(detail, sizeof(detail), "%s", ctx->err);
			np_fail(ctx, rc, "transaction %s (%s) did not finish, and its roll-back needs you: %s", t->id,
				t->profile, detail);
		}
		if (recovered && !rc) {
			np_txn_free(recovered);
			*recovered = back;
		} else {
			np_txn_free(&back);
		}
	}
	np_txns_free(txns, n);
	return rc;
}

int np_txn_recover(struct np_ctx *ctx, const struct np_txn_opts *opts, const char *profile,
		   struct np_txn *txn_out)
{
	struct txn_store st = { .dirfd = -1, .txnfd = -1, .lockfd = -1 };
	struct np_txn_opts o = *opts;
	struct np_write_batch batch;
	int rc, batched = 0;

	memset(txn_out, 0, sizeof(*txn_out));
	o.recover = true;
	if ((rc = txn_state_open(ctx, &o, false, &st)) || st.txnfd < 0 ||
	    (rc = o.dry_run ? 0 : txn_state_lock(ctx, &o, &st)))
		goto out;
	batched = np_write_batch_begin(ctx, &batch);
	rc = settle_unfinished(ctx, &o, &st, profile, txn_out);
out:
	np_write_batch_end(ctx, batched);
	txn_state_close(&st);
	return rc;
}
