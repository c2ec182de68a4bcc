/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The target classes (target.h): how a profile names an IRQ, a network
 * queue, an interface, a block device or the machine, how that name is
 * found on a machine, and how a target found there is named again for a
 * profile. */
#include "change/target.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/machine.h"
#include "read/sysfs.h"

/* nvme queue ids are 16 bits; no NIC comes near. Bounds typos, not hardware. */
#define MAX_INDEX 65535
#define QUEUE_EXPECTED "a queue index from 0 to 65535"

void np_target_free_all(struct np_target *t)
{
	free((char *)t->device);
	free((char *)t->vector);
	t->device = t->vector = NULL;
	np_target_free(t);
}

static bool add_str(cJSON *o, const char *key, const char *s)
{
	return !s || cJSON_AddStringToObject(o, key, s);
}

static bool add_int(cJSON *o, const char *key, int v)
{
	return v < 0 || cJSON_AddNumberToObject(o, key, v);
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;
	*oom |= s && !d;
	return d;
}

static char *text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *text(const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* Names reach paths: refuse anything that could leave the attribute's
 * directory, even though the profile parser already did. */
static bool safe_name(const char *name)
{
	return name && *name && !strchr(name, '/') && !strstr(name, "..");
}

/* ---- irq: a device's vector, by queue or action name; an IRQ number as the fallback ---- */

static const char *const irq_keys[] = { "device", "queue", "vector", "irq", NULL };

static int irq_parse(struct np_setting_reader *r, const cJSON *const *f, struct np_target *t)
{
	int rc;
	/* f: device, queue, vector, irq */
	if (f[0] && f[3])
		return np_reader_fail(r, NULL, "both \"device\" and \"irq\", expected \"device\" with \"queue\" or "
				      "\"vector\", or \"irq\" alone as the fallback");
	if (f[3]) {
		if (f[1] || f[2])
			return np_reader_fail(r, NULL, "\"irq\" with \"%s\", expected \"irq\" alone (or \"device\" with it)",
					      f[1] ? "queue" : "vector");
		return np_reader_int(r, f[3], "irq", 0, INT_MAX, "an IRQ number", &t->irq);
	}
	if (!f[0])
		return np_reader_missing(r, "device", "a device (PCI address, interface or block device) with "
					 "\"queue\" or \"vector\", or \"irq\" as the fallback");
	char *device = NULL;
	rc = np_reader_device(r, f[0], "device", &device);
	t->device = device;
	if (rc)
		return rc;
	if (f[1] && f[2])
		return np_reader_fail(r, NULL, "both \"queue\" and \"vector\", expected one of them");
	if (!f[1] && !f[2])
		return np_reader_missing(r, "queue", "\"queue\" (an index) or \"vector\" (an IRQ action name) with \"device\"");
	if (f[1])
		return np_reader_int(r, f[1], "queue", 0, MAX_INDEX, QUEUE_EXPECTED, &t->queue);
	char *vector = NULL;
	rc = np_reader_name(r, f[2], "vector", "an IRQ action name such as \"eth0-TxRx-3\"", true, &vector);
	t->vector = vector;
	return rc;
}

static bool irq_to_json(cJSON *o, const struct np_target *t)
{
	return add_str(o, "device", t->device) && add_int(o, "queue", t->queue) && add_str(o, "vector", t->vector) &&
	       add_int(o, "irq", t->irq);
}

/* The device a setting names: a PCI address, an interface or a block device. */
static int find_device(struct np_ctx *ctx, const struct np_machine *m, const struct np_target_wanted *s)
{
	char addr[NP_PCI_ADDR_LEN];
	const char *name = s->target.device;
	if (np_pci_parse_addr(name, addr)) {
		const struct np_pci_dev *d = np_pci_find(&m->pci, addr);
		if (d)
			return (int)(d - m->pci.devs);
	} else {
		for (size_t i = 0; i < m->pci.ndevs; i++) {
			const struct np_pci_dev *d = &m->pci.devs[i];
			for (size_t k = 0; k < d->nnet; k++)
				if (!strcmp(d->net[k].name, name))
					return (int)i;
			for (size_t k = 0; k < d->nblock; k++)
				if (!strcmp(d->block[k].name, name))
					return (int)i;
		}
	}
	return np_fail(ctx, -EINVAL, "%s: %s.device: no PCI function, interface or block device '%s' on this machine",
		       s->file, s->where, name);
}

static int irq_emit(struct np_ctx *ctx, const struct np_machine *m, const struct np_target_wanted *s,
		    const struct np_irq *irq, np_target_emit *emit, void *arg)
{
	const char *dev = irq->dev >= 0 ? m->pci.devs[irq->dev].addr : "no device";
	if (irq->managed != NP_MANAGED_NO)
		return np_fail(ctx, -EINVAL,
			       "%s: %s: irq %d (%s) of %s is managed%s: the kernel owns its affinity and refuses changes",
			       s->file, s->where, irq->irq, irq->name, dev,
			       irq->managed == NP_MANAGED_INFERRED ? " (its driver uses managed vectors)" : "");
	struct np_target t = { .irq = irq->irq, .queue = -1, .device = dev, .vector = irq->name };
	return emit(arg, &t);
}

static int irq_resolve(struct np_ctx *ctx, const struct np_machine *m, const struct np_target_wanted *s,
		       np_target_emit *emit, void *arg)
{
	const struct np_target *want = &s->target;
	if (!want->device) {
		/* The explicit fallback: an IRQ number, valid for this boot only. */
		struct np_irq *irq = np_irqs_find((struct np_irqs *)&m->irqs, want->irq);
		return irq ? irq_emit(ctx, m, s, irq, emit, arg)
			   : np_fail(ctx, -EINVAL, "%s: %s.irq: no IRQ %d on this machine", s->file, s->where, want->irq);
	}
	int dev = find_device(ctx, m, s), rc = 0, found = 0;
	if (dev < 0)
		return dev;
	for (size_t i = 0; rc == 0 && i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev != dev || (want->vector ? strcmp(irq->name, want->vector) != 0 : irq->queue != want->queue))
			continue;
		found++;
		rc = irq_emit(ctx, m, s, irq, emit, arg);
	}
	if (rc || found)
		return rc;
	if (want->vector)
		return np_fail(ctx, -EINVAL, "%s: %s.vector: %s has no IRQ named '%s'", s->file, s->where,
			       m->pci.devs[dev].addr, want->vector);
	return np_fail(ctx, -EINVAL, "%s: %s.queue: %s has no IRQ for queue %d", s->file, s->where,
		       m->pci.devs[dev].addr, want->queue);
}

static char *irq_describe(const struct np_target *t)
{
	if (!t->device)
		return text("irq %d", t->irq);
	if (t->vector)
		return text("%s vector %s", t->device, t->vector);
	return text("%s queue %d", t->device, t->queue);
}

/* A queue number names one IRQ only when no other vector of the device has it. */
static bool queue_is_unique(const struct np_machine *m, const char *device, int queue)
{
	const struct np_pci_dev *d = np_pci_find(&m->pci, device);
	int n = 0, dev = d ? (int)(d - m->pci.devs) : -1;
	for (size_t i = 0; dev >= 0 && i < m->irqs.n; i++)
		n += m->irqs.v[i].dev == dev && m->irqs.v[i].queue == queue;
	return n == 1;
}

static int irq_identify(const struct np_machine *m, const struct np_target *t, struct np_target *out)
{
	bool oom = false;
	*out = NP_TARGET_NONE;
	if (!t->device) {
		out->irq = t->irq;
		return 0;
	}
	out->device = dup_or_null(t->device, &oom);
	if (t->queue >= 0 && queue_is_unique(m, t->device, t->queue))
		out->queue = t->queue;
	else
		out->vector = dup_or_null(t->vector, &oom);
	return oom ? -ENOMEM : 0;
}

const struct np_target_class np_target_irq = {
	.name = "irq", .keys = irq_keys,
	.parse = irq_parse, .to_json = irq_to_json, .resolve = irq_resolve,
	.describe = irq_describe, .identify = irq_identify,
};

/* ---- net queue: an interface's receive or transmit queue ---- */

static const char *const queue_keys[] = { "net", "queue", NULL };

static int queue_parse(struct np_setting_reader *r, const cJSON *const *f, struct np_target *t)
{
	char *net = NULL;
	if (!f[0])
		return np_reader_missing(r, "net", "an interface such as \"eth0\"");
	int rc = np_reader_name(r, f[0], "net", "an interface such as \"eth0\"", false, &net);
	t->net = net;
	if (rc)
		return rc;
	if (!f[1])
		return np_reader_missing(r, "queue", QUEUE_EXPECTED);
	return np_reader_int(r, f[1], "queue", 0, MAX_INDEX, QUEUE_EXPECTED, &t->queue);
}

static bool queue_to_json(cJSON *o, const struct np_target *t)
{
	return add_str(o, "net", t->net) && add_int(o, "queue", t->queue);
}

static int queue_resolve(struct np_ctx *ctx, const struct np_machine *m, const struct np_target_wanted *s,
			 np_target_emit *emit, void *arg)
{
	(void)m;
	const struct np_target *t = &s->target;
	char *path = NULL;
	int rc;
	if (!safe_name(t->net) || !np_sysfs_exists(ctx, "/sys/class/net/%s", t->net))
		return np_fail(ctx, -EINVAL, "%s: %s.net: no interface '%s' on this machine", s->file, s->where, t->net);
	/* Which way the queue goes is in the row's path ("rx-{queue}", "tx-{queue}"). */
	if (t->queue < 0 || !(path = np_attr_path(s->kind, t)) || !np_sysfs_exists(ctx, "%s", path))
		rc = np_fail(ctx, -EINVAL, "%s: %s.queue: %s has no %s queue %d with %s", s->file, s->where, t->net,
			     strstr(np_attrs[s->kind].path, "/rx-") ? "receive" : "transmit", t->queue,
			     np_attr_name(s->kind));
	else
		rc = emit(arg, t);
	free(path);
	return rc;
}

static char *queue_describe(const struct np_target *t)
{
	return text("%s queue %d", t->net, t->queue);
}

static int queue_identify(const struct np_machine *m, const struct np_target *t, struct np_target *out)
{
	(void)m;
	bool oom = false;
	*out = NP_TARGET_NONE;
	out->net = dup_or_null(t->net, &oom);
	out->queue = t->queue;
	return oom ? -ENOMEM : 0;
}

const struct np_target_class np_target_net_queue = {
	.name = "net queue", .keys = queue_keys,
	.parse = queue_parse, .to_json = queue_to_json, .resolve = queue_resolve,
	.describe = queue_describe, .identify = queue_identify,
};

/* ---- interface: a network interface as a whole (its channels) ---- */

static const char *const netif_keys[] = { "net", NULL };

static int netif_parse(struct np_setting_reader *r, const cJSON *const *f, struct np_target *t)
{
	char *net = NULL;
	if (!f[0])
		return np_reader_missing(r, "net", "an interface such as \"eth0\"");
	int rc = np_reader_name(r, f[0], "net", "an interface such as \"eth0\"", false, &net);
	t->net = net;
	return rc;
}

static bool netif_to_json(cJSON *o, const struct np_target *t)
{
	return add_str(o, "net", t->net);
}

static int netif_resolve(struct np_ctx *ctx, const struct np_machine *m, const struct np_target_wanted *s,
			 np_target_emit *emit, void *arg)
{
	(void)m;
	const struct np_target *t = &s->target;
	if (!safe_name(t->net) || !np_sysfs_exists(ctx, "/sys/class/net/%s", t->net))
		return np_fail(ctx, -EINVAL, "%s: %s.net: no interface '%s' on this machine", s->file, s->where, t->net);
	return emit(arg, t);
}

static char *netif_describe(const struct np_target *t)
{
	return text("%s", t->net);
}

static int netif_identify(const struct np_machine *m, const struct np_target *t, struct np_target *out)
{
	(void)m;
	bool oom = false;
	*out = NP_TARGET_NONE;
	out->net = dup_or_null(t->net, &oom);
	return oom ? -ENOMEM : 0;
}

const struct np_target_class np_target_netif = {
	.name = "interface", .keys = netif_keys,
	.parse = netif_parse, .to_json = netif_to_json, .resolve = netif_resolve,
	.describe = netif_describe, .identify = netif_identify,
};

/* ---- block: a block device ---- */

static const char *const block_keys[] = { "block", NULL };

static int block_parse(struct np_setting_reader *r, const cJSON *const *f, struct np_target *t)
{
	char *block = NULL;
	if (!f[0])
		return np_reader_missing(r, "block", "a block device such as \"sda\"");
	int rc = np_reader_name(r, f[0], "block", "a block device such as \"sda\"", false, &block);
	t->block = block;
	return rc;
}

static bool block_to_json(cJSON *o, const struct np_target *t)
{
	return add_str(o, "block", t->block);
}

static int block_resolve(struct np_ctx *ctx, const struct np_machine *m, const struct np_target_wanted *s,
			 np_target_emit *emit, void *arg)
{
	(void)m;
	const struct np_target *t = &s->target;
	char *path = NULL;
	int rc;
	if (!safe_name(t->block) || !(path = np_attr_path(s->kind, t)) || !np_sysfs_exists(ctx, "%s", path))
		rc = np_fail(ctx, -EINVAL, "%s: %s.block: no block device '%s' with %s on this machine", s->file,
			     s->where, t->block, np_attr_name(s->kind));
	else
		rc = emit(arg, t);
	free(path);
	return rc;
}

static char *block_describe(const struct np_target *t)
{
	return text("%s", t->block);
}

static int block_identify(const struct np_machine *m, const struct np_target *t, struct np_target *out)
{
	(void)m;
	bool oom = false;
	*out = NP_TARGET_NONE;
	out->block = dup_or_null(t->block, &oom);
	return oom ? -ENOMEM : 0;
}

const struct np_target_class np_target_block = {
	.name = "block", .keys = block_keys,
	.parse = block_parse, .to_json = block_to_json, .resolve = block_resolve,
	.describe = block_describe, .identify = block_identify,
};

/* ---- machine: one file for the whole machine ---- */

static const char *const machine_keys[] = { NULL };

static int machine_parse(struct np_setting_reader *r, const cJSON *const *f, struct np_target *t)
{
	(void)r;
	(void)f;
	*t = NP_TARGET_NONE;
	return 0;
}

static bool machine_to_json(cJSON *o, const struct np_target *t)
{
	(void)o;
	(void)t;
	return true;
}

static int machine_resolve(struct np_ctx *ctx, const struct np_machine *m, const struct np_target_wanted *s,
			   np_target_emit *emit, void *arg)
{
	(void)m;
	/* A file every kernel with the feature has. */
	struct np_target t = NP_TARGET_NONE;
	char *path = np_attr_path(s->kind, &t);
	int rc;
	if (!path || !np_sysfs_exists(ctx, "%s", path))
		rc = np_fail(ctx, -EINVAL, "%s: %s.kind: this machine has no %s ('%s')", s->file, s->where,
			     np_attr_name(s->kind), path ? path : np_attrs[s->kind].path);
	else
		rc = emit(arg, &t);
	free(path);
	return rc;
}

static char *machine_describe(const struct np_target *t)
{
	(void)t;
	return strdup("the machine");
}

static int machine_identify(const struct np_machine *m, const struct np_target *t, struct np_target *out)
{
	(void)m;
	(void)t;
	*out = NP_TARGET_NONE;
	return 0;
}

const struct np_target_class np_target_machine = {
	.name = "machine", .keys = machine_keys,
	.parse = machine_parse, .to_json = machine_to_json, .resolve = machine_resolve,
	.describe = machine_describe, .identify = machine_identify,
};

/* ---- thread: one thread of a process, named by its TID and its start time ---- */

static const char *const thread_keys[] = { "pid", "tid", "start", NULL };

static int thread_parse(struct np_setting_reader *r, const cJSON *const *f, struct np_target *t)
{
	int rc;
	/* f: pid, tid, start */
	if (!f[0] || !f[1] || !f[2])
		return np_reader_missing(r, !f[0] ? "pid" : !f[1] ? "tid" : "start",
					 "a thread's \"pid\", \"tid\" and \"start\" (its start time, "
					 "field 22 of /proc/PID/task/TID/stat)");
	if ((rc = np_reader_int(r, f[0], "pid", 1, INT_MAX, "a process id", &t->pid)) ||
	    (rc = np_reader_int(r, f[1], "tid", 1, INT_MAX, "a thread id", &t->tid)))
		return rc;
	/* Clock ticks since boot outgrow an int after 248 days at 100 Hz; a
	 * JSON number holds them exactly up to 2^53. */
	double v = cJSON_IsNumber(f[2]) ? f[2]->valuedouble : -1;
	if (v < 0 || v > 9007199254740992.0 || v != (double)(unsigned long long)v)
		return np_reader_fail(r, "start", "expected a thread's start time in clock ticks (a whole number)");
	t->start = (unsigned long long)v;
	return 0;
}

static bool thread_to_json(cJSON *o, const struct np_target *t)
{
	return add_int(o, "pid", t->pid) && add_int(o, "tid", t->tid) &&
	       cJSON_AddNumberToObject(o, "start", (double)t->start);
}

static int thread_resolve(struct np_ctx *ctx, const struct np_machine *m, const struct np_target_wanted *s,
			  np_target_emit *emit, void *arg)
{
	(void)m;
	char *path = np_attr_path(s->kind, &s->target), *cur = NULL;
	const struct np_attr_access *a = np_attrs[s->kind].access;
	int rc = path && a ? a->read(ctx, path, &cur) : -ENOMEM;
	if (rc == -ESRCH)
		rc = np_fail(ctx, -EINVAL, "%s: %s.tid: no thread %d of process %d started at %llu on this machine "
			     "(it exited, or its TID was reused)", s->file, s->where, s->target.tid, s->target.pid,
			     s->target.start);
	else if (rc == -ENOMEM)
		rc = np_fail(ctx, rc, "%s", strerror(ENOMEM));
	else if (rc == 0)
		rc = emit(arg, &s->target);
	free(cur);
	free(path);
	return rc;
}

static char *thread_describe(const struct np_target *t)
{
	return text("pid %d thread %d", t->pid, t->tid);
}

static int thread_identify(const struct np_machine *m, const struct np_target *t, struct np_target *out)
{
	(void)m;
	*out = NP_TARGET_NONE;
	out->pid = t->pid;
	out->tid = t->tid;
	out->start = t->start;
	return 0;
}

const struct np_target_class np_target_thread = {
	.name = "thread", .keys = thread_keys,
	.parse = thread_parse, .to_json = thread_to_json, .resolve = thread_resolve,
	.describe = thread_describe, .identify = thread_identify,
};
