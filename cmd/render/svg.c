/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report --svg: one picture of the machine, saying what the report says.
 * Nodes as boxes with their CPUs (a mark each; isolated ones hollow, filled
 * orange when interrupts ran there) and memory, each device under its node
 * (outlined red when the report warns about it), and an arrow from each
 * device to every node its interrupts ran on: width by volume; green on the
 * device's node, red remote, orange on isolated CPUs, dashed green for
 * managed per-CPU queues (the kernel spreads those per CPU on purpose, so
 * the report never calls them remote). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/cpuset-names.h"
#include "judge/request.h"
#include "base/count.h"
#include "read/machine.h"
#include "base/quote.h"
#include "cmd.h"

#define NODE_W 280
#define GAP 40
#define DEV_W 240
#define DEV_H 40
#define DEV_GAP 14
#define TOP 100 /* below the title and the legend's three lines */
#define LINE 22
/* CPU marks: CPU_BOX squares CPU_STEP apart, CPU_ROW to a row. */
#define CPU_BOX 8
#define CPU_STEP 10
#define CPU_ROW 25

#define GREEN "#2ca02c"
#define RED "#d62728"
#define ORANGE "#e6550d"

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

/* About how wide text is, in pixels, a little more than DejaVu Sans takes
 * (0.54 em a character, bold 0.59, measured with rsvg-convert), so the
 * canvas is sized to what it holds. */
static int text_width(const char *s, int size, bool bold)
{
	return (int)((double)strlen(s) * size * (bold ? 0.64 : 0.58) + 0.5);
}

static const char title_text[] = "Interrupts by node: from each device to the nodes whose CPUs ran them";
static const char *const legend_text[] = {
	"green: on the device's node; red: on another node (remote); dashed green: managed per-CPU queues, local by design;",
	"orange: on isolated CPUs, where the latency-critical work runs; squares: CPUs, hollow when isolated, filled orange",
	"when interrupts ran on an isolated one; red outline: the report warns",
};

/* Interrupts of one device on one node, by how they are drawn. */
struct flow {
	unsigned long long plain;   /* unmanaged, not on isolated CPUs: local or remote */
	unsigned long long managed; /* managed per-CPU queues: local by design */
	unsigned long long quiet;   /* on isolated or nohz_full CPUs: the problem */
};

/* Where a device's arrows run: out of the side of its box that faces the
 * target (sx, sy), along a lane of its own beside its column of boxes (lx:
 * one per row, so that the arrows of lower rows pass beside the boxes above,
 * not under them), up to above the first row (top), then to the node (tx, ty). */
struct route {
	double sx, sy, lx, top;
};

static void arrow(FILE *out, const char *cls, const char *dev, int node, unsigned long long v, const struct route *r,
		  double tx, double ty, const char *colour, double w, const char *head, const char *dash, const char *what)
{
	char a[16];
	fprintf(out, "<path class=\"irq-flow%s\" data-device=\"%s\" data-node=\"%d\" data-interrupts=\"%llu\" "
		     "d=\"M%.0f,%.0f H%.0f V%.0f C%.0f,%.0f %.0f,%.0f %.0f,%.0f\" fill=\"none\" stroke=\"%s\" "
		     "stroke-width=\"%.1f\"%s stroke-opacity=\"0.75\" marker-end=\"url(#head-%s)\"><title>%s: %s interrupts "
		     "%s node %d</title></path>\n",
		cls, dev, node, v, r->sx, r->sy, r->lx, r->top, r->lx, r->top - 60, tx, ty + 90, tx, ty, colour, w, dash,
		head, dev, np_count_text(v, a), what, node);
}

int np_report_svg(const struct np_request *req, const char *path)
{
	const struct np_machine *m = req->m;
	const bool *selected = req->selected;
	const struct np_findings *findings = &req->findings;
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
	unsigned long long *tot = calloc(nd + 1, sizeof(*tot));
	struct flow *fl = calloc((nd + 1) * (size_t)nn, sizeof(*fl));
	const char **warned = calloc(nd + 1, sizeof(*warned));
	struct np_cpuset quiet = NP_CPUSET_INIT, hit = NP_CPUSET_INIT, interrupted = NP_CPUSET_INIT;
	/* The CPUs the report judges quiet: isolated, nohz_full. */
	bool ok = col && row && count && tot && fl && warned && !np_cpuset_copy(&quiet, &req->policy.forbidden.quiet);
	/* What the report's summary warns about, on the device it names. */
	for (size_t k = 0; ok && k < findings->n; k++) {
		const struct np_finding *f = &findings->v[k];
		if (f->severity == NP_WARNING && !f->minor && f->dev >= 0 && (size_t)f->dev < nd && !warned[f->dev])
			warned[f->dev] = f->message;
	}
	unsigned long long max = 1;
	bool unknown = false;
	for (size_t i = 0; ok && i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		/* The isolated CPUs it ran on, and their nodes: its count there is
		 * known in all (irq->quiet), so it is shared among them. */
		int qnodes = 0;
		if (irq->quiet && !np_cpuset_copy(&hit, &irq->ran_on)) {
			np_cpuset_and(&hit, &quiet);
			ok = !np_cpuset_or(&interrupted, &hit);
			for (int n = 0; n < t->nnodes; n++)
				qnodes += np_cpuset_intersects(&hit, &t->nodes[n].cpus);
		}
		if (irq->dev < 0 || !selected[irq->dev])
			continue;
		tot[irq->dev] += irq->total;
		for (int n = 0; n < t->nnodes; n++) {
			struct flow *f = &fl[(size_t)irq->dev * (size_t)nn + (size_t)n];
			unsigned long long here = irq->per_node[n], q = 0;
			if (qnodes && np_cpuset_intersects(&hit, &t->nodes[n].cpus))
				q = irq->quiet / (unsigned long long)qnodes;
			if (q > here)
				q = here;
			f->quiet += q;
			if (irq->managed != NP_MANAGED_NO)
				f->managed += here - q;
			else
				f->plain += here - q;
		}
	}
	int dev_w = DEV_W;
	for (size_t d = 0; ok && d < nd; d++) {
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
		for (int n = 0; n < t->nnodes; n++) {
			const struct flow *f = &fl[d * (size_t)nn + (size_t)n];
			unsigned long long most = f->plain > f->managed ? f->plain : f->managed;
			if (f->quiet > most)
				most = f->quiet;
			if (most > max)
				max = most;
		}
		const struct np_pci_dev *dev = &m->pci.devs[d];
		const char *name = dev->nnet ? dev->net[0].name : dev->nblock ? dev->block[0].name : "";
		int w = text_width(name, 13, true) + text_width(dev->addr, 13, true) + 24;
		if (w > dev_w)
			dev_w = w;
	}
	if (!ok) {
		fclose(out);
		free(text);
		free(col), free(row), free(count), free(tot), free(fl), free(warned);
		np_cpuset_free(&quiet), np_cpuset_free(&hit), np_cpuset_free(&interrupted);
		return np_error("drawing '%s': out of memory", path);
	}
	/* The node boxes: three lines, a fourth naming the isolated CPUs when
	 * there are any, then a mark per CPU. */
	int node_w = dev_w + 40 > NODE_W ? dev_w + 40 : NODE_W, marks = 0;
	for (int i = 0; i < t->nnodes; i++) {
		int r = ((int)np_cpuset_count(&t->nodes[i].cpus) + CPU_ROW - 1) / CPU_ROW;
		if (r > marks)
			marks = r;
	}
	bool any_quiet = !np_cpuset_empty(&quiet);
	int node_h = 12 + 3 * LINE + (any_quiet ? LINE : 0) + marks * CPU_STEP + 10;
	int dev_top = TOP + node_h + 150;
	int cols = nn + unknown, rows = 0;
	for (int c = 0; c <= nn; c++)
		if (count[c] > rows)
			rows = count[c];
	int width = cols * (node_w + GAP) + GAP, height = dev_top + rows * (DEV_H + DEV_GAP) + 60;
	int text_w = GAP * 2 + text_width(title_text, 16, true);
	for (size_t k = 0; k < sizeof(legend_text) / sizeof(legend_text[0]); k++)
		if (GAP * 2 + text_width(legend_text[k], 12, false) > text_w)
			text_w = GAP * 2 + text_width(legend_text[k], 12, false);
	if (text_w > width)
		width = text_w;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		     "font-family=\"DejaVu Sans, Helvetica, sans-serif\" font-size=\"13\">\n",
		width, height, width, height);
	fputs("<title>numaplace: NUMA nodes, devices and where their interrupts ran</title>\n<defs>\n", out);
	static const struct {
		const char *id, *colour;
	} heads[] = { { "remote", RED }, { "local", GREEN }, { "isolated", ORANGE } };
	for (size_t k = 0; k < sizeof(heads) / sizeof(heads[0]); k++)
		fprintf(out, " <marker id=\"head-%s\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerUnits=\"userSpaceOnUse\" "
			     "markerWidth=\"14\" markerHeight=\"14\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"%s\"/></marker>\n",
			heads[k].id, heads[k].colour);
	fputs("</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", out);
	fprintf(out, "<text x=\"%d\" y=\"30\" font-size=\"16\" font-weight=\"bold\">%s</text>\n", GAP, title_text);
	for (size_t k = 0; k < sizeof(legend_text) / sizeof(legend_text[0]); k++)
		fprintf(out, "<text class=\"legend\" x=\"%d\" y=\"%zu\" font-size=\"12\">%s</text>\n", GAP, 50 + 16 * k,
			legend_text[k]);

	for (int i = 0; i < t->nnodes; i++) {
		const struct np_node *n = &t->nodes[i];
		int x = GAP + i * (node_w + GAP), y = TOP + 24;
		char *cpus = np_cpuset_format_short(&n->cpus, 30);
		fprintf(out, "<g class=\"node\" data-node=\"%d\">\n <rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"8\" "
			     "fill=\"#eef3fb\" stroke=\"#3b5b92\" stroke-width=\"2\"/>\n",
			n->id, x, TOP, node_w, node_h);
		fprintf(out, " <text x=\"%d\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">node %d</text>\n", x + 12, y, n->id);
		fprintf(out, " <text x=\"%d\" y=\"%d\">CPUs %s (%u)</text>\n", x + 12, y + LINE,
			cpus && *cpus ? cpus : "none", np_cpuset_count(&n->cpus));
		fprintf(out, " <text x=\"%d\" y=\"%d\">memory %.1f GiB</text>\n", x + 12, y + 2 * LINE,
			(double)n->memory_kb / (1024.0 * 1024.0));
		free(cpus);
		y += 2 * LINE;
		if (np_cpuset_copy(&hit, &n->cpus) == 0) {
			np_cpuset_and(&hit, &quiet);
			char *iso = np_cpuset_format_short(&hit, 30);
			if (iso && *iso)
				fprintf(out, " <text class=\"isolated-cpus\" x=\"%d\" y=\"%d\" fill=\"%s\">isolated CPUs %s (%u)</text>\n",
					x + 12, y + LINE, ORANGE, iso, np_cpuset_count(&hit));
			free(iso);
		}
		if (any_quiet)
			y += LINE;
		/* A mark per CPU: filled for the others, hollow when isolated,
		 * filled orange when interrupts ran on an isolated one. */
		int k = 0;
		np_cpuset_foreach(cpu, &n->cpus) {
			bool iso = np_cpuset_test(&quiet, (unsigned)cpu), irq = iso && np_cpuset_test(&interrupted, (unsigned)cpu);
			int cx = x + 12 + (k % CPU_ROW) * CPU_STEP, cy = y + 10 + (k / CPU_ROW) * CPU_STEP;
			fprintf(out, " <rect class=\"cpu%s%s\" data-cpu=\"%d\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
				     "stroke=\"%s\"><title>CPU %d%s</title></rect>\n",
				iso ? " isolated" : "", irq ? " interrupted" : "", cpu, cx, cy, CPU_BOX, CPU_BOX,
				irq ? ORANGE : iso ? "white" : "#9ab3d9", iso ? ORANGE : "#3b5b92", cpu,
				irq ? ": isolated, and interrupts ran on it" : iso ? ": isolated" : "");
			k++;
		}
		fputs("</g>\n", out);
	}
	if (unknown) {
		int x = GAP + nn * (node_w + GAP);
		fprintf(out, "<text x=\"%d\" y=\"%d\" font-style=\"italic\">node unknown</text>\n", x + 12, dev_top - 12);
	}

	/* Arrows first, so the device boxes sit on top of their tails. */
	for (size_t d = 0; d < nd; d++) {
		if (col[d] < 0)
			continue;
		int node = np_device_node(m, &m->pci.devs[d], NULL);
		double left = GAP + col[d] * (node_w + GAP) + 20, mid = dev_top + row[d] * (DEV_H + DEV_GAP) + DEV_H / 2.0;
		/* Lanes 12 apart (the widest arrow), 10 to 34 off the box: within
		 * the 20 of the column and the GAP beside it, the next column's
		 * lanes on the other side. */
		double lane = 10 + 12 * (row[d] % 3);
		for (int n = 0; n < t->nnodes; n++) {
			const struct flow *f = &fl[d * (size_t)nn + (size_t)n];
			bool right = n > col[d] && col[d] < nn;
			struct route r = { right ? left + dev_w : left, mid, right ? left + dev_w + lane : left - lane,
					   dev_top - 10 };
			double tx = GAP + n * (node_w + GAP) + node_w / 2.0 + (double)((int)(d % 7) - 3) * 12;
			double ty = TOP + node_h + 2;
			bool remote = node >= 0 && t->nodes[n].id != node;
			const char *addr = m->pci.devs[d].addr;
			/* Width by volume, on a log scale so small flows stay visible. */
#define FLOW_W(v) (1.5 + 10.0 * log1p((double)(v)) / log1p((double)max))
			if (f->plain)
				arrow(out, remote ? " remote" : "", addr, t->nodes[n].id, f->plain, &r, tx, ty,
				      remote ? RED : GREEN, FLOW_W(f->plain), remote ? "remote" : "local", "", "on");
			if (f->managed)
				arrow(out, " managed", addr, t->nodes[n].id, f->managed, &r, tx + 4, ty, GREEN,
				      FLOW_W(f->managed), "local", " stroke-dasharray=\"6 3\"",
				      "of managed per-CPU queues (placed by the kernel, local by design) on");
			if (f->quiet)
				arrow(out, " isolated", addr, t->nodes[n].id, f->quiet, &r, tx - 4, ty, ORANGE,
				      FLOW_W(f->quiet), "isolated", "", "on isolated CPUs of");
#undef FLOW_W
		}
	}
	for (size_t d = 0; d < nd; d++) {
		if (col[d] < 0)
			continue;
		const struct np_pci_dev *dev = &m->pci.devs[d];
		int x = GAP + col[d] * (node_w + GAP) + 20, y = dev_top + row[d] * (DEV_H + DEV_GAP);
		const char *name = dev->nnet ? dev->net[0].name : dev->nblock ? dev->block[0].name : "";
		const char *drv = dev->child_driver ? dev->child_driver : dev->driver ? dev->driver : "";
		char a[16];
		fprintf(out, "<g class=\"device%s\" data-device=\"%s\">\n", warned[d] ? " warned" : "", dev->addr);
		if (warned[d]) {
			fputs(" <title>", out);
			text_escaped(out, warned[d]);
			fputs("</title>\n", out);
		}
		fprintf(out, " <rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"5\" fill=\"#fff8e6\" stroke=\"%s\" "
			     "stroke-width=\"%d\"/>\n <text x=\"%d\" y=\"%d\" font-weight=\"bold\">",
			x, y, dev_w, DEV_H, warned[d] ? RED : "#a07a1f", warned[d] ? 3 : 1, x + 8, y + 17);
		text_escaped(out, name);
		fprintf(out, "%s%s</text>\n <text x=\"%d\" y=\"%d\" font-size=\"11\">", *name ? " " : "", dev->addr, x + 8, y + 33);
		text_escaped(out, drv);
		fprintf(out, ", %s interrupts</text>\n</g>\n", np_count_text(tot[d], a));
	}
	fputs("</svg>\n", out);
	free(col), free(row), free(count), free(tot), free(fl), free(warned);
	np_cpuset_free(&quiet), np_cpuset_free(&hit), np_cpuset_free(&interrupted);
	/* Like advise -o: no link followed, the file replaced whole. */
	int rc = fclose(out) ? np_error("drawing '%s': %s", path, strerror(errno)) : np_write_output(path, text, len);
	free(text);
	return rc;
}
