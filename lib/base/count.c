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
