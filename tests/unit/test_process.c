/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A process's memory and threads per node (lib/read/process.c): numa_maps in
 * pages and KiB, memory policies, CPU time over an interval by (TID, start
 * time), and the refusals (no process, a kernel thread). */
#include "tmproot.h"

#include "read/process.h"

/* Two nodes, ids 0 and 2 (a gap, as on machines with an offline node):
 * CPUs 0-1 on node 0, CPUs 2-3 on node 2. */
struct two_nodes {
	struct np_topology topo;
	struct np_node nodes[2];
	int node_of_cpu[4];
};

static void two_nodes_init(struct two_nodes *t)
{
	memset(t, 0, sizeof(*t));
	t->nodes[0].id = 0;
	t->nodes[1].id = 2;
	t->node_of_cpu[0] = t->node_of_cpu[1] = 0;
	t->node_of_cpu[2] = t->node_of_cpu[3] = 2;
	t->topo.nodes = t->nodes;
	t->topo.nnodes = 2;
	t->topo.node_of_cpu = t->node_of_cpu;
	t->topo.max_cpu = 3;
}

static void free_notes(char **notes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(notes[i]);
	free(notes);
}

static void test_numa_maps(void **state)
{
	(void)state;
	struct two_nodes t;
	two_nodes_init(&t);
	unsigned long long pages[2] = { 0 }, kib[2] = { 0 };
	char **notes = NULL;
	size_t nnotes = 0;
	const char *text =
		"55d0c8a00000 default file=/usr/sbin/mysqld mapped=100 N0=100 kernelpagesize_kB=4\n"
		"7f6a00000000 default file=/anon_hugepage\\040(deleted) huge anon=3 dirty=3 N2=3 kernelpagesize_kB=2048\n"
		"7f2a00000000 bind:2 anon=10 dirty=10 N2=10 kernelpagesize_kB=4\n"
		"7f2b00000000 bind:2 anon=6 dirty=6 N2=6 kernelpagesize_kB=4\n"
		"7f3a00000000 interleave:0,2 anon=8 N0=4 N2=4 kernelpagesize_kB=4\n"
		"7f4a00000000 weighted interleave:0,2 anon=2 N0=1 N2=1 kernelpagesize_kB=4\n"
		/* A node the topology lacks, and words that only look like counts. */
		"7f5a00000000 default anon=7 N5=7 N=3 Nx=1 N0=2x kernelpagesize_kB=4\n"
		/* No page size: the base page, 4 KiB. Last line without a newline. */
		"7ffd5e1f0000 default stack anon=1 N0=1";
	assert_int_equal(np_numa_maps_parse(text, &t.topo, pages, kib, &notes, &nnotes), 0);
	assert_int_equal(pages[0], 100 + 4 + 1 + 1);
	assert_int_equal(kib[0], 4 * (100 + 4 + 1 + 1));
	assert_int_equal(pages[1], 3 + 10 + 6 + 4 + 1);
	assert_int_equal(kib[1], 3 * 2048 + 4 * (10 + 6 + 4 + 1));
	assert_int_equal(nnotes, 4);
	assert_non_null(strstr(notes[0], "bind:2 on 2 mappings (64 KiB resident)"));
	assert_non_null(strstr(notes[1], "interleave:0,2 on 1 mapping (32 KiB resident)"));
	assert_non_null(strstr(notes[2], "weighted interleave:0,2 on 1 mapping"));
	assert_non_null(strstr(notes[3], "28 KiB of its memory is on nodes the topology does not list"));
	free_notes(notes, nnotes);
}

/* A stat line: the fields the tests vary, the rest as a kernel writes them. */
static void put_stat(const char *root, int pid, int tid, unsigned long flags, unsigned utime, unsigned start, int cpu)
{
	char rel[96], line[512];
	snprintf(rel, sizeof(rel), "/proc/%d/task/%d/stat", pid, tid);
	snprintf(line, sizeof(line),
		 "%d (worker) S 1 %d %d 0 -1 %lu 10 0 0 0 %u 0 0 0 20 0 2 0 %u 1000 10 18446744073709551615 1 1 0 "
		 "0 0 0 0 0 0 0 0 0 -1 %d 0 0 0 0 0\n", tid, pid, pid, flags, utime, start, cpu);
	tmproot_put(root, rel, line);
}

static void put_status(const char *root, int pid, const char *name)
{
	char rel[64], text[256];
	snprintf(rel, sizeof(rel), "/proc/%d/status", pid);
	snprintf(text, sizeof(text), "Name:\t%s\nState:\tS (sleeping)\nCpus_allowed_list:\t0-3\nMems_allowed_list:\t0,2\n",
		 name);
	tmproot_put(root, rel, text);
}

static void test_read_and_sample(void **state)
{
	(void)state;
	char root[64];
	struct np_ctx ctx;
	struct two_nodes t;
	two_nodes_init(&t);
	assert_int_equal(tmproot_create(root, sizeof(root), "/tmp/np-process-XXXXXX", &ctx), 0);
	put_status(root, 50, "db");
	put_stat(root, 50, 50, 0x400040, 100, 1000, 0);
	put_stat(root, 50, 51, 0x400040, 10, 1001, 3);
	put_stat(root, 50, 53, 0x400040, 40, 1002, 2);
	tmproot_put(root, "/proc/50/numa_maps", "1000 default anon=5 N2=5 kernelpagesize_kB=4\n");
	tmproot_put(root, "/proc/50/cgroup", "0::/system.slice/db.service\n");
	tmproot_put(root, "/sys/fs/cgroup/system.slice/db.service/cpuset.cpus.effective", "2-3\n");

	struct np_process p;
	assert_int_equal(np_process_read(&ctx, &t.topo, 50, &p), 0);
	assert_string_equal(p.comm, "db");
	assert_int_equal(p.ntasks, 3);
	assert_int_equal(p.threads_on[0], 1);
	assert_int_equal(p.threads_on[1], 2);
	assert_int_equal(np_cpuset_count(&p.allowed), 4);
	assert_true(np_cpuset_test(&p.mems_allowed, 2) && !np_cpuset_test(&p.mems_allowed, 1));
	assert_string_equal(p.cgroup, "/system.slice/db.service");
	assert_true(p.has_cgroup_cpus);
	assert_int_equal(np_cpuset_count(&p.cgroup_cpus), 2);
	assert_true(p.memory_known);
	assert_int_equal(p.kib[1], 20);
	assert_int_equal(p.kib_total, 20);

	/* During the interval: 50 used 30 ticks and moved to CPU 2 (node 2),
	 * 51 used none, 53 ended and its TID came back as a new thread (another
	 * start time) that used 7, and 54 started and used 5 on CPU 1. */
	put_stat(root, 50, 50, 0x400040, 130, 1000, 2);
	put_stat(root, 50, 51, 0x400040, 10, 1001, 3);
	put_stat(root, 50, 53, 0x400040, 7, 1900, 3);
	put_stat(root, 50, 54, 0x400040, 5, 1950, 1);
	assert_int_equal(np_process_sample(&ctx, &t.topo, &p, 2.0), 0);
	assert_int_equal(p.ticks[1], 30 + 7);
	assert_int_equal(p.ticks[0], 5);
	assert_int_equal(p.ticks_total, 42);
	assert_int_equal(p.busy_threads, 3);
	assert_int_equal(p.ntasks, 4);
	assert_int_equal(p.threads_on[1], 3);
	np_process_free(&p);

	/* Refusals: a kernel thread, a process gone, a status without its CPUs. */
	put_status(root, 2, "kthreadd");
	put_stat(root, 2, 2, 0x208040, 0, 5, 1);
	assert_int_equal(np_process_read(&ctx, &t.topo, 2, &p), -EPERM);
	assert_err_has(&ctx, "kernel thread");
	assert_int_equal(np_process_read(&ctx, &t.topo, 77, &p), -ENOENT);
	assert_err_has(&ctx, "no process 77");
	tmproot_put(root, "/proc/60/status", "Name:\tx\n");
	assert_int_equal(np_process_read(&ctx, &t.topo, 60, &p), -EINVAL);
	assert_err_has(&ctx, "Cpus_allowed_list");
	/* No numa_maps (a copy without it): known to be unknown, said in a note. */
	put_status(root, 70, "lean");
	put_stat(root, 70, 70, 0x400040, 1, 9, 0);
	assert_int_equal(np_process_read(&ctx, &t.topo, 70, &p), 0);
	assert_false(p.memory_known);
	assert_int_equal(p.nnotes, 1);
	assert_non_null(strstr(p.notes[0], "memory per node unknown"));
	np_process_free(&p);
	assert_int_equal(tmproot_remove(root, &ctx), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numa_maps),
		cmocka_unit_test(test_read_and_sample),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
