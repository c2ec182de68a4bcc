/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device events (lib/read/uevent.c): kernel uevent messages, rtnetlink link
 * messages and the test hook's lines, as hold reads them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "read/uevent.h"

/* A uevent as the kernel sends it: NUL-separated, the header first. */
static int parse(const char *const *parts, struct np_event *ev)
{
	char buf[1024];
	size_t len = 0;
	for (size_t i = 0; parts[i]; i++) {
		size_t n = strlen(parts[i]) + 1;
		memcpy(buf + len, parts[i], n);
		len += n;
	}
	return np_uevent_parse(buf, len, ev);
}

static void expect(const struct np_event *ev, const char *action, const char *subsystem, const char *device)
{
	assert_string_equal(ev->action, action);
	assert_string_equal(ev->subsystem, subsystem);
	assert_string_equal(ev->device, device);
}

static void test_net_add(void **state)
{
	(void)state;
	struct np_event ev;
	assert_int_equal(1, parse((const char *const[]){ "add@/devices/virtual/net/veth0", "ACTION=add",
			  "DEVPATH=/devices/virtual/net/veth0", "SUBSYSTEM=net", "INTERFACE=veth0", "IFINDEX=7", NULL }, &ev));
	expect(&ev, "add", "net", "veth0");
}

/* The queues come after the interface's own add: their events name it too. */
static void test_queue_add_names_its_interface(void **state)
{
	(void)state;
	struct np_event ev;
	assert_int_equal(1, parse((const char *const[]){ "add@/devices/virtual/net/veth0/queues/rx-1", "ACTION=add",
			  "DEVPATH=/devices/virtual/net/veth0/queues/rx-1", "SUBSYSTEM=queues", NULL }, &ev));
	expect(&ev, "add", "net", "veth0");
}

static void test_block_and_pci(void **state)
{
	(void)state;
	struct np_event ev;
	assert_int_equal(1, parse((const char *const[]){ "change@/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda",
			  "ACTION=change", "DEVPATH=/devices/x/block/sda", "SUBSYSTEM=block", "DEVNAME=sda", "DEVTYPE=disk", NULL }, &ev));
	expect(&ev, "change", "block", "sda");
	assert_int_equal(1, parse((const char *const[]){ "bind@/devices/pci0000:20/0000:20:0b.0/0000:23:00.0", "ACTION=bind",
			  "DEVPATH=/devices/pci0000:20/0000:20:0b.0/0000:23:00.0", "SUBSYSTEM=pci", "DRIVER=ixgbe",
			  "PCI_SLOT_NAME=0000:23:00.0", NULL }, &ev));
	expect(&ev, "bind", "pci", "0000:23:00.0");
}

static void test_others_and_malformed_are_ignored(void **state)
{
	(void)state;
	struct np_event ev;
	/* Another subsystem. */
	assert_int_equal(0, parse((const char *const[]){ "add@/devices/virtual/input/input9", "ACTION=add",
			  "DEVPATH=/devices/virtual/input/input9", "SUBSYSTEM=input", NULL }, &ev));
	/* udev's re-broadcast, not the kernel's. */
	assert_int_equal(0, parse((const char *const[]){ "libudev", "ACTION=add", "SUBSYSTEM=net", "INTERFACE=eth0",
			  "DEVPATH=/devices/virtual/net/eth0", NULL }, &ev));
	/* No ACTION. */
	assert_int_equal(0, parse((const char *const[]){ "add@/devices/virtual/net/eth0", "SUBSYSTEM=net",
			  "DEVPATH=/devices/virtual/net/eth0", NULL }, &ev));
	/* Not NUL-terminated at the end. */
	const char cut[] = "add@/x\0ACTION=add\0SUBSYSTEM=net\0DEVPATH=/devices/virtual/net/eth0";
	assert_int_equal(0, np_uevent_parse(cut, sizeof(cut) - 1, &ev));
	assert_int_equal(0, np_uevent_parse("", 0, &ev));
}

static size_t link_msg(char *buf, unsigned short type, const char *name)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	memset(buf, 0, NLMSG_SPACE(sizeof(*ifi) + RTA_SPACE(strlen(name) + 1)));
	struct rtattr *a = (struct rtattr *)((char *)ifi + NLMSG_ALIGN(sizeof(*ifi)));
	a->rta_type = IFLA_IFNAME;
	a->rta_len = (unsigned short)RTA_LENGTH(strlen(name) + 1);
	memcpy(RTA_DATA(a), name, strlen(name) + 1);
	nh->nlmsg_type = type;
	nh->nlmsg_len = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*ifi)) + RTA_ALIGN(a->rta_len));
	return NLMSG_ALIGN(nh->nlmsg_len);
}

static void test_rtnetlink_links(void **state)
{
	(void)state;
	char buf[512] __attribute__((aligned(4)));
	struct np_event evs[4];
	size_t len = link_msg(buf, RTM_NEWLINK, "eth4");
	len += link_msg(buf + len, RTM_DELLINK, "veth1");
	assert_int_equal(2, np_rtnl_parse(buf, len, evs, 4));
	expect(&evs[0], "link", "net", "eth4");
	expect(&evs[1], "dellink", "net", "veth1");
	/* At most max, and a truncated datagram yields what is whole. */
	assert_int_equal(1, np_rtnl_parse(buf, len, evs, 1));
	assert_int_equal(1, np_rtnl_parse(buf, len - 4, evs, 4));
}

/* A copy in a heap block of exactly len bytes: the sanitizer sees any read past it. */
static void *exact(const void *data, size_t len)
{
	void *p = malloc(len ? len : 1);
	assert_non_null(p);
	memcpy(p, data, len);
	return p;
}

/* A last segment without its NUL was compared (strncmp) before the check
 * that the datagram ends in one: a read past the buffer. */
static void test_uevent_unterminated_is_not_read_past(void **state)
{
	(void)state;
	struct np_event ev;
	static const char msg[] = "add@/x\0ACTION=add\0SUBSYSTEM=net\0DEVPATH=/devices/virtual/net/eth0\0PCI";
	char *buf = exact(msg, sizeof(msg) - 1);
	assert_int_equal(0, np_uevent_parse(buf, sizeof(msg) - 1, &ev));
	free(buf);
	/* Every prefix of a good message: never read past, and no device unless
	 * it ends at a segment's NUL (then it is a whole, shorter message). */
	static const char good[] = "add@/devices/virtual/net/veth0\0ACTION=add\0DEVPATH=/devices/virtual/net/veth0\0"
				   "SUBSYSTEM=net\0INTERFACE=veth0";
	for (size_t len = 0; len < sizeof(good) - 1; len++) {
		buf = exact(good, len);
		int rc = np_uevent_parse(buf, len, &ev);
		if (!len || good[len - 1] != '\0')
			assert_int_equal(0, rc);
		free(buf);
	}
	buf = exact(good, sizeof(good));
	assert_int_equal(1, np_uevent_parse(buf, sizeof(good), &ev));
	free(buf);
}

/* A message whose nlmsg_len is not a multiple of 4 made the signed length
 * left negative; cast to unsigned, the walk went on past the datagram (hold
 * died with SIGSEGV). */
static void test_rtnetlink_unaligned_length_stops(void **state)
{
	(void)state;
	struct np_event evs[4];
	unsigned char raw[18] = { 0 };
	struct nlmsghdr nh = { .nlmsg_len = 17, .nlmsg_type = NLMSG_NOOP };
	memcpy(raw, &nh, sizeof(nh));
	void *buf = exact(raw, sizeof(raw));
	assert_int_equal(0, np_rtnl_parse(buf, sizeof(raw), evs, 4));
	free(buf);
}

/* Lengths that lie, each at every place: a message longer than the
 * datagram, one shorter than its header, an attribute longer than its
 * message or shorter than its own header, a name without a NUL. */
static void test_rtnetlink_lying_lengths(void **state)
{
	(void)state;
	char good[512] __attribute__((aligned(4)));
	struct np_event evs[4];
	size_t len = link_msg(good, RTM_NEWLINK, "eth4");
	struct nlmsghdr *nh = (struct nlmsghdr *)good;
	struct rtattr *a = (struct rtattr *)((char *)NLMSG_DATA(nh) + NLMSG_ALIGN(sizeof(struct ifinfomsg)));
	unsigned short rta_len = a->rta_len;

	a->rta_len = 0xfff0; /* past the message */
	void *buf = exact(good, len);
	assert_int_equal(0, np_rtnl_parse(buf, len, evs, 4));
	free(buf);
	a->rta_len = 2; /* shorter than an attribute header */
	buf = exact(good, len);
	assert_int_equal(0, np_rtnl_parse(buf, len, evs, 4));
	free(buf);
	a->rta_len = rta_len;
	nh->nlmsg_len = (unsigned)len + 64; /* past the datagram */
	buf = exact(good, len);
	assert_int_equal(0, np_rtnl_parse(buf, len, evs, 4));
	free(buf);
	nh->nlmsg_len = 8; /* shorter than its own header */
	buf = exact(good, len);
	assert_int_equal(0, np_rtnl_parse(buf, len, evs, 4));
	free(buf);
	/* The name fills its attribute without a NUL: taken as far as it goes. */
	nh->nlmsg_len = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct ifinfomsg)) + RTA_LENGTH(4));
	a->rta_len = RTA_LENGTH(4);
	buf = exact(good, nh->nlmsg_len);
	assert_int_equal(1, np_rtnl_parse(buf, nh->nlmsg_len, evs, 4));
	expect(&evs[0], "link", "net", "eth4");
	free(buf);
	/* Every cut of a good datagram of two messages: nothing read past it. */
	len = link_msg(good, RTM_NEWLINK, "eth4");
	len += link_msg(good + len, RTM_DELLINK, "veth1");
	for (size_t cut = 0; cut <= len; cut++) {
		buf = exact(good, cut);
		np_rtnl_parse(buf, cut, evs, 4);
		free(buf);
	}
}

/* Only the kernel (port id 0) is heard: a process that sends hold's socket
 * a datagram of its own is dropped, as udev does. */
static void test_netlink_sender_is_checked(void **state)
{
	(void)state;
	int rx = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_ROUTE);
	int tx = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (rx < 0 || tx < 0) {
		if (rx >= 0)
			close(rx);
		if (tx >= 0)
			close(tx);
		skip();
	}
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t salen = sizeof(sa);
	assert_int_equal(0, bind(rx, (struct sockaddr *)&sa, sizeof(sa)));
	assert_int_equal(0, getsockname(rx, (struct sockaddr *)&sa, &salen));
	char msg[512] __attribute__((aligned(4)));
	size_t len = link_msg(msg, RTM_NEWLINK, "eth4");
	if (sendto(tx, msg, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(rx);
		close(tx);
		skip(); /* not allowed to send to a user socket here */
	}
	char buf[1024];
	bool from_kernel = true;
	assert_int_equal((ssize_t)len, np_netlink_recv(rx, buf, sizeof(buf), &from_kernel));
	assert_false(from_kernel);
	/* Cut to a buffer too small: never taken either. */
	assert_int_equal((ssize_t)len, sendto(tx, msg, len, 0, (struct sockaddr *)&sa, sizeof(sa)));
	from_kernel = true;
	assert_true(np_netlink_recv(rx, buf, 8, &from_kernel) >= 0);
	assert_false(from_kernel);
	close(rx);
	close(tx);
}

static void test_lines(void **state)
{
	(void)state;
	struct np_event ev;
	assert_int_equal(1, np_event_line("add net eth4", &ev));
	expect(&ev, "add", "net", "eth4");
	assert_int_equal(0, np_event_line("add net", &ev));
	assert_int_equal(0, np_event_line("add net eth4 extra", &ev));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_net_add),
		cmocka_unit_test(test_queue_add_names_its_interface),
		cmocka_unit_test(test_block_and_pci),
		cmocka_unit_test(test_others_and_malformed_are_ignored),
		cmocka_unit_test(test_rtnetlink_links),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_uevent_unterminated_is_not_read_past),
		cmocka_unit_test(test_rtnetlink_unaligned_length_stops),
		cmocka_unit_test(test_rtnetlink_lying_lengths),
		cmocka_unit_test(test_netlink_sender_is_checked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
