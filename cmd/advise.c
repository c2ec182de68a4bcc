#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/advise.h"
#include "../lib/appdev.h"
#include "cmd.h"
#include "table.h"

const struct np_option advise_options[] = {
	{ "policy", 'p', "POLICY", "local (IRQs on the device's node, default), app, or spread", "policy" },
	{ "app-cpus", 0, "LIST", "the application runs on these CPUs (for --policy app)", NULL },
	{ "app-node", 0, "NODE", "the application runs on this node (for --policy app)", NULL },
	{ "app-pid", 0, "PID", "the application is this process: its CPUs, and (for --policy app) its devices", "pid" },
	{ "device", 'd', "FILTER", "plan only for matching devices (repeatable); with --policy app, the application's devices", "device" },
	{ "exclude-cpus", 'x', "LIST", "keep these CPUs free of IRQs", NULL },
	{ "interval", 'i', "SEC", "weigh IRQs by what they ran during SEC seconds (0 < SEC <= 3600), not since boot", NULL },
	{ "output", 'o', "FILE", "also write the plan as a profile for 'numaplace apply'", "file" },
	{ "json", 'j', NULL, "print JSON instead of a table", NULL },
	{ NULL, 0, NULL, NULL, NULL },
};

static int parse_cpus(const struct np_command *self, const char *opt, const char *arg, struct np_cpuset *out)
{
	if (np_cpuset_parse_list(out, arg) || np_cpuset_empty(out))
		return np_usage_error(self, "--%s: '%s' is not a CPU list such as 0-3,8", opt, arg);
	return EXIT_OK;
}

static int parse_int(const struct np_command *self, const char *opt, const char *arg, int *out)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (*end || end == arg || v < 0 || v > 1 << 22)
		return np_usage_error(self, "--%s: '%s' is not a number", opt, arg);
	*out = (int)v;
	return EXIT_OK;
}

int np_app_cpus(struct np_ctx *ctx, const struct np_topology *topo, const struct np_command *self,
		const char *cpus, int node, int pid, struct np_cpuset *out)
{
	if (cpus)
		return parse_cpus(self, "app-cpus", cpus, out);
	if (node >= 0) {
		const struct np_node *n = np_topology_node(topo, node);
		if (!n)
			return np_usage_error(self, "--app-node: there is no node %d", node);
		if (np_cpuset_empty(&n->cpus))
			return np_usage_error(self, "--app-node: node %d has no CPUs (memory only)", node);
		return np_cpuset_copy(out, &n->cpus) ? EXIT_FAIL : EXIT_OK;
	}
	if (pid >= 0 && np_process_cpus(ctx, pid, out))
		return np_error("%s", ctx->err);
	return EXIT_OK;
}

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

/* "48.2M" */
static void count_text(unsigned long long n, char *buf, size_t size)
{
	if (n >= 10000000ULL)
		snprintf(buf, size, "%.0fM", (double)n / 1e6);
	else if (n >= 1000000ULL)
		snprintf(buf, size, "%.1fM", (double)n / 1e6);
	else if (n >= 10000ULL)
		snprintf(buf, size, "%.0fk", (double)n / 1e3);
	else
		snprintf(buf, size, "%llu", n);
}

/* What a recommendation moves: interrupts since boot and their share handled
 * today off its target's nodes; for an advice-only kind, the command to run. */
static void volume_text(const struct np_rec *r, char *buf, size_t size)
{
	char n[32];
	if (np_attrs[r->kind].command) {
		struct np_target t = { .irq = r->irq, .queue = r->queue, .net = r->net, .block = r->block };
		char *cmd = np_attr_command(r->kind, &t, r->recommended);
		snprintf(buf, size, "%s", cmd ? cmd : "?");
		free(cmd);
	} else if (r->kind == NP_ATTR_IRQ_AFFINITY) {
		count_text(r->interrupts, n, sizeof(n));
		snprintf(buf, size, "%s, %.0f%% remote", n, r->remote * 100);
	} else {
		snprintf(buf, size, "-");
	}
}

static cJSON *plan_to_json(const struct np_machine *m, const struct np_plan *plan, const char *policy)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "policy", policy);
	cJSON *recs = cJSON_AddArrayToObject(doc, "recommendations");
	for (size_t i = 0; i < plan->n; i++) {
		const struct np_rec *r = &plan->v[i];
		if (!r->change)
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kind", np_attr_name(r->kind));
		cJSON_AddItemToObject(o, "device", r->dev >= 0 ? cJSON_CreateString(m->pci.devs[r->dev].addr)
							       : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "irq", r->irq >= 0 ? cJSON_CreateNumber(r->irq) : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "vector", r->vector ? cJSON_CreateString(r->vector) : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "queue", r->queue >= 0 ? cJSON_CreateNumber(r->queue) : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "block", r->block ? cJSON_CreateString(r->block) : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "net", r->net ? cJSON_CreateString(r->net) : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "current", r->current ? cJSON_CreateString(r->current) : cJSON_CreateNull());
		cJSON_AddStringToObject(o, "recommended", r->recommended);
		if (r->kind == NP_ATTR_IRQ_AFFINITY) {
			cJSON_AddNumberToObject(o, "interrupts", (double)r->interrupts);
			cJSON_AddNumberToObject(o, "remote_share", (double)(long)(r->remote * 1000 + 0.5) / 1000);
		}
		if (np_attrs[r->kind].command) {
			char cmd[160];
			volume_text(r, cmd, sizeof(cmd));
			cJSON_AddStringToObject(o, "command", cmd);
			cJSON_AddBoolToObject(o, "advice_only", true);
		}
		cJSON_AddStringToObject(o, "reason", r->reason);
		cJSON_AddItemToArray(recs, o);
	}
	cJSON *kept = cJSON_AddArrayToObject(doc, "kept");
	for (size_t i = 0; i < plan->n; i++) {
		const struct np_rec *r = &plan->v[i];
		if (r->change || r->kind != NP_ATTR_IRQ_AFFINITY)
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "device", m->pci.devs[r->dev].addr);
		cJSON_AddNumberToObject(o, "irq", r->irq);
		cJSON_AddStringToObject(o, "vector", r->vector);
		cJSON_AddStringToObject(o, "cpus", r->recommended);
		cJSON_AddStringToObject(o, "reason", r->reason);
		cJSON_AddItemToArray(kept, o);
	}
	cJSON *notes = cJSON_AddArrayToObject(doc, "notes");
	for (size_t i = 0; i < plan->nnotes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(plan->notes[i]));
	cJSON *warnings = cJSON_AddArrayToObject(doc, "warnings");
	for (size_t i = 0; i < plan->nwarnings; i++)
		cJSON_AddItemToArray(warnings, cJSON_CreateString(plan->warnings[i]));
	return doc;
}

static void plan_print(const struct np_machine *m, const struct np_plan *plan, const char *policy)
{
	static const char *const head[] = { "TARGET", "CURRENT", "RECOMMENDED", "VOLUME", "REASON", NULL };
	struct np_table *t = np_table_new(head);
	size_t n = 0, kept = 0;
	for (size_t i = 0; i < plan->n; i++) {
		const struct np_rec *r = &plan->v[i];
		kept += !r->change && r->kind == NP_ATTR_IRQ_AFFINITY;
		if (!r->change)
			continue;
		char target[160], volume[160];
		target_text(m, r, target, sizeof(target));
		volume_text(r, volume, sizeof(volume));
		/* Where an empty set is a value, it turns the feature off. */
		bool is_set = np_attrs[r->kind].empty_ok;
		np_table_cell(t, "%s", target);
		np_table_cell(t, "%s", !r->current ? "?" : is_set && !*r->current ? "off" : r->current);
		np_table_cell(t, "%s", is_set && !*r->recommended ? "off" : r->recommended);
		np_table_cell(t, "%s", volume);
		np_table_cell(t, "%s", r->reason);
		n++;
	}
	printf("Policy %s: %zu change%s recommended", policy, n, n == 1 ? "" : "s");
	if (kept)
		printf(", %zu IRQ%s kept as %s", kept, kept == 1 ? "" : "s", kept == 1 ? "it is" : "they are");
	printf("%s\n", n == 0 && plan->nwarnings == 0 ? " (the machine already follows this plan)" : "");
	for (size_t i = 0; i < plan->nnotes; i++)
		printf("note: %s\n", plan->notes[i]);
	if (n) {
		putchar('\n');
		np_table_print(t, stdout);
	}
	np_table_free(t);
	for (size_t i = 0; i < plan->nwarnings; i++)
		printf("%swarning: %s\n", i == 0 ? "\n" : "", plan->warnings[i]);
}

/* Writes text to path, refusing to follow a link planted there. */
static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return np_error("cannot write '%s': %s", path, strerror(errno));
	size_t len = strlen(text);
	ssize_t n = write(fd, text, len);
	int err = n < 0 ? errno : (size_t)n != len ? EIO : 0;
	if (close(fd) < 0 && !err)
		err = errno;
	return err ? np_error("cannot write '%s': %s", path, strerror(err)) : EXIT_OK;
}

int cmd_advise(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("advise");
	struct np_optparse st = { 0 };
	const char *arg, *policy = "local", *app_cpus = NULL, *exclude = NULL, *output = NULL;
	const char **filters = calloc((size_t)argc + 1, sizeof(char *));
	int nfilters = 0, app_node = -1, app_pid = -1, opt, rc = EXIT_OK;
	double interval = 0;
	bool json = false;
	if (!filters)
		return np_error("%s", strerror(ENOMEM));
	while (rc == EXIT_OK && (opt = np_opt_next(&st, self, argc, argv, &arg)) >= 0) {
		const char *name = self->options[opt].name;
		if (!strcmp(name, "policy"))
			policy = arg;
		else if (!strcmp(name, "app-cpus"))
			app_cpus = arg;
		else if (!strcmp(name, "app-node"))
			rc = parse_int(self, name, arg, &app_node);
		else if (!strcmp(name, "app-pid"))
			rc = parse_int(self, name, arg, &app_pid);
		else if (!strcmp(name, "device"))
			filters[nfilters++] = arg;
		else if (!strcmp(name, "exclude-cpus"))
			exclude = arg;
		else if (!strcmp(name, "output"))
			output = arg;
		else if (!strcmp(name, "interval")) {
			char *end;
			interval = strtod(arg, &end);
			if (*end || end == arg || !(interval > 0 && interval <= 3600))
				rc = np_usage_error(self, "--interval needs seconds between 0 and 3600, not '%s'", arg);
		}
		else
			json = true;
	}
	if (rc != EXIT_OK || opt != NP_OPT_END) {
		free(filters);
		return rc != EXIT_OK ? rc : opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;
	}
	enum np_irq_policy irqs = !strcmp(policy, "local") ? NP_IRQS_LOCAL
				  : !strcmp(policy, "app") ? NP_IRQS_APP
				  : !strcmp(policy, "spread") ? NP_IRQS_SPREAD
							    : NP_IRQS_KEEP;
	int napp = (app_cpus != NULL) + (app_node >= 0) + (app_pid >= 0);
	if (irqs == NP_IRQS_KEEP)
		rc = np_usage_error(self, "--policy: '%s' is not one of local, app, spread", policy);
	else if (st.index < argc)
		rc = np_usage_error(self, "unexpected argument '%s' (devices are chosen with --device)", argv[st.index]);
	else if (napp > 1)
		rc = np_usage_error(self, "give only one of --app-cpus, --app-node, --app-pid");
	else if (irqs == NP_IRQS_APP && napp == 0)
		rc = np_usage_error(self, "--policy app needs --app-cpus, --app-node or --app-pid");
	else if (irqs == NP_IRQS_APP && nfilters == 0 && app_pid < 0)
		rc = np_usage_error(self, "--policy app moves only the application's devices: name them with --device "
				    "FILTER (repeatable) or let --app-pid PID infer them");
	if (rc != EXIT_OK) {
		free(filters);
		return rc;
	}

	struct np_machine m;
	if (np_machine_load(ctx, &m)) {
		free(filters);
		return np_error("%s", ctx->err);
	}
	np_print_warnings(&m);
	/* Impact follows the recent rate when asked: counts since boot weigh a
	 * device that was busy last month as much as one busy now. */
	if (interval > 0 && np_sample_interval(ctx, &m, interval)) {
		np_machine_free(&m);
		free(filters);
		return np_error("%s", ctx->err);
	}
	struct np_advise_opts o = { .policy_name = policy };
	bool *selected = calloc(m.pci.ndevs + 1, sizeof(bool));
	o.devices = calloc(m.pci.ndevs + 1, sizeof(*o.devices));
	rc = selected && o.devices ? EXIT_OK : np_error("%s", strerror(ENOMEM));
	if (rc == EXIT_OK)
		rc = np_app_cpus(ctx, &m.topo, self, app_cpus, app_node, app_pid, &o.app_cpus);
	if (rc == EXIT_OK && exclude)
		rc = parse_cpus(self, "exclude-cpus", exclude, &o.exclude);
	/* Bound to a set of CPUs, not merely allowed everywhere: what makes
	 * forcing completions on the submitters pay (seed 004). */
	o.app_pinned = app_cpus || app_node >= 0 || (app_pid >= 0 && !np_cpuset_subset(&m.topo.online, &o.app_cpus));
	char **inferred = NULL;
	size_t ninferred = 0;
	if (rc == EXIT_OK && irqs == NP_IRQS_APP && nfilters == 0) {
		if (np_app_devices(ctx, &m, app_pid, selected, &inferred, &ninferred))
			rc = np_error("%s", ctx->err);
		else if (ninferred == 0 || !memchr(selected, true, m.pci.ndevs))
			rc = np_error("--app-pid %d: no device inferred from its open files, working directory, memory maps "
				      "or sockets: name the application's devices with --device", app_pid);
	} else if (rc == EXIT_OK) {
		rc = np_select_devices(&m, nfilters, (char **)filters, false, selected);
	}
	for (size_t i = 0; rc == EXIT_OK && i < m.pci.ndevs; i++)
		o.devices[i] = (struct np_device_policy){ .selected = selected[i], .irqs = irqs,
							  .rq_affinity = NP_RQ_AUTO, .rps = NP_RPS_KEEP,
							  .xps_follow_irq = true, .auto_net = true };
	struct np_plan plan = { 0 };
	if (rc == EXIT_OK && np_advise(&m, &o, &plan))
		rc = np_error("planning: %s", strerror(ENOMEM));
	/* What --app-pid inferred leads the notes: the plan follows from it. */
	for (size_t i = 0; rc == EXIT_OK && i < ninferred; i++) {
		char **more = realloc(plan.notes, (plan.nnotes + 1) * sizeof(*more));
		if (!more) {
			rc = np_error("%s", strerror(ENOMEM));
			break;
		}
		plan.notes = more;
		memmove(plan.notes + i + 1, plan.notes + i, (plan.nnotes - i) * sizeof(*more));
		if (asprintf(&plan.notes[i], "--app-pid %d: %s", app_pid, inferred[i]) < 0)
			plan.notes[i] = NULL, rc = np_error("%s", strerror(ENOMEM));
		else
			plan.nnotes++;
	}
	for (size_t i = 0; i < ninferred; i++)
		free(inferred[i]);
	free(inferred);
	if (rc == EXIT_OK && interval > 0) {
		char **more = realloc(plan.notes, (plan.nnotes + 1) * sizeof(*more));
		if (!more || asprintf(&more[plan.nnotes], "interrupts counted during %g s (--interval), not since boot",
				      interval) < 0)
			rc = np_error("%s", strerror(ENOMEM));
		if (more)
			plan.notes = more;
		if (rc == EXIT_OK)
			plan.nnotes++;
	}
	if (rc == EXIT_OK && output) {
		struct np_profile prof;
		char desc[256];
		snprintf(desc, sizeof(desc), "Written by 'numaplace advise --policy %s': concrete settings for this machine.",
			 policy);
		char *text = NULL;
		if (np_plan_to_profile(&m, &plan, "advised", desc, &prof) == 0) {
			text = np_profile_to_text(&prof);
			np_profile_free(&prof);
		}
		rc = text ? write_file(output, text) : np_error("writing the profile: %s", strerror(ENOMEM));
		free(text);
	}
	if (rc == EXIT_OK && json)
		rc = np_print_json(plan_to_json(&m, &plan, policy));
	else if (rc == EXIT_OK)
		plan_print(&m, &plan, policy);
	np_plan_free(&plan);
	np_cpuset_free(&o.app_cpus);
	np_cpuset_free(&o.exclude);
	free(o.devices);
	free(selected);
	free(filters);
	np_machine_free(&m);
	return rc;
}
