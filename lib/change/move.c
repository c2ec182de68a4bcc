/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "change/move.h"

#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/forbidden.h"
#include "read/machine.h"
#include "read/sysfs.h"
#include "read/topology.h"

int np_device_binding(struct np_ctx *ctx, const struct np_machine *m, const struct np_pci_dev *d,
		      struct np_cpuset *cpus, struct np_cpuset *nodes)
{
	bool inferred;
	int node = np_device_node(m, d, &inferred);
	struct np_cpuset usable = NP_CPUSET_INIT;
	int rc = 0;
	if (node < 0)
		rc = np_fail(ctx, -EINVAL,
			     "%s: its NUMA node is unknown (numa_node -1, local CPUs span nodes): nothing to be near",
			     d->addr);
	else if (np_usable_cpus(&m->topo, NULL, &usable) || np_nearest_cpus(&m->topo, node, &usable, cpus) ||
		 np_nodes_of(&m->topo, cpus, nodes))
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	else if (np_cpuset_empty(cpus))
		rc = np_fail(ctx, -EINVAL, "%s: no usable CPU on node %d or near it", d->addr, node);
	np_cpuset_free(&usable);
	return rc;
}

int np_move_node_target(struct np_ctx *ctx, const struct np_topology *topo, int node, bool memory,
			struct np_cpuset *cpus, struct np_cpuset *nodes)
{
	const struct np_node *n = np_topology_node(topo, node);
	if (!n)
		return np_fail(ctx, -EINVAL, "no node %d on this machine (%d node%s, see 'numaplace topo')", node,
			       topo->nnodes, topo->nnodes == 1 ? "" : "s");
	if (np_cpuset_empty(&n->cpus))
		return np_fail(ctx, -EINVAL, "node %d has no online CPU (a memory-only node): no thread can run "
			       "there; move the process to a node with CPUs", node);
	if (memory && n->memory_kb == 0)
		return np_fail(ctx, -EINVAL, "node %d has no memory: --memory has nowhere to put the pages; "
			       "move without --memory", node);
	if (np_cpuset_copy(cpus, &n->cpus) || np_cpuset_set(nodes, (unsigned)node))
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	return 0;
}

/* A cgroup file set explicitly: present and not empty (v2 leaves
 * cpuset.cpus empty when the cgroup takes its parent's). */
static bool explicit_file(struct np_ctx *ctx, const char *dir, const char *file)
{
	char *text = NULL, saved[sizeof(ctx->err)];
	memcpy(saved, ctx->err, sizeof(saved));
	bool set = np_read_text(ctx, &text, "/sys/fs/cgroup/%s/%s", dir, file) == 0 && text[strspn(text, " \t\n")];
	memcpy(ctx->err, saved, sizeof(saved));
	free(text);
	return set;
}

/* The cgroup (relative to /sys/fs/cgroup) nearest to the process that owns
 * its placement, or NULL: v1's cpuset hierarchy below its root, or a v2
 * cgroup (or an ancestor) whose cpuset.cpus, or with memory cpuset.mems,
 * is its own. */
static int placement_owner(struct np_ctx *ctx, int pid, bool memory, char **owner)
{
	char *text = NULL;
	int rc = np_read_text(ctx, &text, "/proc/%d/cgroup", pid);
	*owner = NULL;
	if (rc == -ENOENT)
		return np_fail(ctx, -ESRCH, "no process %d", pid);
	if (rc)
		return rc;
	for (char *line = strtok(text, "\n"); line && !*owner && rc == 0; line = strtok(NULL, "\n")) {
		char *ctrl = strchr(line, ':'), *path = ctrl ? strchr(ctrl + 1, ':') : NULL;
		if (!path || path[1] != '/')
			continue;
		*path++ = '\0';
		*ctrl++ = '\0';
		bool v1 = false;
		for (char *w = ctrl, *save = NULL; (w = strtok_r(w, ",", &save)); w = NULL)
			v1 |= !strcmp(w, "cpuset");
		if (v1) {
			if (path[1] && asprintf(owner, "cpuset%s", path) < 0)
				rc = -ENOMEM;
			continue;
		}
		if (*ctrl || strcmp(line, "0"))
			continue;
		/* v2: from its own cgroup up, the root's being no one's choice. */
		for (char *end = path + strlen(path); end > path + 1 && !*owner;) {
			*end = '\0';
			if ((explicit_file(ctx, path + 1, "cpuset.cpus") ||
			     (memory && explicit_file(ctx, path + 1, "cpuset.mems"))) &&
			    !(*owner = strdup(path + 1)))
				rc = -ENOMEM;
			end = strrchr(path, '/');
		}
	}
	free(text);
	return rc == -ENOMEM ? np_fail(ctx, rc, "%s", strerror(ENOMEM)) : rc;
}

/* A parent cgroup bounds what its child's cpuset may use. */
static int parent_allows(struct np_ctx *ctx, const char *cgroup, const struct np_cpuset *cpus)
{
	char *parent = strdup(cgroup), *slash = parent ? strrchr(parent, '/') : NULL;
	struct np_cpuset allowed = NP_CPUSET_INIT;
	char saved[sizeof(ctx->err)];
	int rc = 0;
	if (!parent)
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	if (slash) {
		*slash = '\0';
		memcpy(saved, ctx->err, sizeof(saved));
		bool known = np_read_cpulist(ctx, &allowed, "/sys/fs/cgroup/%s/cpuset.cpus.effective", parent) == 0 ||
			     np_read_cpulist(ctx, &allowed, "/sys/fs/cgroup/%s/cpuset.effective_cpus", parent) == 0;
		memcpy(ctx->err, saved, sizeof(saved));
		if (known && !np_cpuset_subset(cpus, &allowed)) {
			char *have = np_cpuset_format_list(&allowed);
			rc = np_fail(ctx, -EINVAL, "cgroup %s allows CPUs %s only, and it holds %s: its cpuset cannot "
				     "take the CPUs asked for", parent, have ? have : "?", cgroup);
			free(have);
		}
	}
	np_cpuset_free(&allowed);
	free(parent);
	return rc;
}

/* A thread's change; the main thread's is the process's (process_affinity):
 * the row a revert takes the process's CPUs before the move from, for the
 * threads started since, and its identity from. */
static int thread_change(struct np_change *c, int pid, const struct np_task_stat *t, const char *cpus)
{
	struct np_target target = NP_TARGET_NONE;
	target.pid = pid;
	target.tid = t->tid;
	target.start = t->start_time;
	return np_change_make(c, t->tid == pid ? NP_ATTR_PROCESS_AFFINITY : NP_ATTR_THREAD_AFFINITY, &target, cpus);
}

static int cgroup_change(struct np_change *c, enum np_attr attr, const char *cgroup, const char *value)
{
	struct np_target target = NP_TARGET_NONE;
	char *file = NULL;
	if (asprintf(&file, "%s/%s", cgroup, attr == NP_ATTR_CGROUP_CPUS ? "cpuset.cpus" : "cpuset.mems") < 0)
		return -ENOMEM;
	target.file = file;
	int rc = np_change_make(c, attr, &target, value);
	free(file);
	return rc;
}

int np_move_plan(struct np_ctx *ctx, int pid, const struct np_cpuset *cpus, const struct np_cpuset *nodes,
		 bool memory, bool use_cgroup, struct np_move *mv)
{
	char *list = NULL, *mems = NULL;
	int rc;
	memset(mv, 0, sizeof(*mv));
	mv->pid = pid;
	mv->memory = memory;
	mv->use_cgroup = use_cgroup;
	mv->cpus = (struct np_cpuset)NP_CPUSET_INIT;
	mv->nodes = (struct np_cpuset)NP_CPUSET_INIT;
	if (np_cpuset_copy(&mv->cpus, cpus) || np_cpuset_copy(&mv->nodes, nodes))
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));

	rc = np_tasks_read(ctx, pid, &mv->threads, &mv->nthreads);
	if (rc == -ENOENT || (rc == 0 && !mv->nthreads))
		return np_fail(ctx, -ESRCH, "no process %d", pid);
	if (rc)
		return rc;
	const struct np_task_stat *leader = &mv->threads[0];
	for (size_t i = 0; i < mv->nthreads; i++)
		if (mv->threads[i].tid == pid)
			leader = &mv->threads[i];
	snprintf(mv->comm, sizeof(mv->comm), "%s", leader->comm);
	if (np_task_is_kthread(leader))
		return np_fail(ctx, -EINVAL, "process %d (%s) is a kernel thread: the kernel places it, "
			       "numaplace moves user processes only", pid, leader->comm);
	if ((rc = placement_owner(ctx, pid, memory, &mv->cgroup)))
		return rc;
	if (mv->cgroup && !use_cgroup)
		return np_fail(ctx, -EPERM, "process %d (%s) sits in cgroup %s, whose cpuset "
			       "('/sys/fs/cgroup/%s/cpuset.cpus') owns its placement and would undo a move of its "
			       "threads: move the cgroup with --cgroup (or change its owner: systemd, the kubelet)",
			       pid, mv->comm, mv->cgroup, mv->cgroup);
	if (mv->cgroup && (rc = parent_allows(ctx, mv->cgroup, cpus)))
		return rc;

	if (!(list = np_cpuset_format_list(cpus)) || !(mems = np_cpuset_format_list(nodes))) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	/* The cgroup's cpuset moves every thread, present and future: the
	 * kernel rewrites their affinity to it, but keeps a narrower one a
	 * thread asked for where it fits the new cpuset. Those are moved once
	 * the cgroup is (np_move_more), their value then journaled. */
	mv->threads_after_cgroup = mv->cgroup != NULL;
	size_t n = mv->cgroup ? 1 + (size_t)memory : mv->nthreads;
	if (!(mv->changes = calloc(n, sizeof(*mv->changes)))) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	for (size_t i = 0; i < n && rc == 0; i++, mv->nchanges++) {
		if (!mv->cgroup)
			rc = thread_change(&mv->changes[i], pid, &mv->threads[i], list);
		else
			rc = i == 0 ? cgroup_change(&mv->changes[i], NP_ATTR_CGROUP_CPUS, mv->cgroup, list)
				    : cgroup_change(&mv->changes[i], NP_ATTR_CGROUP_MEMS, mv->cgroup, mems);
	}
	if (rc)
		rc = np_fail(ctx, rc, "process %d: cannot name its %s for a change: %s", pid,
			     mv->cgroup ? "cgroup" : "threads", strerror(-rc));
out:
	free(list);
	free(mems);
	return rc;
}

static bool seen(const struct np_move *mv, const struct np_task_stat *t)
{
	for (size_t i = 0; i < mv->nthreads; i++)
		if (mv->threads[i].tid == t->tid && mv->threads[i].start_time == t->start_time)
			return true;
	return false;
}

int np_move_more(struct np_ctx *ctx, void *arg, struct np_change **changes, size_t *n)
{
	struct np_move *mv = arg;
	struct np_task_stat *now = NULL;
	size_t nnow = 0, fresh = 0;
	char *list = NULL;
	*changes = NULL;
	*n = 0;
	int rc = np_tasks_read(ctx, mv->pid, &now, &nnow);
	if (rc == -ENOENT)
		return 0; /* exited: no thread left to appear */
	if (rc)
		return rc;
	if (mv->threads_after_cgroup) {
		/* Every thread, as it stands now that the cgroup moved. */
		mv->threads_after_cgroup = false;
		mv->nthreads = 0;
	}
	for (size_t i = 0; i < nnow; i++)
		fresh += !seen(mv, &now[i]);
	if (!fresh)
		goto out;
	if (++mv->passes > NP_MOVE_MAX_PASSES) {
		rc = np_fail(ctx, -EAGAIN, "process %d kept starting threads: %d listings of its threads each found "
			     "new ones; run the move again when it is calmer", mv->pid, NP_MOVE_MAX_PASSES);
		goto out;
	}
	struct np_task_stat *threads = realloc(mv->threads, (mv->nthreads + fresh) * sizeof(*threads));
	struct np_change *more = threads ? realloc(mv->more, (mv->nmore + fresh) * sizeof(*more)) : NULL;
	if (threads)
		mv->threads = threads;
	if (more)
		mv->more = more;
	if (!threads || !more || !(list = np_cpuset_format_list(&mv->cpus))) {
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	/* The engine reads and fills this batch before it asks again. */
	*changes = &mv->more[mv->nmore];
	for (size_t i = 0; i < nnow && rc == 0; i++) {
		if (seen(mv, &now[i]))
			continue;
		mv->threads[mv->nthreads++] = now[i];
		rc = thread_change(&mv->more[mv->nmore], mv->pid, &now[i], list);
		if (rc == 0) {
			mv->nmore++;
			(*n)++;
		}
	}
	if (rc)
		rc = np_fail(ctx, rc, "process %d: %s", mv->pid, strerror(-rc));
out:
	free(list);
	free(now);
	return rc;
}

int np_move_memory(struct np_ctx *ctx, const struct np_move *mv, long *left)
{
	*left = 0;
	if (numa_available() < 0)
		return np_fail(ctx, -ENOSYS, "cannot migrate the memory of process %d: this kernel has no NUMA "
			       "support (numa_available)", mv->pid);
	struct bitmask *to = numa_allocate_nodemask();
	if (!to)
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	np_cpuset_foreach(node, &mv->nodes) numa_bitmask_setbit(to, (unsigned)node);
	/* From every node with memory: the kernel maps each onto the target. */
	long r = numa_migrate_pages(mv->pid, numa_all_nodes_ptr, to);
	int err = errno;
	numa_bitmask_free(to);
	if (r < 0)
		return np_fail(ctx, err == ESRCH ? -ESRCH : -err,
			       "cannot migrate the memory of process %d (numa_migrate_pages): %s", mv->pid,
			       strerror(err));
	*left = r;
	return 0;
}

void np_move_free(struct np_move *mv)
{
	for (size_t i = 0; i < mv->nchanges; i++)
		np_change_free(&mv->changes[i]);
	for (size_t i = 0; i < mv->nmore; i++)
		np_change_free(&mv->more[i]);
	free(mv->changes);
	free(mv->more);
	free(mv->threads);
	free(mv->cgroup);
	np_cpuset_free(&mv->cpus);
	np_cpuset_free(&mv->nodes);
	memset(mv, 0, sizeof(*mv));
}
