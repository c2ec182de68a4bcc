/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PCI functions (read through the root-aware layer; names from the PCI ID
 * database) and what hangs below them: network interfaces, block devices,
 * virtio and NVMe controller names. */
#ifndef NUMAPLACE_PCI_H
#define NUMAPLACE_PCI_H

#include <stdbool.h>
#include <stddef.h>

#include "read/block.h"
#include "base/context.h"
#include "base/cpuset.h"
#include "read/net.h"

#define NP_PCI_ADDR_LEN 13 /* "0000:22:00.0" and a NUL */
/* IDs a dump did not hold: all ones, as a missing register reads; the class
 * "unassigned" (0xff). */
#define NP_PCI_ID_UNKNOWN 0xffffu
#define NP_PCI_CLASS_UNKNOWN 0xff00u

struct np_pci_dev {
	char addr[NP_PCI_ADDR_LEN];
	unsigned vendor_id, device_id, class_id; /* class_id: base class and subclass, 0x0200 */
	char *vendor, *device, *class_name;      /* names from the PCI ID database, NULL when unknown
						  * or not looked up (np_pci_lookup_names) */
	char *driver;                            /* NULL when unbound */
	char *child_driver;                      /* the driver below virtio-pci (virtio_net, virtio_blk) */
	int numa_node;                           /* -1 when the firmware did not say */
	struct np_cpuset local_cpus;             /* empty when unknown */
	int legacy_irq;                          /* 0 when none */
	int *msi_irqs;
	size_t nmsi;
	struct np_netif *net;
	size_t nnet;
	struct np_blockdev *block;
	size_t nblock;
	/* Names the kernel uses for this function in interrupt action names:
	 * "virtio2", "nvme0", "megasas0" is not derivable and not here. */
	char **aliases;
	size_t naliases;
};

struct np_pci {
	struct np_pci_dev *devs; /* ascending address */
	size_t ndevs;
	char **notes;            /* functions read in part, one line each, for the user */
	size_t nnotes;
};

/* A machine without /sys/bus/pci gives an empty list, not an error. No
 * names: they come from a database, not the machine, and cost a fifth of a
 * scan; np_pci_lookup_names adds them for who shows them. */
int np_pci_scan(struct np_ctx *ctx, struct np_pci *out);
int np_pci_lookup_names(struct np_ctx *ctx, struct np_pci *pci);
void np_pci_free(struct np_pci *pci);
/* By full ("0000:22:00.0") or short ("22:00.0") address. */
const struct np_pci_dev *np_pci_find(const struct np_pci *pci, const char *addr);
/* True for functions worth listing by default: network, storage, display,
 * accelerators, and anything with interrupts but bridges and system
 * peripherals (has_irqs: IRQs were tied to it). */
bool np_pci_dev_matters(const struct np_pci_dev *dev, bool has_irqs);
/* Matches a user's FILTER: PCI address (full or short), interface, block
 * device, or driver name. */
bool np_pci_dev_match(const struct np_pci_dev *dev, const char *filter);
/* Parses "0000:22:00.0" or "22:00.0" into the full form; false when not an address. */
bool np_pci_parse_addr(const char *text, char out[NP_PCI_ADDR_LEN]);

#endif
