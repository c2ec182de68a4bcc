/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "change/channels.h"

#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "change/attr.h"

/* Each kind's attributes, in np_channel's order. */
static const uint16_t max_attr[NP_CH_COUNT] = { ETHTOOL_A_CHANNELS_RX_MAX, ETHTOOL_A_CHANNELS_TX_MAX,
						ETHTOOL_A_CHANNELS_OTHER_MAX, ETHTOOL_A_CHANNELS_COMBINED_MAX };
static const uint16_t count_attr[NP_CH_COUNT] = { ETHTOOL_A_CHANNELS_RX_COUNT, ETHTOOL_A_CHANNELS_TX_COUNT,
						  ETHTOOL_A_CHANNELS_OTHER_COUNT, ETHTOOL_A_CHANNELS_COMBINED_COUNT };

/* ---- the messages ---- */

static void request(struct np_nlmsg *m, uint16_t family, uint16_t flags, uint32_t seq, uint8_t cmd,
		    const char *ifname)
{
	np_nlmsg_init(m, family, flags, seq);
	np_nlmsg_genl(m, cmd, ETHTOOL_GENL_VERSION);
	size_t nest = np_nla_nest_start(m, ETHTOOL_A_CHANNELS_HEADER);
	np_nla_put_str(m, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	np_nla_nest_end(m, nest);
}

void np_channels_get_msg(struct np_nlmsg *m, uint16_t family, uint32_t seq, const char *ifname)
{
	request(m, family, NLM_F_REQUEST | NLM_F_ACK, seq, ETHTOOL_MSG_CHANNELS_GET, ifname);
}

void np_channels_set_msg(struct np_nlmsg *m, uint16_t family, uint32_t seq, const char *ifname,
			 const struct np_channels *want)
{
	request(m, family, NLM_F_REQUEST | NLM_F_ACK, seq, ETHTOOL_MSG_CHANNELS_SET, ifname);
	for (int k = 0; k < NP_CH_COUNT; k++)
		if (want->has[k])
			np_nla_put_u32(m, count_attr[k], want->count[k]);
}

int np_channels_reply(const void *msg, size_t len, struct np_channels *out)
{
	const unsigned char *p = msg;
	struct genlmsghdr g;
	struct np_nla tb[ETHTOOL_A_CHANNELS_MAX + 1];
	size_t body = NLMSG_HDRLEN + GENL_HDRLEN;
	memset(out, 0, sizeof(*out));
	if (len < body)
		return -EPROTO;
	memcpy(&g, p + NLMSG_HDRLEN, sizeof(g));
	if (g.cmd != ETHTOOL_MSG_CHANNELS_GET_REPLY || np_nla_table(p + body, len - body, tb, ETHTOOL_A_CHANNELS_MAX))
		return -EPROTO;
	/* The kernel names a kind only when the device has a maximum for it
	 * (channels_fill_reply()), its count with it. */
	for (int k = 0; k < NP_CH_COUNT; k++) {
		if (!tb[max_attr[k]].present)
			continue;
		if (!np_nla_u32(&tb[max_attr[k]], &out->max[k]) || !np_nla_u32(&tb[count_attr[k]], &out->count[k]))
			return -EPROTO;
		out->has[k] = out->max[k] > 0;
	}
	return 0;
}

/* ---- the access method of the channels row ---- */

static int interface_of(struct np_ctx *ctx, const char *path, char *ifname)
{
	struct np_target t = NP_TARGET_NONE;
	int rc = 0;
	if (np_attr_match(path, &t) != NP_ATTR_CHANNELS || !t.net || strlen(t.net) >= IF_NAMESIZE)
		rc = np_fail(ctx, -EINVAL, "'%s' names no interface's channels", path);
	else
		strcpy(ifname, t.net);
	np_target_free(&t);
	/* The kernel answers for the machine it runs, never for a copy. */
	if (rc == 0 && *ctx->root)
		rc = np_fail(ctx, -EXDEV, "%s channels: asked of this machine's kernel (ethtool netlink), which "
			     "--root '%s' is not: run it on that machine", ifname, ctx->root);
	return rc;
}

/* A socket to the ethtool family: 0, with *fd and *family, or -errno. */
static int ethtool_open(struct np_ctx *ctx, int *fd, uint16_t *family)
{
	if ((*fd = np_genl_open(ctx)) < 0)
		return *fd;
	int rc = np_genl_family(ctx, *fd, ETHTOOL_GENL_NAME, family);
	if (rc == -ENOENT)
		rc = np_fail(ctx, rc, "this kernel has no ethtool netlink interface (Linux 5.6 and later have it)");
	if (rc)
		close(*fd);
	return rc;
}

static uint32_t next_seq(void)
{
	static uint32_t seq;
	return ++seq;
}

static int get_channels(struct np_ctx *ctx, int fd, uint16_t family, const char *ifname, struct np_channels *out)
{
	struct np_nlmsg m;
	_Alignas(4) unsigned char reply[1024];
	size_t len = 0;
	char why[256], detail[sizeof(ctx->err)];
	np_channels_get_msg(&m, family, next_seq(), ifname);
	int rc = np_nl_request(ctx, fd, &m, family, reply, sizeof(reply), &len, why, sizeof(why));
	if (rc == -EOPNOTSUPP)
		return np_fail(ctx, rc, "%s channels: its driver does not report them (no ethtool get_channels)",
			       ifname);
	if (rc) {
		snprintf(detail, sizeof(detail), "%s", ctx->err);
		return np_fail(ctx, rc, "%s channels: reading them (ethtool netlink CHANNELS_GET): %s", ifname, detail);
	}
	if (np_channels_reply(reply, len, out))
		return np_fail(ctx, -EPROTO, "%s channels: a malformed answer from the kernel", ifname);
	return 0;
}

static int channels_read(struct np_ctx *ctx, const char *path, char **out)
{
	char ifname[IF_NAMESIZE];
	struct np_channels c;
	uint16_t family;
	int fd, rc;
	*out = NULL;
	if ((rc = interface_of(ctx, path, ifname)) || (rc = ethtool_open(ctx, &fd, &family)))
		return rc;
	rc = get_channels(ctx, fd, family, ifname, &c);
	close(fd);
	if (rc)
		return rc;
	/* Every kind the device has, zeros too: what a revert writes back. */
	if (!(*out = np_channels_format(&c, true)))
		return np_fail(ctx, -EOPNOTSUPP, "%s channels: its driver reports no kind of channel", ifname);
	return 0;
}

static int channels_write(struct np_ctx *ctx, const char *path, const char *value)
{
	char ifname[IF_NAMESIZE], why[256], detail[sizeof(ctx->err)];
	struct np_channels want;
	struct np_nlmsg m;
	uint16_t family;
	int fd, rc;
	if (np_channels_parse(value, &want))
		return np_fail(ctx, -EINVAL, "'%s' is no channel counts such as \"combined 4\"", value);
	if ((rc = interface_of(ctx, path, ifname)) || (rc = ethtool_open(ctx, &fd, &family)))
		return rc;
	np_channels_set_msg(&m, family, next_seq(), ifname, &want);
	rc = np_nl_request(ctx, fd, &m, 0, NULL, 0, NULL, why, sizeof(why));
	close(fd);
	if (rc) {
		/* The kernel's own words say which refusal it is: queues an RSS
		 * indirection table, ntuple rules or AF_XDP sockets use, a count
		 * over the maximum, RDMA using the queues (ice: EBUSY). */
		snprintf(detail, sizeof(detail), "%s", why[0] ? why : strerror(-rc));
		return np_fail(ctx, rc, "%s channels: the kernel refused '%s' (ethtool -L %s %s): %s", ifname, value,
			       ifname, value, detail);
	}
	return 0;
}

static int channels_complete(struct np_ctx *ctx, const char *path, const char *value, char **out)
{
	struct np_channels want, now;
	char *cur = NULL;
	*out = NULL;
	if (np_channels_parse(value, &want))
		return np_fail(ctx, -EINVAL, "'%s' is no channel counts such as \"combined 4\"", value);
	int rc = channels_read(ctx, path, &cur);
	if (rc == 0 && np_channels_parse(cur, &now))
		rc = np_fail(ctx, -EPROTO, "'%s': no channel counts", cur);
	free(cur);
	if (rc)
		return rc;
	/* As ethtool -L: what the value does not name stays as it is. */
	for (int k = 0; k < NP_CH_COUNT; k++)
		if (want.has[k]) {
			now.has[k] = true;
			now.count[k] = want.count[k];
		}
	return (*out = np_channels_format(&now, true)) ? 0 : np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
}

const struct np_attr_access np_access_channels = {
	.read = channels_read,
	.write = channels_write,
	.complete = channels_complete,
};
