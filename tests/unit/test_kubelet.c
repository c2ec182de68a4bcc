/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kubelet's CPU manager state: what is read from it, and what is set
 * aside (a note, never an error). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "read/kubelet.h"

static void parse(const char *text, struct np_kubelet *k)
{
	assert_int_equal(np_kubelet_parse(text, strlen(text), "state", k), 0);
}

static char *list(const struct np_cpuset *s)
{
	static char buf[64];
	char *t = np_cpuset_format_list(s);
	assert_non_null(t);
	snprintf(buf, sizeof(buf), "%s", t);
	free(t);
	return buf;
}

static void test_static_policy(void **state)
{
	(void)state;
	struct np_kubelet k;
	parse("{\"policyName\":\"static\",\"defaultCpuSet\":\"0-1,12-53\",\"entries\":{"
	      "\"uid-b\":{\"db\":\"54-59\",\"sidecar\":\"\"},\"uid-a\":{\"web\":\"6-11\"}},\"checksum\":1}", &k);
	assert_int_equal(k.nnotes, 0);
	assert_string_equal(k.policy, "static");
	assert_string_equal(list(&k.default_cpus), "0-1,12-53");
	/* An empty set is a container with no exclusive CPUs: not listed. */
	assert_int_equal(k.n, 2);
	assert_string_equal(k.v[0].pod_uid, "uid-a");
	assert_string_equal(k.v[0].name, "web");
	assert_string_equal(k.v[1].name, "db");
	assert_string_equal(list(&k.exclusive), "6-11,54-59");
	assert_string_equal(np_kubelet_owner(&k, 55)->name, "db");
	assert_null(np_kubelet_owner(&k, 12));
	np_kubelet_free(&k);
}

static void test_none_policy_has_no_exclusive_cpus(void **state)
{
	(void)state;
	struct np_kubelet k;
	parse("{\"policyName\":\"none\",\"defaultCpuSet\":\"\",\"checksum\":1}", &k);
	assert_int_equal(k.nnotes, 0);
	assert_int_equal(k.n, 0);
	assert_true(np_cpuset_empty(&k.exclusive));
	np_kubelet_free(&k);
}

/* Each is set aside whole, with a note naming the file and why. */
static void test_set_aside(void **state)
{
	(void)state;
	static const char *const bad[][2] = {
		{ "{\"policyName\":\"static\",\"entries\":{\"u\":{\"c\":\"2-", "not valid JSON" },
		{ "[1,2]", "not a JSON object" },
		{ "{\"entries\":{}}", "no policyName" },
		{ "{\"policyName\":\"dynamic\"}", "a policy other than static or none" },
		{ "{\"policyName\":\"static\",\"defaultCpuSet\":\"0-x\"}", "defaultCpuSet is not a CPU list" },
		{ "{\"policyName\":\"static\",\"entries\":{\"4a1f\":\"6-7\"}}", "older kubelet" },
		{ "{\"policyName\":\"static\",\"entries\":{\"u\":{\"c\":7}}}", "not a string" },
		{ "{\"policyName\":\"static\",\"entries\":{\"u\":{\"a\":\"1\",\"c\":\"9-2\"}}}", "not a CPU list" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct np_kubelet k;
		parse(bad[i][0], &k);
		assert_int_equal(k.nnotes, 1);
		assert_non_null(strstr(k.notes[0], "'state': "));
		assert_non_null(strstr(k.notes[0], bad[i][1]));
		assert_int_equal(k.n, 0);
		assert_true(np_cpuset_empty(&k.exclusive));
		np_kubelet_free(&k);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_static_policy),
		cmocka_unit_test(test_none_policy_has_no_exclusive_cpus),
		cmocka_unit_test(test_set_aside),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
