/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a transaction costs in syncs (issue 35): a constant, not one or two a
 * value. The old values are synced once before the first write (the pending
 * journal), the values written to regular files (a copy of a machine under
 * --root) once after the last (one syncfs), then the outcome. This file's
 * fsync, fdatasync and syncfs, which the library links to, count the calls
 * in their order. Before, 512 values took 1,027 syncs: each value's file
 * and its directory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/context.h"
#include "change/txn.h"
#include "tmproot.h"

#define NVALUES 512

/* The syncs since the last reset, in order: 'f' fsync, 'd' fdatasync, 's' syncfs. */
static char calls[4 * NVALUES + 16];
static size_t ncalls;

static void record(char c)
{
	if (ncalls < sizeof(calls) - 1)
		calls[ncalls++] = c;
	calls[ncalls] = '\0';
}

int fsync(int fd)
{
	record('f');
	return (int)syscall(SYS_fsync, fd);
}

int fdatasync(int fd)
{
	record('d');
	return (int)syscall(SYS_fdatasync, fd);
}

int syncfs(int fd)
{
	record('s');
	return (int)syscall(SYS_syncfs, fd);
}

struct fixture {
	char root[64];
	struct np_ctx ctx;
	struct np_txn_opts opts;
	struct np_change c[NVALUES];
	char paths[NVALUES][48];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f || tmproot_create(f->root, sizeof(f->root), "/tmp/numaplace-sync-XXXXXX", &f->ctx))
		return -1;
	tmproot_put(f->root, "/proc/sys/kernel/random/boot_id", "1b2c-boot\n");
	for (int i = 0; i < NVALUES; i++) {
		snprintf(f->paths[i], sizeof(f->paths[i]), "/proc/irq/%d/smp_affinity_list", i);
		tmproot_put(f->root, f->paths[i], "0-3\n");
	}
	/* The state directory made once, as on a machine that applied before. */
	struct np_change one = { .path = f->paths[0], .attr = NP_ATTR_IRQ_AFFINITY, .subject = "irq 0",
				 .new_value = "0-3" };
	if (np_txn_apply(&f->ctx, &f->opts, "setup", &one, 1, NULL))
		return -1;
	free(one.old_value);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc = tmproot_remove(f->root, &f->ctx);
	free(f);
	return rc;
}

static void set_changes(struct fixture *f, char *value)
{
	for (int i = 0; i < NVALUES; i++)
		f->c[i] = (struct np_change){ .path = f->paths[i], .attr = NP_ATTR_IRQ_AFFINITY, .subject = "irq",
					      .new_value = value };
}

static void free_olds(struct fixture *f)
{
	for (int i = 0; i < NVALUES; i++)
		free(f->c[i].old_value);
}

static void assert_calls(const char *what, const char *want)
{
	if (strcmp(calls, want))
		fail_msg("%s: %zu syncs '%.60s%s', expected '%s'", what, ncalls, calls, ncalls > 60 ? "..." : "", want);
}

static void test_apply_and_revert_sync_a_constant_number_of_times(void **state)
{
	struct fixture *f = *state;
	struct np_txn txn;
	char *got;

	set_changes(f, "1");
	ncalls = 0;
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "many", f->c, NVALUES, &txn), 0);
	free_olds(f);
	/* The pending journal and its name, the values, the outcome. */
	assert_calls("apply", "dfsd");
	assert_int_equal(txn.nchanges, NVALUES);
	got = tmproot_slurp(f->root, f->paths[NVALUES - 1], 64);
	assert_string_equal(got, "1\n");
	free(got);

	ncalls = 0;
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, txn.id, false, NULL), 0);
	/* The journal marked pending, the values, the outcome. */
	assert_calls("revert", "dfsdf");
	got = tmproot_slurp(f->root, f->paths[NVALUES - 1], 64);
	assert_string_equal(got, "0-3\n");
	free(got);
	np_txn_free(&txn);
}

/* A write that fails half way: the values undone are synced before the
 * journal says rolled back, still once. */
static void test_rolled_back_apply_syncs_once(void **state)
{
	struct fixture *f = *state;
	char path[TMPROOT_PATH_MAX], real[TMPROOT_PATH_MAX + 8];

	/* A link, which a read follows and a write refuses (O_NOFOLLOW). */
	set_changes(f, "1");
	snprintf(path, sizeof(path), "%s%s", f->root, f->paths[NVALUES / 2]);
	snprintf(real, sizeof(real), "%s.real", path);
	assert_int_equal(rename(path, real), 0);
	assert_int_equal(symlink("smp_affinity_list.real", path), 0);
	ncalls = 0;
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "many", f->c, NVALUES, NULL), -ELOOP);
	free_olds(f);
	assert_calls("rolled back apply", "dfsdf");
	char *got = tmproot_slurp(f->root, f->paths[0], 64);
	assert_string_equal(got, "0-3\n");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_apply_and_revert_sync_a_constant_number_of_times, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rolled_back_apply_syncs_once, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
