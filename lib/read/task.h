/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A process's threads (its tasks, /proc/PID/task/TID): what each one's stat
 * says, and its CPU affinity. A TID is reused once its thread is gone, so a
 * thread is named by (TID, start time): a caller that comes back to a
 * thread later (a move's revert) checks both.
 *
 * Reading goes through the root-aware layer (a snapshot or fixture answers
 * as the machine did). The affinity calls are live only: they ask this
 * kernel about one of its threads, so they refuse a context with a root
 * (-EXDEV), where a TID names a thread of another machine.
 *
 * Every function returns 0 or -errno with a one-line detail naming the file
 * or the thread in ctx->err. -ENOENT: the process or thread is gone (or
 * never was); -EINVAL: a stat that does not read as the kernel writes it. */
#ifndef NUMAPLACE_TASK_H
#define NUMAPLACE_TASK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/context.h"
#include "base/cpuset.h"

/* include/linux/sched.h: set on every kernel thread, never on a user one. */
#define NP_PF_KTHREAD 0x00200000UL

/* The stat fields numaplace uses (proc(5) numbering). Times are in clock
 * ticks (USER_HZ, sysconf(_SC_CLK_TCK): 100 on every Linux architecture
 * numaplace runs on), as the kernel writes them. */
struct np_task_stat {
	int tid;                      /* 1 */
	char comm[64];                /* 2, without its parentheses; cut to fit (the kernel
				       * writes at most 63 bytes: a workqueue worker's name) */
	char state;                   /* 3: R, S, D, Z, T, t, X, I, ... */
	int ppid;                     /* 4: the parent process */
	unsigned long flags;          /* 9: PF_* (NP_PF_KTHREAD) */
	unsigned long long utime;     /* 14 */
	unsigned long long stime;     /* 15 */
	unsigned long long start_time; /* 22: ticks after boot; with tid, names the thread */
	int cpu;                      /* 39: the CPU it last ran on */
};

/* Parses one stat line as /proc/PID/stat and /proc/PID/task/TID/stat
 * write it. comm may hold any byte but NUL, ')' and spaces included: it is
 * taken from after the first '(' to the last ')', since no field after it
 * can hold one. -EINVAL (ctx->err names shown) when a field numaplace uses
 * is missing or not a number. */
int np_task_stat_parse(struct np_ctx *ctx, const char *text, const char *shown, struct np_task_stat *out);
/* Reads and parses /proc/PID/task/TID/stat. */
int np_task_stat_read(struct np_ctx *ctx, int pid, int tid, struct np_task_stat *out);
bool np_task_is_kthread(const struct np_task_stat *t);

/* The threads of process pid, each once, in ascending TID: *tasks is
 * malloc'd (free() it). A thread that ends between the listing and the
 * read of its stat is left out, not an error. -ENOENT (ctx->err says "no
 * process PID") when the process is gone. */
int np_tasks_read(struct np_ctx *ctx, int pid, struct np_task_stat **tasks, size_t *count);

/* The processes below pid, its children's and theirs, each once, as the
 * stat files of /proc say now (field 4): *pids is malloc'd (free() it),
 * NULL when none. A process that ends while they are read is left out;
 * one that starts meanwhile may be too: a caller that must see them all
 * asks again after it acted on these. */
int np_descendants(struct np_ctx *ctx, int pid, int **pids, size_t *count);

/* Live only (see above). The CPUs thread tid may run on, as
 * sched_getaffinity(2) gives them (a mask as wide as the kernel needs). */
int np_task_get_affinity(struct np_ctx *ctx, int tid, struct np_cpuset *out);
/* Sets them (sched_setaffinity(2)); cpus not empty. The kernel keeps only
 * the CPUs the thread's cpuset allows and fails (-EINVAL) when none is
 * left: read back with np_task_get_affinity. -ESRCH: the thread is gone. */
int np_task_set_affinity(struct np_ctx *ctx, int tid, const struct np_cpuset *cpus);

#endif
