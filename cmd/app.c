/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace app PID: where a running process's threads and memory are, next
 * to its devices and where their interrupts ran; its problems (rules of the
 * one problem model) and where it belongs. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "judge/cpuset-names.h"
#include "judge/request.h"
#include "base/count.h"
#include "base/quote.h"
#include "render/output.h"
#include "render/render.h"
#include "render/term.h"

struct app_opts {
	double interval;
	bool json, pretty;
};

const struct np_option app_options[] = {
	NP_OPT_CALLBACK('i', "interval", struct app_opts, interval, double, "SEC",
			"measure its threads' CPU time per node and its devices' interrupts during SEC seconds (0 < SEC <= 3600)",
			NULL, np_opt_interval),
	NP_OPT_JSON(struct app_opts, json, "print JSON instead of text"),
	NP_OPT_PRETTY(struct app_opts, pretty),
	NP_OPT_END,
};

/* The nodes table: a row per topology node (its index). */
struct nodes_view {
	const struct np_machine *m;
	const struct np_process *p;
};
#define VIEW(data) ((const struct nodes_view *)(data))
#define NODE(row) (*(const int *)(row))

static int get_node(const void *data, const void *row, struct np_value *v)
{
	return np_val_int(v, VIEW(data)->m->topo.nodes[NODE(row)].id);
}

static int get_cpus(const void *data, const void *row, struct np_value *v)
{
	return np_val_cpus_text(v, &VIEW(data)->m->topo, &VIEW(data)->m->topo.nodes[NODE(row)].cpus, false);
}

static int get_threads(const void *data, const void *row, struct np_value *v)
{
	return np_val_int(v, VIEW(data)->p->threads_on[NODE(row)]);
}

static int get_cpu_share(const void *data, const void *row, struct np_value *v)
{
	const struct np_process *p = VIEW(data)->p;
	if (!p->ticks_total)
		return np_val_null(v);
	return np_val_share(v, (double)p->ticks[NODE(row)] / (double)p->ticks_total);
}

static int get_memory(const void *data, const void *row, struct np_value *v)
{
	const struct np_process *p = VIEW(data)->p;
	char buf[24];
	if (!p->memory_known)
		return np_val_null(v);
	char *text = strdup(p->kib[NODE(row)] ? np_kib_text(p->kib[NODE(row)], buf) : "0");
	return text ? np_val_take(v, text) : -ENOMEM;
}

static int get_pages(const void *data, const void *row, struct np_value *v)
{
	const struct np_process *p = VIEW(data)->p;
	return p->memory_known ? np_val_int(v, (long long)p->pages[NODE(row)]) : np_val_null(v);
}

static int get_memory_share(const void *data, const void *row, struct np_value *v)
{
	const struct np_process *p = VIEW(data)->p;
	if (!p->kib_total)
		return np_val_null(v);
	return np_val_share(v, (double)p->kib[NODE(row)] / (double)p->kib_total);
}

static const struct np_column node_columns[] = {
	NP_COLUMN("node", "NODE", 4, SCOLS_FL_RIGHT | NP_FL_KEY, "the node", get_node),
	NP_COLUMN("cpus", "CPUS", 8, 0, "its CPUs", get_cpus),
	NP_COLUMN("threads", "THREADS", 7, SCOLS_FL_RIGHT, "threads that last ran there (stat field 39)", get_threads),
	NP_COLUMN("cpu", "CPU", 5, SCOLS_FL_RIGHT, "share of the threads' CPU time there (--interval)", get_cpu_share),
	NP_COLUMN("memory", "MEMORY", 7, SCOLS_FL_RIGHT, "resident memory there (numa_maps)", get_memory),
	NP_COLUMN("pages", "PAGES", 7, SCOLS_FL_RIGHT, "the same in pages, each of its mapping's size", get_pages),
	NP_COLUMN("memory_share", "MEM%", 5, SCOLS_FL_RIGHT, "share of its resident memory there", get_memory_share),
	NP_COLUMN_END,
};

/* The devices table: a row per np_app_device. */
#define ADEV(row) ((const struct np_app_device *)(row))

static int get_device(const void *data, const void *row, struct np_value *v)
{
	return np_val_str(v, VIEW(data)->m->pci.devs[ADEV(row)->dev].addr);
}

static int get_name(const void *data, const void *row, struct np_value *v)
{
	const struct np_pci_dev *d = &VIEW(data)->m->pci.devs[ADEV(row)->dev];
	const char *name = d->nnet ? d->net[0].name : d->nblock ? d->block[0].name : NULL;
	if (!name)
		return np_val_null(v);
	char *shown = np_escape_dup(name);
	return shown ? np_val_take(v, shown) : -ENOMEM;
}

static int get_driver(const void *data, const void *row, struct np_value *v)
{
	const struct np_pci_dev *d = &VIEW(data)->m->pci.devs[ADEV(row)->dev];
	return np_val_str(v, d->child_driver ? d->child_driver : d->driver);
}

static int get_dev_node(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return ADEV(row)->node >= 0 ? np_val_int(v, ADEV(row)->node) : np_val_null(v);
}

static int get_interrupts(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_int(v, (long long)ADEV(row)->interrupts);
}

static int get_ran_on(const void *data, const void *row, struct np_value *v)
{
	const struct np_topology *topo = &VIEW(data)->m->topo;
	struct np_count *c = calloc((size_t)topo->nnodes + 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (int n = 0; n < topo->nnodes; n++)
		c[n] = (struct np_count){ topo->nodes[n].id, ADEV(row)->per_node[n] };
	return np_val_counts(v, c, (size_t)topo->nnodes);
}

static const struct np_column device_columns[] = {
	NP_COLUMN("device", "DEVICE", 12, NP_FL_KEY, "the PCI address", get_device),
	NP_COLUMN("name", "NAME", 6, 0, "its interface or block device", get_name),
	NP_COLUMN("driver", "DRIVER", 8, 0, "its driver", get_driver),
	NP_COLUMN("node", "NODE", 4, SCOLS_FL_RIGHT, "its node", get_dev_node),
	NP_COLUMN("interrupts", "INTERRUPTS", 10, SCOLS_FL_RIGHT, "interrupts of its IRQs", get_interrupts),
	NP_COLUMN("ran_on", "RAN ON (node:interrupts)", 0.3, SCOLS_FL_WRAP, "its interrupts by the node they ran on",
		  get_ran_on),
	NP_COLUMN_END,
};

/* Its own problems before its devices': the move fixes them. */
static const enum np_rule_id app_rules[] = { NP_RULE_APP_MEMORY, NP_RULE_APP_THREADS, NP_RULE_APP_IRQS };
#define NAPP_RULES (sizeof(app_rules) / sizeof(app_rules[0]))

static cJSON *problems_json(const struct np_findings *f)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t k = 0; a && k < NAPP_RULES * f->n; k++) {
		const struct np_finding *x = &f->v[k % f->n];
		if (x->rule != app_rules[k / f->n])
			continue;
		cJSON *o = cJSON_CreateObject(), *w = cJSON_CreateObject(), *changes = cJSON_CreateArray();
		cJSON_AddStringToObject(o, "kind", x->kind);
		cJSON_AddStringToObject(o, "severity", x->minor ? "minor" : np_severity_name(x->severity));
		cJSON_AddStringToObject(o, "subject", x->subject);
		cJSON_AddStringToObject(o, "message", x->message);
		cJSON_AddNumberToObject(w, x->unit ? x->unit : "interrupts", (double)x->interrupts);
		np_json_put(o, "weight", w);
		np_json_put(o, "fix", x->fix ? cJSON_CreateString(x->fix) : cJSON_CreateNull());
		for (size_t i = 0; i < x->nfixes; i++) {
			const struct np_rec *r = &f->plan.v[x->fixes[i]];
			cJSON *c = cJSON_CreateObject();
			cJSON_AddNumberToObject(c, "irq", r->irq);
			cJSON_AddStringToObject(c, "vector", r->vector ? r->vector : "");
			np_json_put(c, "current", r->current ? cJSON_CreateString(r->current) : cJSON_CreateNull());
			cJSON_AddStringToObject(c, "recommended", r->recommended);
			cJSON_AddStringToObject(c, "reason", r->reason);
			np_json_put(changes, NULL, c);
		}
		np_json_put(o, "changes", changes);
		np_json_put(a, NULL, o);
	}
	return a;
}

/* {"<node id>": value} over the nodes. */
static cJSON *per_node_json(const struct np_topology *topo, const unsigned long long *v, double total, bool share)
{
	cJSON *o = cJSON_CreateObject();
	char key[16];
	for (int n = 0; o && n < topo->nnodes; n++) {
		snprintf(key, sizeof(key), "%d", topo->nodes[n].id);
		cJSON_AddNumberToObject(o, key, share ? (total > 0 ? (double)v[n] / total : 0) : (double)v[n]);
	}
	return o;
}

static int app_json(const struct np_machine *m, const struct np_app *app, const struct np_findings *f,
		    struct np_table *devices, bool pretty)
{
	const struct np_process *p = &app->proc;
	const struct np_topology *topo = &m->topo;
	cJSON *doc = np_json_doc(), *threads = cJSON_CreateObject(), *memory = cJSON_CreateObject();
	cJSON *place = cJSON_CreateObject(), *notes = cJSON_CreateArray();
	char *allowed = np_cpuset_format_list(&p->allowed), *mems = np_cpuset_format_list(&p->mems_allowed);
	char *cg = p->has_cgroup_cpus ? np_cpuset_format_list(&p->cgroup_cpus) : NULL;
	cJSON_AddNumberToObject(doc, "pid", p->pid);
	cJSON_AddStringToObject(doc, "comm", p->comm);
	cJSON_AddNumberToObject(threads, "count", (double)p->ntasks);
	np_json_put(threads, "allowed", allowed ? cJSON_CreateString(allowed) : NULL);
	np_json_put(threads, "cgroup", p->cgroup ? cJSON_CreateString(p->cgroup) : cJSON_CreateNull());
	np_json_put(threads, "cgroup_cpus", cg ? cJSON_CreateString(cg) : cJSON_CreateNull());
	/* Shares of the threads by their last CPU's node; of the CPU time over an interval. */
	unsigned long long *on = calloc((size_t)topo->nnodes + 1, sizeof(*on));
	for (int n = 0; on && n < topo->nnodes; n++)
		on[n] = p->threads_on[n];
	np_json_put(threads, "ran_on", p->ticks_total ? per_node_json(topo, p->ticks, (double)p->ticks_total, true)
				       : on ? per_node_json(topo, on, (double)p->ntasks, true) : NULL);
	free(on);
	np_json_put(threads, "interval", p->seconds > 0 ? cJSON_CreateNumber(p->seconds) : cJSON_CreateNull());
	np_json_put(doc, "threads", threads);
	np_json_put(memory, "pages", p->memory_known ? per_node_json(topo, p->pages, 0, false) : cJSON_CreateNull());
	np_json_put(memory, "kib", p->memory_known ? per_node_json(topo, p->kib, 0, false) : cJSON_CreateNull());
	np_json_put(memory, "allowed", mems ? cJSON_CreateString(mems) : NULL);
	np_json_put(doc, "memory", memory);
	np_json_put(doc, "devices", np_table_take_json(devices));
	np_json_put(doc, "problems", problems_json(f));
	np_json_put(place, "node", app->place_node >= 0 ? cJSON_CreateNumber(topo->nodes[app->place_node].id)
							: cJSON_CreateNull());
	cJSON_AddStringToObject(place, "by", app->by == NP_PLACE_MEMORY ? "memory" : app->by == NP_PLACE_DEVICE ? "device"
													: "none");
	np_json_put(place, "move", app->move ? cJSON_CreateString(app->move) : cJSON_CreateNull());
	cJSON_AddStringToObject(place, "reason", app->placement);
	np_json_put(doc, "placement", place);
	for (size_t i = 0; i < app->nwhy; i++)
		np_json_put(notes, NULL, cJSON_CreateString(app->why[i]));
	for (size_t i = 0; i < p->nnotes; i++)
		np_json_put(notes, NULL, cJSON_CreateString(p->notes[i]));
	np_json_put(doc, "notes", notes);
	free(allowed);
	free(mems);
	free(cg);
	return np_print_json(doc, pretty);
}

static void print_problems(const struct np_machine *m, const struct np_app *app, const struct np_findings *f, int width)
{
	size_t shown = 0;
	puts("== Summary");
	for (size_t k = 0; k < NAPP_RULES * f->n; k++) {
		const struct np_finding *x = &f->v[k % f->n];
		if (x->rule != app_rules[k / f->n] || x->minor)
			continue;
		shown++;
		char *line;
		if (asprintf(&line, "%s%s%s", x->message, x->fix ? " -> " : "", x->fix ? x->fix : "") >= 0) {
			np_print_wrapped(stdout, line, width, 0, 4);
			free(line);
		}
		for (size_t i = 0; i < x->nfixes; i++) {
			const struct np_rec *r = &f->plan.v[x->fixes[i]];
			char *change, *shown_text;
			char c[16];
			if (asprintf(&change, "  irq %d %s: %s -> %s (%s interrupts)", r->irq, r->vector ? r->vector : "",
				     r->current ? r->current : "?", r->recommended, np_count_text(r->interrupts, c)) < 0)
				continue;
			shown_text = np_escape_dup(change);
			np_print_wrapped(stdout, shown_text ? shown_text : change, width, 0, 6);
			free(shown_text);
			free(change);
		}
	}
	if (!shown) {
		char *comm = np_escape_dup(app->proc.comm), *line;
		if (asprintf(&line, app->proc.memory_known
					    ? "Nothing wrong: %s (pid %d) has its memory where its threads run, and its "
					      "devices' interrupts run where its threads or memory are."
					    : "Nothing found wrong: where the memory of %s (pid %d) is, is unknown, so only its "
					      "threads and its devices' interrupts were judged.",
			     comm ? comm : "?", app->proc.pid) >= 0) {
			np_print_wrapped(stdout, line, width, 0, 4);
			free(line);
		}
		free(comm);
	}
	(void)m;
}

static void print_process(const struct np_machine *m, const struct np_process *p, int width)
{
	char *comm = np_escape_dup(p->comm), *allowed = np_cpus_text(&m->topo, &p->allowed);
	char *mems = np_nodes_text(&p->mems_allowed), *cg = NULL, *cgcpus = NULL, *line;
	if (p->cgroup) {
		char *shown = np_escape_dup(p->cgroup);
		cgcpus = p->has_cgroup_cpus ? np_cpus_text(&m->topo, &p->cgroup_cpus) : NULL;
		if (asprintf(&cg, "; cgroup %s%s%s%s", shown ? shown : "?", cgcpus ? " (cpuset.cpus.effective: " : "",
			     cgcpus ? cgcpus : "", cgcpus ? ")" : "") < 0)
			cg = NULL;
		free(shown);
	}
	puts("\n== Process");
	if (asprintf(&line, "%s (pid %d): %zu thread%s; CPUs allowed: %s; memory allowed: %s%s", comm ? comm : "?",
		     p->pid, p->ntasks, p->ntasks == 1 ? "" : "s", allowed ? allowed : "?", mems ? mems : "?",
		     cg ? cg : "") >= 0) {
		np_print_wrapped(stdout, line, width, 0, 4);
		free(line);
	}
	free(comm);
	free(allowed);
	free(mems);
	free(cg);
	free(cgcpus);
}

/* Each line after its label, names escaped (paths and interfaces are the kernel's bytes). */
static void print_lines(const char *label, char *const *lines, size_t n, int width)
{
	for (size_t i = 0; i < n; i++) {
		fputs(label, stdout);
		char *shown = np_escape_dup(lines[i]);
		np_print_wrapped(stdout, shown ? shown : "?", width, (int)strlen(label), 4);
		free(shown);
	}
}

static int print_text(const struct np_command *self, const struct np_machine *m, const struct np_app *app,
		      const struct np_findings *f, struct np_table *devices)
{
	const struct np_process *p = &app->proc;
	int width = np_term_width();
	print_problems(m, app, f, width);
	print_process(m, p, width);

	puts("\n== Nodes");
	struct nodes_view view = { m, p };
	struct np_table nodes;
	int rc = np_table_init(&nodes, self, node_columns,
			       p->ticks_total ? "node,cpus,threads,cpu,memory,pages,memory_share"
					      : "node,cpus,threads,memory,pages,memory_share", NULL, false, &view);
	if (rc != NP_CONTINUE)
		return rc;
	rc = EXIT_OK;
	int *rows = calloc((size_t)m->topo.nnodes + 1, sizeof(*rows));
	for (int n = 0; rows && rc == EXIT_OK && n < m->topo.nnodes; n++) {
		rows[n] = n;
		rc = np_table_add(&nodes, &rows[n]);
	}
	if (rc == EXIT_OK)
		rc = rows ? np_table_print(&nodes, stdout) : np_error("%s", strerror(ENOMEM));
	np_table_free(&nodes);
	free(rows);
	if (p->seconds > 0)
		printf("CPU time over %g s: %.2f s\n", p->seconds, (double)p->ticks_total / NP_USER_HZ);
	print_lines("note: ", p->notes, p->nnotes, width);

	puts("\n== Devices");
	if (app->ndevs && rc == EXIT_OK)
		rc = np_table_print(devices, stdout);
	else if (rc == EXIT_OK)
		puts("none found (open files, working directory, memory maps, sockets)");
	print_lines("found: ", app->why, app->nwhy, width);

	puts("\n== Placement");
	np_print_wrapped(stdout, app->placement, width, 0, 4);
	return rc;
}

static int parse_pid(const struct np_command *self, const char *arg, int *pid)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (!*arg || *end || errno || v <= 0 || v > INT_MAX)
		return np_usage_error(self, "'%s' is not a process ID (a positive number)", arg);
	*pid = (int)v;
	return EXIT_OK;
}

int cmd_app(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("app");
	struct app_opts o = { 0 };
	int first, pid = 0, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc != NP_CONTINUE)
		return rc;
	if (first >= argc)
		return np_usage_error(self, "name the process: numaplace app PID");
	if (first + 1 < argc)
		return np_usage_error(self, "unexpected argument '%s' (one PID)", argv[first + 1]);
	if ((rc = parse_pid(self, argv[first], &pid)) != EXIT_OK)
		return rc;

	struct np_machine m;
	struct np_request req;
	struct np_request_opts ro = NP_REQUEST_OPTS_INIT;
	ro.policy = "app";
	ro.app_pid = pid;
	ro.app_judged = true;
	ro.interval = o.interval;
	if (np_machine_load(ctx, &m))
		return np_error("%s", ctx->err);
	np_print_warnings(&m);
	/* Its problems come from the one problem list, judged under the app
	 * policy with the placement's CPUs: its devices' IRQs follow it. */
	rc = np_request_setup(ctx, &m, &ro, np_sample_interval, &req) ? np_error("%s", ctx->err) : EXIT_OK;
	if (rc == EXIT_OK && np_request_judge(&req))
		rc = np_error("judging: %s", strerror(ENOMEM));
	const struct np_app *app = &req.app;
	const struct np_findings *f = &req.findings;

	struct nodes_view view = { &m, &app->proc };
	struct np_table devices;
	if (rc == EXIT_OK) {
		rc = np_table_init(&devices, self, device_columns, "device,name,driver,node,interrupts,ran_on", NULL,
				   o.json, &view);
		if (rc == NP_CONTINUE) {
			rc = EXIT_OK;
			for (size_t i = 0; rc == EXIT_OK && i < app->ndevs; i++)
				rc = np_table_add(&devices, &app->devs[i]);
			if (rc == EXIT_OK)
				rc = o.json ? app_json(&m, app, f, &devices, o.pretty) : print_text(self, &m, app, f, &devices);
			np_table_free(&devices);
		}
	}
	np_request_free(&req);
	np_machine_free(&m);
	return rc;
}
