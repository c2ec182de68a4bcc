/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device events that may undo a placement: kernel uevents (a device added,
 * removed, bound to its driver, changed), rtnetlink link messages (an
 * interface up, down or renamed), and, for tests, the same as text lines. */
#ifndef NUMAPLACE_UEVENT_H
#define NUMAPLACE_UEVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/context.h"
#include "base/netlink.h" /* np_netlink_recv */

/* Test-only: a file or FIFO of synthetic event lines, "ACTION SUBSYSTEM
 * DEVICE" ("add net eth4", "bind pci 0000:23:00.0"), read by hold instead
 * of (with --root: besides nothing else) the kernel's sockets. */
#define NP_HOLD_EVENTS_ENV "NUMAPLACE_HOLD_EVENTS"

struct np_event {
	char action[16];    /* add, remove, bind, unbind, change, move; link; dellink */
	char subsystem[16]; /* net, block, pci */
	char device[64];    /* interface, block device or PCI address */
};

/* A kernel uevent message (NETLINK_KOBJECT_UEVENT, "add@/devices/...\0KEY=VALUE\0...").
 * Returns 1 and fills ev for a net, block or PCI device (a queue of an
 * interface counts as its interface), 0 for anything else. */
int np_uevent_parse(const char *buf, size_t len, struct np_event *ev);
/* The link messages of one rtnetlink datagram: up to max events (RTM_NEWLINK
 * "link", RTM_DELLINK "dellink", subsystem net). Returns how many. */
size_t np_rtnl_parse(const void *buf, size_t len, struct np_event *evs, size_t max);
/* A test line "ACTION SUBSYSTEM DEVICE". Returns 1, or 0 when malformed. */
int np_event_line(const char *line, struct np_event *ev);

/* Non-blocking, close-on-exec sockets subscribed to the kernel's uevents
 * and to rtnetlink's link group. Return the descriptor or -errno (ctx->err). */
int np_uevent_open(struct np_ctx *ctx);
int np_rtnl_open(struct np_ctx *ctx);

#endif
