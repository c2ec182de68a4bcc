/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/cpu-load.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/sysfs.h"

/* Softirqs raised for devices' work: receive and transmit completion
 * (NET_RX, NET_TX), block completion (BLOCK), polled completions
 * (IRQ_POLL) and the tasklets drivers defer to (HI, TASKLET). The rest
 * (TIMER, SCHED, HRTIMER, RCU) run whatever the devices do. */
static bool device_softirq(const char *name, size_t len)
{
	static const char *const names[] = { "HI", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len))
			return true;
	return false;
}

static int malformed(struct np_ctx *ctx, const char *file, int line)
{
	snprintf(ctx->err, sizeof(ctx->err), "%s: line %d is not what the kernel writes there", file, line);
	return -EINVAL;
}

/* The decimal number at *p, as strtoull reads one (saturated past 64
 * bits), without its locale and sign handling (a call a count, 20,000 of
 * them on 1024 CPUs): false when no digit is there. */
static bool decimal(const char **p, unsigned long long *v)
{
	const char *q = *p;
	if (*q < '0' || *q > '9')
		return false;
	unsigned long long n = 0;
	bool over = false;
	for (; *q >= '0' && *q <= '9'; q++)
		over = over || __builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, (unsigned)(*q - '0'), &n);
	*v = over ? ULLONG_MAX : n;
	*p = q;
	return true;
}

/* The next number of a line after blanks. By hand, not sscanf: sscanf
 * takes the length of all the text after the line (/proc/softirqs' 1024
 * columns: 61 M bytes measured on a 1024-CPU machine, with /proc/stat's
 * lines). */
static bool next_number(const char **p, unsigned long long *v)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
	return decimal(p, v);
}

/* "cpuN user nice system idle iowait irq softirq steal ..." */
static int parse_stat(struct np_ctx *ctx, const struct np_topology *topo, const char *text, struct np_cpu_load *out)
{
	int line = 0;
	for (const char *p = text; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		line++;
		if (strncmp(p, "cpu", 3) || p[3] < '0' || p[3] > '9')
			continue;
		/* "cpuN" then the times, plain decimal numbers (sscanf's %llu would
		 * take "-1" as a huge count). Kernels before 2.6.11 print no steal
		 * column: 7 times at least. */
		const char *q = p + 3, *end = p + strcspn(p, "\n");
		unsigned long long v[8] = { 0 }, cpu = 0;
		int got = -1;
		while (q < end && got < 8) {
			unsigned long long n;
			if (!decimal(&q, &n))
				break;
			if (got < 0)
				cpu = n;
			else
				v[got] = n;
			got++;
			while (q < end && *q == ' ')
				q++;
		}
		if (got < 7)
			return malformed(ctx, "/proc/stat", line);
		if (cpu > (unsigned long long)topo->max_cpu)
			continue;
		struct np_cpu_time *t = &out->cpu[cpu];
		t->irq = v[5];
		t->softirq = v[6];
		t->all = 0;
		for (int i = 0; i < 8; i++)
			if (__builtin_add_overflow(t->all, v[i], &t->all))
				return malformed(ctx, "/proc/stat", line);
	}
	return 0;
}

/* A header of CPUn columns, then "NAME: count count ..." rows. */
static int parse_softirqs(struct np_ctx *ctx, const struct np_topology *topo, const char *text,
			  struct np_cpu_load *out)
{
	size_t ncols = 0, cap = 0;
	int *cols = NULL, line = 1, rc = 0;
	const char *p = text;
	for (const char *h = p; *h && *h != '\n';) {
		unsigned long long cpu;
		while (*h == ' ' || *h == '\t')
			h++;
		if (*h == '\n' || !*h)
			break;
		if (strncmp(h, "CPU", 3) || (h += 3, !next_number(&h, &cpu))) {
			free(cols);
			return malformed(ctx, "/proc/softirqs", 1);
		}
		if (ncols == cap) {
			int *more = realloc(cols, (cap = cap ? 2 * cap : 64) * sizeof(*cols));
			if (!more) {
				free(cols);
				return -ENOMEM;
			}
			cols = more;
		}
		cols[ncols++] = cpu > INT_MAX ? -1 : (int)cpu;
	}
	p += strcspn(p, "\n");
	while (rc == 0 && *p == '\n' && p[1]) {
		p++;
		line++;
		while (*p == ' ')
			p++;
		size_t nlen = strcspn(p, ": \n");
		if (p[nlen] != ':') {
			rc = malformed(ctx, "/proc/softirqs", line);
			break;
		}
		bool dev = device_softirq(p, nlen);
		p += nlen + 1;
		for (size_t c = 0; c < ncols; c++) {
			unsigned long long n;
			if (!next_number(&p, &n))
				break;
			if (cols[c] < 0 || cols[c] > topo->max_cpu)
				continue;
			out->cpu[cols[c]].softirqs += n;
			if (dev)
				out->cpu[cols[c]].dev_softirqs += n;
		}
		p += strcspn(p, "\n");
	}
	free(cols);
	out->has_softirqs = rc == 0;
	return rc;
}

int np_cpu_load_parse(struct np_ctx *ctx, const struct np_topology *topo, const char *uptime, const char *stat,
		      const char *softirqs, struct np_cpu_load *out)
{
	memset(out, 0, sizeof(*out));
	if (uptime && (sscanf(uptime, "%lf", &out->uptime) != 1 || !(out->uptime > 0)))
		out->uptime = 0;
	out->seconds = out->uptime;
	if (!stat)
		return 0;
	out->ncpu = topo->max_cpu + 1;
	if (!(out->cpu = calloc((size_t)out->ncpu, sizeof(*out->cpu))))
		return -ENOMEM;
	int rc = parse_stat(ctx, topo, stat, out);
	if (rc == 0 && softirqs)
		rc = parse_softirqs(ctx, topo, softirqs, out);
	if (rc)
		np_cpu_load_free(out);
	return rc;
}

/* The file's text, NULL when it is absent or unreadable (a partial copy). */
static char *read_optional(struct np_ctx *ctx, const char *path, int *rc)
{
	char *text = NULL;
	size_t len;
	int r = np_read_bytes(ctx, &text, &len, "%s", path);
	if (r == -ENOMEM)
		*rc = r;
	ctx->err[0] = '\0';
	return r ? NULL : text;
}

int np_cpu_load_read(struct np_ctx *ctx, const struct np_topology *topo, struct np_cpu_load *out)
{
	int rc = 0;
	memset(out, 0, sizeof(*out));
	char *up = read_optional(ctx, "/proc/uptime", &rc);
	char *stat = rc ? NULL : read_optional(ctx, "/proc/stat", &rc);
	char *softirqs = rc ? NULL : read_optional(ctx, "/proc/softirqs", &rc);
	if (rc == 0)
		rc = np_cpu_load_parse(ctx, topo, up, stat, softirqs, out);
	free(up);
	free(stat);
	free(softirqs);
	return rc;
}

static unsigned long long since(unsigned long long before, unsigned long long after)
{
	return after >= before ? after - before : 0;
}

void np_cpu_load_delta(struct np_cpu_load *before, const struct np_cpu_load *after, double seconds)
{
	before->seconds = seconds;
	before->sampled = true;
	if (!after->cpu || after->ncpu != before->ncpu || after->has_softirqs != before->has_softirqs) {
		free(before->cpu);
		before->cpu = NULL;
		before->ncpu = 0;
		return;
	}
	for (int c = 0; before->cpu && c < before->ncpu; c++) {
		struct np_cpu_time *b = &before->cpu[c];
		const struct np_cpu_time *a = &after->cpu[c];
		b->irq = since(b->irq, a->irq);
		b->softirq = since(b->softirq, a->softirq);
		b->all = since(b->all, a->all);
		b->dev_softirqs = since(b->dev_softirqs, a->dev_softirqs);
		b->softirqs = since(b->softirqs, a->softirqs);
	}
}

void np_cpu_load_free(struct np_cpu_load *l)
{
	free(l->cpu);
	l->cpu = NULL;
	l->ncpu = 0;
}

double np_cpu_irq_share(const struct np_cpu_load *l, int cpu)
{
	if (!l->cpu || cpu < 0 || cpu >= l->ncpu || !l->cpu[cpu].all)
		return -1;
	const struct np_cpu_time *t = &l->cpu[cpu];
	double soft = (double)t->softirq;
	if (l->has_softirqs)
		soft = t->softirqs ? soft * (double)t->dev_softirqs / (double)t->softirqs : 0;
	double share = ((double)t->irq + soft) / (double)t->all;
	/* The times are parts of all: more says the counts are not what the
	 * kernel keeps (a reset between two reads of an interval). */
	return share <= 1 ? share : -1;
}

double np_cpu_load_rate(const struct np_cpu_load *l, unsigned long long count)
{
	return l->seconds > 0 ? (double)count / l->seconds : -1;
}
