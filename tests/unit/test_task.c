/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A process's threads (lib/read/task.c): the stat parser against hostile thread
 * names, the listing of /proc/PID/task under a root, and the live affinity
 * calls on the test's own thread. */
#include "tmproot.h"

#include <sched.h>
#include <sys/syscall.h>

#include "read/task.h"

/* A stat line as the kernel writes it, with comm as given: state S, flags,
 * utime 70, stime 30, start time 123456, last CPU 5; the other fields as a
 * real line holds them (negative tty/tpgid fields included). */
static char *stat_line(const char *comm, unsigned long flags)
{
	char *line;
	assert_true(asprintf(&line,
			     "4242 (%s) S 1 4242 4242 0 -1 %lu 100 0 0 0 70 30 0 0 20 0 3 0 123456 1000 10 "
			     "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 5 0 0 0 0 0 0 0 0 0 0 0 0 0",
			     comm, flags) > 0);
	return line;
}

static void expect_comm(const char *comm, const char *want)
{
	struct np_ctx ctx = { .root = (char *)"" };
	struct np_task_stat t;
	char *line = stat_line(comm, 0x400040);
	int rc = np_task_stat_parse(&ctx, line, "stat", &t);
	if (rc)
		fail_msg("comm '%s': %s", comm, ctx.err);
	assert_int_equal(t.tid, 4242);
	assert_string_equal(t.comm, want);
	assert_int_equal(t.state, 'S');
	assert_int_equal(t.flags, 0x400040);
	assert_int_equal(t.utime, 70);
	assert_int_equal(t.stime, 30);
	assert_int_equal(t.start_time, 123456);
	assert_int_equal(t.cpu, 5);
	assert_false(np_task_is_kthread(&t));
	free(line);
}

static void test_hostile_comm(void **state)
{
	(void)state;
	expect_comm("nginx", "nginx");
	expect_comm("a b c", "a b c");
	/* A name that spells out a whole fake stat: only the last ')' ends it. */
	expect_comm("x) Z 1 1 1 0 -1 2097152 0 0 0 0 9 9 0 0 20 0 1 (", "x) Z 1 1 1 0 -1 2097152 0 0 0 0 9 9 0 0 20 0 1 (");
	expect_comm(")", ")");
	expect_comm("((", "((");
	expect_comm(") )", ") )");
	expect_comm("", "");
	expect_comm("new\nline", "new\nline");
	expect_comm("kworker/u8:1-events_unbound", "kworker/u8:1-events_unbound");
	/* Longer than the kernel ever writes: cut, the fields still right. */
	char longname[200];
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	expect_comm(longname, longname + (sizeof(longname) - 64));
}

static void test_kthread(void **state)
{
	(void)state;
	struct np_ctx ctx = { .root = (char *)"" };
	struct np_task_stat t;
	char *line = stat_line("kworker/0:1", 0x04208060);
	assert_int_equal(np_task_stat_parse(&ctx, line, "stat", &t), 0);
	assert_true(np_task_is_kthread(&t));
	free(line);
}

static void expect_invalid(const char *text, const char *why)
{
	struct np_ctx ctx = { .root = (char *)"" };
	struct np_task_stat t;
	assert_int_equal(np_task_stat_parse(&ctx, text, "/proc/1/stat", &t), -EINVAL);
	assert_err_has(&ctx, "/proc/1/stat");
	assert_err_has(&ctx, why);
}

static void test_malformed(void **state)
{
	(void)state;
	expect_invalid("", "expected 'PID (COMM)");
	expect_invalid("4242 nginx S 1", "expected 'PID (COMM)");
	expect_invalid("x (nginx) S 1", "expected 'PID (COMM)");
	expect_invalid("4242 (nginx S 1 2 3", "expected 'PID (COMM)");
	expect_invalid("4242 (a) S 1 4242", "ends at field 5");
	expect_invalid("4242 (a) SS 1", "field 3 ");
	/* Start time (22) not a number. */
	expect_invalid("4242 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5 1 1 1 1 1 0 0 0 0 0 0 0 0 0 0 17 1",
		       "field 22 ");
	/* Last CPU (39) not a number. */
	expect_invalid("4242 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 1 1 1 1 1 0 0 0 0 0 0 0 0 0 0 17 x",
		       "field 39 ");
	/* Two spaces make an empty field. */
	expect_invalid("4242 (a) S  1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 1 1 1 1 1 0 0 0 0 0 0 0 0 0 0 17 1",
		       "field 4 ");
	/* A utime past 64 bits. */
	expect_invalid("4242 (a) S 1 1 1 0 -1 0 0 0 0 0 99999999999999999999999 0 0 0 20 0 1 0 5 1 1 1 1 1 0 0 0 0 "
		       "0 0 0 0 0 0 17 1",
		       "field 14 ");
}

/* This process's own line, as this kernel writes it. */
static void test_own_stat(void **state)
{
	(void)state;
	struct np_ctx ctx;
	assert_int_equal(np_ctx_init(&ctx, "/"), 0);
	struct np_task_stat t;
	int pid = getpid();
	assert_int_equal(np_task_stat_read(&ctx, pid, pid, &t), 0);
	assert_int_equal(t.tid, pid);
	assert_int_equal(t.state, 'R');
	assert_false(np_task_is_kthread(&t));
	assert_true(t.start_time > 0);
	assert_true(t.cpu >= 0 && t.cpu < CPU_SETSIZE);
	np_ctx_fini(&ctx);
}

static void test_tasks_under_root(void **state)
{
	(void)state;
	char root[64];
	struct np_ctx ctx;
	assert_int_equal(tmproot_create(root, sizeof(root), "/tmp/np-task-XXXXXX", &ctx), 0);
	char *a = stat_line("main", 0), *b = stat_line("worker 1", 0);
	b[0] = '9', b[1] = '0', b[2] = '0', b[3] = '0'; /* tid 9000 */
	tmproot_put(root, "/proc/4242/task/9000/stat", b);
	tmproot_put(root, "/proc/4242/task/4242/stat", a);
	tmproot_make_dirs(root, "/proc/4242/task/not-a-tid");
	struct np_task_stat *v;
	size_t n;
	assert_int_equal(np_tasks_read(&ctx, 4242, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].tid, 4242);
	assert_string_equal(v[0].comm, "main");
	assert_int_equal(v[1].tid, 9000);
	assert_string_equal(v[1].comm, "worker 1");
	free(v);

	assert_int_equal(np_tasks_read(&ctx, 77, &v, &n), -ENOENT);
	assert_err_has(&ctx, "no process 77");

	/* A malformed stat is an error naming it, not a thread left out. */
	tmproot_put(root, "/proc/4242/task/9000/stat", "9000 (w) S 1");
	assert_int_equal(np_tasks_read(&ctx, 4242, &v, &n), -EINVAL);
	assert_err_has(&ctx, "/proc/4242/task/9000/stat");

	/* Affinity is this machine's: refused under a root. */
	struct np_cpuset set = NP_CPUSET_INIT;
	assert_int_equal(np_task_get_affinity(&ctx, 4242, &set), -EXDEV);
	assert_int_equal(np_cpuset_set(&set, 0), 0);
	assert_int_equal(np_task_set_affinity(&ctx, 4242, &set), -EXDEV);
	np_cpuset_free(&set);
	free(a);
	free(b);
	assert_int_equal(tmproot_remove(root, &ctx), 0);
}

/* The test's own thread: read, set to one CPU it may use, read back, restore. */
static void test_live_affinity(void **state)
{
	(void)state;
	struct np_ctx ctx;
	assert_int_equal(np_ctx_init(&ctx, "/"), 0);
	int tid = (int)syscall(SYS_gettid);
	struct np_cpuset before = NP_CPUSET_INIT, one = NP_CPUSET_INIT, after = NP_CPUSET_INIT;
	assert_int_equal(np_task_get_affinity(&ctx, tid, &before), 0);
	cpu_set_t direct;
	CPU_ZERO(&direct);
	assert_int_equal(sched_getaffinity(tid, sizeof(direct), &direct), 0);
	assert_int_equal(np_cpuset_count(&before), CPU_COUNT(&direct));

	int last = np_cpuset_last(&before);
	assert_true(last >= 0);
	assert_int_equal(np_cpuset_set(&one, (unsigned)last), 0);
	assert_int_equal(np_task_set_affinity(&ctx, tid, &one), 0);
	assert_int_equal(np_task_get_affinity(&ctx, tid, &after), 0);
	assert_true(np_cpuset_equal(&after, &one));
	assert_int_equal(np_task_set_affinity(&ctx, tid, &before), 0);
	assert_int_equal(np_task_get_affinity(&ctx, tid, &after), 0);
	assert_true(np_cpuset_equal(&after, &before));

	struct np_cpuset empty = NP_CPUSET_INIT;
	assert_int_equal(np_task_set_affinity(&ctx, tid, &empty), -EINVAL);
	/* No such thread (pid_max is at most 2^22). */
	assert_int_equal(np_task_get_affinity(&ctx, 1 << 23, &after), -ESRCH);
	assert_err_has(&ctx, "thread 8388608");
	np_cpuset_free(&before);
	np_cpuset_free(&one);
	np_cpuset_free(&after);
	np_ctx_fini(&ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_comm),
		cmocka_unit_test(test_kthread),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_own_stat),
		cmocka_unit_test(test_tasks_under_root),
		cmocka_unit_test(test_live_affinity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
