/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tunable kinds' table (lib/change/attr.c): paths built from targets and read
 * back from paths, values checked per kind. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change/attr.h"

/* One target for every row: the fields its path needs, and subject ones. */
static struct np_target sample(void)
{
	return (struct np_target){ .irq = 45, .queue = 3, .net = "eth0", .block = "sda",
				   .device = "0000:23:00.0", .vector = "eth0-TxRx-3", .file = "default/irqbalance",
				   .pid = 12, .tid = 13, .start = 5000000000ULL };
}

static void assert_path(enum np_attr attr, const struct np_target *t, const char *want)
{
	char *got = np_attr_path(attr, t);
	if (!want) {
		if (got)
			fail_msg("%s: built '%s', expected a refusal", np_attr_name(attr), got);
		return;
	}
	if (!got)
		fail_msg("%s: no path, expected '%s'", np_attr_name(attr), want);
	assert_string_equal(got, want);
	free(got);
}

static void test_table_is_whole(void **state)
{
	(void)state;
	for (int a = 0; a < NP_ATTR_COUNT; a++) {
		const struct np_attr_desc *d = &np_attrs[a];
		assert_non_null(d->name);
		assert_non_null(d->subject);
		assert_int_equal(np_attr_by_name(d->name, false), a);
		assert_true(d->value != NP_VALUE_INT || d->min <= d->max);
		/* A file that survives a reboot is a whole text file, never a kernel value. */
		assert_true(!d->survives_reboot || d->value == NP_VALUE_TEXT);
		/* The command that sets it by hand is for a value that is no file. */
		assert_true(!d->command || (d->access && d->dir == NP_DIR_NONE));
		/* A kind that resets queues is set through its access method, first. */
		assert_true(!d->resets_queues || d->access);
		assert_true(!d->path || d->path[0] == '/');
	}
	assert_string_equal(np_attr_name(NP_ATTR_IRQ_AFFINITY), "irq_affinity");
	assert_string_equal(np_attr_name(NP_ATTR_COUNT), "unknown");
	assert_int_equal(np_attr_by_name("default_irq_affinity", true), NP_ATTR_DEFAULT_IRQ_AFFINITY);
	/* apply writes the irqbalance bans itself; no profile names the file. */
	assert_int_equal(np_attr_by_name("irqbalance_config", true), -1);
	assert_int_equal(np_attr_by_name("irqbalance_config", false), NP_ATTR_IRQBALANCE_CONFIG);
	assert_int_equal(np_attr_by_name("smp_affinity", false), -1);
	assert_int_equal(np_attr_by_name(NULL, false), -1);
}

static void test_paths(void **state)
{
	(void)state;
	struct np_target t = sample();
	assert_path(NP_ATTR_IRQ_AFFINITY, &t, "/proc/irq/45/smp_affinity_list");
	assert_path(NP_ATTR_RQ_AFFINITY, &t, "/sys/block/sda/queue/rq_affinity");
	assert_path(NP_ATTR_RPS_CPUS, &t, "/sys/class/net/eth0/queues/rx-3/rps_cpus");
	assert_path(NP_ATTR_XPS_CPUS, &t, "/sys/class/net/eth0/queues/tx-3/xps_cpus");
	assert_path(NP_ATTR_DEFAULT_IRQ_AFFINITY, &t, "/proc/irq/default_smp_affinity");
	assert_path(NP_ATTR_DEFAULT_IRQ_AFFINITY, &NP_TARGET_NONE, "/proc/irq/default_smp_affinity");
	assert_path(NP_ATTR_IRQBALANCE_CONFIG, &(struct np_target){ .irq = -1, .queue = -1, .file = "default/irqbalance" },
		    "/etc/default/irqbalance");
	assert_path(NP_ATTR_IRQBALANCE_CONFIG, &(struct np_target){ .irq = -1, .queue = -1, .file = "sysconfig/irqbalance" },
		    "/etc/sysconfig/irqbalance");
	/* Under /etc, and only under it. */
	assert_path(NP_ATTR_IRQBALANCE_CONFIG, &NP_TARGET_NONE, NULL);
	assert_path(NP_ATTR_IRQBALANCE_CONFIG, &(struct np_target){ .irq = -1, .queue = -1, .file = "../root/x" }, NULL);
	assert_path(NP_ATTR_IRQBALANCE_CONFIG, &(struct np_target){ .irq = -1, .queue = -1, .file = "a//b" }, NULL);
	assert_path(NP_ATTR_IRQBALANCE_CONFIG, &(struct np_target){ .irq = -1, .queue = -1, .file = "default/" }, NULL);
	assert_path(NP_ATTR_IRQBALANCE_CONFIG, &(struct np_target){ .irq = -1, .queue = -1, .file = "passwd" }, NULL);

	/* What a path needs must be there, and no name may leave its directory. */
	assert_path(NP_ATTR_IRQ_AFFINITY, &NP_TARGET_NONE, NULL);
	assert_path(NP_ATTR_RPS_CPUS, &(struct np_target){ .irq = -1, .queue = -1, .net = "eth0" }, NULL);
	assert_path(NP_ATTR_RPS_CPUS, &(struct np_target){ .irq = -1, .queue = 0 }, NULL);
	assert_path(NP_ATTR_RQ_AFFINITY, &(struct np_target){ .irq = -1, .queue = -1, .block = ".." }, NULL);
	assert_path(NP_ATTR_RQ_AFFINITY, &(struct np_target){ .irq = -1, .queue = -1, .block = "." }, NULL);
	assert_path(NP_ATTR_RQ_AFFINITY, &(struct np_target){ .irq = -1, .queue = -1, .block = "" }, NULL);
	assert_path(NP_ATTR_XPS_CPUS, &(struct np_target){ .irq = -1, .queue = 0, .net = "../sda" }, NULL);
	assert_path(NP_ATTR_COUNT, &t, NULL);
}

/* A row's subject as its template says it, filled in by the test's own
 * reading of {field} (the sample's value of each field a template may name):
 * every row, a new one included, with no list of kinds here. */
static char *expected_subject(const char *tmpl, const struct np_target *t)
{
	char irq[16], queue[16], pid[16], tid[16], *out = calloc(1, 256);
	snprintf(irq, sizeof(irq), "%d", t->irq);
	snprintf(queue, sizeof(queue), "%d", t->queue);
	snprintf(pid, sizeof(pid), "%d", t->pid);
	snprintf(tid, sizeof(tid), "%d", t->tid);
	const struct { const char *name, *text; } fields[] = {
		{ "irq", irq }, { "queue", queue }, { "pid", pid }, { "tid", tid }, { "net", t->net },
		{ "block", t->block }, { "device", t->device }, { "vector", t->vector }, { "file", t->file },
	};
	size_t n = 0;
	for (const char *p = tmpl; out && *p; p++) {
		const char *end = *p == '{' ? strchr(p, '}') : NULL, *v = NULL;
		if (!end) {
			out[n++] = *p;
			continue;
		}
		for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]) && !v; k++)
			if (strlen(fields[k].name) == (size_t)(end - p - 1) && !strncmp(p + 1, fields[k].name, (size_t)(end - p - 1)))
				v = fields[k].text;
		if (!v)
			fail_msg("template '%s': a field %.*s the test does not know", tmpl, (int)(end - p + 1), p);
		n += (size_t)snprintf(out + n, 256 - n, "%s", v);
		p = end;
	}
	return out;
}

static void test_subjects(void **state)
{
	(void)state;
	struct np_target t = sample();
	for (int a = 0; a < NP_ATTR_COUNT; a++) {
		char *got = np_attr_subject((enum np_attr)a, &t), *want = expected_subject(np_attrs[a].subject, &t);
		assert_non_null(got);
		assert_non_null(want);
		assert_string_equal(got, want);
		free(got);
		free(want);
	}
	/* And as people read them, for a few. */
	char *got = np_attr_subject(NP_ATTR_IRQ_AFFINITY, &t);
	assert_string_equal(got, "0000:23:00.0 irq 45 eth0-TxRx-3");
	free(got);
	got = np_attr_subject(NP_ATTR_RPS_CPUS, &t);
	assert_string_equal(got, "eth0 rx-3 rps_cpus");
	free(got);
	/* A subject is for humans: a missing field shows, it does not fail. */
	got = np_attr_subject(NP_ATTR_IRQ_AFFINITY, &(struct np_target){ .irq = 7, .queue = -1 });
	assert_string_equal(got, "? irq 7 ?");
	free(got);
}

static void assert_match(const char *path, int want)
{
	struct np_target t = NP_TARGET_NONE;
	int got = np_attr_match(path, &t);
	if (got != want)
		fail_msg("'%s' matched %d (%s), expected %d", path, got, got >= 0 ? np_attr_name(got) : "none", want);
	np_target_free(&t);
}

static void test_match(void **state)
{
	(void)state;
	/* Every row reads back its own paths, with the fields they were built from. */
	struct np_target in = sample();
	for (int a = 0; a < NP_ATTR_COUNT; a++) {
		/* A file of the row's own names: "dir/cpuset.cpus" for a cgroup's. */
		char file[64];
		snprintf(file, sizeof(file), "dir/%s", np_attrs[a].files ? np_attrs[a].files[0] : "x");
		in.file = file;
		char *path = np_attr_path((enum np_attr)a, &in);
		struct np_target out = NP_TARGET_NONE;
		assert_non_null(path);
		assert_int_equal(np_attr_match(path, &out), a);
		char *again = np_attr_path((enum np_attr)a, &out);
		assert_non_null(again);
		assert_string_equal(again, path);
		free(again);
		free(path);
		np_target_free(&out);
	}
	/* The channels' command says what ethtool does by hand. */
	char *cmd = np_attr_command(NP_ATTR_CHANNELS, &in, "combined 4");
	assert_string_equal(cmd, "ethtool -L eth0 combined 4");
	free(cmd);
	assert_null(np_attr_command(NP_ATTR_RPS_CPUS, &in, "1"));
	struct np_target t = NP_TARGET_NONE;
	/* A thread: its ids > 0, its start time as wide as the kernel's. */
	assert_int_equal(np_attr_match("/proc/12/task/13@18446744073709551615", &t), NP_ATTR_THREAD_AFFINITY);
	assert_int_equal(t.pid, 12);
	assert_int_equal(t.tid, 13);
	assert_true(t.start == 18446744073709551615ULL);
	t = NP_TARGET_NONE;
	assert_match("/proc/12/task/13@18446744073709551616", -1);
	assert_match("/proc/0/task/13@5", -1);
	assert_match("/proc/12/task/13", -1);
	assert_match("/proc/12/task/13@", -1);
	assert_match("/proc/12/task/013@5", -1);
	assert_non_null(np_attr_access_of("/proc/12/task/13@5"));
	assert_null(np_attr_access_of("/proc/irq/45/smp_affinity_list"));
	/* A cgroup's cpuset files, and nothing that leaves the hierarchy. */
	assert_match("/sys/fs/cgroup/system.slice/x.service/cpuset.cpus", NP_ATTR_CGROUP_CPUS);
	assert_match("/sys/fs/cgroup/cpuset/docker/abc/cpuset.mems", NP_ATTR_CGROUP_MEMS);
	assert_match("/sys/fs/cgroup/../../etc/cpuset.cpus", -1);
	assert_match("/sys/fs/cgroup/a/cpuset.cpus.effective", -1);
	assert_int_equal(np_attr_match("/sys/class/net/ens3f0np0/queues/tx-17/xps_cpus", &t), NP_ATTR_XPS_CPUS);
	assert_string_equal(t.net, "ens3f0np0");
	assert_int_equal(t.queue, 17);
	assert_int_equal(t.irq, -1);
	assert_null(t.block);
	np_target_free(&t);
	assert_int_equal(np_attr_match("/proc/irq/1000/smp_affinity_list", &t), NP_ATTR_IRQ_AFFINITY);
	assert_int_equal(t.irq, 1000);
	assert_null(t.net);
	assert_int_equal(np_attr_match("/sys/block/nvme0n1/queue/rq_affinity", NULL), NP_ATTR_RQ_AFFINITY);
	/* RFS: a queue's flow table and the machine's. */
	assert_int_equal(np_attr_match("/sys/class/net/eth0/queues/rx-3/rps_flow_cnt", &t), NP_ATTR_RPS_FLOW_CNT);
	assert_int_equal(t.queue, 3);
	assert_string_equal(t.net, "eth0");
	np_target_free(&t);
	assert_int_equal(np_attr_match("/proc/sys/net/core/rps_sock_flow_entries", NULL), NP_ATTR_RPS_SOCK_FLOW_ENTRIES);
	assert_match("/sys/class/net/eth0/queues/tx-0/rps_flow_cnt", -1);

	/* Files that are no kind's own: a revert must never write them. */
	assert_match("/proc/sys/kernel/panic", -1);
	assert_match("/sys/devices/system/cpu/cpu3/online", -1);
	assert_match("/etc/passwd", -1);
	assert_match("/proc/irq/45/smp_affinity", -1);
	assert_match("/proc/irq/45/effective_affinity_list", -1);
	assert_match("/sys/class/net/eth0/queues/tx-0/tx_maxrate", -1);
	assert_match("/sys/class/net/eth0/queues/tx-0/rps_cpus", -1);
	assert_match("", -1);
	assert_match(NULL, -1);
	/* Ways out of a kind's directory, and numbers a kernel never prints. */
	assert_match("/proc/irq/../irq/45/smp_affinity_list", -1);
	assert_match("/proc/irq/45/../45/smp_affinity_list", -1);
	assert_match("/sys/block/../queue/rq_affinity", -1);
	assert_match("/sys/block/./queue/rq_affinity", -1);
	assert_match("/sys/class/net/../queues/rx-0/rps_cpus", -1);
	assert_match("/sys/class/net/eth0/queues/rx-0/../../../../block/sda/queue/rq_affinity", -1);
	assert_match("/etc/default/../default/irqbalance", -1);
	assert_match("/proc/irq/045/smp_affinity_list", -1);
	assert_match("/proc/irq/-1/smp_affinity_list", -1);
	assert_match("/proc/irq/+5/smp_affinity_list", -1);
	assert_match("/proc/irq/99999999999/smp_affinity_list", -1);
	assert_match("/proc/irq//smp_affinity_list", -1);
	assert_match("/sys/class/net/eth0/queues/rx-/rps_cpus", -1);
	assert_match("/sys/class/net/eth0/queues/rx-0x/rps_cpus", -1);
	/* Exactly the path: nothing before, nothing after. */
	assert_match("/proc/irq/45/smp_affinity_list/", -1);
	assert_match("/proc/irq/45/smp_affinity_listx", -1);
	assert_match("//proc/irq/45/smp_affinity_list", -1);
	assert_match("/proc/irq/default_smp_affinity2", -1);
	assert_match("/etc/default/irqbalance.dpkg-old", -1);
	assert_match("/etc/irqbalance", NP_ATTR_IRQBALANCE_CONFIG);
	assert_match("/etc/sysconfig/irqbalance", NP_ATTR_IRQBALANCE_CONFIG);
	assert_match("/etc/conf.d/irqbalance", NP_ATTR_IRQBALANCE_CONFIG);
	assert_match("/etc/irqbalance.env", NP_ATTR_IRQBALANCE_CONFIG);
	assert_match("/etc/sysconfig/../shadow", -1);
	assert_match("/etc/default/irqbalance/", -1);
	assert_match("/etc/", -1);
}

static void assert_ok(enum np_attr attr, const char *value, bool want)
{
	if (np_attr_value_ok(attr, value) != want)
		fail_msg("%s: '%s' %s, expected %s", np_attr_name(attr), value ? value : "(null)",
			 want ? "refused" : "accepted", want ? "accepted" : "refused");
}

static void test_values(void **state)
{
	(void)state;
	assert_ok(NP_ATTR_IRQ_AFFINITY, "0-3,8", true);
	assert_ok(NP_ATTR_IRQ_AFFINITY, "1", true);
	/* The kernel refuses an IRQ without CPUs (EINVAL). */
	assert_ok(NP_ATTR_IRQ_AFFINITY, "", false);
	assert_ok(NP_ATTR_IRQ_AFFINITY, "0000000f", false);
	assert_ok(NP_ATTR_IRQ_AFFINITY, "3-1", false);
	assert_ok(NP_ATTR_IRQ_AFFINITY, NULL, false);

	/* rq_affinity: the kernel takes 5 and ignores it, so numaplace must not. */
	assert_ok(NP_ATTR_RQ_AFFINITY, "0", true);
	assert_ok(NP_ATTR_RQ_AFFINITY, "2", true);
	assert_ok(NP_ATTR_RQ_AFFINITY, "2\n", true);
	assert_ok(NP_ATTR_RQ_AFFINITY, "3", false);
	assert_ok(NP_ATTR_RQ_AFFINITY, "-1", false);
	assert_ok(NP_ATTR_RQ_AFFINITY, "two", false);
	assert_ok(NP_ATTR_RQ_AFFINITY, "99999999999999999999", false);

	/* Masks, where empty turns RPS and XPS off. */
	assert_ok(NP_ATTR_RPS_CPUS, "00000000,00000003", true);
	assert_ok(NP_ATTR_RPS_CPUS, "00000000", true);
	assert_ok(NP_ATTR_XPS_CPUS, "f", true);
	assert_ok(NP_ATTR_XPS_CPUS, "0-3", false);
	assert_ok(NP_ATTR_XPS_CPUS, "", false);

	/* The kernel refuses a default mask without CPUs. */
	assert_ok(NP_ATTR_DEFAULT_IRQ_AFFINITY, "ffff", true);
	assert_ok(NP_ATTR_DEFAULT_IRQ_AFFINITY, "0000", false);
	assert_ok(NP_ATTR_DEFAULT_IRQ_AFFINITY, "0-3", false);

	assert_ok(NP_ATTR_IRQBALANCE_CONFIG, "IRQBALANCE_ARGS=\"--banirq=45\"\n", true);
	assert_ok(NP_ATTR_IRQBALANCE_CONFIG, "", true);
	assert_ok(NP_ATTR_COUNT, "1", false);

	struct np_cpuset set = NP_CPUSET_INIT;
	assert_int_equal(np_cpuset_parse_list(&set, "1,3"), 0);
	char *list = np_attr_format_cpus(NP_ATTR_IRQ_AFFINITY, &set, 64);
	char *mask = np_attr_format_cpus(NP_ATTR_DEFAULT_IRQ_AFFINITY, &set, 64);
	assert_string_equal(list, "1,3");
	assert_string_equal(mask, "00000000,0000000a");
	free(list);
	free(mask);
	np_cpuset_free(&set);

	enum np_value_kind k;
	assert_int_equal(np_value_kind_parse("cpumask", &k), 0);
	assert_int_equal(k, NP_VALUE_CPUMASK);
	assert_int_equal(np_value_kind_parse("mask", &k), -EINVAL);
	assert_string_equal(np_value_kind_name(NP_VALUE_TEXT), "text");
}

static void test_change_make(void **state)
{
	(void)state;
	struct np_change c;
	struct np_target t = sample();
	assert_int_equal(np_change_make(&c, NP_ATTR_RPS_CPUS, &t, "2"), 0);
	assert_string_equal(c.path, "/sys/class/net/eth0/queues/rx-3/rps_cpus");
	assert_string_equal(c.subject, "eth0 rx-3 rps_cpus");
	assert_string_equal(c.new_value, "2");
	assert_null(c.old_value);
	assert_int_equal(c.attr, NP_ATTR_RPS_CPUS);
	/* The change owns its copy of the target's names. */
	assert_true(c.target.net != t.net);
	assert_string_equal(c.target.net, "eth0");
	assert_int_equal(c.target.queue, 3);
	/* Only what the path says: not the IRQ nor the block device given. */
	assert_int_equal(c.target.irq, -1);
	assert_null(c.target.block);
	assert_null(c.target.device);
	np_change_free(&c);
	assert_null(c.path);

	assert_int_equal(np_change_make(&c, NP_ATTR_RQ_AFFINITY, &NP_TARGET_NONE, "1"), -EINVAL);
	assert_null(c.path);
	assert_int_equal(np_change_make(&c, NP_ATTR_COUNT, &t, "1"), -EINVAL);
	np_change_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_whole),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_subjects),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_change_make),
	};
	return cmocka_run_group_tests_name("attr", tests, NULL, NULL);
}
