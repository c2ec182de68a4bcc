/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the subcommands share: their table, option parsing, and output helpers. */
#ifndef NUMAPLACE_CMD_H
#define NUMAPLACE_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/context.h"

/* Exit statuses, the same for every command. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* One option of a command. The same table drives parsing, --help and the
 * shell completions, so they cannot drift apart. An option binds to its
 * storage, as git's OPT_* do: the field at `offset` in the command's option
 * struct (whose address the command passes to np_parse_options). */
enum np_opt_type {
	NP_OPT_BOOL,     /* bool, set true */
	NP_OPT_STRING,   /* const char *, the argument */
	NP_OPT_CALLBACK, /* cb(arg, field): parses into the field, returns an exit status */
};
struct np_command;
struct np_option;
typedef int np_opt_cb(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field);
struct np_option {
	const char *name;       /* long name, without "--" */
	char short_name;        /* 0 when there is none */
	const char *arg;        /* argument placeholder, NULL for a flag */
	const char *help;
	const char *complete;   /* what completes the argument: "file", "dir", "device", "pid", "policy", or NULL */
	enum np_opt_type type;
	size_t offset;          /* of the value in the command's option struct */
	np_opt_cb *cb;
	/* A short name kept for one release, with a note when used; not in
	 * --help or the completions (revert -n, now --dry-run only: -n is
	 * --noheadings wherever a table is printed). */
	char old_short;
};

/* The offset of T's field F, which must have type C (a mismatch is a
 * comparison of distinct pointer types: an error with -Werror). */
#define NP_FIELD(T, F, C) (offsetof(T, F) + 0 * sizeof(&((T *)0)->F == (C *)0))
#define NP_OPT_BOOL(s, l, T, F, h) \
	{ .name = (l), .short_name = (s), .help = (h), .type = NP_OPT_BOOL, .offset = NP_FIELD(T, F, bool) }
#define NP_OPT_STRING(s, l, T, F, a, h, c) \
	{ .name = (l), .short_name = (s), .arg = (a), .help = (h), .complete = (c), .type = NP_OPT_STRING, \
	  .offset = NP_FIELD(T, F, const char *) }
#define NP_OPT_CALLBACK(s, l, T, F, FT, a, h, c, fn) \
	{ .name = (l), .short_name = (s), .arg = (a), .help = (h), .complete = (c), .type = NP_OPT_CALLBACK, \
	  .offset = NP_FIELD(T, F, FT), .cb = (fn) }
/* A flag whose short name old is deprecated. */
#define NP_OPT_BOOL_OLD(old, l, T, F, h) \
	{ .name = (l), .old_short = (old), .help = (h), .type = NP_OPT_BOOL, .offset = NP_FIELD(T, F, bool) }
#define NP_OPT_END { .name = NULL }
/* The transaction lock's option, one text for every command that takes it. */
#define NP_OPT_NO_WAIT(T, F) \
	NP_OPT_BOOL(0, "no-wait", T, F, "fail at once when another apply or revert holds the lock")

/* Ready-made callbacks: a number 0..2^22 into an int; a directory appended
 * to a struct np_dirlist (--profile-dir, repeatable); seconds, 0 < SEC <=
 * 3600, into a double (--interval, top's --delay); whole seconds, 1..86400,
 * into an int (hold's --interval, trial's --timeout). */
np_opt_cb np_opt_int, np_opt_dir, np_opt_interval, np_opt_whole_seconds;

/* What apply and hold do about irqbalance (--irqbalance ban|warn|ignore,
 * into an enum np_irqb_mode, lib/change/irqbalance.h). */
np_opt_cb np_opt_irqbalance;

struct np_command {
	const char *name;
	int (*fn)(int argc, char **argv, struct np_ctx *ctx);
	const char *summary;
	const char *usage;      /* after "numaplace NAME " */
	const struct np_option *options;
	const char *epilog;     /* printed at the end of --help: exit statuses, notes */
	const char *operands;   /* what completes the operands: a completion kind, "..." when many;
				   "exec..." (a command line) also ends the options */
};

extern const struct np_command np_commands[];
/* The options before the command: --root, --help, --version. --help is
 * also every command's (np_help_option). */
struct np_global_opts {
	const char *root;
	bool help, version;
	const char *kubelet_state;
};
extern const struct np_option np_global_options[];
extern const struct np_option *const np_help_option;
const struct np_command *np_command_find(const char *name);
void np_print_usage(FILE *out);

/* Parses the options of cmd (argv[0] is its name) into the struct at opts,
 * with getopt_long: options may follow operands and short ones bundle ("-aj");
 * "--" ends them, and so does the first operand of a command whose operands
 * are a command line (run). Returns NP_CONTINUE with *first the index of the
 * first operand (getopt moves them to the end), or else an exit status
 * for the command to return: EXIT_OK after printing the help, EXIT_USAGE after
 * a usage error (with the nearest option name when one is close). */
enum { NP_CONTINUE = -1 };
/* Its operands are a command line (run): its options end at the first. */
bool np_options_end(const struct np_command *c);
int np_parse_options(const struct np_command *cmd, int argc, char **argv, void *opts, int *first);
void np_print_help(const struct np_command *cmd, FILE *out);
/* "  -j, --json   print JSON": the tag padded to width, long-only options
 * aligned with the long names of the others when align_long. */
void np_print_option(const struct np_option *o, FILE *out, int width, bool align_long);
/* Prints "numaplace: CMD: MESSAGE" (as np_say) and returns EXIT_USAGE. */
int np_usage_error(const struct np_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prints "numaplace: MESSAGE" (as np_say) and returns EXIT_FAIL. */
int np_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "numaplace: [WHAT: ]TEXT" on stderr, TEXT with what would not show
 * escaped (np_escape): messages carry names from the machine (interfaces,
 * IRQ actions, paths), whatever bytes the kernel allowed in them. */
void np_say(const char *what, const char *text);
/* With --root ARCHIVE, messages name a file of its unpacked copy (dir, gone
 * once numaplace ends, never named by the user) as the archive's:
 * "snap.tar.gz:/proc/cmdline". np_named_paths: text so named (malloc'd). */
void np_say_unpacked_as(const char *dir, const char *archive);
char *np_named_paths(const char *text);

/* The commands themselves, one file each. */
int cmd_help(int argc, char **argv, struct np_ctx *ctx);
int cmd_topo(int argc, char **argv, struct np_ctx *ctx);
int cmd_report(int argc, char **argv, struct np_ctx *ctx);
int cmd_devices(int argc, char **argv, struct np_ctx *ctx);
int cmd_irqs(int argc, char **argv, struct np_ctx *ctx);
int cmd_advise(int argc, char **argv, struct np_ctx *ctx);
int cmd_app(int argc, char **argv, struct np_ctx *ctx);
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
int cmd_top(int argc, char **argv, struct np_ctx *ctx);
int cmd_hold(int argc, char **argv, struct np_ctx *ctx);
int cmd_metrics(int argc, char **argv, struct np_ctx *ctx);
int cmd_trial(int argc, char **argv, struct np_ctx *ctx);
int cmd_move(int argc, char **argv, struct np_ctx *ctx);
extern const struct np_option help_options[], topo_options[], report_options[], devices_options[],
	irqs_options[], advise_options[], run_options[], profile_options[], apply_options[], verify_options[], revert_options[], history_options[],
	completion_options[], snapshot_options[], enable_options[], disable_options[], top_options[], hold_options[],
	trial_options[], metrics_options[], app_options[], move_options[];

/* What several commands load first (load.c). The profile search path: --profile-dir entries first, then the system and
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
/* Waits seconds (a countdown on stderr when it is a terminal), then
 * replaces m's IRQ counts by what ran in between. Returns 0 or -errno
 * (ctx->err says why). */
int np_sample_interval(struct np_ctx *ctx, struct np_machine *m, double seconds);
/* Leaves what a command built (size bytes at obj: a struct whose pointers
 * own the rest) to the process's exit, which takes its memory back whole,
 * as git's UNLEAK: freeing a 1024-CPU machine one allocation at a time was
 * 7 M instructions of a report. A copy stays reachable, so the leak
 * checker of the tests counts none of it lost. For a command's last step
 * only. */
void np_leave_to_exit(const void *obj, size_t size);
/* The topology's notes and the rows /proc/interrupts had to skip, on stderr. */
void np_print_warnings(const struct np_machine *m);
/* The one PCI function FILTER names (run --near, devices --near): an
 * exit status, the error printed when none or several match. */
int np_find_one_device(struct np_ctx *ctx, const struct np_machine *m, const char *filter, size_t *index);

/* Draws the machine as SVG into path (report --svg): the devices the
 * request selected, marked by the problems it found (np_request_judge
 * first) and the CPUs it forbids. Returns an exit status. */
struct np_request;
int np_report_svg(const struct np_request *req, const char *path);
/* Writes len bytes of text to the user's file path (cmd/render/outfile.c): a link
 * there is refused, a regular file replaced atomically. An exit status. */
int np_write_output(const char *path, const char *text, size_t len);

/* Interrupts per second by node and by device (the selected ones, busiest
 * first; all with NULL), after sampling over seconds. */
void np_print_rates(const struct np_machine *m, const bool *dev_selected, double seconds, FILE *out);

#endif
