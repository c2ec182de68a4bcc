/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text from the machine made safe to show and to run: names (interfaces,
 * disks, IRQ actions) are whatever bytes the kernel allowed, escape
 * sequences and invalid UTF-8 included. */
#ifndef NUMAPLACE_QUOTE_H
#define NUMAPLACE_QUOTE_H

#include <stdbool.h>
#include <stddef.h>

/* The length of the valid UTF-8 character at s (at most n bytes), 0 when
 * the bytes there are not one (a stray, overlong or truncated sequence, a
 * surrogate, beyond U+10FFFF). */
size_t np_utf8_char(const unsigned char *s, size_t n);

/* Whether s shows as it is: no control character (C0, DEL, C1), no invalid
 * UTF-8, no backslash (the escape character itself). */
bool np_printable(const char *s);

/* s with every byte that would not show as itself written \xHH (lowercase
 * hex): control characters (C0, DEL, and the two bytes of a C1 control),
 * bytes of invalid UTF-8, and the backslash, so that the escaped text reads
 * back unambiguously. np_escape returns s itself when nothing needs it,
 * else buf (cut to size, always terminated); np_escape_dup is malloc'd (NULL
 * on ENOMEM). */
const char *np_escape(const char *s, char *buf, size_t size);
char *np_escape_dup(const char *s);

/* s as one word for a POSIX shell (malloc'd, NULL on ENOMEM): as it is when
 * every byte is one of [A-Za-z0-9_@%+=:,./-] (and s is not empty), else in
 * single quotes, each ' written '\''. For command lines shown to be run:
 * a name with bytes that do not show (np_printable) is better named
 * another way (a PCI address). */
char *np_shell_quote(const char *s);

#endif
