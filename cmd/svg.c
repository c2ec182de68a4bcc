/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report --svg: one picture of the machine. Nodes as boxes with their CPUs
 * and memory, each device under its node, and an arrow from each device to
 * every node its interrupts ran on: width by volume, red when remote. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/cpudesc.h"
#include "../lib/findings.h"
#include "../lib/machine.h"
#include "../lib/quote.h"
#include "cmd.h"

#define NODE_W 280
#define NODE_H 84
#define GAP 40
#define DEV_W 240
#define DEV_H 40
#define DEV_GAP 14
#define TOP 60
#define DEV_TOP (TOP + NODE_H + 150)

/* XML text, from a name's bytes: what would not show (np_escape) first, as
 * \xHH; XML 1.0 has no way at all to carry most control characters. */
static void text_escaped(FILE *out, const char *s)
{
	char buf[256];
	for (s = s ? np_escape(s, buf, sizeof(buf)) : NULL; s && *s; s++) {
		if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '"')
			fputs("&quot;", out);
		else
			fputc(*s, out);
	}
}

static int node_index_of(const struct np_topology *t, int id)
{
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == id)
			return i;
	return -1;
}

int np_report_svg(const struct np_machine *m, const bool *selected, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		return np_error("drawing '%s': %s", path, strerror(errno));
	const struct np_topology *t = &m->topo;
	int nn = t->nnodes > 0 ? t->nnodes : 1;
	/* Devices with interrupts, per node column (unknown node: the last column). */
	size_t nd = m->pci.ndevs;
	int *col = calloc(nd + 1, sizeof(int)), *row = calloc(nd + 1, sizeof(int)), *count = calloc((size_t)nn + 2, sizeof(int));
	unsigned long long *tot = calloc(nd + 1, sizeof(*tot)), *per = calloc((nd + 1) * (size_t)nn, sizeof(*per));
	if (!col || !row || !count || !tot || !per) {
		fclose(out);
		free(text);
		free(col), free(row), free(count), free(tot), free(per);
		return np_error("drawing '%s': out of memory", path);
	}
	unsigned long long max = 1;
	bool unknown = false;
	for (size_t i = 0; i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev < 0 || !selected[irq->dev])
			continue;
		tot[irq->dev] += irq->total;
		for (int n = 0; n < t->nnodes; n++)
			per[(size_t)irq->dev * (size_t)nn + (size_t)n] += irq->per_node[n];
	}
	for (size_t d = 0; d < nd; d++) {
		col[d] = -1;
		if (!selected[d] || !tot[d])
			continue;
		int node = np_device_node(m, &m->pci.devs[d], NULL);
		int c = node >= 0 ? node_index_of(t, node) : -1;
		if (c < 0) {
			c = nn;
			unknown = true;
		}
		col[d] = c;
		row[d] = count[c]++;
		for (int n = 0; n < t->nnodes; n++)
			if (per[d * (size_t)nn + (size_t)n] > max)
				max = per[d * (size_t)nn + (size_t)n];
	}
	int cols = nn + unknown, rows = 0;
	for (int c = 0; c <= nn; c++)
		if (count[c] > rows)
			rows = count[c];
	int width = cols * (NODE_W + GAP) + GAP, height = DEV_TOP + rows * (DEV_H + DEV_GAP) + 60;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		     "font-family=\"DejaVu Sans, Helvetica, sans-serif\" font-size=\"13\">\n",
		width, height, width, height);
	fputs("<title>numaplace: NUMA nodes, devices and where their interrupts ran</title>\n"
	      "<defs>\n"
	      " <marker id=\"head-remote\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"14\" markerHeight=\"14\" orient=\"auto\">"
	      "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#d62728\"/></marker>\n"
	      " <marker id=\"head-local\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"14\" markerHeight=\"14\" orient=\"auto\">"
	      "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#2ca02c\"/></marker>\n"
	      "</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", out);
	fprintf(out, "<text x=\"%d\" y=\"30\" font-size=\"16\" font-weight=\"bold\">Interrupts by node: "
		     "arrows from each device to the nodes that ran them (width: volume; red: remote)</text>\n", GAP);

	for (int i = 0; i < t->nnodes; i++) {
		const struct np_node *n = &t->nodes[i];
		int x = GAP + i * (NODE_W + GAP);
		char *cpus = np_cpuset_format_short(&n->cpus, 30);
		fprintf(out, "<g class=\"node\" data-node=\"%d\">\n <rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"8\" "
			     "fill=\"#eef3fb\" stroke=\"#3b5b92\" stroke-width=\"2\"/>\n",
			n->id, x, TOP, NODE_W, NODE_H);
		fprintf(out, " <text x=\"%d\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">node %d</text>\n", x + 12, TOP + 24, n->id);
		fprintf(out, " <text x=\"%d\" y=\"%d\">CPUs %s (%u)</text>\n", x + 12, TOP + 46,
			cpus && *cpus ? cpus : "none", np_cpuset_count(&n->cpus));
		fprintf(out, " <text x=\"%d\" y=\"%d\">memory %.1f GiB</text>\n</g>\n", x + 12, TOP + 68,
			(double)n->memory_kb / (1024.0 * 1024.0));
		free(cpus);
	}
	if (unknown) {
		int x = GAP + nn * (NODE_W + GAP);
		fprintf(out, "<text x=\"%d\" y=\"%d\" font-style=\"italic\">node unknown</text>\n", x + 12, DEV_TOP - 12);
	}

	/* Arrows first, so the device boxes sit on top of their tails. */
	for (size_t d = 0; d < nd; d++) {
		if (col[d] < 0)
			continue;
		int node = np_device_node(m, &m->pci.devs[d], NULL);
		/* From the side of the box that faces the target, so arrows of lower
		 * rows do not run under the boxes above them. */
		double left = GAP + col[d] * (NODE_W + GAP) + 20, mid = DEV_TOP + row[d] * (DEV_H + DEV_GAP) + DEV_H / 2.0;
		for (int n = 0; n < t->nnodes; n++) {
			unsigned long long v = per[d * (size_t)nn + (size_t)n];
			if (!v)
				continue;
			bool right = n > col[d] && col[d] < nn;
			double sx = right ? left + DEV_W : left, sy = mid, cx = right ? sx + 30 : sx - 14;
			bool remote = node >= 0 && t->nodes[n].id != node;
			/* Width by volume, on a log scale so small flows stay visible. */
			double w = 1.5 + 10.0 * log1p((double)v) / log1p((double)max);
			double tx = GAP + n * (NODE_W + GAP) + NODE_W / 2.0 + (double)((int)(d % 7) - 3) * 12;
			double ty = TOP + NODE_H + 2;
			char a[16];
			fprintf(out, "<path class=\"irq-flow%s\" data-device=\"%s\" data-node=\"%d\" data-interrupts=\"%llu\" "
				     "d=\"M%.0f,%.0f C%.0f,%.0f %.0f,%.0f %.0f,%.0f\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
				     "stroke-opacity=\"0.75\" marker-end=\"url(#head-%s)\"><title>%s: %s interrupts on node %d</title></path>\n",
				remote ? " remote" : "", m->pci.devs[d].addr, t->nodes[n].id, v, sx, sy, cx, sy, tx, ty + 90, tx, ty,
				remote ? "#d62728" : "#2ca02c", w, remote ? "remote" : "local", m->pci.devs[d].addr,
				np_count_text(v, a), t->nodes[n].id);
		}
	}
	for (size_t d = 0; d < nd; d++) {
		if (col[d] < 0)
			continue;
		const struct np_pci_dev *dev = &m->pci.devs[d];
		int x = GAP + col[d] * (NODE_W + GAP) + 20, y = DEV_TOP + row[d] * (DEV_H + DEV_GAP);
		const char *name = dev->nnet ? dev->net[0].name : dev->nblock ? dev->block[0].name : "";
		const char *drv = dev->child_driver ? dev->child_driver : dev->driver ? dev->driver : "";
		char a[16];
		fprintf(out, "<g class=\"device\" data-device=\"%s\">\n <rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"5\" "
			     "fill=\"#fff8e6\" stroke=\"#a07a1f\"/>\n <text x=\"%d\" y=\"%d\" font-weight=\"bold\">",
			dev->addr, x, y, DEV_W, DEV_H, x + 8, y + 17);
		text_escaped(out, name);
		fprintf(out, "%s%s</text>\n <text x=\"%d\" y=\"%d\" font-size=\"11\">", *name ? " " : "", dev->addr, x + 8, y + 33);
		text_escaped(out, drv);
		fprintf(out, ", %s interrupts</text>\n</g>\n", np_count_text(tot[d], a));
	}
	fputs("</svg>\n", out);
	free(col), free(row), free(count), free(tot), free(per);
	/* Like advise -o: no link followed, the file replaced whole. */
	int rc = fclose(out) ? np_error("drawing '%s': %s", path, strerror(errno)) : np_write_output(path, text, len);
	free(text);
	return rc;
}
