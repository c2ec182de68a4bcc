/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A network interface's channel counts (lib/change/channels.c): their value
 * form, the ethtool netlink requests built byte for byte as the kernel
 * reads them, its answers and refusals parsed (base/netlink.c), malformed
 * ones refused without a read past them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>

#include "base/netlink.h"
#include "change/attr.h"
#include "change/channels.h"

static void test_value_form(void **state)
{
	(void)state;
	struct np_channels c;
	assert_int_equal(0, np_channels_parse("combined 4", &c));
	assert_true(c.has[NP_CH_COMBINED] && c.count[NP_CH_COMBINED] == 4 && !c.has[NP_CH_RX]);
	/* ethtool's order, whatever the profile's; zeros named when asked. */
	assert_int_equal(0, np_channels_parse("  tx 2\trx 0 other 1 ", &c));
	char *s = np_channels_format(&c, true);
	assert_string_equal(s, "rx 0 tx 2 other 1");
	free(s);
	s = np_channels_format(&c, false);
	assert_string_equal(s, "tx 2 other 1");
	free(s);
	/* A kind the device lacks reads as 0: equal once normalized. */
	s = np_value_normalize(NP_VALUE_CHANNELS, "rx 2 tx 2 combined 0");
	assert_string_equal(s, "rx 2 tx 2");
	free(s);
	static const char *const bad[] = { "", "combined", "combined -1", "combined 4x", "combined 04", "rx 1 rx 2",
					   "queues 4", "combined 65536", "combined 4 tx", "4 combined", NULL };
	for (size_t i = 0; bad[i]; i++)
		if (np_channels_parse(bad[i], &c) == 0)
			fail_msg("'%s' parsed as channel counts", bad[i]);
	assert_int_equal(0, np_channels_parse("combined 65535", &c));
	/* Only zeros: no value to set. */
	assert_false(np_attr_value_ok(NP_ATTR_CHANNELS, "rx 0"));
	assert_true(np_attr_value_ok(NP_ATTR_CHANNELS, "rx 0 combined 1"));
	assert_string_equal(np_attr_value_key(NP_ATTR_CHANNELS), "value");
}

/* The attributes of a request, after its headers, into tb. */
static void attrs_of(const struct np_nlmsg *m, struct np_nla *tb, unsigned max)
{
	size_t body = NLMSG_HDRLEN + GENL_HDRLEN;
	assert_true(m->len > body);
	assert_int_equal(0, np_nla_table(m->data + body, m->len - body, tb, max));
}

static void expect_header(const struct np_nlmsg *m, uint16_t family, uint8_t cmd, const char *ifname)
{
	struct nlmsghdr nh;
	struct genlmsghdr g;
	memcpy(&nh, m->data, sizeof(nh));
	memcpy(&g, m->data + NLMSG_HDRLEN, sizeof(g));
	assert_false(m->overflow);
	assert_int_equal(nh.nlmsg_len, m->len);
	assert_int_equal(m->len % 4, 0);
	assert_int_equal(nh.nlmsg_type, family);
	assert_int_equal(nh.nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	assert_int_equal(nh.nlmsg_seq, 7);
	assert_int_equal(g.cmd, cmd);
	assert_int_equal(g.version, ETHTOOL_GENL_VERSION);
	struct np_nla tb[ETHTOOL_A_CHANNELS_MAX + 1], hdr[ETHTOOL_A_HEADER_MAX + 1];
	attrs_of(m, tb, ETHTOOL_A_CHANNELS_MAX);
	assert_true(tb[ETHTOOL_A_CHANNELS_HEADER].present);
	/* The nest's own length covers its one attribute, the name and its NUL. */
	assert_int_equal(tb[ETHTOOL_A_CHANNELS_HEADER].len, NLA_HDRLEN + NLA_ALIGN(strlen(ifname) + 1));
	assert_int_equal(0, np_nla_table(tb[ETHTOOL_A_CHANNELS_HEADER].data, tb[ETHTOOL_A_CHANNELS_HEADER].len, hdr,
					 ETHTOOL_A_HEADER_MAX));
	assert_true(hdr[ETHTOOL_A_HEADER_DEV_NAME].present);
	assert_int_equal(hdr[ETHTOOL_A_HEADER_DEV_NAME].len, strlen(ifname) + 1);
	assert_memory_equal(hdr[ETHTOOL_A_HEADER_DEV_NAME].data, ifname, strlen(ifname) + 1);
	/* The kernel takes the nest by its flag too (NLA_F_NESTED). */
	struct nlattr a;
	memcpy(&a, m->data + NLMSG_HDRLEN + GENL_HDRLEN, sizeof(a));
	assert_int_equal(a.nla_type, ETHTOOL_A_CHANNELS_HEADER | NLA_F_NESTED);
}

static void test_get_request(void **state)
{
	(void)state;
	struct np_nlmsg m;
	np_channels_get_msg(&m, 0x1c, 7, "eth4");
	expect_header(&m, 0x1c, ETHTOOL_MSG_CHANNELS_GET, "eth4");
	struct np_nla tb[ETHTOOL_A_CHANNELS_MAX + 1];
	attrs_of(&m, tb, ETHTOOL_A_CHANNELS_MAX);
	for (unsigned a = ETHTOOL_A_CHANNELS_RX_MAX; a <= ETHTOOL_A_CHANNELS_MAX; a++)
		assert_false(tb[a].present);
	/* Exactly: headers, the nest, "eth4\0" padded to 8. */
	assert_int_equal(m.len, NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN + NLA_HDRLEN + 8);
}

static void test_set_request_sends_the_kinds_named(void **state)
{
	(void)state;
	struct np_nlmsg m;
	struct np_channels want;
	assert_int_equal(0, np_channels_parse("rx 2 tx 0", &want));
	np_channels_set_msg(&m, 0x1c, 7, "veth0", &want);
	expect_header(&m, 0x1c, ETHTOOL_MSG_CHANNELS_SET, "veth0");
	struct np_nla tb[ETHTOOL_A_CHANNELS_MAX + 1];
	uint32_t v;
	attrs_of(&m, tb, ETHTOOL_A_CHANNELS_MAX);
	assert_true(np_nla_u32(&tb[ETHTOOL_A_CHANNELS_RX_COUNT], &v) && v == 2);
	/* A zero asked for is sent: "tx 0" is a request, not an absence. */
	assert_true(np_nla_u32(&tb[ETHTOOL_A_CHANNELS_TX_COUNT], &v) && v == 0);
	assert_false(tb[ETHTOOL_A_CHANNELS_COMBINED_COUNT].present);
	assert_false(tb[ETHTOOL_A_CHANNELS_OTHER_COUNT].present);
	assert_false(tb[ETHTOOL_A_CHANNELS_RX_MAX].present);
}

/* A CHANNELS_GET_REPLY as the kernel's channels_fill_reply() makes it: the
 * header nest, then a maximum and a count for each kind the device has. */
static size_t reply(unsigned char *buf, uint8_t cmd, const uint32_t *max, const uint32_t *count, bool drop_count)
{
	struct np_nlmsg m;
	np_nlmsg_init(&m, 0x1c, 0, 7);
	np_nlmsg_genl(&m, cmd, ETHTOOL_GENL_VERSION);
	size_t nest = np_nla_nest_start(&m, ETHTOOL_A_CHANNELS_HEADER);
	np_nla_put_u32(&m, ETHTOOL_A_HEADER_DEV_INDEX, 3);
	np_nla_put_str(&m, ETHTOOL_A_HEADER_DEV_NAME, "eth4");
	np_nla_nest_end(&m, nest);
	static const uint16_t maxa[] = { ETHTOOL_A_CHANNELS_RX_MAX, ETHTOOL_A_CHANNELS_TX_MAX,
					 ETHTOOL_A_CHANNELS_OTHER_MAX, ETHTOOL_A_CHANNELS_COMBINED_MAX };
	for (int k = 0; k < NP_CH_COUNT; k++) {
		if (!max[k])
			continue;
		np_nla_put_u32(&m, maxa[k], max[k]);
		if (!drop_count)
			np_nla_put_u32(&m, (uint16_t)(maxa[k] + 4), count[k]);
	}
	assert_false(m.overflow);
	memcpy(buf, m.data, m.len);
	return m.len;
}

static void test_reply(void **state)
{
	(void)state;
	unsigned char buf[NP_NLMSG_MAX];
	struct np_channels c;
	/* ixgbe: one other (its link vector), 63 combined at most, 16 used. */
	size_t len = reply(buf, ETHTOOL_MSG_CHANNELS_GET_REPLY, (const uint32_t[]){ 0, 0, 1, 63 },
			   (const uint32_t[]){ 0, 0, 1, 16 }, false);
	assert_int_equal(0, np_channels_reply(buf, len, &c));
	assert_false(c.has[NP_CH_RX] || c.has[NP_CH_TX]);
	assert_true(c.has[NP_CH_OTHER] && c.has[NP_CH_COMBINED]);
	assert_int_equal(c.max[NP_CH_COMBINED], 63);
	char *s = np_channels_format(&c, true);
	assert_string_equal(s, "other 1 combined 16");
	free(s);
	/* veth: rx and tx, one of them at 0 now; the zero is kept for a revert. */
	len = reply(buf, ETHTOOL_MSG_CHANNELS_GET_REPLY, (const uint32_t[]){ 4, 4, 0, 0 }, (const uint32_t[]){ 4, 0, 0, 0 },
		    false);
	assert_int_equal(0, np_channels_reply(buf, len, &c));
	s = np_channels_format(&c, true);
	assert_string_equal(s, "rx 4 tx 0");
	free(s);
	/* Another command's answer, a maximum without its count. */
	len = reply(buf, ETHTOOL_MSG_RINGS_GET_REPLY, (const uint32_t[]){ 0, 0, 0, 8 }, (const uint32_t[]){ 0, 0, 0, 8 },
		    false);
	assert_int_equal(-EPROTO, np_channels_reply(buf, len, &c));
	len = reply(buf, ETHTOOL_MSG_CHANNELS_GET_REPLY, (const uint32_t[]){ 0, 0, 0, 8 },
		    (const uint32_t[]){ 0, 0, 0, 8 }, true);
	assert_int_equal(-EPROTO, np_channels_reply(buf, len, &c));
	/* Every cut of a good answer: refused or read within it, never past
	 * (the sanitizer watches each exact copy). */
	len = reply(buf, ETHTOOL_MSG_CHANNELS_GET_REPLY, (const uint32_t[]){ 0, 0, 1, 63 },
		    (const uint32_t[]){ 0, 0, 1, 16 }, false);
	for (size_t cut = 0; cut < len; cut++) {
		unsigned char *copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, buf, cut);
		int rc = np_channels_reply(copy, cut, &c);
		assert_true(rc == 0 || rc == -EPROTO);
		free(copy);
	}
}

/* An NLMSG_ERROR as netlink_ack() makes it for a socket with NETLINK_CAP_ACK
 * and NETLINK_EXT_ACK: the error, the request's header only, then the
 * kernel's message. capped false: the whole request comes back first. */
static size_t error_msg(unsigned char *buf, int error, const char *text, bool capped)
{
	struct np_nlmsg req, m;
	np_channels_get_msg(&req, 0x1c, 7, "eth4");
	struct nlmsgerr e = { .error = error };
	memcpy(&e.msg, req.data, sizeof(e.msg));
	size_t body = sizeof(e) + (capped ? 0 : req.len - NLMSG_HDRLEN);
	np_nlmsg_init(&m, NLMSG_ERROR, (capped ? NLM_F_CAPPED : 0) | (text ? NLM_F_ACK_TLVS : 0), 7);
	memcpy(m.data + NLMSG_HDRLEN, &e, sizeof(e));
	if (!capped)
		memcpy(m.data + NLMSG_HDRLEN + sizeof(e), req.data + NLMSG_HDRLEN, req.len - NLMSG_HDRLEN);
	m.len = NLMSG_HDRLEN + NLMSG_ALIGN(body);
	if (text)
		np_nla_put_str(&m, NLMSGERR_ATTR_MSG, text);
	struct nlmsghdr nh;
	memcpy(&nh, m.data, sizeof(nh));
	nh.nlmsg_len = (uint32_t)m.len;
	memcpy(m.data, &nh, sizeof(nh));
	memcpy(buf, m.data, m.len);
	return m.len;
}

static void test_refusal_carries_the_kernels_words(void **state)
{
	(void)state;
	unsigned char buf[NP_NLMSG_MAX];
	char why[128];
	static const char text[] = "requested channel counts are too low for existing indirection table settings";
	size_t len = error_msg(buf, -EINVAL, text, true);
	assert_int_equal(-EINVAL, np_nlmsg_error(buf, len, why, sizeof(why)));
	assert_string_equal(why, text);
	/* A kernel that echoes the request before its words. */
	len = error_msg(buf, -EINVAL, "requested channel counts are too low for existing zerocopy AF_XDP sockets",
			false);
	assert_int_equal(-EINVAL, np_nlmsg_error(buf, len, why, sizeof(why)));
	assert_string_equal(why, "requested channel counts are too low for existing zerocopy AF_XDP sockets");
	/* No words (an older kernel), an ack of success. */
	len = error_msg(buf, -EBUSY, NULL, true);
	assert_int_equal(-EBUSY, np_nlmsg_error(buf, len, why, sizeof(why)));
	assert_string_equal(why, "");
	len = error_msg(buf, 0, NULL, true);
	assert_int_equal(0, np_nlmsg_error(buf, len, why, sizeof(why)));
	/* Cut short: refused, never read past. */
	len = error_msg(buf, -EINVAL, text, true);
	for (size_t cut = 0; cut < len; cut++) {
		unsigned char *copy = malloc(cut ? cut : 1);
		assert_non_null(copy);
		memcpy(copy, buf, cut);
		int rc = np_nlmsg_error(copy, cut, why, sizeof(why));
		assert_true(rc == -EINVAL || rc == -EPROTO);
		free(copy);
	}
	/* A positive error is no kernel's. */
	len = error_msg(buf, 5, NULL, true);
	assert_int_equal(-EPROTO, np_nlmsg_error(buf, len, why, sizeof(why)));
}

static void test_attribute_walk_refuses_lies(void **state)
{
	(void)state;
	struct np_nla tb[4];
	/* A length shorter than its header, longer than the list. */
	unsigned char raw[12] = { 0 };
	struct nlattr a = { .nla_len = 2, .nla_type = 1 };
	memcpy(raw, &a, sizeof(a));
	assert_int_equal(-EINVAL, np_nla_table(raw, sizeof(raw), tb, 3));
	a.nla_len = 16;
	memcpy(raw, &a, sizeof(a));
	assert_int_equal(-EINVAL, np_nla_table(raw, sizeof(raw), tb, 3));
	/* The last attribute without its padding is whole. */
	a.nla_len = 5;
	memcpy(raw, &a, sizeof(a));
	assert_int_equal(0, np_nla_table(raw, 5, tb, 3));
	assert_true(tb[1].present && tb[1].len == 1);
	/* A request that would not fit is marked, never sent cut. */
	struct np_nlmsg m;
	np_nlmsg_init(&m, 0x1c, NLM_F_REQUEST, 1);
	char big[NP_NLMSG_MAX];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	np_nla_put_str(&m, 1, big);
	assert_true(m.overflow);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_value_form),
		cmocka_unit_test(test_get_request),
		cmocka_unit_test(test_set_request_sends_the_kinds_named),
		cmocka_unit_test(test_reply),
		cmocka_unit_test(test_refusal_carries_the_kernels_words),
		cmocka_unit_test(test_attribute_walk_refuses_lies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
