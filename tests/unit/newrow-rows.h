/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kind tests/unit/newrow.c adds to a test build of the library (make's
 * NP_ATTR_MORE): tx_maxrate, of the net queue shape, as one row and
 * nothing else. lib/change/attr.h includes this file for its id
 * (NP_ATTR_MORE_IDS), lib/change/attr.c for its row. */
#ifdef NP_ATTR_MORE_IDS
	NP_ATTR_TEST_TX_MAXRATE,
#else
	[NP_ATTR_TEST_TX_MAXRATE] = {
		.name = "tx_maxrate", .value = NP_VALUE_INT, .min = 0, .max = 1048576,
		.path = "/sys/class/net/{net}/queues/tx-{queue}/tx_maxrate",
		.subject = "{net} tx-{queue} tx_maxrate",
		.target = &np_target_net_queue, .dir = NP_DIR_NET_QUEUE,
		.snapshot = (const char *const[]){ "tx_maxrate", NULL },
	},
#endif
