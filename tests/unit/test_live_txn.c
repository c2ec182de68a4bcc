/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The transaction engine against this machine's real kernel: writes the
 * kernel rejects (a CPU beyond the machine: ERANGE; a managed IRQ: EPERM, or
 * EIO on older kernels) must leave every value as it was. Skipped where
 * there is no virtio disk and NIC, or without root. Whatever happens, the
 * teardown puts back the values it saved. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "change/txn.h"

#define RQ "/sys/block/vda/queue/rq_affinity"

struct live {
	struct np_ctx ctx;
	char state_dir[64];
	int net_irq, managed_irq;
	char paths[3][64];
	char *saved[3];
};

/* The IRQ whose action name ends with suffix ("-input.0", "-req.0"), or -1. */
static int irq_named(const char *suffix)
{
	FILE *f = fopen("/proc/interrupts", "re");
	char *line = NULL;
	size_t cap = 0;
	int found = -1;
	while (f && found < 0 && getline(&line, &cap, f) > 0) {
		size_t len = strcspn(line, "\n");
		line[len] = '\0';
		size_t slen = strlen(suffix);
		if (len > slen && !strcmp(line + len - slen, suffix) && strstr(line, "virtio"))
			found = atoi(line);
	}
	free(line);
	if (f)
		fclose(f);
	return found;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char buf[256] = "";
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return strdup(buf);
}

static void put_back(const char *path, const char *value)
{
	FILE *f = fopen(path, "we");
	if (f) {
		fprintf(f, "%s\n", value);
		fclose(f);
	}
}

static int setup(void **state)
{
	struct live *l = calloc(1, sizeof(*l));
	*state = l;
	if (geteuid() != 0 || access(RQ, W_OK) != 0)
		return 0;
	l->net_irq = irq_named("-input.0");
	l->managed_irq = irq_named("-req.0");
	if (l->net_irq < 0 || l->managed_irq < 0)
		return 0;
	snprintf(l->state_dir, sizeof(l->state_dir), "/tmp/np-live-XXXXXX");
	if (!mkdtemp(l->state_dir))
		return -1;
	snprintf(l->paths[0], sizeof(l->paths[0]), "%s", RQ);
	snprintf(l->paths[1], sizeof(l->paths[1]), "/proc/irq/%d/smp_affinity_list", l->net_irq);
	snprintf(l->paths[2], sizeof(l->paths[2]), "/proc/irq/%d/smp_affinity_list", l->managed_irq);
	for (int i = 0; i < 3; i++)
		l->saved[i] = slurp(l->paths[i]);
	return np_ctx_init(&l->ctx, "/");
}

static int teardown(void **state)
{
	struct live *l = *state;
	for (int i = 0; i < 3; i++) {
		if (!l->saved[i])
			continue;
		char *now = slurp(l->paths[i]);
		if (strcmp(now, l->saved[i]))
			put_back(l->paths[i], l->saved[i]);
		free(now);
		free(l->saved[i]);
	}
	if (l->state_dir[0]) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", l->state_dir);
		if (system(cmd) != 0)
			return -1;
		np_ctx_fini(&l->ctx);
	}
	free(l);
	return 0;
}

static void assert_unchanged(const struct live *l)
{
	for (int i = 0; i < 3; i++) {
		char *now = slurp(l->paths[i]);
		assert_string_equal(now, l->saved[i]);
		free(now);
	}
}

/* The first two values differ from the current ones, so they really are
 * written before the kernel refuses the third. */
static void apply_three(struct live *l, const char *third, int *rc)
{
	const char *rq = strcmp(l->saved[0], "2") ? "2" : "1";
	const char *cpu = strcmp(l->saved[1], "1") ? "1" : "0";
	struct np_change c[3] = {
		{ .path = l->paths[0], .attr = NP_ATTR_RQ_AFFINITY, .subject = "vda rq_affinity", .new_value = (char *)rq },
		{ .path = l->paths[1], .attr = NP_ATTR_IRQ_AFFINITY, .subject = "net irq", .new_value = (char *)cpu },
		{ .path = l->paths[2], .attr = NP_ATTR_IRQ_AFFINITY, .subject = "third", .new_value = (char *)third },
	};
	if (!strcmp(third, "64"))
		c[2].path = l->paths[1], c[1].path = l->paths[2], c[1].new_value = NULL;
	struct np_txn_opts o = { .state_dir = l->state_dir };
	struct np_txn txn;
	if (!c[1].new_value) {
		/* CPU out of range: rq_affinity, then the NIC's IRQ to CPU 64. */
		c[1] = c[2];
		*rc = np_txn_apply(&l->ctx, &o, "live", c, 2, &txn);
	} else {
		*rc = np_txn_apply(&l->ctx, &o, "live", c, 3, &txn);
	}
	for (int i = 0; i < 3; i++)
		free(c[i].old_value);
}

/* Skips, saying why (tests/run.sh shows the line before the skip). */
#define skip_why()                                                                          \
	do {                                                                                \
		print_message("needs root, a writable " RQ " and virtio IRQs named "        \
			      "*-input.0 and *-req.0\n");                                   \
		skip();                                                                     \
	} while (0)

static void test_kernel_rejects_cpu_out_of_range(void **state)
{
	struct live *l = *state;
	if (!l->saved[0])
		skip_why();
	int rc;
	apply_three(l, "64", &rc);
	assert_true(rc == -ERANGE || rc == -EINVAL);
	assert_non_null(strstr(l->ctx.err, "smp_affinity_list"));
	assert_unchanged(l);
}

static void test_kernel_rejects_managed_irq(void **state)
{
	struct live *l = *state;
	if (!l->saved[0])
		skip_why();
	int rc;
	/* Another CPU than the one it is on, so the write is a real change. */
	apply_three(l, strcmp(l->saved[2], "0") ? "0" : "1", &rc);
	assert_true(rc == -EPERM || rc == -EIO);
	assert_unchanged(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kernel_rejects_cpu_out_of_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_rejects_managed_irq, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
