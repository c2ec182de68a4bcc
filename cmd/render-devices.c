/* The devices: devices prints them, report lists them. JSON names a
 * device by its PCI address ("device"); its product is "name". */
#include <stdlib.h>
#include <string.h>

#include "../lib/cpudesc.h"
#include "../lib/machine.h"
#include "render.h"

static cJSON *device_to_json(const struct np_machine *m, size_t di)
{
	const struct np_pci_dev *d = &m->pci.devs[di];
	cJSON *o = cJSON_CreateObject();
	char ids[16];
	bool inferred;
	int node = np_device_node(m, d, &inferred);

	cJSON_AddStringToObject(o, "device", d->addr);
	snprintf(ids, sizeof(ids), "%04x:%04x", d->vendor_id, d->device_id);
	cJSON_AddStringToObject(o, "ids", ids);
	cJSON_AddItemToObject(o, "vendor", np_json_str(d->vendor));
	cJSON_AddItemToObject(o, "name", np_json_str(d->device));
	cJSON_AddItemToObject(o, "class", np_json_str(d->class_name));
	snprintf(ids, sizeof(ids), "%04x", d->class_id);
	cJSON_AddStringToObject(o, "class_id", ids);
	cJSON_AddItemToObject(o, "driver", np_json_str(d->driver));
	if (d->child_driver)
		cJSON_AddStringToObject(o, "child_driver", d->child_driver);
	cJSON_AddNumberToObject(o, "numa_node", d->numa_node);
	if (node >= 0)
		cJSON_AddNumberToObject(o, "node", node);
	else
		cJSON_AddNullToObject(o, "node");
	cJSON_AddBoolToObject(o, "node_inferred", inferred);
	cJSON_AddItemToObject(o, "local_cpus", np_json_cpus(&d->local_cpus, true));
	cJSON *net = cJSON_AddArrayToObject(o, "net"), *net_detail = cJSON_AddArrayToObject(o, "net_queues");
	for (size_t i = 0; i < d->nnet; i++) {
		const struct np_netif *nif = &d->net[i];
		cJSON_AddItemToArray(net, cJSON_CreateString(nif->name));
		cJSON *q = cJSON_CreateObject();
		cJSON_AddStringToObject(q, "name", nif->name);
		cJSON *rx = cJSON_AddArrayToObject(q, "rx"), *tx = cJSON_AddArrayToObject(q, "tx");
		for (int r = 0; r < nif->nrx; r++) {
			cJSON *e = cJSON_CreateObject();
			cJSON_AddNumberToObject(e, "queue", r);
			cJSON_AddItemToObject(e, "rps_cpus", np_json_cpus(&nif->rps[r], false));
			cJSON_AddItemToArray(rx, e);
		}
		for (int t = 0; t < nif->ntx; t++) {
			cJSON *e = cJSON_CreateObject();
			cJSON_AddNumberToObject(e, "queue", t);
			cJSON_AddItemToObject(e, "xps_cpus", nif->xps_known[t] ? np_json_cpus(&nif->xps[t], false) : cJSON_CreateNull());
			cJSON_AddItemToArray(tx, e);
		}
		cJSON_AddItemToArray(net_detail, q);
	}
	cJSON *block = cJSON_AddArrayToObject(o, "block"), *block_detail = cJSON_AddArrayToObject(o, "block_queues");
	for (size_t i = 0; i < d->nblock; i++) {
		const struct np_blockdev *bd = &d->block[i];
		cJSON_AddItemToArray(block, cJSON_CreateString(bd->name));
		cJSON *b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "name", bd->name);
		if (bd->rq_affinity >= 0)
			cJSON_AddNumberToObject(b, "rq_affinity", bd->rq_affinity);
		else
			cJSON_AddNullToObject(b, "rq_affinity");
		cJSON_AddItemToObject(b, "scheduler", np_json_str(bd->scheduler));
		cJSON *hwq = cJSON_AddArrayToObject(b, "hw_queues");
		for (int q = 0; q < bd->nhwq; q++)
			cJSON_AddItemToArray(hwq, np_json_cpus(&bd->hwq_cpus[q], false));
		cJSON_AddItemToArray(block_detail, b);
	}
	cJSON *irqs = cJSON_AddArrayToObject(o, "irqs");
	for (size_t i = 0; i < m->irqs.n; i++)
		if (m->irqs.v[i].dev == (int)di)
			cJSON_AddItemToArray(irqs, cJSON_CreateNumber(m->irqs.v[i].irq));
	struct np_irq_summary s;
	np_device_irq_summary(m, di, &s);
	cJSON_AddNumberToObject(o, "irqs_remote", s.nremote);
	if (s.total > 0 && s.node_known)
		cJSON_AddNumberToObject(o, "remote_share", (double)s.remote / (double)s.total);
	else
		cJSON_AddNullToObject(o, "remote_share");
	return o;
}

cJSON *np_devices_json(const struct np_machine *m, const bool *selected)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < m->pci.ndevs; i++)
		if (selected[i])
			cJSON_AddItemToArray(a, device_to_json(m, i));
	return a;
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
	for (size_t i = 0; i < m->irqs.n; i++)
		if (m->irqs.v[i].dev == (int)di && m->irqs.v[i].queue >= map->n)
			map->n = m->irqs.v[i].queue + 1;
	map->v = map->n ? calloc((size_t)map->n, sizeof(*map->v)) : NULL;
	if (!map->v)
		map->n = 0;
	/* Backwards, so the first IRQ naming a queue wins. */
	for (size_t i = m->irqs.n; map->v && i-- > 0;)
		if (m->irqs.v[i].dev == (int)di && m->irqs.v[i].queue >= 0)
			map->v[m->irqs.v[i].queue] = &m->irqs.v[i];
}

static const struct np_irq *queue_irq(const struct queue_map *map, int q)
{
	return q >= 0 && q < map->n ? map->v[q] : NULL;
}

/* " on CPU 1, node 3": where a queue's IRQ is set to run ("" when unknown). */
static char *irq_where(const struct np_machine *m, const struct np_irq *irq)
{
	if (!irq || !irq->has_effective)
		return strdup("");
	char *where = np_cpus_where(&m->topo, &irq->effective), *out;
	if (!where || asprintf(&out, " on %s", where) < 0)
		out = NULL;
	free(where);
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

/* Queue rows, identical consecutive ones collapsed: "queues 0-47 (irqs 60-107): ..." */
static void print_queue_rows(FILE *out, const char *what, char **rows, const int *irqs, int n)
{
	for (int q = 0; q < n;) {
		int end = q;
		while (end + 1 < n && rows[q] && rows[end + 1] && !strcmp(rows[q], rows[end + 1]) &&
		       (irqs[q] < 0 ? irqs[end + 1] < 0 : irqs[end + 1] == irqs[end] + 1))
			end++;
		if (end == q && irqs[q] >= 0)
			fprintf(out, "    %s %d: irq %d%s\n", what, q, irqs[q], rows[q] ? rows[q] : "?");
		else if (end == q)
			fprintf(out, "    %s %d: %s\n", what, q, rows[q] ? rows[q] : "?");
		else if (irqs[q] >= 0)
			fprintf(out, "    %ss %d-%d: irqs %d-%d%s\n", what, q, end, irqs[q], irqs[end], rows[q]);
		else
			fprintf(out, "    %ss %d-%d: %s\n", what, q, end, rows[q]);
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

	fprintf(out, "%s  %s", d->addr, d->device ? d->device : "unknown device");
	if (d->vendor)
		fprintf(out, " (%s)", d->vendor);
	fprintf(out, " [%04x:%04x]\n", d->vendor_id, d->device_id);
	fprintf(out, "  %s, driver %s", d->class_name ? d->class_name : "unknown class",
		d->driver ? d->driver : "none");
	if (d->child_driver)
		fprintf(out, " (%s)", d->child_driver);
	if (node < 0)
		fputs(", node unknown", out);
	else
		fprintf(out, ", node %d%s", node, inferred ? " (inferred from local CPUs)" : "");
	const struct np_node *nd = node >= 0 ? np_topology_node(&m->topo, node) : NULL;
	if (!nd || !np_cpuset_equal(&nd->cpus, &d->local_cpus)) {
		char *lc = np_cpuset_empty(&d->local_cpus) ? NULL : np_cpus_text(&m->topo, &d->local_cpus);
		fprintf(out, ", local CPUs %s", lc ? lc : "unknown");
		free(lc);
	}
	fputc('\n', out);
	if (s.nirqs > 0) {
		fprintf(out, "  IRQs: %d (%d mostly on other nodes)", s.nirqs, s.nremote);
		if (s.total > 0 && s.node_known)
			fprintf(out, ": %.0f%% of %llu interrupts remote", 100.0 * (double)s.remote / (double)s.total, s.total);
		else if (s.total > 0)
			fprintf(out, ": %llu interrupts, node unknown", s.total);
		fputc('\n', out);
	}
	for (size_t i = 0; i < d->nnet; i++) {
		const struct np_netif *nif = &d->net[i];
		fprintf(out, "  net %s: %d rx, %d tx queues\n", nif->name, nif->nrx, nif->ntx);
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
		fprintf(out, "  block %s: rq_affinity ", bd->name);
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
