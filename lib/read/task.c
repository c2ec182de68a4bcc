/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/task.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "read/sysfs.h"

/* The last field read (processor); the kernel has written it since 2.2. */
#define LAST_FIELD 39

/* One unsigned decimal field, the whole token. */
static bool field_ull(const char *tok, size_t len, unsigned long long *out)
{
	if (len == 0 || len > 20)
		return false;
	unsigned long long v = 0;
	for (size_t i = 0; i < len; i++) {
		if (tok[i] < '0' || tok[i] > '9')
			return false;
		unsigned d = (unsigned)(tok[i] - '0');
		if (v > (ULLONG_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

int np_task_stat_parse(struct np_ctx *ctx, const char *text, const char *shown, struct np_task_stat *out)
{
	memset(out, 0, sizeof(*out));
	const char *open = strchr(text, '(');
	const char *close = strrchr(text, ')');
	unsigned long long tid;
	if (!open || !close || close < open || !field_ull(text, strcspn(text, " "), &tid) || tid > INT_MAX ||
	    text + strcspn(text, " ") + 1 != open)
		return np_fail(ctx, -EINVAL, "'%s': expected 'PID (COMM) STATE ...', the kernel's stat line", shown);
	out->tid = (int)tid;
	size_t clen = (size_t)(close - open - 1);
	if (clen >= sizeof(out->comm))
		clen = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, clen);
	out->comm[clen] = '\0';

	/* Fields 3.. follow ") ", one space between each. */
	const char *p = close + 1;
	int field = 2;
	while (field < LAST_FIELD) {
		if (*p != ' ')
			break;
		p++;
		size_t len = strcspn(p, " \n");
		field++;
		unsigned long long v = 0;
		bool ok = true;
		switch (field) {
		case 3:
			ok = len == 1;
			out->state = *p;
			break;
		case 4:
			ok = field_ull(p, len, &v) && v <= INT_MAX;
			out->ppid = (int)v;
			break;
		case 9:
			ok = field_ull(p, len, &v) && v <= ULONG_MAX;
			out->flags = (unsigned long)v;
			break;
		case 14:
			ok = field_ull(p, len, &out->utime);
			break;
		case 15:
			ok = field_ull(p, len, &out->stime);
			break;
		case 22:
			ok = field_ull(p, len, &out->start_time);
			break;
		case LAST_FIELD:
			ok = field_ull(p, len, &v) && v <= INT_MAX;
			out->cpu = (int)v;
			break;
		default:
			ok = len > 0;
		}
		if (!ok)
			return np_fail(ctx, -EINVAL, "'%s': field %d of the stat line is not what the kernel writes there",
				       shown, field);
		p += len;
	}
	if (field < LAST_FIELD)
		return np_fail(ctx, -EINVAL, "'%s': the stat line ends at field %d, before field %d (processor)", shown,
			       field, LAST_FIELD);
	return 0;
}

int np_task_stat_read(struct np_ctx *ctx, int pid, int tid, struct np_task_stat *out)
{
	char *text = NULL, shown[96];
	int rc = np_read_text(ctx, &text, "/proc/%d/task/%d/stat", pid, tid);
	if (rc)
		return rc;
	snprintf(shown, sizeof(shown), "/proc/%d/task/%d/stat", pid, tid);
	rc = np_task_stat_parse(ctx, text, shown, out);
	free(text);
	return rc;
}

bool np_task_is_kthread(const struct np_task_stat *t)
{
	return t->flags & NP_PF_KTHREAD;
}

static int by_tid(const void *a, const void *b)
{
	const struct np_task_stat *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

int np_tasks_read(struct np_ctx *ctx, int pid, struct np_task_stat **tasks, size_t *count)
{
	char **names = NULL;
	size_t nnames = 0;
	*tasks = NULL;
	*count = 0;
	int rc = np_list_dir(ctx, &names, &nnames, "/proc/%d/task", pid);
	if (rc == -ENOENT && np_sysfs_exists(ctx, "/proc/%d", pid))
		return np_fail(ctx, rc, "process %d: its threads are unknown ('%s/proc/%d/task' is absent)", pid, ctx->root,
			       pid);
	if (rc == -ENOENT)
		return np_fail(ctx, rc, "no process %d ('%s/proc/%d/task' is absent)", pid, ctx->root, pid);
	if (rc)
		return rc;
	struct np_task_stat *v = calloc(nnames ? nnames : 1, sizeof(*v));
	size_t n = 0;
	if (!v)
		rc = -ENOMEM;
	for (size_t i = 0; i < nnames && rc == 0; i++) {
		unsigned long long tid;
		if (!field_ull(names[i], strlen(names[i]), &tid) || tid > INT_MAX)
			continue;
		rc = np_task_stat_read(ctx, pid, (int)tid, &v[n]);
		if (rc == 0)
			n++;
		else if (rc == -ENOENT || rc == -ESRCH)
			rc = 0; /* ended since the listing */
	}
	np_names_free(names, nnames);
	if (rc == 0 && n == 0 && !np_sysfs_exists(ctx, "/proc/%d", pid))
		rc = np_fail(ctx, -ENOENT, "no process %d ('%s/proc/%d' is absent)", pid, ctx->root, pid);
	if (rc) {
		free(v);
		return rc;
	}
	qsort(v, n, sizeof(*v), by_tid);
	*tasks = v;
	*count = n;
	return 0;
}

struct family {
	int pid, ppid;
};

int np_descendants(struct np_ctx *ctx, int pid, int **pids, size_t *count)
{
	char **names = NULL;
	size_t nnames = 0, n = 0, found = 0;
	struct family *all = NULL;
	int *out = NULL;
	*pids = NULL;
	*count = 0;
	int rc = np_list_dir(ctx, &names, &nnames, "/proc");
	if (rc)
		return rc;
	all = calloc(nnames ? nnames : 1, sizeof(*all));
	out = calloc(nnames ? nnames : 1, sizeof(*out));
	if (!all || !out)
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	for (size_t i = 0; i < nnames && rc == 0; i++) {
		unsigned long long p;
		char *text = NULL;
		struct np_task_stat st;
		if (!field_ull(names[i], strlen(names[i]), &p) || p > INT_MAX)
			continue;
		int r = np_read_text(ctx, &text, "/proc/%llu/stat", p);
		if (r == 0 && np_task_stat_parse(ctx, text, names[i], &st) == 0)
			all[n++] = (struct family){ (int)p, st.ppid };
		free(text);
	}
	np_names_free(names, nnames);
	/* Generation by generation: a child's parent is found before it is. */
	for (size_t from = 0, to = 0; rc == 0; from = to, to = found) {
		for (size_t i = 0; i < n; i++) {
			bool below = all[i].ppid == pid;
			for (size_t j = from; !below && j < to; j++)
				below = all[i].ppid == out[j];
			if (below) {
				out[found++] = all[i].pid;
				all[i].ppid = 0; /* taken */
			}
		}
		if (found == to)
			break;
	}
	free(all);
	if (rc || !found) {
		free(out);
		return rc;
	}
	*pids = out;
	*count = found;
	return 0;
}

static int live_only(struct np_ctx *ctx, int tid)
{
	if (ctx->root[0])
		return np_fail(ctx, -EXDEV, "thread %d: affinity is read and set on this machine only, not under a root (%s)",
			       tid, ctx->root);
	return 0;
}

int np_task_get_affinity(struct np_ctx *ctx, int tid, struct np_cpuset *out)
{
	int rc = live_only(ctx, tid);
	if (rc)
		return rc;
	np_cpuset_clear(out);
	/* The kernel refuses (EINVAL) a mask narrower than its nr_cpu_ids: widen until it fits. */
	for (int ncpus = 1024; ncpus <= NP_CPUSET_MAX_CPU + 1; ncpus *= 2) {
		size_t size = CPU_ALLOC_SIZE(ncpus);
		cpu_set_t *mask = CPU_ALLOC(ncpus);
		if (!mask)
			return -ENOMEM;
		CPU_ZERO_S(size, mask);
		if (sched_getaffinity(tid, size, mask) < 0) {
			int err = errno;
			CPU_FREE(mask);
			if (err == EINVAL)
				continue;
			return np_fail(ctx, -err, "thread %d: sched_getaffinity: %s", tid, strerror(err));
		}
		for (int cpu = 0; cpu < ncpus && rc == 0; cpu++)
			if (CPU_ISSET_S((size_t)cpu, size, mask))
				rc = np_cpuset_set(out, (unsigned)cpu);
		CPU_FREE(mask);
		return rc;
	}
	return np_fail(ctx, -ERANGE, "thread %d: sched_getaffinity: the kernel's CPU mask is wider than %d CPUs", tid,
		       NP_CPUSET_MAX_CPU + 1);
}

int np_task_set_affinity(struct np_ctx *ctx, int tid, const struct np_cpuset *cpus)
{
	int rc = live_only(ctx, tid);
	if (rc)
		return rc;
	int last = np_cpuset_last(cpus);
	if (last < 0)
		return np_fail(ctx, -EINVAL, "thread %d: no CPU to set its affinity to", tid);
	size_t size = CPU_ALLOC_SIZE(last + 1);
	cpu_set_t *mask = CPU_ALLOC(last + 1);
	if (!mask)
		return -ENOMEM;
	CPU_ZERO_S(size, mask);
	np_cpuset_foreach(cpu, cpus) CPU_SET_S((size_t)cpu, size, mask);
	if (sched_setaffinity(tid, size, mask) < 0) {
		int err = errno;
		char *list = np_cpuset_format_list(cpus);
		rc = np_fail(ctx, -err, "thread %d: sched_setaffinity to CPUs %s: %s", tid, list ? list : "?",
			     strerror(err));
		free(list);
	}
	CPU_FREE(mask);
	return rc;
}
