/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/process.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/sysfs.h"

int np_node_index(const struct np_topology *topo, int id)
{
	for (int i = 0; i < topo->nnodes; i++)
		if (topo->nodes[i].id == id)
			return i;
	return -1;
}

const char *np_kib_text(unsigned long long kib, char buf[24])
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)kib;
	int u = 0;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, 24, u && v < 9.95 ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

static int note(char ***notes, size_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int note(char ***notes, size_t *n, const char *fmt, ...)
{
	char **more = realloc(*notes, (*n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	*notes = more;
	va_list ap;
	va_start(ap, fmt);
	int len = vasprintf(&more[*n], fmt, ap);
	va_end(ap);
	if (len < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The value of "Key:\tvalue" in status text, malloc'd; NULL when absent. */
static char *status_field(const char *status, const char *key)
{
	size_t klen = strlen(key);
	for (const char *line = status; line && *line;) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			const char *v = line + klen + 1;
			v += strspn(v, " \t");
			return strndup(v, strcspn(v, "\n"));
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return NULL;
}

static int read_status(struct np_ctx *ctx, struct np_process *p)
{
	char *status = NULL;
	int rc = np_read_text(ctx, &status, "/proc/%d/status", p->pid);
	if (rc == -ENOENT)
		return np_fail(ctx, rc, "no process %d ('%s/proc/%d/status' is absent)", p->pid, ctx->root, p->pid);
	if (rc)
		return rc;
	char *cpus = status_field(status, "Cpus_allowed_list"), *mems = status_field(status, "Mems_allowed_list");
	p->comm = status_field(status, "Name");
	if (!p->comm || !cpus || np_cpuset_parse_list(&p->allowed, cpus))
		rc = np_fail(ctx, -EINVAL, "'%s/proc/%d/status': no readable Name and Cpus_allowed_list", ctx->root,
			     p->pid);
	else if (mems && np_cpuset_parse_list(&p->mems_allowed, mems))
		rc = np_fail(ctx, -EINVAL, "'%s/proc/%d/status': Mems_allowed_list is not a list of nodes", ctx->root,
			     p->pid);
	free(cpus);
	free(mems);
	free(status);
	return rc;
}

/* The cgroup (v2's "0::/path", else v1's cpuset hierarchy) and its
 * effective CPUs, when the copy or the machine has them. */
static int read_cgroup(struct np_ctx *ctx, struct np_process *p)
{
	char *text = NULL;
	int rc = np_read_text(ctx, &text, "/proc/%d/cgroup", p->pid);
	if (rc)
		return rc == -ENOENT || rc == -EACCES ? 0 : rc;
	const char *file = NULL;
	for (char *line = text; line && *line && !p->cgroup;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (!strncmp(line, "0::", 3)) {
			p->cgroup = strdup(line + 3);
			file = "/sys/fs/cgroup%s/cpuset.cpus.effective";
		} else {
			char *colon = strchr(line, ':'), *path = colon ? strchr(colon + 1, ':') : NULL;
			if (path && (size_t)(path - colon - 1) == 6 && !strncmp(colon + 1, "cpuset", 6)) {
				p->cgroup = strdup(path + 1);
				file = "/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus";
			}
		}
		line = end ? end + 1 : NULL;
	}
	free(text);
	if (!p->cgroup)
		return file ? -ENOMEM : 0;
	/* Only "/" and names: a path the kernel would not write leads nowhere. */
	if (p->cgroup[0] != '/' || strstr(p->cgroup, "/../") || strstr(p->cgroup, "/./"))
		return 0;
	char path[4200];
	snprintf(path, sizeof(path), file, strcmp(p->cgroup, "/") ? p->cgroup : "");
	rc = np_read_cpulist(ctx, &p->cgroup_cpus, "%s", path);
	p->has_cgroup_cpus = rc == 0;
	return rc == -ENOMEM ? rc : 0;
}

static int count_threads(const struct np_topology *topo, struct np_process *p)
{
	memset(p->threads_on, 0, (size_t)p->nnodes * sizeof(*p->threads_on));
	for (size_t i = 0; i < p->ntasks; i++) {
		int n = np_node_index(topo, np_topology_node_of_cpu(topo, p->tasks[i].cpu));
		if (n >= 0)
			p->threads_on[n]++;
	}
	return 0;
}

/* The policy word of a numa_maps line that places pages on purpose, or NULL. */
static const char *placing_policy(const char *policy)
{
	if (!strncmp(policy, "bind:", 5))
		return "bind";
	if (!strncmp(policy, "interleave", 10) || !strncmp(policy, "weighted interleave", 19))
		return "interleave";
	return NULL;
}

struct policy_use {
	char policy[64]; /* "bind:1", "interleave:0-3" */
	size_t mappings;
	unsigned long long kib;
};

/* What the lines of numa_maps add up to. */
struct maps_sum {
	const struct np_topology *topo;
	unsigned long long *pages, *kib;
	struct policy_use uses[8];
	size_t nuses;
	unsigned long long elsewhere; /* KiB on nodes the topology lacks */
};

/* "ADDR POLICY [file=...] [anon=N] ... N0=3 N1=2 kernelpagesize_kB=4", len bytes. */
static void maps_line(struct maps_sum *sum, const char *line, size_t len)
{
	char policy[64] = "", rest[48] = "";
	sscanf(line, "%*s %63s %47s", policy, rest);
	/* "weighted interleave:0-3" is two words (Linux 6.9). */
	if (!strcmp(policy, "weighted"))
		snprintf(policy, sizeof(policy), "weighted %s", rest);
	unsigned long long page_kb = 4, node_pages[64] = { 0 }, line_pages = 0;
	int ids[64];
	size_t nids = 0;
	while (len && (line[len - 1] == '\n' || line[len - 1] == ' '))
		len--;
	for (const char *w = line; w < line + len;) {
		w += strspn(w, " ");
		size_t wl = strcspn(w, " \n");
		if (!wl)
			break; /* a NUL or a newline inside: nothing more on this line */
		int id, used = 0;
		unsigned long long v;
		if (sscanf(w, "N%d=%llu%n", &id, &v, &used) == 2 && (size_t)used == wl && id >= 0 && nids < 64) {
			ids[nids] = id;
			node_pages[nids++] = v;
			line_pages += v;
		} else if (sscanf(w, "kernelpagesize_kB=%llu%n", &v, &used) == 1 && (size_t)used == wl && v) {
			page_kb = v;
		}
		w += wl;
	}
	for (size_t i = 0; i < nids; i++) {
		int n = np_node_index(sum->topo, ids[i]);
		if (n < 0) {
			sum->elsewhere += node_pages[i] * page_kb;
			continue;
		}
		sum->pages[n] += node_pages[i];
		sum->kib[n] += node_pages[i] * page_kb;
	}
	if (!placing_policy(policy) || !line_pages)
		return;
	size_t u = 0;
	while (u < sum->nuses && strcmp(sum->uses[u].policy, policy))
		u++;
	if (u == sum->nuses && u < sizeof(sum->uses) / sizeof(sum->uses[0])) {
		memset(&sum->uses[u], 0, sizeof(sum->uses[u]));
		snprintf(sum->uses[u].policy, sizeof(sum->uses[u].policy), "%s", policy);
		sum->nuses++;
	}
	if (u < sum->nuses) {
		sum->uses[u].mappings++;
		sum->uses[u].kib += line_pages * page_kb;
	}
}

static int maps_notes(const struct maps_sum *sum, char ***notes, size_t *nnotes)
{
	char a[24];
	int rc = 0;
	for (size_t u = 0; u < sum->nuses && rc == 0; u++) {
		bool bind = !strcmp(placing_policy(sum->uses[u].policy), "bind");
		rc = note(notes, nnotes, "memory policy %s on %zu mapping%s (%s resident): %s", sum->uses[u].policy,
			  sum->uses[u].mappings, sum->uses[u].mappings == 1 ? "" : "s", np_kib_text(sum->uses[u].kib, a),
			  bind ? "their pages are allocated on those nodes wherever the threads run"
			       : "their pages are spread over those nodes on purpose");
	}
	if (rc == 0 && sum->elsewhere)
		rc = note(notes, nnotes, "%s of its memory is on nodes the topology does not list",
			  np_kib_text(sum->elsewhere, a));
	return rc;
}

int np_numa_maps_parse(const char *text, const struct np_topology *topo, unsigned long long *pages,
		       unsigned long long *kib, char ***notes, size_t *nnotes)
{
	struct maps_sum sum = { .topo = topo, .pages = pages, .kib = kib };
	for (const char *line = text; line && *line;) {
		size_t len = strcspn(line, "\n");
		maps_line(&sum, line, len);
		line += len;
		line += *line == '\n';
	}
	return maps_notes(&sum, notes, nnotes);
}

/* numa_maps grows with the mappings (vm.max_map_count, 65530 by default,
 * raised to 262144 for some databases; a line is about 100 bytes). */
#define NUMA_MAPS_MAX_BYTES ((size_t)256 << 20)
#define NUMA_MAPS_MAX_LINE ((size_t)64 << 10)

static int read_memory(struct np_ctx *ctx, const struct np_topology *topo, struct np_process *p)
{
	/* Once: the kernel walks the page tables under the mmap lock to write it. */
	int rc;
	FILE *f = np_fopen(ctx, &rc, NUMA_MAPS_MAX_BYTES, NUMA_MAPS_MAX_LINE, "/proc/%d/numa_maps", p->pid);
	if (!f && (rc == -ENOENT || rc == -EACCES || rc == -EPERM)) {
		char why[1100];
		snprintf(why, sizeof(why), "%s", ctx->err);
		return note(&p->notes, &p->nnotes, "memory per node unknown: %s",
			    rc == -ENOENT ? "no numa_maps (a kernel without CONFIG_NUMA, or a copy without it)" : why);
	}
	if (!f)
		return rc;
	struct maps_sum sum = { .topo = topo, .pages = p->pages, .kib = p->kib };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	errno = 0;
	while ((len = getline(&line, &cap, f)) >= 0)
		maps_line(&sum, line, (size_t)len);
	if (ferror(f)) {
		int err = errno ? errno : EIO;
		rc = err == EFBIG ? np_fail(ctx, -EFBIG, "'%s/proc/%d/numa_maps' is larger than 256 MiB or has a line "
					    "longer than 64 KiB", ctx->root, p->pid)
				  : np_fail(ctx, -err, "'%s/proc/%d/numa_maps': %s", ctx->root, p->pid, strerror(err));
	}
	free(line);
	fclose(f);
	if (rc == 0)
		rc = maps_notes(&sum, &p->notes, &p->nnotes);
	p->memory_known = rc == 0;
	for (int n = 0; n < p->nnodes; n++) {
		p->pages_total += p->pages[n];
		p->kib_total += p->kib[n];
	}
	return rc;
}

int np_process_read(struct np_ctx *ctx, const struct np_topology *topo, int pid, struct np_process *out)
{
	memset(out, 0, sizeof(*out));
	out->pid = pid;
	out->nnodes = topo->nnodes;
	size_t nn = (size_t)topo->nnodes + 1;
	out->threads_on = calloc(nn, sizeof(*out->threads_on));
	out->ticks = calloc(nn, sizeof(*out->ticks));
	out->pages = calloc(nn, sizeof(*out->pages));
	out->kib = calloc(nn, sizeof(*out->kib));
	int rc = out->threads_on && out->ticks && out->pages && out->kib ? 0 : -ENOMEM;
	if (rc == 0 && pid <= 0)
		rc = np_fail(ctx, -ENOENT, "no process %d: a PID is a positive number", pid);
	if (rc == 0)
		rc = read_status(ctx, out);
	if (rc == 0)
		rc = np_tasks_read(ctx, pid, &out->tasks, &out->ntasks);
	for (size_t i = 0; rc == 0 && i < out->ntasks; i++)
		if (np_task_is_kthread(&out->tasks[i]))
			rc = np_fail(ctx, -EPERM, "process %d (%s) is a kernel thread: it has no memory or devices of its "
				     "own to place", pid, out->tasks[i].comm);
	if (rc == 0 && out->ntasks == 0)
		rc = np_fail(ctx, -ENOENT, "process %d has no threads left (it is exiting)", pid);
	if (rc == 0)
		rc = count_threads(topo, out);
	if (rc == 0)
		rc = read_cgroup(ctx, out);
	if (rc == 0)
		rc = read_memory(ctx, topo, out);
	if (rc)
		np_process_free(out);
	return rc;
}

int np_process_sample(struct np_ctx *ctx, const struct np_topology *topo, struct np_process *p, double seconds)
{
	struct np_task_stat *now;
	size_t n;
	int rc = np_tasks_read(ctx, p->pid, &now, &n);
	if (rc)
		return rc;
	memset(p->ticks, 0, (size_t)p->nnodes * sizeof(*p->ticks));
	p->ticks_total = 0;
	p->busy_threads = 0;
	for (size_t i = 0; i < n; i++) {
		const struct np_task_stat *t = &now[i];
		unsigned long long used = t->utime + t->stime;
		/* A TID is a thread only with its start time: one reused is new. */
		for (size_t k = 0; k < p->ntasks; k++)
			if (p->tasks[k].tid == t->tid && p->tasks[k].start_time == t->start_time) {
				unsigned long long before = p->tasks[k].utime + p->tasks[k].stime;
				used = used > before ? used - before : 0;
				break;
			}
		int node = np_node_index(topo, np_topology_node_of_cpu(topo, t->cpu));
		if (node >= 0)
			p->ticks[node] += used;
		p->ticks_total += used;
		p->busy_threads += used > 0;
	}
	free(p->tasks);
	p->tasks = now;
	p->ntasks = n;
	p->seconds = seconds;
	return count_threads(topo, p);
}

void np_process_free(struct np_process *p)
{
	free(p->comm);
	free(p->cgroup);
	np_cpuset_free(&p->allowed);
	np_cpuset_free(&p->mems_allowed);
	np_cpuset_free(&p->cgroup_cpus);
	free(p->tasks);
	free(p->threads_on);
	free(p->ticks);
	free(p->pages);
	free(p->kib);
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->notes);
	memset(p, 0, sizeof(*p));
}

int np_process_cpus(struct np_ctx *ctx, int pid, struct np_cpuset *out)
{
	char *status;
	int rc = np_read_text(ctx, &status, "/proc/%d/status", pid);
	if (rc)
		/* ctx->err is the message's own buffer: say it anew. */
		return rc == -ENOENT ? np_fail(ctx, rc, "no process %d ('%s/proc/%d/status' is absent)", pid, ctx->root, pid)
				     : rc;
	const char *line = strstr(status, "\nCpus_allowed_list:");
	if (line) {
		line += strlen("\nCpus_allowed_list:");
		size_t len = strcspn(line, "\n");
		char *list = strndup(line, len);
		rc = list ? np_cpuset_parse_list(out, list) : -ENOMEM;
		free(list);
	}
	free(status);
	if (!line || rc)
		return np_fail(ctx, -EINVAL, "'%s/proc/%d/status': no readable Cpus_allowed_list", ctx->root, pid);
	return 0;
}
