/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The advisor's rq_affinity decision (lib/advise.c) against each row of seed
 * 004 (Alan D. Brunelle, LKML, April 2008): I/O processes pinned on the CPU
 * handling their device's IRQ, pinned elsewhere, or placed by the scheduler.
 * That test's rq_affinity=1 completed on the submitting CPU: today's 2. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "../../lib/advise.h"

static int decide(bool pinned, bool irq_on_submitters, bool shares_l3, bool per_cpu_queues, const char **why)
{
	struct np_rq_facts f = { .pinned = pinned, .irq_on_submitters = irq_on_submitters, .shares_l3 = shares_l3,
				 .per_cpu_queues = per_cpu_queues };
	*why = NULL;
	int want = np_rq_affinity_decide(&f, why);
	assert_non_null(*why);
	return want;
}

/* "rq=0 local=1 12.312 / rq=1 local=1 12.314 K ios/sec" (4-way), "50.018 / 50.035"
 * (16-way): pinned on the IRQ's CPU, forcing gains nothing: leave it. */
static void test_seed004_pinned_on_the_irq_cpu(void **state)
{
	(void)state;
	const char *why;
	assert_int_equal(decide(true, true, true, false, &why), -1);
	assert_non_null(strstr(why, "12.312"));
}

/* "rq=0 local=0 39.842 / rq=1 local=0 44.995 K ios/sec" (16-way, +12.9%), 11.911 /
 * 12.026 (4-way): pinned off the IRQ's CPUs, one RAID queue: 2. */
static void test_seed004_pinned_off_the_irq_cpu(void **state)
{
	(void)state;
	const char *why;
	assert_int_equal(decide(true, false, false, false, &why), 2);
	assert_non_null(strstr(why, "12.9%"));
	assert_non_null(strstr(why, "today's 2"));
}

/* "rq=0 47.760 avg / rq=1 41.007 avg K ios/sec": the scheduler placing the
 * processes, forcing cost 14%: never without application placement. */
static void test_seed004_unpinned(void **state)
{
	(void)state;
	const char *why;
	assert_int_equal(decide(false, false, false, false, &why), -1);
	assert_non_null(strstr(why, "14%"));
	assert_int_equal(decide(false, true, true, false, &why), -1);
}

/* Today's 1 already completes in the submitter's cache group: sharing an L3
 * with the completion CPUs leaves nothing for 2 to gain there. */
static void test_pinned_in_the_same_l3(void **state)
{
	(void)state;
	const char *why;
	assert_int_equal(decide(true, false, true, false, &why), -1);
}

/* NVMe with a managed queue per CPU: completion is already on the
 * submitter's queue; 2 would only add IPIs. */
static void test_per_cpu_managed_queues(void **state)
{
	(void)state;
	const char *why;
	assert_int_equal(decide(true, false, false, true, &why), -1);
	assert_non_null(strstr(why, "per CPU"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed004_pinned_on_the_irq_cpu),
		cmocka_unit_test(test_seed004_pinned_off_the_irq_cpu),
		cmocka_unit_test(test_seed004_unpinned),
		cmocka_unit_test(test_pinned_in_the_same_l3),
		cmocka_unit_test(test_per_cpu_managed_queues),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
