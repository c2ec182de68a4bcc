/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/netlink.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

ssize_t np_netlink_recv(int fd, void *buf, size_t size, bool *from_kernel)
{
	struct sockaddr_nl sa;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr msg = { .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;
	do
		n = recvmsg(fd, &msg, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* Only the kernel speaks with port id 0: anything else is a process
	 * forging events (udev and sd-netlink drop them the same way). A
	 * datagram cut to our buffer is not read either. */
	*from_kernel = msg.msg_namelen >= sizeof(sa) && sa.nl_family == AF_NETLINK && sa.nl_pid == 0 &&
		       !(msg.msg_flags & MSG_TRUNC);
	return n;
}

/* ---- building ---- */

static void set_len(struct np_nlmsg *m)
{
	struct nlmsghdr nh;
	memcpy(&nh, m->data, sizeof(nh));
	nh.nlmsg_len = (uint32_t)m->len;
	memcpy(m->data, &nh, sizeof(nh));
}

/* Appends len bytes, zero padded to the 4-byte alignment netlink keeps. */
static unsigned char *grow(struct np_nlmsg *m, size_t len)
{
	size_t aligned = NLMSG_ALIGN(len);
	if (m->overflow || aligned > sizeof(m->data) - m->len) {
		m->overflow = true;
		return NULL;
	}
	unsigned char *p = m->data + m->len;
	memset(p, 0, aligned);
	m->len += aligned;
	set_len(m);
	return p;
}

void np_nlmsg_init(struct np_nlmsg *m, uint16_t type, uint16_t flags, uint32_t seq)
{
	memset(m, 0, sizeof(*m));
	struct nlmsghdr nh = { .nlmsg_len = NLMSG_HDRLEN, .nlmsg_type = type, .nlmsg_flags = flags, .nlmsg_seq = seq };
	memcpy(m->data, &nh, sizeof(nh));
	m->len = NLMSG_HDRLEN;
}

void np_nlmsg_genl(struct np_nlmsg *m, uint8_t cmd, uint8_t version)
{
	struct genlmsghdr g = { .cmd = cmd, .version = version };
	unsigned char *p = grow(m, GENL_HDRLEN);
	if (p)
		memcpy(p, &g, sizeof(g));
}

void np_nla_put(struct np_nlmsg *m, uint16_t type, const void *data, size_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type };
	unsigned char *p = len <= 0xffff - NLA_HDRLEN ? grow(m, NLA_HDRLEN + len) : NULL;
	if (!p) {
		m->overflow = true;
		return;
	}
	memcpy(p, &a, sizeof(a));
	if (len)
		memcpy(p + NLA_HDRLEN, data, len);
}

void np_nla_put_u32(struct np_nlmsg *m, uint16_t type, uint32_t v)
{
	np_nla_put(m, type, &v, sizeof(v));
}

void np_nla_put_str(struct np_nlmsg *m, uint16_t type, const char *s)
{
	np_nla_put(m, type, s, strlen(s) + 1);
}

size_t np_nla_nest_start(struct np_nlmsg *m, uint16_t type)
{
	size_t start = m->len;
	np_nla_put(m, type | NLA_F_NESTED, NULL, 0);
	return start;
}

void np_nla_nest_end(struct np_nlmsg *m, size_t start)
{
	struct nlattr a;
	if (m->overflow || start + sizeof(a) > m->len || m->len - start > 0xffff)
		return;
	memcpy(&a, m->data + start, sizeof(a));
	a.nla_len = (uint16_t)(m->len - start);
	memcpy(m->data + start, &a, sizeof(a));
}

/* ---- reading ---- */

/* Sizes are checked as sizes, never through the NLA_OK/NLMSG_OK macros on a
 * length that a malformed message can make negative; headers are copied
 * out, so the buffer needs no alignment. */
int np_nla_table(const void *buf, size_t len, struct np_nla *tb, unsigned max)
{
	const unsigned char *p = buf;
	memset(tb, 0, (max + 1) * sizeof(*tb));
	for (size_t off = 0; off < len;) {
		struct nlattr a;
		if (len - off < sizeof(a))
			return -EINVAL;
		memcpy(&a, p + off, sizeof(a));
		size_t alen = a.nla_len;
		if (alen < NLA_HDRLEN || alen > len - off)
			return -EINVAL;
		uint16_t type = a.nla_type & NLA_TYPE_MASK;
		if (type <= max)
			tb[type] = (struct np_nla){ .type = type, .data = p + off + NLA_HDRLEN, .len = alen - NLA_HDRLEN,
						    .present = true };
		/* The last one may come without its padding. */
		if (NLA_ALIGN(alen) >= len - off)
			break;
		off += NLA_ALIGN(alen);
	}
	return 0;
}

bool np_nla_u32(const struct np_nla *a, uint32_t *out)
{
	if (!a->present || a->len != sizeof(*out))
		return false;
	memcpy(out, a->data, sizeof(*out));
	return true;
}

bool np_nla_u16(const struct np_nla *a, uint16_t *out)
{
	if (!a->present || a->len != sizeof(*out))
		return false;
	memcpy(out, a->data, sizeof(*out));
	return true;
}

bool np_nlmsg_next(const void *buf, size_t len, size_t *off, uint16_t *type, size_t *msglen)
{
	struct nlmsghdr nh;
	if (*off >= len || len - *off < sizeof(nh))
		return false;
	memcpy(&nh, (const unsigned char *)buf + *off, sizeof(nh));
	if (nh.nlmsg_len < sizeof(nh) || nh.nlmsg_len > len - *off)
		return false;
	*type = nh.nlmsg_type;
	*msglen = nh.nlmsg_len;
	return true;
}

int np_nlmsg_error(const void *msg, size_t len, char *why, size_t whysize)
{
	const unsigned char *p = msg;
	struct nlmsghdr nh;
	struct nlmsgerr e;
	if (whysize)
		why[0] = '\0';
	if (len < NLMSG_HDRLEN + sizeof(e))
		return -EPROTO;
	memcpy(&nh, p, sizeof(nh));
	memcpy(&e, p + NLMSG_HDRLEN, sizeof(e));
	if (e.error > 0 || e.error < -4095)
		return -EPROTO;
	/* The request comes back after the error unless the ack was capped;
	 * the kernel's own words (NLMSGERR_ATTR_MSG) follow. */
	size_t payload = sizeof(e);
	if (!(nh.nlmsg_flags & NLM_F_CAPPED) && e.error && e.msg.nlmsg_len >= NLMSG_HDRLEN)
		payload += e.msg.nlmsg_len - NLMSG_HDRLEN;
	size_t tlvs = NLMSG_HDRLEN + NLMSG_ALIGN(payload);
	struct np_nla tb[NLMSGERR_ATTR_MSG + 1];
	if ((nh.nlmsg_flags & NLM_F_ACK_TLVS) && tlvs < len &&
	    np_nla_table(p + tlvs, len - tlvs, tb, NLMSGERR_ATTR_MSG) == 0 && tb[NLMSGERR_ATTR_MSG].present && whysize) {
		size_t n = strnlen((const char *)tb[NLMSGERR_ATTR_MSG].data, tb[NLMSGERR_ATTR_MSG].len);
		snprintf(why, whysize, "%.*s", (int)n, (const char *)tb[NLMSGERR_ATTR_MSG].data);
	}
	return e.error;
}

/* ---- requests ---- */

int np_genl_open(struct np_ctx *ctx)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return np_fail(ctx, -errno, "cannot open a generic netlink socket: %s", strerror(errno));
	/* The kernel's reason with each refusal, without our request echoed
	 * back (both exist since Linux 4.12; older kernels ignore them). */
	int one = 1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	/* The kernel answers at once; a request never answered (no such thing
	 * is known) must not hang a transaction that holds the state lock. */
	struct timeval tv = { .tv_sec = 10 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

int np_nl_request(struct np_ctx *ctx, int fd, struct np_nlmsg *m, uint16_t reply_type, void *reply, size_t size,
		  size_t *reply_len, char *why, size_t whysize)
{
	struct nlmsghdr req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	_Alignas(4) unsigned char buf[16384];
	bool got = reply_type == 0;
	if (whysize)
		why[0] = '\0';
	if (m->overflow)
		return np_fail(ctx, -EMSGSIZE, "netlink request too long");
	memcpy(&req, m->data, sizeof(req));
	if (sendto(fd, m->data, m->len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return np_fail(ctx, -errno, "sending a netlink request: %s", strerror(errno));
	for (;;) {
		bool from_kernel;
		ssize_t n = np_netlink_recv(fd, buf, sizeof(buf), &from_kernel);
		if (n == -EAGAIN)
			return np_fail(ctx, -ETIMEDOUT, "the kernel did not answer a netlink request within 10 s");
		if (n < 0)
			return np_fail(ctx, (int)n, "reading the kernel's netlink answer: %s", strerror((int)-n));
		if (!from_kernel)
			continue;
		uint16_t type;
		size_t msglen;
		for (size_t off = 0; np_nlmsg_next(buf, (size_t)n, &off, &type, &msglen); off += NLMSG_ALIGN(msglen)) {
			struct nlmsghdr nh;
			memcpy(&nh, buf + off, sizeof(nh));
			if (nh.nlmsg_seq != req.nlmsg_seq)
				continue;
			if (type == NLMSG_ERROR) {
				int err = np_nlmsg_error(buf + off, msglen, why, whysize);
				if (err == -EPROTO)
					return np_fail(ctx, err, "a malformed netlink error message from the kernel");
				if (err)
					return np_fail(ctx, err, "%s%s%s", strerror(-err), why[0] ? ": " : "", why);
				return got ? 0 : np_fail(ctx, -ENODATA, "the kernel acknowledged a netlink request "
							 "without answering it");
			}
			if (type == NLMSG_DONE)
				return got ? 0 : np_fail(ctx, -ENODATA, "no answer to a netlink request");
			if (type == reply_type && !got) {
				if (msglen > size)
					return np_fail(ctx, -EMSGSIZE, "a netlink answer longer than %zu bytes", size);
				memcpy(reply, buf + off, msglen);
				*reply_len = msglen;
				got = true;
				if (!(req.nlmsg_flags & NLM_F_ACK))
					return 0;
			}
		}
	}
}

int np_genl_family(struct np_ctx *ctx, int fd, const char *name, uint16_t *id)
{
	static uint32_t seq;
	struct np_nlmsg m;
	_Alignas(4) unsigned char reply[4096];
	size_t len = 0;
	char why[256];
	np_nlmsg_init(&m, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, ++seq);
	np_nlmsg_genl(&m, CTRL_CMD_GETFAMILY, 1);
	np_nla_put_str(&m, CTRL_ATTR_FAMILY_NAME, name);
	int rc = np_nl_request(ctx, fd, &m, GENL_ID_CTRL, reply, sizeof(reply), &len, why, sizeof(why));
	if (rc == -ENOENT)
		return np_fail(ctx, rc, "this kernel has no generic netlink family '%s'", name);
	if (rc)
		return rc;
	struct np_nla tb[CTRL_ATTR_FAMILY_ID + 1];
	size_t body = NLMSG_HDRLEN + GENL_HDRLEN;
	if (len < body || np_nla_table(reply + body, len - body, tb, CTRL_ATTR_FAMILY_ID) ||
	    !np_nla_u16(&tb[CTRL_ATTR_FAMILY_ID], id))
		return np_fail(ctx, -EPROTO, "the kernel's answer about netlink family '%s' has no id", name);
	return 0;
}
