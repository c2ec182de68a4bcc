/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kind tests/unit/newrow.c adds to a test build of the library (make's
 * NP_ATTR_MORE): rps_flow_cnt, of the net queue shape, as one row and
 * nothing else. lib/change/attr.h includes this file for its id
 * (NP_ATTR_MORE_IDS), lib/change/attr.c for its row. */
#ifdef NP_ATTR_MORE_IDS
	NP_ATTR_TEST_RPS_FLOW_CNT,
#else
	[NP_ATTR_TEST_RPS_FLOW_CNT] = {
		.name = "rps_flow_cnt", .value = NP_VALUE_INT, .min = 0, .max = 1048576,
		.path = "/sys/class/net/{net}/queues/rx-{queue}/rps_flow_cnt",
		.subject = "{net} rx-{queue} rps_flow_cnt",
		.target = &np_target_net_queue, .dir = NP_DIR_NET_QUEUE,
		.snapshot = (const char *const[]){ "rps_flow_cnt", NULL },
	},
#endif
