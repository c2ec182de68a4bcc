/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A network interface's channel counts (what `ethtool -l` shows and
 * `ethtool -L` sets) as a value of the transaction engine: the channels
 * row's access method (attr.h; its value form is channels-value.h), read
 * and written through
 * the kernel's ethtool netlink interface (ETHTOOL_MSG_CHANNELS_GET/SET,
 * Linux 5.6 and later), never a file.
 *
 * The value is ethtool -L's words in its order: "rx 4 tx 4", "other 1
 * combined 8". What the kernel reports names the kinds of channel the
 * device has (those with a maximum); a profile may name fewer ("combined
 * 4"): resolving it fills in the others' current counts, as ethtool -L
 * leaves them. A count of 0 is the same as a kind not named. */
#ifndef NUMAPLACE_CHANNELS_H
#define NUMAPLACE_CHANNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/netlink.h"
#include "change/channels-value.h"

/* The requests, to the ethtool family whose id is family, and the answer
 * to a GET (msg[0..len), the whole message). The reply's parse returns 0,
 * or -EPROTO when it is no CHANNELS_GET_REPLY or is malformed. */
void np_channels_get_msg(struct np_nlmsg *m, uint16_t family, uint32_t seq, const char *ifname);
void np_channels_set_msg(struct np_nlmsg *m, uint16_t family, uint32_t seq, const char *ifname,
			 const struct np_channels *want);
int np_channels_reply(const void *msg, size_t len, struct np_channels *out);

#endif
