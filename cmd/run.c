/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/advise.h"
#include "change/move.h"
#include "render/output.h"

struct run_opts {
	const char *near;
	bool print, json, pretty;
};

const struct np_option run_options[] = {
	NP_OPT_STRING(0, "near", struct run_opts, near, "DEVICE",
		      "run on the CPUs and memory of this device's node\n(" NP_FILTER_KINDS ")", "device"),
	NP_OPT_BOOL(0, "print", struct run_opts, print, "print the binding (and the numactl equivalent) instead of running"),
	NP_OPT_JSON(struct run_opts, json, "with --print, print JSON: {\"device\": ADDR, \"cpus\": LIST, \"memory_nodes\": LIST}"),
	NP_OPT_PRETTY(struct run_opts, pretty),
	NP_OPT_END,
};

static int bind_and_exec(const struct np_cpuset *cpus, const struct np_cpuset *nodes, char **cmd)
{
	size_t setsize = CPU_ALLOC_SIZE(np_cpuset_last(cpus) + 1);
	cpu_set_t *mask = CPU_ALLOC(np_cpuset_last(cpus) + 1);
	if (!mask)
		return np_error("%s", strerror(ENOMEM));
	CPU_ZERO_S(setsize, mask);
	np_cpuset_foreach(cpu, cpus) CPU_SET_S((size_t)cpu, setsize, mask);
	int rc = sched_setaffinity(0, setsize, mask);
	CPU_FREE(mask);
	if (rc < 0)
		return np_error("cannot bind to CPUs: %s", strerror(errno));
	if (numa_available() >= 0) {
		struct bitmask *bm = numa_allocate_nodemask();
		np_cpuset_foreach(n, nodes) numa_bitmask_setbit(bm, (unsigned)n);
		errno = 0;
		numa_set_membind(bm);
		numa_bitmask_free(bm);
		if (errno)
			return np_error("cannot bind memory: %s", strerror(errno));
	}
	fflush(stdout);
	execvp(cmd[0], cmd);
	int err = errno;
	np_error("cannot run '%s': %s", cmd[0], strerror(err));
	return err == ENOENT ? 127 : 126;
}

int cmd_run(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("run");
	struct run_opts o = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc != NP_CONTINUE)
		return rc;
	const char *near = o.near;
	bool print = o.print;
	if (!near)
		return np_usage_error(self, "--near DEVICE is required");
	if (o.json && !print)
		return np_usage_error(self, "--json goes with --print: a command that runs prints its own output");
	if (!print && first >= argc)
		return np_usage_error(self, "no command to run (numaplace run --near DEVICE -- CMD ARGS...)");
	if (!print && *ctx->root)
		return np_usage_error(self, "--root describes another machine: only --print makes sense there");

	struct np_machine m;
	if (np_machine_load(ctx, &m))
		return np_error("%s", ctx->err);
	size_t index = 0;
	rc = np_find_one_device(ctx, &m, near, &index);
	const struct np_pci_dev *dev = rc == EXIT_OK ? &m.pci.devs[index] : NULL;
	struct np_cpuset cpus = NP_CPUSET_INIT, nodes = NP_CPUSET_INIT;
	if (rc == EXIT_OK)
		rc = np_device_binding(ctx, &m, dev, &cpus, &nodes) ? np_error("%s", ctx->err) : EXIT_OK;
	if (rc == EXIT_OK) {
		char *c = np_cpuset_format_list(&cpus), *n = np_cpuset_format_list(&nodes);
		if (!c || !n) {
			rc = np_error("%s", strerror(ENOMEM));
		} else if (print && o.json) {
			cJSON *doc = np_json_doc();
			cJSON_AddStringToObject(doc, "device", dev->addr);
			cJSON_AddStringToObject(doc, "cpus", c);
			cJSON_AddStringToObject(doc, "memory_nodes", n);
			rc = np_print_json(doc, o.pretty);
		} else if (print) {
			printf("cpus %s memory-nodes %s\nnumactl --physcpubind=%s --membind=%s\n", c, n, c, n);
		}
		free(c);
		free(n);
		if (!print && rc == EXIT_OK)
			rc = bind_and_exec(&cpus, &nodes, argv + first);
	}
	np_cpuset_free(&cpus);
	np_cpuset_free(&nodes);
	np_machine_free(&m);
	return rc;
}
