/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TuneD's isolated cores (lib/read/tuned.c): read only under an isolating
 * active profile, from the variables file that profile includes; a value
 * TuneD evaluates itself (${f:...}) is refused with a note. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/tuned.h"
#include "tmproot.h"

static void check(const char *active, const char *file, const char *vars, const char *want, const char *want_source,
		  const char *want_note)
{
	char root[64];
	struct np_ctx ctx;
	struct np_tuned t;
	assert_int_equal(tmproot_create(root, sizeof(root), "/tmp/numaplace-tuned-XXXXXX", &ctx), 0);
	if (active)
		tmproot_put(root, "/etc/tuned/active_profile", active);
	if (file)
		tmproot_put(root, file, vars);
	assert_int_equal(np_tuned_read(&ctx, &t), 0);
	char *list = np_cpuset_format_list(&t.isolated);
	assert_string_equal(list, want);
	if (want_source ? !t.source || !strstr(t.source, want_source) : t.source != NULL)
		fail_msg("source '%s', not '%s'", t.source ? t.source : "(none)", want_source ? want_source : "(none)");
	if (want_note ? !t.note || !strstr(t.note, want_note) : t.note != NULL)
		fail_msg("note '%s', not '%s'", t.note ? t.note : "(none)", want_note ? want_note : "(none)");
	free(list);
	np_tuned_free(&t);
	assert_int_equal(tmproot_remove(root, &ctx), 0);
}

#define CPUP "/etc/tuned/cpu-partitioning-variables.conf"
#define RT "/etc/tuned/realtime-variables.conf"

static void test_isolating_profiles(void **state)
{
	(void)state;
	check(NULL, NULL, NULL, "", NULL, NULL);
	check("cpu-partitioning\n", CPUP, "# isolated_cores=2,4-7\nisolated_cores=2-5\n", "2-5",
	      "isolated_cores=2-5 in " CPUP " (active profile cpu-partitioning)", NULL);
	/* INI spacing, and a profile among several merged ones. */
	check("throughput-performance realtime\n", RT, "isolated_cores = 1,3\n", "1,3", "active profile realtime", NULL);
	/* Another profile: its variables are not TuneD's isolation. */
	check("throughput-performance\n", CPUP, "isolated_cores=2-5\n", "", NULL, NULL);
}

static void test_unevaluated_value(void **state)
{
	(void)state;
	/* realtime-variables.conf as TuneD ships it. */
	check("realtime\n", RT, "isolated_cores=${f:calc_isolated_cores:1}\nisolate_managed_irq=Y\n", "", NULL,
	      "isolated_cores=${f:calc_isolated_cores:1}");
	check("cpu-partitioning\n", CPUP, "# isolated_cores=2-23\n", "", NULL, "sets no isolated_cores");
	check("cpu-partitioning\n", CPUP, "isolated_cores=two\n", "", NULL, "is not a CPU list");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isolating_profiles),
		cmocka_unit_test(test_unevaluated_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
