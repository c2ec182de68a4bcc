/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Escaping names for display and quoting words for the shell (lib/base/quote.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/quote.h"

static void expect_escape(const char *in, const char *want)
{
	char buf[256];
	assert_string_equal(np_escape(in, buf, sizeof(buf)), want);
	char *dup = np_escape_dup(in);
	assert_non_null(dup);
	assert_string_equal(dup, want);
	free(dup);
	assert_int_equal(np_printable(in), !strcmp(in, want));
}

static void test_escape(void **state)
{
	(void)state;
	expect_escape("eth0", "eth0");
	expect_escape("", "");
	expect_escape("a\x1b]0;PWN\x07", "a\\x1b]0;PWN\\x07");
	expect_escape("\x01\x7f", "\\x01\\x7f");
	expect_escape("back\\slash", "back\\x5cslash");
	expect_escape("caf\xc3\xa9", "caf\xc3\xa9");           /* UTF-8 shows as it is */
	expect_escape("\xff\xfe", "\\xff\\xfe");                /* never UTF-8 */
	expect_escape("\xc3", "\\xc3");                         /* cut short */
	expect_escape("\xc0\xaf", "\\xc0\\xaf");                /* overlong '/' */
	expect_escape("\xed\xa0\x80", "\\xed\\xa0\\x80");       /* a surrogate */
	expect_escape("\xc2\x9b" "31m", "\\xc2\\x9b31m");       /* C1 CSI */
	expect_escape("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"); /* U+1F600 */
	/* Cut to the buffer, never inside an escape. */
	char small[8];
	assert_string_equal(np_escape("ab\x1b\x1b", small, sizeof(small)), "ab\\x1b");
}

/* Each quoted word, given to sh, comes back as the one argument it was. */
static void expect_word(const char *in, const char *want)
{
	char *q = np_shell_quote(in);
	assert_non_null(q);
	if (want)
		assert_string_equal(q, want);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "set -- %s; [ $# -eq 1 ] && printf %%s \"$1\"", q);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char out[512] = "";
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
	assert_string_equal(out, in);
	free(q);
}

static void test_shell_quote(void **state)
{
	(void)state;
	expect_word("eth0", "eth0");
	expect_word("0000:23:00.0", "0000:23:00.0");
	expect_word("a;touch${IFS}P#", "'a;touch${IFS}P#'");
	expect_word("it's", "'it'\\''s'");
	expect_word("$(id)`id`", NULL);
	expect_word("{a,b} *?", NULL);
	expect_word("", "''");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_shell_quote),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
