/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/read/pci-tree: decoding config space (port type, ACS) however it is cut or
 * crafted, and the link type between two functions of a bridge tree. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include <pci/header.h>

#include "read/pci-tree.h"

/* A 4096-byte config space with a PCI Express capability of type at 0x40
 * and, unless acs < 0, an ACS capability with control acs at 0x100. */
static void config(unsigned char *cfg, int type, int acs)
{
	memset(cfg, 0, 4096);
	cfg[PCI_STATUS] = PCI_STATUS_CAP_LIST;
	cfg[PCI_CAPABILITY_LIST] = 0x40;
	cfg[0x40] = PCI_CAP_ID_EXP;
	cfg[0x42] = (unsigned char)(2 | type << 4);
	if (acs >= 0) {
		cfg[0x100] = PCI_EXT_CAP_ID_ACS;
		cfg[0x102] = 1;
		cfg[0x106] = (unsigned char)acs;
	}
}

static void test_decode(void **state)
{
	(void)state;
	unsigned char cfg[4096];
	int type, acs;
	config(cfg, PCI_EXP_TYPE_DOWNSTREAM, PCI_ACS_CTRL_REQ_RED | PCI_ACS_CTRL_VALID);
	np_pci_config_decode(cfg, sizeof(cfg), &type, &acs);
	assert_int_equal(type, PCI_EXP_TYPE_DOWNSTREAM);
	assert_int_equal(acs, 1);
	config(cfg, PCI_EXP_TYPE_DOWNSTREAM, PCI_ACS_CTRL_VALID | PCI_ACS_CTRL_FORWARD);
	np_pci_config_decode(cfg, sizeof(cfg), &type, &acs);
	assert_int_equal(acs, 0);
	config(cfg, PCI_EXP_TYPE_UPSTREAM, -1); /* no ACS capability: none to redirect */
	np_pci_config_decode(cfg, sizeof(cfg), &type, &acs);
	assert_int_equal(type, PCI_EXP_TYPE_UPSTREAM);
	assert_int_equal(acs, 0);
	/* What a reader without root gets: the header only, nothing known. */
	config(cfg, PCI_EXP_TYPE_ROOT_PORT, PCI_ACS_CTRL_REQ_RED);
	np_pci_config_decode(cfg, 64, &type, &acs);
	assert_int_equal(type, NP_PORT_UNKNOWN);
	assert_int_equal(acs, -1);
	/* Conventional PCI: 256 bytes, no extended space, so no ACS. */
	np_pci_config_decode(cfg, 256, &type, &acs);
	assert_int_equal(type, PCI_EXP_TYPE_ROOT_PORT);
	assert_int_equal(acs, 0);
	/* No capability list at all. */
	cfg[PCI_STATUS] = 0;
	np_pci_config_decode(cfg, sizeof(cfg), &type, &acs);
	assert_int_equal(type, NP_PORT_UNKNOWN);
	np_pci_config_decode(cfg, 0, &type, &acs);
	assert_int_equal(type, NP_PORT_UNKNOWN);
	assert_int_equal(acs, -1);
}

static void test_decode_crafted_lists_end(void **state)
{
	(void)state;
	unsigned char cfg[4096];
	int type, acs;
	/* A capability pointing at itself, and an extended one too: both end. */
	config(cfg, PCI_EXP_TYPE_DOWNSTREAM, -1);
	cfg[0x40] = PCI_CAP_ID_MSI;
	cfg[0x41] = 0x40;
	cfg[0x100] = PCI_EXT_CAP_ID_AER;
	cfg[0x102] = 0x01;
	cfg[0x103] = 0x10; /* next: 0x100 */
	np_pci_config_decode(cfg, sizeof(cfg), &type, &acs);
	assert_int_equal(type, NP_PORT_UNKNOWN);
	assert_int_equal(acs, 0);
	/* A pointer past the end of what was read. */
	config(cfg, PCI_EXP_TYPE_DOWNSTREAM, -1);
	cfg[PCI_CAPABILITY_LIST] = 0xfc;
	np_pci_config_decode(cfg, 0xfe, &type, &acs);
	assert_int_equal(type, NP_PORT_UNKNOWN);
}

/* A tree: root bus A with root port 0 -> upstream 1 -> downstream 2 and 3;
 * 4 below 2, 5 below 3 (one switch: PIX); downstream 3 also leads to a
 * second switch 6 -> downstream 7 -> 8 (two switches from 4: PXB); root
 * port 9 -> 10 (PHB with the others); 11 on root bus B. */
enum { RP, UP, DN0, DN1, E0, E1, UP2, DN2, E2, RP2, E3, E4, N };

static void tree(struct np_pcitree *t, struct np_pcinode *v)
{
	static const int parent[N] = { -1, RP, UP, UP, DN0, DN1, DN1, UP2, DN2, -1, RP2, -1 };
	static const int type[N] = { PCI_EXP_TYPE_ROOT_PORT, PCI_EXP_TYPE_UPSTREAM, PCI_EXP_TYPE_DOWNSTREAM,
				     PCI_EXP_TYPE_DOWNSTREAM, NP_PORT_UNKNOWN, NP_PORT_UNKNOWN, PCI_EXP_TYPE_UPSTREAM,
				     PCI_EXP_TYPE_DOWNSTREAM, NP_PORT_UNKNOWN, PCI_EXP_TYPE_ROOT_PORT, NP_PORT_UNKNOWN,
				     NP_PORT_UNKNOWN };
	memset(v, 0, N * sizeof(*v));
	for (int i = 0; i < N; i++) {
		strcpy(v[i].root, i == E4 ? "pci0000:80" : "pci0000:00");
		v[i].parent = parent[i];
		v[i].port_type = type[i];
	}
	*t = (struct np_pcitree){ .v = v, .n = N };
}

static void test_links(void **state)
{
	(void)state;
	struct np_pcinode v[N];
	struct np_pcitree t;
	tree(&t, v);
	assert_int_equal(np_pcitree_link(&t, E0, E0, 0, 0).type, NP_LINK_X);
	assert_int_equal(np_pcitree_link(&t, E0, E1, 0, 0).type, NP_LINK_PIX);
	assert_int_equal(np_pcitree_link(&t, E0, E2, 0, 0).type, NP_LINK_PXB);
	assert_int_equal(np_pcitree_link(&t, E2, E1, 0, 0).type, NP_LINK_PIX); /* E1 and switch 2 on one port */
	assert_int_equal(np_pcitree_link(&t, E0, E3, 0, 0).type, NP_LINK_PHB);
	assert_int_equal(np_pcitree_link(&t, E0, E4, 0, 0).type, NP_LINK_NODE);
	struct np_pcilink l = np_pcitree_link(&t, E0, E4, 0, 1);
	assert_int_equal(l.type, NP_LINK_SYS);
	assert_false(l.node_unknown);
	l = np_pcitree_link(&t, E0, E4, 0, -1);
	assert_int_equal(l.type, NP_LINK_SYS);
	assert_true(l.node_unknown);
}

static void test_acs(void **state)
{
	(void)state;
	struct np_pcinode v[N];
	struct np_pcitree t;
	tree(&t, v);
	assert_int_equal(np_pcitree_link(&t, E0, E1, 0, 0).acs_redirect, 0);
	v[DN1].acs_redirect = -1;
	assert_int_equal(np_pcitree_link(&t, E0, E1, 0, 0).acs_redirect, -1);
	v[DN0].acs_redirect = 1; /* one port redirecting is enough */
	assert_int_equal(np_pcitree_link(&t, E0, E1, 0, 0).acs_redirect, 1);
	/* A port above the common bridge is not crossed. */
	v[DN0].acs_redirect = 0;
	v[DN1].acs_redirect = 0;
	v[RP].acs_redirect = 1;
	assert_int_equal(np_pcitree_link(&t, E0, E1, 0, 0).acs_redirect, 0);
}

static void test_cycle_ends(void **state)
{
	(void)state;
	struct np_pcinode v[N];
	struct np_pcitree t;
	tree(&t, v);
	v[RP].parent = DN0; /* a crafted tree whose paths loop */
	(void)np_pcitree_link(&t, E0, E3, 0, 0);
	assert_string_equal(np_link_name(NP_LINK_PXB), "PXB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_decode_crafted_lists_end),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_acs),
		cmocka_unit_test(test_cycle_ends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
