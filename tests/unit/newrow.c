/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Built against a test build of the library whose attr table has one row
 * more (tests/unit/newrow-rows.h), tx_maxrate, of the net queue shape,
 * and no other change anywhere: profiles take it (keys from its class, its value's key
 * and range from the row), it resolves on a machine, a transaction writes,
 * reads back and journals it, revert restores it, and a profile written
 * back says it again. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/machine.h"
#include "change/profile.h"
#include "change/resolve.h"
#include "read/sysfs.h"
#include "change/target.h"
#include "change/txn.h"
#include "tmproot.h"

#define FLOW "/sys/class/net/eth4/queues/tx-0/tx_maxrate"
#define PROFILE(setting) "{\"format\": \"numaplace-profile/1\", \"name\": \"flows\", \"settings\": [" setting "]}"

struct fixture {
	char root[64];
	struct np_ctx ctx;
	struct np_machine m;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char cmd[PATH_MAX + 128], fixture[PATH_MAX];
	if (!f || !realpath("tests/fixtures/r715", fixture) ||
	    tmproot_create(f->root, sizeof(f->root), "/tmp/numaplace-newrow-XXXXXX", NULL))
		return -1;
	/* A writable copy: the transaction writes into it. */
	snprintf(cmd, sizeof(cmd), "cp -a '%s/.' '%s'", fixture, f->root);
	if (system(cmd) || np_ctx_init(&f->ctx, f->root) || np_machine_load(&f->ctx, &f->m))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	np_machine_free(&f->m);
	int rc = tmproot_remove(f->root, &f->ctx);
	free(f);
	return rc;
}

static void test_the_row_is_a_kind(void **state)
{
	struct fixture *f = *state;
	int a = np_attr_by_name("tx_maxrate", true);
	assert_int_equal(a, NP_ATTR_TEST_TX_MAXRATE);
	assert_ptr_equal(np_attrs[a].target, &np_target_net_queue);
	assert_int_equal(np_attr_match(FLOW, NULL), a);
	struct np_profile p;
	/* Its keys: its class's and its value's; its range: the row's. */
	assert_int_equal(np_profile_parse(&f->ctx, "p.json",
					  PROFILE("{\"kind\": \"tx_maxrate\", \"net\": \"eth4\", \"queue\": 0, \"cpus\": \"1\"}"),
					  &p),
			 -EINVAL);
	assert_string_equal(f->ctx.err, "p.json: settings[0].cpus: not a key of tx_maxrate settings, expected one of "
					"kind, net, queue, value");
	assert_int_equal(np_profile_parse(&f->ctx, "p.json",
					  PROFILE("{\"kind\": \"tx_maxrate\", \"net\": \"eth4\", \"queue\": 0, \"value\": 2000000}"),
					  &p),
			 -EINVAL);
	assert_string_equal(f->ctx.err, "p.json: settings[0].value: got 2000000, expected a number from 0 to 1048576");
	/* The kinds a profile may set, in every message, include it. */
	assert_int_equal(np_profile_parse(&f->ctx, "p.json", PROFILE("{\"kind\": \"tx_max\"}"), &p), -EINVAL);
	if (!strstr(f->ctx.err, "default_irq_affinity, channels, thread_affinity, rps_flow_cnt, rps_sock_flow_entries, tx_maxrate"))
		fail_msg("%s", f->ctx.err);
}

static void test_apply_and_revert(void **state)
{
	struct fixture *f = *state;
	struct np_profile p, again;
	struct np_resolved res;
	struct np_txn txn, back;
	struct np_txn_opts opts = { 0 };
	char *text, *got;

	assert_int_equal(np_profile_parse(&f->ctx, "p.json",
					  PROFILE("{\"kind\": \"tx_maxrate\", \"net\": \"eth4\", \"queue\": 0, \"value\": 4096}"),
					  &p),
			 0);
	/* Written back as it was given. */
	text = np_profile_to_text(&p);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"kind\":\t\"tx_maxrate\",\n\t\t\t\"net\":\t\"eth4\",\n\t\t\t\"queue\":\t0,\n"
				     "\t\t\t\"value\":\t4096\n"));
	assert_int_equal(np_profile_parse(&f->ctx, "p.json", text, &again), 0);
	assert_string_equal(again.settings[0].value, "4096");
	free(text);

	if (np_profile_resolve(&f->ctx, &f->m, &p, &res))
		fail_msg("resolve: %s", f->ctx.err);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.changes[0].path, FLOW);
	assert_string_equal(res.changes[0].subject, "eth4 tx-0 tx_maxrate");
	assert_string_equal(res.changes[0].new_value, "4096");

	if (np_txn_apply(&f->ctx, &opts, p.name, res.changes, res.n, &txn))
		fail_msg("apply: %s", f->ctx.err);
	assert_int_equal(txn.nchanges, 1);
	assert_int_equal(txn.changes[0].attr, NP_ATTR_TEST_TX_MAXRATE);
	assert_string_equal(txn.changes[0].old_value, "0");
	assert_int_equal(np_read_text(&f->ctx, &got, "%s", FLOW), 0);
	assert_string_equal(got, "4096");
	free(got);

	if (np_txn_revert(&f->ctx, &opts, NULL, false, &back))
		fail_msg("revert: %s", f->ctx.err);
	assert_int_equal(np_read_text(&f->ctx, &got, "%s", FLOW), 0);
	assert_string_equal(got, "0");
	free(got);

	np_txn_free(&back);
	np_txn_free(&txn);
	np_resolved_free(&res);
	np_profile_free(&again);
	np_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_row_is_a_kind),
		cmocka_unit_test(test_apply_and_revert),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
