/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The device classes --class names (gpu, net, nvme, storage, all): the
 * kinds of PCI functions a placement question is about, by class code. */
#ifndef NUMAPLACE_PCICLASS_H
#define NUMAPLACE_PCICLASS_H

#include <stdbool.h>

#include "base/context.h"
#include "read/pci.h"

enum np_pci_kind {
	NP_KIND_GPU = 1 << 0,     /* 3D and VGA controllers, display "other", processing accelerators */
	NP_KIND_NET = 1 << 1,     /* network controllers, InfiniBand (0x0207) included */
	NP_KIND_NVME = 1 << 2,    /* NVM Express controllers (0x0108) */
	NP_KIND_STORAGE = 1 << 3, /* every mass storage controller, NVMe included */
	NP_KIND_ALL = 1 << 4,     /* every function but bridges */
};
#define NP_KIND_DEFAULT (NP_KIND_GPU | NP_KIND_NET | NP_KIND_STORAGE)
/* The names --class takes, comma-separated, for help and completion. */
#define NP_KIND_NAMES "gpu,net,nvme,storage,all"

/* Parses "gpu,net" into a set of kinds; -EINVAL (detail in ctx) on an unknown name. */
int np_pci_kinds_parse(struct np_ctx *ctx, const char *text, unsigned *kinds);
bool np_pci_dev_is_kind(const struct np_pci_dev *dev, unsigned kinds);
/* The one kind that names dev: "gpu", "net", "nvme", "storage" or "other". */
const char *np_pci_kind_name(const struct np_pci_dev *dev);

/* Function i's label, as devices --matrix names it ("GPU0", "NIC3", "NVME1",
 * "DISK0", "DEV2"): its kind (np_pci_kind_name) and its place among the
 * machine's functions of that kind, in address order; a bridge has none
 * (""). The same whatever a command selects, so that a label the matrix
 * prints names the same device anywhere (devices --near GPU3). */
void np_pci_label(const struct np_pci *pci, size_t i, char *buf, size_t size);

#endif
