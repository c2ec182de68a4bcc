/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/count.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What snprintf's "%.0f" or "%.1f" writes for v (finite, 0 <= v < 2^49),
 * without printf: the planner and advise's table say a rate or a count for
 * each of thousands of IRQs. printf rounds v's exact binary value to the
 * nearest, ties to even; so does this: v * 10 is made exact with fma, and
 * only a product ending in exactly .5 needs that residue to decide. */
static void fixed_text(char *buf, size_t size, double v, int decimals, const char *suffix)
{
	double p = decimals ? v * 10 : v, r = decimals ? fma(v, 10, -p) : 0, whole = floor(p);
	double rounded = p - whole == 0.5 && r != 0 ? (r > 0 ? whole + 1 : whole) : nearbyint(p);
	unsigned long long n = (unsigned long long)rounded;
	char digits[32], *d = digits + sizeof(digits);
	*--d = '\0';
	if (decimals) {
		*--d = (char)('0' + n % 10);
		*--d = '.';
		n /= 10;
	}
	do
		*--d = (char)('0' + n % 10);
	while (n /= 10);
	size_t len = strlen(d), more = strlen(suffix);
	if (len + more >= size) /* never for the callers' values */
		len = more = 0;
	memcpy(buf, d, len);
	memcpy(buf + len, suffix, more + 1);
}

const char *np_count_text(unsigned long long n, char buf[16])
{
	static const char unit[][2] = { "k", "M", "G", "T", "P", "E" };
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
	if (v < 1e6)
		fixed_text(buf, 16, v, v < 99.95, unit[u]);
	else
		snprintf(buf, 16, v < 99.95 ? "%.1f%c" : "%.0f%c", v, unit[u][0]);
	return buf;
}

const char *np_rate_text(double per_second, char buf[16])
{
	if (!(per_second > 0))
		snprintf(buf, 16, "0/s");
	else if (per_second < 0.05)
		snprintf(buf, 16, "<0.1/s");
	else if (per_second < 9.95)
		fixed_text(buf, 16, per_second, 1, "/s");
	else if (per_second < 9999.5)
		fixed_text(buf, 16, per_second, 0, "/s");
	else {
		char n[16];
		snprintf(buf, 16, "%s/s", np_count_text((unsigned long long)(per_second + 0.5), n));
	}
	return buf;
}
