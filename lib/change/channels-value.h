/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The channels row's value form: ethtool -L's words in its order ("rx 4 tx
 * 4", "other 1 combined 8"), parsed, written and compared. The access
 * method that reads and writes them is channels.h's. */
#ifndef NUMAPLACE_CHANNELS_VALUE_H
#define NUMAPLACE_CHANNELS_VALUE_H

#include <stdbool.h>
#include <stdint.h>

enum np_channel { NP_CH_RX, NP_CH_TX, NP_CH_OTHER, NP_CH_COMBINED, NP_CH_COUNT };

/* Bounds typos, not hardware: no NIC has a tenth of it. */
#define NP_CHANNELS_MAX_COUNT 65535

struct np_channels {
	bool has[NP_CH_COUNT];      /* named (by the value, or by the kernel: it has a maximum) */
	uint32_t count[NP_CH_COUNT];
	uint32_t max[NP_CH_COUNT];  /* the kernel's answer only: 0 when it has none of the kind */
};

/* ethtool's word for a kind of channel: "rx", "tx", "other", "combined". */
const char *np_channel_name(enum np_channel ch);
/* Parses "combined 4", "rx 2 tx 2": pairs of a kind and a count (0 to
 * NP_CHANNELS_MAX_COUNT), each kind once, at least one. 0 or -EINVAL. */
int np_channels_parse(const char *text, struct np_channels *out);
/* The kinds named, in ethtool's order ("rx 2 tx 2 other 1"), malloc'd;
 * zero_named: those with a count of 0 too. NULL on ENOMEM or when nothing
 * is left to name. */
char *np_channels_format(const struct np_channels *c, bool zero_named);
/* The form values are compared in: the kinds with a count, in order. NULL
 * when text is no channels value (or names only zeros). */
char *np_channels_normalize(const char *text);

#endif
