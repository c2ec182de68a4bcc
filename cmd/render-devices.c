/* The devices: devices prints them, report lists them. JSON names a
 * device by its PCI address ("device"); its product is "name". */
#include <stdlib.h>
#include <string.h>

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

static void print_set(FILE *out, const char *label, const struct np_cpuset *set)
{
	char *text = np_cpuset_format_list(set);
	fprintf(out, "%s%s", label, text && *text ? text : "-");
	free(text);
}

static void print_device(const struct np_machine *m, size_t di, FILE *out)
{
	const struct np_pci_dev *d = &m->pci.devs[di];
	bool inferred;
	int node = np_device_node(m, d, &inferred);
	struct np_irq_summary s;
	np_device_irq_summary(m, di, &s);

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
	print_set(out, ", local CPUs ", &d->local_cpus);
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
		for (int q = 0; q < nq; q++) {
			fprintf(out, "    queue %-3d", q);
			if (q < nif->nrx)
				print_set(out, " rps ", &nif->rps[q]);
			if (q < nif->ntx && nif->xps_known[q])
				print_set(out, " xps ", &nif->xps[q]);
			fputc('\n', out);
		}
	}
	for (size_t i = 0; i < d->nblock; i++) {
		const struct np_blockdev *bd = &d->block[i];
		fprintf(out, "  block %s: rq_affinity ", bd->name);
		fprintf(out, bd->rq_affinity >= 0 ? "%d" : "unknown", bd->rq_affinity);
		fprintf(out, ", scheduler %s, %d hardware queue%s\n", bd->scheduler ? bd->scheduler : "unknown",
			bd->nhwq, bd->nhwq == 1 ? "" : "s");
		for (int q = 0; q < bd->nhwq; q++) {
			fprintf(out, "    hwq %-3d", q);
			print_set(out, " cpus ", &bd->hwq_cpus[q]);
			fputc('\n', out);
		}
	}
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
