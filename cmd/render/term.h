/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The terminal the output goes to: its width, and whether to colour. */
#ifndef NUMAPLACE_TERM_H
#define NUMAPLACE_TERM_H

#include <stdbool.h>
#include <stdio.h>

/* The width output to fd fits, as libsmartcols and util-linux decide it:
 * the terminal's columns; $COLUMNS when fd is a terminal whose size is
 * unknown (0x0: a serial console, some containers), else 80; 0 (no limit)
 * when fd is not a terminal (a pipe, a file). */
int np_output_width(int fd);
/* np_output_width of stdout. */
int np_term_width(void);
/* Whether fd is a terminal that takes escape sequences: not a pipe or a
 * file, and not TERM=dumb (an editor's shell buffer, a serial console). */
bool np_term_escapes(int fd);
/* --color=WHEN: "auto" (such a terminal and no NO_COLOR), "always", "never".
 * Returns false for an unknown WHEN. */
bool np_color_parse(const char *when, bool *on);
/* Prints text and a newline at most width columns wide (0: no limit), from
 * column col, breaking at blanks and indenting continuation lines by indent.
 * What would not show as itself (a name's control bytes: np_escape) is
 * escaped first: text is prose with names in it, never escaped already. */
void np_print_wrapped(FILE *out, const char *text, int width, int col, int indent);

#endif
