/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace completion: prints the bash, zsh or fish completion script, made
 * at run time from np_commands[] and the commands' option tables so that it
 * cannot drift from what the commands take. Each script is a hand-written
 * part (the string constants below: how values are found on the machine and
 * how the line is read) and a generated part (the commands, their options,
 * what completes each argument). */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "cmd.h"

const struct np_option completion_options[] = {
	NP_OPT_END,
};

/* What completes a command's operands, from its .operands in the command
 * table ("device...": many devices). The kinds are those of
 * np_option.complete, plus "command" (a numaplace command), "shell",
 * "profile" (profile's list | show NAME | validate FILE...), "profile-name" (a
 * profile name, or a file), "exec" (a command line to run) and "none". A
 * command that says nothing takes files. */
struct operands {
	char kind[32];
	bool many;
};

static struct operands operands_of(const struct np_command *c)
{
	struct operands ops = { "file", true };
	if (c->operands) {
		size_t len = strlen(c->operands);
		ops.many = len > 3 && !strcmp(c->operands + len - 3, "...");
		snprintf(ops.kind, sizeof(ops.kind), "%.*s", (int)(ops.many ? len - 3 : len), c->operands);
	}
	return ops;
}

/* The kinds whose values are fixed words (as the commands parse them): each
 * script gets them from here, in its _numaplace_fixed. */
static const struct {
	const char *kind;
	const char *words;
} word_kinds[] = {
	{ "policy", "local app spread" },
	{ "channels", "per-core per-node" },
	{ "irqbalance", "ban warn ignore" },
	{ "shell", "bash zsh fish" },
	{ "subcommand", "list show validate" },
	{ "class", "gpu net nvme storage all" },
};
#define NWORD_KINDS (sizeof(word_kinds) / sizeof(word_kinds[0]))

/* The commands whose options end at the first operand, space-separated. */
static void print_options_end(FILE *out)
{
	bool first = true;
	for (const struct np_command *c = np_commands; c->name; c++)
		if (np_options_end(c)) {
			fprintf(out, "%s%s", first ? "" : " ", c->name);
			first = false;
		}
}

/* What completes the argument of o: its kind, "none" when nothing does, NULL
 * for a flag. */
static const char *arg_kind(const struct np_option *o)
{
	return !o->arg ? NULL : o->complete ? o->complete : "none";
}

/* zsh offers an option again only when it may be repeated. */
static bool repeatable(const struct np_option *o)
{
	return o->arg && o->help && strstr(o->help, "repeatable");
}

/* The scripts use names and kinds unquoted, as words and case patterns. */
static bool plain(const char *s)
{
	if (!s || !*s || *s == '-')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return false;
	return true;
}

static int check_options(const char *command, const struct np_option *opts)
{
	for (const struct np_option *o = opts; o && o->name; o++)
		if (!plain(o->name) || (o->short_name && !isalnum((unsigned char)o->short_name)) ||
		    (o->complete && !plain(o->complete)) || (o->arg && strpbrk(o->arg, "'\\:\n")))
			return np_error("completion: %s: option '%s' cannot go into a completion script",
					command, o->name);
	return EXIT_OK;
}

static int check_tables(void)
{
	int rc = check_options("numaplace", np_global_options);
	for (const struct np_command *c = np_commands; rc == EXIT_OK && c->name; c++)
		rc = plain(c->name) ? check_options(c->name, c->options)
				    : np_error("completion: command '%s' cannot go into a completion script", c->name);
	return rc;
}

/* Text between single quotes in zsh ("'" as '\''); in an _arguments
 * description (spec), '\', '[' and ']' are escaped too. */
static void zsh_quoted(FILE *out, const char *s, bool spec)
{
	for (; s && *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else if (*s == '\n')
			fputc(' ', out);
		else if (spec && strchr("\\[]", *s))
			fprintf(out, "\\%c", *s);
		else
			fputc(*s, out);
	}
}

/* Text between single quotes in fish, where '\' and '\'' are escaped. */
static void fish_quoted(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\'' || *s == '\\')
			fputc('\\', out);
		fputc(*s == '\n' ? ' ' : *s, out);
	}
}

/* ---- bash ---- */

static const char bash_head[] =
	"# SPDX-License-Identifier: GPL-2.0-or-later\n"
	"# bash completion for numaplace.\n"
	"# Made by 'numaplace completion bash' from the command and option tables:\n"
	"# regenerate it, do not edit it. Install it as\n"
	"# /usr/share/bash-completion/completions/numaplace, or source it.\n"
	"\n";

static const char bash_body[] =
	"# The values of kind $1 on the machine under root $2 ('' for this one).\n"
	"_numaplace_values()\n"
	"{\n"
	"\tlocal f\n"
	"\tcase $1 in\n"
	"\tdevice)\n"
	"\t\tcommand ls -1 -- \"$2/sys/bus/pci/devices\" 2>/dev/null\n"
	"\t\t# Interfaces and disks of a device: not lo, loop0 or a bridge, which\n"
	"\t\t# numaplace refuses.\n"
	"\t\tfor f in \"$2\"/sys/class/net/* \"$2\"/sys/block/*; do\n"
	"\t\t\t[[ -e $f/device || -L $f/device ]] && echo \"${f##*/}\"\n"
	"\t\tdone\n"
	"\t\t;;\n"
	"\tpid)\n"
	"\t\tcommand ls -1 -- \"$2/proc\" 2>/dev/null | while read -r f; do\n"
	"\t\t\t[[ $f == *[!0-9]* ]] || echo \"$f\"\n"
	"\t\tdone\n"
	"\t\t;;\n"
	"\tcommand) echo \"$_numaplace_commands\" ;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"# The column names of a command's table, one a line: \"$@ -o help\" (numaplace\n"
	"# [--root DIR] COMMAND [list]).\n"
	"_numaplace_columns()\n"
	"{\n"
	"\t\"$@\" -o help 2>/dev/null | awk 'NR > 1 { print $1 }'\n"
	"}\n"
	"\n"
	"# The profile names, one a line: \"$@ list -n -o name\" (numaplace [--root DIR]\n"
	"# profile [--profile-dir DIR...]).\n"
	"_numaplace_profiles()\n"
	"{\n"
	"\t\"$@\" list -n -o name 2>/dev/null\n"
	"}\n"
	"\n"
	"_numaplace()\n"
	"{\n"
	"\t# The words up to the cursor, with those bash split at ':' or '=' (as in\n"
	"\t# 0000:03:00.0 or --root=DIR) joined again.\n"
	"\tlocal line=${COMP_LINE:0:COMP_POINT} words=() w i pos=0 glued\n"
	"\tfor ((i = 0; i <= COMP_CWORD; i++)); do\n"
	"\t\tw=${COMP_WORDS[i]} glued=$((i > 0))\n"
	"\t\twhile [[ ${line:pos:1} == [[:space:]] ]]; do\n"
	"\t\t\tpos=$((pos + 1)) glued=0\n"
	"\t\tdone\n"
	"\t\tif ((i == COMP_CWORD)); then\n"
	"\t\t\tw=${line:pos}\n"
	"\t\tfi\n"
	"\t\tif ((glued)); then\n"
	"\t\t\twords[${#words[@]} - 1]+=$w\n"
	"\t\telse\n"
	"\t\t\twords+=(\"$w\")\n"
	"\t\tfi\n"
	"\t\tpos=$((pos + ${#w}))\n"
	"\tdone\n"
	"\n"
	"\t# The global --root, the command, its --profile-dir options and its\n"
	"\t# operands. Options may follow operands (getopt_long permutes), except\n"
	"\t# after \"--\" and for the commands of $_numaplace_options_end.\n"
	"\tlocal last=$((${#words[@]} - 1)) root='' cmd='' opt='' only='' operands=() dirs=()\n"
	"\tfor ((i = 1; i < last; i++)); do\n"
	"\t\tw=${words[i]}\n"
	"\t\tif [[ -n $opt ]]; then\n"
	"\t\t\tw=$opt=$w opt=\n"
	"\t\telif [[ -n $only || $w != -?* ]]; then\n"
	"\t\t\tif [[ -z $cmd ]]; then\n"
	"\t\t\t\tcmd=$w\n"
	"\t\t\telse\n"
	"\t\t\t\toperands+=(\"$w\")\n"
	"\t\t\t\t[[ \" $_numaplace_options_end \" == *\" $cmd \"* ]] && only=1\n"
	"\t\t\tfi\n"
	"\t\t\tcontinue\n"
	"\t\telif [[ $w == -- ]]; then\n"
	"\t\t\tonly=1\n"
	"\t\t\tcontinue\n"
	"\t\telif [[ $w != *=* && -n $(_numaplace_argument \"$cmd\" \"$w\") ]]; then\n"
	"\t\t\topt=$w\n"
	"\t\t\tcontinue\n"
	"\t\tfi\n"
	"\t\tcase $w in\n"
	"\t\t--root=*) [[ -n $cmd ]] || root=${w#*=} ;;\n"
	"\t\t--profile-dir=*) dirs+=(\"$w\") ;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"\n"
	"\t# What completes the word at the cursor.\n"
	"\tlocal cur=${words[last]} kind='' many=''\n"
	"\tif [[ -n $opt ]]; then\n"
	"\t\tkind=$(_numaplace_argument \"$cmd\" \"$opt\")\n"
	"\telif [[ -z $only && $cur == -?*=* ]]; then\n"
	"\t\tkind=$(_numaplace_argument \"$cmd\" \"${cur%%=*}\")\n"
	"\t\tcur=${cur#*=}\n"
	"\telif [[ -z $only && $cur == -* ]]; then\n"
	"\t\tkind=options\n"
	"\telif [[ -z $cmd ]]; then\n"
	"\t\tkind='command'\n"
	"\telse\n"
	"\t\tread -r kind many < <(_numaplace_operands \"$cmd\")\n"
	"\t\tif [[ $many == one && ${#operands[@]} -gt 0 ]]; then\n"
	"\t\t\tkind=none\n"
	"\t\telif [[ $kind == profile ]]; then\n"
	"\t\t\tcase ${#operands[@]}:${operands[0]-} in\n"
	"\t\t\t0:*) kind=subcommand ;;\n"
	"\t\t\t1:show) kind=profile-name ;;\n"
	"\t\t\t*:validate) kind='file' ;;\n"
	"\t\t\t*) kind=none ;;\n"
	"\t\t\tesac\n"
	"\t\telif [[ $kind == exec ]]; then\n"
	"\t\t\tif ((${#operands[@]})); then kind='file'; else kind='executable'; fi\n"
	"\t\tfi\n"
	"\tfi\n"
	"\n"
	"\tCOMPREPLY=()\n"
	"\tcase $kind in\n"
	"\t'' | none) ;;\n"
	"\toptions)\n"
	"\t\tmapfile -t COMPREPLY < <(compgen -W \"$(_numaplace_options \"$cmd\")\" -- \"$cur\") ;;\n"
	"\tdevice | pid | command)\n"
	"\t\tmapfile -t COMPREPLY < <(compgen -W \"$(_numaplace_values \"$kind\" \"$root\")\" -- \"$cur\") ;;\n"
	"\texecutable)\n"
	"\t\tmapfile -t COMPREPLY < <(compgen -c -- \"$cur\") ;;\n"
	"\tcolumns)\t# a comma-separated list: the names after its last comma\n"
	"\t\tlocal pre=''\n"
	"\t\t[[ $cur == *,* ]] && pre=${cur%,*},\n"
	"\t\tmapfile -t COMPREPLY < <(compgen -P \"$pre\" -W \"$(_numaplace_columns \"${words[0]}\" \\\n"
	"\t\t\t${root:+\"--root=$root\"} \"$cmd\" ${operands[0]:+\"${operands[0]}\"})\" -- \"${cur##*,}\")\n"
	"\t\tcompopt -o nospace 2>/dev/null ;;\n"
	"\tdir)\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tmapfile -t COMPREPLY < <(compgen -d -- \"$cur\") ;;\n"
	"\tprofile-name)\n"
	"\t\tmapfile -t COMPREPLY < <(compgen -W \"$(_numaplace_profiles \"${words[0]}\" \\\n"
	"\t\t\t${root:+\"--root=$root\"} profile \"${dirs[@]}\")\" -- \"$cur\")\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tmapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -f -- \"$cur\") ;;\n"
	"\t*)\t# fixed words, file, and the kinds this script does not know\n"
	"\t\tlocal fixed\n"
	"\t\tfixed=$(_numaplace_fixed \"$kind\")\n"
	"\t\tif [[ -n $fixed ]]; then\n"
	"\t\t\tmapfile -t COMPREPLY < <(compgen -W \"$fixed\" -- \"$cur\")\n"
	"\t\telse\n"
	"\t\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
	"\t\tfi ;;\n"
	"\tesac\n"
	"\n"
	"\t# Bash replaces only what follows the last ':' or '=' (of\n"
	"\t# COMP_WORDBREAKS) in the word: give it the matches from there on.\n"
	"\tlocal word=${words[last]} tail=${words[last]}\n"
	"\t[[ $COMP_WORDBREAKS == *:* ]] && tail=${tail##*:}\n"
	"\t[[ $COMP_WORDBREAKS == *=* ]] && tail=${tail##*=}\n"
	"\tlocal head=${word%\"$cur\"} cut=${word%\"$tail\"}\n"
	"\tfor i in \"${!COMPREPLY[@]}\"; do\n"
	"\t\tw=$head${COMPREPLY[i]}\n"
	"\t\tCOMPREPLY[i]=${w#\"$cut\"}\n"
	"\tdone\n"
	"}\n"
	"\n"
	"complete -F _numaplace numaplace\n";

/* " --json -j", without the first space for the first option */
static void bash_option_words(FILE *out, const struct np_option *o, bool first)
{
	fprintf(out, "%s--%s", first ? "" : " ", o->name);
	if (o->short_name)
		fprintf(out, " -%c", o->short_name);
}

/* "advise:--policy | advise:-p) echo policy ;;" */
static void bash_argument_case(FILE *out, const char *command, const struct np_option *o)
{
	const char *kind = arg_kind(o);
	if (!kind)
		return;
	fprintf(out, "\t%s:--%s", command, o->name);
	if (o->short_name)
		fprintf(out, " | %s:-%c", command, o->short_name);
	fprintf(out, ") echo %s ;;\n", kind);
}

static void bash_script(FILE *out)
{
	const struct np_command *c;
	const struct np_option *o;

	fputs(bash_head, out);
	fputs("_numaplace_commands='", out);
	for (c = np_commands; c->name; c++)
		fprintf(out, "%s%s", c == np_commands ? "" : " ", c->name);
	fputs("'\n# Their options end at the first operand (a command line follows).\n"
	      "_numaplace_options_end='", out);
	print_options_end(out);
	fputs("'\n\n", out);

	fputs("# The options of command $1 ('' for the global ones, before the command).\n"
	      "_numaplace_options()\n{\n\tcase $1 in\n\t'') echo '", out);
	for (o = np_global_options; o->name; o++)
		bash_option_words(out, o, o == np_global_options);
	fputs("' ;;\n", out);
	for (c = np_commands; c->name; c++) {
		fprintf(out, "\t%s) echo '", c->name);
		for (o = c->options; o && o->name; o++)
			bash_option_words(out, o, o == c->options);
		bash_option_words(out, np_help_option, !c->options || !c->options[0].name);
		fputs("' ;;\n", out);
	}
	fputs("\tesac\n}\n\n", out);

	fputs("# What completes the argument of option $2 of command $1: a kind (\"file\",\n"
	      "# \"dir\", \"device\", \"pid\", \"policy\"...), \"none\", or nothing for a flag.\n"
	      "_numaplace_argument()\n{\n\tcase $1:$2 in\n", out);
	for (o = np_global_options; o->name; o++)
		bash_argument_case(out, "", o);
	for (c = np_commands; c->name; c++)
		for (o = c->options; o && o->name; o++)
			bash_argument_case(out, c->name, o);
	fputs("\tesac\n}\n\n", out);

	fputs("# The fixed words that complete kind $1 (none for the other kinds).\n"
	      "_numaplace_fixed()\n{\n\tcase $1 in\n", out);
	for (size_t i = 0; i < NWORD_KINDS; i++)
		fprintf(out, "\t%s) echo %s ;;\n", word_kinds[i].kind, word_kinds[i].words);
	fputs("\tesac\n}\n\n", out);

	fputs("# What completes the operands of command $1, and whether it takes one or many.\n"
	      "_numaplace_operands()\n{\n\tcase $1 in\n", out);
	for (c = np_commands; c->name; c++) {
		const struct operands ops = operands_of(c);
		fprintf(out, "\t%s) echo %s %s ;;\n", c->name, ops.kind, ops.many ? "many" : "one");
	}
	fputs("\t*) echo file many ;;\n\tesac\n}\n\n", out);
	fputs(bash_body, out);
}

/* ---- zsh ---- */

static const char zsh_head[] =
	"#compdef numaplace\n"
	"# SPDX-License-Identifier: GPL-2.0-or-later\n"
	"# zsh completion for numaplace.\n"
	"# Made by 'numaplace completion zsh' from the command and option tables:\n"
	"# regenerate it, do not edit it. Install it as _numaplace in a directory of\n"
	"# $fpath, or source it after compinit.\n"
	"\n";

static const char zsh_body[] =
	"# The values of kind $1 on the machine under $_numaplace_root ('' for this one).\n"
	"_numaplace_values() {\n"
	"\tlocal root=$_numaplace_root expl\n"
	"\tlocal -a pci net blk\n"
	"\tcase $1 in\n"
	"\t(dir) _files -/ ;;\n"
	"\t(device)\n"
	"\t\tpci=( $root/sys/bus/pci/devices/*(N:t) )\n"
	"\t\t# Interfaces and disks of a device: not lo, loop0 or a bridge.\n"
	"\t\tlocal f\n"
	"\t\tfor f in $root/sys/class/net/*(N); do [[ -e $f/device || -L $f/device ]] && net+=( ${f:t} ); done\n"
	"\t\tfor f in $root/sys/block/*(N); do [[ -e $f/device || -L $f/device ]] && blk+=( ${f:t} ); done\n"
	"\t\t_alternative 'pci:PCI address:compadd -a pci' 'interfaces:interface:compadd -a net' \\\n"
	"\t\t\t'block-devices:block device:compadd -a blk'\n"
	"\t\t;;\n"
	"\t(pid) _wanted pids expl 'process ID' compadd -- $root/proc/<->(N:t) ;;\n"
	"\t(command) _numaplace_commands ;;\n"
	"\t(profile)\t# after profile's subcommand: show NAME, validate FILE...\n"
	"\t\tcase $line[1] in\n"
	"\t\t(show) _numaplace_values profile-name ;;\n"
	"\t\t(validate) _files ;;\n"
	"\t\tesac\n"
	"\t\t;;\n"
	"\t(profile-name) _alternative 'profiles:profile:_numaplace_profiles' 'files:file:_files' ;;\n"
	"\t(columns)\t# the names of the command's table (-o help), comma-separated\n"
	"\t\tlocal -a args cols\n"
	"\t\t[[ -n $root ]] && args=( --root=$root )\n"
	"\t\targs+=( $_numaplace_cmd )\n"
	"\t\t[[ $_numaplace_cmd == profile ]] && args+=( list )\n"
	"\t\tcols=( ${(f)\"$($_numaplace_prog $args -o help 2>/dev/null | awk 'NR > 1 { print $1 }')\"} )\n"
	"\t\t_values -s , column $cols\n"
	"\t\t;;\n"
	"\t(none) ;;\n"
	"\t(*)\t# fixed words, file, and the kinds this script does not know\n"
	"\t\tlocal -a reply\n"
	"\t\tif _numaplace_fixed $1; then\n"
	"\t\t\t_wanted $1 expl $1 compadd -a reply\n"
	"\t\telse\n"
	"\t\t\t_files\n"
	"\t\tfi\n"
	"\t\t;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"# The profile names: 'numaplace profile list -n -o name'.\n"
	"_numaplace_profiles() {\n"
	"\tlocal -a args lines expl\n"
	"\tlocal dir\n"
	"\t[[ -n $_numaplace_root ]] && args=( --root=$_numaplace_root )\n"
	"\targs+=( profile )\n"
	"\tfor dir in ${(s.:.)opt_args[--profile-dir]}; do\n"
	"\t\targs+=( --profile-dir=${(Q)dir} )\n"
	"\tdone\n"
	"\tlines=( ${(f)\"$($_numaplace_prog $args list -n -o name 2>/dev/null)\"} )\n"
	"\t_wanted profiles expl profile compadd -- $lines\n"
	"}\n"
	"\n";

static const char zsh_tail[] =
	"\n"
	"if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
	"\t_numaplace \"$@\"\n"
	"else\n"
	"\tcompdef _numaplace numaplace\n"
	"fi\n";

/* One _arguments spec, as
 *   '(-j --json)'{-j,--json}'[print JSON]'
 *   '*'{-d,--device=}'[plan only for ...]:FILTER:{_numaplace_values device}'
 *   '--app-cpus=[the application runs ...]:LIST: '
 * The action is in braces: as a plain "function args", _arguments would call
 * the function with its compadd options (-J group ...) before the args. */
static void zsh_option(FILE *out, const char *indent, const struct np_option *o)
{
	const char *kind = arg_kind(o), *eq = kind ? "=" : "";
	bool alone = !strcmp(o->name, "help") || !strcmp(o->name, "version");

	fprintf(out, "%s'", indent);
	if (alone)
		fputs("(- *)", out);
	else if (repeatable(o))
		fputc('*', out);
	else if (o->short_name)
		fprintf(out, "(-%c --%s)", o->short_name, o->name);
	if (o->short_name)
		fprintf(out, "'{-%c,--%s%s}'", o->short_name, o->name, eq);
	else
		fprintf(out, "--%s%s", o->name, eq);
	fputc('[', out);
	zsh_quoted(out, o->help, true);
	fputc(']', out);
	if (kind && !strcmp(kind, "none"))
		fprintf(out, ":%s: ", o->arg);
	else if (kind)
		fprintf(out, ":%s:{_numaplace_values %s}", o->arg, kind);
	fputs("' \\\n", out);
}

static void zsh_operands(FILE *out, const struct operands *ops)
{
	if (!strcmp(ops->kind, "none"))
		return;
	if (!strcmp(ops->kind, "exec"))
		fputs("\t\t\t'1:command:_command_names -e' \\\n"
		      "\t\t\t'*::argument:_normal' \\\n", out);
	else if (!strcmp(ops->kind, "profile"))
		fputs("\t\t\t'1:subcommand:{_numaplace_values subcommand}' \\\n"
		      "\t\t\t'*:argument:{_numaplace_values profile}' \\\n", out);
	else
		fprintf(out, "\t\t\t'%s:%s:{_numaplace_values %s}' \\\n", ops->many ? "*" : "1",
			!strcmp(ops->kind, "profile-name") ? "profile" : ops->kind, ops->kind);
}

static void zsh_script(FILE *out)
{
	const struct np_command *c;
	const struct np_option *o;

	fputs(zsh_head, out);
	fputs("# The commands, with their summaries.\n"
	      "_numaplace_commands() {\n"
	      "\tlocal -a commands\n"
	      "\tcommands=(\n", out);
	for (c = np_commands; c->name; c++) {
		fprintf(out, "\t\t'%s:", c->name);
		zsh_quoted(out, c->summary, false);
		fputs("'\n", out);
	}
	fputs("\t)\n"
	      "\t_describe -t commands 'numaplace command' commands\n"
	      "}\n\n", out);
	fputs("# The fixed words that complete kind $1, in $reply (false for the other kinds).\n"
	      "_numaplace_fixed() {\n"
	      "\tcase $1 in\n", out);
	for (size_t i = 0; i < NWORD_KINDS; i++)
		fprintf(out, "\t(%s) reply=( %s ) ;;\n", word_kinds[i].kind, word_kinds[i].words);
	fputs("\t(*) return 1 ;;\n"
	      "\tesac\n"
	      "}\n\n", out);
	fputs(zsh_body, out);

	fputs("_numaplace() {\n"
	      "\tlocal curcontext=$curcontext state state_descr line ret=1\n"
	      "\tlocal -A opt_args\n"
	      "\tlocal _numaplace_prog=$words[1] _numaplace_root _numaplace_cmd\n"
	      "\t_arguments -C : \\\n", out);
	for (o = np_global_options; o->name; o++)
		zsh_option(out, "\t\t", o);
	fputs("\t\t'1:command:_numaplace_commands' \\\n"
	      "\t\t'*::argument:->command' && ret=0\n"
	      "\t[[ $state == command ]] || return ret\n"
	      "\n"
	      "\t# Options may follow operands (getopt_long permutes), except for a\n"
	      "\t# command line to run.\n"
	      "\t_numaplace_root=${(Q)opt_args[--root]} _numaplace_cmd=$words[1]\n"
	      "\tcurcontext=${curcontext%:*:*}:numaplace-$words[1]:\n"
	      "\tcase $words[1] in\n", out);
	for (c = np_commands; c->name; c++) {
		const struct operands ops = operands_of(c);
		fprintf(out, "\t(%s)\n\t\t_arguments -S%s : \\\n", c->name,
			np_options_end(c) ? " -A '-?*'" : "");
		for (o = c->options; o && o->name; o++)
			zsh_option(out, "\t\t\t", o);
		zsh_option(out, "\t\t\t", np_help_option);
		zsh_operands(out, &ops);
		fputs("\t\t\t&& ret=0\n\t\t;;\n", out);
	}
	fputs("\t(*) _files && ret=0 ;;\n"
	      "\tesac\n"
	      "\treturn ret\n"
	      "}\n", out);
	fputs(zsh_tail, out);
}

/* ---- fish ---- */

static const char fish_head[] =
	"# SPDX-License-Identifier: GPL-2.0-or-later\n"
	"# fish completion for numaplace.\n"
	"# Made by 'numaplace completion fish' from the command and option tables:\n"
	"# regenerate it, do not edit it. Install it as numaplace.fish in a directory\n"
	"# of $fish_complete_path.\n"
	"\n";

static const char fish_body[] =
	"# One part of the line before the cursor: \"root\" (the global --root),\n"
	"# \"command\", \"operands\", \"profile-dirs\" (as --profile-dir=DIR), \"pending\"\n"
	"# (an option waiting for its argument) or \"options\" (the command, while\n"
	"# options may come). Options may follow operands (getopt_long permutes),\n"
	"# except after \"--\" and for the commands of $__numaplace_options_end.\n"
	"function __numaplace_words --argument-names what\n"
	"    set -l words (commandline -opc)\n"
	"    set -e words[1]\n"
	"    set -l root\n"
	"    set -l cmd\n"
	"    set -l operands\n"
	"    set -l dirs\n"
	"    set -l opt\n"
	"    set -l only\n"
	"    for w in $words\n"
	"        if test -n \"$opt\"\n"
	"            set w \"$opt=$w\"\n"
	"            set opt\n"
	"        else if test -n \"$only\"; or not string match -q -- '-?*' $w\n"
	"            if test -z \"$cmd\"\n"
	"                set cmd $w\n"
	"            else\n"
	"                set -a operands $w\n"
	"                contains -- $cmd $__numaplace_options_end; and set only 1\n"
	"            end\n"
	"            continue\n"
	"        else if test \"$w\" = --\n"
	"            set only 1\n"
	"            continue\n"
	"        else if not string match -q -- '*=*' $w\n"
	"            set -l kind (__numaplace_argument \"$cmd\" $w)\n"
	"            if test -n \"$kind\"\n"
	"                set opt $w\n"
	"            end\n"
	"            continue\n"
	"        end\n"
	"        if string match -q -- '--root=*' $w; and test -z \"$cmd\"\n"
	"            set root (string replace -- --root= '' $w)\n"
	"        else if string match -q -- '--profile-dir=*' $w\n"
	"            set -a dirs $w\n"
	"        end\n"
	"    end\n"
	"    switch $what\n"
	"        case root\n"
	"            test -n \"$root\"; and echo $root\n"
	"        case command\n"
	"            test -n \"$cmd\"; and echo $cmd\n"
	"        case operands\n"
	"            for w in $operands\n"
	"                echo $w\n"
	"            end\n"
	"        case profile-dirs\n"
	"            for w in $dirs\n"
	"                echo $w\n"
	"            end\n"
	"        case pending\n"
	"            test -n \"$opt\"; and echo $opt\n"
	"        case options\n"
	"            test -n \"$cmd\"; and test -z \"$only\"; and echo $cmd\n"
	"    end\n"
	"    return 0\n"
	"end\n"
	"\n"
	"# True while the line has no command yet.\n"
	"function __numaplace_needs_command\n"
	"    set -l cmd (__numaplace_words command)\n"
	"    test -z \"$cmd\"\n"
	"end\n"
	"\n"
	"# True when the command is $cmd and an option may come.\n"
	"function __numaplace_option --argument-names cmd\n"
	"    set -l c (__numaplace_words options)\n"
	"    test -n \"$c\"; and test \"$c\" = \"$cmd\"\n"
	"end\n"
	"\n"
	"# True when the word being completed is an operand of command $cmd: any\n"
	"# of them when $many is \"many\", else only the first.\n"
	"function __numaplace_operand --argument-names cmd many\n"
	"    set -l c (__numaplace_words command)\n"
	"    set -l pending (__numaplace_words pending)\n"
	"    test \"$c\" = \"$cmd\"; and test -z \"$pending\"; or return 1\n"
	"    test \"$many\" = many; or test (count (__numaplace_words operands)) -eq 0\n"
	"end\n"
	"\n"
	"# The entries of directory $dir, described as $desc.\n"
	"function __numaplace_list --argument-names dir desc\n"
	"    for f in $dir/*\n"
	"        printf '%s\\t%s\\n' (string replace -r -- '.*/' '' $f) $desc\n"
	"    end\n"
	"end\n"
	"\n"
	"# The entries of directory $dir that have a device link, described as $desc.\n"
	"function __numaplace_list_of_device --argument-names dir desc\n"
	"    for f in $dir/*\n"
	"        if test -e $f/device; or test -L $f/device\n"
	"            printf '%s\\t%s\\n' (string replace -r -- '.*/' '' $f) $desc\n"
	"        end\n"
	"    end\n"
	"end\n"
	"\n"
	"# The profile names: 'numaplace profile list -n -o name'.\n"
	"function __numaplace_profiles\n"
	"    set -l prog (commandline -opc)[1]\n"
	"    set -l root (__numaplace_words root)\n"
	"    set -l args\n"
	"    if test -n \"$root\"\n"
	"        set args --root=$root\n"
	"    end\n"
	"    command $prog $args profile (__numaplace_words profile-dirs) list -n -o name 2>/dev/null\n"
	"end\n"
	"\n"
	"# The values of kind $kind on the machine under the global --root.\n"
	"function __numaplace_values --argument-names kind\n"
	"    set -l root (__numaplace_words root)\n"
	"    set -l operands (__numaplace_words operands)\n"
	"    switch $kind\n"
	"        case dir\n"
	"            __fish_complete_directories\n"
	"        case device\n"
	"            __numaplace_list \"$root/sys/bus/pci/devices\" 'PCI address'\n"
	"            # Interfaces and disks of a device: not lo, loop0 or a bridge.\n"
	"            __numaplace_list_of_device \"$root/sys/class/net\" interface\n"
	"            __numaplace_list_of_device \"$root/sys/block\" 'block device'\n"
	"        case columns\n"
	"            # the names of the command's table (-o help), after the last comma\n"
	"            set -l prog (commandline -opc)[1]\n"
	"            set -l cmd (__numaplace_words command)\n"
	"            set -l args\n"
	"            test -n \"$root\"; and set args --root=$root\n"
	"            test \"$cmd\" = profile; and set cmd profile list\n"
	"            set -l pre (string match -r -- '^.*,' (commandline -ct))\n"
	"            for c in (command $prog $args $cmd -o help 2>/dev/null | string match -r -- '^  \\S+' | string trim)\n"
	"                printf '%s%s\\n' \"$pre\" $c\n"
	"            end\n"
	"        case pid\n"
	"            __numaplace_list \"$root/proc\" process | string match -r '^[0-9]+\\t.*'\n"
	"        case command\n"
	"            __numaplace_commands\n"
	"        case profile\n"
	"            # profile's operands: list | show NAME | validate FILE...\n"
	"            if not set -q operands[1]\n"
	"                __numaplace_fixed subcommand\n"
	"            else if test \"$operands[1]\" = show; and not set -q operands[2]\n"
	"                __numaplace_values profile-name\n"
	"            else if test \"$operands[1]\" = validate\n"
	"                __fish_complete_path (commandline -ct)\n"
	"            end\n"
	"        case profile-name\n"
	"            __numaplace_profiles\n"
	"            __fish_complete_path (commandline -ct)\n"
	"        case exec\n"
	"            if set -q operands[1]\n"
	"                __fish_complete_path (commandline -ct)\n"
	"            else\n"
	"                __fish_complete_command\n"
	"            end\n"
	"        case none\n"
	"        case '*'\n"
	"            # fixed words, file, and the kinds this script does not know\n"
	"            __numaplace_fixed $kind; or __fish_complete_path (commandline -ct)\n"
	"    end\n"
	"end\n"
	"\n"
	"complete -c numaplace -f\n"
	"complete -c numaplace -n __numaplace_needs_command -a '(__numaplace_commands)'\n";

/* "case 'advise:--policy' 'advise:-p'\n    echo policy" */
static void fish_argument_case(FILE *out, const char *command, const struct np_option *o)
{
	const char *kind = arg_kind(o);
	if (!kind)
		return;
	fprintf(out, "        case '%s:--%s'", command, o->name);
	if (o->short_name)
		fprintf(out, " '%s:-%c'", command, o->short_name);
	fprintf(out, "\n            echo %s\n", kind);
}

/* complete -c numaplace -n '__numaplace_option advise' -s p -l policy -x -a '(...)' -d '...'
 * (command NULL: a global option) */
static void fish_option(FILE *out, const char *command, const struct np_option *o)
{
	const char *kind = arg_kind(o);

	if (command)
		fprintf(out, "complete -c numaplace -n '__numaplace_option %s'", command);
	else
		fputs("complete -c numaplace -n __numaplace_needs_command", out);
	if (o->short_name)
		fprintf(out, " -s %c", o->short_name);
	fprintf(out, " -l %s", o->name);
	if (kind && !strcmp(kind, "file"))
		fputs(" -r -F", out);
	else if (kind && !strcmp(kind, "none"))
		fputs(" -x", out);
	else if (kind)
		fprintf(out, " -x -a '(__numaplace_values %s)'", kind);
	fputs(" -d '", out);
	fish_quoted(out, o->help);
	fputs("'\n", out);
}

static void fish_script(FILE *out)
{
	const struct np_command *c;
	const struct np_option *o;

	fputs(fish_head, out);
	fputs("# What completes the argument of option $argv[2] of command $argv[1] ('' for\n"
	      "# the global options): a kind (\"file\", \"dir\", \"device\", \"pid\", \"policy\"...),\n"
	      "# \"none\", or nothing for a flag.\n"
	      "function __numaplace_argument\n"
	      "    switch \"$argv[1]:$argv[2]\"\n", out);
	for (o = np_global_options; o->name; o++)
		fish_argument_case(out, "", o);
	for (c = np_commands; c->name; c++)
		for (o = c->options; o && o->name; o++)
			fish_argument_case(out, c->name, o);
	fputs("    end\nend\n\n", out);

	fputs("# The commands, with their summaries.\n"
	      "function __numaplace_commands\n"
	      "    printf '%s\\t%s\\n' \\\n", out);
	for (c = np_commands; c->name; c++) {
		fprintf(out, "        %s '", c->name);
		fish_quoted(out, c->summary);
		fprintf(out, "'%s\n", c[1].name ? " \\" : "");
	}
	fputs("end\n\n", out);
	fputs("# The fixed words that complete kind $kind (false for the other kinds).\n"
	      "function __numaplace_fixed --argument-names kind\n"
	      "    switch $kind\n", out);
	for (size_t i = 0; i < NWORD_KINDS; i++)
		fprintf(out, "        case %s\n            printf '%%s\\n' %s\n", word_kinds[i].kind,
			word_kinds[i].words);
	fputs("        case '*'\n            return 1\n    end\nend\n\n", out);

	fputs("# Their options end at the first operand (a command line follows).\n"
	      "set -g __numaplace_options_end ", out);
	print_options_end(out);
	fputs("\n\n", out);
	fputs(fish_body, out);

	for (o = np_global_options; o->name; o++)
		fish_option(out, NULL, o);
	for (c = np_commands; c->name; c++) {
		const struct operands ops = operands_of(c);

		fprintf(out, "\n# %s\n", c->name);
		for (o = c->options; o && o->name; o++)
			fish_option(out, c->name, o);
		fish_option(out, c->name, np_help_option);
		if (!strcmp(ops.kind, "none"))
			continue;
		fprintf(out, "complete -c numaplace -n '__numaplace_operand %s %s'", c->name,
			ops.many ? "many" : "one");
		if (!strcmp(ops.kind, "file"))
			fputs(" -F\n", out);
		else
			fprintf(out, " -a '(__numaplace_values %s)'\n", ops.kind);
	}
}

static const struct {
	const char *name;
	void (*print)(FILE *out);
} shells[] = {
	{ "bash", bash_script },
	{ "zsh", zsh_script },
	{ "fish", fish_script },
};

int cmd_completion(int argc, char **argv, struct np_ctx *ctx)
{
	(void)ctx;
	const struct np_command *self = np_command_find("completion");
	int first, rc = np_parse_options(self, argc, argv, NULL, &first);
	if (rc != NP_CONTINUE)
		return rc;
	if (argc - first != 1)
		return np_usage_error(self, "expected one shell: bash, zsh or fish");
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++) {
		if (strcmp(argv[first], shells[i].name))
			continue;
		rc = check_tables();
		if (rc == EXIT_OK)
			shells[i].print(stdout);
		return rc;
	}
	return np_usage_error(self, "unknown shell '%s', expected bash, zsh or fish", argv[first]);
}
