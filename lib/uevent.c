/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uevent.h"

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

int np_uevent_parse(const char *buf, size_t len, struct np_event *ev)
{
	const char *action = NULL, *devpath = NULL, *subsystem = NULL, *name = NULL, *slot = NULL;
	memset(ev, 0, sizeof(*ev));
	/* Kernel messages start "ACTION@DEVPATH"; udev's own ("libudev") are not read. */
	if (!len || !memchr(buf, '@', strnlen(buf, len)))
		return 0;
	for (size_t off = strnlen(buf, len) + 1; off < len; off += strnlen(buf + off, len - off) + 1) {
		const char *kv = buf + off;
		if (!strncmp(kv, "ACTION=", 7))
			action = kv + 7;
		else if (!strncmp(kv, "DEVPATH=", 8))
			devpath = kv + 8;
		else if (!strncmp(kv, "SUBSYSTEM=", 10))
			subsystem = kv + 10;
		else if (!strncmp(kv, "INTERFACE=", 10) || !strncmp(kv, "DEVNAME=", 8))
			name = strchr(kv, '=') + 1;
		else if (!strncmp(kv, "PCI_SLOT_NAME=", 14))
			slot = kv + 14;
	}
	if (buf[len - 1] != '\0' || !action || !devpath || !subsystem)
		return 0;
	copy(ev->action, sizeof(ev->action), action, strlen(action));
	if (!strcmp(subsystem, "net") || !strcmp(subsystem, "queues")) {
		strcpy(ev->subsystem, "net");
		if (name && !strcmp(subsystem, "net")) {
			copy(ev->device, sizeof(ev->device), name, strlen(name));
			return 1;
		}
		return net_from_devpath(devpath, ev);
	}
	if (!strcmp(subsystem, "block") && name) {
		strcpy(ev->subsystem, "block");
		copy(ev->device, sizeof(ev->device), name, strlen(name));
		return 1;
	}
	if (!strcmp(subsystem, "pci") && slot) {
		strcpy(ev->subsystem, "pci");
		copy(ev->device, sizeof(ev->device), slot, strlen(slot));
		return 1;
	}
	return 0;
}

size_t np_rtnl_parse(const void *buf, size_t len, struct np_event *evs, size_t max)
{
	size_t n = 0;
	int left = (int)len;
	for (const struct nlmsghdr *nh = buf; n < max && NLMSG_OK(nh, (unsigned)left); nh = NLMSG_NEXT(nh, left)) {
		if (nh->nlmsg_type != RTM_NEWLINK && nh->nlmsg_type != RTM_DELLINK)
			continue;
		if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
			continue;
		const struct ifinfomsg *ifi = NLMSG_DATA(nh);
		int alen = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)));
		for (const struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
			if (a->rta_type != IFLA_IFNAME)
				continue;
			struct np_event *ev = &evs[n];
			memset(ev, 0, sizeof(*ev));
			strcpy(ev->action, nh->nlmsg_type == RTM_NEWLINK ? "link" : "dellink");
			strcpy(ev->subsystem, "net");
			copy(ev->device, sizeof(ev->device), RTA_DATA(a), strnlen(RTA_DATA(a), RTA_PAYLOAD(a)));
			n += ev->device[0] != '\0';
			break;
		}
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
