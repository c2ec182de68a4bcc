/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A thread's CPU affinity as a value of the transaction engine (the access
 * method of the thread_affinity row, attr.h): read and written by
 * sched_getaffinity/sched_setaffinity, never a file. The value's "path"
 * names the thread by (pid, TID, start time); a thread whose TID now
 * belongs to a newer thread (another start time) is gone, as one that
 * exited: -ESRCH, which apply and revert skip and say. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "change/attr.h"
#include "read/sysfs.h"
#include "read/task.h"

static int thread_of(struct np_ctx *ctx, const char *path, struct np_target *t)
{
	*t = NP_TARGET_NONE;
	if (np_attr_match(path, t) != NP_ATTR_THREAD_AFFINITY) {
		np_target_free(t);
		return np_fail(ctx, -EINVAL, "'%s' names no thread (expected /proc/PID/task/TID@START)", path);
	}
	return 0;
}

/* -ESRCH unless the thread with t's TID is the one that started at t's time. */
static int same_thread(struct np_ctx *ctx, const struct np_target *t)
{
	struct np_task_stat st;
	int rc = np_task_stat_read(ctx, t->pid, t->tid, &st);
	/* A zombie has exited: only its exit status is left to collect. */
	if (rc == -ENOENT || (rc == 0 && (st.start_time != t->start || st.state == 'Z' || st.state == 'X')))
		return np_fail(ctx, -ESRCH, "thread %d of process %d (started at %llu) is gone", t->tid, t->pid,
			       t->start);
	return rc;
}

/* A copy of another machine (--root) has no thread to ask: its status file
 * says what sched_getaffinity said when it was taken. */
static int read_status_cpus(struct np_ctx *ctx, const struct np_target *t, struct np_cpuset *out)
{
	static const char key[] = "\nCpus_allowed_list:";
	char *text = NULL;
	int rc = np_read_text(ctx, &text, "/proc/%d/task/%d/status", t->pid, t->tid);
	if (rc == -ENOENT)
		return np_fail(ctx, -ESRCH, "thread %d of process %d is gone", t->tid, t->pid);
	if (rc)
		return rc;
	const char *p = strstr(text, key);
	char *end = p ? strchr(p + sizeof(key) - 1, '\n') : NULL;
	if (end)
		*end = '\0';
	if (!p || np_cpuset_parse_list(out, p + sizeof(key) - 1 + strspn(p + sizeof(key) - 1, " \t")))
		rc = np_fail(ctx, -EINVAL, "/proc/%d/task/%d/status: no Cpus_allowed_list line with a CPU list",
			     t->pid, t->tid);
	free(text);
	return rc;
}

static int affinity_read(struct np_ctx *ctx, const char *path, char **out)
{
	struct np_target t;
	struct np_cpuset set = NP_CPUSET_INIT;
	int rc = thread_of(ctx, path, &t);
	*out = NULL;
	if (rc)
		return rc;
	/* Asked between two looks at its start time: a TID taken over in
	 * between reads as gone, never as the newcomer's CPUs. */
	if (!(rc = same_thread(ctx, &t)))
		rc = *ctx->root ? read_status_cpus(ctx, &t, &set) : np_task_get_affinity(ctx, t.tid, &set);
	if (!rc)
		rc = same_thread(ctx, &t);
	if (!rc && !(*out = np_cpuset_format_list(&set)))
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	np_cpuset_free(&set);
	np_target_free(&t);
	return rc;
}

static int affinity_write(struct np_ctx *ctx, const char *path, const char *value)
{
	struct np_target t;
	struct np_cpuset set = NP_CPUSET_INIT;
	int rc = thread_of(ctx, path, &t);
	if (rc)
		return rc;
	if (np_cpuset_parse_list(&set, value) || np_cpuset_empty(&set))
		rc = np_fail(ctx, -EINVAL, "'%s' is no CPU list a thread can run on", value);
	else if (*ctx->root)
		rc = np_fail(ctx, -EXDEV, "thread %d of process %d is another machine's (--root '%s'): "
			     "only a thread of this machine can be moved", t.tid, t.pid, ctx->root);
	else if (!(rc = same_thread(ctx, &t)))
		rc = np_task_set_affinity(ctx, t.tid, &set);
	np_cpuset_free(&set);
	np_target_free(&t);
	return rc;
}

const struct np_attr_access np_access_thread_affinity = {
	.read = affinity_read,
	.write = affinity_write,
};
