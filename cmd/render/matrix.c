/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PCIe proximity: devices --matrix (the link between every two selected
 * functions, as nvidia-smi topo -m prints it for every vendor) and devices
 * --near (the others, nearest first). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/cpuset-names.h"
#include "read/machine.h"
#include "read/pci-class.h"
#include "read/pci-tree.h"
#include "render/render.h"
#include "render/term.h"

/* What each link costs, in the words of the legend (the man page says more). */
static const char *const link_meaning[] = {
	[NP_LINK_X] = "the same device",
	[NP_LINK_PIX] = "through at most one PCIe switch: peer-to-peer stays below the root complex",
	[NP_LINK_PXB] = "through several PCIe switches, not the host bridge",
	[NP_LINK_PHB] = "through the PCIe host bridge (the CPU's root complex)",
	[NP_LINK_NODE] = "across root complexes of one NUMA node (the CPU's internal fabric)",
	[NP_LINK_SYS] = "across NUMA nodes (the SMP interconnect), or a node is unknown",
};

static int node_of(const struct np_machine *m, size_t i)
{
	bool inferred;
	return np_device_node(m, &m->pci.devs[i], &inferred);
}

static struct np_pcilink link_of(const struct np_machine *m, const struct np_pcitree *t, size_t a, size_t b)
{
	return np_pcitree_link(t, a, b, node_of(m, a), node_of(m, b));
}

/* Each selected device's label (np_pci_label), for the matrix's rows and columns. */
static char **labels_new(const struct np_machine *m, const bool *selected)
{
	char **labels = calloc(m->pci.ndevs + 1, sizeof(*labels));
	for (size_t i = 0; labels && i < m->pci.ndevs; i++) {
		char label[32];
		np_pci_label(&m->pci, i, label, sizeof(label));
		if (selected[i])
			labels[i] = strdup(label);
	}
	return labels;
}

static void labels_free(char **labels, size_t n)
{
	for (size_t i = 0; labels && i < n; i++)
		free(labels[i]);
	free(labels);
}

/* Names joined by commas ("mlx5_0,mlx5_1"); NULL when none. */
struct names {
	FILE *f;
	char *text;
	size_t len, n;
};

static void names_add(struct names *ns, const char *name)
{
	if (!ns->f && !(ns->f = open_memstream(&ns->text, &ns->len)))
		return;
	fprintf(ns->f, "%s%s", ns->n++ ? "," : "", name);
}

static char *names_end(struct names *ns)
{
	if (ns->f)
		fclose(ns->f);
	return ns->text;
}

static char *netdevs(const struct np_pci_dev *d)
{
	struct names ns = { 0 };
	for (size_t i = 0; i < d->nnet; i++)
		names_add(&ns, d->net[i].name);
	return names_end(&ns);
}

static char *blockdevs(const struct np_pci_dev *d)
{
	struct names ns = { 0 };
	for (size_t i = 0; i < d->nblock; i++)
		names_add(&ns, d->block[i].name);
	return names_end(&ns);
}

static char *rdmadevs(const struct np_pcinode *node)
{
	struct names ns = { 0 };
	for (size_t i = 0; i < node->nrdma; i++)
		names_add(&ns, node->rdma[i]);
	return names_end(&ns);
}

static size_t count_selected(const struct np_machine *m, const bool *selected, const char *kind)
{
	size_t n = 0;
	for (size_t i = 0; i < m->pci.ndevs; i++)
		n += selected[i] && (!kind || !strcmp(np_pci_kind_name(&m->pci.devs[i]), kind));
	return n;
}

/* Prose below the matrix, wrapped to the terminal (80 columns without one). */
static void say(FILE *out, int indent, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(FILE *out, int indent, const char *fmt, ...)
{
	va_list ap;
	char *text;
	va_start(ap, fmt);
	int n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	int width = np_output_width(fileno(out));
	np_print_wrapped(out, text, width > 0 ? width : 80, 0, indent);
	free(text);
}

static void print_port_types(const struct np_pcitree *t, FILE *out)
{
	if (t->nconfig && !t->npath)
		say(out, 4, "Switch ports: the PCIe port types from the config space (%zu bridges).", t->nconfig);
	else if (t->npath && !t->nconfig)
		say(out, 4, "Switch ports: the config space shows no PCIe port type (it is cut short for a reader "
			    "without root, and in such a copy), so the path's shape says it (%zu bridges).", t->npath);
	else if (t->npath)
		say(out, 4, "Switch ports: the PCIe port types from the config space (%zu bridges), from the path's "
			    "shape where it is not readable (%zu bridges).", t->nconfig, t->npath);
}

static void print_notes(const struct np_machine *m, const struct np_pcitree *t, const bool *selected, bool acs_marked,
			bool acs_unknown, FILE *out)
{
	print_port_types(t, out);
	if (acs_marked)
		say(out, 3, "*: ACS P2P Request Redirect is on at a switch port between them: their peer-to-peer "
			    "traffic is sent up through the root complex, as PHB.");
	if (acs_unknown)
		say(out, 4, "ACS: the control register of %zu downstream ports is not readable: a PIX or PXB "
			    "link may still go through the root complex.", t->nacs_unknown);
	if (t->nunplaced)
		say(out, 4, "Unplaced: %zu function%s whose link in /sys/bus/pci/devices leads nowhere (a partial copy): "
			    "no place in the PCI tree, so %s links read NODE or SYS by node.", t->nunplaced,
		    t->nunplaced == 1 ? "" : "s", t->nunplaced == 1 ? "its" : "their");
	if (count_selected(m, selected, "gpu") > 1)
		say(out, 4, "GPU-GPU links are PCIe only: NVLink, NVSwitch, Infinity Fabric and other vendor "
			    "fabrics are not in sysfs (ask the vendor's tool: nvidia-smi topo -m, rocm-smi --showtopo).");
	for (size_t i = 0; i < m->pci.ndevs; i++)
		if (selected[i] && node_of(m, i) < 0)
			say(out, 4, "%s: NUMA node unknown (numa_node %d): its links to other root complexes read SYS.",
			    m->pci.devs[i].addr, m->pci.devs[i].numa_node);
}

/* One block of the matrix: the columns from..to-1 of ncols (the devices,
 * then NUMA and LOCAL CPUS), each widths[k] wide. */
static void print_block(FILE *out, char **labels, const size_t *dev, size_t n, char ***cells, const char *const *headers,
			const int *widths, int lw, size_t from, size_t to)
{
	fprintf(out, "%-*s", lw + 2, "");
	for (size_t k = from; k < to; k++)
		fprintf(out, "%-*s", k + 1 < to ? widths[k] : 0, headers[k]);
	fputc('\n', out);
	for (size_t r = 0; r < n; r++) {
		fprintf(out, "%-*s", lw + 2, labels[dev[r]]);
		for (size_t k = from; k < to; k++)
			fprintf(out, "%-*s", k + 1 < to ? widths[k] : 0, cells[r][k]);
		fputc('\n', out);
	}
}

int np_matrix_print(const struct np_machine *m, const struct np_pcitree *t, const bool *selected, FILE *out)
{
	size_t n = count_selected(m, selected, NULL);
	if (n == 0) {
		fputs("no devices\n", out);
		return EXIT_OK;
	}
	char **labels = labels_new(m, selected);
	size_t ncols = n + 2, *dev = calloc(n, sizeof(*dev));
	char ***cells = calloc(n, sizeof(*cells));
	const char **headers = calloc(ncols, sizeof(*headers));
	int *widths = calloc(ncols, sizeof(*widths));
	bool ok = labels && dev && cells && headers && widths;
	int lw = 4;
	for (size_t i = 0, r = 0; ok && i < m->pci.ndevs; i++) {
		if (!selected[i])
			continue;
		if (!labels[i] || !(cells[r] = calloc(ncols, sizeof(**cells))))
			ok = false;
		else if ((int)strlen(labels[i]) > lw)
			lw = (int)strlen(labels[i]);
		dev[r++] = i;
	}
	bool acs_marked = false, acs_unknown = false;
	/* Each device's column is its label's width and two; on a terminal too
	 * narrow for that, one, and the columns go on in blocks below. */
	int cw = lw + 2 > 6 ? lw + 2 : 6, narrow = 0;
	for (size_t r = 0; ok && r < n; r++) {
		size_t i = dev[r];
		for (size_t c = 0; ok && c < n; c++) {
			struct np_pcilink l = link_of(m, t, i, dev[c]);
			bool pix = l.type == NP_LINK_PIX || l.type == NP_LINK_PXB;
			acs_marked |= pix && l.acs_redirect > 0;
			acs_unknown |= pix && l.acs_redirect < 0;
			ok = asprintf(&cells[r][c], "%s%s", np_link_name(l.type), pix && l.acs_redirect > 0 ? "*" : "") >= 0;
			if (!ok)
				cells[r][c] = NULL;
			else if ((int)strlen(cells[r][c]) > narrow)
				narrow = (int)strlen(cells[r][c]);
		}
		int node = node_of(m, i);
		char *cpus = np_cpuset_empty(&m->pci.devs[i].local_cpus)
				     ? strdup("-")
				     : np_cpuset_format_short(&m->pci.devs[i].local_cpus, NP_CPUS_TEXT_MAX);
		ok = ok && cpus && asprintf(&cells[r][n], node < 0 ? "?" : "%d", node) >= 0;
		if (!ok)
			free(cpus);
		else
			cells[r][n + 1] = cpus;
	}
	if (ok) {
		for (size_t c = 0; c < n; c++)
			headers[c] = labels[dev[c]];
		headers[n] = "NUMA";
		headers[n + 1] = "LOCAL CPUS";
		widths[n] = 6;
		widths[n + 1] = 10;
		for (size_t r = 0; r < n; r++)
			if ((int)strlen(cells[r][n + 1]) > widths[n + 1])
				widths[n + 1] = (int)strlen(cells[r][n + 1]);
		int term = np_output_width(fileno(out)), total = lw + 2 + widths[n + 1] + widths[n] + (int)n * cw;
		if (term > 0 && total > term)
			cw = (narrow > lw ? narrow : lw) + 1;
		for (size_t c = 0; c < n; c++)
			widths[c] = cw;
		/* Blocks of as many columns as fit (one at least). */
		for (size_t from = 0; from < ncols;) {
			size_t to = from + 1;
			int used = lw + 2 + widths[from];
			while (to < ncols && (term <= 0 || used + widths[to] <= term))
				used += widths[to++];
			if (from)
				fputc('\n', out);
			print_block(out, labels, dev, n, cells, headers, widths, lw, from, to);
			from = to;
		}
	}
	for (size_t r = 0; cells && r < n; r++) {
		for (size_t c = 0; cells[r] && c < ncols; c++)
			free(cells[r][c]);
		free(cells[r]);
	}
	free(cells);
	free(dev);
	free(headers);
	free(widths);
	if (!ok) {
		labels_free(labels, m->pci.ndevs);
		return np_error("%s", strerror(ENOMEM));
	}
	fputc('\n', out);
	for (size_t i = 0; i < m->pci.ndevs; i++) {
		if (!selected[i])
			continue;
		const struct np_pci_dev *d = &m->pci.devs[i];
		char *nets = netdevs(d), *rdma = rdmadevs(&t->v[i]), *blocks = blockdevs(d);
		char *line;
		if (asprintf(&line, "%-*s%s  %s%s%s%s%s%s%s", lw + 2, labels[i], d->addr, d->device ? d->device : "unknown device",
			     rdma ? "  rdma " : "", rdma ? rdma : "", nets ? "  net " : "", nets ? nets : "",
			     blocks ? "  block " : "", blocks ? blocks : "") >= 0) {
			np_print_wrapped(out, line, np_output_width(fileno(out)), 0, lw + 4);
			free(line);
		}
		free(nets);
		free(rdma);
		free(blocks);
	}
	labels_free(labels, m->pci.ndevs);
	fputs("\nLegend:\n", out);
	for (int l = NP_LINK_X; l <= NP_LINK_SYS; l++)
		say(out, 9, "  %-4s = %s", np_link_name((enum np_link)l), link_meaning[l]);
	fputc('\n', out);
	print_notes(m, t, selected, acs_marked, acs_unknown, out);
	return EXIT_OK;
}

/* A link's keys beyond its type: whether ACS sends it up (PIX and PXB only) and
 * whether a vendor fabric the link types cannot see may join the two. */
static void link_extra_write(struct np_jw *jw, const struct np_machine *m, size_t a, size_t b, struct np_pcilink l)
{
	if (l.type == NP_LINK_PIX || l.type == NP_LINK_PXB) {
		if (l.acs_redirect < 0)
			np_jw_null(jw, "acs_redirect");
		else
			np_jw_bool(jw, "acs_redirect", l.acs_redirect > 0);
	}
	if (!strcmp(np_pci_kind_name(&m->pci.devs[a]), "gpu") && !strcmp(np_pci_kind_name(&m->pci.devs[b]), "gpu"))
		np_jw_bool(jw, "pcie_only", true);
	if (l.node_unknown)
		np_jw_bool(jw, "node_unknown", true);
}

static void port_types_write(struct np_jw *jw, const struct np_pcitree *t)
{
	np_jw_object(jw, "port_types");
	np_jw_uint(jw, "config_space", t->nconfig);
	np_jw_uint(jw, "path_shape", t->npath);
	np_jw_close(jw);
}

/* The bridges above device i, the root port first: the tree the links come from. */
static void bridges_write(struct np_jw *jw, const struct np_machine *m, const struct np_pcitree *t, size_t i)
{
	int chain[64];
	size_t n = 0;
	for (int p = t->v[i].parent; p >= 0 && n < sizeof(chain) / sizeof(chain[0]); p = t->v[p].parent)
		chain[n++] = p;
	np_jw_array(jw, "bridges");
	while (n > 0)
		np_jw_str(jw, NULL, m->pci.devs[chain[--n]].addr);
	np_jw_close(jw);
}

void np_matrix_write(struct np_jw *jw, const struct np_machine *m, const struct np_pcitree *t, const bool *selected)
{
	char **labels = labels_new(m, selected);
	np_jw_array(jw, "devices");
	for (size_t i = 0; i < m->pci.ndevs; i++) {
		if (!selected[i])
			continue;
		const struct np_pci_dev *d = &m->pci.devs[i];
		int node = node_of(m, i);
		np_jw_object(jw, NULL);
		np_jw_str(jw, "device", d->addr);
		np_jw_str(jw, "label", labels ? labels[i] : NULL);
		np_jw_str(jw, "kind", np_pci_kind_name(d));
		np_jw_str(jw, "class", d->class_name);
		np_jw_str(jw, "name", d->device);
		if (node >= 0)
			np_jw_int(jw, "node", node);
		else
			np_jw_null(jw, "node");
		np_jw_cpus(jw, "local_cpus", &d->local_cpus, true);
		np_jw_array(jw, "rdma");
		for (size_t r = 0; r < t->v[i].nrdma; r++)
			np_jw_str(jw, NULL, t->v[i].rdma[r]);
		np_jw_close(jw);
		bridges_write(jw, m, t, i);
		np_jw_close(jw);
	}
	np_jw_close(jw);
	labels_free(labels, m->pci.ndevs);
	np_jw_array(jw, "links");
	for (size_t a = 0; a < m->pci.ndevs; a++)
		for (size_t b = a + 1; selected[a] && b < m->pci.ndevs; b++) {
			if (!selected[b])
				continue;
			struct np_pcilink l = link_of(m, t, a, b);
			np_jw_object(jw, NULL);
			np_jw_str(jw, "a", m->pci.devs[a].addr);
			np_jw_str(jw, "b", m->pci.devs[b].addr);
			np_jw_str(jw, "link", np_link_name(l.type));
			link_extra_write(jw, m, a, b, l);
			np_jw_close(jw);
		}
	np_jw_close(jw);
	port_types_write(jw, t);
}

/* ---- --near: one row per other device, nearest first ---- */

struct near_row {
	size_t dev;
	struct np_pcilink link;
	int distance; /* NUMA distance from the device's node; -1 unknown */
};

static const struct np_pci_dev *row_dev(const void *data, const void *row)
{
	return &((const struct np_near *)data)->m->pci.devs[((const struct near_row *)row)->dev];
}

static int get_device(const void *data, const void *row, struct np_value *v)
{
	return np_val_str(v, row_dev(data, row)->addr);
}

static int get_kind(const void *data, const void *row, struct np_value *v)
{
	return np_val_str(v, np_pci_kind_name(row_dev(data, row)));
}

static int get_name(const void *data, const void *row, struct np_value *v)
{
	return np_val_str(v, row_dev(data, row)->device);
}

static int get_class(const void *data, const void *row, struct np_value *v)
{
	return np_val_str(v, row_dev(data, row)->class_name);
}

static int get_link(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, np_link_name(((const struct near_row *)row)->link.type));
}

static int get_acs(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	const struct np_pcilink *l = &((const struct near_row *)row)->link;
	if ((l->type != NP_LINK_PIX && l->type != NP_LINK_PXB) || l->acs_redirect < 0)
		return np_val_null(v);
	return np_val_bool(v, l->acs_redirect > 0);
}

static int get_node(const void *data, const void *row, struct np_value *v)
{
	const struct np_near *near = data;
	int node = node_of(near->m, ((const struct near_row *)row)->dev);
	return node < 0 ? np_val_null(v) : np_val_int(v, node);
}

static int get_distance(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	int d = ((const struct near_row *)row)->distance;
	return d < 0 ? np_val_null(v) : np_val_int(v, d);
}

static int get_netdev(const void *data, const void *row, struct np_value *v)
{
	return np_val_take(v, netdevs(row_dev(data, row)));
}

static int get_rdma(const void *data, const void *row, struct np_value *v)
{
	const struct np_near *near = data;
	return np_val_take(v, rdmadevs(&near->tree->v[((const struct near_row *)row)->dev]));
}

static int get_block(const void *data, const void *row, struct np_value *v)
{
	return np_val_take(v, blockdevs(row_dev(data, row)));
}

static int get_local_cpus(const void *data, const void *row, struct np_value *v)
{
	return np_val_cpus(v, &row_dev(data, row)->local_cpus, true);
}

const struct np_column np_near_columns[] = {
	NP_COLUMN("device", "DEVICE", 12, NP_FL_KEY, "PCI address", get_device),
	NP_COLUMN("kind", "KIND", 7, 0, "gpu, net, nvme, storage or other (the --class it falls in)", get_kind),
	NP_COLUMN("link", "LINK", 4, NP_FL_KEY, "PIX, PXB, PHB, NODE or SYS (numaplace(8): LINK TYPES)", get_link),
	NP_COLUMN("acs", "ACS", 3, 0, "PIX/PXB: ACS P2P Request Redirect sends the traffic up to the root complex",
		  get_acs),
	NP_COLUMN("node", "NODE", 4, SCOLS_FL_RIGHT, "NUMA node (- unknown)", get_node),
	NP_COLUMN("distance", "DIST", 4, SCOLS_FL_RIGHT, "NUMA distance from DEVICE's node (- unknown)", get_distance),
	NP_COLUMN("netdev", "NETDEV", 8, 0, "network interfaces", get_netdev),
	NP_COLUMN("rdma", "RDMA", 7, 0, "RDMA devices (NCCL_IB_HCA, UCX_NET_DEVICES take these)", get_rdma),
	NP_COLUMN("block", "BLOCK", 7, 0, "block devices", get_block),
	NP_COLUMN("local_cpus", "LOCAL CPUS", 10, 0, "the device's local CPUs", get_local_cpus),
	NP_COLUMN("class", "CLASS", 0.2, SCOLS_FL_TRUNC, "PCI class name", get_class),
	NP_COLUMN("name", "NAME", 0.3, SCOLS_FL_TRUNC, "product name", get_name),
	NP_COLUMN_END,
};

static int row_compare(const void *x, const void *y)
{
	const struct near_row *a = x, *b = y;
	if (a->link.type != b->link.type)
		return a->link.type < b->link.type ? -1 : 1;
	unsigned da = (unsigned)a->distance, db = (unsigned)b->distance; /* unknown (-1) last */
	if (da != db)
		return da < db ? -1 : 1;
	return a->dev < b->dev ? -1 : a->dev > b->dev;
}

int np_near_rows(const struct np_near *near, const bool *selected, void **rows, size_t *nrows)
{
	const struct np_machine *m = near->m;
	struct near_row *v = calloc(m->pci.ndevs + 1, sizeof(*v));
	size_t n = 0;
	if (!v)
		return -ENOMEM;
	int from = node_of(m, near->dev);
	for (size_t i = 0; i < m->pci.ndevs; i++) {
		if (!selected[i] || i == near->dev)
			continue;
		int node = node_of(m, i);
		v[n].dev = i;
		v[n].link = link_of(m, near->tree, near->dev, i);
		v[n].distance = from >= 0 && node >= 0 ? np_topology_distance(&m->topo, from, node) : -1;
		n++;
	}
	qsort(v, n, sizeof(*v), row_compare);
	/* What the table cannot show in its cells, said once on stderr (and
	 * in the JSON's "warnings"). */
	const struct np_pcitree *t = near->tree;
	bool acs_unknown = false;
	for (size_t i = 0; i < n; i++)
		acs_unknown |= (v[i].link.type == NP_LINK_PIX || v[i].link.type == NP_LINK_PXB) && v[i].link.acs_redirect < 0;
	if (t->npath)
		np_notef("note: the PCIe port types of %zu bridges come from the path's shape (their config space "
			 "does not show it: cut short without root)", t->npath);
	if (t->nunplaced)
		np_notef("note: %zu PCI function%s whose link in /sys/bus/pci/devices leads nowhere (a partial copy): "
			 "no place in the PCI tree, %s links judged by node", t->nunplaced, t->nunplaced == 1 ? "" : "s",
			 t->nunplaced == 1 ? "its" : "their");
	if (acs_unknown)
		np_notef("note: ACS is not readable on every port between them: a PIX or PXB link may still go "
			 "through the root complex");
	if (from < 0)
		np_notef("note: %s: NUMA node unknown (numa_node %d): its links to other root complexes read SYS",
			 m->pci.devs[near->dev].addr, m->pci.devs[near->dev].numa_node);
	*rows = v;
	*nrows = n;
	return 0;
}

size_t np_near_row_size(void)
{
	return sizeof(struct near_row);
}
