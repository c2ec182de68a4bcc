/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device events (lib/uevent.c): kernel uevent messages, rtnetlink link
 * messages and the test hook's lines, as hold reads them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "../../lib/uevent.h"

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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
