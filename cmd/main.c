/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace: see where a device's work runs on a NUMA machine, and place it. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/conffile.h"
#include "read/snapshot.h"
#include "base/nearest.h"

#include "cmd.h"

#ifndef NUMAPLACE_VERSION
#define NUMAPLACE_VERSION "0.1"
#endif

#define FILTER_HELP "FILTER: a PCI address (0000:22:00.0 or 22:00.0), an interface (eth4),\n" \
		    "a block device (sda), a driver (megaraid_sas), a label of devices --matrix (GPU3),\n" \
		    "an RDMA device (mlx5_0) or the start of its IRQs' names (virtio0)."

#define WRITES_EXIT "Exit status: 0 done (or nothing to change), 1 failure (nothing is left half-applied),\n" \
		    "2 bad input (usage, or a profile that is invalid or does not fit this machine)."

const struct np_command np_commands[] = {
	{ .name = "report", .fn = cmd_report, .operands = "none", .options = report_options, .usage = "[--all] [--interval SEC] [--policy POLICY] [--json]",
	  .summary = "Show everything numaplace knows about this machine." },
	{ .name = "topo", .fn = cmd_topo, .operands = "none", .options = topo_options,
	  .summary = "Show NUMA nodes, CPUs, memory and distances." },
	{ .name = "devices", .fn = cmd_devices, .operands = "device...", .options = devices_options, .usage = "[--all] [FILTER...] | --matrix [--class CLASSES] [FILTER...] | --near DEVICE [--class CLASSES]",
	  .summary = "Show PCI devices with their node, queues, block devices and IRQs.", .epilog = FILTER_HELP },
	{ .name = "irqs", .fn = cmd_irqs, .operands = "device...", .options = irqs_options, .usage = "[--interval SEC | --interrupts FILE] [FILTER...]",
	  .summary = "Show every IRQ: device, queue, affinity, where it ran, remote share.",
	  .epilog = FILTER_HELP "\nAn IRQ number is a FILTER too, and the start of an IRQ's name selects the IRQs\n"
				"so named, with or without a device." },
	{ .name = "top", .fn = cmd_top, .operands = "none", .options = top_options,
	  .usage = "[-d SEC] [-f FILTER] [--batch [-n COUNT]]",
	  .summary = "Watch interrupt rates live: per node, per device, the busiest IRQs.",
	  .epilog = "Keys: q quit, p or space pause, s change the sort (rate, irq, name), f filter by device.\n"
		    "--batch prints COUNT plain frames, one per delay, for scripts." },
	{ .name = "advise", .fn = cmd_advise, .operands = "none", .options = advise_options, .usage = "[--policy local|app|spread] [OPTIONS]",
	  .summary = "Recommend IRQ, RPS/XPS and rq_affinity placements, each with its reason." },
	{ .name = "app", .fn = cmd_app, .operands = "none", .options = app_options, .usage = "PID [--interval SEC] [--json]",
	  .summary = "Show a process's threads and memory per node, its devices, and where it belongs.",
	  .epilog = "Exit status: 0 success (problems or not), 1 no such process, a kernel thread, or a file\n"
		    "that cannot be read, 2 usage error." },
	{ .name = "apply", .fn = cmd_apply, .operands = "profile-name", .options = apply_options,
	  .usage = "[--dry-run] [--irqbalance ban|warn|ignore] PROFILE | --boot",
	  .summary = "Apply a profile as one transaction: all of it, checked, or nothing.",
	  .epilog = WRITES_EXIT "\n--boot with no boot profile enabled says so and exits 0." },
	{ .name = "hold", .fn = cmd_hold, .operands = "profile-name", .options = hold_options,
	  .usage = "[--interval SECONDS] [--report-only] [--json] PROFILE | --boot",
	  .summary = "Apply a profile, then keep it applied as devices come and go (foreground).",
	  .epilog = "Re-applies what drifts (kernel uevents, link events, and every --interval seconds) as small\n"
		    "transactions that history shows with their cause. SIGHUP re-reads the profile; SIGTERM and\n"
		    "SIGINT exit 0 and leave the values applied; during a transaction they stop its writes and put\n"
		    "back what it wrote (SIGHUP lets it finish): none is ever left pending.\n"
		    "Exit status: 0 stopped by a signal (or --boot with no boot profile), 1 failure before holding,\n"
		    "2 bad input (usage, or a profile that is invalid or does not fit this machine)." },
	{ .name = "metrics", .fn = cmd_metrics, .operands = "none", .options = metrics_options,
	  .usage = "[--save FILE] [--profile PROFILE]",
	  .summary = "Print placement, drift and hold's work as Prometheus metrics.",
	  .epilog = "The text exposition format, no timestamps: for node_exporter's textfile collector\n"
		    "(--save DIR/numaplace.prom) or any scraper." },
	{ .name = "trial", .fn = cmd_trial, .operands = "profile-name", .options = trial_options,
	  .usage = "[--runs N] [--metric REGEX [--lower-is-better]] [OPTIONS] PROFILE -- CMD [ARGS...]",
	  .summary = "Measure a profile on your own command, in pairs; keep it only if it wins.",
	  .epilog = "The order inside each pair is drawn from a printed seed. The verdict comes from the exact\n"
		    "Wilcoxon signed-rank interval of the per-pair ratios: keep (the profile stays applied as a\n"
		    "transaction carrying the evidence), revert or inconclusive (the machine back to its baseline).\n"
		    "A terminating signal (SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, ...) stops CMD and every process\n"
		    "it started, and returns the machine to its baseline.\n"
		    "Exit status: 0 the trial completed (whatever the verdict), 1 failure, a failing CMD or a signal\n"
		    "(the machine back to its baseline), 2 bad input, 4 with --require-keep a verdict other than keep." },
	{ .name = "verify", .fn = cmd_verify, .operands = "profile-name", .options = verify_options, .usage = "PROFILE",
	  .summary = "Check that the machine matches a profile.",
	  .epilog = "Exit status: 0 the machine matches, 1 drift (the differences are listed), 2 error." },
	{ .name = "revert", .fn = cmd_revert, .operands = "none", .options = revert_options, .usage = "[--force] [--dry-run | --session] [ID]",
	  .summary = "Restore the values saved by the latest (or given) transaction.",
	  .epilog = "Exit status: 0 restored (or from an earlier boot: nothing left to restore),\n"
		    "1 failure (unknown ID, a value changed since, a write refused: nothing is left half-restored),\n"
		    "2 usage error." },
	{ .name = "enable", .fn = cmd_enable, .operands = "profile-name", .options = enable_options, .usage = "[--hold] PROFILE",
	  .summary = "Apply a profile at every boot (checked here, copied to " NP_BOOT_PROFILE ").",
	  .epilog = "Then 'systemctl enable numaplace.service': it runs 'numaplace apply --boot' at boot\n"
		    "(with --hold: numaplace-hold.service, which runs 'numaplace hold --boot').\n"
		    "Exit status: 0 enabled, 1 failure, 2 bad input (usage, or a profile that is invalid or\n"
		    "does not fit this machine)." },
	{ .name = "disable", .fn = cmd_disable, .operands = "none", .options = disable_options,
	  .summary = "Stop applying a profile at boot, held or not (remove " NP_BOOT_PROFILE ").",
	  .epilog = "Exit status: 0 disabled (or none was enabled), 1 failure, 2 usage error." },
	{ .name = "history", .fn = cmd_history, .operands = "none", .options = history_options, .usage = "[ID]",
	  .summary = "List the transactions; with ID, one and its values before and after." },
	{ .name = "profile", .fn = cmd_profile, .operands = "profile...", .options = profile_options, .usage = "list | show NAME | validate FILE...",
	  .summary = "List, show and validate tuning profiles.",
	  .epilog = "Exit status: 0 success, 1 failure, 2 an invalid profile or unknown name." },
	{ .name = "run", .fn = cmd_run, .operands = "exec...", .options = run_options, .usage = "--near DEVICE [--print] [-- CMD ARGS...]",
	  .summary = "Run a command on the CPUs and memory of a device's node.",
	  .epilog = "Exit status: that of CMD; 1 when numaplace cannot bind, 2 usage error, 126/127 when CMD cannot run." },
	{ .name = "move", .fn = cmd_move, .operands = "pid", .options = move_options,
	  .usage = "(--node N | --near DEVICE) [--memory] [--cgroup] [--dry-run] [--json] PID",
	  .summary = "Move a running process's threads (and its memory) to a node, as one transaction.",
	  .epilog = "Every thread's CPU affinity, threads started meanwhile included; revert restores each thread\n"
		    "still running (same TID and start time) and says which are gone; moved memory stays moved.\n"
		    "Exit status: 0 moved (or already there), 1 failure (nothing is left half-moved), 2 bad input\n"
		    "(usage, no such process, a kernel thread, a target without CPUs or memory, a cgroup that owns\n"
		    "the placement without --cgroup)." },
	{ .name = "snapshot", .fn = cmd_snapshot, .options = snapshot_options, .usage = "OUT | OUT.tar.gz",
	  .summary = "Copy the files numaplace reads into a directory or a .tar.gz, for --root on another machine.",
	  .epilog = "OUT must be new or empty. Only the files numaplace and hwloc read are copied: no processes\n"
		    "(only whether irqbalance runs), no MAC addresses, no serial numbers.\n"
		    "Read it with 'numaplace --root OUT report' or 'HWLOC_FSROOT=OUT lstopo'." },
	{ .name = "completion", .fn = cmd_completion, .operands = "shell", .options = completion_options, .usage = "bash|zsh|fish",
	  .summary = "Print the completion script for bash, zsh or fish." },
	{ .name = "help", .fn = cmd_help, .operands = "command", .options = help_options, .usage = "[COMMAND]",
	  .summary = "Show the commands, or the help of one command." },
	{ .name = NULL },
};

const struct np_option np_global_options[] = {
	NP_OPT_STRING(0, "root", struct np_global_opts, root, "DIR",
		      "read and write the machine files under DIR (DIR/sys, DIR/proc)\n"
		      "instead of this machine; also $" NP_ROOT_ENV "; or a snapshot archive", "dir"),
	NP_OPT_BOOL('h', "help", struct np_global_opts, help, "show this help"),
	NP_OPT_BOOL('V', "version", struct np_global_opts, version, "show the version"),
	NP_OPT_STRING(0, "kubelet-state", struct np_global_opts, kubelet_state, "FILE",
		      "read pods' exclusive CPUs from FILE instead of\n"
		      "DIR/var/lib/kubelet/cpu_manager_state", "file"),
	NP_OPT_END,
};
const struct np_option *const np_help_option = &np_global_options[1];

const struct np_command *np_command_find(const char *name)
{
	for (const struct np_command *c = np_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void np_print_usage(FILE *out)
{
	fputs("Usage: numaplace [--root DIR] COMMAND [OPTIONS] [ARGS]\n\nGlobal options:\n", out);
	for (const struct np_option *o = np_global_options; o->name; o++)
		np_print_option(o, out, 22, false);
	fputs("\nCommands:\n", out);
	for (const struct np_command *c = np_commands; c->name; c++)
		fprintf(out, "  %-11s %s\n", c->name, c->summary);
	fputs("\nExit status: 0 success, 1 failure, 2 usage error.\n"
	      "Run 'numaplace COMMAND --help' for the options of a command.\n", out);
}

/* The unpacked copy of an archive is removed when numaplace ends, however
 * it ends (exit, a signal, SIGKILL): a child waits for the end of a pipe
 * that only this process (and what it forks, not what it executes) holds. */
static int remove_at_exit(const char *dir)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int err = errno;
		close(p[0]);
		close(p[1]);
		return -err;
	}
	if (pid == 0) {
		/* Nothing of the parent's: a shell waiting on its output must not wait for this. */
		int null = open("/dev/null", O_RDWR);
		for (int fd = 0; fd < 3 && null >= 0; fd++)
			dup2(null, fd);
		dup2(p[0], 3);
		close_range(4, ~0U, 0);
		/* Ctrl-C reaches the whole process group: this one outlives it. */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		char c;
		ssize_t n;
		while ((n = read(3, &c, 1)) > 0 || (n < 0 && errno == EINTR))
			;
		/* A tar killed with numaplace may still have made a file meanwhile. */
		for (int tries = 0; np_snapshot_remove(dir) && tries < 20; tries++)
			usleep(50000);
		_exit(0);
	}
	close(p[0]);
	return 0; /* p[1] stays open until this process ends */
}

/* --root FILE: a snapshot archive, unpacked into a private temporary
 * directory (read only, removed at exit); *root becomes that copy. */
static int open_archive_root(const char **root, char *tmpdir, char *unpacked)
{
	struct stat st;
	const char *r = *root ? *root : getenv(NP_ROOT_ENV);
	if (!r || stat(r, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	struct np_ctx tmp = { .rootfd = -1 };
	int rc = np_snapshot_tmpdir(&tmp, r, tmpdir);
	if (rc)
		return np_error("--root '%s': %s", r, tmp.err);
	if ((rc = remove_at_exit(tmpdir))) {
		np_snapshot_remove(tmpdir);
		return np_error("--root '%s': cannot arrange the removal of its copy: %s", r, strerror(-rc));
	}
	if (np_snapshot_unpack(&tmp, r, tmpdir, unpacked))
		return np_error("--root '%s': %s", r, tmp.err);
	*root = unpacked;
	return 0;
}

/* The global options, then the command with the rest of the line. */
void np_leave_to_exit(const void *obj, size_t size)
{
	static struct left {
		struct left *next;
	} *kept;
	struct left *l = malloc(sizeof(*l) + size);
	if (!l)
		return; /* the process ends anyway */
	memcpy(l + 1, obj, size);
	l->next = kept;
	kept = l;
}

int main(int argc, char **argv)
{
	struct np_global_opts g = { 0 };
	struct option longopts[5] = { 0 };
	int n = 0, c;
	for (const struct np_option *o = np_global_options; o->name; o++, n++)
		longopts[n] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL, n };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hV", longopts, NULL)) != -1) {
		const struct np_option *o = NULL;
		for (int i = 0; i < n; i++)
			if (c == i || (np_global_options[i].short_name && c == np_global_options[i].short_name))
				o = &np_global_options[i];
		if (c == ':') {
			fprintf(stderr, "numaplace: option '--%s' needs %s\n", np_global_options[optopt].name,
				optopt == 0 ? "a directory" : "a file");
			return EXIT_USAGE;
		}
		if (!o) {
			const char *text = optopt ? (char[]){ '-', (char)optopt, 0 } : argv[optind - 1];
			const char *near = !strncmp(text, "--", 2)
				? np_nearest(text + 2, np_global_options, (size_t)n, sizeof(*np_global_options)) : NULL;
			if (near)
				fprintf(stderr, "numaplace: unknown option '%s'; did you mean '--%s'?\n", text, near);
			else
				fprintf(stderr, "numaplace: unknown option '%s' (try 'numaplace --help')\n", text);
			return EXIT_USAGE;
		}
		void *field = (char *)&g + o->offset;
		if (o->type == NP_OPT_BOOL)
			*(bool *)field = true;
		else
			*(const char **)field = optarg;
		if (g.help) {
			np_print_usage(stdout);
			return EXIT_OK;
		}
		if (g.version) {
			printf("numaplace %s\n", NUMAPLACE_VERSION);
			return EXIT_OK;
		}
	}
	if (optind >= argc) {
		np_print_usage(stderr);
		return EXIT_USAGE;
	}
	const struct np_command *cmd = np_command_find(argv[optind]);
	if (!cmd) {
		size_t ncmds = 0;
		while (np_commands[ncmds].name)
			ncmds++;
		const char *near = np_nearest(argv[optind], np_commands, ncmds, sizeof(*np_commands));
		if (near)
			fprintf(stderr, "numaplace: unknown command '%s'; did you mean '%s'?\n", argv[optind], near);
		else
			fprintf(stderr, "numaplace: unknown command '%s' (try 'numaplace help')\n", argv[optind]);
		return EXIT_USAGE;
	}

	char tmpdir[PATH_MAX], unpacked[PATH_MAX];
	const char *root = g.root, *archive = root ? root : getenv(NP_ROOT_ENV);
	if (open_archive_root(&root, tmpdir, unpacked))
		return EXIT_FAIL;
	struct np_ctx ctx;
	int rc = np_ctx_init(&ctx, root);
	if (rc) {
		np_ctx_fini(&ctx);
		return np_error("%s", ctx.err);
	}
	if (root == unpacked) {
		ctx.archive = archive;
		np_say_unpacked_as(ctx.root, archive);
	}
	ctx.kubelet_state = g.kubelet_state;
	rc = cmd->fn(argc - optind, argv + optind, &ctx);
	np_ctx_fini(&ctx);
	if (fflush(stdout) != 0 && rc == EXIT_OK)
		rc = np_error("cannot write the output");
	return rc;
}
