/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The transactions of hold (issue 22). A full state directory (item 3): the
 * journal's rewrite after the values were written fails, and the machine and
 * the state directory must still agree; hold says so and goes on once there
 * is room. The full disk is this file's renameat, which the library's
 * journal writes link to: it fails the journal renames it is told to with
 * ENOSPC. A bounded state directory (items 8, 9): re-applies fold, stale
 * temporary files go. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/context.h"
#include "change/hold.h"
#include "change/profile.h"
#include "change/txn.h"
#include "tmproot.h"

/* How many journal renames (".json.tmp" to ".json") to let through before
 * failing, and how many to fail then. */
static int renames_ok = -1, renames_fail;

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n >= t && !strcmp(s + n - t, tail);
}

int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	if (renames_ok >= 0 && ends_with(oldpath, ".json.tmp") && ends_with(newpath, ".json")) {
		if (renames_ok > 0) {
			renames_ok--;
		} else if (renames_fail > 0) {
			renames_fail--;
			errno = ENOSPC;
			return -1;
		}
	}
	return (int)syscall(SYS_renameat, olddirfd, oldpath, newdirfd, newpath);
}

static void fail_journal_renames(int after, int count)
{
	renames_ok = after;
	renames_fail = count;
}

#define RPS "/sys/class/net/eth4/queues/rx-0/rps_cpus"

struct fixture {
	char root[64];
	char state[PATH_MAX];
	struct np_ctx ctx;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char cmd[PATH_MAX * 2];
	const char *fixtures = getenv("FIXTURES");
	if (!f || tmproot_create(f->root, sizeof(f->root), "/tmp/numaplace-enospc-XXXXXX", NULL))
		return -1;
	snprintf(cmd, sizeof(cmd), "cp -a '%s/r715/.' '%s/'", fixtures ? fixtures : "tests/fixtures", f->root);
	if (system(cmd) || np_ctx_init(&f->ctx, f->root))
		return -1;
	snprintf(f->state, sizeof(f->state), "%s/state", f->root);
	fail_journal_renames(-1, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	fail_journal_renames(-1, 0);
	int rc = tmproot_remove(f->root, &f->ctx);
	free(f);
	return rc;
}

static void assert_rps(const struct fixture *f, const char *want)
{
	char *got = tmproot_slurp(f->root, RPS, 256);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static const char *state_of(const struct fixture *f, const char *id, char *buf, size_t size)
{
	struct np_txn *txns;
	size_t n;
	struct np_txn_opts o = { .state_dir = f->state };
	assert_int_equal(np_txn_list((struct np_ctx *)&f->ctx, &o, &txns, &n), 0);
	snprintf(buf, size, "missing");
	for (size_t i = 0; i < n; i++)
		if (!strcmp(txns[i].id, id))
			snprintf(buf, size, "%s", np_txn_state_name(txns[i].state));
	np_txns_free(txns, n);
	return buf;
}

static int apply_rps_session(struct fixture *f, const char *value, const char *session, struct np_txn *txn)
{
	struct np_change c = { .path = RPS, .attr = NP_ATTR_RPS_CPUS, .subject = "eth4 rx-0 rps_cpus",
			       .new_value = (char *)value };
	struct np_txn_opts o = { .state_dir = f->state, .session = session };
	int rc = np_txn_apply(&f->ctx, &o, "t", &c, 1, txn);
	free(c.old_value);
	return rc;
}

static int apply_rps(struct fixture *f, const char *value, struct np_txn *txn)
{
	return apply_rps_session(f, value, NULL, txn);
}

/* The rewrite to "applied" fails: the values are put back and the journal
 * says rolled back. Before, the values stayed new under a pending journal. */
static void test_applied_rewrite_fails_values_put_back(void **state)
{
	struct fixture *f = *state;
	struct np_txn txn;
	char buf[32];
	fail_journal_renames(1, 1);
	assert_int_equal(apply_rps(f, "4", &txn), -ENOSPC);
	assert_err_has(&f->ctx, "No space left on device");
	assert_err_has(&f->ctx, "they were put back: nothing changed");
	assert_null(txn.id);
	assert_rps(f, "0000\n");
	struct np_txn *txns;
	size_t n;
	struct np_txn_opts o = { .state_dir = f->state };
	assert_int_equal(np_txn_list(&f->ctx, &o, &txns, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(state_of(f, txns[0].id, buf, sizeof(buf)), "rolled_back");
	np_txns_free(txns, n);
	/* The next apply is not refused. */
	fail_journal_renames(-1, 0);
	assert_int_equal(apply_rps(f, "4", &txn), 0);
	assert_rps(f, "4\n");
	np_txn_free(&txn);
}

/* Neither "applied" nor "rolled back" can be written: the values are put
 * back, the journal stays pending (with the old values), the caller is told
 * its id, and a revert once there is room finishes it without a write. */
static void test_no_room_at_all_leaves_a_pending_revert(void **state)
{
	struct fixture *f = *state;
	struct np_txn txn;
	char buf[32];
	fail_journal_renames(1, 2);
	assert_int_equal(apply_rps(f, "4", &txn), -ENOSPC);
	assert_err_has(&f->ctx, "is left pending with the old values");
	assert_rps(f, "0000\n");
	assert_non_null(txn.id);
	assert_int_equal(txn.state, NP_TXN_PENDING);
	assert_string_equal(state_of(f, txn.id, buf, sizeof(buf)), "pending");
	fail_journal_renames(-1, 0);
	struct np_txn_opts o = { .state_dir = f->state };
	assert_int_equal(np_txn_revert(&f->ctx, &o, txn.id, false, NULL), 0);
	assert_string_equal(state_of(f, txn.id, buf, sizeof(buf)), "reverted");
	assert_rps(f, "0000\n");
	np_txn_free(&txn);
}

/* hold: a re-apply in a full state directory says what happened, and the
 * pass after the room is back finishes the pending transaction and holds
 * again. Before, hold refused every later pass until someone ran revert. */
static void test_hold_goes_on_once_there_is_room(void **state)
{
	struct fixture *f = *state;
	struct np_profile prof;
	struct np_hold h = { 0 };
	struct np_hold_result r;
	char buf[32];
	static const char text[] = "{\"format\": \"numaplace-profile/1\", \"name\": \"t\", \"settings\": ["
				   "{\"kind\": \"rps_cpus\", \"net\": \"eth4\", \"queue\": 0, \"cpus\": \"2\"}]}";
	assert_int_equal(np_profile_parse(&f->ctx, "t.json", text, &prof), 0);
	h.txn.state_dir = f->state;

	assert_int_equal(np_hold_pass(&f->ctx, &h, &prof, NULL, "start", 10000, &r), 0);
	assert_int_equal(r.txn.nchanges, 1);
	np_hold_result_free(&r);
	assert_rps(f, "0004\n");

	/* The driver resets it; the state directory is full. */
	tmproot_put(f->root, RPS, "0000\n");
	fail_journal_renames(1, 2);
	int prc = np_hold_pass(&f->ctx, &h, &prof, NULL, "interval check", 20000, &r);
	if (prc != -ENOSPC)
		fail_msg("pass: %d, %zu drifted, %zu written: %s", prc, r.ndrift, r.txn.nchanges, f->ctx.err);
	assert_err_has(&f->ctx, "put back");
	assert_non_null(r.txn.id);
	char *pending = strdup(r.txn.id);
	np_hold_result_free(&r);
	assert_non_null(h.unfinished);
	assert_string_equal(h.unfinished, pending);
	assert_rps(f, "0000\n");

	/* Still full: said, nothing else written, still remembered. */
	fail_journal_renames(0, 100);
	assert_int_equal(np_hold_pass(&f->ctx, &h, &prof, NULL, "interval check", 30000, &r), -ENOSPC);
	assert_err_has(&f->ctx, "cannot be finished yet");
	np_hold_result_free(&r);
	assert_string_equal(h.unfinished, pending);
	assert_rps(f, "0000\n");

	/* Room again: the pending one is reverted, then the drift re-applied. */
	fail_journal_renames(-1, 0);
	assert_int_equal(np_hold_pass(&f->ctx, &h, &prof, NULL, "interval check", 40000, &r), 0);
	assert_non_null(r.finished);
	assert_string_equal(r.finished, pending);
	assert_int_equal(r.txn.nchanges, 1);
	np_hold_result_free(&r);
	assert_null(h.unfinished);
	assert_rps(f, "0004\n");
	assert_string_equal(state_of(f, pending, buf, sizeof(buf)), "reverted");
	free(pending);
	np_hold_free(&h);
	free(h.session);
	np_profile_free(&prof);
}

static int count_journals(const struct fixture *f, const char *tail)
{
	char path[PATH_MAX + 8];
	snprintf(path, sizeof(path), "%s/txn", f->state);
	DIR *dir = opendir(path);
	assert_non_null(dir);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		n += len > strlen(tail) && !strcmp(de->d_name + len - strlen(tail), tail);
	}
	closedir(dir);
	return n;
}


/* 20 re-applies of a value its driver keeps resetting: the earlier ones fold
 * into the latest, the first apply stays, and the session still reverts to
 * the original. Before, each left its journal (1000 left 971). */
static void test_reapplies_fold(void **state)
{
	struct fixture *f = *state;
	struct np_txn first, txn;
	char last[64];
	assert_int_equal(apply_rps(f, "4", &first), 0);
	snprintf(last, sizeof(last), "%s", first.id);
	for (int i = 0; i < 20; i++) {
		tmproot_put(f->root, RPS, i % 2 ? "0000\n" : "0001\n");
		assert_int_equal(apply_rps_session(f, "4", first.id, &txn), 0);
		assert_int_equal(txn.nchanges, 1);
		/* Newest sorts last, however many journals the folds removed:
		 * the sequence was the count of journals, and an id could repeat
		 * a removed one's, before the newest. */
		if (strverscmp(last, txn.id) >= 0)
			fail_msg("transaction %s sorts before %s, made earlier", txn.id, last);
		snprintf(last, sizeof(last), "%s", txn.id);
		np_txn_free(&txn);
	}
	assert_int_equal(count_journals(f, ".json"), 2);
	char **ids;
	size_t n;
	struct np_txn_opts o = { .state_dir = f->state };
	assert_int_equal(np_txn_session(&f->ctx, &o, first.id, &ids, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		if (np_txn_revert(&f->ctx, &o, ids[i], false, NULL))
			fail_msg("revert %s: %s", ids[i], f->ctx.err);
		free(ids[i]);
	}
	free(ids);
	assert_rps(f, "0000\n");
	np_txn_free(&first);
}

/* A kill between a journal's temporary file and its rename left
 * "ID.json.tmp": the next holder of the lock removes it. */
static void test_stale_tmp_removed_under_the_lock(void **state)
{
	struct fixture *f = *state;
	struct np_txn txn;
	char rel[PATH_MAX];
	assert_int_equal(apply_rps(f, "4", &txn), 0);
	np_txn_free(&txn);
	snprintf(rel, sizeof(rel), "/state/txn/20261201-101010-7.json.tmp");
	tmproot_put(f->root, rel, "{\"id\": \"torn");
	assert_int_equal(count_journals(f, ".json.tmp"), 1);
	tmproot_put(f->root, RPS, "0000\n");
	assert_int_equal(apply_rps(f, "4", &txn), 0);
	np_txn_free(&txn);
	assert_int_equal(count_journals(f, ".json.tmp"), 0);
	assert_int_equal(count_journals(f, ".json"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_applied_rewrite_fails_values_put_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_room_at_all_leaves_a_pending_revert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hold_goes_on_once_there_is_room, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reapplies_fold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_tmp_removed_under_the_lock, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
