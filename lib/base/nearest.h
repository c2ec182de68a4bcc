/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The name a mistyped word was meant to be, as git's "did you mean". */
#ifndef NUMAPLACE_NEAREST_H
#define NUMAPLACE_NEAREST_H

#include <stddef.h>

/* The edit distance between a and b, counting a swap of two neighbouring
 * letters as one edit (optimal string alignment). */
size_t np_edit_distance(const char *a, const char *b);

/* The closest to typed of n names read from names, stride bytes apart (a
 * const char * at the start of each element, so a table of structs whose
 * first member is the name works as is), or NULL when none is close enough
 * to be a typo of it: at most 2 edits and fewer than half its letters, or a
 * prefix of it ("topology" for "topo"). The first of equals wins. */
const char *np_nearest(const char *typed, const void *names, size_t n, size_t stride);

#endif
