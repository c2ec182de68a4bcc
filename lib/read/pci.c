/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/pci.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/sysfs.h"

bool np_pci_parse_addr(const char *text, char out[NP_PCI_ADDR_LEN])
{
	unsigned dom = 0, bus, dev, fn;
	int n = 0;
	if (sscanf(text, "%4x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &n) == 4 && n == 12 && !text[n])
		;
	else if (n = 0, sscanf(text, "%2x:%2x.%1x%n", &bus, &dev, &fn, &n) == 3 && n == 7 && !text[n])
		dom = 0;
	else
		return false;
	for (const char *p = text; *p; p++)
		if (!isxdigit((unsigned char)*p) && *p != ':' && *p != '.')
			return false;
	if (dev > 0x1f || fn > 7)
		return false;
	snprintf(out, NP_PCI_ADDR_LEN, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return true;
}

/* The PCI function a sysfs device path lives under: the last component that
 * is a PCI address ("/sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0"). */
static bool pci_ancestor(const char *path, char out[NP_PCI_ADDR_LEN])
{
	bool found = false;
	for (const char *p = path; (p = strchr(p, '/')); p++) {
		char comp[NP_PCI_ADDR_LEN];
		if (strcspn(p + 1, "/") != NP_PCI_ADDR_LEN - 1)
			continue;
		memcpy(comp, p + 1, NP_PCI_ADDR_LEN - 1);
		comp[NP_PCI_ADDR_LEN - 1] = '\0';
		if (np_pci_parse_addr(comp, comp)) {
			memcpy(out, comp, NP_PCI_ADDR_LEN);
			found = true;
		}
	}
	return found;
}

static int dev_compare(const void *a, const void *b)
{
	return strcmp(((const struct np_pci_dev *)a)->addr, ((const struct np_pci_dev *)b)->addr);
}

const struct np_pci_dev *np_pci_find(const struct np_pci *pci, const char *addr)
{
	struct np_pci_dev key;
	if (!np_pci_parse_addr(addr, key.addr))
		return NULL;
	return bsearch(&key, pci->devs, pci->ndevs, sizeof(key), dev_compare);
}

static int add_name(char ***list, size_t *n, const char *name)
{
	char **bigger = realloc(*list, (*n + 1) * sizeof(**list));
	if (!bigger)
		return -ENOMEM;
	*list = bigger;
	if (!(bigger[*n] = strdup(name)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* basename of what the "driver" link below dir resolves to, or NULL: none,
 * or dangling (as libpci, which names no driver then). Resolved rather than
 * read and checked: three system calls, not five. */
static char *driver_of(struct np_ctx *ctx, const char *dir, const char *child)
{
	char *target = NULL;
	if (np_resolve(ctx, &target, "/sys/bus/pci/devices/%s%s%s/driver", dir, child ? "/" : "",
		       child ? child : "")) {
		ctx->err[0] = '\0';
		return NULL;
	}
	char *base = strdup(strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
	free(target);
	return base;
}

/* The files of one function that told nothing (absent where the kernel
 * always writes them, empty, garbled or unreadable), for one note: a dump's
 * capture tool may not have read them all. */
struct partial {
	char names[160];
	char why[sizeof(((struct np_ctx *)0)->err)]; /* ctx->err at the first */
};

/* rc of reading the function's file name: 0 and -ENOMEM go back as they are;
 * anything else makes the file unknown, in p, and reads on. */
static int unknown_file(struct np_ctx *ctx, struct partial *p, int rc, const char *name)
{
	if (rc == 0 || rc == -ENOMEM)
		return rc;
	size_t len = strlen(p->names);
	snprintf(p->names + len, sizeof(p->names) - len, "%s%s", len ? ", " : "", name);
	if (!p->why[0])
		snprintf(p->why, sizeof(p->why), "%s", ctx->err);
	ctx->err[0] = '\0';
	return 0;
}

/* One note per kind of gap (the same files unknown), naming its functions:
 * a copy that lacks irq in 41 functions says so once, not 41 times. The
 * first function's reason stands for the others'. */
static int note_partials(struct np_pci *pci, const struct partial *parts)
{
	for (size_t i = 0; i < pci->ndevs; i++) {
		const struct partial *p = &parts[i];
		bool first = p->names[0];
		for (size_t j = 0; first && j < i; j++)
			first = strcmp(parts[j].names, p->names) != 0;
		if (!first)
			continue;
		char *list = NULL;
		size_t len = 0, count = 0;
		FILE *f = open_memstream(&list, &len);
		if (!f)
			return -ENOMEM;
		for (size_t j = i; j < pci->ndevs; j++)
			if (!strcmp(parts[j].names, p->names) && count++ < 8)
				fprintf(f, "%s%s", count > 1 ? ", " : "", pci->devs[j].addr);
		if (count > 8)
			fprintf(f, " and %zu more", count - 8);
		if (fclose(f) || !list) {
			free(list);
			return -ENOMEM;
		}
		char **more = realloc(pci->notes, (pci->nnotes + 1) * sizeof(*more));
		int n = more ? asprintf(&more[pci->nnotes], "PCI function%s %s: %s unknown (%s%s); listed with what is known",
					count > 1 ? "s" : "", list, p->names, p->why, count > 1 ? ", and so for the others" : "")
			     : -1;
		free(list);
		if (!more)
			return -ENOMEM;
		pci->notes = more;
		if (n < 0)
			return -ENOMEM;
		pci->nnotes++;
	}
	return 0;
}

static int read_function(struct np_ctx *ctx, struct np_pci_dev *d, struct partial *p)
{
	int rc = np_read_cpulist(ctx, &d->local_cpus, "/sys/bus/pci/devices/%s/local_cpulist", d->addr);
	if (rc == -ENOENT)
		rc = np_read_cpumask(ctx, &d->local_cpus, "/sys/bus/pci/devices/%s/local_cpus", d->addr);
	if (rc && rc != -ENOENT && (rc = unknown_file(ctx, p, rc, "local_cpulist")))
		return rc;

	char **names;
	size_t n;
	rc = np_list_dir(ctx, &names, &n, "/sys/bus/pci/devices/%s/msi_irqs", d->addr);
	if (rc == 0) {
		d->msi_irqs = calloc(n + 1, sizeof(int));
		for (size_t i = 0; d->msi_irqs && i < n; i++)
			if (isdigit((unsigned char)names[i][0]))
				d->msi_irqs[d->nmsi++] = atoi(names[i]);
		np_names_free(names, n);
		if (!d->msi_irqs)
			return -ENOMEM;
	} else if (rc != -ENOENT && (rc = unknown_file(ctx, p, rc, "msi_irqs"))) {
		return rc;
	}

	/* Controller names the kernel puts in interrupt names: virtioN, nvmeN. */
	rc = np_list_dir(ctx, &names, &n, "/sys/bus/pci/devices/%s", d->addr);
	if (rc)
		return unknown_file(ctx, p, rc, "its directory");
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (!strncmp(names[i], "virtio", 6) && isdigit((unsigned char)names[i][6])) {
			rc = add_name(&d->aliases, &d->naliases, names[i]);
			if (!d->child_driver)
				d->child_driver = driver_of(ctx, d->addr, names[i]);
		}
	}
	np_names_free(names, n);
	if (rc)
		return rc;
	rc = np_list_dir(ctx, &names, &n, "/sys/bus/pci/devices/%s/nvme", d->addr);
	if (rc == 0) {
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = add_name(&d->aliases, &d->naliases, names[i]);
		np_names_free(names, n);
	}
	return rc == -ENOENT ? 0 : rc;
}

/* A hexadecimal ID file ("0x8086", "0x020000"), read through the root-aware
 * layer as libpci would read it by path. */
static int read_hex(struct np_ctx *ctx, const char *addr, const char *name, unsigned *out)
{
	char *text, *end, ex[44];
	int rc = np_read_text(ctx, &text, "/sys/bus/pci/devices/%s/%s", addr, name);
	if (rc)
		return rc;
	errno = 0;
	unsigned long v = strtoul(text, &end, 16);
	if (end == text || *end || errno || v > 0xffffff || text[0] == '-') {
		char path[PATH_MAX];
		np_sysfs_path(ctx, path, "/sys/bus/pci/devices/%s/%s", addr, name);
		rc = np_fail(ctx, -EINVAL, "'%s': expected a hexadecimal ID, found '%s'", path,
			     np_excerpt(text, ex, sizeof(ex)));
	}
	free(text);
	*out = (unsigned)v;
	return rc;
}

/* What libpci's sysfs access fills for PCI_FILL_IDENT, _CLASS, _IRQ and
 * _NUMA_NODE, from the same files, but resolved inside the root: libpci
 * opens them by path, and a link in a copied tree would lead it out. */
static int read_ids(struct np_ctx *ctx, struct np_pci_dev *d, struct partial *p)
{
	unsigned cls = NP_PCI_CLASS_UNKNOWN << 8;
	long long v = 0;
	int rc;
	/* An unknown ID reads as the all-ones a missing register gives. */
	d->vendor_id = d->device_id = NP_PCI_ID_UNKNOWN;
	if ((rc = unknown_file(ctx, p, read_hex(ctx, d->addr, "vendor", &d->vendor_id), "vendor")) ||
	    (rc = unknown_file(ctx, p, read_hex(ctx, d->addr, "device", &d->device_id), "device")) ||
	    (rc = unknown_file(ctx, p, read_hex(ctx, d->addr, "class", &cls), "class")))
		return rc;
	d->class_id = cls >> 8; /* the programming interface is not kept */
	if ((rc = unknown_file(ctx, p, np_read_int(ctx, &v, "/sys/bus/pci/devices/%s/irq", d->addr), "irq")))
		return rc;
	d->legacy_irq = v >= 0 && v <= INT_MAX ? (int)v : 0;
	/* Absent on kernels without NUMA: unknown, and nothing to say. */
	rc = np_read_int(ctx, &v, "/sys/bus/pci/devices/%s/numa_node", d->addr);
	if (rc && rc != -ENOENT && (rc = unknown_file(ctx, p, rc, "numa_node")))
		return rc;
	d->numa_node = rc == 0 && v >= 0 && v <= INT_MAX ? (int)v : -1;
	d->driver = driver_of(ctx, d->addr, NULL);
	return 0;
}

static int scan_functions(struct np_ctx *ctx, struct np_pci *out)
{
	char **names;
	size_t n;
	int rc = np_list_dir(ctx, &names, &n, "/sys/bus/pci/devices");
	if (rc)
		return rc;
	if (!(out->devs = calloc(n + 1, sizeof(*out->devs)))) {
		np_names_free(names, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct np_pci_dev *d = &out->devs[out->ndevs];
		/* Only the kernel's full form: an entry that is no address is no function. */
		if (strlen(names[i]) != NP_PCI_ADDR_LEN - 1 || !np_pci_parse_addr(names[i], d->addr))
			continue;
		out->ndevs++;
	}
	np_names_free(names, n);
	if (rc == 0)
		qsort(out->devs, out->ndevs, sizeof(*out->devs), dev_compare);
	return rc;
}

/* Ties each entry of /sys/class/net or /sys/block to the PCI function its
 * device path goes through, and returns the owners' indexes (-1: none). */
static int owners(struct np_ctx *ctx, const struct np_pci *pci, const char *dir, char **names, size_t n,
		  int *owner)
{
	for (size_t i = 0; i < n; i++) {
		char addr[NP_PCI_ADDR_LEN], *real = NULL;
		const struct np_pci_dev *d = NULL;
		/* One that does not resolve (a dangling link) has no owner. */
		if (np_resolve(ctx, &real, "%s/%s", dir, names[i]) == 0 && pci_ancestor(real, addr))
			d = np_pci_find(pci, addr);
		free(real);
		owner[i] = d ? (int)(d - pci->devs) : -1;
	}
	return 0;
}

/* NVMe multipath puts nvmeXnY under a virtual subsystem; its controller nvmeX
 * still names the function. */
static int nvme_owner(const struct np_pci *pci, const char *block)
{
	int ctrl, ns, len = 0;
	if (sscanf(block, "nvme%dn%d%n", &ctrl, &ns, &len) != 2 || block[len])
		return -1;
	char alias[32];
	snprintf(alias, sizeof(alias), "nvme%d", ctrl);
	for (size_t i = 0; i < pci->ndevs; i++)
		for (size_t a = 0; a < pci->devs[i].naliases; a++)
			if (!strcmp(pci->devs[i].aliases[a], alias))
				return (int)i;
	return -1;
}

/* A copy without /sys/class/net or /sys/block (a running kernel has both)
 * while functions of their class have a driver: what hangs below those is
 * unknown, said once, not taken for none. */
static int note_no_children(struct np_pci *pci, bool block)
{
	size_t count = 0;
	const char *first = NULL;
	for (size_t i = 0; i < pci->ndevs; i++)
		if (pci->devs[i].driver && pci->devs[i].class_id >> 8 == (block ? 0x01u : 0x02u) && !count++)
			first = pci->devs[i].addr;
	if (!count)
		return 0;
	char note[320];
	const char *s = count == 1 ? "" : "s", *more = count == 1 ? "" : ", ...";
	if (block)
		snprintf(note, sizeof(note), "block devices unknown: there is no /sys/block here (a partial copy): "
			 "the disks of %zu storage controller%s (%s%s) and their rq_affinity are not read",
			 count, s, first, more);
	else
		snprintf(note, sizeof(note), "network interfaces unknown: there is no /sys/class/net here (a partial "
			 "copy): the interfaces of %zu network controller%s (%s%s), their queues, RPS and XPS are "
			 "not read", count, s, first, more);
	return add_name(&pci->notes, &pci->nnotes, note);
}

static int attach_children(struct np_ctx *ctx, struct np_pci *pci, bool block)
{
	const char *dir = block ? "/sys/block" : "/sys/class/net";
	char **names;
	size_t n;
	int rc = np_list_dir(ctx, &names, &n, "%s", dir);
	if (rc == -ENOENT) {
		ctx->err[0] = '\0';
		return note_no_children(pci, block);
	}
	if (rc)
		return rc;
	int *owner = calloc(n + 1, sizeof(int));
	rc = owner ? owners(ctx, pci, dir, names, n, owner) : -ENOMEM;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (owner[i] < 0 && block)
			owner[i] = nvme_owner(pci, names[i]);
		if (owner[i] < 0)
			continue;
		struct np_pci_dev *d = &pci->devs[owner[i]];
		if (block) {
			struct np_blockdev *more = realloc(d->block, (d->nblock + 1) * sizeof(*more));
			if (!more) {
				rc = -ENOMEM;
				break;
			}
			d->block = more;
			rc = np_block_read(ctx, names[i], &d->block[d->nblock++]);
		} else {
			struct np_netif *more = realloc(d->net, (d->nnet + 1) * sizeof(*more));
			if (!more) {
				rc = -ENOMEM;
				break;
			}
			d->net = more;
			rc = np_net_read(ctx, names[i], &d->net[d->nnet++]);
		}
	}
	free(owner);
	np_names_free(names, n);
	return rc;
}

int np_pci_scan(struct np_ctx *ctx, struct np_pci *out)
{
	memset(out, 0, sizeof(*out));
	if (!np_sysfs_exists(ctx, "/sys/bus/pci/devices"))
		return 0;
	int rc = scan_functions(ctx, out);
	struct partial *parts = rc == 0 ? calloc(out->ndevs + 1, sizeof(*parts)) : NULL;
	if (rc == 0 && !parts)
		rc = -ENOMEM;
	for (size_t i = 0; i < out->ndevs && rc == 0; i++) {
		struct partial *p = &parts[i];
		if ((rc = read_ids(ctx, &out->devs[i], p)) || (rc = read_function(ctx, &out->devs[i], p)))
			break;
		/* A link to nothing (a copy that left the function's directory out):
		 * one note for that, not one for each file it then lacks. Asked only
		 * of a function that lacks some: a system call less for the others. */
		if (p->names[0] && !np_sysfs_exists(ctx, "/sys/bus/pci/devices/%s/.", out->devs[i].addr)) {
			snprintf(p->names, sizeof(p->names), "everything but its address");
			snprintf(p->why, sizeof(p->why), "its link in /sys/bus/pci/devices leads nowhere: a partial copy");
		}
	}
	if (rc == 0)
		rc = note_partials(out, parts);
	free(parts);
	if (rc == 0)
		rc = attach_children(ctx, out, false);
	if (rc == 0)
		rc = attach_children(ctx, out, true);
	if (rc == -ENOMEM && !ctx->err[0])
		np_fail(ctx, rc, "reading PCI devices: %s", strerror(ENOMEM));
	if (rc)
		np_pci_free(out);
	return rc;
}

void np_pci_free(struct np_pci *pci)
{
	for (size_t i = 0; i < pci->ndevs; i++) {
		struct np_pci_dev *d = &pci->devs[i];
		free(d->vendor);
		free(d->device);
		free(d->class_name);
		free(d->driver);
		free(d->child_driver);
		np_cpuset_free(&d->local_cpus);
		free(d->msi_irqs);
		for (size_t j = 0; j < d->nnet; j++)
			np_netif_free(&d->net[j]);
		free(d->net);
		for (size_t j = 0; j < d->nblock; j++)
			np_blockdev_free(&d->block[j]);
		free(d->block);
		for (size_t j = 0; j < d->naliases; j++)
			free(d->aliases[j]);
		free(d->aliases);
	}
	free(pci->devs);
	for (size_t i = 0; i < pci->nnotes; i++)
		free(pci->notes[i]);
	free(pci->notes);
	memset(pci, 0, sizeof(*pci));
}

bool np_pci_dev_matters(const struct np_pci_dev *dev, bool has_irqs)
{
	switch (dev->class_id >> 8) {
	case 0x01: /* storage */
	case 0x02: /* network */
	case 0x03: /* display */
	case 0x0b: /* processors, co-processors */
	case 0x12: /* processing accelerators */
		return true;
	case 0x06: /* bridges: their IRQs are PCIe port events */
	case 0x08: /* system peripherals */
		return false;
	}
	return has_irqs || dev->nmsi > 0 || dev->nnet > 0 || dev->nblock > 0;
}

bool np_pci_dev_match(const struct np_pci_dev *dev, const char *filter)
{
	char addr[NP_PCI_ADDR_LEN];
	if (np_pci_parse_addr(filter, addr))
		return !strcmp(addr, dev->addr);
	if ((dev->driver && !strcmp(dev->driver, filter)) ||
	    (dev->child_driver && !strcmp(dev->child_driver, filter)))
		return true;
	for (size_t i = 0; i < dev->nnet; i++)
		if (!strcmp(dev->net[i].name, filter))
			return true;
	for (size_t i = 0; i < dev->nblock; i++)
		if (!strcmp(dev->block[i].name, filter))
			return true;
	return false;
}
