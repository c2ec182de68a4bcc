/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace move: a running process's threads (and with --memory its pages)
 * to a node or near a device, as one transaction that revert undoes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/quote.h"
#include "read/machine.h"
#include "change/move.h"
#include "read/topology.h"
#include "change/pipeline.h"
#include "render/output.h"
#include "render/render.h"

struct move_opts {
	int node;
	const char *near, *state_dir;
	bool memory, cgroup, dry_run, no_wait, json, pretty;
};

const struct np_option move_options[] = {
	NP_OPT_CALLBACK(0, "node", struct move_opts, node, int, "N", "to node N's online CPUs (and memory)", NULL,
			np_opt_int),
	NP_OPT_STRING(0, "near", struct move_opts, near, "DEVICE",
		      "to the CPUs and memory near this device, as run --near binds\n"
		      "(" NP_FILTER_KINDS ")", "device"),
	NP_OPT_BOOL(0, "memory", struct move_opts, memory,
		    "migrate its pages too (numa_migrate_pages);\na revert does not move them back"),
	NP_OPT_BOOL(0, "cgroup", struct move_opts, cgroup,
		    "when a cgroup's cpuset owns its placement, change that\n"
		    "cgroup's cpuset.cpus (and with --memory cpuset.mems)\ninstead of refusing"),
	NP_OPT_BOOL_OLD('n', "dry-run", struct move_opts, dry_run, "print the plan and write nothing"),
	NP_OPT_STRING(0, "state-dir", struct move_opts, state_dir, "DIR",
		      "where the transactions are (default /var/lib/numaplace, under --root)", "dir"),
	NP_OPT_NO_WAIT(struct move_opts, no_wait),
	NP_OPT_JSON(struct move_opts, json, "print JSON: {\"pid\", \"comm\", \"cpus\", \"changes\": [...], ...}"),
	NP_OPT_PRETTY(struct move_opts, pretty),
	NP_OPT_END,
};

/* The thread a change is for, for its name. */
static const char *comm_of(const struct np_move *mv, const struct np_change *c)
{
	/* The process's row is its main thread's. */
	int tid = c->attr == NP_ATTR_PROCESS_AFFINITY ? c->target.pid : c->target.tid;
	bool thread = c->attr == NP_ATTR_THREAD_AFFINITY || c->attr == NP_ATTR_PROCESS_AFFINITY;
	for (size_t i = 0; thread && i < mv->nthreads; i++)
		if (mv->threads[i].tid == tid && mv->threads[i].start_time == c->target.start)
			return mv->threads[i].comm;
	return NULL;
}

static void print_line(const struct np_move *mv, const struct np_change *c, const char *from, const char *to)
{
	/* A thread's name is the bytes it gave itself (prctl PR_SET_NAME). */
	char esc[256];
	const char *comm = comm_of(mv, c);
	comm = comm ? np_escape(comm, esc, sizeof(esc)) : NULL;
	/* A v2 cgroup's empty cpuset file: its parent's, nothing of its own. */
	from = *from ? from : "(empty: the parent's)";
	printf("  %s%s%s%s: %s -> %s\n", c->subject, comm ? " (" : "", comm ? comm : "", comm ? ")" : "", from, to);
}

/* Where to, for the user: "CPUs 8-15, memory on node 1". */
static void head_json(cJSON *doc, const struct np_move *mv)
{
	char *cpus = np_cpuset_format_list(&mv->cpus), *nodes = np_cpuset_format_list(&mv->nodes);
	cJSON_AddNumberToObject(doc, "pid", mv->pid);
	cJSON_AddStringToObject(doc, "comm", mv->comm);
	cJSON_AddStringToObject(doc, "cpus", cpus ? cpus : "");
	cJSON_AddItemToObject(doc, "memory_nodes", mv->memory && nodes ? cJSON_CreateString(nodes) : cJSON_CreateNull());
	cJSON_AddItemToObject(doc, "cgroup", mv->cgroup ? cJSON_CreateString(mv->cgroup) : cJSON_CreateNull());
	cJSON_AddNumberToObject(doc, "threads", (double)mv->nthreads);
	free(cpus);
	free(nodes);
}

static void print_head(const struct np_move *mv, const char *verb)
{
	char *cpus = np_cpuset_format_list(&mv->cpus), *nodes = np_cpuset_format_list(&mv->nodes), esc[256];
	printf("%s process %d (%s), %zu thread%s, to CPUs %s%s%s%s\n", verb, mv->pid,
	       np_escape(mv->comm, esc, sizeof(esc)), mv->nthreads,
	       mv->nthreads == 1 ? "" : "s", cpus ? cpus : "?", mv->memory ? ", memory to node " : "",
	       mv->memory && nodes ? nodes : "", mv->cgroup ? " by its cgroup's cpuset" : "");
	free(cpus);
	free(nodes);
}

static int dry_run(struct np_ctx *ctx, const struct np_move *mv, bool json, bool pretty)
{
	cJSON *doc = json ? np_json_doc() : NULL, *list = json ? cJSON_CreateArray() : NULL;
	size_t changing = 0;
	int rc = EXIT_OK;
	if (!json)
		print_head(mv, "would move");
	for (size_t i = 0; i < mv->nchanges && rc == EXIT_OK; i++) {
		const struct np_change *c = &mv->changes[i];
		char *cur = NULL;
		int m = np_value_matches_current(ctx, c->path, np_attrs[c->attr].value, c->new_value, &cur);
		if (m == -ESRCH) {
			if (!json)
				printf("  %s: gone (exited)\n", c->subject);
			continue;
		}
		if (m < 0) {
			rc = np_error("%s", ctx->err);
			break;
		}
		char *shown = np_value_normalize(np_attrs[c->attr].value, cur);
		changing += m == 0;
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "path", c->path);
			cJSON_AddStringToObject(o, "subject", c->subject);
			const char *comm = comm_of(mv, c);
			cJSON_AddItemToObject(o, "comm", comm ? cJSON_CreateString(comm) : cJSON_CreateNull());
			cJSON_AddStringToObject(o, "current", shown ? shown : cur);
			cJSON_AddStringToObject(o, "new", c->new_value);
			cJSON_AddBoolToObject(o, "change", m == 0);
			cJSON_AddItemToArray(list, o);
		} else {
			print_line(mv, c, shown ? shown : cur, m ? "(already)" : c->new_value);
		}
		free(shown);
		free(cur);
	}
	if (rc == EXIT_OK && json) {
		cJSON_AddBoolToObject(doc, "changed", false);
		cJSON_AddBoolToObject(doc, "dry_run", true);
		head_json(doc, mv);
		cJSON_AddNumberToObject(doc, "would_change", (double)changing);
		cJSON_AddItemToObject(doc, "changes", list);
		return np_print_json(doc, pretty);
	}
	cJSON_Delete(list);
	cJSON_Delete(doc);
	if (rc == EXIT_OK)
		printf("dry run: %zu of %zu value%s would change%s; nothing written\n", changing, mv->nchanges,
		       mv->nchanges == 1 ? "" : "s", mv->memory ? ", then the pages would be migrated" : "");
	return rc;
}

/* The changes that were written: those whose target was still there. */
static size_t count_gone(const struct np_move *mv, const struct np_pipeline *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->res.n; i++)
		n += p->res.changes[i].gone;
	for (size_t i = 0; i < mv->nmore; i++)
		n += mv->more[i].gone;
	for (size_t i = 0; i < p->txn.nchanges; i++)
		n += p->txn.changes[i].gone;
	return n;
}

static int report(const struct np_move *mv, const struct np_pipeline *p, bool migrated, long left, bool json,
		  bool pretty)
{
	const struct np_txn *txn = &p->txn;
	size_t gone = count_gone(mv, p), written = 0;
	for (size_t i = 0; i < txn->nchanges; i++)
		written += !txn->changes[i].gone;
	if (json) {
		cJSON *doc = np_json_doc(), *changes = cJSON_CreateArray(), *gone_list = cJSON_CreateArray();
		cJSON_AddBoolToObject(doc, "changed", written > 0);
		cJSON_AddItemToObject(doc, "transaction", txn->nchanges ? cJSON_CreateString(txn->id) : cJSON_CreateNull());
		head_json(doc, mv);
		for (size_t i = 0; i < txn->nchanges; i++) {
			const struct np_change *c = &txn->changes[i];
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "path", c->path);
			cJSON_AddStringToObject(o, "subject", c->subject);
			cJSON_AddStringToObject(o, "old", c->old_value);
			cJSON_AddStringToObject(o, "new", c->new_value);
			cJSON_AddItemToArray(c->gone ? gone_list : changes, o);
		}
		cJSON_AddItemToObject(doc, "changes", changes);
		cJSON_AddItemToObject(doc, "gone", gone_list);
		cJSON_AddNumberToObject(doc, "gone_threads", (double)gone);
		if (mv->memory) {
			cJSON *m = cJSON_AddObjectToObject(doc, "memory");
			cJSON_AddBoolToObject(m, "migrated", migrated);
			cJSON_AddNumberToObject(m, "pages_not_moved", (double)left);
		}
		return np_print_json(doc, pretty);
	}
	print_head(mv, "moved");
	for (size_t i = 0; i < txn->nchanges; i++) {
		const struct np_change *c = &txn->changes[i];
		if (c->gone)
			printf("  %s: exited during the move, skipped\n", c->subject);
		else
			print_line(mv, c, c->old_value, c->new_value);
	}
	if (txn->nchanges)
		printf("%zu value%s changed (transaction %s); undo with 'numaplace revert %s'\n", written,
		       written == 1 ? "" : "s", txn->id, txn->id);
	else
		puts("already there: nothing to change");
	if (gone)
		printf("%zu thread%s exited during the move: skipped\n", gone, gone == 1 ? "" : "s");
	if (mv->memory) {
		if (left)
			printf("memory: migrated; %ld page%s could not be moved (in use, or pinned)\n", left,
			       left == 1 ? "" : "s");
		else
			puts("memory: migrated");
		puts("a revert restores the threads' CPUs; the pages moved stay where they are");
	}
	return EXIT_OK;
}

/* Where to: node N, or near DEVICE. An exit status. */
static int target(struct np_ctx *ctx, const struct np_command *self, const struct move_opts *o,
		  struct np_cpuset *cpus, struct np_cpuset *nodes)
{
	int rc;
	if (o->near) {
		struct np_machine m;
		size_t index = 0;
		if (np_machine_load(ctx, &m))
			return np_error("%s", ctx->err);
		rc = np_find_one_device(ctx, &m, o->near, &index);
		if (rc == EXIT_OK && np_device_binding(ctx, &m, &m.pci.devs[index], cpus, nodes))
			rc = np_usage_error(self, "%s", ctx->err);
		if (rc == EXIT_OK && o->memory) {
			np_cpuset_foreach(n, nodes) {
				const struct np_node *node = np_topology_node(&m.topo, n);
				if (node && node->memory_kb == 0 && rc == EXIT_OK)
					rc = np_usage_error(self, "node %d, near %s, has no memory: --memory has nowhere "
							    "to put the pages; move without --memory", n, o->near);
			}
		}
		np_machine_free(&m);
		return rc;
	}
	struct np_topology topo;
	if (np_topology_load(ctx, &topo))
		return np_error("%s", ctx->err);
	rc = np_move_node_target(ctx, &topo, o->node, o->memory, cpus, nodes);
	np_topology_free(&topo);
	return rc == -EINVAL ? np_usage_error(self, "%s", ctx->err) : rc ? np_error("%s", ctx->err) : EXIT_OK;
}

/* After the pages failed to move: the threads go back, so that the move is
 * all or nothing as far as a revert can make it. */
static int undo_after_memory(struct np_ctx *ctx, const struct np_txn_opts *topts, const struct np_txn *txn)
{
	char err[sizeof(ctx->err)];
	snprintf(err, sizeof(err), "%s", ctx->err);
	if (!txn->nchanges)
		return np_error("%s", err);
	struct np_txn undone;
	struct np_txn_opts now = *topts;
	now.more = NULL;
	int rc = np_txn_revert(ctx, &now, txn->id, false, &undone);
	if (rc)
		rc = np_error("%s; reverting the threads' move (transaction %s) failed too: %s", err, txn->id, ctx->err);
	else
		rc = np_error("%s; the threads' CPUs were put back (transaction %s reverted)", err, txn->id);
	np_txn_free(&undone);
	return rc;
}

int cmd_move(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("move");
	struct move_opts o = { .node = -1 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc != NP_CONTINUE)
		return rc;
	if (argc - first != 1)
		return np_usage_error(self, "expected one PID");
	char *end;
	errno = 0;
	long pid = strtol(argv[first], &end, 10);
	if (errno || end == argv[first] || *end || pid <= 0 || pid > 4194304)
		return np_usage_error(self, "'%s' is not a process id", argv[first]);
	if ((o.node >= 0) == (o.near != NULL))
		return np_usage_error(self, "expected one of --node N or --near DEVICE");
	if (*ctx->root && !o.dry_run)
		return np_usage_error(self, "--root describes another machine: only --dry-run makes sense there");

	struct np_cpuset cpus = NP_CPUSET_INIT, nodes = NP_CPUSET_INIT;
	struct np_move mv = { 0 };
	struct np_pipeline p = { 0 };
	if ((rc = target(ctx, self, &o, &cpus, &nodes)) != EXIT_OK)
		goto out;
	int prc = np_move_plan(ctx, (int)pid, &cpus, &nodes, o.memory, o.cgroup, &mv);
	if (prc == -ESRCH || prc == -EINVAL || prc == -EPERM) {
		rc = np_usage_error(self, "%s", ctx->err);
		goto out;
	}
	if (prc) {
		rc = np_error("%s", ctx->err);
		goto out;
	}
	if (o.dry_run) {
		rc = dry_run(ctx, &mv, o.json, o.pretty);
		goto out;
	}

	/* What history shows as the transaction's profile. */
	char what[160];
	if (o.near)
		snprintf(what, sizeof(what), "move %ld --near %s%s%s", pid, o.near, o.memory ? " --memory" : "",
			 mv.cgroup ? " --cgroup" : "");
	else
		snprintf(what, sizeof(what), "move %ld --node %d%s%s", pid, o.node, o.memory ? " --memory" : "",
			 mv.cgroup ? " --cgroup" : "");
	struct np_txn_opts topts = { .state_dir = o.state_dir, .wait_for_lock = !o.no_wait,
				     .more = np_move_more, .more_arg = &mv };
	/* The pipeline with the move's own changes: they place no IRQ. */
	np_pipeline_take(&p, &mv.changes, &mv.nchanges);
	if (np_pipeline_write(ctx, &p, &topts, what, NP_PIPELINE_ALL)) {
		rc = np_error("%s", ctx->err);
		goto out;
	}
	long left = 0;
	bool migrated = false;
	if (o.memory) {
		int mrc = np_move_memory(ctx, &mv, &left);
		if (mrc == -ESRCH) {
			/* Exited: its pages went with it. */
		} else if (mrc) {
			rc = undo_after_memory(ctx, &topts, &p.txn);
			goto out;
		} else {
			migrated = true;
		}
	}
	rc = report(&mv, &p, migrated, left, o.json, o.pretty);
out:
	np_pipeline_free(&p);
	np_move_free(&mv);
	np_cpuset_free(&cpus);
	np_cpuset_free(&nodes);
	return rc;
}
