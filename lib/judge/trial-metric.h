/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace trial's --metric: the regular expression it accepts and the
 * number it reads from the output a run of CMD kept. Pure functions: no
 * I/O; the time limit on the matching is the caller's (cmd/trial.c matches
 * in a child process it kills). */
#ifndef NUMAPLACE_TRIAL_METRIC_H
#define NUMAPLACE_TRIAL_METRIC_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/* The offset in re of its first back-reference (\1 to \9 outside a bracket
 * expression), or -1 when it has none. glibc matches an expression with
 * back-references by backtracking, exponential in the line's length (the
 * matching of an NP-complete problem); without them it stays polynomial. */
long np_trial_metric_backref(const char *re);

/* The text of re's first group on the last line of text[0..len) that
 * matches, into out (cut to size); false when no line matches or the group
 * did not take part. text holds len + 1 bytes and is changed: its line
 * feeds, and the byte after the last line, become NULs (a line with a NUL
 * of its own is matched up to it). cut: text starts inside a line (the
 * output's first bytes were dropped), whose part is not read. */
bool np_trial_metric_last(const regex_t *re, char *text, size_t len, bool cut, char *out, size_t size);

#endif
