/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by lib/read/interrupts.c and lib/read/irq.c only: the warnings an np_irqs
 * carries. Not part of the library's interface. */
#ifndef NUMAPLACE_IRQ_WARNINGS_H
#define NUMAPLACE_IRQ_WARNINGS_H

#include <stddef.h>

#include "read/irq.h"

/* Appends a warning to out->warnings; past the cap only counts it in
 * *dropped. 0, or -ENOMEM. */
int np_irqs_warn(struct np_irqs *out, size_t *dropped, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The one line that says how many were dropped (where: the file or
 * directory, what: what was skipped); nothing when none were. 0, or -ENOMEM. */
int np_irqs_warn_dropped(struct np_irqs *out, size_t dropped, const char *where, const char *what);

#endif
