/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Transactions (lib/change/txn.c) against a scratch root of plain files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/context.h"
#include "change/irqbalance.h"
#include "change/stop.h"
#include "change/txn.h"
#include "tmproot.h"

#define IRQ45 "/proc/irq/45/smp_affinity_list"
#define IRQ46 "/proc/irq/46/smp_affinity_list"
#define RQ "/sys/block/sda/queue/rq_affinity"
#define RPS "/sys/class/net/eth0/queues/rx-0/rps_cpus"
#define XPS "/sys/class/net/eth0/queues/tx-0/xps_cpus"
#define IRQ99 "/proc/irq/99/smp_affinity_list"
#define BOOT "/proc/sys/kernel/random/boot_id"
#define STATE NP_STATE_DIR

struct fixture {
	char root[64];
	struct np_ctx ctx;
	struct np_txn_opts opts;
};

/* Machine files end in a newline, as the kernel prints them (and as numaplace
 * writes them), so a restored file is byte-identical to the original. */
static bool is_machine_file(const char *rel, const char *content)
{
	size_t len = strlen(content);
	return (!strncmp(rel, "/proc/", 6) || !strncmp(rel, "/sys/", 5)) && len && content[len - 1] != '\n';
}

/* tmproot_put, with the newline of a machine file added. */
static void put(const struct fixture *f, const char *rel, const char *value)
{
	char content[4096];
	snprintf(content, sizeof(content), "%s%s", value, is_machine_file(rel, value) ? "\n" : "");
	tmproot_put(f->root, rel, content);
}

static void assert_file(const struct fixture *f, const char *rel, const char *value)
{
	char want[4096];
	snprintf(want, sizeof(want), "%s%s", value, is_machine_file(rel, value) ? "\n" : "");
	char *got = tmproot_slurp(f->root, rel, 1 << 16);
	if (!got)
		fail_msg("'%s' is missing", rel);
	if (strcmp(got, want)) {
		char msg[8400];
		snprintf(msg, sizeof(msg), "'%s' holds '%s', expected '%s'", rel, got, want);
		free(got);
		fail_msg("%s", msg);
	}
	free(got);
}

static bool exists(const struct fixture *f, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;
	tmproot_path(f->root, path, rel);
	return lstat(path, &st) == 0;
}

/* Number of entries in root + rel, or -1 when it does not exist. */
static int count_entries(const struct fixture *f, const char *rel)
{
	char path[PATH_MAX];
	tmproot_path(f->root, path, rel);
	DIR *dir = opendir(path);
	if (!dir)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(dir);
	return n;
}

static cJSON *journal(const struct fixture *f, const char *id)
{
	char rel[PATH_MAX];
	snprintf(rel, sizeof(rel), STATE "/txn/%s.json", id);
	char *text = tmproot_slurp(f->root, rel, 1 << 16);
	if (!text)
		fail_msg("journal '%s' is missing", rel);
	cJSON *j = cJSON_Parse(text);
	free(text);
	assert_non_null(j);
	return j;
}

static const char *jstr(const cJSON *obj, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!cJSON_IsString(item))
		fail_msg("journal field '%s' is not a string", key);
	return item->valuestring;
}

static void assert_journal_state(const struct fixture *f, const char *id, const char *state)
{
	cJSON *j = journal(f, id);
	assert_string_equal(jstr(j, "state"), state);
	cJSON_Delete(j);
}

static void free_olds(struct np_change *changes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(changes[i].old_value);
		changes[i].old_value = NULL;
	}
}

/* The original tree every test starts from. */
static void put_tree(const struct fixture *f)
{
	put(f, IRQ45, "0-1");
	put(f, IRQ46, "0-1");
	put(f, RQ, "1");
	put(f, RPS, "00000000");
	put(f, BOOT, "0f2a-boot-one\n");
}

static void assert_tree_original(const struct fixture *f)
{
	assert_file(f, IRQ45, "0-1");
	assert_file(f, IRQ46, "0-1");
	assert_file(f, RQ, "1");
	assert_file(f, RPS, "00000000");
}

#define NCHANGES 4
static void set_changes(struct np_change *c)
{
	memset(c, 0, NCHANGES * sizeof(*c));
	c[0] = (struct np_change){ .path = IRQ45, .attr = NP_ATTR_IRQ_AFFINITY, .subject = "0000:23:00.0 queue 0 (irq 45)", .new_value = "1" };
	c[1] = (struct np_change){ .path = IRQ46, .attr = NP_ATTR_IRQ_AFFINITY, .subject = "0000:23:00.0 queue 1 (irq 46)", .new_value = "0" };
	c[2] = (struct np_change){ .path = RQ, .attr = NP_ATTR_RQ_AFFINITY, .subject = "sda rq_affinity", .new_value = "2" };
	c[3] = (struct np_change){ .path = RPS, .attr = NP_ATTR_RPS_CPUS, .subject = "eth0 rx-0 rps_cpus", .new_value = "2" };
}

static void assert_tree_applied(const struct fixture *f)
{
	assert_file(f, IRQ45, "1");
	assert_file(f, IRQ46, "0");
	assert_file(f, RQ, "2");
	assert_file(f, RPS, "2");
}

/* Applies the standard changes and returns the new transaction's id. */
static char *apply_standard(struct fixture *f)
{
	struct np_change c[NCHANGES];
	struct np_txn txn;
	set_changes(c);
	int rc = np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, &txn);
	if (rc)
		fail_msg("apply: %d %s", rc, f->ctx.err);
	free_olds(c, NCHANGES);
	char *id = strdup(txn.id);
	np_txn_free(&txn);
	return id;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	if (tmproot_create(f->root, sizeof(f->root), "/tmp/numaplace-txn-XXXXXX", &f->ctx)) {
		free(f);
		return -1;
	}
	unsetenv(NP_FAULT_ENV);
	put_tree(f);
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

static void assert_norm(enum np_value_kind kind, const char *in, const char *want)
{
	char *got = np_value_normalize(kind, in);
	if (!want) {
		if (got)
			fail_msg("'%s' normalized to '%s', expected malformed", in, got);
		return;
	}
	if (!got)
		fail_msg("'%s' is malformed, expected '%s'", in, want);
	assert_string_equal(got, want);
	free(got);
}

static void test_normalize(void **state)
{
	(void)state;
	assert_norm(NP_VALUE_CPULIST, "0,1,2,3", "0-3");
	assert_norm(NP_VALUE_CPULIST, "0-3", "0-3");
	assert_norm(NP_VALUE_CPULIST, "3,0-1,8\n", "0-1,3,8");
	assert_norm(NP_VALUE_CPULIST, "0, 1, 2", "0-2");
	assert_norm(NP_VALUE_CPULIST, "", "");
	assert_norm(NP_VALUE_CPULIST, "3-1", NULL);
	assert_norm(NP_VALUE_CPULIST, "a", NULL);
	assert_norm(NP_VALUE_CPULIST, "0-", NULL);
	assert_norm(NP_VALUE_CPULIST, "0-4000000000", NULL);

	/* Masks normalize to lists: width and leading groups never matter. */
	assert_norm(NP_VALUE_CPUMASK, "00000000,00000003", "0-1");
	assert_norm(NP_VALUE_CPUMASK, "3", "0-1");
	assert_norm(NP_VALUE_CPUMASK, "000000aa\n", "1,3,5,7");
	assert_norm(NP_VALUE_CPUMASK, "1,00000000", "32");
	assert_norm(NP_VALUE_CPUMASK, "00000000", "");
	assert_norm(NP_VALUE_CPUMASK, "", NULL);
	assert_norm(NP_VALUE_CPUMASK, "xyz", NULL);
	assert_norm(NP_VALUE_CPUMASK, "0-3", NULL);
	assert_norm(NP_VALUE_CPUMASK, "3,", NULL);

	assert_norm(NP_VALUE_INT, "2", "2");
	assert_norm(NP_VALUE_INT, " 007\n", "7");
	assert_norm(NP_VALUE_INT, "-1", "-1");
	assert_norm(NP_VALUE_INT, "+5", "5");
	assert_norm(NP_VALUE_INT, "", NULL);
	assert_norm(NP_VALUE_INT, " ", NULL);
	assert_norm(NP_VALUE_INT, "1x", NULL);
	assert_norm(NP_VALUE_INT, "1 2", NULL);
	assert_norm(NP_VALUE_INT, "-", NULL);
	assert_norm(NP_VALUE_INT, "99999999999999999999", NULL);

	assert_null(np_value_normalize(NP_VALUE_INT, NULL));
	assert_null(np_value_normalize((enum np_value_kind)42, "1"));
}

static void test_value_matches(void **state)
{
	struct fixture *f = *state;
	put(f, XPS, "00000000,00000003\n");
	assert_int_equal(np_value_matches(&f->ctx, XPS, NP_VALUE_CPUMASK, "3"), 1);
	assert_int_equal(np_value_matches(&f->ctx, XPS, NP_VALUE_CPUMASK, "1"), 0);
	assert_int_equal(np_value_matches(&f->ctx, IRQ45, NP_VALUE_CPULIST, "0,1"), 1);
	assert_int_equal(np_value_matches(&f->ctx, IRQ45, NP_VALUE_CPULIST, "1"), 0);

	/* rq_affinity silently ignoring 5: the file still says 1, which is a mismatch. */
	assert_int_equal(np_value_matches(&f->ctx, RQ, NP_VALUE_INT, "5"), 0);
	assert_int_equal(np_value_matches(&f->ctx, RQ, NP_VALUE_INT, "01"), 1);

	assert_int_equal(np_value_matches(&f->ctx, IRQ99, NP_VALUE_CPULIST, "1"), -ENOENT);
	assert_err_has(&f->ctx, "/proc/irq/99/smp_affinity_list");
	assert_int_equal(np_value_matches(&f->ctx, IRQ45, NP_VALUE_CPULIST, "x"), -EINVAL);
	assert_err_has(&f->ctx, "'x' is not a valid cpulist value");
	put(f, IRQ99, "garbage");
	assert_int_equal(np_value_matches(&f->ctx, IRQ99, NP_VALUE_CPULIST, "1"), -EINVAL);
	assert_err_has(&f->ctx, "found 'garbage'");
}

static void test_apply_writes_and_journals(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES];
	struct np_txn txn;

	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, &txn), 0);
	assert_tree_applied(f);

	/* The caller's changes learn their old values, as read. */
	assert_string_equal(c[0].old_value, "0-1");
	assert_string_equal(c[2].old_value, "1");
	assert_string_equal(c[3].old_value, "00000000");
	free_olds(c, NCHANGES);

	assert_int_equal(txn.nchanges, NCHANGES);
	assert_int_equal(txn.state, NP_TXN_APPLIED);
	assert_string_equal(txn.profile, "web");
	assert_string_equal(txn.boot_id, "0f2a-boot-one");
	assert_non_null(txn.id);
	/* YYYYMMDD-HHMMSS-SEQ: the first transaction of this state directory */
	assert_true(strlen(txn.id) > 16 && txn.id[8] == '-' && txn.id[15] == '-');
	assert_string_equal(txn.id + 15, "-1");
	assert_true(txn.time > 1600000000);
	assert_string_equal(txn.changes[1].old_value, "0-1");
	assert_string_equal(txn.changes[1].new_value, "0");

	cJSON *j = journal(f, txn.id);
	assert_string_equal(jstr(j, "id"), txn.id);
	assert_string_equal(jstr(j, "profile"), "web");
	assert_string_equal(jstr(j, "boot_id"), "0f2a-boot-one");
	assert_string_equal(jstr(j, "state"), "applied");
	assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "time")));
	assert_null(cJSON_GetObjectItemCaseSensitive(j, "error"));
	const cJSON *changes = cJSON_GetObjectItemCaseSensitive(j, "changes");
	assert_int_equal(cJSON_GetArraySize(changes), NCHANGES);
	const cJSON *c0 = cJSON_GetArrayItem(changes, 0), *c3 = cJSON_GetArrayItem(changes, 3);
	assert_string_equal(jstr(c0, "path"), IRQ45);
	assert_string_equal(jstr(c0, "kind"), "cpulist");
	assert_string_equal(jstr(c0, "subject"), "0000:23:00.0 queue 0 (irq 45)");
	assert_string_equal(jstr(c0, "old"), "0-1\n"); /* the bytes read, for a byte-exact revert */
	assert_string_equal(jstr(c0, "new"), "1");
	assert_string_equal(jstr(c3, "kind"), "cpumask");
	assert_string_equal(jstr(c3, "old"), "00000000\n");
	assert_string_equal(jstr(c3, "new"), "2");
	assert_string_equal(jstr(cJSON_GetArrayItem(changes, 2), "kind"), "int");
	cJSON_Delete(j);

	/* Nothing temporary is left behind. */
	assert_int_equal(count_entries(f, STATE "/txn"), 1);
	np_txn_free(&txn);
	assert_null(txn.id);
}

static void test_apply_already_matching(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES];
	struct np_txn txn;

	/* Same values, written differently from the files. */
	set_changes(c);
	c[0].new_value = "0,1";
	c[1].new_value = "0-1";
	c[2].new_value = "01";
	c[3].new_value = "00000000,00000000";
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, &txn), 0);
	assert_int_equal(txn.nchanges, 0);
	assert_null(txn.id);
	assert_string_equal(c[1].old_value, "0-1");
	free_olds(c, NCHANGES);
	np_txn_free(&txn);
	assert_tree_original(f);
	assert_true(count_entries(f, STATE "/txn") <= 0);

	/* Only the differing change is journaled. */
	set_changes(c);
	c[0].new_value = "0-1";
	c[1].new_value = "0-1";
	c[3].new_value = "0";
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, NULL, c, NCHANGES, &txn), 0);
	free_olds(c, NCHANGES);
	assert_int_equal(txn.nchanges, 1);
	assert_string_equal(txn.changes[0].path, RQ);
	assert_string_equal(txn.profile, "");
	assert_file(f, RQ, "2");
	np_txn_free(&txn);
}

static void test_apply_invalid(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES];
	struct np_txn txn;

	set_changes(c);
	c[2].new_value = "two";
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, &txn), -EINVAL);
	assert_err_has(&f->ctx, "sda rq_affinity");
	assert_err_has(&f->ctx, "'two' is not a valid rq_affinity value");

	set_changes(c);
	c[1].path = "/etc/passwd";
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, &txn), -EINVAL);
	assert_err_has(&f->ctx, "'/etc/passwd' is not the path of irq_affinity");

	/* Under /proc, but not the change's own kind's file. */
	set_changes(c);
	c[1].path = "/proc/sys/kernel/panic";
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, &txn), -EINVAL);
	set_changes(c);
	c[1].path = RQ;
	c[2].path = "/sys/block/sdb/queue/rq_affinity";
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, &txn), -EINVAL);
	assert_err_has(&f->ctx, "'" RQ "' is not the path of irq_affinity");

	set_changes(c);
	c[1].path = "/proc/irq/../../etc/passwd";
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, &txn), -EINVAL);

	set_changes(c);
	c[1].path = IRQ45;
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, &txn), -EINVAL);
	assert_err_has(&f->ctx, "two changes of '" IRQ45 "'");

	/* Refused before anything was touched, state directory included. */
	assert_tree_original(f);
	assert_false(exists(f, STATE));
	assert_null(txn.id);
}

/* Read works through a symlink, but np_write_text's O_NOFOLLOW refuses it:
 * a write the "kernel" rejects after the old value was read fine. */
static void reject_writes(const struct fixture *f, const char *rel, const char *content)
{
	char path[PATH_MAX], target[PATH_MAX + 8];
	tmproot_path(f->root, path, rel);
	snprintf(target, sizeof(target), "%s.real", path);
	put(f, rel, content);
	assert_int_equal(rename(path, target), 0);
	/* Relative: resolved inside the root, as every path under it is. */
	assert_int_equal(symlink(strrchr(target, '/') + 1, path), 0);
}

static void test_apply_failure_rolls_back(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES];
	struct np_txn txn;
	char want[PATH_MAX + 128], path[PATH_MAX];

	reject_writes(f, RQ, "1");
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, &txn), -ELOOP);
	free_olds(c, NCHANGES);
	tmproot_path(f->root, path, RQ);
	snprintf(want, sizeof(want), "cannot open '%s' for writing: %s (sda rq_affinity)", path,
		 strerror(ELOOP));
	assert_string_equal(f->ctx.err, want);
	assert_null(txn.id);

	/* The two earlier writes were undone, byte for byte; the later one never made. */
	assert_tree_original(f);
	assert_file(f, RQ ".real", "1");

	struct np_txn *txns;
	size_t n;
	assert_int_equal(np_txn_list(&f->ctx, &f->opts, &txns, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(txns[0].state, NP_TXN_ROLLED_BACK);
	cJSON *j = journal(f, txns[0].id);
	assert_string_equal(jstr(j, "state"), "rolled_back");
	assert_string_equal(jstr(j, "error"), want);
	cJSON_Delete(j);

	char *pending;
	assert_int_equal(np_txn_pending(&f->ctx, &f->opts, &pending), 0);
	assert_null(pending);
	/* Nothing to revert, and reverting it by id is refused. */
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -ENOENT);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, txns[0].id, false, NULL), -EINVAL);
	assert_err_has(&f->ctx, "rolled back");
	np_txns_free(txns, n);
}

static void test_apply_unreadable_target(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES];
	char path[PATH_MAX];

	/* A directory in place of the third file: its old value cannot be read,
	 * so apply stops before writing anything, journal included. */
	tmproot_path(f->root, path, RQ);
	assert_int_equal(unlink(path), 0);
	tmproot_make_dirs(f->root, RQ);
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), -EISDIR);
	free_olds(c, NCHANGES);
	assert_err_has(&f->ctx, path);
	assert_err_has(&f->ctx, "(sda rq_affinity)");
	assert_file(f, IRQ45, "0-1");
	assert_file(f, IRQ46, "0-1");
	assert_int_equal(count_entries(f, STATE "/txn"), 0);

	/* A missing file likewise. */
	set_changes(c);
	c[1].path = "/proc/irq/99/smp_affinity_list";
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, 2, NULL), -ENOENT);
	free_olds(c, NCHANGES);
	assert_file(f, IRQ45, "0-1");
	assert_int_equal(count_entries(f, STATE "/txn"), 0);
}

static void test_apply_mismatch_rolls_back(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES];
	char path[PATH_MAX];

	/* /dev/null takes any write and reads back empty (an empty CPU list):
	 * a value the "kernel" accepted and did not keep. */
	tmproot_path(f->root, path, IRQ46);
	assert_int_equal(unlink(path), 0);
	if (mknod(path, S_IFCHR | 0644, makedev(1, 3)) < 0) {
		print_message("cannot make a /dev/null node (needs root): %s\n", strerror(errno));
		put(f, IRQ46, "0-1");
		skip();
	}
	int fd = open(path, O_WRONLY);
	if (fd < 0) {
		print_message("cannot open the /dev/null node (nodev mount?): %s\n", strerror(errno));
		unlink(path);
		put(f, IRQ46, "0-1");
		skip();
	}
	close(fd);

	/* A device in a copied root is no kernel attribute: refused before
	 * anything is written (reading a device could block or never end). */
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), -EINVAL);
	free_olds(c, NCHANGES);
	assert_err_has(&f->ctx, "is not a regular file or kernel attribute");
	assert_err_has(&f->ctx, "(0000:23:00.0 queue 1 (irq 46))");
	assert_file(f, IRQ45, "0-1");
	assert_file(f, RQ, "1");
	assert_file(f, RPS, "00000000");
	assert_int_equal(count_entries(f, STATE "/txn"), 0);
}

static void test_revert_restores(void **state)
{
	struct fixture *f = *state;
	struct np_txn txn;

	char *id = apply_standard(f);
	assert_tree_applied(f);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, &txn), 0);
	assert_tree_original(f);
	assert_string_equal(txn.id, id);
	assert_int_equal(txn.state, NP_TXN_REVERTED);
	np_txn_free(&txn);
	assert_journal_state(f, id, "reverted");

	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, id, false, &txn), -EINVAL);
	assert_err_has(&f->ctx, "already reverted");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, &txn), -ENOENT);
	assert_err_has(&f->ctx, "no applied transaction");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, "nope", false, &txn), -ENOENT);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, "../../etc/x", false, &txn), -EINVAL);
	assert_tree_original(f);
	free(id);
}

/* A value already back at its old value (a driver reset to its default)
 * is no one's change to refuse: the revert leaves it and restores the
 * rest. Before issue 22 this was drift ("it is '0-1', expected '1'"). */
static void test_revert_value_already_old_is_not_drift(void **state)
{
	struct fixture *f = *state;
	struct np_txn txn;

	char *id = apply_standard(f);
	put(f, IRQ45, "0-1");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, &txn), 0);
	assert_tree_original(f);
	np_txn_free(&txn);
	assert_journal_state(f, id, "reverted");
	free(id);
}

static void test_revert_nothing(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -ENOENT);
	assert_err_has(&f->ctx, "nothing to revert");
	assert_false(exists(f, STATE));
}

static void test_revert_refuses_drift(void **state)
{
	struct fixture *f = *state;
	char want[PATH_MAX + 64];

	char *id = apply_standard(f);
	put(f, IRQ46, "3");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -EBUSY);
	tmproot_path(f->root, want, IRQ46);
	assert_err_has(&f->ctx, want);
	assert_err_has(&f->ctx, "it is '3', expected '0'");
	assert_err_has(&f->ctx, "--force");
	/* Nothing written, journal untouched. */
	assert_file(f, IRQ45, "1");
	assert_file(f, IRQ46, "3");
	assert_file(f, RQ, "2");
	assert_file(f, RPS, "2");
	assert_journal_state(f, id, "applied");

	/* Two changed: the first is named, the rest counted. */
	put(f, RQ, "0");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, id, false, NULL), -EBUSY);
	assert_err_has(&f->ctx, "(and 1 more)");

	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, id, true, NULL), 0);
	assert_tree_original(f);
	assert_journal_state(f, id, "reverted");
	free(id);
}

static void test_revert_failure_rolls_back(void **state)
{
	struct fixture *f = *state;
	char *id = apply_standard(f);

	/* The revert writes the last change first; the first change is refused. */
	reject_writes(f, IRQ45, "1");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -ELOOP);
	assert_err_has(&f->ctx, "Too many levels of symbolic links (0000:23:00.0 queue 0 (irq 45))");
	assert_err_has(&f->ctx, "the revert's writes were undone");
	assert_tree_applied(f);
	assert_file(f, IRQ45 ".real", "1");
	assert_journal_state(f, id, "applied");
	free(id);
}

static void test_revert_stale(void **state)
{
	struct fixture *f = *state;
	char *id = apply_standard(f);

	put(f, BOOT, "77aa-boot-two\n");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -ESTALE);
	assert_err_has(&f->ctx, id);
	assert_err_has(&f->ctx, "reboot already reset");
	assert_tree_applied(f);
	assert_journal_state(f, id, "stale");

	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, id, true, NULL), -EINVAL);
	assert_err_has(&f->ctx, "stale");
	assert_tree_applied(f);

	/* Without a boot id to compare, values are taken as this boot's. */
	char *id2;
	put_tree(f);
	char path[PATH_MAX];
	tmproot_path(f->root, path, BOOT);
	assert_int_equal(unlink(path), 0);
	id2 = apply_standard(f);
	cJSON *j = journal(f, id2);
	assert_string_equal(jstr(j, "boot_id"), "unknown");
	cJSON_Delete(j);
	put(f, BOOT, "77aa-boot-two\n");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), 0);
	assert_tree_original(f);
	free(id);
	free(id2);
}

static void test_crash_then_revert(void **state)
{
	struct fixture *f = *state;

	for (int k = 1; k <= 3; k++) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct np_change c[NCHANGES];
			set_changes(c);
			char kbuf[16];
			snprintf(kbuf, sizeof(kbuf), "%d", k);
			setenv(NP_FAULT_ENV, kbuf, 1);
			int rc = np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL);
			_exit(rc ? 1 : 0);
		}
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 3);

		/* k writes made, the rest not: the journal says pending. */
		assert_file(f, IRQ45, "1");
		assert_file(f, IRQ46, k >= 2 ? "0" : "0-1");
		assert_file(f, RQ, k >= 3 ? "2" : "1");
		assert_file(f, RPS, "00000000");

		char *pending;
		assert_int_equal(np_txn_pending(&f->ctx, &f->opts, &pending), 0);
		assert_non_null(pending);
		assert_journal_state(f, pending, "pending");

		/* No apply before the crash is dealt with. */
		struct np_change c[NCHANGES];
		set_changes(c);
		assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), -EBUSY);
		assert_err_has(&f->ctx, pending);
		assert_err_has(&f->ctx, "run 'numaplace revert' first");
		free_olds(c, NCHANGES);

		struct np_txn txn;
		assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, &txn), 0);
		assert_string_equal(txn.id, pending);
		np_txn_free(&txn);
		assert_tree_original(f);
		assert_journal_state(f, pending, "reverted");
		free(pending);
		assert_int_equal(np_txn_pending(&f->ctx, &f->opts, &pending), 0);
		assert_null(pending);
	}
}

static void test_crash_then_reboot(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES];

	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		set_changes(c);
		setenv(NP_FAULT_ENV, "2", 1);
		_exit(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL) ? 1 : 0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);

	/* The reboot reset the values; the pending journal must not block forever. */
	put_tree(f);
	put(f, BOOT, "77aa-boot-two\n");
	char *pending;
	assert_int_equal(np_txn_pending(&f->ctx, &f->opts, &pending), 0);
	assert_non_null(pending);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -ESTALE);
	assert_tree_original(f);
	assert_journal_state(f, pending, "stale");
	free(pending);
	assert_int_equal(np_txn_pending(&f->ctx, &f->opts, &pending), 0);
	assert_null(pending);
	free(apply_standard(f));
	assert_tree_applied(f);
}

/* Takes the state directory's lock as another apply would; path gets the
 * lock's path. Returns its descriptor: closing it lets go. */
static int hold_state_lock(struct fixture *f, char path[PATH_MAX])
{
	tmproot_make_dirs(f->root, STATE);
	tmproot_path(f->root, path, STATE);
	assert_int_equal(chmod(path, 0700), 0);
	tmproot_path(f->root, path, STATE "/lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	return fd;
}

static void test_lock_contention(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	struct np_change c[NCHANGES];

	int fd = hold_state_lock(f, path);

	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), -EBUSY);
	free_olds(c, NCHANGES);
	assert_err_has(&f->ctx, "another numaplace apply or revert is running (lock '");
	assert_err_has(&f->ctx, path);
	assert_tree_original(f);
	assert_true(count_entries(f, STATE "/txn") <= 0);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -EBUSY);

	/* Reading the journals needs no lock. */
	struct np_txn *txns;
	size_t n;
	assert_int_equal(np_txn_list(&f->ctx, &f->opts, &txns, &n), 0);
	assert_int_equal(n, 0);

	assert_int_equal(close(fd), 0);
	char *id = apply_standard(f);
	assert_tree_applied(f);
	free(id);
}

static void assert_mode(const struct fixture *f, const char *rel, unsigned mode, bool dir)
{
	char path[PATH_MAX];
	struct stat st;
	tmproot_path(f->root, path, rel);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, mode);
}

static void test_state_dir_created(void **state)
{
	struct fixture *f = *state;
	char *id = apply_standard(f);
	char rel[PATH_MAX];

	assert_mode(f, "/var", 0700, true);
	assert_mode(f, STATE, 0700, true);
	assert_mode(f, STATE "/txn", 0700, true);
	assert_mode(f, STATE "/lock", 0600, false);
	snprintf(rel, sizeof(rel), STATE "/txn/%s.json", id);
	assert_mode(f, rel, 0600, false);
	free(id);

	/* An explicit state directory is used as given, outside the root's layout. */
	char dir[PATH_MAX];
	tmproot_path(f->root, dir, "/elsewhere/state");
	f->opts.state_dir = dir;
	put_tree(f);
	id = apply_standard(f);
	assert_mode(f, "/elsewhere/state", 0700, true);
	snprintf(rel, sizeof(rel), "/elsewhere/state/txn/%s.json", id);
	assert_mode(f, rel, 0600, false);
	free(id);
}

static void test_state_dir_refused(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX], target[PATH_MAX];
	struct np_change c[NCHANGES];
	struct np_txn *txns;
	size_t n;

	tmproot_make_dirs(f->root, "/var/lib");
	tmproot_make_dirs(f->root, "/attacker");
	tmproot_path(f->root, target, "/attacker");
	assert_int_equal(chmod(target, 0700), 0);
	tmproot_path(f->root, path, STATE);
	assert_int_equal(symlink(target, path), 0);

	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), -ELOOP);
	free_olds(c, NCHANGES);
	assert_err_has(&f->ctx, "is a symbolic link");
	assert_err_has(&f->ctx, path);
	assert_tree_original(f);
	assert_int_equal(count_entries(f, "/attacker"), 0);
	assert_int_equal(np_txn_list(&f->ctx, &f->opts, &txns, &n), -ELOOP);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -ELOOP);

	/* A file in its place. */
	assert_int_equal(unlink(path), 0);
	put(f, STATE, "");
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), -ENOTDIR);
	free_olds(c, NCHANGES);

	/* A directory others may write to. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chmod(path, 0777), 0);
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), -EPERM);
	free_olds(c, NCHANGES);
	assert_err_has(&f->ctx, "writable by other users");

	/* A symlinked journal directory inside a good state directory. */
	assert_int_equal(chmod(path, 0700), 0);
	tmproot_path(f->root, path, STATE "/txn");
	assert_int_equal(symlink(target, path), 0);
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), -ELOOP);
	free_olds(c, NCHANGES);
	assert_tree_original(f);
	assert_int_equal(count_entries(f, "/attacker"), 0);
}

static void test_list_oldest_first(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES];
	struct np_txn *txns, txn;
	size_t n;

	assert_int_equal(np_txn_list(&f->ctx, &f->opts, &txns, &n), 0);
	assert_int_equal(n, 0);
	assert_null(txns);

	char *ids[3];
	const char *profiles[] = { "a", "b", "c" }, *values[] = { "1", "0", "1" };
	for (int i = 0; i < 3; i++) {
		set_changes(c);
		c[0].new_value = (char *)values[i];
		assert_int_equal(np_txn_apply(&f->ctx, &f->opts, profiles[i], c, 1, &txn), 0);
		free_olds(c, NCHANGES);
		ids[i] = strdup(txn.id);
		np_txn_free(&txn);
		/* The third in another second: its sequence number still counts
		 * the journals before it (it once restarted at 1 there). */
		if (i == 1)
			sleep(1);
	}
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), 0);
	assert_file(f, IRQ45, "0");

	assert_int_equal(np_txn_list(&f->ctx, &f->opts, &txns, &n), 0);
	assert_int_equal(n, 3);
	for (int i = 0; i < 3; i++)
		assert_string_equal(txns[i].id, ids[i]);
	assert_string_equal(txns[0].profile, "a");
	assert_string_equal(txns[2].profile, "c");
	assert_int_equal(txns[0].state, NP_TXN_APPLIED);
	assert_int_equal(txns[2].state, NP_TXN_REVERTED);
	assert_true(txns[0].time <= txns[2].time);
	assert_string_equal(txns[1].changes[0].old_value, "1");
	/* The sequence number orders transactions made within one second. */
	for (int i = 0; i < 3; i++) {
		char want[16];
		snprintf(want, sizeof(want), "-%d", i + 1);
		assert_string_equal(ids[i] + 15, want);
	}
	np_txns_free(txns, n);

	/* A stray temporary file is no journal; a broken journal is an error naming it. */
	put(f, STATE "/txn/x.json.tmp", "{");
	assert_int_equal(np_txn_list(&f->ctx, &f->opts, &txns, &n), 0);
	assert_int_equal(n, 3);
	np_txns_free(txns, n);
	/* A broken journal is listed as unreadable, with the file and why; the
	 * others keep working, and only its own revert refuses. */
	static const struct {
		const char *text, *why;
	} broken[] = {
		{ "{\"id\": 3}", "20000101-000000-1.json' is malformed" },
		{ "{\"id\": \"20000101-000000-1\", \"profile\": \"\", \"boot_id\": \"x\", "
		  "\"time\": 1e300, \"state\": \"applied\", \"changes\": []}", "time out of range" },
		{ "{\"id\": \"20000101-000000-1\", \"profile\": \"\", \"boot_id\": \"x\", "
		  "\"time\": 1, \"state\": \"unreadable\", \"changes\": []}", "unknown state" },
		{ "{\"id\": \"20000101-000000-1\", \"profile\": \"\", \"boot_id\": \"x\", "
		  "\"time\": 1, \"state\": \"applied\", \"changes\": [{\"path\": \"/etc/shadow\", "
		  "\"kind\": \"int\", \"subject\": \"\", \"old\": \"1\", \"new\": \"2\"}]}",
		  "is not the path of a tunable kind" },
	};
	for (size_t b = 0; b < sizeof(broken) / sizeof(broken[0]); b++) {
		put(f, STATE "/txn/20000101-000000-1.json", broken[b].text);
		assert_int_equal(np_txn_list(&f->ctx, &f->opts, &txns, &n), 0);
		assert_int_equal(n, 4);
		assert_int_equal(txns[0].state, NP_TXN_UNREADABLE);
		assert_string_equal(txns[0].id, "20000101-000000-1");
		assert_non_null(strstr(txns[0].unreadable, broken[b].why));
		assert_string_equal(txns[3].profile, "c");
		np_txns_free(txns, n);
		assert_int_equal(np_txn_revert(&f->ctx, &f->opts, "20000101-000000-1", true, NULL), -EINVAL);
		assert_err_has(&f->ctx, broken[b].why);
	}
	/* A journal that is a link is read from nowhere. */
	char path[PATH_MAX], target[PATH_MAX + 8];
	snprintf(target, sizeof(target), "%s.json", ids[0]);
	tmproot_path(f->root, path, STATE "/txn/20000101-000000-1.json");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(np_txn_list(&f->ctx, &f->opts, &txns, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(txns[0].state, NP_TXN_UNREADABLE);
	assert_non_null(strstr(txns[0].unreadable, path));
	np_txns_free(txns, n);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, "20000101-000000-1", false, NULL), -ELOOP);
	/* Neither blocks apply nor the revert of a good transaction. */
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "d", c, NCHANGES, NULL), 0);
	free_olds(c, NCHANGES);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), 0);
	assert_file(f, IRQ46, "0-1");

	assert_string_equal(np_txn_state_name(NP_TXN_PENDING), "pending");
	assert_string_equal(np_txn_state_name(NP_TXN_ROLLED_BACK), "rolled_back");
	assert_string_equal(np_txn_state_name(NP_TXN_STALE), "stale");
	for (int i = 0; i < 3; i++)
		free(ids[i]);
}

/* The sequence number counts every journal, not only this second's: a journal
 * from an earlier second makes the next one "-2". (The count once read a
 * directory stream that the pending check had already read to its end.) */
static void test_sequence_counts_earlier_journals(void **state)
{
	struct fixture *f = *state;
	put(f, STATE "/txn/20000101-000000-1.json",
	    "{\"id\": \"20000101-000000-1\", \"profile\": \"old\", \"boot_id\": \"x\", "
	    "\"time\": 946684800, \"state\": \"reverted\", \"changes\": []}");
	char *id = apply_standard(f), seq[16];
	snprintf(seq, sizeof(seq), "%s", id + 15);
	free(id);
	assert_string_equal(seq, "-2");
}

/* ---- the one configuration file: irqbalance's, as whole text ---- */

#define CONF "/etc/default/irqbalance"
/* No trailing newline, and a blank line inside: only a byte-for-byte
 * engine gives this back unchanged. */
#define CONF_OLD "# settings\n\nIRQBALANCE_ARGS=\"--hintpolicy=exact\""
#define CONF_NEW "# settings\n\n# numaplace: banned IRQs 45\nIRQBALANCE_ARGS=\"--hintpolicy=exact --banirq=45\""

static void put_raw(const struct fixture *f, const char *rel, const char *content, mode_t mode)
{
	char path[PATH_MAX];
	tmproot_parent_dirs(f->root, rel);
	tmproot_path(f->root, path, rel);
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
}

static void assert_raw(const struct fixture *f, const char *rel, const char *want)
{
	char *got = tmproot_slurp(f->root, rel, 1 << 16);
	if (!got)
		fail_msg("'%s' is missing", rel);
	if (strcmp(got, want)) {
		char msg[8400];
		snprintf(msg, sizeof(msg), "'%s' holds '%s', expected '%s'", rel, got, want);
		free(got);
		fail_msg("%s", msg);
	}
	free(got);
}

/* The standard changes plus the configuration file, last. */
static void set_changes_conf(struct np_change *c)
{
	set_changes(c);
	c[NCHANGES] = (struct np_change){ .path = CONF, .attr = NP_ATTR_IRQBALANCE_CONFIG, .subject = "irqbalance: --banirq=45", .new_value = CONF_NEW };
}

static void test_text_apply_revert_byte_identical(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES + 1];
	struct np_txn txn;

	put_raw(f, CONF, CONF_OLD, 0640);
	set_changes_conf(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, &txn), 0);
	free_olds(c, NCHANGES + 1);
	assert_tree_applied(f);
	assert_raw(f, CONF, CONF_NEW);
	assert_mode(f, CONF, 0640, false);
	assert_int_equal(txn.nchanges, NCHANGES + 1);
	assert_int_equal(txn.changes[NCHANGES].attr, NP_ATTR_IRQBALANCE_CONFIG);
	assert_string_equal(txn.changes[NCHANGES].old_value, CONF_OLD);

	cJSON *j = journal(f, txn.id);
	const cJSON *jc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "changes"), NCHANGES);
	assert_string_equal(jstr(jc, "path"), CONF);
	assert_string_equal(jstr(jc, "kind"), "text");
	assert_string_equal(jstr(jc, "old"), CONF_OLD);
	assert_string_equal(jstr(jc, "new"), CONF_NEW);
	cJSON_Delete(j);
	/* No temporary file left next to it. */
	assert_int_equal(count_entries(f, "/etc/default"), 1);

	/* Matching is byte for byte: one newline more is another text. */
	assert_int_equal(np_value_matches(&f->ctx, CONF, NP_VALUE_TEXT, CONF_NEW), 1);
	assert_int_equal(np_value_matches(&f->ctx, CONF, NP_VALUE_TEXT, CONF_NEW "\n"), 0);

	/* Applying again changes nothing. */
	struct np_txn again;
	set_changes_conf(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, &again), 0);
	free_olds(c, NCHANGES + 1);
	assert_int_equal(again.nchanges, 0);
	np_txn_free(&again);

	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), 0);
	assert_tree_original(f);
	assert_raw(f, CONF, CONF_OLD);
	assert_mode(f, CONF, 0640, false);
	assert_int_equal(count_entries(f, "/etc/default"), 1);
	assert_journal_state(f, txn.id, "reverted");
	np_txn_free(&txn);
}

static void test_text_rolled_back_with_the_rest(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES + 1];

	/* The file first this time, then a kernel value that refuses the write. */
	put_raw(f, CONF, CONF_OLD, 0644);
	reject_writes(f, RPS, "00000000");
	set_changes_conf(c);
	struct np_change conf = c[NCHANGES];
	memmove(&c[1], &c[0], NCHANGES * sizeof(*c));
	c[0] = conf;
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, NULL), -ELOOP);
	free_olds(c, NCHANGES + 1);
	assert_raw(f, CONF, CONF_OLD);
	assert_file(f, IRQ45, "0-1");
	assert_file(f, RQ, "1");

	struct np_txn *txns;
	size_t n;
	assert_int_equal(np_txn_list(&f->ctx, &f->opts, &txns, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(txns[0].state, NP_TXN_ROLLED_BACK);
	np_txns_free(txns, n);
}

/* A torn or emptied value: drift without --force, restored with it, and
 * the exact old bytes come back ("0-15" without a newline, "1\n\n"). */
static void test_revert_force_over_garbage_byte_exact(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES];

	tmproot_put(f->root, IRQ45, "0-15");
	tmproot_put(f->root, RQ, "1\n\n");
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), 0);
	free_olds(c, NCHANGES);
	tmproot_put(f->root, RPS, "");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -EBUSY);
	assert_err_has(&f->ctx, "use --force");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, true, NULL), 0);
	assert_raw(f, IRQ45, "0-15");
	assert_raw(f, RQ, "1\n\n");
	assert_raw(f, RPS, "00000000\n");
}

/* The one journal in the state directory is listed as unreadable, for why. */
static void assert_unreadable(const struct fixture *f, const char *why)
{
	struct np_txn *txns;
	size_t n;
	assert_int_equal(np_txn_list((struct np_ctx *)&f->ctx, &f->opts, &txns, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(txns[0].state, NP_TXN_UNREADABLE);
	if (!strstr(txns[0].unreadable, why))
		fail_msg("'%s' lacks '%s'", txns[0].unreadable, why);
	np_txns_free(txns, n);
}

static void test_text_only_for_the_config_file(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES + 1];

	put_raw(f, CONF, CONF_OLD, 0644);
	set_changes_conf(c);
	c[NCHANGES].path = "/etc/passwd";
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, NULL), -EINVAL);
	assert_err_has(&f->ctx, "'/etc/passwd' is not the path of irqbalance_config (/etc/{file})");

	set_changes_conf(c);
	c[NCHANGES].path = RQ;
	c[2].path = "/sys/block/sdb/queue/rq_affinity";
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, NULL), -EINVAL);

	set_changes_conf(c);
	c[NCHANGES].path = "/etc/default/../default/irqbalance";
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, NULL), -EINVAL);

	/* The file takes nothing but text. */
	set_changes_conf(c);
	c[NCHANGES].attr = NP_ATTR_RQ_AFFINITY;
	c[NCHANGES].new_value = "1";
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, NULL), -EINVAL);
	assert_err_has(&f->ctx, "'/etc/default/irqbalance' is not the path of rq_affinity");

	assert_tree_original(f);
	assert_raw(f, CONF, CONF_OLD);
	assert_false(exists(f, STATE));

	/* Journals are held to the same rule. */
	put(f, STATE "/txn/20000101-000000-1.json",
	    "{\"id\": \"20000101-000000-1\", \"profile\": \"\", \"boot_id\": \"x\", "
	    "\"time\": 1, \"state\": \"applied\", \"changes\": [{\"path\": \"" CONF "\", "
	    "\"kind\": \"int\", \"subject\": \"\", \"old\": \"1\", \"new\": \"2\"}]}");
	char path[PATH_MAX];
	tmproot_path(f->root, path, STATE);
	assert_int_equal(chmod(path, 0700), 0);
	struct np_txn *txns;
	size_t n;
	assert_unreadable(f, "a change's kind does not fit its path");
	put(f, STATE "/txn/20000101-000000-1.json",
	    "{\"id\": \"20000101-000000-1\", \"profile\": \"\", \"boot_id\": \"x\", "
	    "\"time\": 1, \"state\": \"applied\", \"changes\": [{\"path\": \"/etc/shadow\", "
	    "\"kind\": \"text\", \"subject\": \"\", \"old\": \"1\", \"new\": \"2\"}]}");
	assert_unreadable(f, "is not the path of a tunable kind");
	put(f, STATE "/txn/20000101-000000-1.json",
	    "{\"id\": \"20000101-000000-1\", \"profile\": \"\", \"boot_id\": \"x\", "
	    "\"time\": 1, \"state\": \"applied\", \"changes\": [{\"path\": \"" CONF "\", "
	    "\"kind\": \"text\", \"subject\": \"\", \"old\": \"a\\n\", \"new\": \"b\\n\"}]}");
	/* Free text: a revert would write it into a file init scripts source. */
	assert_unreadable(f, "its text differs in more than irqbalance's banned IRQs");
	put(f, STATE "/txn/20000101-000000-1.json",
	    "{\"id\": \"20000101-000000-1\", \"profile\": \"\", \"boot_id\": \"x\", "
	    "\"time\": 1, \"state\": \"applied\", \"changes\": [{\"path\": \"" CONF "\", "
	    "\"kind\": \"text\", \"subject\": \"\", \"old\": \"A=1\\nIRQBALANCE_ARGS=\\\"-x; rm\\\"\\n\", "
	    "\"new\": \"A=1\\nIRQBALANCE_ARGS=\\\"-x --banirq=3\\\"\\n\"}]}");
	assert_unreadable(f, "its text differs in more than irqbalance's banned IRQs");
	put(f, STATE "/txn/20000101-000000-1.json",
	    "{\"id\": \"20000101-000000-1\", \"profile\": \"\", \"boot_id\": \"x\", "
	    "\"time\": 1, \"state\": \"applied\", \"changes\": [{\"path\": \"" CONF "\", "
	    "\"kind\": \"text\", \"subject\": \"\", \"old\": \"A=1\\nIRQBALANCE_ARGS=\\\"-x\\\"\\n\", "
	    "\"new\": \"A=1\\n" NP_IRQBALANCE_MARK " 3\\nIRQBALANCE_ARGS=\\\"-x --banirq=3\\\"\\n\"}]}");
	assert_int_equal(np_txn_list(&f->ctx, &f->opts, &txns, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(txns[0].changes[0].old_value, "A=1\nIRQBALANCE_ARGS=\"-x\"\n");
	np_txns_free(txns, n);

	/* A kernel setting that no kind writes, as a tampered journal named it. */
	put(f, STATE "/txn/20000101-000000-1.json",
	    "{\"id\": \"20000101-000000-1\", \"profile\": \"\", \"boot_id\": \"x\", "
	    "\"time\": 1, \"state\": \"applied\", \"changes\": [{\"path\": \"/proc/sys/kernel/panic\", "
	    "\"kind\": \"int\", \"subject\": \"\", \"old\": \"1\", \"new\": \"0\"}]}");
	put(f, "/proc/sys/kernel/panic", "0");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, "20000101-000000-1", true, NULL), -EINVAL);
	assert_err_has(&f->ctx, "20000101-000000-1.json' is malformed: a change's path is not the path of a tunable kind");
	assert_file(f, "/proc/sys/kernel/panic", "0");
}

static void test_text_file_must_be_a_plain_existing_file(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES + 1];
	char path[PATH_MAX], target[PATH_MAX];

	/* Missing: never created. */
	set_changes_conf(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, NULL), -ENOENT);
	free_olds(c, NCHANGES + 1);
	assert_false(exists(f, CONF));
	assert_tree_original(f);

	/* A symbolic link: refused before anything is written. */
	tmproot_make_dirs(f->root, "/etc/default");
	put_raw(f, "/etc/elsewhere", CONF_OLD, 0644);
	tmproot_path(f->root, path, CONF);
	tmproot_path(f->root, target, "/etc/elsewhere");
	assert_int_equal(symlink(target, path), 0);
	set_changes_conf(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, NULL), -ELOOP);
	free_olds(c, NCHANGES + 1);
	assert_err_has(&f->ctx, "symbolic link");
	assert_raw(f, "/etc/elsewhere", CONF_OLD);
	assert_tree_original(f);
	assert_int_equal(count_entries(f, STATE "/txn"), 0);
}

static void test_text_changed_since_prepared(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES + 1];

	put_raw(f, CONF, CONF_OLD "\n# added by someone else\n", 0644);
	set_changes_conf(c);
	c[NCHANGES].old_value = strdup(CONF_OLD);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, NULL), -EAGAIN);
	free_olds(c, NCHANGES + 1);
	assert_err_has(&f->ctx, "changed while numaplace prepared its change");
	assert_err_has(&f->ctx, "(irqbalance: --banirq=45)");
	assert_raw(f, CONF, CONF_OLD "\n# added by someone else\n");
	assert_tree_original(f);

	/* Made from what is there: applied. */
	put_raw(f, CONF, CONF_OLD, 0644);
	set_changes_conf(c);
	c[NCHANGES].old_value = strdup(CONF_OLD);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, NULL), 0);
	free_olds(c, NCHANGES + 1);
	assert_raw(f, CONF, CONF_NEW);
}

static void test_text_revert_refuses_drift(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES + 1];

	put_raw(f, CONF, CONF_OLD, 0644);
	set_changes_conf(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, NULL), 0);
	free_olds(c, NCHANGES + 1);
	/* The banned-IRQ line edited by hand (text after the value): drift. */
	put_raw(f, CONF, CONF_NEW " # edited by hand\n", 0644);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -EBUSY);
	assert_err_has(&f->ctx, "its banned-IRQ lines (IRQBALANCE_ARGS) changed since transaction");
	assert_tree_applied(f);
	/* Forced, the line is the one from before; the others stay as they are. */
	put_raw(f, CONF, "# mine\n" CONF_NEW " # edited by hand\nX=1\n", 0644);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, true, NULL), 0);
	assert_tree_original(f);
	assert_raw(f, CONF, "# mine\n" CONF_OLD "\nX=1\n");
}

/* Only the banned-IRQ lines are the transaction's: a revert puts them back
 * and leaves every other line as it is now, forced or not. */
static void test_text_revert_keeps_other_edits(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES + 1];

	for (int force = 0; force < 2; force++) {
		put_tree(f);
		put_raw(f, CONF, CONF_OLD, 0644);
		set_changes_conf(c);
		assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, NULL), 0);
		free_olds(c, NCHANGES + 1);
		put_raw(f, CONF, "# settings, edited\nIRQBALANCE_ONESHOT=1\n\n# numaplace: banned IRQs 45\n"
			    "IRQBALANCE_ARGS=\"--hintpolicy=exact --banirq=45\"", 0644);
		assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, force, NULL), 0);
		assert_tree_original(f);
		assert_raw(f, CONF, "# settings, edited\nIRQBALANCE_ONESHOT=1\n\nIRQBALANCE_ARGS=\"--hintpolicy=exact\"");
	}
}

/* A reboot resets kernel values, not files: reverting a transaction of an
 * earlier boot still restores the configuration file, and only it. */
static void test_text_restored_by_a_stale_revert(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES + 1];
	struct np_txn txn;

	put_raw(f, CONF, CONF_OLD, 0644);
	set_changes_conf(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, &txn), 0);
	free_olds(c, NCHANGES + 1);

	/* The reboot: other kernel values, same file. */
	put(f, BOOT, "77aa-boot-two\n");
	put(f, IRQ45, "7");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -ESTALE);
	assert_err_has(&f->ctx, "earlier boot");
	assert_err_has(&f->ctx, "restored");
	assert_raw(f, CONF, CONF_OLD);
	assert_file(f, IRQ45, "7");
	assert_file(f, IRQ46, "0");
	assert_file(f, RQ, "2");
	assert_journal_state(f, txn.id, "stale");
	np_txn_free(&txn);

	/* Edited since: refused like any drift, and not marked stale. */
	put_tree(f);
	put_raw(f, CONF, CONF_OLD, 0644);
	set_changes_conf(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES + 1, &txn), 0);
	free_olds(c, NCHANGES + 1);
	put(f, BOOT, "88bb-boot-three\n");
	put_raw(f, CONF, "# rewritten\n", 0644);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -EBUSY);
	assert_journal_state(f, txn.id, "applied");
	assert_raw(f, CONF, "# rewritten\n");
	/* Put back by hand: at its old value, which is no one's change to
	 * refuse (issue 22): nothing left to write, and it is marked stale. */
	put_raw(f, CONF, CONF_OLD, 0644);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), -ESTALE);
	assert_err_has(&f->ctx, "nothing to restore");
	assert_journal_state(f, txn.id, "stale");
	np_txn_free(&txn);
}

/* A journal as numaplace wrote it before the attr table (commit 95fa9cc):
 * each change has a value "kind" and a path, no "attr". */
#define OLD_ID "20261130-031500-1"
#define OLD_JOURNAL(state, extra)                                                              \
	"{\n\t\"id\":\t\"" OLD_ID "\",\n\t\"profile\":\t\"web\",\n\t\"boot_id\":\t\"0f2a-boot-one\",\n" \
	"\t\"time\":\t1796000100,\n\t\"state\":\t\"" state "\",\n\t\"changes\":\t[{\n"           \
	"\t\t\t\"path\":\t\"" IRQ45 "\",\n\t\t\t\"kind\":\t\"cpulist\",\n"                      \
	"\t\t\t\"subject\":\t\"0000:23:00.0 irq 45 eth0-TxRx-0\",\n"                              \
	"\t\t\t\"old\":\t\"0-1\\n\",\n\t\t\t\"new\":\t\"1\"\n\t\t}, {\n"                         \
	"\t\t\t\"path\":\t\"" RQ "\",\n\t\t\t\"kind\":\t\"int\",\n"                             \
	"\t\t\t\"subject\":\t\"sda rq_affinity\",\n\t\t\t\"old\":\t\"1\\n\",\n\t\t\t\"new\":\t\"2\"\n" \
	"\t\t}, {\n\t\t\t\"path\":\t\"" RPS "\",\n\t\t\t\"kind\":\t\"cpumask\",\n"              \
	"\t\t\t\"subject\":\t\"eth0 rx-0 rps_cpus\",\n\t\t\t\"old\":\t\"00000000\\n\",\n"        \
	"\t\t\t\"new\":\t\"00000002\"\n\t\t}, {\n\t\t\t\"path\":\t\"" CONF "\",\n"                \
	"\t\t\t\"kind\":\t\"text\",\n\t\t\t\"subject\":\t\"irqbalance: --banirq=45\",\n"          \
	"\t\t\t\"old\":\t\"# settings\\n\\nIRQBALANCE_ARGS=\\\"--hintpolicy=exact\\\"\",\n"       \
	"\t\t\t\"new\":\t\"# settings\\n\\n# numaplace: banned IRQs 45\\nIRQBALANCE_ARGS="        \
	"\\\"--hintpolicy=exact --banirq=45\\\"\"\n\t\t}" extra "]\n}\n"

static void put_old_journal(const struct fixture *f, const char *text)
{
	char path[PATH_MAX];
	put_raw(f, STATE "/txn/" OLD_ID ".json", text, 0600);
	tmproot_path(f->root, path, STATE);
	assert_int_equal(chmod(path, 0700), 0);
	tmproot_path(f->root, path, STATE "/txn");
	assert_int_equal(chmod(path, 0700), 0);
}

static void test_revert_journal_before_attr_table(void **state)
{
	struct fixture *f = *state;
	struct np_txn txn;

	/* The machine as that transaction left it. */
	put(f, IRQ45, "1");
	put(f, RQ, "2");
	put(f, RPS, "00000002");
	put_raw(f, CONF, CONF_NEW, 0644);
	put_old_journal(f, OLD_JOURNAL("applied", ""));

	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, &txn), 0);
	assert_tree_original(f);
	assert_raw(f, CONF, CONF_OLD);
	/* Each path told its attr and target, as np_change_make would have. */
	assert_int_equal(txn.nchanges, 4);
	assert_int_equal(txn.changes[0].attr, NP_ATTR_IRQ_AFFINITY);
	assert_int_equal(txn.changes[0].target.irq, 45);
	assert_int_equal(txn.changes[1].attr, NP_ATTR_RQ_AFFINITY);
	assert_string_equal(txn.changes[1].target.block, "sda");
	assert_int_equal(txn.changes[2].attr, NP_ATTR_RPS_CPUS);
	assert_string_equal(txn.changes[2].target.net, "eth0");
	assert_int_equal(txn.changes[2].target.queue, 0);
	assert_int_equal(txn.changes[3].attr, NP_ATTR_IRQBALANCE_CONFIG);
	np_txn_free(&txn);

	/* Rewritten in the new form, which an older numaplace still reads. */
	cJSON *j = journal(f, OLD_ID);
	assert_string_equal(jstr(j, "state"), "reverted");
	const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "changes"), 0);
	assert_string_equal(jstr(c0, "attr"), "irq_affinity");
	assert_string_equal(jstr(c0, "kind"), "cpulist");
	cJSON_Delete(j);
}

static void test_old_journal_outside_every_kind(void **state)
{
	struct fixture *f = *state;
	struct np_txn *txns;
	size_t n;
	static const char *const foreign[] = {
		/* Under /proc and /sys, which the old loader took, but no kind's file. */
		"\"/proc/sys/kernel/panic\", \"kind\": \"int\"",
		"\"/sys/devices/system/cpu/cpu3/online\", \"kind\": \"int\"",
		"\"/proc/irq/45/../../sys/kernel/panic\", \"kind\": \"int\"",
		"\"/sys/class/net/../queues/rx-0/rps_cpus\", \"kind\": \"cpumask\"",
		/* A kind's file, under the wrong value kind. */
		"\"/proc/irq/46/smp_affinity_list\", \"kind\": \"cpumask\"",
	};
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		char text[4096];
		snprintf(text, sizeof(text), "%s", OLD_JOURNAL("applied", ", {\"path\": %s, "
				"\"subject\": \"\", \"old\": \"0\", \"new\": \"1\"}"));
		char *mark = strstr(text, "%s");
		char body[4096];
		snprintf(body, sizeof(body), "%.*s%s%s", (int)(mark - text), text, foreign[i], mark + 2);
		put_old_journal(f, body);
		assert_int_equal(np_txn_list(&f->ctx, &f->opts, &txns, &n), 0);
		assert_int_equal(n, 1);
		assert_int_equal(txns[0].state, NP_TXN_UNREADABLE);
		assert_non_null(strstr(txns[0].unreadable, OLD_ID ".json' is malformed"));
		np_txns_free(txns, n);
	}
	/* And nothing was written by trying. */
	assert_tree_original(f);
}

static void test_lock_wait_is_bounded(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	struct np_change c[NCHANGES];
	struct timespec t0, t1;

	int fd = hold_state_lock(f, path);

	f->opts.wait_for_lock = true;
	f->opts.lock_timeout = 1;
	set_changes(c);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), -EBUSY);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	free_olds(c, NCHANGES);
	double waited = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_true(waited >= 0.9 && waited < 5);
	assert_err_has(&f->ctx, "for 1 s; gave up waiting");
	assert_tree_original(f);

	/* Released in time: taken. */
	assert_int_equal(close(fd), 0);
	char *id = apply_standard(f);
	assert_tree_applied(f);
	free(id);
}


/* An apply waiting, unbounded, for another's lock ends at a stop signal (its
 * signals are blocked: a blocking flock would sit a Ctrl-C out). */
static void test_lock_wait_ends_at_a_stop(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	struct np_change c[NCHANGES];
	struct np_stop stop;
	sigset_t term;
	int sig;

	int fd = hold_state_lock(f, path);

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	assert_int_equal(np_stop_hold(&stop, &term), 0);
	assert_int_equal(raise(SIGTERM), 0);
	f->opts.wait_for_lock = true;
	f->opts.lock_timeout = 0;
	f->opts.stop = &stop.stops;
	set_changes(c);
	alarm(10); /* the failure this test catches is a wait without end */
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), -EINTR);
	alarm(0);
	free_olds(c, NCHANGES);
	assert_err_has(&f->ctx, "stopped by SIGTERM while waiting for the lock '");
	assert_tree_original(f);
	assert_int_equal(sigwait(&term, &sig), 0);
	np_stop_release(&stop);
	f->opts.stop = NULL;
	assert_int_equal(close(fd), 0);
}


/* ---- issue 35: a stop never leaves a transaction pending; the next apply
 * of the same profile (or session) recovers one that a kill left ---- */

/* Runs apply (revert: revert) in a child with the stop signals blocked, the
 * fault hook raising sig after k writes; returns what the call returned.
 * The child never lets the signal act: its exit status carries rc. */
static int in_child_stopped(struct fixture *f, bool revert, int k, const char *sig)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct np_stop stop;
		struct np_change c[NCHANGES];
		char kbuf[16];
		/* As a shell starts a command (not a background job's SIGINT ignored). */
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (np_stop_hold(&stop, NULL))
			_exit(100);
		f->opts.stop = &stop.stops;
		snprintf(kbuf, sizeof(kbuf), "%d", k);
		setenv(NP_FAULT_ENV, kbuf, 1);
		setenv(NP_FAULT_SIGNAL_ENV, sig, 1);
		set_changes(c);
		int rc = revert ? np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL)
				: np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL);
		_exit(-rc);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status))
		fail_msg("the child was killed by signal %d: the stop did not wait for the transaction",
			 WTERMSIG(status));
	return -WEXITSTATUS(status);
}

static void assert_nothing_pending(struct fixture *f)
{
	char *pending;
	assert_int_equal(np_txn_pending(&f->ctx, &f->opts, &pending), 0);
	if (pending)
		fail_msg("transaction %s is left pending", pending);
}

/* A terminating signal at any write of an apply: the writes stop, those made
 * are undone, the journal says rolled back. Before, SIGTERM ended the
 * process there, the transaction pending. */
static void test_stop_signal_rolls_back_an_apply(void **state)
{
	struct fixture *f = *state;
	const char *sigs[] = { "TERM", "INT", "HUP" };
	for (int k = 1; k <= NCHANGES; k++) {
		assert_int_equal(in_child_stopped(f, false, k, sigs[k % 3]), k < NCHANGES ? -EINTR : 0);
		if (k < NCHANGES)
			assert_tree_original(f);
		assert_nothing_pending(f);
		struct np_txn *txns;
		size_t n;
		assert_int_equal(np_txn_list(&f->ctx, &f->opts, &txns, &n), 0);
		assert_int_equal(n, (size_t)k);
		assert_int_equal(txns[n - 1].state, k < NCHANGES ? NP_TXN_ROLLED_BACK : NP_TXN_APPLIED);
		np_txns_free(txns, n);
		if (k == NCHANGES) {
			/* Its last write: nothing left to stop, the apply finished. */
			assert_tree_applied(f);
			assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), 0);
		}
	}
}

/* One pending before the apply starts: nothing is written, not even a journal. */
static void test_stop_signal_before_any_write(void **state)
{
	struct fixture *f = *state;
	struct np_stop stop;
	struct np_change c[NCHANGES];
	sigset_t term;
	signal(SIGTERM, SIG_DFL);
	assert_int_equal(np_stop_hold(&stop, NULL), 0);
	f->opts.stop = &stop.stops;
	raise(SIGTERM);
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), -EINTR);
	free_olds(c, NCHANGES);
	assert_err_has(&f->ctx, "stopped by SIGTERM before writing anything");
	assert_tree_original(f);
	assert_true(count_entries(f, STATE "/txn") <= 0);
	/* Taken, so that it never acts. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	assert_int_equal(sigtimedwait(&term, NULL, &(struct timespec){ 0 }), SIGTERM);
	np_stop_release(&stop);
}

/* A signal the process ignores (nohup's SIGHUP) stops nothing. */
static void test_ignored_signal_stops_nothing(void **state)
{
	struct fixture *f = *state;
	struct np_stop stop;
	struct np_change c[NCHANGES];
	void (*was)(int) = signal(SIGHUP, SIG_IGN);
	assert_int_equal(np_stop_hold(&stop, NULL), 0);
	assert_int_equal(sigismember(&stop.stops, SIGHUP), 0);
	assert_int_equal(sigismember(&stop.stops, SIGTERM), 1);
	f->opts.stop = &stop.stops;
	raise(SIGHUP);
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), 0);
	free_olds(c, NCHANGES);
	assert_tree_applied(f);
	np_stop_release(&stop);
	signal(SIGHUP, was);
}

/* A revert stopped half way undoes its own writes: the transaction stays
 * applied, and a later revert does the whole job. */
static void test_stop_signal_rolls_back_a_revert(void **state)
{
	struct fixture *f = *state;
	char *id = apply_standard(f);
	assert_int_equal(in_child_stopped(f, true, 2, "TERM"), -EINTR);
	assert_tree_applied(f);
	assert_journal_state(f, id, "applied");
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), 0);
	assert_tree_original(f);
	free(id);
}

/* Crashes an apply of profile (session: its hold session, or NULL) after
 * k writes; returns the pending transaction's id. */
static char *crash_apply(struct fixture *f, const char *profile, const char *session, int k)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct np_change c[NCHANGES];
		char kbuf[16];
		snprintf(kbuf, sizeof(kbuf), "%d", k);
		setenv(NP_FAULT_ENV, kbuf, 1);
		f->opts.session = session;
		set_changes(c);
		_exit(np_txn_apply(&f->ctx, &f->opts, profile, c, NCHANGES, NULL) ? 1 : 0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	char *pending;
	assert_int_equal(np_txn_pending(&f->ctx, &f->opts, &pending), 0);
	assert_non_null(pending);
	return pending;
}

/* The next apply of the same profile rolls back what a kill left, each
 * value checked, then applies. Before, it refused until someone reverted. */
static void test_apply_recovers_its_own_unfinished_transaction(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES];
	struct np_txn txn, rec = { 0 };
	char *pending = crash_apply(f, "web", NULL, 2);

	f->opts.recover = true;
	f->opts.recovered = &rec;
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, &txn), 0);
	free_olds(c, NCHANGES);
	assert_string_equal(rec.id, pending);
	assert_int_equal(rec.state, NP_TXN_REVERTED);
	assert_int_equal(rec.nchanges, NCHANGES);
	assert_journal_state(f, pending, "reverted");
	assert_int_equal(txn.nchanges, NCHANGES);
	assert_journal_state(f, txn.id, "applied");
	assert_tree_applied(f);
	np_txn_free(&txn);
	np_txn_free(&rec);
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, NULL, false, NULL), 0);
	assert_tree_original(f);
	free(pending);

	/* A hold's re-apply: the session's, whatever its profile's name. */
	pending = crash_apply(f, "hold", "20260101-000000-1", 3);
	f->opts.session = "20260101-000000-1";
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "renamed", c, NCHANGES, NULL), 0);
	free_olds(c, NCHANGES);
	assert_string_equal(rec.id, pending);
	assert_journal_state(f, pending, "reverted");
	assert_tree_applied(f);
	np_txn_free(&rec);
	free(pending);
}

/* Another profile's unfinished transaction is not this apply's to undo. */
static void test_apply_refuses_another_profiles_unfinished_transaction(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES];
	char *pending = crash_apply(f, "web", NULL, 2);

	f->opts.recover = true;
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "db", c, NCHANGES, NULL), -EBUSY);
	free_olds(c, NCHANGES);
	assert_err_has(&f->ctx, pending);
	assert_err_has(&f->ctx, "(web)");
	assert_err_has(&f->ctx, "run 'numaplace revert' first");
	assert_journal_state(f, pending, "pending");
	free(pending);
}

/* A value someone else changed since the kill: recovery stops before any
 * write and says which, as revert does; the dry run says the same. */
static void test_recovery_refuses_a_value_changed_meanwhile(void **state)
{
	struct fixture *f = *state;
	struct np_change c[NCHANGES];
	struct np_txn plan;
	char *pending = crash_apply(f, "web", NULL, 2), force[128];

	put(f, IRQ45, "3");
	f->opts.recover = true;
	set_changes(c);
	assert_int_equal(np_txn_apply(&f->ctx, &f->opts, "web", c, NCHANGES, NULL), -EBUSY);
	free_olds(c, NCHANGES);
	snprintf(force, sizeof(force), "run 'numaplace revert --force %s'", pending);
	assert_err_has(&f->ctx, "/proc/irq/45/smp_affinity_list");
	assert_err_has(&f->ctx, "it is '3', expected '1' or '0-1'");
	assert_err_has(&f->ctx, force);
	assert_journal_state(f, pending, "pending");
	assert_file(f, IRQ45, "3");
	assert_file(f, IRQ46, "0");

	f->opts.dry_run = true;
	assert_int_equal(np_txn_recover(&f->ctx, &f->opts, "web", &plan), -EBUSY);
	assert_err_has(&f->ctx, force);
	f->opts.dry_run = false;
	assert_journal_state(f, pending, "pending");

	/* Once the human has decided, the apply goes on. */
	assert_int_equal(np_txn_revert(&f->ctx, &f->opts, pending, true, NULL), 0);
	free(apply_standard(f));
	assert_tree_applied(f);
	free(pending);
}

/* The dry run plans the roll-back and writes nothing, takes no lock. */
static void test_recovery_dry_run_writes_nothing(void **state)
{
	struct fixture *f = *state;
	struct np_txn plan;
	char *pending = crash_apply(f, "web", NULL, 3);

	f->opts.dry_run = true;
	assert_int_equal(np_txn_recover(&f->ctx, &f->opts, "web", &plan), 0);
	assert_string_equal(plan.id, pending);
	/* The three values written, to restore. */
	assert_int_equal(plan.nchanges, 3);
	np_txn_free(&plan);
	assert_int_equal(np_txn_recover(&f->ctx, &f->opts, "db", &plan), -EBUSY);
	assert_null(plan.id);
	assert_journal_state(f, pending, "pending");
	assert_file(f, RQ, "2");
	free(pending);
}

/* One hold per state directory: the second is told the first one's PID. */
static void test_hold_claim_names_the_holder(void **state)
{
	struct fixture *f = *state;
	char pid[48];
	int fd, fd2;
	assert_int_equal(np_txn_hold_claim(&f->ctx, &f->opts, &fd), 0);
	assert_int_equal(np_txn_hold_claim(&f->ctx, &f->opts, &fd2), -EBUSY);
	assert_int_equal(fd2, -1);
	snprintf(pid, sizeof(pid), "another numaplace hold (pid %ld)", (long)getpid());
	assert_err_has(&f->ctx, pid);
	assert_int_equal(close(fd), 0);
	/* Its holder gone, the lock is free again. */
	assert_int_equal(np_txn_hold_claim(&f->ctx, &f->opts, &fd2), 0);
	assert_int_equal(close(fd2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test_setup_teardown(test_value_matches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_writes_and_journals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_already_matching, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_failure_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_unreadable_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_mismatch_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_value_already_old_is_not_drift, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_refuses_drift, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_failure_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_then_revert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_then_reboot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_contention, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_dir_created, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_dir_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_oldest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sequence_counts_earlier_journals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_apply_revert_byte_identical, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_rolled_back_with_the_rest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_only_for_the_config_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_file_must_be_a_plain_existing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_changed_since_prepared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_revert_refuses_drift, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_revert_keeps_other_edits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_restored_by_a_stale_revert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_journal_before_attr_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_journal_outside_every_kind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_wait_is_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_wait_ends_at_a_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_force_over_garbage_byte_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_signal_rolls_back_an_apply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_signal_before_any_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_signal_rolls_back_a_revert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ignored_signal_stops_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_recovers_its_own_unfinished_transaction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_refuses_another_profiles_unfinished_transaction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recovery_refuses_a_value_changed_meanwhile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recovery_dry_run_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hold_claim_names_the_holder, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
