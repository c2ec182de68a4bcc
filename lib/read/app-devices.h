/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The devices an application uses, inferred from its /proc entries: the
 * block devices behind its open files, working directory and memory maps,
 * and the interfaces its sockets are bound to. All of it read through the
 * root-aware layer, so a snapshot's /proc answers as the live one would. */
#ifndef NUMAPLACE_APPDEV_H
#define NUMAPLACE_APPDEV_H

#include <stdbool.h>
#include <stddef.h>

#include "read/machine.h"

/* Sets selected[i] for each PCI function of m the process pid uses, and
 * adds one sentence per device to *why (malloc'd strings: what was found,
 * through which file descriptor or mapping). Sockets bound to every address
 * or to loopback name no interface and are said so in *why too. */
int np_app_devices(struct np_ctx *ctx, const struct np_machine *m, int pid, bool *selected, char ***why,
		   size_t *nwhy);

#endif
