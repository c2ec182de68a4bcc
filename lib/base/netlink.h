/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Netlink, as numaplace speaks it: datagrams received from the kernel only
 * (hold's uevents and link events), attributes walked with every length
 * checked, and requests to a generic netlink family (ethtool's) with the
 * kernel's own message (extended ack) when it refuses one.
 *
 * Why not libmnl: the three calls here (build a request, walk attributes,
 * read the ack) are the whole of what numaplace needs, the walk had to
 * exist already for hold's rtnetlink events, and one more library on every
 * machine that runs numaplace would buy no behaviour.
 *
 *	struct np_nlmsg m;
 *	np_nlmsg_init(&m, family, NLM_F_REQUEST | NLM_F_ACK, seq);
 *	np_nlmsg_genl(&m, ETHTOOL_MSG_CHANNELS_SET, ETHTOOL_GENL_VERSION);
 *	size_t nest = np_nla_nest_start(&m, ETHTOOL_A_CHANNELS_HEADER);
 *	np_nla_put_str(&m, ETHTOOL_A_HEADER_DEV_NAME, "eth0");
 *	np_nla_nest_end(&m, nest);
 *	np_nla_put_u32(&m, ETHTOOL_A_CHANNELS_COMBINED_COUNT, 4);
 *	np_nl_request(ctx, fd, &m, 0, NULL, 0, NULL, why, sizeof(why));
 */
#ifndef NUMAPLACE_NETLINK_H
#define NUMAPLACE_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/context.h"

/* One datagram from a netlink socket into buf: its length, or -errno
 * (-EAGAIN when none is waiting, -ENOBUFS when the kernel dropped some).
 * *from_kernel is false for a datagram another process sent (its port id
 * is not 0) or one longer than size: the caller drops it. */
ssize_t np_netlink_recv(int fd, void *buf, size_t size, bool *from_kernel);

/* A request being built: a header, a generic netlink header, attributes
 * (nests too). Far more room than any request here takes; one that would
 * overflow it is marked so and never sent. */
#define NP_NLMSG_MAX 512
struct np_nlmsg {
	_Alignas(4) unsigned char data[NP_NLMSG_MAX];
	size_t len;
	bool overflow;
};
void np_nlmsg_init(struct np_nlmsg *m, uint16_t type, uint16_t flags, uint32_t seq);
void np_nlmsg_genl(struct np_nlmsg *m, uint8_t cmd, uint8_t version);
void np_nla_put(struct np_nlmsg *m, uint16_t type, const void *data, size_t len);
void np_nla_put_u32(struct np_nlmsg *m, uint16_t type, uint32_t v);
void np_nla_put_str(struct np_nlmsg *m, uint16_t type, const char *s);
/* A nest: its start's offset, to close with np_nla_nest_end. */
size_t np_nla_nest_start(struct np_nlmsg *m, uint16_t type);
void np_nla_nest_end(struct np_nlmsg *m, size_t start);

/* One attribute of a list: its type (the flag bits taken out), and its
 * payload in the buffer walked (no alignment assumed). */
struct np_nla {
	uint16_t type;
	const unsigned char *data;
	size_t len;
	bool present;
};
/* Walks the attribute list buf[0..len) into tb[type] for the types up to
 * max (a later repeat wins; others are skipped). Each length must cover
 * its header and stay inside the list. Returns 0, or -EINVAL when the list
 * is malformed (tb holds what came before). */
int np_nla_table(const void *buf, size_t len, struct np_nla *tb, unsigned max);
/* The attribute as a number, when it is one of that size. */
bool np_nla_u32(const struct np_nla *a, uint32_t *out);
bool np_nla_u16(const struct np_nla *a, uint16_t *out);

/* Walks a datagram's messages: the offset of the one after off (0 starts),
 * its type and length; false when there is none, or the next one does not
 * fit what is left. */
bool np_nlmsg_next(const void *buf, size_t len, size_t *off, uint16_t *type, size_t *msglen);

/* An NLMSG_ERROR message (msg[0..len), whole): its error (0 is the ack of a
 * success), and the kernel's extended-ack text in why (empty when none). */
int np_nlmsg_error(const void *msg, size_t len, char *why, size_t whysize);

/* A generic netlink socket (close-on-exec) asking for extended acks. Returns
 * the descriptor or -errno (ctx->err). */
int np_genl_open(struct np_ctx *ctx);
/* Sends m and reads the answer to it: a message of reply_type (its whole
 * text copied into reply, up to size, its length in *reply_len), or the
 * kernel's ack. Returns 0, or -errno with the kernel's extended-ack text in
 * why (empty when it gave none). reply_type 0: only the ack is waited for. */
int np_nl_request(struct np_ctx *ctx, int fd, struct np_nlmsg *m, uint16_t reply_type, void *reply, size_t size,
		  size_t *reply_len, char *why, size_t whysize);
/* The id of the generic netlink family called name ("ethtool"): 0, or -errno
 * (-ENOENT: this kernel has none) with ctx->err saying why. */
int np_genl_family(struct np_ctx *ctx, int fd, const char *name, uint16_t *id);

#endif
