/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The root-aware layer (lib/read/sysfs.c, lib/base/context.c) against a scratch root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/context.h"
#include "base/cpuset.h"
#include "read/sysfs.h"
#include "tmproot.h"

struct fixture {
	char root[64];
	struct np_ctx ctx;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	if (tmproot_create(f->root, sizeof(f->root), "/tmp/numaplace-unit-XXXXXX", &f->ctx)) {
		free(f);
		return -1;
	}
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

static void test_ctx_root_dir(void **state)
{
	struct fixture *f = *state;
	struct np_ctx ctx;
	char path[PATH_MAX], with_slash[PATH_MAX];

	assert_int_equal(np_ctx_init(&ctx, f->root), 0);
	assert_string_equal(ctx.root, f->root);
	assert_string_equal(ctx.err, "");
	np_ctx_fini(&ctx);
	assert_null(ctx.root);

	/* Trailing slashes would double up in every path. */
	snprintf(with_slash, sizeof(with_slash), "%s//", f->root);
	assert_int_equal(np_ctx_init(&ctx, with_slash), 0);
	assert_string_equal(ctx.root, f->root);
	assert_int_equal(np_sysfs_path(&ctx, path, "/sys/x"), 0);
	tmproot_path(f->root, with_slash, "/sys/x");
	assert_string_equal(path, with_slash);
	np_ctx_fini(&ctx);

	/* "/" is this machine. */
	assert_int_equal(np_ctx_init(&ctx, "/"), 0);
	assert_string_equal(ctx.root, "");
	np_ctx_fini(&ctx);
}

static void test_ctx_env(void **state)
{
	struct fixture *f = *state;
	struct np_ctx ctx;

	tmproot_put(f->root, "/sys/x", "from env\n");
	assert_int_equal(setenv(NP_ROOT_ENV, f->root, 1), 0);
	int rc = np_ctx_init(&ctx, NULL);
	assert_int_equal(rc, 0);
	assert_string_equal(ctx.root, f->root);
	char *text = NULL;
	assert_int_equal(np_read_text(&ctx, &text, "/sys/x"), 0);
	assert_string_equal(text, "from env");
	free(text);
	np_ctx_fini(&ctx);

	/* An explicit root wins over the environment. */
	assert_int_equal(np_ctx_init(&ctx, "/"), 0);
	assert_string_equal(ctx.root, "");
	np_ctx_fini(&ctx);

	/* Set but empty: this machine. */
	assert_int_equal(setenv(NP_ROOT_ENV, "", 1), 0);
	assert_int_equal(np_ctx_init(&ctx, NULL), 0);
	assert_string_equal(ctx.root, "");
	np_ctx_fini(&ctx);

	assert_int_equal(unsetenv(NP_ROOT_ENV), 0);
	assert_int_equal(np_ctx_init(&ctx, NULL), 0);
	assert_string_equal(ctx.root, "");
	np_ctx_fini(&ctx);

	/* A bad root from the environment fails like one given directly. */
	char missing[PATH_MAX];
	tmproot_path(f->root, missing, "/nope");
	assert_int_equal(setenv(NP_ROOT_ENV, missing, 1), 0);
	rc = np_ctx_init(&ctx, NULL);
	unsetenv(NP_ROOT_ENV);
	assert_int_equal(rc, -ENOENT);
	assert_err_has(&ctx, missing);
	np_ctx_fini(&ctx);
}

static void test_ctx_missing_root(void **state)
{
	struct fixture *f = *state;
	struct np_ctx ctx;
	char missing[PATH_MAX];

	tmproot_path(f->root, missing, "/does-not-exist");
	assert_int_equal(np_ctx_init(&ctx, missing), -ENOENT);
	assert_err_has(&ctx, missing);
	assert_err_has(&ctx, strerror(ENOENT));
	np_ctx_fini(&ctx);
}

static void test_ctx_root_is_file(void **state)
{
	struct fixture *f = *state;
	struct np_ctx ctx;
	char file[PATH_MAX];

	tmproot_put(f->root, "/plain", "x");
	tmproot_path(f->root, file, "/plain");
	assert_int_equal(np_ctx_init(&ctx, file), -ENOTDIR);
	assert_err_has(&ctx, file);
	np_ctx_fini(&ctx);
}

static void test_read_text(void **state)
{
	struct fixture *f = *state;
	char *text = NULL;

	tmproot_put(f->root, "/sys/a", "hello\n");
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/a"), 0);
	assert_string_equal(text, "hello");
	free(text);

	/* Every trailing newline goes; inner ones and other blanks stay. */
	tmproot_put(f->root, "/sys/b", "two\nlines \n\n\n");
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/b"), 0);
	assert_string_equal(text, "two\nlines ");
	free(text);

	tmproot_put(f->root, "/sys/empty", "");
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/empty"), 0);
	assert_string_equal(text, "");
	free(text);

	/* Larger than the first read buffer. */
	char big[10001];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	tmproot_put(f->root, "/sys/big", big);
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/%s", "big"), 0);
	assert_int_equal(strlen(text), sizeof(big) - 1);
	assert_string_equal(text, big);
	free(text);
}

/* Read until a short read, never sized from fstat: every length around a
 * block boundary comes back whole, and a CPU list longer than a page (node
 * and topology lists are binary attributes since Linux 5.14) too. */
static void test_read_sizes(void **state)
{
	struct fixture *f = *state;
	static const size_t sizes[] = { 1, 4095, 4096, 4097, 8191, 8192, 8193, 65536, 100000 };
	char *text = NULL, *want = malloc(100001);
	assert_non_null(want);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (size_t j = 0; j < sizes[i]; j++)
			want[j] = (char)('a' + j % 26);
		want[sizes[i]] = '\0';
		tmproot_put(f->root, "/sys/sized", want);
		size_t len = 0;
		assert_int_equal(np_read_bytes(&f->ctx, &text, &len, "/sys/sized"), 0);
		assert_int_equal(len, sizes[i]);
		assert_string_equal(text, want);
		free(text);
	}
	free(want);

	struct np_cpuset set = NP_CPUSET_INIT;
	char list[16384];
	size_t len = 0;
	for (int c = 0; c < 8192; c += 3)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d", c ? "," : "", c);
	assert_true(len > 8192);
	list[len++] = '\n';
	list[len] = '\0';
	tmproot_put(f->root, "/sys/long_cpulist", list);
	assert_int_equal(np_read_cpulist(&f->ctx, &set, "/sys/long_cpulist"), 0);
	assert_int_equal(np_cpuset_count(&set), 2731);
	assert_int_equal(np_cpuset_last(&set), 8190);
	np_cpuset_free(&set);
}

/* What is no file is refused, naming it: a FIFO (would block, or read
 * empty), a directory. */
static void test_read_not_a_file(void **state)
{
	struct fixture *f = *state;
	char *text = NULL, path[PATH_MAX];
	tmproot_put(f->root, "/sys/fifo", "");
	tmproot_path(f->root, path, "/sys/fifo");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/fifo"), -EINVAL);
	assert_err_has(&f->ctx, "fifo' is not a regular file");
	tmproot_put(f->root, "/sys/dir/x", "1\n");
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/dir"), -EISDIR);
	assert_err_has(&f->ctx, "dir'");
}

static void test_read_absent(void **state)
{
	struct fixture *f = *state;
	char *text = NULL, path[PATH_MAX];

	tmproot_path(f->root, path, "/sys/absent");
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/absent"), -ENOENT);
	assert_null(text);
	assert_err_has(&f->ctx, path);

	/* Each reader reports an absent file the same way, so callers can treat it as optional. */
	long long v = 7;
	struct np_cpuset set = NP_CPUSET_INIT;
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/absent"), -ENOENT);
	assert_int_equal(v, 7);
	assert_int_equal(np_read_cpulist(&f->ctx, &set, "/sys/absent"), -ENOENT);
	assert_int_equal(np_read_cpumask(&f->ctx, &set, "/sys/absent"), -ENOENT);
	assert_int_equal(np_read_link(&f->ctx, &text, "/sys/absent"), -ENOENT);
	assert_err_has(&f->ctx, path);

	/* Absent parent directory too. */
	tmproot_path(f->root, path, "/sys/no/such/dir");
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/no/such/dir"), -ENOENT);
	assert_err_has(&f->ctx, path);
	np_cpuset_free(&set);
}

static void test_read_int(void **state)
{
	struct fixture *f = *state;
	long long v = 0;
	char path[PATH_MAX];

	tmproot_put(f->root, "/sys/n", "42\n");
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/n"), 0);
	assert_int_equal(v, 42);

	tmproot_put(f->root, "/sys/n", "-1");
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/n"), 0);
	assert_int_equal(v, -1);

	tmproot_put(f->root, "/sys/n", "0\n");
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/n"), 0);
	assert_int_equal(v, 0);

	tmproot_put(f->root, "/sys/n", "9223372036854775807");
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/n"), 0);
	assert_true(v == INT64_MAX);

	tmproot_path(f->root, path, "/sys/bad");
	tmproot_put(f->root, "/sys/bad", "abc\n");
	v = 5;
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/bad"), -EINVAL);
	assert_int_equal(v, 5);
	assert_err_has(&f->ctx, path);
	assert_err_has(&f->ctx, "'abc'");
}

static void test_read_int_malformed(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = { "12abc", "", "\n", "4 2", "1.5", "0x10", "-", " " };
	long long v;
	char path[PATH_MAX];

	tmproot_path(f->root, path, "/sys/bad");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tmproot_put(f->root, "/sys/bad", bad[i]);
		f->ctx.err[0] = '\0';
		v = 5;
		int rc = np_read_int(&f->ctx, &v, "/sys/bad");
		if (rc != -EINVAL)
			fail_msg("'%s': rc %d, want -EINVAL", bad[i], rc);
		assert_int_equal(v, 5);
		assert_err_has(&f->ctx, path);
	}
	tmproot_put(f->root, "/sys/bad", "12abc\n");
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/bad"), -EINVAL);
	assert_err_has(&f->ctx, "'12abc'");
}

static void test_read_int_range(void **state)
{
	struct fixture *f = *state;
	long long v = 5;
	char path[PATH_MAX];

	tmproot_path(f->root, path, "/sys/huge");
	tmproot_put(f->root, "/sys/huge", "99999999999999999999999\n");
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/huge"), -ERANGE);
	assert_int_equal(v, 5);
	assert_err_has(&f->ctx, path);

	tmproot_put(f->root, "/sys/huge", "-99999999999999999999999");
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/huge"), -ERANGE);
	assert_int_equal(v, 5);

	/* One past the largest long long. */
	tmproot_put(f->root, "/sys/huge", "9223372036854775808");
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/huge"), -ERANGE);

	/* A long junk line is quoted, but shortened. */
	char junk[200];
	memset(junk, 'z', sizeof(junk) - 1);
	junk[sizeof(junk) - 1] = '\0';
	tmproot_put(f->root, "/sys/huge", junk);
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/huge"), -EINVAL);
	assert_err_has(&f->ctx, "zzz...'");
	assert_true(strlen(f->ctx.err) < strlen(path) + 100);
}

static void test_read_cpulist(void **state)
{
	struct fixture *f = *state;
	struct np_cpuset set = NP_CPUSET_INIT;
	char path[PATH_MAX];

	tmproot_put(f->root, "/sys/devices/system/cpu/online", "0-3,8\n");
	assert_int_equal(np_read_cpulist(&f->ctx, &set, "/sys/devices/system/cpu/online"), 0);
	assert_int_equal(np_cpuset_count(&set), 5);
	assert_true(np_cpuset_test(&set, 8));
	assert_false(np_cpuset_test(&set, 4));

	tmproot_put(f->root, "/sys/devices/system/cpu/isolated", "\n");
	assert_int_equal(np_read_cpulist(&f->ctx, &set, "/sys/devices/system/cpu/isolated"), 0);
	assert_true(np_cpuset_empty(&set));

	tmproot_path(f->root, path, "/sys/devices/system/cpu/bad");
	tmproot_put(f->root, "/sys/devices/system/cpu/bad", "0-3,x\n");
	assert_int_equal(np_read_cpulist(&f->ctx, &set, "/sys/devices/system/cpu/bad"), -EINVAL);
	assert_true(np_cpuset_empty(&set));
	assert_err_has(&f->ctx, path);
	assert_err_has(&f->ctx, "'0-3,x'");

	tmproot_put(f->root, "/sys/devices/system/cpu/bad", "0-4000000000\n");
	assert_int_equal(np_read_cpulist(&f->ctx, &set, "/sys/devices/system/cpu/bad"), -ERANGE);
	assert_err_has(&f->ctx, path);
	assert_err_has(&f->ctx, "names a CPU above 65535");
	np_cpuset_free(&set);
}

static void test_read_cpumask(void **state)
{
	struct fixture *f = *state;
	struct np_cpuset set = NP_CPUSET_INIT;
	char path[PATH_MAX];

	tmproot_put(f->root, "/sys/devices/system/node/node0/cpumap", "00000000,0000000f\n");
	assert_int_equal(np_read_cpumask(&f->ctx, &set, "/sys/devices/system/node/node%d/cpumap", 0), 0);
	assert_int_equal(np_cpuset_count(&set), 4);
	assert_int_equal(np_cpuset_last(&set), 3);

	tmproot_path(f->root, path, "/sys/devices/system/node/node1/cpumap");
	tmproot_put(f->root, "/sys/devices/system/node/node1/cpumap", "ff,zz\n");
	assert_int_equal(np_read_cpumask(&f->ctx, &set, "/sys/devices/system/node/node1/cpumap"), -EINVAL);
	assert_true(np_cpuset_empty(&set));
	assert_err_has(&f->ctx, path);
	assert_err_has(&f->ctx, "mask");

	/* A list where a mask belongs is an error, not a misread. */
	tmproot_put(f->root, "/sys/devices/system/node/node1/cpumap", "0-3\n");
	assert_int_equal(np_read_cpumask(&f->ctx, &set, "/sys/devices/system/node/node1/cpumap"), -EINVAL);
	assert_err_has(&f->ctx, path);
	np_cpuset_free(&set);
}

static void test_read_binary(void **state)
{
	struct fixture *f = *state;
	struct np_cpuset set = NP_CPUSET_INIT;
	char *text = NULL, path[PATH_MAX];
	long long v;
	static const char junk[] = { '1', '\0', '2', '\n' };

	/* Without the NUL check the NUL would cut this to a valid "1". */
	tmproot_path(f->root, path, "/sys/junk");
	tmproot_put_bytes(f->root, "/sys/junk", junk, sizeof(junk));
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/junk"), -EINVAL);
	assert_null(text);
	assert_err_has(&f->ctx, path);
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/junk"), -EINVAL);
	assert_int_equal(np_read_cpulist(&f->ctx, &set, "/sys/junk"), -EINVAL);
	assert_int_equal(np_read_cpumask(&f->ctx, &set, "/sys/junk"), -EINVAL);
	assert_err_has(&f->ctx, path);

	tmproot_put_bytes(f->root, "/sys/junk", "1\n\0" "2\n", 5);
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/junk"), -EINVAL);
	np_cpuset_free(&set);
}

/* hwloc's gathered dumps end some values in NULs after the newline. */
static void test_read_trailing_nul(void **state)
{
	struct fixture *f = *state;
	struct np_cpuset set = NP_CPUSET_INIT;
	char *text = NULL;
	long long v = 0;

	tmproot_put_bytes(f->root, "/sys/devices/system/node/node0/cpulist", "0-31\n\0", 6);
	assert_int_equal(np_read_cpulist(&f->ctx, &set, "/sys/devices/system/node/node0/cpulist"), 0);
	assert_int_equal(np_cpuset_count(&set), 32);
	assert_int_equal(np_cpuset_last(&set), 31);
	tmproot_put_bytes(f->root, "/sys/n", "42\0\0\0", 5);
	assert_int_equal(np_read_int(&f->ctx, &v, "/sys/n"), 0);
	assert_int_equal(v, 42);
	tmproot_put_bytes(f->root, "/sys/n", "\0", 1);
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/n"), 0);
	assert_string_equal(text, "");
	free(text);
	np_cpuset_free(&set);
}

static void test_write_text(void **state)
{
	struct fixture *f = *state;
	char *text;

	tmproot_put(f->root, "/sys/class/setting", "old value that is longer\n");
	assert_int_equal(np_write_text(&f->ctx, "3", "/sys/class/setting"), 0);
	/* O_TRUNC: nothing of the longer old value remains; the newline is added. */
	text = tmproot_slurp(f->root, "/sys/class/setting", 4096);
	assert_non_null(text);
	assert_string_equal(text, "3\n");
	free(text);

	assert_int_equal(np_write_text(&f->ctx, "0-3\n", "/sys/class/%s", "setting"), 0);
	text = tmproot_slurp(f->root, "/sys/class/setting", 4096);
	assert_string_equal(text, "0-3\n");
	free(text);
}

static void test_write_missing(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];

	tmproot_path(f->root, path, "/sys/class/absent");
	tmproot_make_dirs(f->root, "/sys/class");
	assert_int_equal(np_write_text(&f->ctx, "1", "/sys/class/absent"), -ENOENT);
	assert_err_has(&f->ctx, path);
	/* Never created: a setting that does not exist stays absent. */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	assert_false(np_sysfs_exists(&f->ctx, "/sys/class/absent"));
}

static void test_write_symlink(void **state)
{
	struct fixture *f = *state;
	char target[PATH_MAX], link[PATH_MAX];

	tmproot_put(f->root, "/sys/target", "untouched");
	tmproot_path(f->root, target, "/sys/target");
	tmproot_path(f->root, link, "/sys/link");
	assert_int_equal(symlink("target", link), 0);
	assert_int_equal(np_write_text(&f->ctx, "1", "/sys/link"), -ELOOP);
	assert_err_has(&f->ctx, link);
	char *text = tmproot_slurp(f->root, "/sys/target", 4096);
	assert_string_equal(text, "untouched");
	free(text);

	/* Reading through a link is fine: sysfs is full of them. */
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/link"), 0);
	assert_string_equal(text, "untouched");
	free(text);
}

static void test_list_dir(void **state)
{
	struct fixture *f = *state;
	static const char *const want[] = {
		"cpu0", "cpu1", "cpu2", "cpu9", "cpu10", "cpu11", "cpu100", "cpufreq", "online",
	};
	static const char *const create[] = {
		"cpu10", "online", "cpu2", "cpu100", "cpu0", "cpufreq", "cpu11", "cpu9", "cpu1",
	};
	char rel[PATH_MAX], **names = NULL;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(create) / sizeof(create[0]); i++) {
		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/%s", create[i]);
		if (!strncmp(create[i], "cpu", 3))
			tmproot_make_dirs(f->root, rel);
		else
			tmproot_put(f->root, rel, "0-3\n");
	}
	assert_int_equal(np_list_dir(&f->ctx, &names, &n, "/sys/devices/system/cpu"), 0);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		assert_string_equal(names[i], want[i]);
	np_names_free(names, n);

	char path[PATH_MAX];
	tmproot_path(f->root, path, "/sys/devices/system/nope");
	assert_int_equal(np_list_dir(&f->ctx, &names, &n, "/sys/devices/system/nope"), -ENOENT);
	assert_err_has(&f->ctx, path);
	assert_int_equal(np_list_dir(&f->ctx, &names, &n, "/sys/devices/system/cpu/online"), -ENOTDIR);
}

static int by_strverscmp(const void *a, const void *b)
{
	return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

/* Names in strverscmp's order, leading zeros and all (np_list_dir answers
 * most comparisons without it). */
static void test_list_dir_version_order(void **state)
{
	struct fixture *f = *state;
	const char *want[] = { "rx-10", "rx-0", "rx-9", "rx-100", "rx-1", "rx-19", "tx-10", "tx-0", "a010", "a01",
			       "a001", "a1", "a0", "a00", "x10y", "x9y", "nvme10n1", "nvme1n1", "nvme0n1", "q1.10",
			       "q1.5", "007", "07", "7", "70", "rx-", "rx", "0", "9", "10", "rx-01", "rx-1a",
			       "18446744073709551615", "18446744073709551616", "9999999999999999999", "abcdefg9",
			       "abcdefg10", "abcdefgh9", "abcdefgh10", "abcdefg" };
	size_t nwant = sizeof(want) / sizeof(want[0]), n = 0;
	char rel[PATH_MAX], **names = NULL;
	for (size_t i = 0; i < nwant; i++) {
		snprintf(rel, sizeof(rel), "/sys/class/net/eth0/queues/%s", want[i]);
		tmproot_make_dirs(f->root, rel);
	}
	qsort(want, nwant, sizeof(want[0]), by_strverscmp);
	assert_int_equal(np_list_dir(&f->ctx, &names, &n, "/sys/class/net/eth0/queues"), 0);
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(names[i], want[i]);
	np_names_free(names, n);
}

static void test_list_dir_empty(void **state)
{
	struct fixture *f = *state;
	char **names = (char **)&names;
	size_t n = 99;

	tmproot_make_dirs(f->root, "/sys/bus/empty");
	assert_int_equal(np_list_dir(&f->ctx, &names, &n, "/sys/bus/empty"), 0);
	assert_int_equal(n, 0);
	np_names_free(names, n);
}

static void test_read_link(void **state)
{
	struct fixture *f = *state;
	char link[PATH_MAX], *target = NULL;

	tmproot_make_dirs(f->root, "/sys/bus/pci/devices");
	tmproot_path(f->root, link, "/sys/bus/pci/devices/0000:00:01.0");
	/* Dangling as stored: the target is returned as written, not resolved. */
	assert_int_equal(symlink("../../../devices/pci0000:00/0000:00:01.0", link), 0);
	assert_int_equal(np_read_link(&f->ctx, &target, "/sys/bus/pci/devices/%s", "0000:00:01.0"), 0);
	assert_string_equal(target, "../../../devices/pci0000:00/0000:00:01.0");
	free(target);

	tmproot_put(f->root, "/sys/regular", "x");
	tmproot_path(f->root, link, "/sys/regular");
	assert_int_equal(np_read_link(&f->ctx, &target, "/sys/regular"), -EINVAL);
	assert_err_has(&f->ctx, link);
}

static void test_exists(void **state)
{
	struct fixture *f = *state;

	tmproot_put(f->root, "/sys/here", "1");
	tmproot_make_dirs(f->root, "/proc/dir");
	assert_true(np_sysfs_exists(&f->ctx, "/sys/here"));
	assert_true(np_sysfs_exists(&f->ctx, "/proc/%s", "dir"));
	assert_false(np_sysfs_exists(&f->ctx, "/sys/gone"));
	/* The host's own /tmp is not under the root. */
	assert_false(np_sysfs_exists(&f->ctx, "/tmp"));
}

static void test_root_prefix(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX], want[PATH_MAX], *text = NULL;

	tmproot_put(f->root, "/sys/x", "under root\n");
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/x"), 0);
	assert_string_equal(text, "under root");
	free(text);

	assert_int_equal(np_sysfs_path(&f->ctx, path, "/sys/%s/%d", "cpu", 3), 0);
	tmproot_path(f->root, want, "/sys/cpu/3");
	assert_string_equal(path, want);

	/* Reads of machine paths never escape to the host. */
	tmproot_put(f->root, "/proc/cmdline", "root-copy\n");
	assert_int_equal(np_read_text(&f->ctx, &text, "/proc/cmdline"), 0);
	assert_string_equal(text, "root-copy");
	free(text);

	FILE *fp = np_fopen(&f->ctx, &(int){ 0 }, 4096, 4096, "/sys/x");
	assert_non_null(fp);
	char line[32];
	assert_non_null(fgets(line, sizeof(line), fp));
	assert_string_equal(line, "under root\n");
	fclose(fp);

	int rc = 0;
	tmproot_path(f->root, want, "/sys/none");
	assert_null(np_fopen(&f->ctx, &rc, 4096, 4096, "/sys/none"));
	assert_int_equal(rc, -ENOENT);
	assert_err_has(&f->ctx, want);
}

/* Paths are formatted without printf for %s, %d and %u, and by it for the
 * rest: both give printf's text. */
static void test_path_conversions(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX], want[PATH_MAX];
	assert_int_equal(np_sysfs_path(&f->ctx, path, "/proc/irq/%d/%s_list", 4099, "smp_affinity"), 0);
	tmproot_path(f->root, want, "/proc/irq/4099/smp_affinity_list");
	assert_string_equal(path, want);
	assert_int_equal(np_sysfs_path(&f->ctx, path, "/a/%d/%u/%d", -12, 4294967295u, 0), 0);
	tmproot_path(f->root, want, "/a/-12/4294967295/0");
	assert_string_equal(path, want);
	assert_int_equal(np_sysfs_path(&f->ctx, path, "/a/%03d/%zu/%%/%s", 7, (size_t)42, "x"), 0);
	tmproot_path(f->root, want, "/a/007/42/%/x");
	assert_string_equal(path, want);
}

/* The bounded reader gives the file's bytes as they are, and fails with
 * EFBIG past either bound. */
static void test_bounded_reader(void **state)
{
	struct fixture *f = *state;
	char buf[64];
	int rc = -1;
	tmproot_put(f->root, "/proc/lines", "one\ntwo\nthree\n");
	struct np_bounded *b = np_bounded_open(&f->ctx, &rc, 100, 10, "/proc/lines");
	assert_non_null(b);
	assert_int_equal(rc, 0);
	assert_int_equal(np_bounded_read(b, buf, sizeof(buf)), 14);
	assert_memory_equal(buf, "one\ntwo\nthree\n", 14);
	assert_int_equal(np_bounded_read(b, buf, sizeof(buf)), 0);
	np_bounded_close(b);

	b = np_bounded_open(&f->ctx, &rc, 10, 100, "/proc/lines");
	assert_non_null(b);
	errno = 0;
	assert_int_equal(np_bounded_read(b, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EFBIG);
	np_bounded_close(b);

	tmproot_put(f->root, "/proc/long", "a line that is long\n");
	b = np_bounded_open(&f->ctx, &rc, 100, 8, "/proc/long");
	assert_non_null(b);
	assert_int_equal(np_bounded_read(b, buf, 8), 8);
	errno = 0;
	assert_int_equal(np_bounded_read(b, buf, 8), -1);
	assert_int_equal(errno, EFBIG);
	np_bounded_close(b);

	assert_null(np_bounded_open(&f->ctx, &rc, 100, 100, "/proc/none"));
	assert_int_equal(rc, -ENOENT);
}

static void test_path_too_long(void **state)
{
	struct fixture *f = *state;
	char long_name[PATH_MAX + 10], path[PATH_MAX], *text = NULL;

	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(np_sysfs_path(&f->ctx, path, "/sys/%s", long_name), -ENAMETOOLONG);
	assert_int_equal(np_read_text(&f->ctx, &text, "/sys/%s", long_name), -ENAMETOOLONG);
	assert_null(text);
	assert_err_has(&f->ctx, f->root);
	assert_false(np_sysfs_exists(&f->ctx, "/sys/%s", long_name));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	/* The environment must not pick a root for the tests that pass NULL. */
	unsetenv(NP_ROOT_ENV);
	const struct CMUnitTest tests[] = {
		T(test_ctx_root_dir),
		T(test_read_sizes),
		T(test_read_not_a_file),
		T(test_ctx_env),
		T(test_ctx_missing_root),
		T(test_ctx_root_is_file),
		T(test_read_text),
		T(test_read_absent),
		T(test_read_int),
		T(test_read_int_malformed),
		T(test_read_int_range),
		T(test_read_cpulist),
		T(test_read_cpumask),
		T(test_read_binary),
		T(test_read_trailing_nul),
		T(test_write_text),
		T(test_write_missing),
		T(test_write_symlink),
		T(test_list_dir),
		T(test_list_dir_version_order),
		T(test_list_dir_empty),
		T(test_read_link),
		T(test_exists),
		T(test_root_prefix),
		T(test_path_too_long),
		T(test_path_conversions),
		T(test_bounded_reader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
