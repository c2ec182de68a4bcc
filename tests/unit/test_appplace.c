/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An application's placement and its rules in the one problem list
 * (lib/judge/app-place.c, lib/judge/findings.c), on the R715 with its applications
 * (tests/fixtures/r715-app): each rule on the process that has its problem,
 * none on the one that has none, and the placement's two branches. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/app-place.h"
#include "judge/findings.h"

struct judged {
	struct np_ctx ctx;
	struct np_machine m;
	struct np_app app;
	struct np_findings f;
};

/* Process pid of r715-app judged as 'numaplace app' judges it. */
static void judge(struct judged *j, int pid)
{
	assert_int_equal(np_ctx_init(&j->ctx, "tests/fixtures/r715-app"), 0);
	if (np_machine_load(&j->ctx, &j->m))
		fail_msg("r715-app: %s", j->ctx.err);
	if (np_app_load(&j->ctx, &j->m, pid, &j->app))
		fail_msg("pid %d: %s", pid, j->ctx.err);
	assert_int_equal(np_app_place(&j->m, &j->app), 0);
	struct np_advise_opts o = { .policy_name = "app", .min_interrupts = NP_FINDINGS_MIN_INTERRUPTS,
				    .app = &j->app, .app_pinned = true };
	assert_int_equal(np_advise_opts_for(&j->m, NP_IRQS_APP, j->app.selected, &o), 0);
	assert_int_equal(np_cpuset_copy(&o.app_cpus, &j->app.place_cpus), 0);
	assert_int_equal(np_findings_collect(&j->m, &o, "numaplace advise", &j->f), 0);
	np_advise_opts_free(&o);
}

static void done(struct judged *j)
{
	np_findings_free(&j->f);
	np_app_free(&j->app);
	np_machine_free(&j->m);
	np_ctx_fini(&j->ctx);
}

static const struct np_finding *only(const struct judged *j, enum np_rule_id rule)
{
	const struct np_finding *x = NULL;
	for (size_t k = 0; k < j->f.n; k++)
		if (j->f.v[k].rule == rule) {
			assert_null(x);
			x = &j->f.v[k];
		}
	return x;
}

static int node_id(const struct judged *j, int index)
{
	return j->m.topo.nodes[index].id;
}

/* mysqld: threads on node 1, its memory on node 3, sda's interrupts on node 0. */
static void test_memory_remote(void **state)
{
	(void)state;
	struct judged j;
	judge(&j, 3101);
	assert_int_equal(j.app.by, NP_PLACE_MEMORY);
	assert_int_equal(node_id(&j, j.app.place_node), 3);
	assert_int_equal(node_id(&j, j.app.threads_node), 1);
	assert_false(j.app.move_memory);
	assert_true(j.app.cgroup_bars); /* its unit's AllowedCPUs=8-15 leaves node 3 out */
	assert_string_equal(j.app.move, "numaplace move 3101 --node 3 --cgroup");
	const struct np_finding *x = only(&j, NP_RULE_APP_MEMORY);
	assert_non_null(x);
	assert_string_equal(x->unit, "pages");
	assert_int_equal(x->interrupts, 262144 + 256 + 300); /* node 3's pages and node 0's */
	assert_string_equal(x->fix, "numaplace move 3101 --node 3 --cgroup");
	assert_null(only(&j, NP_RULE_APP_THREADS));
	/* The RAID controller's IRQ moves with it: the change is this problem's fix. */
	x = only(&j, NP_RULE_APP_IRQS);
	assert_non_null(x);
	assert_string_equal(j.m.pci.devs[x->dev].addr, "0000:22:00.0");
	assert_int_equal(x->interrupts, 48213377);
	assert_int_equal(x->nfixes, 1);
	assert_string_equal(j.f.plan.v[x->fixes[0]].recommended, "1,3,5,7");
	done(&j);
}

/* fio: threads over nodes 3, 1 and 2; memory and sda on node 3. */
static void test_threads_split(void **state)
{
	(void)state;
	struct judged j;
	judge(&j, 3202);
	assert_null(only(&j, NP_RULE_APP_MEMORY));
	const struct np_finding *x = only(&j, NP_RULE_APP_THREADS);
	assert_non_null(x);
	assert_string_equal(x->unit, "threads");
	assert_int_equal(x->interrupts, 2);
	assert_string_equal(x->fix, "numaplace move 3202 --node 3");
	assert_non_null(strstr(j.app.proc.notes[0], "bind:3"));
	done(&j);
}

/* haproxy: threads, memory and eth0's interrupts on node 0: nothing. */
static void test_all_local(void **state)
{
	(void)state;
	struct judged j;
	judge(&j, 3303);
	assert_null(only(&j, NP_RULE_APP_MEMORY));
	assert_null(only(&j, NP_RULE_APP_THREADS));
	assert_null(only(&j, NP_RULE_APP_IRQS));
	assert_int_equal(node_id(&j, j.app.place_node), 0);
	assert_null(j.app.move);
	done(&j);
}

/* java: 8 threads; node 2 (most memory) and node 3 (its busiest device's) have 4 CPUs
 * each: no node wins and nothing moves. */
static void test_no_single_node(void **state)
{
	(void)state;
	struct judged j;
	judge(&j, 3404);
	assert_int_equal(j.app.by, NP_PLACE_NONE);
	assert_int_equal(node_id(&j, j.app.memory_node), 2);
	assert_int_equal(j.app.memory_node_cpus, 4);
	assert_int_equal(j.app.device_node_cpus, 4);
	assert_int_equal(j.app.cpus_needed, 8); /* 8 threads, each busy 90% */
	assert_int_equal(j.app.place_node, -1);
	assert_null(j.app.move);
	assert_non_null(strstr(j.app.placement, "no single node"));
	/* its IRQs follow its threads, on nodes 2 and 3 */
	assert_int_equal(np_cpuset_count(&j.app.place_cpus), 8);
	done(&j);
}

/* nginx: its memory unknown (no numa_maps), its 2 threads on node 0: its busiest
 * device's node, which can hold them; no memory to take along. */
static void test_placed_by_device(void **state)
{
	(void)state;
	struct judged j;
	judge(&j, 3505);
	assert_int_equal(j.app.by, NP_PLACE_DEVICE);
	assert_int_equal(j.app.memory_node, -1);
	assert_int_equal(j.app.cpus_needed, 1); /* 2 threads, each busy 10% */
	assert_int_equal(node_id(&j, j.app.place_node), 3);
	assert_false(j.app.move_memory);
	assert_string_equal(j.app.move, "numaplace move 3505 --node 3");
	done(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_remote),
		cmocka_unit_test(test_threads_split),
		cmocka_unit_test(test_all_local),
		cmocka_unit_test(test_no_single_node),
		cmocka_unit_test(test_placed_by_device),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
