/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "read/uevent.h"

static void copy(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* "/devices/.../net/eth4/queues/rx-0" -> "eth4": the component after "/net/". */
static int net_from_devpath(const char *devpath, struct np_event *ev)
{
	const char *p = strstr(devpath, "/net/");
	if (!p)
		return 0;
	p += 5;
	copy(ev->device, sizeof(ev->device), p, strcspn(p, "/"));
	return ev->device[0] != '\0';
}

/* Whether the segment kv (len bytes, no NUL among them) starts with key. */
static bool has_key(const char *kv, size_t len, const char *key)
{
	size_t klen = strlen(key);
	return len >= klen && !memcmp(kv, key, klen);
}

int np_uevent_parse(const char *buf, size_t len, struct np_event *ev)
{
	const char *action = NULL, *devpath = NULL, *subsystem = NULL, *name = NULL, *slot = NULL;
	memset(ev, 0, sizeof(*ev));
	/* The kernel ends every segment, the last one too, with a NUL: a
	 * datagram that does not is not the kernel's, and is never read past. */
	if (!len || buf[len - 1] != '\0')
		return 0;
	/* Kernel messages start "ACTION@DEVPATH"; udev's own ("libudev") are not read. */
	size_t head = strlen(buf);
	if (!memchr(buf, '@', head))
		return 0;
	for (size_t off = head + 1; off < len;) {
		const char *kv = buf + off;
		size_t klen = strlen(kv); /* ends at the latest at buf[len - 1] */
		if (has_key(kv, klen, "ACTION="))
			action = kv + 7;
		else if (has_key(kv, klen, "DEVPATH="))
			devpath = kv + 8;
		else if (has_key(kv, klen, "SUBSYSTEM="))
			subsystem = kv + 10;
		else if (has_key(kv, klen, "INTERFACE=") || has_key(kv, klen, "DEVNAME="))
			name = strchr(kv, '=') + 1;
		else if (has_key(kv, klen, "PCI_SLOT_NAME="))
			slot = kv + 14;
		off += klen + 1;
	}
	if (!action || !devpath || !subsystem)
		return 0;
	copy(ev->action, sizeof(ev->action), action, strlen(action));
	if (!strcmp(subsystem, "net") || !strcmp(subsystem, "queues")) {
		strcpy(ev->subsystem, "net");
		if (name && !strcmp(subsystem, "net")) {
			copy(ev->device, sizeof(ev->device), name, strlen(name));
			return ev->device[0] != '\0';
		}
		return net_from_devpath(devpath, ev);
	}
	if (!strcmp(subsystem, "block") && name && *name) {
		strcpy(ev->subsystem, "block");
		copy(ev->device, sizeof(ev->device), name, strlen(name));
		return 1;
	}
	if (!strcmp(subsystem, "pci") && slot && *slot) {
		strcpy(ev->subsystem, "pci");
		copy(ev->device, sizeof(ev->device), slot, strlen(slot));
		return 1;
	}
	return 0;
}

/* The shared walk (base/netlink) checks every length: a malformed message
 * ends the datagram, a malformed attribute list keeps what came before it. */
size_t np_rtnl_parse(const void *buf, size_t len, struct np_event *evs, size_t max)
{
	const unsigned char *p = buf;
	size_t n = 0, msglen;
	uint16_t type;
	for (size_t off = 0; n < max && np_nlmsg_next(buf, len, &off, &type, &msglen); off += NLMSG_ALIGN(msglen)) {
		size_t body = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct ifinfomsg));
		struct np_nla tb[IFLA_IFNAME + 1];
		if ((type != RTM_NEWLINK && type != RTM_DELLINK) || msglen < body)
			continue;
		np_nla_table(p + off + body, msglen - body, tb, IFLA_IFNAME);
		if (!tb[IFLA_IFNAME].present)
			continue;
		struct np_event *ev = &evs[n];
		memset(ev, 0, sizeof(*ev));
		strcpy(ev->action, type == RTM_NEWLINK ? "link" : "dellink");
		strcpy(ev->subsystem, "net");
		copy(ev->device, sizeof(ev->device), (const char *)tb[IFLA_IFNAME].data,
		     strnlen((const char *)tb[IFLA_IFNAME].data, tb[IFLA_IFNAME].len));
		n += ev->device[0] != '\0';
	}
	return n;
}

int np_event_line(const char *line, struct np_event *ev)
{
	char extra;
	memset(ev, 0, sizeof(*ev));
	return sscanf(line, "%15s %15s %63s %c", ev->action, ev->subsystem, ev->device, &extra) == 3;
}

static int nl_open(struct np_ctx *ctx, int proto, unsigned groups, const char *what)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return np_fail(ctx, -errno, "cannot open a netlink socket for %s: %s", what, strerror(errno));
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = groups };
	/* Bursts (a driver reload: every queue of every port) must not overflow. */
	int size = 1 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		close(fd);
		return np_fail(ctx, -e, "cannot listen to %s: %s", what, strerror(e));
	}
	return fd;
}

int np_uevent_open(struct np_ctx *ctx)
{
	return nl_open(ctx, NETLINK_KOBJECT_UEVENT, 1, "kernel uevents");
}

int np_rtnl_open(struct np_ctx *ctx)
{
	return nl_open(ctx, NETLINK_ROUTE, RTMGRP_LINK, "rtnetlink link events");
}
