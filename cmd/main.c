/* numaplace: see where a device's work runs on a NUMA machine, and place it. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

#ifndef NUMAPLACE_VERSION
#define NUMAPLACE_VERSION "0.1"
#endif

const struct np_command np_commands[] = {
	{ "report", cmd_report, "Show everything numaplace knows about this machine.", NULL, report_options },
	{ "devices", cmd_devices, "Show PCI devices with their node, queues, block devices and IRQs.", "[--all] [FILTER...]", devices_options },
	{ "irqs", cmd_irqs, "Show every IRQ: device, queue, affinity, where it ran, remote share.", "[--interval SEC] [FILTER...]", irqs_options },
	{ "advise", cmd_advise, "Recommend IRQ, RPS/XPS and rq_affinity placements, each with its reason.", "[--policy local|app|spread] [OPTIONS]", advise_options },
	{ "profile", cmd_profile, "List, show and validate tuning profiles.", "list | show NAME | validate FILE...", profile_options },
	{ "run", cmd_run, "Run a command on the CPUs and memory of a device's node.", "--near DEVICE [--print] [-- CMD ARGS...]", run_options },
	{ "topo", cmd_topo, "Show NUMA nodes, CPUs, memory and distances.", NULL, topo_options },
	{ "help", cmd_help, "Show the commands, or the help of one command.", "[COMMAND]", help_options },
	{ NULL, NULL, NULL, NULL, NULL },
};

const struct np_command *np_command_find(const char *name)
{
	for (const struct np_command *c = np_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void np_print_usage(FILE *out)
{
	fputs("Usage: numaplace [--root DIR] COMMAND [OPTIONS] [ARGS]\n\n"
	      "Global options:\n"
	      "  --root DIR     read and write the machine files under DIR (DIR/sys, DIR/proc)\n"
	      "                 instead of this machine; also $" NP_ROOT_ENV "\n"
	      "  -h, --help     show this help\n"
	      "  -V, --version  show the version\n\n"
	      "Commands:\n", out);
	for (const struct np_command *c = np_commands; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fputs("\nExit status: 0 success, 1 failure, 2 usage error.\n"
	      "Run 'numaplace COMMAND --help' for the options of a command.\n", out);
}

int main(int argc, char **argv)
{
	const char *root = NULL;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			np_print_usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			printf("numaplace %s\n", NUMAPLACE_VERSION);
			return EXIT_OK;
		} else if (!strcmp(a, "--root")) {
			if (++i >= argc) {
				fputs("numaplace: option '--root' needs a directory\n", stderr);
				return EXIT_USAGE;
			}
			root = argv[i];
		} else if (!strncmp(a, "--root=", 7)) {
			root = a + 7;
		} else {
			fprintf(stderr, "numaplace: unknown option '%s' (try 'numaplace --help')\n", a);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		np_print_usage(stderr);
		return EXIT_USAGE;
	}
	const struct np_command *cmd = np_command_find(argv[i]);
	if (!cmd) {
		fprintf(stderr, "numaplace: unknown command '%s' (try 'numaplace help')\n", argv[i]);
		return EXIT_USAGE;
	}

	struct np_ctx ctx;
	int rc = np_ctx_init(&ctx, root);
	if (rc) {
		np_ctx_fini(&ctx);
		return np_error("%s", ctx.err);
	}
	rc = cmd->fn(argc - i, argv + i, &ctx);
	np_ctx_fini(&ctx);
	if (fflush(stdout) != 0 && rc == EXIT_OK)
		rc = np_error("cannot write the output");
	return rc;
}
