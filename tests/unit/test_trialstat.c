/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The trial's statistics against values computed independently: by brute
 * force in Python 3 (every one of the 2^n sign assignments enumerated for
 * the signed-rank distribution, where the library builds it rank by rank;
 * the Walsh averages sorted and their median taken by statistics.median;
 * the script is quoted at the end of this file), and by hand where said. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "judge/trial-stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
/* cmocka's float comparison is in single precision. */
#define assert_near(a, b, eps)                                                              \
	do {                                                                                \
		double a_ = (a), b_ = (b);                                                  \
		if (!(fabs(a_ - b_) <= (eps)))                                              \
			fail_msg("%s is %.17g, expected %.17g", #a, a_, b_);                \
	} while (0)

/* Python: the number of sign assignments with T <= t, over 2^n. */
static void test_signrank_cdf(void **state)
{
	(void)state;
	assert_near(np_signrank_cdf(6, 0), 1.0 / 64, 1e-15);
	assert_near(np_signrank_cdf(10, 8), 25.0 / 1024, 1e-15);
	assert_near(np_signrank_cdf(10, 9), 33.0 / 1024, 1e-15);
	assert_near(np_signrank_cdf(12, 13), 87.0 / 4096, 1e-15);
	assert_near(np_signrank_cdf(10, -1), 0, 0);
	assert_near(np_signrank_cdf(10, 55), 1, 0);
	/* Symmetric about n(n+1)/4: P(T <= 27) + P(T <= 27) = 1 for n = 10
	 * (by hand: T and 55 - T have the same distribution, and 27.5 is the middle). */
	assert_near(2 * np_signrank_cdf(10, 27), 1, 1e-12);
}

/* Six pairs all showing a gain. By hand: the Walsh averages of six values
 * symmetric about 0.045 have their median there; the widest interval
 * [min, max] = [0.02, 0.07] has level 1 - 2/64 = 0.96875, the only one
 * reaching 95%. */
static void test_six_gains(void **state)
{
	(void)state;
	const double d[] = { 0.05, 0.03, 0.07, 0.04, 0.06, 0.02 };
	struct np_trial_stats s;
	assert_int_equal(np_trial_stats(d, N(d), 0.95, &s), 0);
	assert_int_equal(s.n, 6);
	assert_near(s.estimate, 0.045, 1e-15);
	assert_near(s.lo, 0.02, 1e-15);
	assert_near(s.hi, 0.07, 1e-15);
	assert_near(s.level, 0.96875, 1e-15);
	assert_int_equal(np_trial_decide(&s, false, 0), NP_TRIAL_KEEP);
	/* The same numbers as times (lower is better): a loss. */
	assert_int_equal(np_trial_decide(&s, true, 0), NP_TRIAL_REVERT);
	/* A 5% minimum gain (log 1.05 = 0.0488) is above the estimate: more
	 * runs would only confirm the gain is too small. */
	assert_int_equal(np_trial_decide(&s, false, log(1.05)), NP_TRIAL_INCONCLUSIVE);
	assert_int_equal(np_trial_pairs_needed(&s, false, log(1.05)), 0);
}

/* Ten pairs with zeros, a tie (0.012 twice) and both signs. Python:
 * estimate 0.006, k = 9, interval [-0.0005, 0.012], level 974/1024 =
 * 0.951171875 (k = 10 would give 1 - 66/1024 = 0.9355, below 95%). */
static void test_ties_and_zeros(void **state)
{
	(void)state;
	const double d[] = { 0.012, -0.004, 0.0, 0.009, 0.012, -0.007, 0.015, 0.0, 0.003, 0.021 };
	struct np_trial_stats s;
	assert_int_equal(np_trial_stats(d, N(d), 0.95, &s), 0);
	assert_near(s.estimate, 0.006, 1e-15);
	assert_near(s.lo, -0.0005, 1e-15);
	assert_near(s.hi, 0.012, 1e-15);
	assert_near(s.level, 0.951171875, 1e-15);
	assert_int_equal(np_trial_decide(&s, false, 0), NP_TRIAL_INCONCLUSIVE);
	/* By hand: the lower half 0.006 - (-0.0005) = 0.0065 must shrink below
	 * the estimate's distance to 0, 0.006: 10 * (0.0065 / 0.006)^2 = 11.74,
	 * so 12 pairs. */
	assert_int_equal(np_trial_pairs_needed(&s, false, 0), 12);
}

/* All pairs equal: nothing to divide by, an interval of one point. Python:
 * estimate 0, [0, 0], k = 4, level 1 - 2 * 5/256 = 0.9609375. */
static void test_all_zero(void **state)
{
	(void)state;
	const double d[8] = { 0 };
	struct np_trial_stats s;
	assert_int_equal(np_trial_stats(d, N(d), 0.95, &s), 0);
	assert_near(s.estimate, 0, 0);
	assert_near(s.lo, 0, 0);
	assert_near(s.hi, 0, 0);
	assert_near(s.level, 0.9609375, 1e-15);
	assert_int_equal(np_trial_decide(&s, false, 0), NP_TRIAL_INCONCLUSIVE);
	assert_int_equal(np_trial_pairs_needed(&s, false, 0), 0);
}

/* Three pairs cannot reach 95%: the highest level they allow, 1 - 2/8.
 * Python: estimate 0.075, [-0.2, 0.3]. */
static void test_few_pairs(void **state)
{
	(void)state;
	const double d[] = { 0.1, -0.2, 0.3 };
	struct np_trial_stats s;
	assert_int_equal(np_trial_stats(d, N(d), 0.95, &s), 0);
	assert_near(s.estimate, 0.075, 1e-15);
	assert_near(s.lo, -0.2, 1e-15);
	assert_near(s.hi, 0.3, 1e-15);
	assert_near(s.level, 0.75, 1e-15);
}

/* A loss: the interval wholly below 0 reverts; as times it is a gain. */
static void test_loss(void **state)
{
	(void)state;
	const double d[] = { -0.10, -0.08, -0.12, -0.09, -0.11, -0.10, -0.095 };
	struct np_trial_stats s;
	assert_int_equal(np_trial_stats(d, N(d), 0.95, &s), 0);
	assert_true(s.hi < 0);
	assert_int_equal(np_trial_decide(&s, false, 0), NP_TRIAL_REVERT);
	assert_int_equal(np_trial_decide(&s, true, 0), NP_TRIAL_KEEP);
}

static void test_bad_input(void **state)
{
	(void)state;
	struct np_trial_stats s;
	const double nan_in[] = { 0.1, NAN, 0.2 }, one[] = { 0.1 };
	assert_int_equal(np_trial_stats(one, 0, 0.95, &s), -EINVAL);
	assert_int_equal(np_trial_stats(nan_in, N(nan_in), 0.95, &s), -EINVAL);
	assert_int_equal(np_trial_stats(one, 1, 1.0, &s), -EINVAL);
	assert_int_equal(np_trial_stats(one, NP_TRIAL_MAX_PAIRS + 1, 0.95, &s), -EINVAL);
}

/* splitmix64 from state 0: the reference outputs published with the
 * algorithm (and recomputed in Python with 64-bit wrap-around). The order
 * takes each output's top bit. */
static void test_order_is_seeded(void **state)
{
	(void)state;
	uint64_t st = 0;
	assert_true(np_trial_rand(&st) == 0xe220a8397b1dcdafULL);
	assert_true(np_trial_rand(&st) == 0x6e789e6aa1b965f4ULL);
	assert_true(np_trial_rand(&st) == 0x06c45d188009454fULL);
	bool first[3];
	np_trial_order(0, 3, first);
	assert_true(first[0]);
	assert_false(first[1]);
	assert_false(first[2]);
	/* A seed gives one order; another seed (almost always) another. */
	bool a[64], b[64], c[64];
	np_trial_order(12345, 64, a);
	np_trial_order(12345, 64, b);
	np_trial_order(12346, 64, c);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
}

static void test_median(void **state)
{
	(void)state;
	double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 };
	assert_near(np_trial_median(odd, 3), 2, 0);
	assert_near(np_trial_median(even, 4), 2.5, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signrank_cdf),
		cmocka_unit_test(test_six_gains),
		cmocka_unit_test(test_ties_and_zeros),
		cmocka_unit_test(test_all_zero),
		cmocka_unit_test(test_few_pairs),
		cmocka_unit_test(test_loss),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_order_is_seeded),
		cmocka_unit_test(test_median),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The Python 3 script behind the values above:
 *
 * import itertools, statistics
 * def cdf(n, t):
 *     c = sum(1 for s in itertools.product([0, 1], repeat=n)
 *             if sum(r for r, x in zip(range(1, n + 1), s) if x) <= t)
 *     return c, 2 ** n
 * def ci(d, want=0.95):
 *     n = len(d)
 *     w = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
 *     m, best = len(w), 1
 *     for k in range(1, (m + 1) // 2 + 1):
 *         c, N = cdf(n, k - 1)
 *         if 1 - 2 * c / N >= want: best = k
 *         else: break
 *     c, N = cdf(n, best - 1)
 *     return statistics.median(w), w[best - 1], w[m - best], 1 - 2 * c / N, best
 */
