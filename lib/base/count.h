/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counts as people read them in a line of text. */
#ifndef NUMAPLACE_COUNT_H
#define NUMAPLACE_COUNT_H

/* "48.2M", "9127", "1.2G": a count at a glance (into buf, returned). */
const char *np_count_text(unsigned long long n, char buf[16]);
/* "1.7k/s", "12/s", "0.4/s", "0/s": a rate at a glance (into buf, returned). */
const char *np_rate_text(double per_second, char buf[16]);

#endif
