/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The statistics of a trial (numaplace trial): the seeded order of the arms
 * in each pair, and what the per-pair log-ratios say. Pure functions: no
 * I/O, no global state. */
#ifndef NUMAPLACE_TRIALSTAT_H
#define NUMAPLACE_TRIALSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most pairs a trial takes: the exact signed-rank distribution and the
 * Walsh averages grow with its square. */
#define NP_TRIAL_MAX_PAIRS 500

/* The next number of the splitmix64 sequence from *state (Steele, Lea and
 * Flood 2014): the same on every machine and libc, so a printed seed gives
 * the same order anywhere. */
uint64_t np_trial_rand(uint64_t *state);

/* For each of npairs pairs, whether the profile runs first in it. */
void np_trial_order(uint64_t seed, size_t npairs, bool *profile_first);

/* The median of n values (n > 0); v is sorted in place. */
double np_trial_median(double *v, size_t n);

/* P(T <= t) for the Wilcoxon signed-rank statistic T of n pairs without
 * ties, under no effect: the exact distribution, counted, not approximated. */
double np_signrank_cdf(size_t n, long t);

/* What the per-pair differences d (here the log-ratios profile/baseline)
 * say: the Hodges-Lehmann estimate (the median of the n(n+1)/2 Walsh
 * averages (d_i + d_j) / 2, i <= j) and the exact Wilcoxon signed-rank
 * interval [W(k), W(M+1-k)] of the sorted Walsh averages, k the largest
 * whose level 1 - 2 P(T <= k-1) is at least want; when no k reaches it (few
 * pairs), k = 1, the highest level the sample allows. Built from the Walsh
 * averages, the interval needs no ranks: tied and zero differences are
 * values like the others (a zero is evidence of no effect), and nothing is
 * divided by a difference. */
struct np_trial_stats {
	size_t n;
	double estimate;
	double lo, hi;
	double level;   /* reached, 0 < level < 1 for n >= 2 */
};
/* Returns 0, or -EINVAL (n = 0, n > NP_TRIAL_MAX_PAIRS, a value that is not
 * finite, want outside (0, 1)), -ENOMEM. */
int np_trial_stats(const double *d, size_t n, double want, struct np_trial_stats *out);

enum np_trial_verdict { NP_TRIAL_KEEP, NP_TRIAL_REVERT, NP_TRIAL_INCONCLUSIVE };
const char *np_trial_verdict_name(enum np_trial_verdict v);

/* A gain is the improvement the profile brings, as a log: the log-ratio
 * profile/baseline when higher is better, its negative when lower is. */
double np_trial_gain(double log_ratio, bool lower_is_better);

/* keep when the whole interval of the gain is above min_gain (a log,
 * log(1 + PCT/100)), revert when it is wholly below 0, else inconclusive. */
enum np_trial_verdict np_trial_decide(const struct np_trial_stats *s, bool lower_is_better, double min_gain);

/* For an inconclusive result, the pairs likely needed for a verdict: the
 * interval's half on the side of the threshold shrinks as 1/sqrt(pairs),
 * until the estimate's distance to the threshold (min_gain above, 0 below)
 * exceeds it. 0 when no number would do: the estimate is on the threshold,
 * or between 0 and min_gain (more runs would only confirm it is too small). */
size_t np_trial_pairs_needed(const struct np_trial_stats *s, bool lower_is_better, double min_gain);

#endif
