/* SPDX-License-Identifier: GPL-2.0-or-later */
/* np_cmdline_cpus: the isolcpus= and nohz_full= lists of a kernel command line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "base/cpuset.h"
#include "read/topology.h"

/* Runs the parse on a set that starts non-empty, so a result of "empty"
 * proves the set was cleared rather than left alone. */
static int cpus_of(const char *cmdline, const char *param, struct np_cpuset *out)
{
	assert_int_equal(np_cpuset_parse_list(out, "0-200"), 0);
	return np_cmdline_cpus(cmdline, param, out);
}

static void assert_list(const struct np_cpuset *set, const char *want)
{
	char *text = np_cpuset_format_list(set);
	assert_non_null(text);
	assert_string_equal(text, want);
	free(text);
}

static void test_isolcpus_plain(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	assert_int_equal(cpus_of("isolcpus=2-5", "isolcpus", &set), 0);
	assert_list(&set, "2-5");
	assert_int_equal(cpus_of("BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=2-5,8 quiet",
				 "isolcpus", &set), 0);
	assert_list(&set, "2-5,8");
	/* As read from /proc/cmdline before the newline is stripped. */
	assert_int_equal(cpus_of("quiet isolcpus=3\n", "isolcpus", &set), 0);
	assert_list(&set, "3");
	np_cpuset_free(&set);
}

static void test_isolcpus_flags(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	assert_int_equal(cpus_of("isolcpus=managed_irq,domain,2-5", "isolcpus", &set), 0);
	assert_list(&set, "2-5");
	assert_int_equal(cpus_of("ro isolcpus=nohz,domain,managed_irq,1,3-4 ro", "isolcpus", &set), 0);
	assert_list(&set, "1,3-4");
	assert_int_equal(cpus_of("isolcpus=domain,7", "isolcpus", &set), 0);
	assert_list(&set, "7");
	np_cpuset_free(&set);
}

static void test_nohz_full(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	assert_int_equal(cpus_of("nohz_full=1,3", "nohz_full", &set), 0);
	assert_list(&set, "1,3");
	/* Each parameter reads only its own list. */
	assert_int_equal(cpus_of("isolcpus=2-5 nohz_full=1,3 rcu_nocbs=6", "nohz_full", &set), 0);
	assert_list(&set, "1,3");
	assert_int_equal(cpus_of("isolcpus=2-5 nohz_full=1,3 rcu_nocbs=6", "isolcpus", &set), 0);
	assert_list(&set, "2-5");
	/* "nohz=" is another parameter, not a prefix of nohz_full. */
	assert_int_equal(cpus_of("nohz=on", "nohz_full", &set), 0);
	assert_true(np_cpuset_empty(&set));
	np_cpuset_free(&set);
}

static void test_absent(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	assert_int_equal(cpus_of("BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet", "isolcpus", &set), 0);
	assert_true(np_cpuset_empty(&set));
	assert_int_equal(cpus_of("", "isolcpus", &set), 0);
	assert_true(np_cpuset_empty(&set));
	assert_int_equal(cpus_of("   ", "nohz_full", &set), 0);
	assert_true(np_cpuset_empty(&set));
	/* The bare word, without "=", is not the parameter with a list. */
	assert_int_equal(cpus_of("isolcpus quiet", "isolcpus", &set), 0);
	assert_true(np_cpuset_empty(&set));
	np_cpuset_free(&set);
}

static void test_flags_without_list(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	assert_int_equal(cpus_of("isolcpus=nohz", "isolcpus", &set), -EINVAL);
	assert_true(np_cpuset_empty(&set));
	assert_int_equal(cpus_of("quiet isolcpus=domain,managed_irq quiet", "isolcpus", &set), -EINVAL);
	assert_true(np_cpuset_empty(&set));
	np_cpuset_free(&set);
}

static void test_malformed_list(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	assert_int_equal(cpus_of("isolcpus=5-2", "isolcpus", &set), -EINVAL);
	assert_true(np_cpuset_empty(&set));
	assert_int_equal(cpus_of("nohz_full=1,,3", "nohz_full", &set), -EINVAL);
	assert_true(np_cpuset_empty(&set));
	assert_int_equal(cpus_of("isolcpus=domain,2-x", "isolcpus", &set), -EINVAL);
	assert_true(np_cpuset_empty(&set));
	assert_int_equal(cpus_of("nohz_full=0-4000000000", "nohz_full", &set), -ERANGE);
	assert_true(np_cpuset_empty(&set));
	np_cpuset_free(&set);
}

static void test_no_substring_match(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	assert_int_equal(cpus_of("foo_isolcpus=1", "isolcpus", &set), 0);
	assert_true(np_cpuset_empty(&set));
	assert_int_equal(cpus_of("xnohz_full=1 isolcpusx=2", "nohz_full", &set), 0);
	assert_true(np_cpuset_empty(&set));
	assert_int_equal(cpus_of("xnohz_full=1 isolcpusx=2", "isolcpus", &set), 0);
	assert_true(np_cpuset_empty(&set));
	/* The real one next to a look-alike is still found. */
	assert_int_equal(cpus_of("foo_isolcpus=1 isolcpus=4", "isolcpus", &set), 0);
	assert_list(&set, "4");
	np_cpuset_free(&set);
}

static void test_last_wins(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	/* The kernel applies each occurrence in turn, so the last one stands. */
	assert_int_equal(cpus_of("isolcpus=1 isolcpus=2-3", "isolcpus", &set), 0);
	assert_list(&set, "2-3");
	assert_int_equal(cpus_of("isolcpus=2-3  isolcpus=1", "isolcpus", &set), 0);
	assert_list(&set, "1");
	np_cpuset_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isolcpus_plain),
		cmocka_unit_test(test_isolcpus_flags),
		cmocka_unit_test(test_nohz_full),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_flags_without_list),
		cmocka_unit_test(test_malformed_list),
		cmocka_unit_test(test_no_substring_match),
		cmocka_unit_test(test_last_wins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
