/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/cpu-load.h"
#include "read/kubelet.h"
#include "read/topology.h"
#include "render/render.h"

struct topo_opts {
	bool json, pretty, cpus;
};

const struct np_option topo_options[] = {
	NP_OPT_JSON(struct topo_opts, json, "print JSON instead of tables"),
	NP_OPT_PRETTY(struct topo_opts, pretty),
	NP_OPT_BOOL('c', "cpus", struct topo_opts, cpus,
		    "also list every CPU with its node, package, core, siblings and time in interrupts"),
	NP_OPT_END,
};

int cmd_topo(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("topo");
	struct topo_opts o = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc != NP_CONTINUE)
		return rc;
	if (first < argc)
		return np_usage_error(self, "unexpected argument '%s'", argv[first]);

	struct np_topology topo;
	struct np_kubelet kube;
	if (np_topology_load(ctx, &topo))
		return np_error("%s", ctx->err);
	if (np_kubelet_load(ctx, ctx->kubelet_state, &kube)) {
		np_topology_free(&topo);
		return np_error("%s", ctx->err);
	}
	/* The time in interrupts is a column of the CPUs; a /proc/stat that
	 * cannot be read leaves it unknown, not the topology unshown. */
	struct np_cpu_load load = { 0 };
	if (np_cpu_load_read(ctx, &topo, &load)) {
		np_notef("note: %s; the CPUs' time in interrupts is unknown\n", ctx->err);
		np_cpu_load_free(&load);
		load = (struct np_cpu_load){ 0 };
	}
	if (o.json) {
		struct np_jw jw;
		np_json_begin(&jw, o.pretty);
		if ((rc = np_topo_write(self, &jw, &topo, &load)) == EXIT_OK && kube.path)
			np_kube_write(&jw, &kube);
		if (rc == EXIT_OK)
			rc = np_json_end(&jw);
	} else {
		np_topo_print_notes(&topo);
		for (size_t i = 0; i < kube.nnotes; i++)
			np_notef("note: %s\n", kube.notes[i]);
		rc = np_topo_print(self, &topo, &load, stdout, o.cpus);
		if (rc == EXIT_OK)
			np_kube_print(&kube, stdout);
	}
	np_cpu_load_free(&load);
	np_kubelet_free(&kube);
	np_topology_free(&topo);
	return rc;
}
