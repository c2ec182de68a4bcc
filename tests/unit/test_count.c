/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counts and rates at a glance (lib/base/count.c) write what printf's
 * "%.1f" and "%.0f" write, rounding the exact binary value ties to even,
 * without printf: checked against printf over spread values and around
 * every tie of the ranges they use. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/count.h"

/* The texts as printf makes them. */
static const char *printf_count(unsigned long long n, char buf[16])
{
	static const char unit[] = "kMGTPE";
	if (n < 10000) {
		snprintf(buf, 16, "%llu", n);
		return buf;
	}
	double v = (double)n;
	int u = -1;
	while (v >= 999.5 && u < 5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, 16, v < 99.95 ? "%.1f%c" : "%.0f%c", v, unit[u]);
	return buf;
}

static const char *printf_rate(double r, char buf[16])
{
	char n[16];
	if (!(r > 0))
		snprintf(buf, 16, "0/s");
	else if (r < 0.05)
		snprintf(buf, 16, "<0.1/s");
	else if (r < 9.95)
		snprintf(buf, 16, "%.1f/s", r);
	else if (r < 9999.5)
		snprintf(buf, 16, "%.0f/s", r);
	else
		snprintf(buf, 16, "%s/s", printf_count((unsigned long long)(r + 0.5), n));
	return buf;
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_counts_as_printf(void **state)
{
	(void)state;
	char a[16], b[16];
	uint64_t s = 88172645463325252ULL;
	for (int i = 0; i < 300000; i++) {
		uint64_t r = next(&s);
		unsigned long long n = i % 3 == 0 ? r % 100000 : i % 3 == 1 ? r % 100000000000ULL : r;
		if (strcmp(np_count_text(n, a), printf_count(n, b)))
			fail_msg("count %llu: %s, printf %s", n, a, b);
	}
	/* Each unit's boundaries and the counts a rounding tie sits on. */
	for (unsigned long long base = 10000; base < 10000000000000000000ULL / 10; base *= 10)
		for (unsigned long long d = 0; d < 20; d++) {
			unsigned long long n = base + d * (base / 20) - 1;
			if (strcmp(np_count_text(n, a), printf_count(n, b)))
				fail_msg("count %llu: %s, printf %s", n, a, b);
		}
	assert_string_equal(np_count_text(18446744073709551615ULL, a), printf_count(18446744073709551615ULL, b));
}

static void test_rates_as_printf(void **state)
{
	(void)state;
	char a[16], b[16];
	uint64_t s = 1234567;
	for (int i = 0; i < 300000; i++) {
		uint64_t r = next(&s);
		double v = i % 3 == 0 ? (double)(r % 100000) / 1000.0 : i % 3 == 1 ? (double)(r % 10000000) / 997.0
										   : (double)(r % 1000000) / 100.0;
		if (strcmp(np_rate_text(v, a), printf_rate(v, b)))
			fail_msg("rate %.17g: %s, printf %s", v, a, b);
	}
	/* Ties in binary (0.25, 2.5) and decimal ones that are not (0.15), with
	 * the doubles next to them. */
	static const double ties[] = { 0.05, 0.15, 0.25, 0.35, 0.45, 0.75, 0.95, 1.25, 2.5, 3.5, 9.85, 9.95, 10.5,
				       11.5, 12.25, 99.5, 999.5, 9999.5 };
	for (size_t i = 0; i < sizeof(ties) / sizeof(ties[0]); i++)
		for (int step = -3; step <= 3; step++) {
			double v = ties[i];
			for (int k = 0; k < abs(step); k++)
				v = nextafter(v, step > 0 ? INFINITY : 0);
			if (strcmp(np_rate_text(v, a), printf_rate(v, b)))
				fail_msg("rate %.17g: %s, printf %s", v, a, b);
		}
	assert_string_equal(np_rate_text(0, a), "0/s");
	assert_string_equal(np_rate_text(0.04, a), "<0.1/s");
	assert_string_equal(np_rate_text(1712.4, a), "1712/s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_as_printf),
		cmocka_unit_test(test_rates_as_printf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
