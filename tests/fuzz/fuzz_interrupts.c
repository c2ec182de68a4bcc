/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/interrupts: whatever the parser keeps adds up. Each IRQ's per-node
 * counts and its count on CPUs of no known node sum to its total; a node has
 * a count exactly when a CPU of it ran the IRQ (the same for quiet CPUs and
 * CPUs of no node); IRQs come out ascending, each once; the warnings are
 * capped; a failure leaves nothing behind and says why. The delta of a parse
 * against a second parse of the same text is zero everywhere. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/irq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Three nodes: 0 and 1 interleaved over CPUs 0-31, then 32-47 on node 1;
 * node 2 has memory only; CPUs 48 and up are of no known node. CPUs 4-5
 * are isolated, 6-7 nohz_full. */
#define NCPUS 48
static struct np_topology topo;

static void must(int rc)
{
	if (rc)
		abort();
}

static void make_topology(void)
{
	static int node_of_cpu[NCPUS];
	static struct np_node nodes[3];
	topo.nnodes = 3;
	topo.nodes = nodes;
	for (int n = 0; n < 3; n++)
		nodes[n].id = n;
	for (int c = 0; c < NCPUS; c++) {
		node_of_cpu[c] = c < 32 ? c % 2 : 1;
		must(np_cpuset_set(&nodes[node_of_cpu[c]].cpus, (unsigned)c));
		must(np_cpuset_set(&topo.present, (unsigned)c));
	}
	topo.node_of_cpu = node_of_cpu;
	topo.max_cpu = NCPUS - 1;
	for (unsigned c = 4; c < 6; c++)
		must(np_cpuset_set(&topo.isolated, c));
	for (unsigned c = 6; c < 8; c++)
		must(np_cpuset_set(&topo.nohz_full, c));
}

static bool quiet_cpu(int cpu)
{
	return np_cpuset_test(&topo.isolated, (unsigned)cpu) || np_cpuset_test(&topo.nohz_full, (unsigned)cpu);
}

static void check_irq(const struct np_irq *q)
{
	unsigned long long sum = q->unknown_node;
	bool node_ran[4] = { false }, quiet_ran = false;
	for (int n = 0; n < topo.nnodes; n++)
		if (__builtin_add_overflow(sum, q->per_node[n], &sum))
			abort();
	if (sum != q->total || q->quiet > q->total)
		abort();
	if (np_cpuset_empty(&q->ran_on) != (q->total == 0))
		abort();
	np_cpuset_foreach(cpu, &q->ran_on) {
		int node = np_topology_node_of_cpu(&topo, cpu);
		node_ran[node < 0 ? 3 : node] = true;
		quiet_ran |= quiet_cpu(cpu);
	}
	for (int n = 0; n < topo.nnodes; n++)
		if (node_ran[n] != (q->per_node[n] != 0))
			abort();
	if (node_ran[3] != (q->unknown_node != 0) || quiet_ran != (q->quiet != 0))
		abort();
	if (!q->name || q->irq < 0 || q->dev != -1 || q->queue != -1 || q->has_affinity)
		abort();
}

static void check_zero(const struct np_irq *q)
{
	if (q->total || q->unknown_node || q->quiet || !np_cpuset_empty(&q->ran_on))
		abort();
	for (int n = 0; n < topo.nnodes; n++)
		if (q->per_node[n])
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct np_ctx ctx = { .root = "", .rootfd = -1 };
	struct np_irqs a, b;

	if (!topo.nnodes)
		make_topology();
	int rc = np_irqs_parse_counts(&ctx, &topo, "interrupts", (const char *)data, size, &a);
	if (rc) {
		if (rc > 0 || !ctx.err[0] || a.n || a.v || a.nwarnings || a.warnings)
			abort();
		return 0;
	}
	/* 100 warnings and one line counting the rest. */
	if (a.nwarnings > 101)
		abort();
	for (size_t i = 0; i < a.nwarnings; i++)
		if (!a.warnings[i] || !*a.warnings[i])
			abort();
	for (size_t i = 0; i < a.n; i++) {
		check_irq(&a.v[i]);
		if (i && a.v[i - 1].irq >= a.v[i].irq)
			abort();
		if (np_irqs_find(&a, a.v[i].irq) != &a.v[i])
			abort();
	}
	must(np_irqs_parse_counts(&ctx, &topo, "interrupts", (const char *)data, size, &b));
	if (b.n != a.n)
		abort();
	must(np_irqs_delta(&a, &b, &topo));
	for (size_t i = 0; i < a.n; i++)
		check_zero(&a.v[i]);
	np_irqs_free(&a);
	np_irqs_free(&b);
	return 0;
}
