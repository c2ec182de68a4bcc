/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "judge/request.h"


#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/count.h"
#include "read/app-devices.h"
#include "read/kubelet.h"
#include "read/process.h"

int np_filters_add(struct np_filters *filters, const char *filter)
{
	const char **v = realloc(filters->v, (filters->n + 2) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	filters->v = v;
	v[filters->n++] = filter;
	v[filters->n] = NULL;
	return 0;
}

void np_filters_free(struct np_filters *filters)
{
	free(filters->v);
	memset(filters, 0, sizeof(*filters));
}

static enum np_irq_policy policy_of(const char *name)
{
	return !name || !strcmp(name, "local") ? NP_IRQS_LOCAL
	       : !strcmp(name, "app")          ? NP_IRQS_APP
	       : !strcmp(name, "spread")       ? NP_IRQS_SPREAD
					       : NP_IRQS_KEEP;
}

int np_request_check(struct np_ctx *ctx, const struct np_request_opts *o)
{
	enum np_irq_policy irqs = policy_of(o->policy);
	/* With --pod, --app-pid only names a process of the pod (its devices). */
	int napp = (o->app_cpus != NULL) + (o->app_node >= 0) + (o->pod != NULL) + (o->app_pid >= 0 && !o->pod);
	if (irqs == NP_IRQS_KEEP)
		return np_fail(ctx, -EINVAL, "--policy: '%s' is not one of local, app, spread", o->policy);
	if (o->channels == NP_CHANNELS_PER_NODE && irqs != NP_IRQS_SPREAD)
		return np_fail(ctx, -EINVAL, "--channels per-node goes with --policy spread (one queue on each node)");
	if (napp > 1)
		return np_fail(ctx, -EINVAL, "give only one of --app-cpus, --app-node, --app-pid, --pod");
	if (irqs == NP_IRQS_APP && napp == 0)
		return np_fail(ctx, -EINVAL, "--policy app needs --app-cpus, --app-node, --app-pid or --pod");
	if (irqs == NP_IRQS_APP && o->devices.n == 0 && o->app_pid < 0)
		return np_fail(ctx, -EINVAL, "--policy app moves only the application's devices: name them with "
			       "--device FILTER (repeatable) or let --app-pid PID infer them");
	return 0;
}

/* --pod UID[/CONTAINER]: the exclusive CPUs of the pod's containers (or
 * of the one named), from the kubelet's CPU manager state. */
static int pod_cpus(struct np_ctx *ctx, const struct np_machine *m, const char *pod, struct np_cpuset *out)
{
	const struct np_kubelet *k = &m->kube;
	const char *slash = strchr(pod, '/');
	size_t uidlen = slash ? (size_t)(slash - pod) : strlen(pod);
	int rc = 0, found = 0;
	for (size_t i = 0; i < k->n && rc == 0; i++) {
		const struct np_kube_container *c = &k->v[i];
		if (strlen(c->pod_uid) != uidlen || strncmp(c->pod_uid, pod, uidlen) || (slash && strcmp(c->name, slash + 1)))
			continue;
		found++;
		rc = np_cpuset_or(out, &c->cpus);
	}
	if (rc)
		return np_fail(ctx, rc, "%s", strerror(-rc));
	if (!found && !k->path)
		return np_fail(ctx, -ENOENT, "--pod %s: no kubelet CPU manager state here (%s, or --kubelet-state FILE)",
			       pod, NP_KUBELET_STATE);
	if (!found)
		return np_fail(ctx, -ENOENT, "--pod %s: no %s with exclusive CPUs in '%s'", pod,
			       slash ? "such container" : "such pod", k->path);
	return 0;
}

/* The application's CPUs from the one of --app-cpus, --app-node, --pod or
 * --app-pid given. A bad list or node is the user's (1); a process that
 * cannot be read, the machine's (-errno). */
static int app_cpus(struct np_ctx *ctx, const struct np_machine *m, const struct np_request_opts *o,
		    struct np_cpuset *out)
{
	if (o->pod)
		return pod_cpus(ctx, m, o->pod, out);
	if (o->app_cpus) {
		if (np_cpuset_parse_list(out, o->app_cpus) || np_cpuset_empty(out))
			return np_fail(ctx, 1, "--app-cpus: '%s' is not a CPU list such as 0-3,8", o->app_cpus);
		return 0;
	}
	if (o->app_node >= 0) {
		const struct np_node *n = np_topology_node(&m->topo, o->app_node);
		if (!n)
			return np_fail(ctx, 1, "--app-node: there is no node %d", o->app_node);
		if (np_cpuset_empty(&n->cpus))
			return np_fail(ctx, 1, "--app-node: node %d has no CPUs (memory only)", o->app_node);
		return np_cpuset_copy(out, &n->cpus);
	}
	return o->app_pid >= 0 ? np_process_cpus(ctx, o->app_pid, out) : 0;
}

/* advise --app-pid (not the app command): the devices the process uses,
 * under the app policy with no --device; then where it belongs. What was
 * inferred and the placement lead the notes. */
static int app_pid_scope(struct np_ctx *ctx, struct np_request *req)
{
	const struct np_request_opts *o = &req->opts;
	struct np_machine *m = req->m;
	char **inferred = NULL, *placed = NULL;
	size_t ninferred = 0;
	int rc = 0;
	if (req->irqs == NP_IRQS_APP && o->devices.n == 0) {
		rc = np_app_devices(ctx, m, o->app_pid, req->selected, &inferred, &ninferred);
		if (rc == 0 && (ninferred == 0 || !memchr(req->selected, true, m->pci.ndevs)))
			rc = np_fail(ctx, -ENOENT, "--app-pid %d: no device inferred from its open files, working "
				     "directory, memory maps or sockets: name the application's devices with --device",
				     o->app_pid);
	} else if (np_select_devices(ctx, m, (int)o->devices.n, (char **)o->devices.v, false, req->selected)) {
		rc = -ENOENT;
	}
	/* It places the process too (judge/app-place); under the app policy its IRQs follow it there. */
	if (rc == 0 && !o->pod && np_app_advise(ctx, m, o->app_pid, req->irqs == NP_IRQS_APP, &req->app, &placed))
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	if (rc == 0 && placed) {
		rc = np_texts_take(&inferred, &ninferred, placed);
		if (rc == 0 && req->app.place_node >= 0)
			req->policy.app = &req->app;
		if (rc == 0 && !np_cpuset_empty(&req->app.place_cpus) && req->irqs == NP_IRQS_APP)
			rc = np_cpuset_copy(&req->policy.app_cpus, &req->app.place_cpus);
		if (rc)
			np_fail(ctx, rc, "%s", strerror(-rc));
	}
	for (size_t i = 0; i < ninferred; i++) {
		char *note;
		if (rc == 0 && asprintf(&note, "--app-pid %d: %s", o->app_pid, inferred[i]) < 0)
			note = NULL;
		if (rc == 0 && (rc = np_texts_take(&req->notes, &req->nnotes, note)))
			np_fail(ctx, rc, "%s", strerror(ENOMEM));
		free(inferred[i]);
	}
	free(inferred);
	return rc;
}

int np_request_setup(struct np_ctx *ctx, struct np_machine *m, const struct np_request_opts *o,
		     np_request_sampler *sample, struct np_request *req)
{
	memset(req, 0, sizeof(*req));
	req->m = m;
	req->opts = *o; /* its strings and filters borrowed */
	req->irqs = policy_of(o->policy);
	req->app.threads_node = req->app.memory_node = req->app.place_node = -1;
	struct np_advise_opts *pol = &req->policy;
	pol->policy_name = o->policy ? o->policy : "local";
	int rc = (req->selected = calloc(m->pci.ndevs + 1, sizeof(bool))) ? 0 : np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	/* The process is read before the interval: its threads' CPU time is
	 * counted over the same seconds as the devices' interrupts. */
	if (rc == 0 && o->app_judged)
		rc = np_app_load(ctx, m, o->app_pid, &req->app);
	/* Impact follows the recent rate when asked: counts since boot weigh a
	 * device that was busy last month as much as one busy now. */
	if (rc == 0 && o->interval > 0 && sample)
		rc = sample(ctx, m, o->interval);
	if (rc == 0 && o->interval > 0 && o->app_judged)
		rc = np_app_sample(ctx, m, &req->app, o->interval);
	if (rc == 0 && o->app_judged && (rc = np_app_place(m, &req->app)) != 0)
		np_fail(ctx, rc, "%s", strerror(-rc));
	if (rc == 0 && o->app_judged) {
		/* Its devices' IRQs follow it: judged under the app policy with the
		 * placement's CPUs (where it may run, when no node wins). */
		pol->app = &req->app;
		pol->app_pinned = true;
		memcpy(req->selected, req->app.selected, m->pci.ndevs * sizeof(bool));
		rc = np_cpuset_copy(&pol->app_cpus, !np_cpuset_empty(&req->app.place_cpus) ? &req->app.place_cpus
											: &req->app.proc.allowed);
		snprintf(req->fix_hint, sizeof(req->fix_hint), "numaplace advise --policy app --app-pid %d", o->app_pid);
	} else if (rc == 0) {
		rc = app_cpus(ctx, m, o, &pol->app_cpus);
		if (rc == 0 && o->exclude && (np_cpuset_parse_list(&pol->exclude, o->exclude) || np_cpuset_empty(&pol->exclude)))
			rc = np_fail(ctx, 1, "--exclude-cpus: '%s' is not a CPU list such as 0-3,8", o->exclude);
		/* Bound to a set of CPUs, not merely allowed everywhere: what makes
		 * forcing completions on the submitters pay (Alan D. Brunelle,
		 * linux-kernel, 2008-04-15). */
		pol->app_pinned = o->app_cpus || o->app_node >= 0 || o->pod ||
				  (o->app_pid >= 0 && !np_cpuset_subset(&m->topo.online, &pol->app_cpus));
		if (rc == 0 && o->app_pid >= 0)
			rc = app_pid_scope(ctx, req);
		else if (rc == 0 && np_select_devices(ctx, m, (int)o->devices.n, (char **)o->devices.v, false, req->selected))
			rc = -ENOENT;
		snprintf(req->fix_hint, sizeof(req->fix_hint), "numaplace advise%s%s",
			 req->irqs == NP_IRQS_LOCAL ? "" : " --policy ", req->irqs == NP_IRQS_LOCAL ? "" : o->policy);
	}
	/* Pods' exclusive CPUs are forbidden, as --exclude-cpus ones. */
	if (rc == 0 && (np_advise_opts_for(m, req->irqs, req->selected, pol) ||
			np_advise_opts_forbid(m, pol, &req->warnings, &req->nwarnings)))
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	pol->app_is_process = o->app_pid >= 0;
	pol->no_irq_reasons = o->plan_unshown;
	pol->app_devices = req->app.selected;
	for (size_t i = 0; rc == 0 && i < m->pci.ndevs; i++) {
		pol->devices[i].channels = o->channels;
		pol->devices[i].xps_follow_irq = o->xps;
	}
	/* Rates: over the interval, else since boot; a count alone (a copy
	 * without /proc/uptime) is weighed against a fixed volume. */
	pol->min_interrupts = np_findings_threshold(m->load.seconds);
	char *note = NULL, c[16];
	if (rc == 0 && o->interval > 0 &&
	    asprintf(&note, "interrupts counted during %g s (--interval), not since boot", o->interval) < 0)
		rc = -ENOMEM;
	else if (rc == 0 && !(m->load.seconds > 0) && !m->irqs.absent &&
		 asprintf(&note, "no /proc/uptime here: interrupts are counts since boot, not rates; a device's "
			  "problem weighs when it is %s or more%s", np_count_text(pol->min_interrupts, c),
			  m->load.cpu ? "" : "; without /proc/stat either, no CPU's load is known: nothing "
					     "moves for balance") < 0)
		rc = -ENOMEM;
	if (rc == 0 && note && np_texts_take(&req->notes, &req->nnotes, note))
		rc = -ENOMEM;
	if (rc == -ENOMEM)
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	return rc;
}

/* Moves the texts of *from (n of them) to the end (or the front) of *to. */
static int join(char ***to, size_t *nto, char ***from, size_t *nfrom, bool front)
{
	if (!*nfrom)
		return 0;
	char **v = realloc(*to, (*nto + *nfrom + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (front) {
		memmove(v + *nfrom, v, *nto * sizeof(*v));
		memcpy(v, *from, *nfrom * sizeof(*v));
	} else {
		memcpy(v + *nto, *from, *nfrom * sizeof(*v));
	}
	*to = v;
	*nto += *nfrom;
	free(*from);
	*from = NULL;
	*nfrom = 0;
	return 0;
}

int np_request_judge(struct np_request *req)
{
	struct np_plan *plan = &req->findings.plan;
	int rc = np_findings_collect(req->m, &req->policy, req->fix_hint, &req->findings);
	if (rc == 0)
		rc = join(&plan->notes, &plan->nnotes, &req->notes, &req->nnotes, true);
	if (rc == 0)
		rc = join(&plan->warnings, &plan->nwarnings, &req->warnings, &req->nwarnings, false);
	return rc;
}

void np_request_free(struct np_request *req)
{
	np_findings_free(&req->findings);
	np_advise_opts_free(&req->policy);
	np_app_free(&req->app);
	for (size_t i = 0; i < req->nnotes; i++)
		free(req->notes[i]);
	free(req->notes);
	for (size_t i = 0; i < req->nwarnings; i++)
		free(req->warnings[i]);
	free(req->warnings);
	free(req->selected);
	memset(req, 0, sizeof(*req));
}
