/* SPDX-License-Identifier: GPL-2.0-or-later */
/* np_nearest: the "did you mean" of an unknown command or option. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/nearest.h"

static const char *const commands[] = { "report", "topo", "devices", "irqs", "revert", "history", "profile" };
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char *nearest(const char *typed)
{
	return np_nearest(typed, commands, NCOMMANDS, sizeof(commands[0]));
}

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(np_edit_distance("report", "report"), 0);
	assert_int_equal(np_edit_distance("repot", "report"), 1);    /* a letter left out */
	assert_int_equal(np_edit_distance("rpeort", "report"), 1);   /* two letters swapped */
	assert_int_equal(np_edit_distance("reporx", "report"), 1);   /* one replaced */
	assert_int_equal(np_edit_distance("", "irqs"), 4);
	assert_int_equal(np_edit_distance("kitten", "sitting"), 3);
}

static void test_typos(void **state)
{
	(void)state;
	assert_string_equal(nearest("repot"), "report");
	assert_string_equal(nearest("reprot"), "report");
	assert_string_equal(nearest("irq"), "irqs");
	assert_string_equal(nearest("devcies"), "devices");
	assert_string_equal(nearest("histroy"), "history");
	/* A longer or shorter form of a name. */
	assert_string_equal(nearest("topology"), "topo");
	assert_string_equal(nearest("prof"), "profile");
}

static void test_nothing_close(void **state)
{
	(void)state;
	assert_null(nearest("xyz"));
	assert_null(nearest("apply"));
	assert_null(nearest("q"));
	/* Two edits in a word of three is another word, not a typo. */
	assert_null(nearest("tpp"));
}

/* Names read from a table of structs, the name its first member. */
static void test_stride(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int other;
	} table[] = { { "json", 1 }, { "interval", 2 }, { "all", 3 } };
	assert_string_equal(np_nearest("jsn", table, 3, sizeof(table[0])), "json");
	assert_string_equal(np_nearest("intreval", table, 3, sizeof(table[0])), "interval");
	assert_null(np_nearest("pretty", table, 3, sizeof(table[0])));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_typos),
		cmocka_unit_test(test_nothing_close),
		cmocka_unit_test(test_stride),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
