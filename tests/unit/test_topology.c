/* SPDX-License-Identifier: GPL-2.0-or-later */
/* np_topology_load on partial copies and on each format kernels have written:
 * what it cannot read is unknown and noted once, never a failure. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/topology.h"
#include "tmproot.h"

#define CPU "/sys/devices/system/cpu"
#define NODE "/sys/devices/system/node"

struct fixture {
	char root[64];
	struct np_ctx ctx;
	struct np_topology topo;
};

/* 4 CPUs: node 0 = 0-1, node 2 = 2-3, with meminfo, isolated and nohz_full
 * as a kernel booted without them shows; no /proc at all. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f || tmproot_create(f->root, sizeof(f->root), "/tmp/numaplace-unit-XXXXXX", &f->ctx)) {
		free(f);
		return -1;
	}
	tmproot_put(f->root, CPU "/present", "0-3\n");
	tmproot_put(f->root, CPU "/online", "0-3\n");
	tmproot_put(f->root, CPU "/isolated", "\n");
	tmproot_put(f->root, CPU "/nohz_full", "(null)\n");
	tmproot_put(f->root, NODE "/node0/cpulist", "0-1\n");
	tmproot_put(f->root, NODE "/node2/cpulist", "2-3\n");
	for (int c = 0; c < 4; c++) {
		char rel[96];
		snprintf(rel, sizeof(rel), CPU "/cpu%d/topology/physical_package_id", c);
		tmproot_put(f->root, rel, c < 2 ? "0\n" : "1\n");
		snprintf(rel, sizeof(rel), CPU "/cpu%d/topology/core_id", c);
		tmproot_put(f->root, rel, c % 2 ? "1\n" : "0\n");
	}
	tmproot_put(f->root, NODE "/node0/meminfo", "Node 0 MemTotal:        8388608 kB\n");
	tmproot_put(f->root, NODE "/node2/meminfo", "Node 2 MemTotal:        4194304 kB\n");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	np_topology_free(&f->topo);
	int rc = tmproot_remove(f->root, &f->ctx);
	free(f);
	return rc;
}

static void load(struct fixture *f)
{
	np_topology_free(&f->topo);
	if (np_topology_load(&f->ctx, &f->topo))
		fail_msg("np_topology_load: %s", f->ctx.err);
}

static void rm(struct fixture *f, const char *rel)
{
	char path[TMPROOT_PATH_MAX];
	snprintf(path, sizeof(path), "%s%s", f->root, rel);
	assert_int_equal(unlink(path), 0);
}

static void assert_set(const struct np_cpuset *set, const char *want, const char *what)
{
	char *text = np_cpuset_format_list(set);
	assert_non_null(text);
	if (strcmp(text, want))
		fail_msg("%s: '%s', want '%s'", what, text, want);
	free(text);
}

/* The one note there is holds each of the needles. */
static void assert_one_note(const struct np_topology *t, const char *a, const char *b)
{
	if (t->nnotes != 1)
		fail_msg("%zu notes, want 1%s%s", t->nnotes, t->nnotes ? ": " : "", t->nnotes ? t->notes[0] : "");
	if (!strstr(t->notes[0], a) || (b && !strstr(t->notes[0], b)))
		fail_msg("note '%s' lacks '%s' or '%s'", t->notes[0], a, b ? b : "");
}

static void test_kernel_list_formats(void **state)
{
	struct fixture *f = *state;
	char padded[128];
	snprintf(padded, sizeof(padded), "%80s(null)\n", ""); /* a 2-socket EPYC 7451's nohz_full */
	const struct {
		const char *text;
		size_t len;
		const char *want;
	} forms[] = {
		{ "(null)\n", 7, "" },
		{ padded, strlen(padded), "" },
		{ "(null)", 6, "" },
		{ "(null)\n\0", 8, "" },
		{ "\n", 1, "" },
		{ "", 0, "" },
		{ "2-3\n", 4, "2-3" },
		{ "  1,3  \n", 8, "1,3" },
		{ "\t0-1\n", 5, "0-1" },
		{ "3\n\0", 3, "3" },
		{ "3\n\0\0", 4, "3" },
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		tmproot_put_bytes(f->root, CPU "/nohz_full", forms[i].text, forms[i].len);
		tmproot_put_bytes(f->root, CPU "/isolated", forms[i].text, forms[i].len);
		load(f);
		assert_set(&f->topo.nohz_full, forms[i].want, "nohz_full");
		assert_set(&f->topo.isolated, forms[i].want, "isolated");
		if (f->topo.nnotes)
			fail_msg("form %zu: note '%s'", i, f->topo.notes[0]);
	}
}

static void test_garbled_detail_is_a_note(void **state)
{
	struct fixture *f = *state;
	tmproot_put(f->root, CPU "/nohz_full", "cpus 1 and 2\n");
	load(f);
	assert_true(np_cpuset_empty(&f->topo.nohz_full));
	assert_one_note(&f->topo, "/sys/devices/system/cpu/nohz_full': not a CPU list ('cpus 1 and 2')",
			"nohz_full CPUs unknown");
}

static void test_no_isolated_nor_cmdline(void **state)
{
	struct fixture *f = *state;
	rm(f, CPU "/isolated");
	rm(f, CPU "/nohz_full");
	load(f);
	assert_one_note(&f->topo, "isolated and nohz_full CPUs unknown", "/proc/cmdline'");

	/* The command line says what the files would have. */
	tmproot_put(f->root, "/proc/cmdline", "ro isolcpus=domain,3 nohz_full=2-3\n");
	load(f);
	assert_set(&f->topo.isolated, "3", "isolated");
	assert_set(&f->topo.nohz_full, "2-3", "nohz_full");
	assert_int_equal(f->topo.nnotes, 0);
}

static void test_memory_unknown(void **state)
{
	struct fixture *f = *state;
	load(f);
	assert_int_equal(f->topo.nodes[0].memory_kb, 8388608);
	assert_int_equal(f->topo.nodes[1].memory_kb, 4194304);

	/* /proc/meminfo cannot tell two nodes apart: node 2 is unknown. */
	rm(f, NODE "/node2/meminfo");
	tmproot_put(f->root, "/proc/meminfo", "MemTotal:       12582912 kB\n");
	load(f);
	assert_int_equal(f->topo.nodes[0].memory_kb, 8388608);
	assert_int_equal(f->topo.nodes[1].memory_kb, -1);
	assert_one_note(&f->topo, "memory of node 2 unknown", "/node2/meminfo'");
}

static void test_one_node_memory_from_proc(void **state)
{
	struct fixture *f = *state;
	rm(f, NODE "/node2/cpulist");
	rm(f, NODE "/node2/meminfo");
	rm(f, NODE "/node0/meminfo");
	tmproot_put(f->root, NODE "/node0/cpulist", "0-3\n");
	tmproot_put(f->root, "/proc/meminfo", "MemTotal:       12582912 kB\nMemFree: 1 kB\n");
	char path[TMPROOT_PATH_MAX];
	snprintf(path, sizeof(path), "%s" NODE "/node2", f->root);
	assert_int_equal(rmdir(path), 0);
	load(f);
	assert_int_equal(f->topo.nnodes, 1);
	assert_int_equal(f->topo.nodes[0].memory_kb, 12582912);
	assert_int_equal(f->topo.nnotes, 0);

	rm(f, "/proc/meminfo");
	load(f);
	assert_int_equal(f->topo.nodes[0].memory_kb, -1);
	assert_one_note(&f->topo, "memory unknown: no '", "/node0/meminfo' nor '");
}

static void test_cpus_without_topology(void **state)
{
	struct fixture *f = *state;
	tmproot_put_bytes(f->root, CPU "/cpu1/topology/physical_package_id", "0\n\0", 3);
	for (int c = 2; c < 4; c++) {
		char rel[96];
		snprintf(rel, sizeof(rel), CPU "/cpu%d/topology/physical_package_id", c);
		rm(f, rel);
		snprintf(rel, sizeof(rel), CPU "/cpu%d/topology/core_id", c);
		rm(f, rel);
	}
	load(f);
	assert_int_equal(f->topo.ncpus, 4);
	assert_int_equal(f->topo.cpus[1].package, 0);
	assert_int_equal(f->topo.cpus[1].core, 1);
	for (int c = 2; c < 4; c++) {
		assert_true(f->topo.cpus[c].online);
		assert_int_equal(f->topo.cpus[c].node, 2);
		assert_int_equal(f->topo.cpus[c].package, -1);
		assert_int_equal(f->topo.cpus[c].core, -1);
	}
	assert_one_note(&f->topo, "package and core of CPUs 2-3 unknown", "/cpu2/topology' and 1 more");

	/* Offline CPUs have no topology/ on x86: nothing to say. */
	tmproot_put(f->root, CPU "/online", "0-1\n");
	load(f);
	assert_false(f->topo.cpus[2].online);
	assert_int_equal(f->topo.nnotes, 0);
}

/* A file the topology is made of, present but garbled, is still an error. */
static void test_garbled_cpulist_fails(void **state)
{
	struct fixture *f = *state;
	tmproot_put(f->root, NODE "/node2/cpulist", "2-x\n");
	np_topology_free(&f->topo);
	assert_int_equal(np_topology_load(&f->ctx, &f->topo), -EINVAL);
	assert_err_has(&f->ctx, "/node2/cpulist");
}

/* "(null)" tells nothing: with no cpumap and no cpuN/nodeM links either, node
 * 2's CPUs are unknown (in no node), said in a note; never an error. */
static void test_null_cpulist_is_a_note(void **state)
{
	struct fixture *f = *state;
	tmproot_put(f->root, NODE "/node2/cpulist", "(null)\n");
	np_topology_free(&f->topo);
	assert_int_equal(np_topology_load(&f->ctx, &f->topo), 0);
	assert_true(np_cpuset_empty(&np_topology_node(&f->topo, 2)->cpus));
	assert_int_equal(np_topology_node_of_cpu(&f->topo, 2), -1);
	assert_int_equal(np_topology_node_of_cpu(&f->topo, 0), 0);
	bool noted = false;
	for (size_t i = 0; i < f->topo.nnotes; i++)
		noted |= strstr(f->topo.notes[i], "CPU list of node 2 unknown") && strstr(f->topo.notes[i], "reads '(null)'");
	assert_true(noted);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_kernel_list_formats),
		T(test_garbled_detail_is_a_note),
		T(test_no_isolated_nor_cmdline),
		T(test_memory_unknown),
		T(test_one_node_memory_from_proc),
		T(test_cpus_without_topology),
		T(test_garbled_cpulist_fails),
		T(test_null_cpulist_is_a_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
