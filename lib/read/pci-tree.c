/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/pci-tree.h"

#include <errno.h>
#include <fcntl.h>
#include <pci/header.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/sysfs.h"

/* A chain of bridges deeper than this is a crafted tree (PCIe allows 256
 * buses in all); it also stops a cycle of paths. */
#define MAX_DEPTH 64

static unsigned get16(const unsigned char *cfg, size_t pos)
{
	return cfg[pos] | (unsigned)cfg[pos + 1] << 8;
}

static uint32_t get32(const unsigned char *cfg, size_t pos)
{
	return get16(cfg, pos) | (uint32_t)get16(cfg, pos + 2) << 16;
}

/* Config space as sysfs gives it: 4096 bytes to root on PCIe, 256 on
 * conventional PCI, the first 64 to anyone else (no capabilities). The
 * layout is libpci's (pci/header.h); the bytes come through the root-aware
 * layer, since libpci's own access methods open sysfs by absolute path. */
void np_pci_config_decode(const unsigned char *cfg, size_t len, int *port_type, int *acs_redirect)
{
	*port_type = NP_PORT_UNKNOWN;
	*acs_redirect = -1;
	if (len < PCI_CAPABILITY_LIST + 1 || !(get16(cfg, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return;
	size_t pos = cfg[PCI_CAPABILITY_LIST] & ~3u;
	for (int n = 0; n < 48 && pos >= 0x40 && pos + 4 <= len; n++) {
		if (cfg[pos + PCI_CAP_LIST_ID] == PCI_CAP_ID_EXP) {
			*port_type = (int)((get16(cfg, pos + PCI_EXP_FLAGS) & PCI_EXP_FLAGS_TYPE) >> 4);
			break;
		}
		pos = cfg[pos + PCI_CAP_LIST_NEXT] & ~3u;
	}
	if (len < 0x100) /* cut off before the extended space: unknown */
		return;
	*acs_redirect = 0; /* conventional PCI (256 bytes) has no ACS */
	pos = 0x100;
	for (int n = 0; n < 480 && pos >= 0x100 && pos + 8 <= len; n++) {
		uint32_t header = get32(cfg, pos);
		if (header == 0 || header == 0xffffffff)
			break;
		if ((header & 0xffff) == PCI_EXT_CAP_ID_ACS) {
			*acs_redirect = (get16(cfg, pos + PCI_ACS_CTRL) & PCI_ACS_CTRL_REQ_RED) != 0;
			break;
		}
		pos = (header >> 20) & 0xffc;
	}
}

/* The root bus ("pci0000:15", the first component below /sys/devices) and
 * the parent function (the PCI address before the last component) of a
 * function's real path. */
static void place(const struct np_pci *pci, const char *real, struct np_pcinode *node, size_t self)
{
	static const char devices[] = "/sys/devices/";
	node->parent = -1;
	if (!strncmp(real, devices, sizeof(devices) - 1)) {
		const char *root = real + sizeof(devices) - 1;
		size_t len = strcspn(root, "/");
		if (len < sizeof(node->root)) {
			memcpy(node->root, root, len);
			node->root[len] = '\0';
		}
	}
	const char *last = strrchr(real, '/');
	if (!last || last == real)
		return;
	const char *prev = last - 1;
	while (prev > real && *prev != '/')
		prev--;
	char addr[NP_PCI_ADDR_LEN];
	size_t len = (size_t)(last - prev - 1);
	if (len != NP_PCI_ADDR_LEN - 1)
		return;
	memcpy(addr, prev + 1, len);
	addr[len] = '\0';
	const struct np_pci_dev *p = np_pci_find(pci, addr);
	if (p && (size_t)(p - pci->devs) != self)
		node->parent = (int)(p - pci->devs);
}

static bool is_bridge(const struct np_pci_dev *d)
{
	return d->class_id == 0x0604 || d->class_id == 0x0609;
}

/* Config space is binary (the text reads refuse NULs): opened through the
 * root-aware layer, as they open, and read up to its 4096 bytes. */
static int read_config_bytes(struct np_ctx *ctx, const char *addr, unsigned char *buf, size_t cap, size_t *len)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", addr);
	int fd = np_open(ctx, path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	int rc = fstat(fd, &st) ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
	*len = 0;
	while (rc == 0 && *len < cap) {
		ssize_t n = read(fd, buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		else if (n == 0)
			break;
		else
			*len += (size_t)n;
	}
	close(fd);
	return rc;
}

static void read_config(struct np_ctx *ctx, const struct np_pci_dev *d, struct np_pcinode *node)
{
	unsigned char cfg[4096];
	size_t len = 0;
	/* Unreadable (no root, a partial copy, not a file): the path's shape says the rest. */
	if (read_config_bytes(ctx, d->addr, cfg, sizeof(cfg), &len) == 0)
		np_pci_config_decode(cfg, len, &node->port_type, &node->acs_redirect);
	node->port_from_config = node->port_type != NP_PORT_UNKNOWN;
}

static int read_rdma(struct np_ctx *ctx, const struct np_pci_dev *d, struct np_pcinode *node)
{
	int rc = np_list_dir(ctx, &node->rdma, &node->nrdma, "/sys/bus/pci/devices/%s/infiniband", d->addr);
	if (rc == -ENOENT || rc == -ENOTDIR) {
		node->rdma = NULL;
		node->nrdma = 0;
		return 0;
	}
	return rc;
}

/* The path's shape, for a bridge whose config space does not say: one on a
 * root bus is a root port; below a root or downstream port comes a switch's
 * upstream port, below an upstream port its downstream ports. */
static int shape_type(struct np_pcitree *t, const struct np_pci *pci, size_t i, int depth)
{
	struct np_pcinode *node = &t->v[i];
	if (!is_bridge(&pci->devs[i]) || node->port_from_config || depth > MAX_DEPTH)
		return node->port_type;
	if (node->port_type != NP_PORT_UNKNOWN)
		return node->port_type; /* already shaped */
	if (node->parent < 0)
		return node->port_type = PCI_EXP_TYPE_ROOT_PORT;
	int up = shape_type(t, pci, (size_t)node->parent, depth + 1);
	if (up == PCI_EXP_TYPE_ROOT_PORT || up == PCI_EXP_TYPE_DOWNSTREAM)
		node->port_type = PCI_EXP_TYPE_UPSTREAM;
	else if (up == PCI_EXP_TYPE_UPSTREAM)
		node->port_type = PCI_EXP_TYPE_DOWNSTREAM;
	return node->port_type;
}

int np_pcitree_read(struct np_ctx *ctx, const struct np_pci *pci, struct np_pcitree *out)
{
	memset(out, 0, sizeof(*out));
	if (!(out->v = calloc(pci->ndevs + 1, sizeof(*out->v))))
		return np_fail(ctx, -ENOMEM, "reading the PCI tree: %s", strerror(ENOMEM));
	out->n = pci->ndevs;
	int rc = 0;
	for (size_t i = 0; i < pci->ndevs && rc == 0; i++) {
		const struct np_pci_dev *d = &pci->devs[i];
		struct np_pcinode *node = &out->v[i];
		char *real = NULL;
		node->port_type = NP_PORT_UNKNOWN;
		node->acs_redirect = -1;
		node->parent = -1;
		rc = np_resolve(ctx, &real, "/sys/bus/pci/devices/%s", d->addr);
		if (rc == -ENOENT) {
			/* The note np_pci_scan made says so; here it is off the tree. */
			out->nunplaced++;
			ctx->err[0] = '\0';
			rc = 0;
			continue;
		}
		if (rc == 0)
			place(pci, real, node, i);
		free(real);
		if (rc == 0 && is_bridge(d))
			read_config(ctx, d, node);
		if (rc == 0)
			rc = read_rdma(ctx, d, node);
	}
	for (size_t i = 0; i < pci->ndevs && rc == 0; i++) {
		if (!is_bridge(&pci->devs[i]))
			continue;
		shape_type(out, pci, i, 0);
		if (out->v[i].port_from_config)
			out->nconfig++;
		else
			out->npath++;
		if (out->v[i].port_type == PCI_EXP_TYPE_DOWNSTREAM && out->v[i].acs_redirect < 0)
			out->nacs_unknown++;
	}
	if (rc) {
		if (rc == -ENOMEM && !ctx->err[0])
			np_fail(ctx, rc, "reading the PCI tree: %s", strerror(ENOMEM));
		np_pcitree_free(out);
	}
	return rc;
}

void np_pcitree_free(struct np_pcitree *t)
{
	for (size_t i = 0; t->v && i < t->n; i++)
		np_names_free(t->v[i].rdma, t->v[i].nrdma);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* The bridges above i, nearest first; returns how many (at most MAX_DEPTH). */
static size_t ancestors(const struct np_pcitree *t, size_t i, int *out)
{
	size_t n = 0;
	for (int p = t->v[i].parent; p >= 0 && n < MAX_DEPTH; p = t->v[p].parent)
		out[n++] = p;
	return n;
}

struct np_pcilink np_pcitree_link(const struct np_pcitree *t, size_t a, size_t b, int node_a, int node_b)
{
	struct np_pcilink link = { .type = NP_LINK_X, .acs_redirect = 0 };
	if (a == b)
		return link;
	if (strcmp(t->v[a].root, t->v[b].root) || !t->v[a].root[0]) {
		link.node_unknown = node_a < 0 || node_b < 0;
		link.type = !link.node_unknown && node_a == node_b ? NP_LINK_NODE : NP_LINK_SYS;
		return link;
	}
	int up_a[MAX_DEPTH], up_b[MAX_DEPTH];
	size_t na = ancestors(t, a, up_a), nb = ancestors(t, b, up_b), ia, ib = 0;
	for (ia = 0; ia < na; ia++) {
		for (ib = 0; ib < nb && up_b[ib] != up_a[ia]; ib++)
			;
		if (ib < nb)
			break;
	}
	if (ia == na) {
		link.type = NP_LINK_PHB;
		return link;
	}
	/* Switches crossed on each side: the common bridge's own when it is an
	 * upstream port, and each upstream port below it. */
	int lca = up_a[ia], switches = t->v[lca].port_type == PCI_EXP_TYPE_UPSTREAM, most = 0;
	const int *sides[2] = { up_a, up_b };
	size_t below[2] = { ia, ib };
	for (int s = 0; s < 2; s++) {
		int n = switches;
		for (size_t k = 0; k < below[s]; k++) {
			const struct np_pcinode *port = &t->v[sides[s][k]];
			n += port->port_type == PCI_EXP_TYPE_UPSTREAM;
			if (port->port_type == PCI_EXP_TYPE_DOWNSTREAM || port->port_type == PCI_EXP_TYPE_ROOT_PORT) {
				if (port->acs_redirect > 0)
					link.acs_redirect = 1;
				else if (port->acs_redirect < 0 && link.acs_redirect == 0)
					link.acs_redirect = -1;
			}
		}
		if (n > most)
			most = n;
	}
	link.type = most <= 1 ? NP_LINK_PIX : NP_LINK_PXB;
	return link;
}

const char *np_link_name(enum np_link link)
{
	static const char *const names[] = { "X", "PIX", "PXB", "PHB", "NODE", "SYS" };
	return (unsigned)link < sizeof(names) / sizeof(names[0]) ? names[link] : "?";
}
