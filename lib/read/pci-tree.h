/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The PCI bridge tree and the link between two functions, as nvidia-smi
 * topo -m names it but for every vendor: which bridges and switches lie
 * between them, from each function's sysfs device path; the PCIe port types
 * from the config space where it is readable, else from the path's shape. */
#ifndef NUMAPLACE_PCITREE_H
#define NUMAPLACE_PCITREE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/context.h"
#include "read/pci.h"

/* Nearest first: the order --near sorts by. */
enum np_link {
	NP_LINK_X,    /* the same function */
	NP_LINK_PIX,  /* through at most one PCIe switch */
	NP_LINK_PXB,  /* through several switches, no host bridge */
	NP_LINK_PHB,  /* through the host bridge (root complex) both hang off */
	NP_LINK_NODE, /* across root complexes of one NUMA node */
	NP_LINK_SYS,  /* across NUMA nodes, or a node unknown */
};

/* The PCI Express capability's device/port type (PCI_EXP_TYPE_*), or this. */
#define NP_PORT_UNKNOWN (-1)

struct np_pcinode {
	char root[24];   /* the host bridge's root bus, "pci0000:15" */
	int parent;      /* the bridge above, an index into np_pci.devs; -1 on the root bus */
	int port_type;   /* PCI_EXP_TYPE_*, NP_PORT_UNKNOWN; bridges only */
	bool port_from_config; /* else from the path's shape */
	int acs_redirect; /* ACS P2P Request Redirect: 1 on, 0 off, -1 unknown (bridges) */
	char **rdma;     /* RDMA devices of the function ("mlx5_0": its infiniband/ directory) */
	size_t nrdma;
};

struct np_pcitree {
	struct np_pcinode *v; /* one per np_pci.devs entry, same index */
	size_t n;
	size_t nconfig, npath; /* bridges whose port type came from config space, from the path */
	size_t nacs_unknown;   /* downstream ports whose ACS control could not be read */
	size_t nunplaced;      /* functions whose sysfs link leads nowhere (a partial copy):
				* no place in the tree, their links judged by node */
};

struct np_pcilink {
	enum np_link type;
	int acs_redirect; /* PIX/PXB: 1 when a port between them redirects P2P requests
			   * up to the root complex, 0 when none does, -1 unknown */
	bool node_unknown; /* SYS because a node is unknown */
};

/* Reads the tree of pci's functions (paths, config spaces, infiniband/).
 * An unreadable or short config file is not an error: that bridge's type
 * comes from the path's shape. */
int np_pcitree_read(struct np_ctx *ctx, const struct np_pci *pci, struct np_pcitree *out);
void np_pcitree_free(struct np_pcitree *t);
/* The link between functions a and b, whose NUMA nodes are node_a and
 * node_b (-1 unknown). */
struct np_pcilink np_pcitree_link(const struct np_pcitree *t, size_t a, size_t b, int node_a, int node_b);
const char *np_link_name(enum np_link link);
/* Decodes a config space (len bytes as sysfs gave them) with libpci's
 * register layout: the PCI Express port type (NP_PORT_UNKNOWN when the
 * capability list is cut off or absent) and the ACS control's P2P Request
 * Redirect (1, 0, or -1 when the extended space is cut off). */
void np_pci_config_decode(const unsigned char *cfg, size_t len, int *port_type, int *acs_redirect);

#endif
