/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "change/resolve.h"
#include "judge/request.h"
#include "base/quote.h"
#include "base/count.h"
#include "cmd.h"
#include "render/output.h"
#include "render/term.h"

struct advise_opts {
	struct np_request_opts req;
	const char *output, *channels;
	bool json, pretty, table;
};

static int add_filter(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	(void)cmd;
	(void)o;
	return np_filters_add(field, arg) ? np_error("%s", strerror(ENOMEM)) : EXIT_OK;
}

/* -o FILE, kept for one release: it is --save, said so on stderr. */
static int deprecated_save(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	(void)o;
	fprintf(stderr, "numaplace: %s: -o/--output FILE is deprecated and will name columns in the next release: use --save %s\n",
		cmd->name, arg);
	*(const char **)field = arg;
	return EXIT_OK;
}

const struct np_option advise_options[] = {
	NP_OPT_STRING('p', "policy", struct advise_opts, req.policy, "POLICY",
		      "local (IRQs on the device's node, default), app, or spread", "policy"),
	NP_OPT_STRING(0, "app-cpus", struct advise_opts, req.app_cpus, "LIST",
		      "the application runs on these CPUs (for --policy app)", NULL),
	NP_OPT_CALLBACK(0, "app-node", struct advise_opts, req.app_node, int, "NODE",
			"the application runs on this node (for --policy app)", NULL, np_opt_int),
	NP_OPT_CALLBACK(0, "app-pid", struct advise_opts, req.app_pid, int, "PID",
			"the application is this process: its CPUs, where it belongs, and (for --policy app) its devices",
			"pid", np_opt_int),
	NP_OPT_STRING(0, "pod", struct advise_opts, req.pod, "POD",
		      "the application is this Kubernetes pod (UID, or UID/CONTAINER): its exclusive CPUs", NULL),
	NP_OPT_CALLBACK('d', "device", struct advise_opts, req.devices, struct np_filters, "FILTER",
			"plan only for matching devices (repeatable); with --policy app, the application's devices",
			"device", add_filter),
	NP_OPT_STRING('x', "exclude-cpus", struct advise_opts, req.exclude, "LIST", "keep these CPUs free of IRQs", NULL),
	NP_OPT_CALLBACK('i', "interval", struct advise_opts, req.interval, double, "SEC",
			"weigh IRQs by what they ran during SEC seconds (0 < SEC <= 3600), not since boot", NULL,
			np_opt_interval),
	NP_OPT_STRING(0, "channels", struct advise_opts, channels, "HOW",
		      "per-core: the plan carries the channel count judged right; per-node: one queue per node (spread)",
		      "channels"),
	NP_OPT_STRING(0, "save", struct advise_opts, output, "FILE",
		      "also write the plan as a profile for 'numaplace apply'", "file"),
	NP_OPT_CALLBACK('o', "output", struct advise_opts, output, const char *, "FILE",
			"deprecated: --save FILE (-o will name columns, as in the other commands)", "file",
			deprecated_save),
	NP_OPT_BOOL(0, "xps", struct advise_opts, req.xps,
		    "XPS follows the IRQs of every device selected, not only of those whose IRQs move"),
	NP_OPT_BOOL(0, "table", struct advise_opts, table, "print the changes as one table, not grouped by device"),
	NP_OPT_JSON(struct advise_opts, json, "print JSON instead of text"),
	NP_OPT_PRETTY(struct advise_opts, pretty),
	NP_OPT_END,
};

static void target_text(const struct np_machine *m, const struct np_rec *r, char *buf, size_t size)
{
	if (r->kind == NP_ATTR_IRQ_AFFINITY) {
		snprintf(buf, size, "irq %d %s (%s)", r->irq, r->vector, m->pci.devs[r->dev].addr);
		return;
	}
	struct np_target t = { .irq = r->irq, .queue = r->queue, .net = r->net, .block = r->block };
	char *subject = np_attr_subject(r->kind, &t);
	snprintf(buf, size, "%s", subject ? subject : np_attr_name(r->kind));
	free(subject);
}

/* The plan's rows: the recommendations that change something. */
#define MACHINE(data) ((const struct np_machine *)(data))
#define REC(row) ((const struct np_rec *)(row))

static int get_kind(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, np_attr_name(REC(row)->kind));
}

static int get_device(const void *data, const void *row, struct np_value *v)
{
	int dev = REC(row)->dev;
	return np_val_str(v, dev >= 0 ? MACHINE(data)->pci.devs[dev].addr : NULL);
}

static int get_irq(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return REC(row)->irq >= 0 ? np_val_int(v, REC(row)->irq) : np_val_null(v);
}

static int get_vector(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, REC(row)->vector);
}

static int get_queue(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return REC(row)->queue >= 0 ? np_val_int(v, REC(row)->queue) : np_val_null(v);
}

static int get_block(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, REC(row)->block);
}

static int get_net(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, REC(row)->net);
}

static int get_target(const void *data, const void *row, struct np_value *v)
{
	char target[160];
	target_text(MACHINE(data), REC(row), target, sizeof(target));
	return np_val_copy(v, target);
}

static int get_current(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, REC(row)->current);
}

static int get_recommended(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, REC(row)->recommended);
}

static int get_reason(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, REC(row)->reason);
}

/* The command that does the same by hand (ethtool -L). */
static int get_command(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	const struct np_rec *r = REC(row);
	if (!np_attrs[r->kind].command)
		return np_val_null(v);
	char *cmd = np_attr_command(r->kind, &r->target, r->recommended);
	return cmd ? np_val_take(v, cmd) : -ENOMEM;
}

/* What a recommendation moves: interrupts at stake, their share handled
 * today off the device's node, and whether it moves onto or off that node. */
static int get_volume(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	const struct np_rec *r = REC(row);
	char buf[200], n[16];
	if (r->kind != NP_ATTR_IRQ_AFFINITY)
		return np_val_null(v);
	/* A rate when what the counts cover is known; remote is off the
	 * device's node (unsaid for an IRQ that never fired, or of no node);
	 * the move onto or off it is said apart. */
	const struct np_machine *m = MACHINE(data);
	double rate = np_cpu_load_rate(&m->load, r->interrupts);
	int node = np_device_node(m, &m->pci.devs[r->dev], NULL);
	int len = snprintf(buf, sizeof(buf), "%s", rate >= 0 ? np_rate_text(rate, n) : np_count_text(r->interrupts, n));
	if (r->remote >= 0 && len > 0 && (size_t)len < sizeof(buf))
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, ", %.0f%% remote", r->remote * 100);
	if (r->node_move && len > 0 && (size_t)len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - (size_t)len, ", %s node %d", r->node_move > 0 ? "onto" : "off", node);
	return np_val_copy(v, buf);
}

static int get_carried(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_bool(v, !REC(row)->advice);
}

static int get_interrupts(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return REC(row)->kind == NP_ATTR_IRQ_AFFINITY ? np_val_int(v, (long long)REC(row)->interrupts) : np_val_null(v);
}

/* Interrupts at stake a second, when what the counts cover is known. */
static int get_rate(const void *data, const void *row, struct np_value *v)
{
	double rate = REC(row)->kind == NP_ATTR_IRQ_AFFINITY ? np_cpu_load_rate(&MACHINE(data)->load, REC(row)->interrupts) : -1;
	return rate >= 0 ? np_val_number(v, rate) : np_val_null(v);
}

/* An empty CPU set (RPS, XPS) is "off". */
static const struct np_column rec_columns[] = {
	NP_COLUMN("kind", "KIND", 12, 0, "the kind of value (irq_affinity, rps_cpus...)", get_kind),
	NP_COLUMN("device", "DEVICE", 12, NP_FL_KEY, "the PCI address (null for a machine-wide kind)", get_device),
	NP_COLUMN("irq", "IRQ", 4, SCOLS_FL_RIGHT, "the IRQ (irq_affinity)", get_irq),
	NP_COLUMN("vector", "VECTOR", 1, 0, "the IRQ's name (irq_affinity)", get_vector),
	NP_COLUMN("queue", "QUEUE", 3, SCOLS_FL_RIGHT, "the queue", get_queue),
	NP_COLUMN("block", "BLOCK", 6, 0, "the block device (rq_affinity)", get_block),
	NP_COLUMN("net", "NET", 6, 0, "the interface (rps_cpus, xps_cpus)", get_net),
	NP_COLUMN("target", "TARGET", 1, NP_FL_KEY, "what the recommendation sets", get_target),
	NP_COLUMN_TEXT("current", "CURRENT", 1, 0, "its value now (a CPU list, or a number)", get_current, "?", "off"),
	NP_COLUMN_TEXT("recommended", "RECOMMENDED", 1, 0, "the value recommended", get_recommended, NULL, "off"),
	NP_COLUMN("volume", "VOLUME", 1, NP_FL_GIVE(3),
		  "interrupts at stake, their share off the device's node, a move onto or off it", get_volume),
	NP_COLUMN("command", "COMMAND", 1, NP_FL_GIVE(1), "the command that does the same by hand (channels: ethtool -L)",
		  get_command),
	NP_COLUMN("carried", "CARRIED", 3, NP_FL_GIVE(2), "in the plan (false: a judgement offered, such as a channel "
		  "count without --channels)", get_carried),
	NP_COLUMN("interrupts", "INTERRUPTS", 6, SCOLS_FL_RIGHT, "interrupts at stake (irq_affinity)", get_interrupts),
	NP_COLUMN("rate", "RATE", 6, SCOLS_FL_RIGHT, "interrupts at stake a second: over --interval, else since boot "
		  "(null without /proc/uptime)", get_rate),
	NP_COLUMN("reason", "REASON", 0.4, SCOLS_FL_WRAP, "why", get_reason),
	NP_COLUMN_END,
};

/* A change in a line: "irq 56 eth5-TxRx-6: 12 -> 7 (6.1M, 100% remote,
 * onto node 3)"; the device is its group's heading. */
static char *change_line(const struct np_machine *m, const struct np_rec *r)
{
	struct np_value v = { 0 };
	char *subject = NULL, *out = NULL, *cmd = NULL;
	if (r->kind == NP_ATTR_IRQ_AFFINITY) {
		if (asprintf(&subject, "irq %d %s", r->irq, r->vector) < 0)
			subject = NULL;
	} else {
		subject = np_attr_subject(r->kind, &r->target);
	}
	const char *cur = r->current ? *r->current ? r->current : "off" : "?";
	const char *rec = *r->recommended ? r->recommended : "off";
	if (np_attrs[r->kind].command)
		cmd = np_attr_command(r->kind, &r->target, r->recommended);
	/* A judgement offered says how to act on it; one carried, what it does. */
	const char *how = r->advice ? " (offered, not in the plan: " : " (as ";
	const char *then = r->advice ? ", or --channels per-core)" : ")";
	if (get_volume(m, r, &v) == 0 && subject &&
	    asprintf(&out, "%s: %s -> %s%s%s%s%s%s%s", subject, cur, rec, v.s ? " (" : "", v.s ? v.s : "",
		     v.s ? ")" : "", cmd ? how : "", cmd ? cmd : "", cmd ? then : "") < 0)
		out = NULL;
	free(v.owned);
	free(subject);
	free(cmd);
	return out;
}

/* What a change's reason says beyond the part its group shares, up to its
 * first "; " (the rest is in --table and JSON). */
static size_t specific_len(const char *reason, size_t shared)
{
	size_t len = strlen(reason) - shared, cut = strcspn(reason, ";");
	return cut < len ? cut : len;
}

/* One group: the problem's line (device, node, what is wrong and the
 * volume), what its IRQ reasons share, then a line per change (fixes[],
 * indexes into the plan), wrapped to width. */
static void print_group(const struct np_machine *m, const struct np_plan *plan, const char *text,
			const size_t *fixes, size_t nfixes, int width)
{
	putchar('\n');
	char *message = np_escape_dup(text); /* names are the kernel's bytes */
	np_print_wrapped(stdout, message ? message : "?", width, 0, 4);
	free(message);
	/* The IRQ reasons' shared tail (the policy's target), said once. */
	const char *first = NULL, *tail = NULL;
	size_t shared = 0, nirq = 0;
	for (size_t i = 0; i < nfixes; i++) {
		const char *r = plan->v[fixes[i]].reason;
		if (plan->v[fixes[i]].kind != NP_ATTR_IRQ_AFFINITY)
			continue;
		if (nirq++ == 0) {
			first = r;
			shared = strlen(r);
			continue;
		}
		size_t a = strlen(first), b = strlen(r), n = 0;
		while (n < shared && n < b && first[a - 1 - n] == r[b - 1 - n])
			n++;
		shared = n;
	}
	if (nirq > 1 && shared && (tail = strstr(first + strlen(first) - shared, ": ")))
		shared = strlen(tail);
	else
		shared = 0;
	if (shared) {
		char *why;
		if (asprintf(&why, "  for: %s", tail + 2) >= 0) {
			np_print_wrapped(stdout, why, width, 0, 6);
			free(why);
		}
	}
	const char *said = NULL;
	size_t said_len = 0;
	for (size_t i = 0; i < nfixes; i++) {
		const struct np_rec *r = &plan->v[fixes[i]];
		char *line = change_line(m, r), *full = NULL;
		const char *why = r->reason;
		size_t len = specific_len(why, r->kind == NP_ATTR_IRQ_AFFINITY ? shared : 0);
		/* What the heading says already, the next part of the reason says
		 * instead (a judgement's facts lead its group, its why follows). */
		while (len && why[len] == ';' && memmem(text, strlen(text), why, len)) {
			why += len + 1 + (why[len + 1] == ' ');
			len = strcspn(why, ";");
		}
		/* Said already: by the change before, or by the heading. */
		bool again = (said && len == said_len && !strncmp(said, why, len)) ||
			     (len && memmem(text, strlen(text), why, len));
		if (!line)
			continue;
		int n = again || !len ? asprintf(&full, "  %s", line) : asprintf(&full, "  %s: %.*s", line, (int)len, why);
		char *shown = n < 0 ? NULL : np_escape_dup(full);
		np_print_wrapped(stdout, shown ? shown : "?", width, 0, 6);
		free(shown);
		said = why;
		said_len = len;
		free(full);
		free(line);
	}
}

/* The changes grouped by the problem they fix, as the summary's lines are;
 * then the judgements offered without being carried (a channel count): fitted
 * to the terminal, 80 columns when there is none. */
static int print_grouped(const struct np_machine *m, const struct np_findings *problems, const struct np_plan *plan)
{
	int width = np_term_width();
	if (width <= 0)
		width = 80;
	struct np_summary_line *lines;
	size_t nlines;
	if (np_findings_lines(problems, &lines, &nlines))
		return np_error("%s", strerror(ENOMEM));
	for (size_t k = 0; k < nlines; k++) {
		const struct np_summary_line *x = &lines[k];
		/* The line's changes: those of each of its problems, in turn. */
		size_t nfixes = 0, *fixes = NULL;
		for (size_t j = 0; j < x->n; j++)
			nfixes += problems->v[x->v[j]].nfixes;
		if (!nfixes || !(fixes = calloc(nfixes, sizeof(*fixes))))
			continue;
		nfixes = 0;
		for (size_t j = 0; j < x->n; j++) {
			const struct np_finding *y = &problems->v[x->v[j]];
			for (size_t i = 0; i < y->nfixes; i++)
				fixes[nfixes++] = y->fixes[i];
		}
		print_group(m, plan, x->text, fixes, nfixes, width);
		free(fixes);
	}
	np_summary_lines_free(lines, nlines);
	for (size_t k = 0; k < problems->n; k++) {
		const struct np_finding *x = &problems->v[k];
		if (x->nfixes && plan->v[x->fixes[0]].advice)
			print_group(m, plan, x->message, x->fixes, x->nfixes, width);
	}
	return EXIT_OK;
}

static int plan_output(const struct np_command *self, const struct np_machine *m, const struct np_plan *plan,
		       const struct np_findings *problems, const char *policy, bool table, bool json, bool pretty)
{
	struct np_table t;
	/* The command and whether it is carried, once the plan holds a change that has them. */
	bool commands = false, offered = false;
	for (size_t i = 0; i < plan->n; i++) {
		commands |= plan->v[i].change && np_attrs[plan->v[i].kind].command;
		offered |= plan->v[i].change && plan->v[i].advice;
	}
	int rc = np_table_init(&t, self, rec_columns,
			       offered    ? "target,current,recommended,volume,command,carried,reason"
			       : commands ? "target,current,recommended,volume,command,reason"
					  : "target,current,recommended,volume,reason",
			       NULL, json, m);
	if (rc != NP_CONTINUE)
		return rc;
	rc = EXIT_OK;
	/* JSON is written as it is made: a plan of 10,000 IRQs is never a tree. */
	struct np_jw jw;
	if (json) {
		np_json_begin(&jw, pretty);
		np_jw_str(&jw, "policy", policy);
		np_table_stream(&t, &jw, "recommendations");
	}
	/* What a saved plan holds besides the changes: every value it keeps as
	 * it is (apply and verify check those too), counted per kind, so that
	 * this count and the profile's settings add up. */
	size_t n = 0, noffered = 0, kept = 0, kept_kind[NP_ATTR_COUNT] = { 0 };
	for (size_t i = 0; rc == EXIT_OK && i < plan->n; i++) {
		bool keeps = !plan->v[i].change && !plan->v[i].advice;
		kept += keeps;
		kept_kind[plan->v[i].kind] += keeps;
		if (plan->v[i].change) {
			rc = np_table_add(&t, &plan->v[i]);
			n += !plan->v[i].advice;
			noffered += plan->v[i].advice;
		}
	}
	if (rc == EXIT_OK && json) {
		np_table_stream_end(&t);
		np_jw_array(&jw, "kept");
		for (size_t i = 0; i < plan->n; i++) {
			const struct np_rec *r = &plan->v[i];
			if (r->change || r->kind != NP_ATTR_IRQ_AFFINITY)
				continue;
			np_jw_object(&jw, NULL);
			np_jw_str(&jw, "device", m->pci.devs[r->dev].addr);
			np_jw_int(&jw, "irq", r->irq);
			/* (a text that could not be made is left out, as it was of the tree) */
			if (r->vector)
				np_jw_str(&jw, "vector", r->vector);
			if (r->recommended)
				np_jw_str(&jw, "cpus", r->recommended);
			if (r->reason)
				np_jw_str(&jw, "reason", r->reason);
			np_jw_close(&jw);
		}
		np_jw_close(&jw);
		np_jw_array(&jw, "notes");
		for (size_t i = 0; i < plan->nnotes; i++)
			np_jw_str(&jw, NULL, plan->notes[i]);
		np_jw_close(&jw);
		np_jw_array(&jw, "warnings");
		for (size_t i = 0; i < plan->nwarnings; i++)
			np_jw_str(&jw, NULL, plan->warnings[i]);
		np_jw_close(&jw);
		rc = np_json_end(&jw);
	} else if (rc == EXIT_OK) {
		/* A pipe gets the text at 80 columns and the table whole; a terminal both at its width. */
		int width = np_term_width() > 0 ? np_term_width() : table ? 0 : 80;
		char kept_text[256] = "", *head;
		if (kept) {
			int len = snprintf(kept_text, sizeof(kept_text), "; %zu value%s kept as %s: ", kept,
					   kept == 1 ? "" : "s", kept == 1 ? "it is" : "they are");
			for (int k = 0, first = 1; k < NP_ATTR_COUNT && len < (int)sizeof(kept_text); k++)
				if (kept_kind[k]) {
					len += snprintf(kept_text + len, sizeof(kept_text) - (size_t)len, "%s%zu %s",
							first ? "" : ", ", kept_kind[k], np_attrs[k].name);
					first = 0;
				}
		}
		char offered_text[96] = "";
		if (noffered)
			snprintf(offered_text, sizeof(offered_text), "; %zu judgement%s offered, not in the plan", noffered,
				 noffered == 1 ? "" : "s");
		if (asprintf(&head, "Policy %s: %zu change%s recommended%s%s%s", policy, n, n == 1 ? "" : "s",
			     m->irqs.absent ? " (interrupts unknown: there is no /proc/interrupts here)"
			     : n > 0 || plan->nwarnings > 0 ? ""
							    : " (the machine already follows this plan)",
			     kept_text, offered_text) < 0)
			head = NULL;
		if (head)
			np_print_wrapped(stdout, head, width, 0, 4);
		free(head);
		for (size_t i = 0; i < plan->nnotes; i++) {
			fputs("note: ", stdout);
			np_print_wrapped(stdout, plan->notes[i], width, 6, 4);
		}
		if ((n || noffered) && table) {
			putchar('\n');
			rc = np_table_print(&t, stdout);
		} else if (n || noffered) {
			rc = print_grouped(m, problems, plan);
		}
		for (size_t i = 0; i < plan->nwarnings; i++) {
			printf("%swarning: ", i == 0 ? "\n" : "");
			np_print_wrapped(stdout, plan->warnings[i], width, 9, 4);
		}
	}
	np_table_free(&t);
	return rc;
}

/* A profile without a setting is one apply and validate reject: write
 * none, and leave whatever the file holds alone. A plan is for apply: one
 * that apply would refuse (a name with control bytes, an IRQ name too
 * long) is not written. */
static int save_plan(struct np_ctx *ctx, const struct np_machine *m, const struct np_plan *plan, const char *policy,
		     const char *output)
{
	if (plan->n == 0) {
		fprintf(stderr, "numaplace: advise: nothing to write to '%s': no setting to plan\n", output);
		return EXIT_OK;
	}
	struct np_profile prof, check;
	char desc[256], *text = NULL;
	int rc;
	snprintf(desc, sizeof(desc), "Written by 'numaplace advise --policy %s': concrete settings for this machine.",
		 policy);
	if (np_plan_to_profile(m, plan, "advised", desc, &prof) == 0) {
		text = np_profile_to_text(&prof);
		np_profile_free(&prof);
	}
	if (!text) {
		rc = np_error("writing the profile: %s", strerror(ENOMEM));
	} else if (np_profile_parse(ctx, output, text, &check)) {
		rc = np_error("not writing '%s': apply would refuse this plan: %s", output, ctx->err);
	} else {
		np_profile_free(&check);
		rc = np_write_output(output, text, strlen(text));
	}
	free(text);
	return rc;
}

int cmd_advise(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("advise");
	struct advise_opts ao = { .req = NP_REQUEST_OPTS_INIT };
	int first, rc = np_parse_options(self, argc, argv, &ao, &first);
	if (ao.channels)
		ao.req.channels = !strcmp(ao.channels, "per-core")   ? NP_CHANNELS_PER_CORE
				  : !strcmp(ao.channels, "per-node") ? NP_CHANNELS_PER_NODE
								     : NP_CHANNELS_KEEP;
	if (rc == NP_CONTINUE && ao.req.channels == NP_CHANNELS_KEEP)
		rc = np_usage_error(self, "--channels: '%s' is not per-core or per-node", ao.channels);
	else if (rc == NP_CONTINUE && np_request_check(ctx, &ao.req))
		rc = np_usage_error(self, "%s", ctx->err);
	else if (rc == NP_CONTINUE && first < argc)
		rc = np_usage_error(self, "unexpected argument '%s' (devices are chosen with --device)", argv[first]);
	if (rc != NP_CONTINUE) {
		np_filters_free(&ao.req.devices);
		return rc;
	}

	struct np_machine m;
	struct np_request req;
	if (np_machine_load(ctx, &m)) {
		np_filters_free(&ao.req.devices);
		return np_error("%s", ctx->err);
	}
	np_print_warnings(&m);
	/* The plan is the fixes of the problem list the report shows. */
	rc = np_request_setup(ctx, &m, &ao.req, np_sample_interval, &req);
	rc = rc > 0 ? np_usage_error(self, "%s", ctx->err) : rc ? np_error("%s", ctx->err) : EXIT_OK;
	if (rc == EXIT_OK && np_request_judge(&req))
		rc = np_error("planning: %s", strerror(ENOMEM));
	if (rc == EXIT_OK && ao.output)
		rc = save_plan(ctx, &m, &req.findings.plan, ao.req.policy, ao.output);
	if (rc == EXIT_OK)
		rc = plan_output(self, &m, &req.findings.plan, &req.findings, ao.req.policy, ao.table, ao.json, ao.pretty);
	np_leave_to_exit(&req, sizeof(req));
	np_leave_to_exit(&m, sizeof(m));
	np_filters_free(&ao.req.devices);
	return rc;
}
