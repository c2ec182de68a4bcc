/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the interrupt counts cover and the CPU time interrupts cost
 * (lib/read/cpu-load): /proc/uptime, /proc/stat and /proc/softirqs as a 6.1
 * kernel writes them, their intervals, and partial copies without them. */
#include "tmproot.h"

#include "read/cpu-load.h"
#include "read/topology.h"

/* Two CPUs, 0 and 1, on one node. */
static void two_cpus(struct np_topology *t)
{
	memset(t, 0, sizeof(*t));
	t->max_cpu = 1;
	assert_int_equal(np_cpuset_parse_list(&t->online, "0-1"), 0);
}

/* Lines as fs/proc/stat.c prints them (10 fields), then what the snapshot
 * leaves out. */
static const char stat_text[] = "cpu  300 0 100 1400 0 60 140 0 0 0\n"
				"cpu0 100 0 50 700 0 50 100 0 0 0\n"
				"cpu1 200 0 50 700 0 10 40 0 0 0\n"
				"intr 123 4 5\nctxt 99\nbtime 1700000000\n";
/* kernel/softirq.c's show_softirqs: "%12s:" and " %10u" a possible CPU. */
static const char softirqs_text[] = "                    CPU0       CPU1       \n"
				    "          HI:          0          0\n"
				    "       TIMER:        300        300\n"
				    "      NET_TX:          0          0\n"
				    "      NET_RX:        100          0\n"
				    "       BLOCK:          0         50\n"
				    "    IRQ_POLL:          0          0\n"
				    "     TASKLET:          0          0\n"
				    "       SCHED:        100        100\n"
				    "     HRTIMER:          0          0\n"
				    "         RCU:          0         50\n";

static void test_parse(void **state)
{
	(void)state;
	struct np_ctx ctx = { 0 };
	struct np_topology t;
	struct np_cpu_load l;
	two_cpus(&t);
	assert_int_equal(np_cpu_load_parse(&ctx, &t, "2000.50 3900.00\n", stat_text, softirqs_text, &l), 0);
	assert_true(l.uptime > 2000.49 && l.uptime < 2000.51);
	assert_true(l.seconds == l.uptime && !l.sampled);
	assert_int_equal(l.cpu[0].irq, 50);
	assert_int_equal(l.cpu[0].softirq, 100);
	assert_int_equal(l.cpu[0].all, 1000);
	/* CPU 0: 100 of its 500 softirqs were devices' (NET_RX): 50 + 100/5 of 1000. */
	assert_true(np_cpu_irq_share(&l, 0) > 0.0699 && np_cpu_irq_share(&l, 0) < 0.0701);
	/* CPU 1: BLOCK 50 of 500: 10 + 40/10 of 1000. */
	assert_true(np_cpu_irq_share(&l, 1) > 0.0139 && np_cpu_irq_share(&l, 1) < 0.0141);
	assert_true(np_cpu_load_rate(&l, 4001) > 1.99 && np_cpu_load_rate(&l, 4001) < 2.01);
	assert_true(np_cpu_irq_share(&l, 2) < 0);
	np_cpu_load_free(&l);

	/* Without /proc/softirqs, all softirq time counts. */
	assert_int_equal(np_cpu_load_parse(&ctx, &t, NULL, stat_text, NULL, &l), 0);
	assert_true(np_cpu_irq_share(&l, 0) > 0.1499 && np_cpu_irq_share(&l, 0) < 0.1501);
	/* Without /proc/uptime, no rate. */
	assert_true(l.uptime == 0 && np_cpu_load_rate(&l, 10) < 0);
	np_cpu_load_free(&l);
	np_cpuset_free(&t.online);
}

static void test_malformed(void **state)
{
	(void)state;
	struct np_ctx ctx = { 0 };
	struct np_topology t;
	struct np_cpu_load l;
	two_cpus(&t);
	assert_int_equal(np_cpu_load_parse(&ctx, &t, NULL, "cpu0 1 2 3\n", NULL, &l), -EINVAL);
	assert_non_null(strstr(ctx.err, "/proc/stat: line 1"));
	assert_int_equal(np_cpu_load_parse(&ctx, &t, NULL, stat_text, "   CPU0\n  NET_RX 5\n", &l), -EINVAL);
	assert_non_null(strstr(ctx.err, "/proc/softirqs: line 2"));
	/* An uptime that is not a number, or not above 0, is unknown. */
	assert_int_equal(np_cpu_load_parse(&ctx, &t, "-3 0", NULL, NULL, &l), 0);
	assert_true(l.uptime == 0 && l.seconds == 0 && !l.cpu);
	np_cpuset_free(&t.online);
}

static void test_delta(void **state)
{
	(void)state;
	struct np_ctx ctx = { 0 };
	struct np_topology t;
	struct np_cpu_load a, b;
	two_cpus(&t);
	assert_int_equal(np_cpu_load_parse(&ctx, &t, "100", "cpu0 0 0 0 100 0 10 10 0\ncpu1 0 0 0 100 0 0 0 0\n",
					   NULL, &a), 0);
	assert_int_equal(np_cpu_load_parse(&ctx, &t, "102", "cpu0 0 0 0 250 0 40 10 0\ncpu1 0 0 0 300 0 0 0 0\n",
					   NULL, &b), 0);
	np_cpu_load_delta(&a, &b, 2);
	assert_true(a.sampled && a.seconds == 2);
	/* CPU 0 over the interval: 30 of 180 ticks in hard IRQs. */
	assert_true(np_cpu_irq_share(&a, 0) > 0.1666 && np_cpu_irq_share(&a, 0) < 0.1667);
	assert_true(np_cpu_irq_share(&a, 1) == 0);
	assert_true(np_cpu_load_rate(&a, 10) == 5);
	np_cpu_load_free(&a);
	np_cpu_load_free(&b);
	np_cpuset_free(&t.online);
}

/* A partial copy (a directory without /proc/stat): unknown, not an error. */
static void test_absent(void **state)
{
	(void)state;
	char root[64];
	struct np_ctx ctx;
	struct np_topology t;
	struct np_cpu_load l;
	two_cpus(&t);
	assert_int_equal(tmproot_create(root, sizeof(root), "/tmp/np-cpuload-XXXXXX", &ctx), 0);
	tmproot_put(root, "/proc/uptime", "42.00 80.00\n");
	assert_int_equal(np_cpu_load_read(&ctx, &t, &l), 0);
	assert_true(l.uptime == 42 && !l.cpu && np_cpu_irq_share(&l, 0) < 0);
	assert_string_equal(ctx.err, "");
	np_cpu_load_free(&l);
	assert_int_equal(tmproot_remove(root, &ctx), 0);
	np_cpuset_free(&t.online);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_absent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
