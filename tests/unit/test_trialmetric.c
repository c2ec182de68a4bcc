/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace trial's --metric (lib/judge/trial-metric): which expressions
 * hold a back-reference, and which line's number is read from a run's
 * output, whole or with its first bytes dropped. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "judge/trial-metric.h"

static void test_backrefs(void **state)
{
	(void)state;
	/* The expression: its first back-reference is \4. */
	assert_int_equal(np_trial_metric_backref("([0-9]*)(a*)*(a*)*(a*)*\\4\\3\\2x"), 23);
	assert_int_equal(np_trial_metric_backref("(a)\\1"), 3);
	assert_int_equal(np_trial_metric_backref("bw=([0-9.]+)MiB/s"), -1);
	/* Escapes that are no back-references: \\ then 1, \0, \. */
	assert_int_equal(np_trial_metric_backref("a\\\\1"), -1);
	assert_int_equal(np_trial_metric_backref("a\\0\\."), -1);
	/* In a bracket expression a backslash is itself, ']' first is a member,
	 * and a class runs to its ":]". */
	assert_int_equal(np_trial_metric_backref("[\\1]"), -1);
	assert_int_equal(np_trial_metric_backref("[]\\1]"), -1);
	assert_int_equal(np_trial_metric_backref("[^]\\1]x"), -1);
	assert_int_equal(np_trial_metric_backref("[[:digit:]\\1]"), -1);
	assert_int_equal(np_trial_metric_backref("[a](b)\\1"), 6);
	/* Unterminated: nothing after it to refer back. */
	assert_int_equal(np_trial_metric_backref("[\\1"), -1);
	assert_int_equal(np_trial_metric_backref("\\"), -1);
}

/* Matches text (copied with its room for a NUL) against re. */
static bool last(const char *re_text, const char *text, bool cut, char *out, size_t size)
{
	regex_t re;
	assert_int_equal(regcomp(&re, re_text, REG_EXTENDED), 0);
	size_t len = strlen(text);
	char *copy = malloc(len + 1);
	assert_non_null(copy);
	memcpy(copy, text, len);
	copy[len] = 'Z'; /* overwritten: the room given */
	bool found = np_trial_metric_last(&re, copy, len, cut, out, size);
	free(copy);
	regfree(&re);
	return found;
}

static void test_last_matching_line(void **state)
{
	(void)state;
	char out[16];
	const char *re = "^rate: ([0-9.]+)";
	assert_true(last(re, "starting\nrate: 10\nrate: 12.5\ndone\n", false, out, sizeof(out)));
	assert_string_equal(out, "12.5");
	/* The last line needs no line feed. */
	assert_true(last(re, "rate: 1\nrate: 7", false, out, sizeof(out)));
	assert_string_equal(out, "7");
	assert_false(last(re, "nothing\nhere\n", false, out, sizeof(out)));
	assert_false(last(re, "", false, out, sizeof(out)));
	/* Cut: the first line is the end of one whose start was dropped. */
	assert_true(last(re, "rate: 99\nrate: 3\n", true, out, sizeof(out)));
	assert_string_equal(out, "3");
	assert_false(last(re, "rate: 99\n", true, out, sizeof(out)));
	assert_false(last(re, "rate: 99", true, out, sizeof(out)));
	/* A group that took no part. */
	assert_false(last("x|(y)", "x\n", false, out, sizeof(out)));
	/* Cut to size. */
	assert_true(last(re, "rate: 123456789012345678901234\n", false, out, 6));
	assert_string_equal(out, "12345");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backrefs),
		cmocka_unit_test(test_last_matching_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
