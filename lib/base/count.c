/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/count.h"

#include <stdio.h>

const char *np_count_text(unsigned long long n, char buf[16])
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

const char *np_rate_text(double per_second, char buf[16])
{
	if (!(per_second > 0))
		snprintf(buf, 16, "0/s");
	else if (per_second < 0.05)
		snprintf(buf, 16, "<0.1/s");
	else if (per_second < 9.95)
		snprintf(buf, 16, "%.1f/s", per_second);
	else if (per_second < 9999.5)
		snprintf(buf, 16, "%.0f/s", per_second);
	else {
		char n[16];
		snprintf(buf, 16, "%s/s", np_count_text((unsigned long long)(per_second + 0.5), n));
	}
	return buf;
}
