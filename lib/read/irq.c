/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Each IRQ's state beside its counts (/proc/irq/N affinities, the managed
 * state from debugfs, the default affinity) and which PCI function and queue
 * it belongs to. The counts are lib/read/interrupts.c's. */
#include "read/irq.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "change/attr.h"
#include "read/irq-warnings.h"
#include "read/sysfs.h"

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* FILE_list (a CPU list), else FILE (a hex mask, on kernels without the
 * list form). Absent is not an error; unreadable or malformed is a warning. */
static int read_affinity(struct np_ctx *ctx, struct np_irqs *out, size_t *dropped, int irq,
			 const char *file, struct np_cpuset *set, bool *has)
{
	int rc = np_read_cpulist(ctx, set, "/proc/irq/%d/%s_list", irq, file);
	if (rc == -ENOENT)
		rc = np_read_cpumask(ctx, set, "/proc/irq/%d/%s", irq, file);
	*has = rc == 0;
	if (rc == 0 || rc == -ENOENT)
		return 0;
	np_cpuset_free(set);
	return rc == -ENOMEM ? rc : np_irqs_warn(out, dropped, "%s", ctx->err);
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The state flags the report needs, each as a whole word (not a prefix of a
 * longer one): one pass over the debugfs file for both, from one "IRQD_"
 * to the next. */
static void irqd_flags(const char *text, bool *managed, bool *pending)
{
	static const char managed_flag[] = "AFFINITY_MANAGED", pending_flag[] = "SETAFFINITY_PENDING";
	*managed = *pending = false;
	for (const char *p = text; (p = strstr(p, "IRQD_")); p++) {
		if (p != text && word_char(p[-1]))
			continue;
		const char *name = p + 5;
		size_t len = 0;
		while (word_char(name[len]))
			len++;
		if (len == sizeof(managed_flag) - 1 && !memcmp(name, managed_flag, len))
			*managed = true;
		else if (len == sizeof(pending_flag) - 1 && !memcmp(name, pending_flag, len))
			*pending = true;
	}
}

/* A mask file (lists exist only per IRQ). Absent (old kernels, roots that
 * lack it) leaves it unknown; unreadable or malformed is a warning. */
static int read_default_affinity(struct np_ctx *ctx, struct np_irqs *out, size_t *dropped)
{
	int rc = np_read_cpumask(ctx, &out->default_affinity, "%s", np_attrs[NP_ATTR_DEFAULT_IRQ_AFFINITY].path);
	out->has_default_affinity = rc == 0;
	if (rc == 0 || rc == -ENOENT)
		return 0;
	np_cpuset_free(&out->default_affinity);
	return rc == -ENOMEM ? rc : np_irqs_warn(out, dropped, "%s", ctx->err);
}

int np_irqs_read(struct np_ctx *ctx, const struct np_topology *topo, struct np_irqs *out)
{
	return np_irqs_read_split(ctx, topo, out, NULL, NULL);
}

int np_irqs_read_split(struct np_ctx *ctx, const struct np_topology *topo, struct np_irqs *out,
		       const struct np_topology *split_topo, struct np_irqs *split)
{
	int rc = np_irqs_read_counts_split(ctx, topo, out, split_topo, split);
	if (rc)
		return rc;
	size_t dropped = 0;
	out->debugfs = np_sysfs_exists(ctx, "/sys/kernel/debug/irq/irqs");
	for (size_t i = 0; i < out->n && !rc; i++) {
		struct np_irq *q = &out->v[i];
		rc = read_affinity(ctx, out, &dropped, q->irq, "smp_affinity", &q->affinity, &q->has_affinity);
		if (!rc)
			rc = read_affinity(ctx, out, &dropped, q->irq, "effective_affinity", &q->effective,
					   &q->has_effective);
		q->managed_unknown = true;
		q->move_deferred = q->chip && !strncmp(q->chip, "PCI-MSI", 7);
		if (rc || !out->debugfs)
			continue;
		char *text;
		int r = np_read_text(ctx, &text, "/sys/kernel/debug/irq/irqs/%d", q->irq);
		if (r == 0) {
			bool managed;
			irqd_flags(text, &managed, &q->move_pending);
			q->managed = managed ? NP_MANAGED_YES : NP_MANAGED_NO;
			q->managed_unknown = false;
			free(text);
		} else if (r == -ENOMEM) {
			rc = r;
		} else if (r == -EACCES || r == -EPERM) {
			/* Seen but not readable (lockdown): the managed state is not known after all. */
			out->debugfs = false;
			for (size_t j = 0; j < i; j++) {
				out->v[j].managed = NP_MANAGED_NO;
				out->v[j].managed_unknown = true;
			}
			rc = np_irqs_warn(out, &dropped, "%s", ctx->err);
		} else if (r != -ENOENT) {
			rc = np_irqs_warn(out, &dropped, "%s", ctx->err);
		}
	}
	if (!rc)
		rc = read_default_affinity(ctx, out, &dropped);
	char where[PATH_MAX];
	if (!rc && dropped && !(rc = np_sysfs_path(ctx, where, "/proc/irq")))
		rc = np_irqs_warn_dropped(out, dropped, where, "unreadable or malformed IRQ files skipped");
	if (rc) {
		if (rc == -ENOMEM)
			np_fail(ctx, rc, "reading /proc/irq: %s", strerror(ENOMEM));
		np_irqs_free(out);
		if (split_topo)
			np_irqs_free(split);
	}
	return rc;
}

/* An ASCII PCI address "DDDD:BB:DD.F" at s, not inside a longer hex run. */
static bool pci_addr_at(const char *text, const char *s)
{
	static const char shape[] = "xxxx:xx:xx.f";
	if (s > text && isxdigit((unsigned char)s[-1]))
		return false;
	for (size_t i = 0; i < sizeof(shape) - 1; i++) {
		unsigned char c = (unsigned char)s[i];
		if (shape[i] == 'x' ? !isxdigit(c) : shape[i] == 'f' ? c < '0' || c > '7' : c != shape[i])
			return false;
	}
	return !isxdigit((unsigned char)s[sizeof(shape) - 1]);
}

/* Index of a known device whose full address appears in text, -1 when none. */
static int dev_by_addr_in(const struct np_pci *pci, const char *text)
{
	if (!text)
		return -1;
	for (const char *p = text; (p = strchr(p, ':')); p++) {
		if (p - text < 4 || !pci_addr_at(text, p - 4))
			continue;
		for (size_t d = 0; d < pci->ndevs; d++)
			if (!strncasecmp(pci->devs[d].addr, p - 4, NP_PCI_ADDR_LEN - 1))
				return (int)d;
	}
	return -1;
}

/* word as a whole token of name: "virtio1" is not in "virtio12-input.0",
 * "eth1" not in "eth10-TxRx-0"; an NVMe controller is also followed by the
 * 'q' of its queue ("nvme0q3"). */
static bool has_token(const char *name, const char *word)
{
	size_t len = strlen(word);
	if (!name || !len)
		return false;
	bool nvme = !strncmp(word, "nvme", 4);
	for (const char *p = name; (p = strstr(p, word)); p++) {
		if (p > name && isalnum((unsigned char)p[-1]))
			continue;
		unsigned char after = (unsigned char)p[len];
		if (!isalnum(after) || (nvme && after == 'q' && digit(p[len + 1])))
			return true;
	}
	return false;
}

/* The device whose interface or controller name is in the action name; the
 * longest name wins, so a more specific one is preferred. */
static int dev_by_alias(const struct np_pci *pci, const char *name)
{
	int best = -1;
	size_t best_len = 0;
	for (size_t d = 0; d < pci->ndevs; d++) {
		const struct np_pci_dev *dev = &pci->devs[d];
		for (size_t j = 0; j < dev->nnet; j++) {
			const char *w = dev->net[j].name;
			if (w && strlen(w) > best_len && has_token(name, w))
				best = (int)d, best_len = strlen(w);
		}
		for (size_t j = 0; j < dev->naliases; j++) {
			const char *w = dev->aliases[j];
			if (w && strlen(w) > best_len && has_token(name, w))
				best = (int)d, best_len = strlen(w);
		}
	}
	return best;
}

/* INTx lines are shared, so several functions can report the same irq: the
 * one whose driver named the action wins, then one not using MSI at all. */
static int dev_by_legacy(const struct np_pci *pci, const struct np_irq *q)
{
	int first = -1, no_msi = -1;
	for (size_t d = 0; d < pci->ndevs; d++) {
		const struct np_pci_dev *dev = &pci->devs[d];
		if (dev->legacy_irq <= 0 || dev->legacy_irq != q->irq)
			continue;
		if (dev->driver && *dev->driver && has_token(q->name, dev->driver))
			return (int)d;
		if (first < 0)
			first = (int)d;
		if (no_msi < 0 && !dev->nmsi)
			no_msi = (int)d;
	}
	return no_msi >= 0 ? no_msi : first;
}

static bool managed_driver(const char *drv)
{
	static const char *const known[] = {
		"nvme", "virtio_blk", "virtio-blk", "virtio_scsi", "megaraid_sas", "mpt3sas", "smartpqi",
	};
	for (size_t i = 0; drv && i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(drv, known[i]))
			return true;
	return false;
}

/* blk-mq maps each hardware queue to the CPUs of its vector's managed
 * affinity (blk_mq_pci_map_queues): where a device's block device has two
 * or more hardware queues and each one's cpu_list is the affinity of exactly
 * one of the device's IRQs, those IRQs are managed, whatever the driver. */
static void infer_from_blk_mq(struct np_irqs *irqs, const struct np_pci *pci)
{
	size_t *mine = malloc((irqs->n + 1) * sizeof(*mine)), *match = NULL;
	for (size_t d = 0; mine && d < pci->ndevs; d++) {
		size_t n = 0;
		for (size_t i = 0; i < irqs->n; i++)
			if (irqs->v[i].dev == (int)d && irqs->v[i].has_affinity)
				mine[n++] = i;
		for (size_t b = 0; n && b < pci->devs[d].nblock; b++) {
			const struct np_blockdev *bd = &pci->devs[d].block[b];
			size_t nhwq = bd->nhwq > 0 ? (size_t)bd->nhwq : 0, h = 0;
			size_t *bigger = nhwq >= 2 ? realloc(match, nhwq * sizeof(*match)) : NULL;
			if (!bigger)
				continue;
			match = bigger;
			for (; h < nhwq; h++) {
				size_t found = 0;
				for (size_t k = 0; k < n && found < 2; k++)
					if (np_cpuset_equal(&irqs->v[mine[k]].affinity, &bd->hwq_cpus[h]))
						match[h] = mine[k], found++;
				if (found != 1)
					break;
			}
			for (size_t k = 0; h == nhwq && k < nhwq; k++) {
				struct np_irq *q = &irqs->v[match[k]];
				if (q->managed_unknown) {
					q->managed = NP_MANAGED_INFERRED;
					q->managed_unknown = false;
				}
			}
		}
	}
	free(match);
	free(mine);
}

/* irqs->of_dev, by a counting sort of the tied IRQs: a device's loops then
 * look at its own, not at every IRQ of the machine (64 devices x 4000 IRQs,
 * several times each, on a 1024-CPU machine). Without memory, no index. */
static void index_devices(struct np_irqs *irqs, size_t ndevs)
{
	free(irqs->dev_start);
	free(irqs->of_dev);
	irqs->dev_start = calloc(ndevs + 2, sizeof(*irqs->dev_start));
	irqs->of_dev = malloc((irqs->n + 1) * sizeof(*irqs->of_dev));
	irqs->ndevs = ndevs;
	if (!irqs->dev_start || !irqs->of_dev) {
		free(irqs->dev_start);
		free(irqs->of_dev);
		irqs->dev_start = irqs->of_dev = NULL;
		return;
	}
	for (size_t i = 0; i < irqs->n; i++)
		if (irqs->v[i].dev >= 0 && (size_t)irqs->v[i].dev < ndevs)
			irqs->dev_start[irqs->v[i].dev + 2]++;
	for (size_t d = 2; d <= ndevs + 1; d++)
		irqs->dev_start[d] += irqs->dev_start[d - 1];
	for (size_t i = 0; i < irqs->n; i++)
		if (irqs->v[i].dev >= 0 && (size_t)irqs->v[i].dev < ndevs)
			irqs->of_dev[irqs->dev_start[irqs->v[i].dev + 1]++] = i;
}

void np_irqs_tie(struct np_irqs *irqs, const struct np_pci *pci)
{
	for (size_t i = 0; i < irqs->n; i++) {
		struct np_irq *q = &irqs->v[i];
		q->dev = -1;
		q->tie = NP_TIE_NONE;
		q->queue = np_irq_queue_from_name(q->name);
		if (q->managed == NP_MANAGED_INFERRED)
			q->managed = NP_MANAGED_NO;
	}
	/* msi_irqs first, by lookup, so the cost follows the vectors, not IRQs x devices. */
	for (size_t d = 0; d < pci->ndevs; d++) {
		for (size_t j = 0; j < pci->devs[d].nmsi; j++) {
			struct np_irq *q = np_irqs_find(irqs, pci->devs[d].msi_irqs[j]);
			if (q && q->dev < 0) {
				q->dev = (int)d;
				q->tie = NP_TIE_MSI_IRQS;
			}
		}
	}
	for (size_t i = 0; i < irqs->n; i++) {
		struct np_irq *q = &irqs->v[i];
		int d;
		if (q->dev >= 0)
			continue;
		if ((d = dev_by_addr_in(pci, q->chip)) >= 0)
			q->tie = NP_TIE_CHIP;
		else if ((d = dev_by_addr_in(pci, q->name)) >= 0)
			q->tie = NP_TIE_NAME_ADDR;
		else if (q->name && (d = dev_by_alias(pci, q->name)) >= 0)
			q->tie = NP_TIE_NAME_ALIAS;
		else if (!(q->chip && strstr(q->chip, "MSI")) && (d = dev_by_legacy(pci, q)) >= 0)
			q->tie = NP_TIE_LEGACY;
		q->dev = d;
	}
	index_devices(irqs, pci->ndevs);
	if (irqs->debugfs)
		return;
	for (size_t i = 0; i < irqs->n; i++) {
		struct np_irq *q = &irqs->v[i];
		if (q->dev < 0 || q->queue < 0 || q->managed != NP_MANAGED_NO)
			continue;
		const struct np_pci_dev *dev = &pci->devs[q->dev];
		if (managed_driver(dev->driver) || managed_driver(dev->child_driver)) {
			q->managed = NP_MANAGED_INFERRED;
			q->managed_unknown = false;
		}
	}
	infer_from_blk_mq(irqs, pci);
}

int np_irq_queue_from_name(const char *name)
{
	if (!name)
		return -1;
	/* "mlx5_comp3@pci:0000:af:00.0": the part after '@' is the device. */
	const char *end = strchr(name, '@');
	if (!end)
		end = name + strlen(name);
	const char *d = end;
	while (d > name && digit(d[-1]))
		d--;
	if (d == end || end - d > 9)
		return -1;
	int v = 0;
	for (const char *p = d; p < end; p++)
		v = v * 10 + (*p - '0');

	/* nvmeNqM; q0 is the admin queue. */
	if (!strncmp(name, "nvme", 4)) {
		const char *p = name + 4;
		while (p < d && digit(*p))
			p++;
		if (p > name + 4 && p + 1 == d && *p == 'q')
			return v ? v : -1;
	}
	size_t pre = (size_t)(d - name);
	if (pre >= 4 && (!memcmp(d - 4, "msix", 4) || !memcmp(d - 4, "comp", 4)))
		return v;
	if (pre && (d[-1] == '-' || d[-1] == '.')) {
		/* The function number of a PCI address ("ice-0000:4b:00.0") is no queue. */
		if (d[-1] == '.' && pre >= 11 && pci_addr_at(name, d - 11))
			return -1;
		return v;
	}
	return -1;
}
