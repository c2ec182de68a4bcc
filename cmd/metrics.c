/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace metrics: what report, verify and history know, in the Prometheus
 * text exposition format (version 0.0.4), for node_exporter's textfile
 * collector or any scraper: fleets watch placement on a dashboard. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/quote.h"
#include "judge/request.h"
#include "read/kubelet.h"
#include "change/resolve.h"
#include "read/sysfs.h"
#include "change/txn.h"
#include "metrics.h"
#include "render/render.h"

struct metrics_opts {
	const char *save, *profile, *state_dir;
	struct np_dirlist dirs;
};

const struct np_option metrics_options[] = {
	NP_OPT_STRING(0, "save", struct metrics_opts, save, "FILE",
		      "write FILE (mode 0644) by renaming a whole new file over it, not stdout", "file"),
	NP_OPT_STRING(0, "profile", struct metrics_opts, profile, "PROFILE",
		      "check this profile for drift (default: the values the transactions applied)", "profile-name"),
	NP_OPT_CALLBACK(0, "profile-dir", struct metrics_opts, dirs, struct np_dirlist, "DIR",
			"look for profiles in DIR first (repeatable)", "dir", np_opt_dir),
	NP_OPT_STRING(0, "state-dir", struct metrics_opts, state_dir, "DIR",
		      "read transactions from DIR (default /var/lib/numaplace, under --root)", "dir"),
	NP_OPT_END,
};

/* A label value as the format wants it: valid UTF-8 (a name is bytes:
 * one that is not UTF-8 makes the parser reject the whole file, and
 * node_exporter's textfile collector then drops every metric of it), so
 * what does not show as itself is written \xHH as text output writes it
 * (np_escape), then backslash and double quote escaped. */
static void label(FILE *out, const char *name, const char *value, bool first)
{
	char *shown = np_escape_dup(value ? value : "");
	fprintf(out, "%s%s=\"", first ? "" : ",", name);
	for (const char *p = shown ? shown : "?"; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', out);
		fputc(*p, out);
	}
	fputc('"', out);
	free(shown);
}

static void header(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* IRQs of a device delivered to a CPU of set: the kernel's effective CPUs,
 * else an affinity of one CPU. */
static int irqs_on(const struct np_machine *m, size_t di, const struct np_cpuset *set)
{
	int n = 0;
	for (size_t i = 0; i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev != (int)di)
			continue;
		if (irq->has_effective && !np_cpuset_empty(&irq->effective))
			n += np_cpuset_intersects(&irq->effective, set);
		else if (irq->has_affinity && np_cpuset_count(&irq->affinity) == 1)
			n += np_cpuset_intersects(&irq->affinity, set);
	}
	return n;
}

static void device_labels(FILE *out, const struct np_pci_dev *d)
{
	/* name: what people call it (an interface, a block device; "" for
	 * neither); driver: the driver, as node_exporter names that label. */
	label(out, "device", d->addr, true);
	label(out, "name", d->nnet ? d->net[0].name : d->nblock ? d->block[0].name : "", false);
	label(out, "driver", d->child_driver ? d->child_driver : d->driver ? d->driver : "", false);
}

/* By where the request judges interrupts: its forbidden CPUs. */
static void device_metrics(FILE *out, const struct np_request *req)
{
	static const char *const where[] = { "local", "remote", "isolated", "exclusive", "per_cpu" };
	const struct np_machine *m = req->m;
	const struct np_cpuset *quiet = &req->policy.forbidden.quiet, *excl = &req->policy.forbidden.exclusive;
	header(out, "numaplace_device_interrupts_total", "counter",
	       "Interrupts of a PCI device since boot by where they ran, each counted once: on isolated or nohz_full "
	       "CPUs, else on CPUs a Kubernetes container holds exclusively, else on its managed per-CPU queues "
	       "(per CPU by design, never remote), else off the device's node, else local.");
	for (size_t di = 0; di < m->pci.ndevs; di++) {
		const struct np_pci_dev *d = &m->pci.devs[di];
		struct np_where w;
		int node;
		if (!np_device_where(m, di, &w, &node))
			continue;
		const unsigned long long v[] = { w.local, w.remote, w.isolated, w.exclusive, w.per_cpu };
		char nodebuf[16];
		snprintf(nodebuf, sizeof(nodebuf), "%d", node);
		for (int k = 0; k < 5; k++) {
			fputs("numaplace_device_interrupts_total{", out);
			device_labels(out, d);
			label(out, "node", node >= 0 ? nodebuf : "unknown", false);
			label(out, "where", where[k], false);
			fprintf(out, "} %llu\n", v[k]);
		}
	}
	const struct { const char *name, *help; const struct np_cpuset *set; } on[] = {
		{ "numaplace_device_irqs_on_isolated_cpus",
		  "IRQs of a PCI device delivered to isolated or nohz_full CPUs (effective affinity).", quiet },
		{ "numaplace_device_irqs_on_exclusive_cpus",
		  "IRQs of a PCI device delivered to CPUs a Kubernetes container holds exclusively (effective affinity).",
		  excl },
	};
	for (int k = 0; k < 2; k++) {
		header(out, on[k].name, "gauge", on[k].help);
		for (size_t di = 0; di < m->pci.ndevs; di++) {
			struct np_irq_summary s;
			np_device_irq_summary(m, di, &s);
			if (!s.nirqs)
				continue;
			fprintf(out, "%s{", on[k].name);
			device_labels(out, &m->pci.devs[di]);
			fprintf(out, "} %d\n", irqs_on(m, di, on[k].set));
		}
	}
}

/* 1 when a value of the profile differs from the machine, 0 when none
 * does, -1 when it cannot be told (the profile no longer fits, a value is
 * unreadable): the note says why. */
static int drifted(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *prof)
{
	struct np_resolved res;
	if (np_profile_resolve(ctx, m, prof, &res)) {
		np_notef("metrics: note: no drift metric: %s\n", ctx->err);
		return -1;
	}
	int drift = 0;
	for (size_t i = 0; i < res.n && drift == 0; i++) {
		const struct np_change *c = &res.changes[i];
		int match = np_value_matches(ctx, c->path, np_attrs[c->attr].value, c->new_value);
		if (match < 0) {
			np_notef("metrics: note: no drift metric: %s\n", ctx->err);
			drift = -1;
		} else {
			drift = !match;
		}
	}
	np_resolved_free(&res);
	return drift;
}

/* The same from the journals: every value the transactions still applied
 * (this boot's, not reverted) wrote, the latest write of each path, against
 * the machine. What hold re-applies is in them too. */
static int journal_drifted(struct np_ctx *ctx, const struct np_txn *txns, size_t n)
{
	int drift = 0;
	for (size_t i = 0; i < n && drift == 0; i++) {
		if (txns[i].state != NP_TXN_APPLIED)
			continue;
		for (size_t c = 0; c < txns[i].nchanges && drift == 0; c++) {
			const struct np_change *ch = &txns[i].changes[c];
			bool later = false;
			for (size_t j = i + 1; j < n && !later; j++)
				for (size_t k = 0; txns[j].state == NP_TXN_APPLIED && k < txns[j].nchanges && !later; k++)
					later = !strcmp(txns[j].changes[k].path, ch->path);
			if (later)
				continue;
			int match = np_value_matches(ctx, ch->path, np_attrs[ch->attr].value, ch->new_value);
			if (match < 0) {
				np_notef("metrics: note: no drift metric: %s\n", ctx->err);
				drift = -1;
			} else {
				drift = !match;
			}
		}
	}
	return drift;
}

static void profile_metrics(struct np_ctx *ctx, FILE *out, const struct np_machine *m, const struct np_metrics_src *src)
{
	struct np_txn *txns = NULL;
	size_t n = 0;
	struct np_txn_opts topts = { .state_dir = src->state_dir };
	if (np_txn_list(ctx, &topts, &txns, &n) && n == 0)
		np_notef("metrics: note: no transactions: %s\n", ctx->err);
	const struct np_txn *last = NULL, *applied = NULL;
	for (size_t i = 0; i < n; i++) {
		if (txns[i].state == NP_TXN_UNREADABLE)
			continue;
		last = &txns[i];
		if (txns[i].state == NP_TXN_APPLIED)
			applied = &txns[i];
	}
	const char *name = src->profile ? src->profile->name : applied ? applied->profile : NULL;
	header(out, "numaplace_profile_applied", "gauge",
	       "1 for the profile applied (held by hold, or of the latest transaction still applied).");
	if (name) {
		fputs("numaplace_profile_applied{", out);
		label(out, "profile", name, true);
		fputs("} 1\n", out);
	}
	header(out, "numaplace_profile_drift", "gauge",
	       "1 when a value of the applied profile differs from the machine (as verify says), else 0.");
	int drift = src->profile ? drifted(ctx, m, src->profile) : applied ? journal_drifted(ctx, txns, n) : -1;
	if (drift >= 0) {
		fputs("numaplace_profile_drift{", out);
		label(out, "profile", name, true);
		fprintf(out, "} %d\n", drift);
	}
	header(out, "numaplace_last_apply_timestamp_seconds", "gauge",
	       "When the latest transaction (apply, hold's re-apply) was made, in seconds since the epoch.");
	if (last) {
		fputs("numaplace_last_apply_timestamp_seconds{", out);
		label(out, "profile", last->profile, true);
		fprintf(out, "} %lld\n", last->time);
	}
	header(out, "numaplace_last_apply_success", "gauge",
	       "1 when the latest transaction was applied whole (state applied, reverted or stale since), 0 when "
	       "it was rolled back or left pending.");
	if (last) {
		fputs("numaplace_last_apply_success{", out);
		label(out, "profile", last->profile, true);
		label(out, "state", np_txn_state_name(last->state), false);
		fprintf(out, "} %d\n", last->state != NP_TXN_ROLLED_BACK && last->state != NP_TXN_PENDING);
	}
	np_txns_free(txns, n);
}

static void hold_metrics(FILE *out, const struct np_metrics_src *src)
{
	header(out, "numaplace_hold_reapplies_total", "counter",
	       "Passes of numaplace hold that re-applied a device's drifted values, per device.");
	for (size_t i = 0; i < src->nhold; i++) {
		fputs("numaplace_hold_reapplies_total{", out);
		label(out, "device", src->hold[i].device, true);
		fprintf(out, "} %llu\n", src->hold[i].reapplies);
	}
	header(out, "numaplace_hold_giveups_total", "counter",
	       "Times numaplace hold gave up on a device that kept drifting back (someone else rewrites it).");
	for (size_t i = 0; i < src->nhold; i++) {
		fputs("numaplace_hold_giveups_total{", out);
		label(out, "device", src->hold[i].device, true);
		fprintf(out, "} %llu\n", src->hold[i].giveups);
	}
}

/* Whole text to path: a temporary file in the same directory, renamed over
 * it, so that a reader (node_exporter) never sees part of it. */
static int save(struct np_ctx *ctx, const char *path, const char *text, size_t len)
{
	char *dup = strdup(path), *base = strdup(path);
	if (!dup || !base) {
		free(dup);
		free(base);
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	int rc = 0, dirfd = open(dirname(dup), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		rc = np_fail(ctx, -errno, "cannot write '%s': %s", path, strerror(errno));
	else
		rc = np_replace_at(ctx, dirfd, basename(base), path, text, len, 0644, NULL);
	if (dirfd >= 0)
		close(dirfd);
	free(dup);
	free(base);
	return rc;
}

int np_metrics_write(struct np_ctx *ctx, const struct np_metrics_src *src, const char *path)
{
	struct np_machine m;
	struct np_request req;
	const struct np_request_opts ro = NP_REQUEST_OPTS_INIT;
	char *text = NULL;
	size_t len = 0;
	if (np_machine_load_some(ctx, &m, NP_LOAD_NO_NAMES | NP_LOAD_NO_PROCESSES))
		return -1;
	int rc = np_request_setup(ctx, &m, &ro, NULL, &req);
	if (!rc)
		rc = np_kubelet_split(ctx, &m.topo, &m.kube);
	FILE *out = rc ? NULL : open_memstream(&text, &len);
	if (!rc && !out)
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	if (out) {
		device_metrics(out, &req);
		profile_metrics(ctx, out, &m, src);
		hold_metrics(out, src);
		if (fclose(out))
			rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	if (!rc && path)
		rc = save(ctx, path, text, len);
	else if (!rc && (fwrite(text, 1, len, stdout) != len || fflush(stdout)))
		rc = np_fail(ctx, -EIO, "cannot write the metrics to stdout");
	free(text);
	np_request_free(&req);
	np_machine_free(&m);
	return rc ? -1 : 0;
}

int cmd_metrics(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("metrics");
	struct metrics_opts o = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc == NP_CONTINUE && first < argc)
		rc = np_usage_error(self, "unexpected argument '%s'", argv[first]);
	if (rc != NP_CONTINUE) {
		np_dirs_free(&o.dirs);
		return rc;
	}
	struct np_profile prof;
	struct np_metrics_src src = { .state_dir = o.state_dir };
	if (np_profile_dirs_finish(&o.dirs)) {
		np_dirs_free(&o.dirs);
		return np_error("%s", strerror(ENOMEM));
	}
	rc = o.profile ? np_profile_open(ctx, self, &o.dirs, o.profile, &prof) : EXIT_OK;
	if (rc == EXIT_OK && o.profile)
		src.profile = &prof;
	if (rc == EXIT_OK && np_metrics_write(ctx, &src, o.save))
		rc = np_error("%s", ctx->err);
	if (src.profile)
		np_profile_free(&prof);
	np_dirs_free(&o.dirs);
	return rc;
}
