/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/pci-class.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The BMC's display function is a VGA controller that no job runs on. */
static bool bmc_display(const struct np_pci_dev *d)
{
	return d->vendor_id == 0x1a03 /* ASPEED */ || d->vendor_id == 0x102b /* Matrox */;
}

static bool is_gpu(const struct np_pci_dev *d)
{
	switch (d->class_id) {
	case 0x0300: /* VGA compatible */
	case 0x0302: /* 3D controller */
	case 0x0380: /* display controller (AMD Instinct) */
	case 0x1200: /* processing accelerator */
		return !bmc_display(d);
	}
	return false;
}

bool np_pci_dev_is_kind(const struct np_pci_dev *d, unsigned kinds)
{
	if (d->class_id >> 8 == 0x06) /* bridges are the links, not the ends */
		return false;
	return (kinds & NP_KIND_ALL) || ((kinds & NP_KIND_GPU) && is_gpu(d)) ||
	       ((kinds & NP_KIND_NET) && d->class_id >> 8 == 0x02) ||
	       ((kinds & NP_KIND_NVME) && d->class_id == 0x0108) ||
	       ((kinds & NP_KIND_STORAGE) && d->class_id >> 8 == 0x01);
}

const char *np_pci_kind_name(const struct np_pci_dev *d)
{
	return is_gpu(d)			 ? "gpu"
	       : d->class_id >> 8 == 0x02 ? "net"
	       : d->class_id == 0x0108	 ? "nvme"
	       : d->class_id >> 8 == 0x01 ? "storage"
					  : "other";
}

int np_pci_kinds_parse(struct np_ctx *ctx, const char *text, unsigned *kinds)
{
	static const struct {
		const char *name;
		unsigned kind;
	} names[] = { { "gpu", NP_KIND_GPU }, { "net", NP_KIND_NET }, { "nvme", NP_KIND_NVME },
		      { "storage", NP_KIND_STORAGE }, { "all", NP_KIND_ALL } };
	*kinds = 0;
	for (const char *p = text;;) {
		size_t len = strcspn(p, ","), i;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len && !strncmp(p, names[i].name, len))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return np_fail(ctx, -EINVAL, "unknown class '%.*s' in '%s' (known: %s)", (int)len, p, text,
				       NP_KIND_NAMES);
		*kinds |= names[i].kind;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

void np_pci_label(const struct np_pci *pci, size_t i, char *buf, size_t size)
{
	static const struct {
		const char *kind, *prefix;
	} prefixes[] = { { "gpu", "GPU" }, { "net", "NIC" }, { "nvme", "NVME" }, { "storage", "DISK" }, { "other", "DEV" } };
	const struct np_pci_dev *d = &pci->devs[i];
	buf[0] = '\0';
	if (!np_pci_dev_is_kind(d, NP_KIND_ALL))
		return;
	const char *kind = np_pci_kind_name(d);
	size_t k = 0, n = 0;
	while (k < 4 && strcmp(prefixes[k].kind, kind))
		k++;
	for (size_t j = 0; j < i; j++)
		n += np_pci_dev_is_kind(&pci->devs[j], NP_KIND_ALL) && !strcmp(np_pci_kind_name(&pci->devs[j]), kind);
	snprintf(buf, size, "%s%zu", prefixes[k].prefix, n);
}
