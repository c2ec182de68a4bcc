#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/advise.h"
#include "cmd.h"
#include "table.h"

const struct np_option advise_options[] = {
	{ "policy", 'p', "POLICY", "local (IRQs on the device's node, default), app, or spread", "policy" },
	{ "app-cpus", 0, "LIST", "the application runs on these CPUs (for --policy app)", NULL },
	{ "app-node", 0, "NODE", "the application runs on this node (for --policy app)", NULL },
	{ "app-pid", 0, "PID", "the application is this process: use the CPUs it may run on", "pid" },
	{ "device", 'd', "FILTER", "plan only for matching devices (repeatable)", "device" },
	{ "exclude-cpus", 'x', "LIST", "keep these CPUs free of IRQs", NULL },
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
		cJSON_AddStringToObject(o, "reason", r->reason);
		cJSON_AddItemToArray(recs, o);
	}
	cJSON *warnings = cJSON_AddArrayToObject(doc, "warnings");
	for (size_t i = 0; i < plan->nwarnings; i++)
		cJSON_AddItemToArray(warnings, cJSON_CreateString(plan->warnings[i]));
	return doc;
}

static void plan_print(const struct np_machine *m, const struct np_plan *plan, const char *policy)
{
	static const char *const head[] = { "TARGET", "CURRENT", "RECOMMENDED", "REASON", NULL };
	struct np_table *t = np_table_new(head);
	size_t n = 0;
	for (size_t i = 0; i < plan->n; i++) {
		const struct np_rec *r = &plan->v[i];
		if (!r->change)
			continue;
		char target[160];
		target_text(m, r, target, sizeof(target));
		/* Where an empty set is a value, it turns the feature off. */
		bool is_set = np_attrs[r->kind].empty_ok;
		np_table_cell(t, "%s", target);
		np_table_cell(t, "%s", !r->current ? "?" : is_set && !*r->current ? "off" : r->current);
		np_table_cell(t, "%s", is_set && !*r->recommended ? "off" : r->recommended);
		np_table_cell(t, "%s", r->reason);
		n++;
	}
	printf("Policy %s: %zu change%s recommended%s\n", policy, n, n == 1 ? "" : "s",
	       n ? "" : " (the machine already follows this plan)");
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
	struct np_advise_opts o = { .policy_name = policy };
	bool *selected = calloc(m.pci.ndevs + 1, sizeof(bool));
	o.devices = calloc(m.pci.ndevs + 1, sizeof(*o.devices));
	rc = selected && o.devices ? EXIT_OK : np_error("%s", strerror(ENOMEM));
	if (rc == EXIT_OK)
		rc = np_app_cpus(ctx, &m.topo, self, app_cpus, app_node, app_pid, &o.app_cpus);
	if (rc == EXIT_OK && exclude)
		rc = parse_cpus(self, "exclude-cpus", exclude, &o.exclude);
	if (rc == EXIT_OK)
		rc = np_select_devices(&m, nfilters, (char **)filters, false, selected);
	for (size_t i = 0; rc == EXIT_OK && i < m.pci.ndevs; i++)
		o.devices[i] = (struct np_device_policy){ .selected = selected[i], .irqs = irqs,
							  .rq_affinity = NP_RQ_AUTO, .rps = NP_RPS_KEEP,
							  .xps_follow_irq = true, .auto_net = true };
	struct np_plan plan = { 0 };
	if (rc == EXIT_OK && np_advise(&m, &o, &plan))
		rc = np_error("planning: %s", strerror(ENOMEM));
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
