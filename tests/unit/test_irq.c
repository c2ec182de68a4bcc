/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interrupts (lib/read/irq.c): the /proc/interrupts parse against scratch roots,
 * the /proc/irq and debugfs reads, queue names, and tying IRQs to devices. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/context.h"
#include "base/cpuset.h"
#include "read/irq.h"
#include "read/pci.h"
#include "read/topology.h"
#include "tmproot.h"

struct fixture {
	char root[64];
	struct np_ctx ctx;
	/* Node ids 0 and 2 on purpose: per_node is by index, not by id. */
	struct np_topology topo;
	struct np_irqs irqs;
};

/* Builds a topology by hand: node ids[i] holds the CPUs of lists[i]. */
static void make_topo(struct np_topology *t, int nnodes, const int *ids, const char *const *lists)
{
	memset(t, 0, sizeof(*t));
	t->numa = true;
	t->nodes = calloc((size_t)nnodes, sizeof(*t->nodes));
	assert_non_null(t->nodes);
	t->nnodes = nnodes;
	t->max_cpu = -1;
	for (int i = 0; i < nnodes; i++) {
		t->nodes[i].id = ids[i];
		assert_int_equal(np_cpuset_parse_list(&t->nodes[i].cpus, lists[i]), 0);
		assert_int_equal(np_cpuset_or(&t->present, &t->nodes[i].cpus), 0);
		if (np_cpuset_last(&t->nodes[i].cpus) > t->max_cpu)
			t->max_cpu = np_cpuset_last(&t->nodes[i].cpus);
	}
	assert_int_equal(np_cpuset_copy(&t->online, &t->present), 0);
	t->node_of_cpu = malloc(((size_t)t->max_cpu + 1) * sizeof(int));
	assert_non_null(t->node_of_cpu);
	for (int c = 0; c <= t->max_cpu; c++)
		t->node_of_cpu[c] = -1;
	for (int i = 0; i < nnodes; i++)
		np_cpuset_foreach(cpu, &t->nodes[i].cpus)
			t->node_of_cpu[cpu] = ids[i];
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	if (tmproot_create(f->root, sizeof(f->root), "/tmp/numaplace-irq-XXXXXX", &f->ctx)) {
		free(f);
		return -1;
	}
	static const int ids[] = { 0, 2 };
	static const char *const lists[] = { "0-1", "2-3" };
	make_topo(&f->topo, 2, ids, lists);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	np_irqs_free(&f->irqs);
	np_topology_free(&f->topo);
	int rc = tmproot_remove(f->root, &f->ctx);
	free(f);
	return rc;
}

static void assert_list(const struct np_cpuset *set, const char *want)
{
	char *text = np_cpuset_format_list(set);
	assert_non_null(text);
	assert_string_equal(text, want);
	free(text);
}

static struct np_irq *find(struct fixture *f, int irq)
{
	struct np_irq *q = np_irqs_find(&f->irqs, irq);
	if (!q)
		fail_msg("IRQ %d not parsed", irq);
	return q;
}

/* The warning for line of /proc/interrupts exists and gives reason. */
static void assert_warned(const struct fixture *f, int line, const char *reason)
{
	char head[PATH_MAX + 32];
	snprintf(head, sizeof(head), "'%s/proc/interrupts' line %d: ", f->root, line);
	for (size_t i = 0; i < f->irqs.nwarnings; i++)
		if (!strncmp(f->irqs.warnings[i], head, strlen(head)) && strstr(f->irqs.warnings[i], reason))
			return;
	for (size_t i = 0; i < f->irqs.nwarnings; i++)
		print_message("warning: %s\n", f->irqs.warnings[i]);
	fail_msg("no warning '%s...%s'", head, reason);
}

static void assert_has_warning(const struct fixture *f, const char *needle)
{
	for (size_t i = 0; i < f->irqs.nwarnings; i++)
		if (strstr(f->irqs.warnings[i], needle))
			return;
	fail_msg("no warning contains '%s'", needle);
}

static void assert_irq_numbers(const struct fixture *f, const int *want, size_t n)
{
	assert_int_equal(f->irqs.n, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(f->irqs.v[i].irq, want[i]);
}

static void read_counts(struct fixture *f, const char *interrupts)
{
	tmproot_put(f->root, "/proc/interrupts", interrupts);
	int rc = np_irqs_read_counts(&f->ctx, &f->topo, &f->irqs);
	if (rc)
		fail_msg("np_irqs_read_counts: %d (%s)", rc, f->ctx.err);
}

static void test_columns_by_header(void **state)
{
	struct fixture *f = *state;
	/* CPU 2 is offline: the third column is CPU 3's, on node id 2 (index 1). */
	read_counts(f, "           CPU0       CPU1       CPU3       \n"
		       "  5:         10         20         30   IO-APIC   5-edge      ttyS0\n"
		       "  6:          0          0          7   IO-APIC   6-edge      i8042\n"
		       "  7:          0          0          0   IO-APIC   7-edge      parport0\n");
	assert_int_equal(f->irqs.n, 3);
	assert_int_equal(f->irqs.nwarnings, 0);
	struct np_irq *q = find(f, 5);
	assert_int_equal(q->total, 60);
	assert_int_equal(q->per_node[0], 30);
	assert_int_equal(q->per_node[1], 30);
	assert_int_equal(q->unknown_node, 0);
	assert_list(&q->ran_on, "0-1,3");
	assert_false(np_cpuset_test(&q->ran_on, 2));

	q = find(f, 6);
	assert_int_equal(q->total, 7);
	assert_int_equal(q->per_node[0], 0);
	assert_int_equal(q->per_node[1], 7);
	assert_list(&q->ran_on, "3");

	q = find(f, 7);
	assert_int_equal(q->total, 0);
	assert_true(np_cpuset_empty(&q->ran_on));
	assert_false(q->has_affinity);
	assert_int_equal(q->dev, -1);
	assert_int_equal(q->queue, -1);
	assert_int_equal(q->managed, NP_MANAGED_NO);
}

static void test_columns_unknown_node_and_order(void **state)
{
	struct fixture *f = *state;
	/* Columns in any order; CPU 9 belongs to no node of the topology. */
	read_counts(f, "  CPU3 CPU9 CPU0\n"
		       " 11: 1 100 1000 chip 0-edge a\n");
	struct np_irq *q = find(f, 11);
	assert_int_equal(q->total, 1101);
	assert_int_equal(q->per_node[0], 1000);
	assert_int_equal(q->per_node[1], 1);
	assert_int_equal(q->unknown_node, 100);
	assert_list(&q->ran_on, "0,3,9");
}

static void test_wide_header(void **state)
{
	struct fixture *f = *state;
	static const int ids[] = { 0, 1 };
	static const char *const lists[] = { "0-511", "512-1023" };
	np_topology_free(&f->topo);
	make_topo(&f->topo, 2, ids, lists);

	/* 1024 CPUs, CPU 600 offline: one count per column, about 11 KB a row. */
	size_t cap = 1024 * 24 + 256, len = 0;
	char *text = malloc(cap * 4);
	assert_non_null(text);
	len += (size_t)sprintf(text + len, "     ");
	for (int c = 0; c < 1024; c++)
		if (c != 600)
			len += (size_t)sprintf(text + len, "CPU%-8d", c);
	text[len++] = '\n';
	for (int irq = 30; irq < 33; irq++) {
		len += (size_t)sprintf(text + len, "%4d:", irq);
		for (int c = 0; c < 1024; c++)
			if (c != 600)
				len += (size_t)sprintf(text + len, " %10d", c == 1023 ? irq : c == 601 ? 5 : 0);
		len += (size_t)sprintf(text + len, "  IR-PCI-MSIX-0000:18:00.0   %d-edge      megasas0-msix%d\n",
				       irq - 30, irq - 30);
	}
	text[len] = '\0';
	read_counts(f, text);
	free(text);
	assert_int_equal(f->irqs.n, 3);
	assert_int_equal(f->irqs.nwarnings, 0);
	struct np_irq *q = find(f, 31);
	assert_int_equal(q->total, 36);
	assert_int_equal(q->per_node[0], 0);
	assert_int_equal(q->per_node[1], 36);
	assert_list(&q->ran_on, "601,1023");
	assert_string_equal(q->name, "megasas0-msix1");
	assert_string_equal(q->hwirq, "1-edge");
}

/* Rows of 200 counts, mostly zeros, tightly and loosely spaced: the runs of
 * zeros are passed 64 bytes at a time, and what lies between or after them
 * (a count, a tab, junk, a tail that starts with "0") must read exactly as
 * the byte-wise parse reads it. */
static void test_wide_zero_runs(void **state)
{
	struct fixture *f = *state;
	static const int ids[] = { 0, 1 };
	static const char *const lists[] = { "0-99", "100-199" };
	np_topology_free(&f->topo);
	make_topo(&f->topo, 2, ids, lists);

	size_t len = 0;
	char *text = malloc(64 * 1024);
	assert_non_null(text);
	len += (size_t)sprintf(text + len, "     ");
	for (int c = 0; c < 200; c++)
		len += (size_t)sprintf(text + len, "CPU%-8d", c);
	text[len++] = '\n';
	for (int row = 0; row < 7; row++) {
		len += (size_t)sprintf(text + len, "%4d:", 40 + row);
		for (int c = 0; c < 200; c++) {
			/* row 1: single spaces; row 2: a tab; row 3: junk after a zero;
			 * row 4: one count short; row 5: one count more; row 6: counts
			 * at both ends and in the middle. */
			const char *sep = row == 1 ? " " : row == 2 && c == 130 ? "\t" : "          ";
			const char *count = row == 3 && c == 150 ? "0x" : row == 6 && (c == 0 || c == 199) ? "7"
					  : row == 6 && c == 64 ? "12" : "0";
			if (row == 4 && c == 199)
				break;
			len += (size_t)sprintf(text + len, "%s%s", sep, count);
		}
		if (row == 5)
			len += (size_t)sprintf(text + len, " 0");
		/* arm64's form: the hwirq a bare number, then the trigger. */
		len += (size_t)sprintf(text + len, " GICv3 0 Level arch_timer%d\n", row);
	}
	text[len] = '\0';
	read_counts(f, text);
	free(text);

	static const int want[] = { 40, 41, 42, 46 };
	assert_irq_numbers(f, want, sizeof(want) / sizeof(want[0]));
	for (int i = 0; i < 3; i++) {
		struct np_irq *q = find(f, 40 + i);
		assert_int_equal(q->total, 0);
		assert_string_equal(q->chip, "GICv3");
		assert_string_equal(q->hwirq, "0 Level");
	}
	assert_string_equal(find(f, 41)->name, "arch_timer1");
	struct np_irq *q = find(f, 46);
	assert_int_equal(q->total, 26);
	assert_int_equal(q->per_node[0], 19);
	assert_int_equal(q->per_node[1], 7);
	assert_list(&q->ran_on, "0,64,199");
	assert_string_equal(q->hwirq, "0 Level");
	assert_warned(f, 5, "malformed count '0x'");
	assert_warned(f, 6, "199 counts for 200 CPU columns");
	assert_warned(f, 7, "more counts than the 200 CPU columns");
	assert_int_equal(f->irqs.nwarnings, 3);
}

static void test_fields(void **state)
{
	struct fixture *f = *state;
	read_counts(f, "           CPU0       CPU1\n"
		       "  0:         68          0   IO-APIC   2-edge      timer\n"
		       "  9:          0          2   IR-IO-APIC    9-fasteoi   acpi\n"
		       " 24:          1          0  IR-PCI-MSI-0000:00:1c.0    0-edge      PCIe PME, pciehp\n"
		       " 25:          0          3  IR-PCI-MSI-0000:00:1c.4    0-edge\n"
		       " 26:          0          3  IR-PCI-MSI-0000:00:1c.4    0-edge      \n"
		       " 36:          0          0 PCI-MSIX-0000:00:01.0   0-edge      virtio0-config\n"
		       " 40:          4          0   PCI-MSI-edge      eth0\n"
		       " 41:          5          0   PCI-MSI  11534336-edge      nvme0q1\n"
		       " 42:          6          0     GICv3  27 Level     arch_timer\n"
		       " 43:          7          0  xen-dyn     -event     xenbus\n"
		       " 44:          8          0\n"
		       "NMI:          0          0   Non-maskable interrupts\n"
		       "LOC:      19087      21147   Local timer interrupts\n"
		       "IPI0:        10         10   Rescheduling interrupts\n"
		       "ERR:          0\n"
		       "MIS:          0\n"
		       "PIN:          0          0   Posted-interrupt notification event\n");
	assert_int_equal(f->irqs.nwarnings, 0);
	static const int want[] = { 0, 9, 24, 25, 26, 36, 40, 41, 42, 43, 44 };
	assert_irq_numbers(f, want, sizeof(want) / sizeof(want[0]));

	struct np_irq *q = find(f, 0);
	assert_string_equal(q->chip, "IO-APIC");
	assert_string_equal(q->hwirq, "2-edge");
	assert_string_equal(q->name, "timer");
	q = find(f, 9);
	assert_string_equal(q->chip, "IR-IO-APIC");
	assert_string_equal(q->hwirq, "9-fasteoi");
	assert_string_equal(q->name, "acpi");
	q = find(f, 24);
	assert_string_equal(q->chip, "IR-PCI-MSI-0000:00:1c.0");
	assert_string_equal(q->name, "PCIe PME, pciehp");
	q = find(f, 25);
	assert_string_equal(q->hwirq, "0-edge");
	assert_string_equal(q->name, "");
	assert_string_equal(find(f, 26)->name, "");
	q = find(f, 36);
	assert_string_equal(q->chip, "PCI-MSIX-0000:00:01.0");
	assert_string_equal(q->name, "virtio0-config");
	/* Old kernels: the type is part of the chip column and there is no hwirq. */
	q = find(f, 40);
	assert_string_equal(q->chip, "PCI-MSI-edge");
	assert_null(q->hwirq);
	assert_string_equal(q->name, "eth0");
	assert_string_equal(find(f, 41)->hwirq, "11534336-edge");
	q = find(f, 42);
	assert_string_equal(q->chip, "GICv3");
	assert_string_equal(q->hwirq, "27 Level");
	assert_string_equal(q->name, "arch_timer");
	q = find(f, 43);
	assert_string_equal(q->hwirq, "-event");
	assert_string_equal(q->name, "xenbus");
	q = find(f, 44);
	assert_null(q->chip);
	assert_null(q->hwirq);
	assert_string_equal(q->name, "");
	assert_int_equal(q->total, 8);
}

static void test_malformed_rows(void **state)
{
	struct fixture *f = *state;
	/* Line numbers count the header as line 1. */
	static const char text[] =
		"           CPU0       CPU1\n"                                  /* 1 */
		"  1:          1          2   IO-APIC   1-edge   good1\n"        /* 2 */
		"  2:          5   IO-APIC   2-edge   truncated\n"              /* 3 */
		"  3:          1          2          3   IO-APIC   3-edge   x\n" /* 4 */
		"  4:          1 99999999999999999999   IO-APIC   4-edge   x\n" /* 5 */
		"  5:          1          2   IO-APIC   5-edge   good5\n"        /* 6 */
		"  5:          7          7   IO-APIC   5-edge   dup\n"          /* 7 */
		" -6:          1          2   IO-APIC   6-edge   x\n"            /* 8 */
		"99999999999:  1          2   IO-APIC   7-edge   x\n"            /* 9 */
		"  8:          1        2x3   IO-APIC   8-edge   x\n"            /* 10 */
		"  9           1          2   IO-APIC   9-edge   x\n"            /* 11 */
		"  10:         1\xff\x01\x02 2  IO-APIC  10-edge   x\n"          /* 12 */
		"  11:         1          2   IO-APIC  11-edge   x\0junk\n"      /* 13 */
		"?#!\n"                                                          /* 14 */
		" 12:\n"                                                         /* 15 */
		" 13:   18446744073709551615          1   IO-APIC  13-edge   x\n" /* 16 */
		" 14:          3          4   IO-APIC  14-edge   good14\n"       /* 17 */
		" 15:          3          4   IO-APIC  15-edge   trailing"; /* 18, no newline */
	tmproot_put_bytes(f->root, "/proc/interrupts", text, sizeof(text) - 1);
	assert_int_equal(np_irqs_read_counts(&f->ctx, &f->topo, &f->irqs), 0);

	static const int want[] = { 1, 5, 14, 15 };
	assert_irq_numbers(f, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(find(f, 1)->total, 3);
	assert_string_equal(find(f, 5)->name, "good5");
	assert_int_equal(find(f, 5)->total, 3);
	assert_int_equal(find(f, 14)->total, 7);
	assert_string_equal(find(f, 15)->name, "trailing");

	assert_warned(f, 3, "1 counts for 2 CPU columns");
	assert_warned(f, 4, "more counts than the 2 CPU columns");
	assert_warned(f, 5, "too large");
	assert_warned(f, 7, "IRQ 5 again (first on line 6)");
	assert_warned(f, 8, "negative IRQ number");
	assert_warned(f, 9, "IRQ number out of range");
	assert_warned(f, 10, "malformed count '2x3'");
	assert_warned(f, 11, "no ':' after the IRQ number");
	assert_warned(f, 12, "binary content");
	assert_warned(f, 13, "binary content");
	assert_warned(f, 14, "not an interrupt row");
	assert_warned(f, 15, "0 counts for 2 CPU columns");
	assert_warned(f, 16, "add up past 64 bits");
	assert_int_equal(f->irqs.nwarnings, 13);
}

static void test_binary_anywhere(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "CPU0 CPU1\n"
				   " 1: 1 1 c 0-edge one\n"
				   " 2: 1 1 c 0-edge na\x07me\n"
				   " 3: 1\x1b 1 c 0-edge esc\n"
				   " \0" "4: 1 1 c 0-edge nul\n"
				   " 5: 1 1 c 0-edge five\x7f\n"
				   " 6: 1 1 c 0-edge six\r\n"
				   " 7: 1\0 1 c 0-edge seven\n"
				   "NMI: 1 \0 1 Non-maskable interrupts\n";
	tmproot_put_bytes(f->root, "/proc/interrupts", text, sizeof(text) - 1);
	assert_int_equal(np_irqs_read_counts(&f->ctx, &f->topo, &f->irqs), 0);
	static const int want[] = { 1, 6 };
	assert_irq_numbers(f, want, 2);
	assert_string_equal(find(f, 6)->name, "six");
	for (int line = 3; line <= 6; line++)
		assert_warned(f, line, "binary content");
	assert_warned(f, 8, "binary content");
	assert_warned(f, 9, "binary content");
	assert_int_equal(f->irqs.nwarnings, 6);
}

static void test_unsorted_and_duplicates(void **state)
{
	struct fixture *f = *state;
	read_counts(f, "  CPU0 CPU1\n"
		       " 30: 1 0 c 0-edge thirty\n"
		       " 10: 2 0 c 0-edge ten\n"
		       " 20: 3 0 c 0-edge twenty\n"
		       " 10: 4 0 c 0-edge ten-again\n"
		       " 25: 5 0 c 0-edge twentyfive\n"
		       " 10: 6 0 c 0-edge ten-thrice\n");
	static const int want[] = { 10, 20, 25, 30 };
	assert_irq_numbers(f, want, 4);
	/* The first row of a number is kept, wherever the second one is. */
	assert_string_equal(find(f, 10)->name, "ten");
	assert_int_equal(find(f, 10)->total, 2);
	assert_int_equal(find(f, 30)->total, 1);
	assert_warned(f, 5, "IRQ 10 again (first on line 3)");
	assert_warned(f, 7, "IRQ 10 again (first on line 3)");
	assert_int_equal(f->irqs.nwarnings, 2);
	assert_null(np_irqs_find(&f->irqs, 15));
	assert_null(np_irqs_find(&f->irqs, 31));
	assert_null(np_irqs_find(&f->irqs, 0));
}

/* A second grouping counted in the same pass gives what a pass of its own
 * gives, unsorted and duplicate rows included, and the first grouping's
 * counts are those of a plain pass. */
static void test_split_same_pass(void **state)
{
	struct fixture *f = *state;
	tmproot_put(f->root, "/proc/interrupts", "  CPU0 CPU1 CPU2 CPU3\n"
				   " 30: 1 2 3 4 c 0-edge thirty\n"
				   " 10: 5 0 0 7 c 0-edge ten\n"
				   " 20: 0 0 0 0 c 0-edge twenty\n"
				   " 10: 9 9 9 9 c 0-edge ten-again\n"
				   " bad row\n"
				   " 25: 0 8 0 0 c 0-edge twentyfive\n");
	/* CPU0 and CPU2 stay on their nodes (index 0, 1), CPU1 goes to a third
	 * (id 1), CPU3 to none. */
	static const int ids[] = { 0, 2, 1 };
	static const char *const lists[] = { "0", "2", "1" };
	struct np_topology split_topo;
	make_topo(&split_topo, 3, ids, lists);
	struct np_irqs split, plain, alone;
	assert_int_equal(np_irqs_read_counts_split(&f->ctx, &f->topo, &f->irqs, &split_topo, &split), 0);
	assert_int_equal(np_irqs_read_counts(&f->ctx, &f->topo, &plain), 0);
	assert_int_equal(np_irqs_read_counts(&f->ctx, &split_topo, &alone), 0);
	static const int want[] = { 10, 20, 25, 30 };
	assert_irq_numbers(f, want, 4);
	assert_int_equal(f->irqs.nwarnings, plain.nwarnings);
	assert_int_equal(split.n, alone.n);
	assert_int_equal(plain.n, f->irqs.n);
	for (size_t i = 0; i < f->irqs.n; i++) {
		const struct np_irq *q = &f->irqs.v[i], *p = &plain.v[i], *s = &split.v[i], *a = &alone.v[i];
		assert_int_equal(q->irq, p->irq);
		assert_int_equal(q->total, p->total);
		assert_memory_equal(q->per_node, p->per_node, 2 * sizeof(*q->per_node));
		assert_string_equal(q->name, p->name);
		assert_int_equal(s->irq, a->irq);
		assert_int_equal(s->total, a->total);
		assert_int_equal(s->quiet, a->quiet);
		assert_int_equal(s->unknown_node, a->unknown_node);
		assert_memory_equal(s->per_node, a->per_node, 3 * sizeof(*s->per_node));
		assert_true(np_cpuset_equal(&s->ran_on, &a->ran_on));
		/* Counts only. */
		assert_null(s->name);
	}
	const struct np_irq *ten = np_irqs_find(&split, 10);
	assert_non_null(ten);
	assert_int_equal(ten->per_node[0], 5);
	assert_int_equal(ten->per_node[1], 0);
	assert_int_equal(ten->per_node[2], 0);
	assert_int_equal(ten->unknown_node, 7);
	assert_int_equal(np_irqs_find(&split, 25)->per_node[2], 8);
	np_irqs_free(&split);
	np_irqs_free(&plain);
	np_irqs_free(&alone);
	np_topology_free(&split_topo);
}

static void test_warnings_capped(void **state)
{
	struct fixture *f = *state;
	size_t cap = 64 + 300 * 16;
	char *text = malloc(cap);
	assert_non_null(text);
	size_t len = (size_t)sprintf(text, "CPU0 CPU1\n 1: 1 1 c 0-edge one\n");
	for (int i = 0; i < 300; i++)
		len += (size_t)sprintf(text + len, " %d: 1\n", 100 + i);
	read_counts(f, text);
	free(text);
	assert_int_equal(f->irqs.n, 1);
	assert_int_equal(f->irqs.nwarnings, 101);
	assert_warned(f, 3, "1 counts for 2 CPU columns");
	char want[PATH_MAX + 64];
	snprintf(want, sizeof(want), "'%s/proc/interrupts': 200 more malformed lines skipped", f->root);
	assert_string_equal(f->irqs.warnings[100], want);
}

static void test_no_header(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "'%s/proc/interrupts'", f->root);

	tmproot_put(f->root, "/proc/interrupts", "  0:   68   0   IO-APIC   2-edge   timer\n");
	assert_int_equal(np_irqs_read_counts(&f->ctx, &f->topo, &f->irqs), -EINVAL);
	assert_non_null(strstr(f->ctx.err, path));
	assert_non_null(strstr(f->ctx.err, "no header"));
	assert_int_equal(f->irqs.n, 0);
	assert_null(f->irqs.v);

	tmproot_put(f->root, "/proc/interrupts", "");
	assert_int_equal(np_irqs_read_counts(&f->ctx, &f->topo, &f->irqs), -EINVAL);
	assert_non_null(strstr(f->ctx.err, path));

	tmproot_put(f->root, "/proc/interrupts", "   CPU0   CPUx\n  0:  1  2  c  0-edge  t\n");
	assert_int_equal(np_irqs_read_counts(&f->ctx, &f->topo, &f->irqs), -EINVAL);
	assert_non_null(strstr(f->ctx.err, path));
	assert_non_null(strstr(f->ctx.err, "'CPUx'"));

	tmproot_put(f->root, "/proc/interrupts", "   CPU0   CPU0\n");
	assert_int_equal(np_irqs_read_counts(&f->ctx, &f->topo, &f->irqs), -EINVAL);
	assert_non_null(strstr(f->ctx.err, "twice"));

	/* A header alone is a machine with no device interrupts, not an error. */
	tmproot_put(f->root, "/proc/interrupts", "\n   CPU0   CPU1\nNMI: 0 0 Non-maskable interrupts\n");
	assert_int_equal(np_irqs_read_counts(&f->ctx, &f->topo, &f->irqs), 0);
	assert_int_equal(f->irqs.n, 0);
	np_irqs_free(&f->irqs);

	char file[PATH_MAX];
	snprintf(file, sizeof(file), "%s/proc/interrupts", f->root);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(np_irqs_read_counts(&f->ctx, &f->topo, &f->irqs), -ENOENT);
	assert_non_null(strstr(f->ctx.err, file));
}

/* Two CPUs on node 0 and two on node 2, read through np_topology_load. */
static void load_topology(struct fixture *f)
{
	np_topology_free(&f->topo);
	tmproot_put(f->root, "/sys/devices/system/cpu/present", "0-3\n");
	tmproot_put(f->root, "/sys/devices/system/cpu/online", "0-3\n");
	tmproot_put(f->root, "/sys/devices/system/node/node0/cpulist", "0-1\n");
	tmproot_put(f->root, "/sys/devices/system/node/node2/cpulist", "2-3\n");
	int rc = np_topology_load(&f->ctx, &f->topo);
	if (rc)
		fail_msg("np_topology_load: %s", f->ctx.err);
}

static void test_affinity(void **state)
{
	struct fixture *f = *state;
	load_topology(f);
	tmproot_put(f->root, "/proc/interrupts", "   CPU0   CPU1   CPU2   CPU3\n"
				   " 30:  1  2  3  4  chip 0-edge lists\n"
				   " 31:  0  0  0  0  chip 1-edge masks\n"
				   " 32:  0  0  0  0  chip 2-edge none\n"
				   " 33:  0  0  0  0  chip 3-edge bad\n"
				   " 34:  0  0  0  0  chip 4-edge badmask\n");
	tmproot_put(f->root, "/proc/irq/30/smp_affinity_list", "0-3\n");
	tmproot_put(f->root, "/proc/irq/30/smp_affinity", "f\n");
	tmproot_put(f->root, "/proc/irq/30/effective_affinity_list", "2\n");
	tmproot_put(f->root, "/proc/irq/31/smp_affinity", "0000000a\n");
	tmproot_put(f->root, "/proc/irq/31/effective_affinity", "00000008\n");
	tmproot_put(f->root, "/proc/irq/32/node", "0\n");
	tmproot_put(f->root, "/proc/irq/33/smp_affinity_list", "0-x\n");
	tmproot_put(f->root, "/proc/irq/33/effective_affinity_list", "1\n");
	tmproot_put(f->root, "/proc/irq/34/smp_affinity", "zz\n");
	assert_int_equal(np_irqs_read(&f->ctx, &f->topo, &f->irqs), 0);
	assert_int_equal(f->irqs.n, 5);
	assert_false(f->irqs.debugfs);

	struct np_irq *q = find(f, 30);
	assert_int_equal(q->per_node[0], 3);
	assert_int_equal(q->per_node[1], 7);
	assert_true(q->has_affinity);
	assert_list(&q->affinity, "0-3");
	assert_true(q->has_effective);
	assert_list(&q->effective, "2");

	q = find(f, 31);
	assert_true(q->has_affinity);
	assert_list(&q->affinity, "1,3");
	assert_true(q->has_effective);
	assert_list(&q->effective, "3");

	q = find(f, 32);
	assert_false(q->has_affinity);
	assert_false(q->has_effective);

	q = find(f, 33);
	assert_false(q->has_affinity);
	assert_true(np_cpuset_empty(&q->affinity));
	assert_true(q->has_effective);
	assert_list(&q->effective, "1");

	assert_false(find(f, 34)->has_affinity);

	char want[PATH_MAX + 64];
	snprintf(want, sizeof(want), "'%s/proc/irq/33/smp_affinity_list'", f->root);
	assert_has_warning(f, want);
	snprintf(want, sizeof(want), "'%s/proc/irq/34/smp_affinity'", f->root);
	assert_has_warning(f, want);
	assert_int_equal(f->irqs.nwarnings, 2);
	for (size_t i = 0; i < f->irqs.n; i++)
		assert_int_equal(f->irqs.v[i].managed, NP_MANAGED_NO);
}

/* Where new IRQs start: a mask file, optional (absent: unknown). */
static void test_default_affinity(void **state)
{
	struct fixture *f = *state;
	load_topology(f);
	tmproot_put(f->root, "/proc/interrupts", "   CPU0   CPU1   CPU2   CPU3\n"
				   " 30:  1  2  3  4  chip 0-edge lists\n");
	assert_int_equal(np_irqs_read(&f->ctx, &f->topo, &f->irqs), 0);
	assert_false(f->irqs.has_default_affinity);
	assert_int_equal(f->irqs.nwarnings, 0);
	np_irqs_free(&f->irqs);

	tmproot_put(f->root, "/proc/irq/default_smp_affinity", "0000000a\n");
	assert_int_equal(np_irqs_read(&f->ctx, &f->topo, &f->irqs), 0);
	assert_true(f->irqs.has_default_affinity);
	assert_list(&f->irqs.default_affinity, "1,3");
	np_irqs_free(&f->irqs);

	tmproot_put(f->root, "/proc/irq/default_smp_affinity", "0-3\n");
	assert_int_equal(np_irqs_read(&f->ctx, &f->topo, &f->irqs), 0);
	assert_false(f->irqs.has_default_affinity);
	assert_true(np_cpuset_empty(&f->irqs.default_affinity));
	char want[PATH_MAX + 64];
	snprintf(want, sizeof(want), "'%s/proc/irq/default_smp_affinity'", f->root);
	assert_has_warning(f, want);
}

static void test_debugfs_managed(void **state)
{
	struct fixture *f = *state;
	tmproot_put(f->root, "/proc/interrupts", "   CPU0   CPU1\n"
				   " 40:  1  0  PCI-MSIX-0000:00:02.0 0-edge virtio1-config\n"
				   " 41:  0  1  PCI-MSIX-0000:00:02.0 1-edge virtio1-req.0\n"
				   " 42:  0  1  PCI-MSIX-0000:00:02.0 2-edge virtio1-req.1\n"
				   " 43:  0  1  PCI-MSIX-0000:00:02.0 3-edge virtio1-req.2\n");
	tmproot_put(f->root, "/sys/kernel/debug/irq/irqs/40",
	    "handler:  handle_edge_irq\ndevice:   0000:00:02.0\nstatus:   0x00004000\n"
	    "dstate:   0x00401200\n            IRQD_ACTIVATED\n            IRQD_IRQ_STARTED\n"
	    "node:     0\naffinity: 0-1\n");
	tmproot_put(f->root, "/sys/kernel/debug/irq/irqs/41",
	    "handler:  handle_edge_irq\ndevice:   0000:00:02.0\n"
	    "dstate:   0x31600200\n            IRQD_ACTIVATED\n            IRQD_IRQ_STARTED\n"
	    "            IRQD_SINGLE_TARGET\n            IRQD_AFFINITY_MANAGED\n"
	    "node:     0\naffinity: 0\neffectiv: 0\n");
	/* Flags are whole words: a longer one holding the name is not it. */
	tmproot_put(f->root, "/sys/kernel/debug/irq/irqs/43",
	    "dstate:   0x31600200\n            IRQD_AFFINITY_MANAGED_X\n            XIRQD_AFFINITY_MANAGED\n"
	    "            IRQD_SETAFFINITY_PENDING\nnode:     0\n");
	/* 42 has no debugfs file: managed state stays unknown-as-no. */
	assert_int_equal(np_irqs_read(&f->ctx, &f->topo, &f->irqs), 0);
	assert_true(f->irqs.debugfs);
	assert_int_equal(find(f, 40)->managed, NP_MANAGED_NO);
	assert_int_equal(find(f, 41)->managed, NP_MANAGED_YES);
	assert_int_equal(find(f, 42)->managed, NP_MANAGED_NO);
	assert_int_equal(find(f, 43)->managed, NP_MANAGED_NO);
	assert_false(find(f, 41)->move_pending);
	assert_true(find(f, 43)->move_pending);
	assert_int_equal(f->irqs.nwarnings, 0);

	/* With debugfs known, np_irqs_tie infers nothing. */
	char *aliases[] = { "virtio1" };
	struct np_pci_dev dev = { .addr = "0000:00:02.0", .driver = "virtio-pci",
				  .child_driver = "virtio_blk", .aliases = aliases, .naliases = 1 };
	struct np_pci pci = { .devs = &dev, .ndevs = 1 };
	np_irqs_tie(&f->irqs, &pci);
	assert_int_equal(find(f, 41)->managed, NP_MANAGED_YES);
	assert_int_equal(find(f, 42)->managed, NP_MANAGED_NO);
	assert_int_equal(find(f, 42)->queue, 1);
	assert_int_equal(find(f, 42)->tie, NP_TIE_CHIP);
}

static void test_queue_from_name(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int queue;
	} cases[] = {
		{ "mlx5_comp3@pci:0000:af:00.0", 3 },
		{ "mlx5_async0@pci:0000:af:00.0", -1 },
		{ "eth4-TxRx-3", 3 },
		{ "ice-ens3f0-TxRx-0", 0 },
		{ "eth0-fp-3", 3 },
		{ "nvme0q3", 3 },
		{ "nvme0q0", -1 },
		{ "nvme12q17", 17 },
		{ "megasas0-msix5", 5 },
		{ "virtio2-input.0", 0 },
		{ "virtio1-req.0", 0 },
		{ "irdma-0000:4b:00.0-CEQ-0", 0 },
		{ "virtio0-config", -1 },
		{ "virtio3-rx", -1 },
		{ "ice-0000:4b:00.0:misc", -1 },
		{ "ice-0000:4b:00.0", -1 },
		{ "eth0", -1 },
		{ "eno3", -1 },
		{ "i40e-eno1-TxRx-12", 12 },
		{ "eth0-rx-2", 2 },
		{ "eth0-tx-2", 2 },
		{ "ahci[0000:00:17.0]", -1 },
		{ "PCIe PME, pciehp", -1 },
		{ "", -1 },
		{ "-99999999999", -1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = np_irq_queue_from_name(cases[i].name);
		if (got != cases[i].queue)
			fail_msg("'%s': queue %d, want %d", cases[i].name, got, cases[i].queue);
	}
	assert_int_equal(np_irq_queue_from_name(NULL), -1);
}

/* Devices for the tie tests, in ascending address order as np_pci_scan gives them. */
enum {
	D_MSI, D_CHIP, D_ICE, D_VIRTIO1, D_VIRTIO12, D_NVME, D_ETH1, D_ETH10, D_ETH4, D_MLX, D_LEGACY,
	D_LEGACY_MSI, NDEVS
};

struct tie_world {
	struct np_pci_dev devs[NDEVS];
	struct np_netif nets[NDEVS];
	struct np_pci pci;
};

static void add_net(struct tie_world *w, int d, char *name)
{
	w->nets[d].name = name;
	w->devs[d].net = &w->nets[d];
	w->devs[d].nnet = 1;
}

static void make_world(struct tie_world *w)
{
	static int msi[] = { 40, 52 };
	static char *virtio1[] = { "virtio1" }, *virtio12[] = { "virtio12" }, *nvme0[] = { "nvme0" };
	static const char *addrs[NDEVS] = {
		"0000:00:02.0", "0000:00:03.0", "0000:4b:00.0", "0000:00:05.0", "0000:00:06.0",
		"0000:5e:00.0", "0000:60:00.0", "0000:60:00.1", "0000:61:00.0", "0000:af:00.0",
		"0000:b0:00.0", "0000:b1:00.0",
	};
	memset(w, 0, sizeof(*w));
	for (int d = 0; d < NDEVS; d++) {
		snprintf(w->devs[d].addr, sizeof(w->devs[d].addr), "%s", addrs[d]);
		w->devs[d].numa_node = -1;
	}
	w->devs[D_MSI].msi_irqs = msi;
	w->devs[D_MSI].nmsi = 2;
	w->devs[D_MSI].driver = "mlx5_core";
	add_net(w, D_ICE, "ens3f0");
	w->devs[D_ICE].driver = "ice";
	w->devs[D_VIRTIO1].aliases = virtio1;
	w->devs[D_VIRTIO1].naliases = 1;
	w->devs[D_VIRTIO1].driver = "virtio-pci";
	w->devs[D_VIRTIO1].child_driver = "virtio_blk";
	w->devs[D_VIRTIO12].aliases = virtio12;
	w->devs[D_VIRTIO12].naliases = 1;
	w->devs[D_VIRTIO12].driver = "virtio-pci";
	w->devs[D_VIRTIO12].child_driver = "virtio_net";
	w->devs[D_NVME].aliases = nvme0;
	w->devs[D_NVME].naliases = 1;
	w->devs[D_NVME].driver = "nvme";
	add_net(w, D_ETH1, "eth1");
	add_net(w, D_ETH10, "eth10");
	add_net(w, D_ETH4, "eth4");
	w->devs[D_ETH4].driver = "ixgbe";
	w->devs[D_MLX].driver = "mlx5_core";
	w->devs[D_LEGACY].legacy_irq = 16;
	w->devs[D_LEGACY].driver = "ehci-pci";
	w->devs[D_LEGACY_MSI].legacy_irq = 60;
	w->pci.devs = w->devs;
	w->pci.ndevs = NDEVS;
}

static void assert_tie(struct fixture *f, int irq, int dev, enum np_irq_tie tie, int queue)
{
	struct np_irq *q = find(f, irq);
	if (q->dev != dev || q->tie != tie || q->queue != queue)
		fail_msg("IRQ %d '%s': dev %d tie %d queue %d, want dev %d tie %d queue %d", irq, q->name,
			 q->dev, q->tie, q->queue, dev, tie, queue);
}

/* np_irqs_foreach_of_dev visits device d's IRQs, each once, ascending, and
 * nothing for a device past the ones tied. */
static void assert_dev_index(struct fixture *f, size_t ndevs)
{
	assert_non_null(f->irqs.of_dev);
	for (int d = -1; d <= (int)ndevs; d++) {
		size_t want = 0, got = 0, last = 0;
		for (size_t i = 0; i < f->irqs.n; i++)
			want += d >= 0 && f->irqs.v[i].dev == d;
		np_irqs_foreach_of_dev(&f->irqs, d, i) {
			assert_int_equal(f->irqs.v[i].dev, d);
			if (got++)
				assert_true(i > last);
			last = i;
		}
		assert_int_equal(got, want);
	}
}

static void test_tie(void **state)
{
	struct fixture *f = *state;
	read_counts(f, "   CPU0   CPU1\n"
		       " 16:  1  0  IR-IO-APIC   16-fasteoi   ehci_hcd:usb1\n"
		       " 40:  1  0  PCI-MSIX-0000:00:03.0   0-edge   mlx5_async0@pci:0000:00:02.0\n"
		       " 41:  1  0  PCI-MSIX-0000:00:03.0   1-edge   virtio1-input.0\n"
		       " 42:  1  0  PCI-MSI-edge   mlx5_comp3@pci:0000:af:00.0\n"
		       " 43:  1  0  PCI-MSI-edge   ice-0000:4b:00.0:misc\n"
		       " 44:  1  0  PCI-MSI-edge   ice-ens3f0-TxRx-0\n"
		       " 45:  1  0  PCI-MSI-edge   eth4-TxRx-3\n"
		       " 46:  1  0  PCI-MSI-edge   eth40-TxRx-0\n"
		       " 47:  1  0  PCI-MSI-edge   eth10-TxRx-0\n"
		       " 48:  1  0  PCI-MSI-edge   eth1-TxRx-2\n"
		       " 49:  1  0  PCI-MSI-edge   virtio12-input.0\n"
		       " 50:  1  0  PCI-MSI-edge   virtio1-req.0\n"
		       " 51:  1  0  PCI-MSI-edge   virtio1-config\n"
		       " 52:  1  0  IR-PCI-MSI-0000:99:00.0   0-edge   whatever\n"
		       " 53:  1  0  PCI-MSI-edge   nvme0q0\n"
		       " 54:  1  0  PCI-MSI-edge   nvme0q1\n"
		       " 55:  1  0  PCI-MSI-edge   nvme01q1\n"
		       " 56:  1  0  PCI-MSI-edge   virtio12-input.1\n"
		       " 57:  1  0  PCI-MSI-edge   veth4-TxRx-1\n"
		       " 60:  1  0  ITS-MSI   524288 Edge   something\n"
		       " 61:  1  0  IO-APIC   17-fasteoi   lonely\n");
	struct tie_world w;
	make_world(&w);
	np_irqs_tie(&f->irqs, &w.pci);

	/* msi_irqs outranks the chip column naming another function. */
	assert_tie(f, 40, D_MSI, NP_TIE_MSI_IRQS, -1);
	assert_tie(f, 52, D_MSI, NP_TIE_MSI_IRQS, -1);
	/* The chip column outranks the name. */
	assert_tie(f, 41, D_CHIP, NP_TIE_CHIP, 0);
	assert_tie(f, 42, D_MLX, NP_TIE_NAME_ADDR, 3);
	assert_tie(f, 43, D_ICE, NP_TIE_NAME_ADDR, -1);
	assert_tie(f, 44, D_ICE, NP_TIE_NAME_ALIAS, 0);
	assert_tie(f, 45, D_ETH4, NP_TIE_NAME_ALIAS, 3);
	assert_tie(f, 46, -1, NP_TIE_NONE, 0);
	assert_tie(f, 47, D_ETH10, NP_TIE_NAME_ALIAS, 0);
	assert_tie(f, 48, D_ETH1, NP_TIE_NAME_ALIAS, 2);
	assert_tie(f, 49, D_VIRTIO12, NP_TIE_NAME_ALIAS, 0);
	assert_tie(f, 50, D_VIRTIO1, NP_TIE_NAME_ALIAS, 0);
	assert_tie(f, 51, D_VIRTIO1, NP_TIE_NAME_ALIAS, -1);
	assert_tie(f, 53, D_NVME, NP_TIE_NAME_ALIAS, -1);
	assert_tie(f, 54, D_NVME, NP_TIE_NAME_ALIAS, 1);
	assert_tie(f, 55, -1, NP_TIE_NONE, 1);
	assert_tie(f, 57, -1, NP_TIE_NONE, 1);
	assert_tie(f, 16, D_LEGACY, NP_TIE_LEGACY, -1);
	/* An MSI chip's IRQ is never a legacy line, even when the number matches. */
	assert_tie(f, 60, -1, NP_TIE_NONE, -1);
	assert_tie(f, 61, -1, NP_TIE_NONE, -1);

	/* No debugfs: only the I/O queues of managed-vector drivers are inferred. */
	assert_false(f->irqs.debugfs);
	for (size_t i = 0; i < f->irqs.n; i++) {
		const struct np_irq *q = &f->irqs.v[i];
		bool want = q->irq == 50 || q->irq == 54;
		if ((q->managed == NP_MANAGED_INFERRED) != want)
			fail_msg("IRQ %d '%s': managed %d", q->irq, q->name, q->managed);
	}

	/* Each device's loop sees exactly its IRQs, in order. */
	assert_dev_index(f, w.pci.ndevs);

	/* Tying again gives the same answer and does not stack state. */
	np_irqs_tie(&f->irqs, &w.pci);
	assert_dev_index(f, w.pci.ndevs);
	assert_tie(f, 40, D_MSI, NP_TIE_MSI_IRQS, -1);
	assert_int_equal(find(f, 50)->managed, NP_MANAGED_INFERRED);
	assert_int_equal(find(f, 53)->managed, NP_MANAGED_NO);

	/* Without devices, nothing is tied and nothing inferred. */
	struct np_pci none = { .devs = NULL };
	np_irqs_tie(&f->irqs, &none);
	assert_dev_index(f, 0);
	for (size_t i = 0; i < f->irqs.n; i++) {
		assert_int_equal(f->irqs.v[i].dev, -1);
		assert_int_equal(f->irqs.v[i].tie, NP_TIE_NONE);
		assert_int_equal(f->irqs.v[i].managed, NP_MANAGED_NO);
	}
}

static void test_tie_legacy_shared(void **state)
{
	struct fixture *f = *state;
	read_counts(f, "   CPU0   CPU1\n"
		       " 16:  1  0  IO-APIC   16-fasteoi   ehci_hcd:usb1, snd_hda_intel\n"
		       " 17:  1  0  IO-APIC   17-fasteoi   i801_smbus\n"
		       " 18:  1  0  IO-APIC   18-fasteoi   uhci_hcd:usb3\n");
	static int msi[] = { 99 };
	struct np_pci_dev devs[] = {
		{ .addr = "0000:00:01.0", .legacy_irq = 16, .driver = "ehci-pci" },
		{ .addr = "0000:00:1b.0", .legacy_irq = 16, .driver = "snd_hda_intel" },
		/* Uses MSI-X, yet its irq file still shows the INTx line it shares. */
		{ .addr = "0000:00:1c.0", .legacy_irq = 18, .msi_irqs = msi, .nmsi = 1, .driver = "e1000e" },
		{ .addr = "0000:00:1d.0", .legacy_irq = 18, .driver = "uhci-pci" },
		{ .addr = "0000:00:1f.3", .legacy_irq = 17, .msi_irqs = msi, .nmsi = 1, .driver = "x" },
	};
	struct np_pci pci = { .devs = devs, .ndevs = sizeof(devs) / sizeof(devs[0]) };
	np_irqs_tie(&f->irqs, &pci);
	/* The driver named in the action wins over address order... */
	assert_tie(f, 16, 1, NP_TIE_LEGACY, -1);
	/* ...then a function not using MSI over one that is... */
	assert_tie(f, 18, 3, NP_TIE_LEGACY, -1);
	/* ...and a lone candidate is taken as it is. */
	assert_tie(f, 17, 4, NP_TIE_LEGACY, -1);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_columns_by_header),
		T(test_columns_unknown_node_and_order),
		T(test_wide_header),
		T(test_wide_zero_runs),
		T(test_fields),
		T(test_malformed_rows),
		T(test_binary_anywhere),
		T(test_unsorted_and_duplicates),
		T(test_split_same_pass),
		T(test_warnings_capped),
		T(test_no_header),
		T(test_affinity),
		T(test_default_affinity),
		T(test_debugfs_managed),
		T(test_queue_from_name),
		T(test_tie),
		T(test_tie_legacy_shared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
