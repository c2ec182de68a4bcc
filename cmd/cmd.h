/* What the subcommands share: their table, option parsing, and output helpers. */
#ifndef NUMAPLACE_CMD_H
#define NUMAPLACE_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "../lib/context.h"

/* Exit statuses, the same for every command. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* One option of a command. The same table drives parsing, --help and the
 * shell completions, so they cannot drift apart. */
struct np_option {
	const char *name;       /* long name, without "--" */
	char short_name;        /* 0 when there is none */
	const char *arg;        /* argument placeholder, NULL for a flag */
	const char *help;
	const char *complete;   /* what completes the argument: "file", "dir", "device", "pid", "policy", or NULL */
};

struct np_command {
	const char *name;
	int (*fn)(int argc, char **argv, struct np_ctx *ctx);
	const char *summary;
	const char *usage;      /* after "numaplace NAME " */
	const struct np_option *options;
	const char *epilog;     /* printed at the end of --help: exit statuses, notes */
	const char *operands;   /* what completes the operands: a completion kind, "..." when many */
};

extern const struct np_command np_commands[];
const struct np_command *np_command_find(const char *name);
void np_print_usage(FILE *out);

/* Parses the options of cmd, one per call. Returns the index of the matched
 * option in cmd->options (setting *arg); NP_OPT_END at the first operand or
 * the end (st->index is then the operand's index); NP_OPT_ERROR after
 * printing a usage error; NP_OPT_HELP after printing the help. */
enum { NP_OPT_END = -1, NP_OPT_ERROR = -2, NP_OPT_HELP = -3 };
struct np_optparse {
	int index;
};
int np_opt_next(struct np_optparse *st, const struct np_command *cmd, int argc, char **argv,
		const char **arg);
void np_print_help(const struct np_command *cmd, FILE *out);
/* Prints "numaplace: CMD: MESSAGE" and returns EXIT_USAGE. */
int np_usage_error(const struct np_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints "numaplace: MESSAGE" and returns EXIT_FAIL. */
int np_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --interval SEC of irqs and report: EXIT_OK, or EXIT_USAGE after saying why. */
int np_parse_interval(const struct np_command *self, const char *arg, double *seconds);

/* The commands themselves, one file each. */
int cmd_help(int argc, char **argv, struct np_ctx *ctx);
int cmd_topo(int argc, char **argv, struct np_ctx *ctx);
int cmd_report(int argc, char **argv, struct np_ctx *ctx);
int cmd_devices(int argc, char **argv, struct np_ctx *ctx);
int cmd_irqs(int argc, char **argv, struct np_ctx *ctx);
int cmd_advise(int argc, char **argv, struct np_ctx *ctx);
int cmd_run(int argc, char **argv, struct np_ctx *ctx);
int cmd_profile(int argc, char **argv, struct np_ctx *ctx);
int cmd_apply(int argc, char **argv, struct np_ctx *ctx);
int cmd_verify(int argc, char **argv, struct np_ctx *ctx);
int cmd_revert(int argc, char **argv, struct np_ctx *ctx);
int cmd_history(int argc, char **argv, struct np_ctx *ctx);
int cmd_completion(int argc, char **argv, struct np_ctx *ctx);
int cmd_snapshot(int argc, char **argv, struct np_ctx *ctx);
int cmd_enable(int argc, char **argv, struct np_ctx *ctx);
int cmd_disable(int argc, char **argv, struct np_ctx *ctx);
extern const struct np_option help_options[], topo_options[], report_options[], devices_options[],
	irqs_options[], advise_options[], run_options[], profile_options[], apply_options[], verify_options[], revert_options[], history_options[],
	completion_options[], snapshot_options[], enable_options[], disable_options[];

/* Renderings shared between commands (report shows what topo shows). */
struct np_topology;
struct cJSON;
struct cJSON *topo_to_json(const struct np_topology *topo);
void topo_print(const struct np_topology *topo, FILE *out, bool per_cpu);
/* What the topology could not read, one "numaplace: note:" line each. */
void topo_print_notes(const struct np_topology *topo, FILE *out);
struct np_machine;
struct np_irq;
/* Marks the devices a command shows: those matching any filter, else the
 * ones that matter (every one with all). Returns an exit status. */
int np_select_devices(const struct np_machine *m, int nfilters, char **filters, bool all, bool *selected);
struct cJSON *devices_to_json(const struct np_machine *m, const bool *selected);
void devices_print(const struct np_machine *m, const bool *selected, FILE *out);
struct cJSON *irq_to_json(const struct np_machine *m, const struct np_irq *irq);
void irqs_print(const struct np_machine *m, const bool *dev_selected, int nfilters, char **filters, FILE *out);
struct np_topology;
struct np_cpuset;
/* The application's CPUs from --app-cpus, --app-node or --app-pid (the one
 * given: cpus non-NULL, node or pid >= 0). Returns an exit status. */
int np_app_cpus(struct np_ctx *ctx, const struct np_topology *topo, const struct np_command *self,
		const char *cpus, int node, int pid, struct np_cpuset *out);
/* Profile search path: --profile-dir entries first, then the system and
 * installed directories (np_profile_dirs_finish), NULL-terminated. */
struct np_dirlist {
	char **v;
	size_t n;
};
struct np_profile;
int np_dirs_add(struct np_dirlist *d, const char *dir);
int np_profile_dirs_finish(struct np_dirlist *d);
void np_dirs_free(struct np_dirlist *d);
/* Finds and loads a profile by name or path; a missing or invalid profile is
 * a usage error (exit 2), as for any bad input. Returns an exit status. */
int np_profile_open(struct np_ctx *ctx, const struct np_command *self, const struct np_dirlist *dirs,
		    const char *name, struct np_profile *out);

struct np_machine;
struct np_resolved;
/* Loads the profile (dirs: the --profile-dir entries, completed and freed
 * here) and the machine and resolves one on the other, printing what went
 * wrong. Returns an exit status; on EXIT_OK the caller frees all three. */
int np_load_resolved(struct np_ctx *ctx, const struct np_command *self, struct np_dirlist *dirs,
		     const char *name, struct np_machine *m, struct np_profile *prof, struct np_resolved *res);
/* The topology's notes and the rows /proc/interrupts had to skip, on stderr. */
void np_print_warnings(const struct np_machine *m);

/* Prints JSON and a newline to stdout; frees it. Returns an exit status. */
int np_print_json(struct cJSON *json);

#endif
