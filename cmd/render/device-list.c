/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The devices: devices prints them, report lists them. JSON names a
 * device by its PCI address ("device"); its product is "name". */
#include <stdlib.h>
#include <string.h>

#include "judge/cpuset-names.h"
#include "read/machine.h"
#include "base/quote.h"
#include "render/render.h"
#include "render/term.h"

static void device_write(struct np_jw *jw, const struct np_machine *m, size_t di)
{
	const struct np_pci_dev *d = &m->pci.devs[di];
	char ids[16];
	bool inferred;
	int node = np_device_node(m, d, &inferred);

	np_jw_object(jw, NULL);
	np_jw_str(jw, "device", d->addr);
	snprintf(ids, sizeof(ids), "%04x:%04x", d->vendor_id, d->device_id);
	np_jw_str(jw, "ids", ids);
	np_jw_str(jw, "vendor", d->vendor);
	np_jw_str(jw, "name", d->device);
	np_jw_str(jw, "class", d->class_name);
	snprintf(ids, sizeof(ids), "%04x", d->class_id);
	np_jw_str(jw, "class_id", ids);
	np_jw_str(jw, "driver", d->driver);
	if (d->child_driver)
		np_jw_str(jw, "child_driver", d->child_driver);
	np_jw_int(jw, "numa_node", d->numa_node);
	if (node >= 0)
		np_jw_int(jw, "node", node);
	else
		np_jw_null(jw, "node");
	np_jw_bool(jw, "node_inferred", inferred);
	np_jw_cpus(jw, "local_cpus", &d->local_cpus, true);
	np_jw_array(jw, "net");
	for (size_t i = 0; i < d->nnet; i++)
		np_jw_str(jw, NULL, d->net[i].name);
	np_jw_close(jw);
	np_jw_array(jw, "net_queues");
	for (size_t i = 0; i < d->nnet; i++) {
		const struct np_netif *nif = &d->net[i];
		np_jw_object(jw, NULL);
		np_jw_str(jw, "name", nif->name);
		if (!nif->queues_known) {
			/* Unknown stays unknown: no queues/ directory is not "no queues". */
			np_jw_null(jw, "rx");
			np_jw_null(jw, "tx");
			np_jw_close(jw);
			continue;
		}
		np_jw_array(jw, "rx");
		for (int r = 0; r < nif->nrx; r++) {
			np_jw_object(jw, NULL);
			np_jw_int(jw, "queue", r);
			np_jw_cpus(jw, "rps_cpus", &nif->rps[r], false);
			np_jw_close(jw);
		}
		np_jw_close(jw);
		np_jw_array(jw, "tx");
		for (int t = 0; t < nif->ntx; t++) {
			np_jw_object(jw, NULL);
			np_jw_int(jw, "queue", t);
			if (nif->xps_known[t])
				np_jw_cpus(jw, "xps_cpus", &nif->xps[t], false);
			else
				np_jw_null(jw, "xps_cpus");
			np_jw_close(jw);
		}
		np_jw_close(jw);
		np_jw_close(jw);
	}
	np_jw_close(jw);
	np_jw_array(jw, "block");
	for (size_t i = 0; i < d->nblock; i++)
		np_jw_str(jw, NULL, d->block[i].name);
	np_jw_close(jw);
	np_jw_array(jw, "block_queues");
	for (size_t i = 0; i < d->nblock; i++) {
		const struct np_blockdev *bd = &d->block[i];
		np_jw_object(jw, NULL);
		np_jw_str(jw, "name", bd->name);
		if (bd->rq_affinity >= 0)
			np_jw_int(jw, "rq_affinity", bd->rq_affinity);
		else
			np_jw_null(jw, "rq_affinity");
		np_jw_str(jw, "scheduler", bd->scheduler);
		np_jw_array(jw, "hw_queues");
		for (int q = 0; q < bd->nhwq; q++)
			np_jw_cpus(jw, NULL, &bd->hwq_cpus[q], false);
		np_jw_close(jw);
		np_jw_close(jw);
	}
	np_jw_close(jw);
	np_jw_array(jw, "irqs");
	np_irqs_foreach_of_dev(&m->irqs, (int)di, i)
		if (m->irqs.v[i].dev == (int)di)
			np_jw_int(jw, NULL, m->irqs.v[i].irq);
	np_jw_close(jw);
	struct np_irq_summary s;
	np_device_irq_summary(m, di, &s);
	np_jw_int(jw, "irqs_remote", s.nremote);
	double share = np_irq_summary_remote_share(&s);
	if (share >= 0)
		np_jw_number(jw, "remote_share", share);
	else
		np_jw_null(jw, "remote_share");
	np_jw_int(jw, "irqs_per_cpu", s.nper_cpu);
	np_jw_uint(jw, "interrupts_per_cpu", s.per_cpu);
	np_jw_close(jw);
}

void np_devices_write(struct np_jw *jw, const char *key, const struct np_machine *m, const bool *selected)
{
	np_jw_array(jw, key);
	for (size_t i = 0; i < m->pci.ndevs; i++)
		if (selected[i])
			device_write(jw, m, i);
	np_jw_close(jw);
}

/* A CPU set by name or shortened list; "off" when empty (RPS, XPS). */
static void print_set(FILE *out, const struct np_topology *topo, const char *label, const struct np_cpuset *set)
{
	char *text = np_cpuset_empty(set) ? NULL : np_cpus_text(topo, set);
	fprintf(out, "%s%s", label, text ? text : "off");
	free(text);
}

/* A device's IRQs by the queue their names tell ("eth4-TxRx-3" is queue 3),
 * built in one pass: a lookup per queue would cost queues x IRQs. */
struct queue_map {
	const struct np_irq **v;
	int n;
};

static void queue_map_build(const struct np_machine *m, size_t di, struct queue_map *map)
{
	map->n = 0;
	np_irqs_foreach_of_dev(&m->irqs, (int)di, i)
		if (m->irqs.v[i].dev == (int)di && m->irqs.v[i].queue >= map->n)
			map->n = m->irqs.v[i].queue + 1;
	map->v = map->n ? calloc((size_t)map->n, sizeof(*map->v)) : NULL;
	if (!map->v)
		map->n = 0;
	/* The first IRQ naming a queue wins. */
	np_irqs_foreach_of_dev(&m->irqs, (int)di, i)
		if (map->v && m->irqs.v[i].dev == (int)di && m->irqs.v[i].queue >= 0 && !map->v[m->irqs.v[i].queue])
			map->v[m->irqs.v[i].queue] = &m->irqs.v[i];
}

static const struct np_irq *queue_irq(const struct queue_map *map, int q)
{
	return q >= 0 && q < map->n ? map->v[q] : NULL;
}

/* " on CPU 1, node 3": where a queue's IRQ is set to run ("" when unknown);
 * " on CPU 0, node 0 (moves to CPU 2, node 0 when it next fires)" while a new mask waits for
 * the next interrupt (a chip without interrupt remapping). */
static char *irq_where(const struct np_machine *m, const struct np_irq *irq)
{
	if (!irq || !irq->has_effective)
		return strdup("");
	bool pending = (irq->move_pending || irq->move_deferred) && irq->has_affinity &&
		       !np_cpuset_empty(&irq->effective) && !np_cpuset_subset(&irq->effective, &irq->affinity);
	char *where = np_cpus_where(&m->topo, &irq->effective), *then = pending ? np_cpus_where(&m->topo, &irq->affinity) : NULL;
	char *out;
	if (!where || (pending && !then) ||
	    asprintf(&out, " on %s%s%s%s", where, pending ? " (moves to " : "", pending ? then : "",
		     pending ? " when it next fires)" : "") < 0)
		out = NULL;
	free(where);
	free(then);
	return out;
}

/* One queue's row after "queue N": its IRQ and where it runs, then RPS and XPS. */
static char *net_queue_row(const struct np_machine *m, const struct queue_map *map, const struct np_netif *nif, int q,
			   int *irqno)
{
	const struct np_irq *irq = queue_irq(map, q);
	char *where = irq_where(m, irq), *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	*irqno = irq ? irq->irq : -1;
	if (f && where) {
		fprintf(f, "%s%s;", irq ? "" : "no IRQ", where);
		if (q < nif->nrx)
			print_set(f, &m->topo, " rps ", &nif->rps[q]);
		if (q < nif->ntx && nif->xps_known[q])
			print_set(f, &m->topo, ", xps ", &nif->xps[q]);
	}
	if (f)
		fclose(f);
	free(where);
	return out;
}

/* Prints what memstream f gathered as one line, wrapped at blanks to width,
 * continuation lines indented by indent, and empties f for the next. */
static void put_line(FILE *out, FILE *f, char **text, int width, int indent)
{
	fputc('\0', f);
	if (fflush(f) == 0 && *text)
		np_print_wrapped(out, *text, width, 0, indent);
	rewind(f);
}

/* Queue rows, identical consecutive ones collapsed: "queues 0-47 (irqs 60-107): ..." */
static void print_queue_rows(FILE *out, const char *what, char **rows, const int *irqs, int n)
{
	char line[64];
	for (int q = 0; q < n;) {
		int end = q;
		while (end + 1 < n && rows[q] && rows[end + 1] && !strcmp(rows[q], rows[end + 1]) &&
		       (irqs[q] < 0 ? irqs[end + 1] < 0 : irqs[end + 1] == irqs[end] + 1))
			end++;
		if (end == q && irqs[q] >= 0)
			snprintf(line, sizeof(line), "    %s %d: irq %d", what, q, irqs[q]);
		else if (end == q)
			snprintf(line, sizeof(line), "    %s %d: ", what, q);
		else if (irqs[q] >= 0)
			snprintf(line, sizeof(line), "    %ss %d-%d: irqs %d-%d", what, q, end, irqs[q], irqs[end]);
		else
			snprintf(line, sizeof(line), "    %ss %d-%d: ", what, q, end);
		char *text;
		if (asprintf(&text, "%s%s", line, rows[q] ? rows[q] : "?") >= 0) {
			np_print_wrapped(out, text, np_output_width(fileno(out)), 0, 8);
			free(text);
		}
		q = end + 1;
	}
}

static void print_device(const struct np_machine *m, size_t di, FILE *out)
{
	const struct np_pci_dev *d = &m->pci.devs[di];
	bool inferred;
	int node = np_device_node(m, d, &inferred);
	struct np_irq_summary s;
	np_device_irq_summary(m, di, &s);
	struct queue_map map;
	queue_map_build(m, di, &map);

	/* Each line is gathered, then wrapped at blanks to the terminal. */
	int width = np_output_width(fileno(out));
	char *line = NULL;
	size_t len;
	FILE *f = open_memstream(&line, &len);
	if (!f)
		return;
	fprintf(f, "%s  %s", d->addr, d->device ? d->device : "unknown device");
	if (d->vendor)
		fprintf(f, " (%s)", d->vendor);
	fprintf(f, " [%04x:%04x]", d->vendor_id, d->device_id);
	put_line(out, f, &line, width, 14);
	fprintf(f, "  %s, driver %s", d->class_name ? d->class_name : "unknown class", d->driver ? d->driver : "none");
	if (d->child_driver)
		fprintf(f, " (%s)", d->child_driver);
	if (node < 0)
		fputs(", node unknown", f);
	else
		fprintf(f, ", node %d%s", node, inferred ? " (inferred from local CPUs)" : "");
	const struct np_node *nd = node >= 0 ? np_topology_node(&m->topo, node) : NULL;
	if (!nd || !np_cpuset_equal(&nd->cpus, &d->local_cpus)) {
		char *lc = np_cpuset_empty(&d->local_cpus) ? NULL : np_cpus_text(&m->topo, &d->local_cpus);
		fprintf(f, ", local CPUs %s", lc ? lc : "unknown");
		free(lc);
	}
	put_line(out, f, &line, width, 4);
	if (s.nirqs > 0) {
		/* Per-CPU queues complete where the I/O was submitted: said apart, never remote. */
		unsigned long long others = s.total - s.per_cpu;
		double share = np_irq_summary_remote_share(&s);
		fprintf(f, "  IRQs: %d (%d mostly on other nodes", s.nirqs, s.nremote);
		if (s.nper_cpu)
			fprintf(f, ", %d managed per CPU by design", s.nper_cpu);
		fputc(')', f);
		if (share >= 0)
			fprintf(f, ": %.0f%% of %llu interrupts remote", 100.0 * share, others);
		else if (others > 0)
			fprintf(f, ": %llu interrupts, node unknown", others);
		if (s.per_cpu > 0)
			fprintf(f, "%s%llu per CPU by design", others > 0 ? "; " : ": ", s.per_cpu);
		put_line(out, f, &line, width, 4);
	}
	fclose(f);
	free(line);
	for (size_t i = 0; i < d->nnet; i++) {
		const struct np_netif *nif = &d->net[i];
		char esc[256];
		if (!nif->queues_known) {
			fprintf(out, "  net %s: queues unknown (no queues/ directory)\n", np_escape(nif->name, esc, sizeof(esc)));
			continue;
		}
		fprintf(out, "  net %s: %d rx, %d tx queues\n", np_escape(nif->name, esc, sizeof(esc)), nif->nrx, nif->ntx);
		int nq = nif->nrx > nif->ntx ? nif->nrx : nif->ntx;
		char **rows = calloc((size_t)nq + 1, sizeof(*rows));
		int *irqs = calloc((size_t)nq + 1, sizeof(*irqs));
		for (int q = 0; rows && irqs && q < nq; q++)
			rows[q] = net_queue_row(m, &map, nif, q, &irqs[q]);
		if (rows && irqs)
			print_queue_rows(out, "queue", rows, irqs, nq);
		for (int q = 0; rows && q < nq; q++)
			free(rows[q]);
		free(rows);
		free(irqs);
	}
	for (size_t i = 0; i < d->nblock; i++) {
		const struct np_blockdev *bd = &d->block[i];
		char esc[256];
		fprintf(out, "  block %s: rq_affinity ", np_escape(bd->name, esc, sizeof(esc)));
		fprintf(out, bd->rq_affinity >= 0 ? "%d" : "unknown", bd->rq_affinity);
		fprintf(out, ", scheduler %s, %d hardware queue%s\n", bd->scheduler ? bd->scheduler : "unknown",
			bd->nhwq, bd->nhwq == 1 ? "" : "s");
		/* NVMe names its I/O queue vectors from 1 (nvme0q1 serves hardware queue 0). */
		int base = d->driver && !strcmp(d->driver, "nvme") ? 1 : -1;
		char **rows = calloc((size_t)bd->nhwq + 1, sizeof(*rows));
		int *irqs = calloc((size_t)bd->nhwq + 1, sizeof(*irqs));
		for (int q = 0; rows && irqs && q < bd->nhwq; q++) {
			const struct np_irq *irq = base < 0 ? NULL : queue_irq(&map, q + base);
			char *cpus = np_cpus_text(&m->topo, &bd->hwq_cpus[q]), *where = irq_where(m, irq);
			irqs[q] = irq ? irq->irq : -1;
			if (cpus && where && asprintf(&rows[q], "%s%s; cpus %s", irq ? "" : "no IRQ", where, cpus) < 0)
				rows[q] = NULL;
			free(cpus);
			free(where);
		}
		if (rows && irqs)
			print_queue_rows(out, "hwq", rows, irqs, bd->nhwq);
		for (int q = 0; rows && q < bd->nhwq; q++)
			free(rows[q]);
		free(rows);
		free(irqs);
	}
	free(map.v);
}

void np_devices_print(const struct np_machine *m, const bool *selected, FILE *out)
{
	bool first = true;
	for (size_t i = 0; i < m->pci.ndevs; i++) {
		if (!selected[i])
			continue;
		if (!first)
			fputc('\n', out);
		print_device(m, i, out);
		first = false;
	}
	if (first)
		fputs("no devices\n", out);
}
