/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/kubelet.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/sysfs.h"

static int add_note(struct np_kubelet *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_note(struct np_kubelet *k, const char *fmt, ...)
{
	char **more = realloc(k->notes, (k->nnotes + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	k->notes = more;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&more[k->nnotes], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	k->nnotes++;
	return 0;
}

static void containers_free(struct np_kubelet *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].pod_uid);
		free(k->v[i].pod_name);
		free(k->v[i].name);
		np_cpuset_free(&k->v[i].cpus);
	}
	free(k->v);
	k->v = NULL;
	k->n = 0;
	np_cpuset_clear(&k->exclusive);
}

static int by_first_cpu(const void *a, const void *b)
{
	const struct np_kube_container *x = a, *y = b;
	int fx = np_cpuset_next(&x->cpus, 0), fy = np_cpuset_next(&y->cpus, 0);
	if (fx != fy)
		return fx < fy ? -1 : 1;
	int c = strcmp(x->pod_uid, y->pod_uid);
	return c ? c : strcmp(x->name, y->name);
}

/* The entries of a version-1 file (kubelet 1.12 and later): pod UID ->
 * container name -> CPU list. The set-aside reason goes to *why. */
static int parse_entries(struct np_kubelet *k, const cJSON *entries, const char **why)
{
	const cJSON *pod, *ctr;
	cJSON_ArrayForEach(pod, entries) {
		if (!cJSON_IsObject(pod)) {
			/* Version 0 mapped container IDs to CPU lists. */
			*why = "entries are not per pod (an older kubelet's format)";
			return 0;
		}
		cJSON_ArrayForEach(ctr, pod) {
			if (!cJSON_IsString(ctr)) {
				*why = "an entry's CPU set is not a string";
				return 0;
			}
			struct np_cpuset cpus = NP_CPUSET_INIT;
			if (np_cpuset_parse_list(&cpus, ctr->valuestring)) {
				np_cpuset_free(&cpus);
				*why = "an entry's CPU set is not a CPU list";
				return 0;
			}
			if (np_cpuset_empty(&cpus)) {
				np_cpuset_free(&cpus);
				continue;
			}
			struct np_kube_container *more = realloc(k->v, (k->n + 1) * sizeof(*more));
			if (!more) {
				np_cpuset_free(&cpus);
				return -ENOMEM;
			}
			k->v = more;
			struct np_kube_container *c = &k->v[k->n++];
			*c = (struct np_kube_container){ .pod_uid = strdup(pod->string), .name = strdup(ctr->string),
							 .cpus = cpus };
			if (!c->pod_uid || !c->name || np_cpuset_or(&k->exclusive, &cpus))
				return -ENOMEM;
		}
	}
	return 0;
}

int np_kubelet_parse(const char *text, size_t len, const char *shown, struct np_kubelet *out)
{
	memset(out, 0, sizeof(*out));
	if (!(out->path = strdup(shown)))
		return -ENOMEM;
	cJSON *doc = cJSON_ParseWithLength(text, len);
	const cJSON *policy = cJSON_GetObjectItemCaseSensitive(doc, "policyName");
	const cJSON *def = cJSON_GetObjectItemCaseSensitive(doc, "defaultCpuSet");
	const cJSON *entries = cJSON_GetObjectItemCaseSensitive(doc, "entries");
	const char *why = NULL;
	int rc = 0;
	if (!doc)
		why = "not valid JSON (cut short?)";
	else if (!cJSON_IsObject(doc))
		why = "not a JSON object";
	else if (!cJSON_IsString(policy))
		why = "no policyName";
	else if (!(out->policy = strdup(policy->valuestring)))
		rc = -ENOMEM;
	else if (strcmp(policy->valuestring, "static") && strcmp(policy->valuestring, "none"))
		why = "a policy other than static or none";
	else if (def && (!cJSON_IsString(def) || np_cpuset_parse_list(&out->default_cpus, def->valuestring)))
		why = "defaultCpuSet is not a CPU list";
	else if (entries && !cJSON_IsObject(entries))
		why = "entries is not an object";
	else if (entries)
		rc = parse_entries(out, entries, &why);
	if (rc == 0 && why) {
		containers_free(out);
		np_cpuset_clear(&out->default_cpus);
		rc = add_note(out, "'%s': %s: pods' exclusive CPUs unknown (the file is set aside)", shown, why);
	}
	if (rc == 0 && out->n)
		qsort(out->v, out->n, sizeof(*out->v), by_first_cpu);
	cJSON_Delete(doc);
	if (rc)
		np_kubelet_free(out);
	return rc;
}

/* The kubelet writes the pod's hostname last in its etc-hosts: the pod's
 * name unless the spec sets another. A host-network pod's file is the
 * node's: no name there. */
static char *pod_name(struct np_ctx *ctx, const char *uid)
{
	char *hosts, *name = NULL;
	if (strchr(uid, '/') || !strcmp(uid, "..") || !strcmp(uid, "."))
		return NULL;
	if (np_read_text(ctx, &hosts, NP_KUBELET_PODS "/%s/etc-hosts", uid))
		return NULL;
	if (!strncmp(hosts, "# Kubernetes-managed hosts file.\n", 33)) {
		char *last = strrchr(hosts, '\n');
		last = last ? last + 1 : hosts;
		char ip[64], host[254];
		if (sscanf(last, "%63s %253s", ip, host) == 2)
			name = strdup(host);
	}
	free(hosts);
	return name;
}

int np_kubelet_load(struct np_ctx *ctx, const char *override, struct np_kubelet *out)
{
	memset(out, 0, sizeof(*out));
	char *text = NULL, shown[4096];
	size_t len = 0;
	int rc;
	if (override) {
		FILE *f = np_fopen_user(ctx, &rc, NP_ATTR_MAX_BYTES, NP_ATTR_MAX_BYTES, override);
		if (!f)
			return rc == -ENOENT ? np_fail(ctx, rc, "--kubelet-state: '%s' does not exist", override) : rc;
		size_t cap = 0;
		FILE *mem = open_memstream(&text, &cap);
		char buf[8192];
		size_t n;
		while (mem && (n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, mem);
		rc = ferror(f) ? -errno : 0;
		fclose(f);
		if (!mem || fclose(mem)) {
			free(text);
			return -ENOMEM;
		}
		len = cap;
		if (rc) {
			free(text);
			return np_fail(ctx, rc, "cannot read '%s': %s", override, strerror(-rc));
		}
		snprintf(shown, sizeof(shown), "%s", override);
	} else {
		rc = np_read_bytes(ctx, &text, &len, NP_KUBELET_STATE);
		if (rc == -ENOENT)
			return 0;
		if (rc)
			return rc;
		snprintf(shown, sizeof(shown), "%s" NP_KUBELET_STATE, ctx->root);
	}
	rc = np_kubelet_parse(text, len, shown, out);
	free(text);
	for (size_t i = 0; rc == 0 && i < out->n; i++)
		out->v[i].pod_name = pod_name(ctx, out->v[i].pod_uid);
	return rc;
}

const struct np_kube_container *np_kubelet_owner(const struct np_kubelet *k, int cpu)
{
	for (size_t i = 0; cpu >= 0 && i < k->n; i++)
		if (np_cpuset_test(&k->v[i].cpus, (unsigned)cpu))
			return &k->v[i];
	return NULL;
}

const char *np_kube_container_text(const struct np_kube_container *c, char *buf, size_t size)
{
	if (c->pod_name)
		snprintf(buf, size, "%s/%s (pod %s)", c->pod_uid, c->name, c->pod_name);
	else
		snprintf(buf, size, "%s/%s", c->pod_uid, c->name);
	return buf;
}

char *np_kube_owners_text(const struct np_kubelet *k, const struct np_cpuset *cpus)
{
	char *owners = strdup(""), *more, buf[512];
	for (size_t c = 0; owners && c < k->n; c++) {
		if (!np_cpuset_intersects(&k->v[c].cpus, cpus))
			continue;
		if (asprintf(&more, "%s%s%s", owners, *owners ? ", " : "",
			     np_kube_container_text(&k->v[c], buf, sizeof(buf))) < 0)
			more = NULL;
		free(owners);
		owners = more;
	}
	return owners;
}

/* The topology seen by a second parse: node i the plain CPUs of node i,
 * node N + i its exclusive ones, isolated and nohz_full CPUs of no node
 * (they are counted apart, as quiet). Free t->nodes and t->node_of_cpu. */
static int split_topology(const struct np_topology *topo, const struct np_kubelet *k, struct np_topology *t)
{
	int n = topo->nnodes;
	*t = *topo;
	struct np_node *nodes = calloc((size_t)(2 * n) + 1, sizeof(*nodes));
	int *node_of = malloc(((size_t)topo->max_cpu + 1) * sizeof(int));
	if (!nodes || !node_of) {
		free(nodes);
		free(node_of);
		return -ENOMEM;
	}
	for (int i = 0; i < 2 * n; i++)
		nodes[i].id = i;
	for (int cpu = 0; cpu <= topo->max_cpu; cpu++) {
		int id = topo->node_of_cpu[cpu], idx = -1;
		for (int i = 0; id >= 0 && i < n; i++)
			if (topo->nodes[i].id == id)
				idx = i;
		bool quiet = np_cpuset_test(&topo->isolated, (unsigned)cpu) || np_cpuset_test(&topo->nohz_full, (unsigned)cpu);
		bool excl = np_cpuset_test(&k->exclusive, (unsigned)cpu);
		node_of[cpu] = quiet ? -1 : excl ? n + (idx >= 0 ? idx : 0) : idx;
	}
	t->nodes = nodes;
	t->nnodes = 2 * n;
	t->node_of_cpu = node_of;
	t->notes = NULL;
	t->nnotes = 0;
	return 0;
}

/* Without isolated, nohz_full or exclusive CPUs, the split's counts are the
 * machine's own (np_kubelet_where reads those then): no second count. */
static bool split_needed(const struct np_topology *topo, const struct np_kubelet *k)
{
	return !np_cpuset_empty(&k->exclusive) || !np_cpuset_empty(&topo->isolated) ||
	       !np_cpuset_empty(&topo->nohz_full);
}

int np_kubelet_split(struct np_ctx *ctx, const struct np_topology *topo, struct np_kubelet *k)
{
	struct np_topology t;
	if (k->split_loaded || !split_needed(topo, k))
		return 0;
	int rc = split_topology(topo, k, &t);
	if (rc)
		return rc;
	rc = np_irqs_read_counts(ctx, &t, &k->split);
	free(t.nodes);
	free(t.node_of_cpu);
	if (rc == -ENOENT)
		rc = 0; /* no /proc/interrupts: no rows */
	k->split_loaded = rc == 0;
	return rc;
}

int np_kubelet_read_irqs(struct np_ctx *ctx, const struct np_topology *topo, struct np_kubelet *k,
			 struct np_irqs *irqs)
{
	struct np_topology t;
	if (!split_needed(topo, k))
		return np_irqs_read(ctx, topo, irqs);
	int rc = split_topology(topo, k, &t);
	if (rc)
		return rc;
	if (k->split_loaded)
		np_irqs_free(&k->split);
	rc = np_irqs_read_split(ctx, topo, irqs, &t, &k->split);
	free(t.nodes);
	free(t.node_of_cpu);
	k->split_loaded = rc == 0;
	return rc;
}

int np_kubelet_split_delta(struct np_ctx *ctx, const struct np_topology *topo, struct np_kubelet *k)
{
	struct np_topology t;
	struct np_irqs later;
	if (!k->split_loaded)
		return 0;
	int rc = split_topology(topo, k, &t);
	if (rc)
		return rc;
	if ((rc = np_irqs_read_counts(ctx, &t, &later)) == 0) {
		rc = np_irqs_delta(&k->split, &later, &t);
		np_irqs_free(&later);
	}
	free(t.nodes);
	free(t.node_of_cpu);
	return rc;
}

void np_kubelet_where(const struct np_kubelet *k, const struct np_topology *topo, const struct np_irq *irq,
		      int node_index, struct np_where *w)
{
	int n = topo->nnodes;
	memset(w, 0, sizeof(*w));
	const struct np_irq *s = k->split_loaded ? np_irqs_find((struct np_irqs *)&k->split, irq->irq) : NULL;
	unsigned long long total = irq->total;
	if (s) {
		/* A live machine counts on between the two reads: the split's own total. */
		total = s->total;
		w->isolated = s->quiet;
		for (int i = 0; i < n; i++)
			w->exclusive += s->per_node[n + i];
		w->local = node_index >= 0 && node_index < n ? s->per_node[node_index] : 0;
	} else {
		/* An IRQ the split lacks (requested between the reads): the machine's counts. */
		w->isolated = irq->quiet;
		unsigned long long here = node_index >= 0 && node_index < n ? irq->per_node[node_index] : 0;
		w->local = here < total - irq->quiet ? here : total - irq->quiet;
	}
	w->remote = total - w->isolated - w->exclusive - w->local;
	if (np_irq_per_cpu(irq)) {
		w->per_cpu = w->local + w->remote;
		w->local = w->remote = 0;
	}
}

void np_kubelet_free(struct np_kubelet *k)
{
	containers_free(k);
	np_cpuset_free(&k->exclusive);
	np_cpuset_free(&k->default_cpus);
	for (size_t i = 0; i < k->nnotes; i++)
		free(k->notes[i]);
	free(k->notes);
	free(k->path);
	free(k->policy);
	if (k->split_loaded)
		np_irqs_free(&k->split);
	memset(k, 0, sizeof(*k));
}
