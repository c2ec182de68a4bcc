/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "judge/request.h"
#include "read/host.h"
#include "read/machine.h"
#include "base/quote.h"
#include "render/render.h"
#include "render/term.h"

struct report_opts {
	bool json, pretty, all;
	const char *color, *svg, *policy;
	double interval;
};

const struct np_option report_options[] = {
	NP_OPT_JSON(struct report_opts, json, "print everything as one JSON document"),
	NP_OPT_PRETTY(struct report_opts, pretty),
	NP_OPT_BOOL('a', "all", struct report_opts, all, "also list findings under the volume threshold"),
	NP_OPT_STRING(0, "color", struct report_opts, color, "WHEN",
		      "colour severities: auto (a terminal, no NO_COLOR), always, never", NULL),
	NP_OPT_CALLBACK('i', "interval", struct report_opts, interval, double, "SEC",
			"judge what ran during SEC seconds (0 < SEC <= 3600), with rates per second", NULL,
			np_opt_interval),
	NP_OPT_STRING('p', "policy", struct report_opts, policy, "POLICY",
		      "judge by this policy, as 'advise --policy' plans: local (default) or spread", "policy"),
	NP_OPT_STRING(0, "svg", struct report_opts, svg, "FILE",
		      "also draw the nodes, devices and where their interrupts ran into FILE (SVG)", "file"),
	NP_OPT_END,
};

/* What a fleet compares hosts and boots by; null when the root lacks it. */
static void host_write(struct np_jw *jw, const struct np_host *host)
{
	np_jw_str(jw, "hostname", host->hostname);
	np_jw_str(jw, "kernel", host->kernel);
	np_jw_str(jw, "boot_id", host->boot_id);
}

static void findings_write(struct np_jw *jw, const struct np_machine *m, const struct np_findings *f)
{
	np_jw_array(jw, "findings");
	for (size_t i = 0; i < f->n; i++) {
		const struct np_finding *x = &f->v[i];
		char *cpus = np_cpuset_format_list(&x->cpus);
		if (!cpus)
			jw->failed = true;
		np_jw_object(jw, NULL);
		np_jw_str(jw, "severity", np_severity_name(x->severity));
		np_jw_str(jw, "kind", x->kind);
		np_jw_str(jw, "subject", x->subject);
		np_jw_str(jw, "message", x->message);
		np_jw_str(jw, "device", x->dev >= 0 ? m->pci.devs[x->dev].addr : NULL);
		np_jw_int(jw, "irqs", x->nirqs);
		np_jw_number(jw, "interrupts", (double)x->interrupts);
		np_jw_number(jw, "total", (double)x->total);
		np_jw_str(jw, "cpus", cpus ? cpus : "");
		np_jw_str(jw, "fix", x->fix);
		np_jw_bool(jw, "minor", x->minor);
		np_jw_close(jw);
		free(cpus);
	}
	np_jw_close(jw);
}

#define RED "\033[1;31m"
#define YELLOW "\033[33m"
#define OFF "\033[0m"

/* The answer first: one line per problem, most important first, each with
 * the command that fixes it. */
static int print_summary(const struct np_machine *m, const struct np_findings *f, bool interrupts_known, double seconds,
			 int width, bool color)
{
	char floor[32];
	np_volume_text(m, f->min_interrupts, floor);
	size_t n, minor = 0;
	struct np_summary_line *lines;
	if (np_findings_lines(f, &lines, &n))
		return np_error("%s", strerror(ENOMEM));
	for (size_t i = 0; i < f->n; i++)
		minor += f->v[i].minor;
	if (seconds > 0)
		printf("== Summary (interrupts during %g s)\n", seconds);
	else
		puts("== Summary");
	/* Without /proc/interrupts nothing is known of them: never "nothing wrong". */
	char verdict[160];
	if (!interrupts_known)
		np_print_wrapped(stdout, "Interrupts unknown: there is no /proc/interrupts here, so where they run "
				 "cannot be judged.", width, 0, 4);
	else if (n == 0 && snprintf(verdict, sizeof(verdict), "Nothing wrong: no device's interrupts ran off its "
				    "node or on isolated CPUs (%s or more each).", floor) > 0)
		np_print_wrapped(stdout, verdict, width, 0, 4);
	for (size_t i = 0; i < n; i++) {
		const struct np_summary_line *x = &lines[i];
		char *message = np_escape_dup(x->text); /* names are the kernel's bytes */
		if (!message)
			continue;
		/* The device in colour; the rest wraps to the terminal, the fix on a
		 * line of its own when the whole does not fit. */
		const char *rest = strstr(message, ": ");
		size_t first = color && rest ? (size_t)(rest - message) : 0;
		size_t len = strlen(message) + (x->fix ? 4 + strlen(x->fix) : 0);
		bool split = x->fix && width && (int)len > width;
		if (first)
			printf(RED "%.*s" OFF, (int)first, message);
		if (split) {
			np_print_wrapped(stdout, message + first, width, (int)first, 4);
			printf("    -> %s\n", x->fix);
		} else {
			char *line;
			if (asprintf(&line, "%s%s%s", message + first, x->fix ? " -> " : "", x->fix ? x->fix : "") >= 0) {
				np_print_wrapped(stdout, line, width, (int)first, 4);
				free(line);
			}
		}
		free(message);
	}
	if (minor)
		printf("(%zu more under %s a device: 'report --all' lists them)\n", minor, floor);
	np_summary_lines_free(lines, n);
	return EXIT_OK;
}

/* What the Summary did not say: its lines are the findings of most weight,
 * and the same words twice (26 lines about isolated CPUs on a real-time
 * worker, each device in both) hide what only this section holds. */
static int print_findings(const struct np_findings *f, bool all, int width, bool color)
{
	struct np_summary_line *lines;
	size_t nlines, shown = 0, summarized = 0;
	bool *in_summary = calloc(f->n + 1, sizeof(bool));
	if (!in_summary || np_findings_lines(f, &lines, &nlines)) {
		free(in_summary);
		return np_error("%s", strerror(ENOMEM));
	}
	for (size_t k = 0; k < nlines; k++)
		for (size_t j = 0; j < lines[k].n; j++)
			summarized += !in_summary[lines[k].v[j]], in_summary[lines[k].v[j]] = true;
	np_summary_lines_free(lines, nlines);
	bool more = false;
	for (size_t i = 0; i < f->n && !more; i++)
		more = !in_summary[i] && (all || !f->v[i].minor);
	if (summarized)
		printf("%s the Summary's %zu problem%s%s\n", more ? "Beyond" : "Nothing beyond", summarized,
		       summarized == 1 ? "" : "s", more ? ":" : ".");
	for (size_t i = 0; i < f->n; i++) {
		const struct np_finding *x = &f->v[i];
		if ((x->minor && !all) || in_summary[i])
			continue;
		const char *sev = x->minor ? "minor" : np_severity_name(x->severity);
		if (color && !x->minor)
			printf("%s%-7s" OFF " ", x->severity == NP_WARNING ? RED : YELLOW, sev);
		else
			printf("%-7s ", sev);
		char *message = np_escape_dup(x->message);
		np_print_wrapped(stdout, message ? message : "?", width, 8, 8);
		free(message);
		shown++;
	}
	if (shown == 0 && !summarized)
		puts("none");
	free(in_summary);
	return EXIT_OK;
}

/* The placement table: a row per device with IRQs, the row its index; the
 * data the machine and, after --interval, the seconds sampled. */
struct placement {
	const struct np_machine *m;
	double seconds;
	/* Each device's, found once: five columns ask, and each finding walks
	 * every IRQ of the machine. */
	const struct np_irq_summary *summaries;
};
#define MACHINE(data) (((const struct placement *)(data))->m)
#define DEV_INDEX(row) (*(const size_t *)(row))

static struct np_irq_summary summary(const void *data, const void *row)
{
	return ((const struct placement *)data)->summaries[DEV_INDEX(row)];
}

static int get_device(const void *data, const void *row, struct np_value *v)
{
	return np_val_str(v, MACHINE(data)->pci.devs[DEV_INDEX(row)].addr);
}

static int get_driver(const void *data, const void *row, struct np_value *v)
{
	const struct np_pci_dev *d = &MACHINE(data)->pci.devs[DEV_INDEX(row)];
	return np_val_str(v, d->child_driver ? d->child_driver : d->driver);
}

static int get_node(const void *data, const void *row, struct np_value *v)
{
	int node = np_device_node(MACHINE(data), &MACHINE(data)->pci.devs[DEV_INDEX(row)], NULL);
	return node >= 0 ? np_val_int(v, node) : np_val_null(v);
}

static int get_irqs(const void *data, const void *row, struct np_value *v)
{
	return np_val_int(v, summary(data, row).nirqs);
}

static int get_managed(const void *data, const void *row, struct np_value *v)
{
	return np_val_int(v, summary(data, row).nmanaged);
}

/* The nodes whose CPUs handled any of its IRQs. */
static int get_ran_on_nodes(const void *data, const void *row, struct np_value *v)
{
	const struct np_machine *m = MACHINE(data);
	struct np_cpuset ran = NP_CPUSET_INIT, nodes = NP_CPUSET_INIT;
	int rc = 0;
	for (size_t i = 0; !rc && i < m->irqs.n; i++)
		if (m->irqs.v[i].dev == (int)DEV_INDEX(row))
			rc = np_cpuset_or(&ran, &m->irqs.v[i].ran_on);
	if (!rc)
		rc = np_nodes_of(&m->topo, &ran, &nodes);
	if (!rc)
		rc = np_val_cpus(v, &nodes, false);
	np_cpuset_free(&ran);
	np_cpuset_free(&nodes);
	return rc;
}

static int get_interrupts(const void *data, const void *row, struct np_value *v)
{
	return np_val_int(v, (long long)summary(data, row).total);
}

static int get_per_sec(const void *data, const void *row, struct np_value *v)
{
	double seconds = ((const struct placement *)data)->seconds;
	if (!(seconds > 0))
		return np_val_null(v);
	return np_val_int(v, (long long)((double)summary(data, row).total / seconds + 0.5));
}

/* Of the interrupts not per CPU by design (those are the next column's). */
static int get_remote_share(const void *data, const void *row, struct np_value *v)
{
	struct np_irq_summary s = summary(data, row);
	double share = np_irq_summary_remote_share(&s);
	return share >= 0 ? np_val_share(v, share) : np_val_null(v);
}

static int get_per_cpu_share(const void *data, const void *row, struct np_value *v)
{
	struct np_irq_summary s = summary(data, row);
	return s.nper_cpu && s.total ? np_val_share(v, (double)s.per_cpu / (double)s.total) : np_val_null(v);
}

static const struct np_column placement_columns[] = {
	NP_COLUMN("device", "DEVICE", 12, NP_FL_KEY, "the PCI address", get_device),
	NP_COLUMN("driver", "DRIVER", 0.1, SCOLS_FL_TRUNC, "its driver (of its child, for a virtio device)", get_driver),
	NP_COLUMN_TEXT("node", "NODE", 4, SCOLS_FL_RIGHT, "its node", get_node, "?", NULL),
	NP_COLUMN("irqs", "IRQS", 4, SCOLS_FL_RIGHT, "its IRQs", get_irqs),
	NP_COLUMN("managed", "MANAGED", 4, SCOLS_FL_RIGHT, "of those, managed by the kernel", get_managed),
	NP_COLUMN("ran_on_nodes", "RAN ON NODES", 1, 0, "the nodes that handled them", get_ran_on_nodes),
	NP_COLUMN("interrupts", "INTERRUPTS", 8, SCOLS_FL_RIGHT, "interrupts handled", get_interrupts),
	NP_COLUMN("per_sec", "PER SEC", 8, SCOLS_FL_RIGHT, "interrupts a second (with --interval)", get_per_sec),
	NP_COLUMN("remote_share", "REMOTE", 4, SCOLS_FL_RIGHT,
		  "the share handled off its node, of those not per CPU by design", get_remote_share),
	NP_COLUMN("per_cpu_share", "PER CPU", 4, SCOLS_FL_RIGHT,
		  "the share on its managed per-CPU queues, which complete where the I/O was submitted (never remote)",
		  get_per_cpu_share),
	NP_COLUMN_END,
};
#define PLACEMENT_COLUMNS "device,driver,node,irqs,managed,ran_on_nodes,interrupts,remote_share,per_cpu_share"
#define PLACEMENT_RATE_COLUMNS "device,driver,node,irqs,managed,ran_on_nodes,per_sec,remote_share,per_cpu_share"

/* One line per device that has IRQs: where they are allowed, where they ran. */
static int print_placement(const struct np_command *self, const struct np_machine *m, const bool *selected,
			   double seconds)
{
	struct np_table t;
	struct np_irq_summary *sums = calloc(m->pci.ndevs + 1, sizeof(*sums));
	struct placement data = { m, seconds, sums };
	if (!sums)
		return np_error("%s", strerror(ENOMEM));
	for (size_t di = 0; di < m->pci.ndevs; di++)
		np_device_irq_summary(m, di, &sums[di]);
	int rc = np_table_init(&t, self, placement_columns, seconds > 0 ? PLACEMENT_RATE_COLUMNS : PLACEMENT_COLUMNS,
			       NULL, false, &data);
	if (rc != NP_CONTINUE) {
		free(sums);
		return rc;
	}
	rc = EXIT_OK;
	for (size_t di = 0; rc == EXIT_OK && di < m->pci.ndevs; di++)
		if (selected[di] && sums[di].nirqs > 0)
			rc = np_table_add(&t, &di);
	if (rc == EXIT_OK)
		rc = np_table_print(&t, stdout);
	np_table_free(&t);
	free(sums);
	return rc;
}

/* Written as it is produced: the IRQs (4000 rows of per-node counts on a
 * large machine), the CPUs and the devices' queues are never held as a
 * tree. What can fail on its own (the host's files) is read first. */
static int report_json(struct np_ctx *ctx, const struct np_machine *m, const bool *selected,
		       const struct np_findings *f, const struct report_opts *o)
{
	struct np_host host;
	struct np_table irqs;
	struct np_irq_view view = { m, o->interval, NULL };
	if (np_host_read(ctx, &host))
		return np_error("%s", ctx->err);
	int rc = np_table_init(&irqs, np_command_find("report"), np_irq_columns,
			       o->interval > 0 ? NP_IRQ_RATE_COLUMNS : NP_IRQ_DEFAULT_COLUMNS, NULL, true, &view);
	if (rc != NP_CONTINUE) {
		np_host_free(&host);
		return rc;
	}
	struct np_jw jw;
	np_json_begin(&jw, o->pretty);
	host_write(&jw, &host);
	np_host_free(&host);
	if (o->interval > 0)
		np_jw_number(&jw, "interval", o->interval);
	np_jw_object(&jw, "topology");
	rc = np_topo_write(np_command_find("report"), &jw, &m->topo, &m->load);
	np_jw_close(&jw);
	if (rc == EXIT_OK) {
		np_devices_write(&jw, "devices", m, selected);
		view.memo = np_nodes_memo_new();
		np_table_stream(&irqs, &jw, "irqs");
	}
	for (size_t i = 0; rc == EXIT_OK && i < m->irqs.n; i++)
		rc = np_table_add(&irqs, &m->irqs.v[i]);
	np_table_stream_end(&irqs);
	np_table_free(&irqs);
	np_nodes_memo_free(view.memo);
	if (rc != EXIT_OK)
		return rc;
	cJSON *irqbalance = np_irqbalance_json(m->irqbalance, m->irqbalance_known, &m->irqb_banned);
	np_jw_cjson(&jw, "irqbalance", irqbalance);
	cJSON_Delete(irqbalance);
	findings_write(&jw, m, f);
	np_kube_write(&jw, &m->kube);
	if (o->interval > 0)
		np_jw_null(&jw, "interrupts_where"); /* counted since boot only */
	else
		np_where_write(&jw, m);
	return np_json_end(&jw);
}

int cmd_report(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("report");
	struct report_opts o = { .policy = "local" };
	bool color;
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc != NP_CONTINUE)
		return rc;
	if (first < argc)
		return np_usage_error(self, "unexpected argument '%s'", argv[first]);
	if (!np_color_parse(o.color, &color))
		return np_usage_error(self, "--color takes auto, always or never, not '%s'", o.color);
	if (strcmp(o.policy, "local") && strcmp(o.policy, "spread"))
		return np_usage_error(self, "--policy: '%s' is not one of local, spread (the app policy needs the "
				      "application: 'advise --policy app')", o.policy);

	struct np_machine m;
	struct np_request req;
	struct np_request_opts ro = NP_REQUEST_OPTS_INIT;
	ro.policy = o.policy;
	ro.interval = o.interval;
	ro.plan_unshown = true;
	/* JSON's interrupts_where counts by CPU class in the same pass. */
	if (np_machine_load_some(ctx, &m, o.json && !(o.interval > 0) ? NP_LOAD_KUBE_SPLIT : 0))
		return np_error("%s", ctx->err);
	np_print_warnings(&m);
	rc = np_request_setup(ctx, &m, &ro, np_sample_interval, &req) ? np_error("%s", ctx->err) : EXIT_OK;
	if (rc == EXIT_OK && o.json && !(o.interval > 0) && np_kubelet_split(ctx, &m.topo, &m.kube))
		rc = np_error("%s", ctx->err);
	if (rc == EXIT_OK && np_request_judge(&req))
		rc = np_error("collecting findings: out of memory");
	/* The picture of the same judgement: the problems the summary names. */
	if (rc == EXIT_OK && o.svg)
		rc = np_report_svg(&req, o.svg);
	/* How delivery was judged, said once as advise says it. */
	const char *judged = rc == EXIT_OK ? np_effective_note(&m, &req.policy) : NULL;
	if (judged)
		np_notef("note: %s\n", judged);
	const struct np_findings *f = &req.findings;
	if (rc == EXIT_OK && o.json) {
		rc = report_json(ctx, &m, req.selected, f, &o);
	} else if (rc == EXIT_OK) {
		int width = np_term_width();
		rc = print_summary(&m, f, !m.irqs.absent, o.interval, width, color);
		puts("\n== Topology");
		if (rc == EXIT_OK)
			rc = np_topo_print(self, &m.topo, &m.load, stdout, false);
		puts("\n== Devices");
		np_devices_print(&m, req.selected, stdout);
		puts("\n== IRQ placement");
		if (rc == EXIT_OK && m.irqs.n)
			rc = print_placement(self, &m, req.selected, o.interval);
		else if (rc == EXIT_OK)
			puts("no interrupts (the root has no /proc/interrupts)");
		if (rc == EXIT_OK && m.irqs.n && o.interval > 0)
			np_print_rates(&m, req.selected, o.interval, stdout);
		puts("\n== Findings");
		if (rc == EXIT_OK)
			rc = print_findings(f, o.all, width, color);
	}
	np_leave_to_exit(&req, sizeof(req));
	np_leave_to_exit(&m, sizeof(m));
	return rc;
}
