/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "judge/app-place.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/app-devices.h"
#include "judge/cpuset-names.h"
#include "judge/forbidden.h"
#include "base/count.h"
#include "base/quote.h"

int np_app_load(struct np_ctx *ctx, const struct np_machine *m, int pid, struct np_app *out)
{
	memset(out, 0, sizeof(*out));
	out->threads_node = out->memory_node = out->place_node = -1;
	int rc = np_process_read(ctx, &m->topo, pid, &out->proc);
	if (rc)
		return rc;
	if (!(out->selected = calloc(m->pci.ndevs + 1, sizeof(bool))))
		rc = -ENOMEM;
	if (rc == 0)
		rc = np_app_devices(ctx, m, pid, out->selected, &out->why, &out->nwhy);
	if (rc)
		np_app_free(out);
	return rc;
}

int np_app_sample(struct np_ctx *ctx, const struct np_machine *m, struct np_app *app, double seconds)
{
	return np_process_sample(ctx, &m->topo, &app->proc, seconds);
}

static int by_interrupts(const void *a, const void *b)
{
	const struct np_app_device *x = a, *y = b;
	if (x->interrupts != y->interrupts)
		return x->interrupts > y->interrupts ? -1 : 1;
	return (x->dev > y->dev) - (x->dev < y->dev);
}

static int devices_tally(const struct np_machine *m, struct np_app *app)
{
	for (size_t di = 0; di < m->pci.ndevs; di++) {
		if (!app->selected[di])
			continue;
		struct np_app_device *more = realloc(app->devs, (app->ndevs + 1) * sizeof(*more));
		if (!more)
			return -ENOMEM;
		app->devs = more;
		struct np_app_device *d = &app->devs[app->ndevs++];
		memset(d, 0, sizeof(*d));
		d->dev = di;
		d->node = np_device_node(m, &m->pci.devs[di], NULL);
		if (!(d->per_node = calloc((size_t)m->topo.nnodes + 1, sizeof(*d->per_node))))
			return -ENOMEM;
		for (size_t i = 0; i < m->irqs.n; i++) {
			const struct np_irq *irq = &m->irqs.v[i];
			if (irq->dev != (int)di)
				continue;
			d->interrupts += irq->total;
			for (int n = 0; n < m->topo.nnodes; n++)
				d->per_node[n] += irq->per_node[n];
		}
	}
	if (app->ndevs)
		qsort(app->devs, app->ndevs, sizeof(*app->devs), by_interrupts);
	return 0;
}

static int argmax(const unsigned long long *v, int n)
{
	int best = -1;
	for (int i = 0; i < n; i++)
		if (v[i] && (best < 0 || v[i] > v[best]))
			best = i;
	return best;
}

/* The CPUs its threads keep busy: their CPU time over the interval, else
 * each thread's since it started (the uptime tells when that was); -1 when
 * neither is known (a copy without /proc/uptime). */
static double cpus_busy(const struct np_machine *m, const struct np_process *p)
{
	if (p->seconds > 0)
		return (double)p->ticks_total / (p->seconds * NP_USER_HZ);
	if (!(m->load.uptime > 0))
		return -1;
	double now = m->load.uptime * NP_USER_HZ, busy = 0;
	for (size_t i = 0; i < p->ntasks; i++) {
		const struct np_task_stat *t = &p->tasks[i];
		double lived = now - (double)t->start_time;
		if (lived >= 1)
			busy += (double)(t->utime + t->stime) / lived;
	}
	return busy;
}

/* The CPUs a node must give it: what its threads keep busy, rounded up
 * (a tenth of a CPU spare), at least one; its threads when that is unknown. */
static unsigned cpus_needed(double busy, const struct np_process *p)
{
	if (busy < 0)
		return (unsigned)p->ntasks;
	unsigned n = (unsigned)(busy + 0.9);
	return n ? n : 1;
}

static int node_id(const struct np_machine *m, int index)
{
	return index >= 0 ? m->topo.nodes[index].id : -1;
}

/* Whether the threads all last ran on node index n. */
static bool threads_all_on(const struct np_process *p, int n)
{
	unsigned on = 0;
	for (int i = 0; i < p->nnodes; i++)
		on += p->threads_on[i];
	return on && p->threads_on[n] == on;
}

static int placement_sentence(const struct np_machine *m, struct np_app *app, const struct np_app_device *busiest);

int np_app_place(const struct np_machine *m, struct np_app *app)
{
	struct np_process *p = &app->proc;
	int rc = devices_tally(m, app);
	if (rc)
		return rc;
	if (p->ticks_total) {
		app->threads_node = argmax(p->ticks, p->nnodes);
	} else {
		unsigned best = 0;
		for (int n = 0; n < p->nnodes; n++)
			if (p->threads_on[n] > best)
				best = p->threads_on[n], app->threads_node = n;
	}
	app->memory_node = p->memory_known ? argmax(p->kib, p->nnodes) : -1;
	app->cpus_busy = cpus_busy(m, p);
	app->cpus_needed = cpus_needed(app->cpus_busy, p);

	struct np_cpuset usable = NP_CPUSET_INIT, cpus = NP_CPUSET_INIT;
	rc = np_usable_cpus(&m->topo, NULL, &usable);
	if (rc == 0 && app->memory_node >= 0) {
		rc = np_cpuset_copy(&cpus, &m->topo.nodes[app->memory_node].cpus);
		np_cpuset_and(&cpus, &usable);
		app->memory_node_cpus = np_cpuset_count(&cpus);
		if (app->memory_node_cpus && app->memory_node_cpus >= app->cpus_needed) {
			app->by = NP_PLACE_MEMORY;
			app->place_node = app->memory_node;
		}
	}
	const struct np_app_device *busiest = app->ndevs && app->devs[0].node >= 0 ? &app->devs[0] : NULL;
	if (rc == 0 && app->by == NP_PLACE_NONE && busiest) {
		int n = np_node_index(&m->topo, busiest->node);
		rc = np_cpuset_copy(&cpus, n >= 0 ? &m->topo.nodes[n].cpus : &cpus);
		np_cpuset_and(&cpus, &usable);
		app->device_node_cpus = n >= 0 ? np_cpuset_count(&cpus) : 0;
		/* Crowding the threads onto too few CPUs costs more than the
		 * distance it saves: then no node wins and nothing moves. */
		if (app->device_node_cpus && app->device_node_cpus >= app->cpus_needed) {
			app->by = NP_PLACE_DEVICE;
			app->place_node = n;
		}
	}
	if (rc == 0 && app->place_node < 0) {
		/* No node wins: the devices' interrupts follow the threads where they run. */
		for (int k = 0; rc == 0 && k < p->nnodes; k++)
			if (p->threads_on[k] || p->ticks[k])
				rc = np_cpuset_or(&app->place_cpus, &m->topo.nodes[k].cpus);
		np_cpuset_and(&app->place_cpus, &usable);
	}
	if (rc == 0 && app->place_node >= 0) {
		rc = np_cpuset_copy(&app->place_cpus, &cpus);
		unsigned long long off = p->kib_total - p->kib[app->place_node];
		app->move_memory = p->memory_known && 10 * off >= p->kib_total && off;
		/* A cgroup whose cpuset leaves the node out owns the placement: the
		 * move changes it only when told (move refuses it otherwise). */
		app->cgroup_bars = p->has_cgroup_cpus && !np_cpuset_subset(&app->place_cpus, &p->cgroup_cpus);
		if (!threads_all_on(p, app->place_node) || app->move_memory || app->cgroup_bars) {
			if (asprintf(&app->move, "numaplace move %d --node %d%s%s", p->pid, node_id(m, app->place_node),
				     app->move_memory ? " --memory" : "", app->cgroup_bars ? " --cgroup" : "") < 0)
				app->move = NULL, rc = -ENOMEM;
		}
	}
	np_cpuset_free(&usable);
	np_cpuset_free(&cpus);
	return rc ? rc : placement_sentence(m, app, busiest);
}

/* The rule's answer with its numbers, then what to run. */
static int placement_sentence(const struct np_machine *m, struct np_app *app, const struct np_app_device *busiest)
{
	const struct np_process *p = &app->proc;
	char a[24], b[24], threads[128];
	int place = node_id(m, app->place_node), mem = node_id(m, app->memory_node);
	double mem_share = p->kib_total && app->memory_node >= 0
				   ? 100.0 * (double)p->kib[app->memory_node] / (double)p->kib_total : 0;
	if (app->cpus_busy >= 0)
		snprintf(threads, sizeof(threads), "its %zu thread%s, which %s %.1f CPU%s busy %s", p->ntasks,
			 p->ntasks == 1 ? "" : "s", p->seconds > 0 ? "kept" : "have kept", app->cpus_busy,
			 app->cpus_busy >= 0.95 && app->cpus_busy < 1.05 ? "" : "s",
			 p->seconds > 0 ? "over the interval" : "since they started");
	else
		snprintf(threads, sizeof(threads), "its %zu thread%s (how busy, unknown: no /proc/uptime)", p->ntasks,
			 p->ntasks == 1 ? "" : "s");
	char *rule = NULL, *dev = NULL;
	if (busiest) {
		const struct np_pci_dev *d = &m->pci.devs[busiest->dev];
		const char *name = d->nnet ? d->net[0].name : d->nblock ? d->block[0].name : d->addr;
		char c[16];
		if (asprintf(&dev, "%s (%s interrupts, node %d)", np_printable(name) ? name : d->addr,
			     np_count_text(busiest->interrupts, c), busiest->node) < 0)
			dev = NULL;
	}
	int len;
	if (app->by == NP_PLACE_MEMORY)
		len = asprintf(&rule, "node %d: it holds %.0f%% of its memory (%s of %s) and its %u usable CPUs can hold %s",
			       place, mem_share, np_kib_text(p->kib[app->memory_node], a), np_kib_text(p->kib_total, b),
			       app->memory_node_cpus, threads);
	else if (app->by == NP_PLACE_DEVICE && app->memory_node >= 0)
		len = asprintf(&rule, "node %d, its busiest device's, %s: node %d holds %.0f%% of its memory but its %u "
			       "usable CPUs cannot hold %s", place, dev ? dev : "?", mem, mem_share, app->memory_node_cpus,
			       threads);
	else if (app->by == NP_PLACE_DEVICE)
		len = asprintf(&rule, "node %d, its busiest device's, %s: where its memory is, is unknown", place,
			       dev ? dev : "?");
	else if (app->memory_node >= 0 && busiest)
		len = asprintf(&rule, "no single node: node %d holds %.0f%% of its memory but its %u usable CPUs cannot "
			       "hold %s, nor can the %u of node %d, its busiest device's, %s: leave it where it runs",
			       mem, mem_share, app->memory_node_cpus, threads, app->device_node_cpus, busiest->node,
			       dev ? dev : "?");
	else if (app->memory_node >= 0)
		len = asprintf(&rule, "none: node %d holds %.0f%% of its memory but its %u usable CPUs cannot hold %s, "
			       "and no device of known node was found", mem, mem_share, app->memory_node_cpus, threads);
	else if (busiest)
		len = asprintf(&rule, "no single node: where its memory is, is unknown, and the %u usable CPUs of node %d, "
			       "its busiest device's, %s, cannot hold %s: leave it where it runs", app->device_node_cpus,
			       busiest->node, dev ? dev : "?", threads);
	else
		len = asprintf(&rule, "none: where its memory is, is unknown, and no device of known node was found");
	free(dev);
	if (len < 0)
		return -ENOMEM;
	char *comm = np_escape_dup(p->comm), *cgroup = NULL, *cgcpus = NULL, *bars = NULL;
	if (app->cgroup_bars) {
		cgroup = np_escape_dup(p->cgroup);
		cgcpus = np_cpuset_format_list(&p->cgroup_cpus);
		if (!cgroup || !cgcpus ||
		    asprintf(&bars, "; its cgroup %s keeps it on CPUs %s (cpuset.cpus.effective): the move changes that "
			     "cgroup's cpuset (--cgroup)", cgroup, cgcpus) < 0)
			bars = NULL;
	}
	if (!comm || (app->cgroup_bars && !bars) ||
	    asprintf(&app->placement, "%s (pid %d) belongs on %s%s%s%s", comm, p->pid, rule, bars ? bars : "",
		     app->place_node < 0 ? "" : app->move ? "; run: " : "; it is there already",
		     app->move ? app->move : "") < 0)
		app->placement = NULL;
	free(comm);
	free(cgroup);
	free(cgcpus);
	free(bars);
	free(rule);
	return app->placement ? 0 : -ENOMEM;
}

void np_app_free(struct np_app *app)
{
	np_process_free(&app->proc);
	free(app->selected);
	for (size_t i = 0; i < app->nwhy; i++)
		free(app->why[i]);
	free(app->why);
	for (size_t i = 0; i < app->ndevs; i++)
		free(app->devs[i].per_node);
	free(app->devs);
	np_cpuset_free(&app->place_cpus);
	free(app->move);
	free(app->placement);
	memset(app, 0, sizeof(*app));
	app->threads_node = app->memory_node = app->place_node = -1;
}

int np_app_advise(struct np_ctx *ctx, const struct np_machine *m, int pid, bool app_policy, struct np_app *app,
		  char **note)
{
	int rc = np_app_load(ctx, m, pid, app);
	if (rc == 0 && (rc = np_app_place(m, app)) != 0)
		np_app_free(app);
	if (rc == -ENOMEM)
		return rc;
	if (rc == 0)
		rc = asprintf(note, "%s%s", app->placement,
			      np_cpuset_empty(&app->place_cpus) ? ""
			      : app->place_node < 0 ? (app_policy ? "; its devices' interrupts follow its threads"
							      : "; its devices' interrupts follow its threads with --policy app")
			      : app_policy ? "; its devices' interrupts follow it"
					   : "; its devices' interrupts follow it with --policy app");
	else
		rc = asprintf(note, "not placed: %s", ctx->err);
	return rc < 0 ? -ENOMEM : 0;
}

/* Problems */

static void problem_free(struct np_app_problem *x)
{
	free(x->subject);
	free(x->who);
	free(x->message);
	free(x->fix);
}

static int add(struct np_app_problem **v, size_t *n, struct np_app_problem *x)
{
	struct np_app_problem *more = realloc(*v, (*n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	*v = more;
	more[(*n)++] = *x;
	return 0;
}

/* A problem of the process itself: its subject, the move that fixes it, added to v. */
static int add_process_problem(const struct np_app *app, struct np_app_problem *x, struct np_app_problem **v,
			       size_t *n)
{
	if (asprintf(&x->subject, "pid %d", app->proc.pid) < 0)
		x->subject = NULL;
	x->fix = app->move ? strdup(app->move) : NULL;
	if (!x->who || !x->message || !x->subject || (app->move && !x->fix) || add(v, n, x)) {
		problem_free(x);
		return -ENOMEM;
	}
	return 0;
}

static char *app_who(const struct np_process *p)
{
	char *comm = np_escape_dup(p->comm), *out;
	if (!comm || asprintf(&out, "%s (pid %d)", comm, p->pid) < 0)
		out = NULL;
	free(comm);
	return out;
}

/* "node 0: 2, node 1: 2": the threads off node skip, by node. */
static char *threads_text(const struct np_machine *m, const struct np_process *p, int skip)
{
	char *out = strdup(""), *more;
	for (int n = 0; out && n < p->nnodes; n++) {
		if (n == skip || !p->threads_on[n])
			continue;
		if (asprintf(&more, "%s%snode %d: %u", out, *out ? ", " : "", m->topo.nodes[n].id, p->threads_on[n]) < 0)
			more = NULL;
		free(out);
		out = more;
	}
	return out;
}

/* Memory mostly off the node where the threads run. */
static int memory_problem(const struct np_machine *m, const struct np_app *app, struct np_app_problem **v,
			  size_t *n)
{
	const struct np_process *p = &app->proc;
	int t = app->threads_node;
	if (t < 0 || app->memory_node < 0 || !p->kib_total)
		return 0;
	unsigned long long off_kib = p->kib_total - p->kib[t], off_pages = p->pages_total - p->pages[t];
	if (2 * off_kib <= p->kib_total)
		return 0;
	char a[24], b[24];
	struct np_app_problem x = { .dev = -1, .amount = off_pages, .unit = "pages", .minor = off_kib < NP_APP_MIN_KIB };
	x.who = app_who(p);
	char where[96];
	unsigned all = 0;
	for (int k = 0; k < p->nnodes; k++)
		all += p->threads_on[k];
	if (p->ticks_total)
		snprintf(where, sizeof(where), "where its threads used %.0f%% of their CPU time in %g s",
			 100.0 * (double)p->ticks[t] / (double)p->ticks_total, p->seconds);
	else
		snprintf(where, sizeof(where), "where %u of its %u threads last ran", p->threads_on[t], all);
	if (x.who &&
	    asprintf(&x.message, "%s: %.0f%% of its memory (%s in %llu pages) is off node %d, %s; node %d holds %.0f%% (%s)",
		     x.who, 100.0 * (double)off_kib / (double)p->kib_total, np_kib_text(off_kib, a), off_pages,
		     node_id(m, t), where, node_id(m, app->memory_node),
		     100.0 * (double)p->kib[app->memory_node] / (double)p->kib_total,
		     np_kib_text(p->kib[app->memory_node], b)) < 0)
		x.message = NULL;
	return add_process_problem(app, &x, v, n);
}

/* Threads on several nodes while its memory and devices are on one. */
static int threads_problem(const struct np_machine *m, const struct np_app *app, struct np_app_problem **v,
			   size_t *n)
{
	const struct np_process *p = &app->proc;
	int mem = app->memory_node;
	if (mem < 0 || app->place_node != mem || 2 * p->kib[mem] < p->kib_total)
		return 0;
	for (size_t i = 0; i < app->ndevs; i++)
		if (app->devs[i].node != m->topo.nodes[mem].id)
			return 0;
	unsigned nodes = 0, off = 0, all = 0;
	for (int k = 0; k < p->nnodes; k++) {
		nodes += p->threads_on[k] > 0;
		off += k == mem ? 0 : p->threads_on[k];
		all += p->threads_on[k];
	}
	unsigned long long off_ticks = p->ticks_total - p->ticks[mem];
	/* Over an interval, by the CPU time spent off the node (a tenth or more). */
	if (nodes < 2 || !off || (p->ticks_total && 10 * off_ticks < p->ticks_total))
		return 0;
	char *spread = threads_text(m, p, mem), *devs = strdup(""), *more, cpu[64] = "";
	for (size_t i = 0; devs && i < app->ndevs; i++) {
		const struct np_pci_dev *d = &m->pci.devs[app->devs[i].dev];
		const char *name = d->nnet ? d->net[0].name : d->nblock ? d->block[0].name : d->addr;
		if (asprintf(&more, "%s%s%s", devs, *devs ? ", " : "", np_printable(name) ? name : d->addr) < 0)
			more = NULL;
		free(devs);
		devs = more;
	}
	struct np_app_problem x = { .dev = -1 };
	if (p->ticks_total) {
		x.amount = off_ticks * 1000 / NP_USER_HZ;
		x.unit = "cpu_ms";
		snprintf(cpu, sizeof(cpu), ", %.2f s of %.2f s of CPU time in %g s", (double)off_ticks / NP_USER_HZ,
			 (double)p->ticks_total / NP_USER_HZ, p->seconds);
	} else {
		x.amount = off;
		x.unit = "threads";
	}
	x.who = app_who(p);
	char a[24];
	if (x.who && spread && devs &&
	    asprintf(&x.message, "%s: %u of its %u threads last ran off node %d (%s%s), where %.0f%% of its memory (%s)%s%s%s",
		     x.who, off, all, node_id(m, mem), spread, cpu, 100.0 * (double)p->kib[mem] / (double)p->kib_total,
		     np_kib_text(p->kib[mem], a), *devs ? " and its devices (" : " is", devs, *devs ? ") are" : "") < 0)
		x.message = NULL;
	free(spread);
	free(devs);
	return add_process_problem(app, &x, v, n);
}

/* A device's interrupts on nodes with none of its threads and under a
 * twentieth of its memory. */
static int irqs_problems(const struct np_machine *m, const struct np_app *app, unsigned long long min_interrupts,
			 struct np_app_problem **v, size_t *n)
{
	const struct np_process *p = &app->proc;
	for (size_t i = 0; i < app->ndevs; i++) {
		const struct np_app_device *ad = &app->devs[i];
		const struct np_pci_dev *d = &m->pci.devs[ad->dev];
		unsigned long long away = 0;
		struct np_cpuset nodes = NP_CPUSET_INIT;
		int rc = 0;
		for (int k = 0; k < p->nnodes && rc == 0; k++) {
			bool threads = p->threads_on[k] || p->ticks[k];
			bool memory = !p->memory_known || 20 * p->kib[k] >= p->kib_total;
			if (threads || memory || !ad->per_node[k])
				continue;
			away += ad->per_node[k];
			rc = np_cpuset_set(&nodes, (unsigned)m->topo.nodes[k].id);
		}
		if (rc || !away) {
			np_cpuset_free(&nodes);
			if (rc)
				return rc;
			continue;
		}
		const char *name = d->nnet ? d->net[0].name : d->nblock ? d->block[0].name : NULL;
		char *where = np_nodes_text(&nodes), *who = app_who(p), c[16], t[16], node[16] = "node unknown";
		np_cpuset_free(&nodes);
		if (ad->node >= 0)
			snprintf(node, sizeof(node), "node %d", ad->node);
		struct np_app_problem x = { .dev = (int)ad->dev, .amount = away, .unit = "interrupts",
					    .minor = away < min_interrupts };
		if (asprintf(&x.who, "%s%s%s (%s, %s)", name ? name : "", name ? " " : "", d->addr,
			     d->driver ? d->driver : "no driver", node) < 0)
			x.who = NULL;
		if (x.who && where && who &&
		    asprintf(&x.message, "%s: %s of its %s interrupts ran on %s, where %s has neither threads nor memory",
			     x.who, np_count_text(away, c), np_count_text(ad->interrupts, t), where, who) < 0)
			x.message = NULL;
		x.subject = strdup(d->addr);
		if (asprintf(&x.fix, "numaplace advise --policy app --app-pid %d", p->pid) < 0)
			x.fix = NULL;
		free(where);
		free(who);
		if (!x.who || !x.message || !x.subject || !x.fix || add(v, n, &x)) {
			problem_free(&x);
			return -ENOMEM;
		}
	}
	return 0;
}

int np_app_problems(const struct np_machine *m, const struct np_app *app, enum np_rule_id rule,
		    unsigned long long min_interrupts, struct np_app_problem **v, size_t *n)
{
	*v = NULL;
	*n = 0;
	int rc = 0;
	if (rule == NP_RULE_APP_MEMORY)
		rc = memory_problem(m, app, v, n);
	else if (rule == NP_RULE_APP_THREADS)
		rc = threads_problem(m, app, v, n);
	else if (rule == NP_RULE_APP_IRQS)
		rc = irqs_problems(m, app, min_interrupts, v, n);
	if (rc) {
		np_app_problems_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	return rc;
}

void np_app_problems_free(struct np_app_problem *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		problem_free(&v[i]);
	free(v);
}
