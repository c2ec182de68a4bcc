/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CPU list and mask parsers and formatters, and the set operations. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpuset.h"

/* Bound on the words a parse may leave behind: anything past the largest
 * accepted CPU would mean the parser allocated for an out-of-range number. */
#define MAX_WORDS ((size_t)NP_CPUSET_MAX_CPU / 64 + 1)

static void set_of(struct np_cpuset *set, const char *list)
{
	assert_int_equal(np_cpuset_parse_list(set, list), 0);
}

static void assert_list(const struct np_cpuset *set, const char *want)
{
	char *text = np_cpuset_format_list(set);
	assert_non_null(text);
	assert_string_equal(text, want);
	free(text);
}

static void assert_mask(const struct np_cpuset *set, unsigned ncpus, const char *want)
{
	char *text = np_cpuset_format_mask(set, ncpus);
	assert_non_null(text);
	assert_string_equal(text, want);
	free(text);
}

/* Parses text as a list, formats it back, and expects want. */
static void list_round_trip(const char *text, const char *want)
{
	struct np_cpuset set = NP_CPUSET_INIT;
	set_of(&set, text);
	assert_list(&set, want);
	np_cpuset_free(&set);
}

static void test_list_ranges(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	set_of(&set, "0-3,8,10-11");
	assert_int_equal(np_cpuset_count(&set), 7);
	for (unsigned c = 0; c < 16; c++)
		assert_int_equal(np_cpuset_test(&set, c), c <= 3 || c == 8 || c == 10 || c == 11);
	assert_list(&set, "0-3,8,10-11");
	np_cpuset_free(&set);

	list_round_trip("5", "5");
	list_round_trip("4-4", "4");
	/* Adjacent pieces merge: the formatter prints runs, not the input. */
	list_round_trip("0,1,2,3", "0-3");
	list_round_trip("2,0,1", "0-2");
	list_round_trip("0-1,1-3", "0-3");
	/* Runs that cross a 64-bit word boundary. */
	list_round_trip("60-70,127-128", "60-70,127-128");
	list_round_trip("63,64", "63-64");
}

static void test_list_blk_mq_form(void **state)
{
	(void)state;
	/* blk-mq's mq/N/cpu_list separates with ", ". */
	list_round_trip("0, 1, 2", "0-2");
	list_round_trip("4, 6, 8\n", "4,6,8");
	list_round_trip("  1 ,3", "1,3");
}

static void test_list_empty(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	assert_int_equal(np_cpuset_parse_list(&set, ""), 0);
	assert_true(np_cpuset_empty(&set));
	assert_list(&set, "");

	/* An empty file as read from sysfs. */
	set_of(&set, "3");
	assert_int_equal(np_cpuset_parse_list(&set, "\n"), 0);
	assert_true(np_cpuset_empty(&set));
	assert_int_equal(np_cpuset_count(&set), 0);
	np_cpuset_free(&set);
}

static void test_list_trailing_newline(void **state)
{
	(void)state;
	list_round_trip("0-3,8\n", "0-3,8");
	list_round_trip("7\n", "7");
}

static void test_list_large(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	set_of(&set, "0-8191");
	assert_int_equal(np_cpuset_count(&set), 8192);
	assert_int_equal(np_cpuset_last(&set), 8191);
	assert_false(np_cpuset_test(&set, 8192));
	assert_list(&set, "0-8191");

	set_of(&set, "5000,9000");
	assert_int_equal(np_cpuset_count(&set), 2);
	assert_true(np_cpuset_test(&set, 5000));
	assert_true(np_cpuset_test(&set, 9000));
	assert_false(np_cpuset_test(&set, 4999));
	assert_false(np_cpuset_test(&set, 5001));
	assert_int_equal(np_cpuset_next(&set, 0), 5000);
	assert_int_equal(np_cpuset_next(&set, 5001), 9000);
	assert_list(&set, "5000,9000");

	/* The largest accepted CPU is in range, one more is not. */
	char text[32];
	snprintf(text, sizeof(text), "%d", NP_CPUSET_MAX_CPU);
	set_of(&set, text);
	assert_int_equal(np_cpuset_last(&set), NP_CPUSET_MAX_CPU);
	assert_list(&set, text);
	snprintf(text, sizeof(text), "%d", NP_CPUSET_MAX_CPU + 1);
	assert_int_equal(np_cpuset_parse_list(&set, text), -ERANGE);
	assert_true(np_cpuset_empty(&set));
	np_cpuset_free(&set);
}

static void test_list_malformed(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"3-1", "1,,2", ",1", "1,", "a", "1-", "-1", "1 2", "0x3",
		"1-2-3", "1;2", "1\n2", "1-\n", "+1", "1--2", ",", "-",
	};
	struct np_cpuset set = NP_CPUSET_INIT;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* Start non-empty so "left empty" means cleared, not untouched. */
		set_of(&set, "0-130");
		int rc = np_cpuset_parse_list(&set, bad[i]);
		if (rc != -EINVAL)
			fail_msg("list '%s': rc %d, want -EINVAL", bad[i], rc);
		if (!np_cpuset_empty(&set))
			fail_msg("list '%s': set not left empty", bad[i]);
	}
	np_cpuset_free(&set);
}

static void test_list_out_of_range(void **state)
{
	(void)state;
	static const char *const big[] = {
		"0-4000000000", "99999999999999999999", "4000000000", "1,2,3-99999999999999999999999",
	};
	struct np_cpuset set = NP_CPUSET_INIT;

	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		set_of(&set, "1");
		int rc = np_cpuset_parse_list(&set, big[i]);
		if (rc != -ERANGE)
			fail_msg("list '%s': rc %d, want -ERANGE", big[i], rc);
		assert_true(np_cpuset_empty(&set));
		/* No allocation sized by the bogus number. */
		assert_in_range(set.nwords, 0, MAX_WORDS);
	}
	np_cpuset_free(&set);

	/* Never grown at all when the bad number comes first. */
	assert_int_equal(np_cpuset_parse_list(&set, "0-4000000000"), -ERANGE);
	assert_int_equal(set.nwords, 0);
	assert_null(set.bits);
	np_cpuset_free(&set);

	assert_int_equal(np_cpuset_set(&set, NP_CPUSET_MAX_CPU + 1), -ERANGE);
	assert_true(np_cpuset_empty(&set));
	np_cpuset_free(&set);
}

/* The set given as a list has the stride text want, and reads back from it. */
static void stride_round_trip(const char *list, const char *want)
{
	struct np_cpuset set = NP_CPUSET_INIT, back = NP_CPUSET_INIT;
	set_of(&set, list);
	char *text = np_cpuset_format_stride(&set), *plain = np_cpuset_format_list(&set);
	assert_non_null(text);
	assert_non_null(plain);
	if (strcmp(text, want))
		fail_msg("set '%s': stride text '%s', want '%s'", list, text, want);
	assert_true(strlen(text) <= strlen(plain));
	assert_int_equal(np_cpuset_parse_user_list(&back, text), 0);
	if (!np_cpuset_equal(&set, &back))
		fail_msg("set '%s': '%s' reads back as another set", list, text);
	free(text);
	free(plain);
	np_cpuset_free(&set);
	np_cpuset_free(&back);
}

static void test_format_stride(void **state)
{
	(void)state;
	/* Interleaved nodes: 2 sockets numbered alternately, 4 nodes round robin. */
	stride_round_trip("0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,42,44,46,48,"
			  "50,52,54,56,58,60,62", "0-62:2");
	stride_round_trip("1,5,9,13,17,21,25,29,33,37,41,45,49,53,57,61", "1-61:4");
	stride_round_trip("1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31,33,35,37,39", "1-39:2");
	/* Nothing to gain: empty, single, ranges, a pair, 3 members no shorter. */
	stride_round_trip("", "");
	stride_round_trip("7", "7");
	stride_round_trip("0-3,8,10-11", "0-3,8,10-11");
	stride_round_trip("4,6", "4,6");
	stride_round_trip("0,2,4", "0,2,4");
	stride_round_trip("0,100,200", "0,100,200");
	/* 3 members, shorter once the numbers have 2 digits. */
	stride_round_trip("10,12,14", "10-14:2");
	stride_round_trip("0,100,200,300", "0-300:100");
	/* A run leaves its last CPU to the range after it. */
	stride_round_trip("0,2,4,5,6,7", "0,2,4-7");
	stride_round_trip("0,2,4,6,8,9,10", "0-6:2,8-10");
	/* Runs and ranges mixed; a run ending the set; runs back to back. */
	stride_round_trip("0-3,10,20,30,40,41", "0-3,10,20,30,40-41");
	stride_round_trip("0-3,10,20,30,40,50,51", "0-3,10-40:10,50-51");
	stride_round_trip("0-1,11,13,15,17", "0-1,11-17:2");
	stride_round_trip("0,2,4,6,11,14,17,20", "0-6:2,11-20:3");
	/* Across word boundaries and at the top of the accepted range. */
	stride_round_trip("60,64,68,72,76,80,84,88,92,96,100,104,108,112,116,120,124,128", "60-128:4");
	stride_round_trip("65529,65531,65533,65535", "65529-65535:2");
}

static void test_parse_user_list(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	/* As taskset: the last member is the last step not past the end. */
	assert_int_equal(np_cpuset_parse_user_list(&set, "0-7:2"), 0);
	assert_list(&set, "0,2,4,6");
	assert_int_equal(np_cpuset_parse_user_list(&set, "3-3:5,8-16:4"), 0);
	assert_list(&set, "3,8,12,16");
	assert_int_equal(np_cpuset_parse_user_list(&set, "0-3:1"), 0);
	assert_list(&set, "0-3");
	static const char *const bad[] = { "0-7:0", "0-7:", "0:2", "0-7:2:2", "0-7:x", "0-7:-2" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		set_of(&set, "0-130");
		if (np_cpuset_parse_user_list(&set, bad[i]) != -EINVAL || !np_cpuset_empty(&set))
			fail_msg("user list '%s' accepted or not cleared", bad[i]);
	}
	assert_int_equal(np_cpuset_parse_user_list(&set, "0-7:4000000000"), -ERANGE);
	/* The kernel's own files never hold a stride: there it is malformed. */
	assert_int_equal(np_cpuset_parse_list(&set, "0-62:2"), -EINVAL);
	np_cpuset_free(&set);
}

/* Parses a mask, checks it as a list, and formats it back at the width it had. */
static void mask_round_trip(const char *mask, const char *list, unsigned ncpus)
{
	struct np_cpuset set = NP_CPUSET_INIT;
	assert_int_equal(np_cpuset_parse_mask(&set, mask), 0);
	assert_list(&set, list);
	assert_mask(&set, ncpus, mask);
	np_cpuset_free(&set);
}

static void test_mask_round_trip(void **state)
{
	(void)state;
	mask_round_trip("3", "0-1", 2);
	mask_round_trip("f,ffffffff", "0-35", 36);
	mask_round_trip("00000000,00000002", "1", 64);
	mask_round_trip("00000000", "", 32);
	mask_round_trip("80000000,00000001", "0,63", 64);
	mask_round_trip("1,00000000,00000000", "64", 65);
	mask_round_trip("aa", "1,3,5,7", 8);
	mask_round_trip("ff,00ff00ff", "0-7,16-23,32-39", 40);
	/* Groups of zeros passed whole, around and between set ones. */
	mask_round_trip("00000000,80000000,00000000", "63", 96);
	mask_round_trip("00000001,00000000,00000000,00000010", "4,96", 128);

	struct np_cpuset set = NP_CPUSET_INIT;
	/* Upper-case digits and a trailing newline, as some tools write them. */
	assert_int_equal(np_cpuset_parse_mask(&set, "FF,FFFFFFFF\n"), 0);
	assert_list(&set, "0-39");
	assert_int_equal(np_cpuset_parse_mask(&set, "  3\n"), 0);
	assert_list(&set, "0-1");
	/* A group of nine digits, zeros or not, is no mask. */
	assert_int_equal(np_cpuset_parse_mask(&set, "000000000,00000000"), -EINVAL);
	assert_int_equal(np_cpuset_parse_mask(&set, "0000000000000000"), -EINVAL);
	np_cpuset_free(&set);
}

/* A mask of digits nibbles long, top the most significant, zeros below:
 * commas between groups of 8 as the kernel writes them. */
static char *mask_with_top(size_t digits, char top)
{
	char *m = malloc(digits + digits / 8 + 1), *p = m;
	for (size_t i = digits; i > 0; i--) {
		*p++ = i == digits ? top : '0';
		if (i > 1 && (i - 1) % 8 == 0)
			*p++ = ',';
	}
	*p = '\0';
	return m;
}

/* The highest CPU numaplace handles is the last a mask may name, whichever
 * bit of its nibble names it. */
static void test_mask_limit(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;
	char *top = mask_with_top((NP_CPUSET_MAX_CPU + 1) / 4, '8');
	assert_int_equal(np_cpuset_parse_mask(&set, top), 0);
	assert_int_equal(np_cpuset_count(&set), 1);
	assert_true(np_cpuset_test(&set, NP_CPUSET_MAX_CPU));
	free(top);
	char *past = mask_with_top((NP_CPUSET_MAX_CPU + 1) / 4 + 1, '1');
	assert_int_equal(np_cpuset_parse_mask(&set, past), -ERANGE);
	assert_true(np_cpuset_empty(&set));
	free(past);
	np_cpuset_free(&set);
}

static void test_format_mask_width(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	set_of(&set, "0,1");
	assert_mask(&set, 2, "3");
	assert_mask(&set, 4, "3");
	assert_mask(&set, 5, "03");
	assert_mask(&set, 32, "00000003");
	assert_mask(&set, 33, "0,00000003");
	/* Narrower than the set: the set wins. */
	assert_mask(&set, 1, "3");
	assert_mask(&set, 0, "3");

	set_of(&set, "0-35");
	assert_mask(&set, 36, "f,ffffffff");
	assert_mask(&set, 64, "0000000f,ffffffff");

	set_of(&set, "1");
	assert_mask(&set, 64, "00000000,00000002");

	np_cpuset_clear(&set);
	assert_mask(&set, 0, "0");
	assert_mask(&set, 8, "00");
	np_cpuset_free(&set);

	/* A never-allocated set formats as well. */
	assert_mask(&set, 4, "0");
}

/* Every group but the leftmost is exactly 8 digits; the leftmost 1 to 8. */
static void assert_kernel_groups(const char *mask)
{
	const char *p = mask, *comma;
	size_t first = strcspn(p, ",");
	assert_in_range(first, 1, 8);
	p += first;
	while (*p) {
		assert_int_equal(*p, ',');
		p++;
		comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		assert_int_equal(len, 8);
		p += len;
	}
}

static void test_format_mask_groups(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	for (unsigned ncpus = 1; ncpus <= 300; ncpus++) {
		np_cpuset_clear(&set);
		assert_int_equal(np_cpuset_set(&set, ncpus - 1), 0);
		char *text = np_cpuset_format_mask(&set, ncpus);
		assert_non_null(text);
		assert_kernel_groups(text);
		/* One hex digit per 4 CPUs, rounded up, as the kernel prints. */
		size_t commas = 0;
		for (const char *p = text; *p; p++)
			commas += *p == ',';
		assert_int_equal(strlen(text) - commas, (ncpus + 3) / 4);
		struct np_cpuset back = NP_CPUSET_INIT;
		assert_int_equal(np_cpuset_parse_mask(&back, text), 0);
		assert_true(np_cpuset_equal(&back, &set));
		np_cpuset_free(&back);
		free(text);
	}
	np_cpuset_free(&set);
}

static void test_mask_large(void **state)
{
	(void)state;
	enum { GROUPS = 300 };
	/* Group g (counted from the right) holds CPU 32 * g + g % 32, so each
	 * group is distinct and a misplaced group shows up. */
	char *mask = malloc(GROUPS * 9);
	assert_non_null(mask);
	char *p = mask;
	for (int g = GROUPS - 1; g >= 0; g--)
		p += sprintf(p, "%08x%s", 1u << (g % 32), g ? "," : "");

	struct np_cpuset set = NP_CPUSET_INIT;
	assert_int_equal(np_cpuset_parse_mask(&set, mask), 0);
	assert_int_equal(np_cpuset_count(&set), GROUPS);
	for (unsigned g = 0; g < GROUPS; g++)
		assert_true(np_cpuset_test(&set, 32 * g + g % 32));
	assert_int_equal(np_cpuset_last(&set), 32 * (GROUPS - 1) + (GROUPS - 1) % 32);
	assert_mask(&set, 32 * GROUPS, mask);

	/* The same set read back from its list form. */
	char *list = np_cpuset_format_list(&set);
	assert_non_null(list);
	struct np_cpuset again = NP_CPUSET_INIT;
	set_of(&again, list);
	assert_true(np_cpuset_equal(&set, &again));
	free(list);

	/* Above 4096 CPUs with a short leftmost group. */
	set_of(&set, "5000,9000");
	char *text = np_cpuset_format_mask(&set, 0);
	assert_non_null(text);
	assert_kernel_groups(text);
	assert_int_equal(text[0], '1');
	assert_int_equal(np_cpuset_parse_mask(&again, text), 0);
	assert_list(&again, "5000,9000");
	free(text);

	/* All of 0-8191, and back. */
	set_of(&set, "0-8191");
	text = np_cpuset_format_mask(&set, 8192);
	assert_non_null(text);
	assert_int_equal(strlen(text), 8192 / 4 + 8192 / 32 - 1);
	assert_int_equal(np_cpuset_parse_mask(&again, text), 0);
	assert_list(&again, "0-8191");
	free(text);

	np_cpuset_free(&again);
	np_cpuset_free(&set);
	free(mask);
}

static void test_mask_malformed(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"g", ",ff", "ff,", "1,fff", "123456789", "1,123456789", "fffffffff,ffffffff",
		"ff ff", "0x3", "ffffffff,,ffffffff", ",", "1,ffffffff,", "-1", "f\n0",
		",ffffffff", ",00000000,00000001",
	};
	struct np_cpuset set = NP_CPUSET_INIT;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		set_of(&set, "0-130");
		int rc = np_cpuset_parse_mask(&set, bad[i]);
		if (rc != -EINVAL)
			fail_msg("mask '%s': rc %d, want -EINVAL", bad[i], rc);
		if (!np_cpuset_empty(&set))
			fail_msg("mask '%s': set not left empty", bad[i]);
	}
	np_cpuset_free(&set);
}

static void test_mask_out_of_range(void **state)
{
	(void)state;
	/* The top bit of the first group is NP_CPUSET_MAX_CPU: in range; one
	 * group more puts a bit past it. */
	size_t groups = (NP_CPUSET_MAX_CPU + 1) / 32;
	char *mask = malloc(9 + groups * 9 + 1);
	assert_non_null(mask);
	char *p = mask;
	p += sprintf(p, "80000000");
	for (size_t g = 1; g < groups; g++)
		p += sprintf(p, ",%08x", 0u);

	struct np_cpuset set = NP_CPUSET_INIT;
	assert_int_equal(np_cpuset_parse_mask(&set, mask), 0);
	assert_int_equal(np_cpuset_count(&set), 1);
	assert_int_equal(np_cpuset_last(&set), NP_CPUSET_MAX_CPU);

	sprintf(p, ",%08x", 0u);
	mask[0] = '1';
	mask[1] = ',';
	memmove(mask + 2, mask + 9, strlen(mask + 9) + 1);
	assert_int_equal(np_cpuset_parse_mask(&set, mask), -ERANGE);
	assert_true(np_cpuset_empty(&set));
	assert_in_range(set.nwords, 0, MAX_WORDS);
	np_cpuset_free(&set);
	free(mask);
}

static void test_ops_empty(void **state)
{
	(void)state;
	struct np_cpuset empty = NP_CPUSET_INIT, grown = NP_CPUSET_INIT;

	assert_int_equal(np_cpuset_count(&empty), 0);
	assert_true(np_cpuset_empty(&empty));
	assert_int_equal(np_cpuset_next(&empty, 0), -1);
	assert_int_equal(np_cpuset_next(&empty, -5), -1);
	assert_int_equal(np_cpuset_last(&empty), -1);
	assert_false(np_cpuset_test(&empty, 0));
	np_cpuset_unset(&empty, 100);
	np_cpuset_clear(&empty);

	/* Allocated but with no CPU left in it. */
	assert_int_equal(np_cpuset_set(&grown, 500), 0);
	np_cpuset_unset(&grown, 500);
	assert_true(grown.nwords > 1);
	assert_true(np_cpuset_empty(&grown));
	assert_int_equal(np_cpuset_count(&grown), 0);
	assert_int_equal(np_cpuset_next(&grown, 0), -1);
	assert_int_equal(np_cpuset_last(&grown), -1);
	assert_true(np_cpuset_equal(&empty, &grown));
	assert_true(np_cpuset_equal(&grown, &empty));
	assert_true(np_cpuset_subset(&empty, &grown));
	assert_true(np_cpuset_subset(&grown, &empty));
	assert_false(np_cpuset_intersects(&empty, &grown));

	int seen = 0;
	np_cpuset_foreach(cpu, &grown)
		seen++;
	assert_int_equal(seen, 0);
	np_cpuset_free(&grown);
}

static void test_ops_next_last_count(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;

	set_of(&set, "0,63,64,200");
	assert_int_equal(np_cpuset_count(&set), 4);
	assert_false(np_cpuset_empty(&set));
	assert_int_equal(np_cpuset_next(&set, -1), 0);
	assert_int_equal(np_cpuset_next(&set, 0), 0);
	assert_int_equal(np_cpuset_next(&set, 1), 63);
	assert_int_equal(np_cpuset_next(&set, 64), 64);
	assert_int_equal(np_cpuset_next(&set, 65), 200);
	assert_int_equal(np_cpuset_next(&set, 201), -1);
	assert_int_equal(np_cpuset_next(&set, 100000), -1);
	assert_int_equal(np_cpuset_last(&set), 200);

	int want[] = { 0, 63, 64, 200 }, n = 0;
	np_cpuset_foreach(cpu, &set) {
		assert_true(n < 4);
		assert_int_equal(cpu, want[n++]);
	}
	assert_int_equal(n, 4);

	np_cpuset_unset(&set, 200);
	assert_int_equal(np_cpuset_last(&set), 64);
	np_cpuset_unset(&set, 99999);
	assert_int_equal(np_cpuset_count(&set), 3);
	np_cpuset_clear(&set);
	assert_true(np_cpuset_empty(&set));
	np_cpuset_free(&set);
	assert_null(set.bits);
	assert_int_equal(set.nwords, 0);
}

static void test_ops_or_and_andnot(void **state)
{
	(void)state;
	struct np_cpuset a = NP_CPUSET_INIT, b = NP_CPUSET_INIT, r = NP_CPUSET_INIT;

	set_of(&a, "0-3,100");
	set_of(&b, "2-5,5000");

	assert_int_equal(np_cpuset_copy(&r, &a), 0);
	assert_int_equal(np_cpuset_or(&r, &b), 0);
	assert_list(&r, "0-5,100,5000");

	/* The small set ORed with the large one grows. */
	assert_int_equal(np_cpuset_copy(&r, &b), 0);
	assert_int_equal(np_cpuset_or(&r, &a), 0);
	assert_list(&r, "0-5,100,5000");

	assert_int_equal(np_cpuset_copy(&r, &a), 0);
	np_cpuset_and(&r, &b);
	assert_list(&r, "2-3");
	assert_int_equal(np_cpuset_copy(&r, &b), 0);
	np_cpuset_and(&r, &a);
	assert_list(&r, "2-3");

	assert_int_equal(np_cpuset_copy(&r, &a), 0);
	np_cpuset_andnot(&r, &b);
	assert_list(&r, "0-1,100");
	assert_int_equal(np_cpuset_copy(&r, &b), 0);
	np_cpuset_andnot(&r, &a);
	assert_list(&r, "4-5,5000");

	/* Copy replaces: nothing of the previous, larger content survives. */
	set_of(&r, "7000");
	assert_int_equal(np_cpuset_copy(&r, &a), 0);
	assert_list(&r, "0-3,100");
	assert_true(np_cpuset_equal(&r, &a));

	/* Operands left alone. */
	assert_list(&a, "0-3,100");
	assert_list(&b, "2-5,5000");

	/* With an empty operand. */
	struct np_cpuset none = NP_CPUSET_INIT;
	assert_int_equal(np_cpuset_or(&r, &none), 0);
	assert_list(&r, "0-3,100");
	np_cpuset_andnot(&r, &none);
	assert_list(&r, "0-3,100");
	np_cpuset_and(&r, &none);
	assert_true(np_cpuset_empty(&r));

	np_cpuset_free(&a);
	np_cpuset_free(&b);
	np_cpuset_free(&r);
}

static void test_ops_subset_intersects_equal(void **state)
{
	(void)state;
	struct np_cpuset small = NP_CPUSET_INIT, wide = NP_CPUSET_INIT;
	struct np_cpuset big = NP_CPUSET_INIT, other = NP_CPUSET_INIT;

	/* Same CPUs, different nwords: wide was grown far then shrunk back. */
	set_of(&small, "1,3");
	assert_int_equal(np_cpuset_set(&wide, 9000), 0);
	np_cpuset_unset(&wide, 9000);
	assert_int_equal(np_cpuset_set(&wide, 1), 0);
	assert_int_equal(np_cpuset_set(&wide, 3), 0);
	assert_true(small.nwords < wide.nwords);
	assert_true(np_cpuset_equal(&small, &wide));
	assert_true(np_cpuset_equal(&wide, &small));
	assert_true(np_cpuset_subset(&small, &wide));
	assert_true(np_cpuset_subset(&wide, &small));
	assert_true(np_cpuset_intersects(&small, &wide));
	assert_true(np_cpuset_intersects(&wide, &small));

	/* A difference only in the words the smaller set lacks. */
	assert_int_equal(np_cpuset_set(&wide, 8999), 0);
	assert_false(np_cpuset_equal(&small, &wide));
	assert_false(np_cpuset_equal(&wide, &small));
	assert_true(np_cpuset_subset(&small, &wide));
	assert_false(np_cpuset_subset(&wide, &small));

	set_of(&big, "0-7,5000");
	assert_true(np_cpuset_subset(&small, &big));
	assert_false(np_cpuset_subset(&big, &small));
	assert_true(np_cpuset_intersects(&big, &small));

	set_of(&other, "4,6,5001");
	assert_false(np_cpuset_intersects(&small, &other));
	assert_false(np_cpuset_intersects(&other, &small));
	assert_true(np_cpuset_intersects(&other, &big));
	assert_false(np_cpuset_subset(&other, &big));
	assert_false(np_cpuset_equal(&other, &big));

	/* Only the high word in common. */
	set_of(&other, "5000");
	set_of(&small, "1,5000");
	assert_true(np_cpuset_intersects(&other, &small));
	assert_true(np_cpuset_subset(&other, &small));
	assert_true(np_cpuset_equal(&small, &small));

	np_cpuset_free(&small);
	np_cpuset_free(&wide);
	np_cpuset_free(&big);
	np_cpuset_free(&other);
}

/* The one CPU of a set, whichever word it is in; none for an empty set or
 * one of two CPUs, in one word or in two. */
static void test_only(void **state)
{
	(void)state;
	struct np_cpuset set = NP_CPUSET_INIT;
	assert_int_equal(np_cpuset_only(&set), -1);
	assert_int_equal(np_cpuset_parse_list(&set, "700"), 0);
	assert_int_equal(np_cpuset_only(&set), 700);
	assert_int_equal(np_cpuset_parse_list(&set, "0"), 0);
	assert_int_equal(np_cpuset_only(&set), 0);
	assert_int_equal(np_cpuset_parse_list(&set, "3,5"), 0);
	assert_int_equal(np_cpuset_only(&set), -1);
	assert_int_equal(np_cpuset_parse_list(&set, "63,64"), 0);
	assert_int_equal(np_cpuset_only(&set), -1);
	assert_int_equal(np_cpuset_parse_list(&set, "0-1023"), 0);
	assert_int_equal(np_cpuset_only(&set), -1);
	assert_int_equal(np_cpuset_count(&set), 1024);
	np_cpuset_clear(&set);
	assert_int_equal(np_cpuset_only(&set), -1);
	np_cpuset_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only),
		cmocka_unit_test(test_list_ranges),
		cmocka_unit_test(test_list_blk_mq_form),
		cmocka_unit_test(test_list_empty),
		cmocka_unit_test(test_list_trailing_newline),
		cmocka_unit_test(test_list_large),
		cmocka_unit_test(test_list_malformed),
		cmocka_unit_test(test_list_out_of_range),
		cmocka_unit_test(test_format_stride),
		cmocka_unit_test(test_parse_user_list),
		cmocka_unit_test(test_mask_round_trip),
		cmocka_unit_test(test_format_mask_width),
		cmocka_unit_test(test_format_mask_groups),
		cmocka_unit_test(test_mask_large),
		cmocka_unit_test(test_mask_malformed),
		cmocka_unit_test(test_mask_out_of_range),
		cmocka_unit_test(test_ops_empty),
		cmocka_unit_test(test_ops_next_last_count),
		cmocka_unit_test(test_mask_limit),
		cmocka_unit_test(test_ops_or_and_andnot),
		cmocka_unit_test(test_ops_subset_intersects_equal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
