/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A thread's CPU affinity as a value of the transaction engine (the access
 * method of the thread_affinity and process_affinity rows, attr.h): read
 * and written by sched_getaffinity/sched_setaffinity, never a file. The
 * value's "path" names the thread by (pid, TID, start time), or the
 * process by (pid, start time), its main thread's; a thread whose TID now
 * belongs to a newer thread (another start time) is gone, as one that
 * exited: -ESRCH, which apply and revert skip and say.
 *
 * A move's revert (revert_more) also restores the threads the move never
 * saw: those started since, which took the moved CPUs from the thread that
 * started them; its journal's process row says what the process had before
 * the move, and which process it was. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "change/attr.h"
#include "read/sysfs.h"
#include "read/task.h"

static int thread_of(struct np_ctx *ctx, const char *path, struct np_target *t)
{
	*t = NP_TARGET_NONE;
	int attr = np_attr_match(path, t);
	if (attr == NP_ATTR_PROCESS_AFFINITY) {
		t->tid = t->pid; /* its main thread */
		return 0;
	}
	if (attr != NP_ATTR_THREAD_AFFINITY) {
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

/* A thread (or process) row's thread: its ids as the path says them. */
static bool thread_row(const struct np_change *c, int *pid, int *tid)
{
	if (c->attr != NP_ATTR_THREAD_AFFINITY && c->attr != NP_ATTR_PROCESS_AFFINITY)
		return false;
	*pid = c->target.pid;
	*tid = c->attr == NP_ATTR_PROCESS_AFFINITY ? c->target.pid : c->target.tid;
	return true;
}

static bool journaled(const struct np_change *changes, size_t n, int pid, const struct np_task_stat *t)
{
	int p, tid;
	for (size_t i = 0; i < n; i++)
		if (thread_row(&changes[i], &p, &tid) && p == pid && tid == t->tid && changes[i].target.start == t->start_time)
			return true;
	return false;
}

/* 1 when the thread of row c is under the root with its start time, 0
 * when it is not (absent, or another thread has its TID), or -errno. */
static int there(struct np_ctx *ctx, const struct np_change *c)
{
	struct np_task_stat st;
	int pid, tid;
	if (!thread_row(c, &pid, &tid))
		return 0;
	int rc = np_task_stat_read(ctx, pid, tid, &st);
	return rc == -ENOENT ? 0 : rc ? rc : st.start_time == c->target.start;
}

/* Under a root, the threads must be those the journal names (the process
 * itself, when it has its row): a copy where they are absent, or where
 * others have their ids, is not the machine they were moved on, and their
 * revert would mark every one gone while the real ones stay moved. On this
 * machine a thread gone is gone: said so. */
static int on_this_machine(struct np_ctx *ctx, const struct np_change *changes, size_t n,
			   const struct np_change *process)
{
	char saved[sizeof(ctx->err)];
	int pid = 0, tid, rc = 0;
	if (!*ctx->root)
		return 0;
	memcpy(saved, ctx->err, sizeof(saved));
	if (process)
		rc = there(ctx, process);
	for (size_t i = 0; !process && i < n && rc != 1; i++) {
		int r = there(ctx, &changes[i]);
		rc = r ? r : rc;
	}
	if (rc < 0)
		return rc; /* a stat file unreadable: its detail said */
	memcpy(ctx->err, saved, sizeof(saved));
	if (rc == 1)
		return 0;
	for (size_t i = 0; !pid && i < n; i++)
		thread_row(process ? process : &changes[i], &pid, &tid);
	if (!pid)
		return 0; /* no thread of a process in it */
	return np_fail(ctx, -EXDEV, "process %d%s is not under --root '%s' (no such process, or another has its "
		       "PID): the move was made on another machine; its transaction is left as it is, for a revert "
		       "there", pid, process ? " (as it started)" : "'s threads", ctx->root);
}

static int affinity_revert_more(struct np_ctx *ctx, const struct np_change *changes, size_t n,
				struct np_change **more, size_t *nmore)
{
	const struct np_change *process = NULL;
	struct np_task_stat *now = NULL;
	size_t nnow = 0;
	*more = NULL;
	*nmore = 0;
	for (size_t i = 0; i < n && !process; i++)
		if (changes[i].attr == NP_ATTR_PROCESS_AFFINITY)
			process = &changes[i];
	int rc = on_this_machine(ctx, changes, n, process);
	if (rc || !process)
		return rc; /* no move's process row: nothing to add */
	int pid = process->target.pid;
	if ((rc = np_tasks_read(ctx, pid, &now, &nnow)) == -ENOENT || (rc == 0 && !nnow)) {
		free(now);
		ctx->err[0] = '\0';
		return 0; /* gone: its journaled threads are said so */
	}
	if (rc)
		return rc;
	struct np_change *out = calloc(nnow, sizeof(*out));
	if (!out)
		rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	for (size_t i = 0; i < nnow && !rc; i++) {
		const struct np_task_stat *t = &now[i];
		/* Not journaled: started since the move (or during it, from a
		 * thread moved already, with the moved CPUs then). Its CPUs before
		 * are the process's: where its starter ran before the move. */
		if (t->state == 'Z' || t->state == 'X' || journaled(changes, n, pid, t))
			continue;
		struct np_target target = NP_TARGET_NONE;
		target.pid = pid;
		target.tid = t->tid;
		target.start = t->start_time;
		struct np_change *c = &out[*nmore];
		if (np_change_make(c, NP_ATTR_THREAD_AFFINITY, &target, process->new_value) ||
		    !(c->old_value = strdup(process->old_value))) {
			np_change_free(c);
			rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
			break;
		}
		c->added = true;
		(*nmore)++;
	}
	free(now);
	if (rc) {
		for (size_t i = 0; i < *nmore; i++)
			np_change_free(&out[i]);
		free(out);
		*nmore = 0;
		return rc;
	}
	if (*nmore)
		*more = out;
	else
		free(out);
	return 0;
}

const struct np_attr_access np_access_thread_affinity = {
	.read = affinity_read,
	.write = affinity_write,
	.revert_more = affinity_revert_more,
};
