/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/trial-stats.h"

uint64_t np_trial_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void np_trial_order(uint64_t seed, size_t npairs, bool *profile_first)
{
	uint64_t state = seed;
	for (size_t i = 0; i < npairs; i++)
		profile_first[i] = np_trial_rand(&state) >> 63;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double np_trial_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The probabilities of T = 0..n(n+1)/2: each rank 1..n is in the positive
 * sum with probability 1/2, so the distribution is built one rank at a
 * time, halving as it goes (counts would overflow 64 bits past 64 pairs). */
static double *signrank_pmf(size_t n)
{
	size_t m = n * (n + 1) / 2;
	double *p = calloc(m + 1, sizeof(*p));
	if (!p)
		return NULL;
	p[0] = 1;
	size_t top = 0;
	for (size_t r = 1; r <= n; r++) {
		top += r;
		for (size_t t = top; t >= r; t--)
			p[t] = (p[t] + p[t - r]) / 2;
		for (size_t t = r; t-- > 0;)
			p[t] /= 2;
	}
	return p;
}

double np_signrank_cdf(size_t n, long t)
{
	if (t < 0)
		return 0;
	size_t m = n * (n + 1) / 2;
	if ((size_t)t >= m)
		return 1;
	double *p = signrank_pmf(n), sum = 0;
	if (!p)
		return NAN;
	for (long i = 0; i <= t; i++)
		sum += p[i];
	free(p);
	return sum;
}

int np_trial_stats(const double *d, size_t n, double want, struct np_trial_stats *out)
{
	if (n == 0 || n > NP_TRIAL_MAX_PAIRS || !(want > 0 && want < 1))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(d[i]))
			return -EINVAL;
	size_t m = n * (n + 1) / 2, w = 0;
	double *walsh = malloc(m * sizeof(*walsh));
	double *pmf = signrank_pmf(n);
	if (!walsh || !pmf) {
		free(walsh);
		free(pmf);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			walsh[w++] = (d[i] + d[j]) / 2;
	out->n = n;
	out->estimate = np_trial_median(walsh, m);
	/* Coverage of [W(k), W(m+1-k)] is 1 - 2 P(T <= k-1); it falls as k
	 * grows, so walk k up while the next one still reaches want. */
	size_t k = 1;
	double tail = pmf[0];
	while (k < (m + 1) / 2 && 1 - 2 * (tail + pmf[k]) >= want)
		tail += pmf[k++];
	out->level = 1 - 2 * tail;
	out->lo = walsh[k - 1];
	out->hi = walsh[m - k];
	free(walsh);
	free(pmf);
	return 0;
}

const char *np_trial_verdict_name(enum np_trial_verdict v)
{
	return v == NP_TRIAL_KEEP ? "keep" : v == NP_TRIAL_REVERT ? "revert" : "inconclusive";
}

double np_trial_gain(double log_ratio, bool lower_is_better)
{
	return lower_is_better ? -log_ratio : log_ratio;
}

/* The interval of the gain, low end first. */
static void gain_interval(const struct np_trial_stats *s, bool lower, double *lo, double *hi)
{
	*lo = lower ? -s->hi : s->lo;
	*hi = lower ? -s->lo : s->hi;
}

enum np_trial_verdict np_trial_decide(const struct np_trial_stats *s, bool lower_is_better, double min_gain)
{
	double lo, hi;
	gain_interval(s, lower_is_better, &lo, &hi);
	if (lo > min_gain && lo > 0)
		return NP_TRIAL_KEEP;
	if (hi < 0)
		return NP_TRIAL_REVERT;
	return NP_TRIAL_INCONCLUSIVE;
}

size_t np_trial_pairs_needed(const struct np_trial_stats *s, bool lower_is_better, double min_gain)
{
	double lo, hi, g = np_trial_gain(s->estimate, lower_is_better), half, dist;
	gain_interval(s, lower_is_better, &lo, &hi);
	double up = min_gain > 0 ? min_gain : 0;
	if (g > up) {
		half = g - lo;
		dist = g - up;
	} else if (g < 0) {
		half = hi - g;
		dist = -g;
	} else {
		return 0;
	}
	double need = ceil((double)s->n * (half / dist) * (half / dist));
	if (!(need < 1e9))
		return 0;
	return need > (double)s->n ? (size_t)need : s->n + 1;
}
