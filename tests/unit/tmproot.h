/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A scratch root for the unit tests: a fresh directory under /tmp, files put
 * under it and read back directly, and its removal. Every function takes the
 * root's path; `rel` is a path under it that begins with '/'. Failures end the
 * test (cmocka's fail_msg and asserts), except in tmproot_create and
 * tmproot_remove, which return an error for use in setup and teardown. */
#ifndef NUMAPLACE_TESTS_TMPROOT_H
#define NUMAPLACE_TESTS_TMPROOT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/context.h"

/* Room for a root (64 bytes in every fixture) and a rel of PATH_MAX. */
#define TMPROOT_PATH_MAX (PATH_MAX + 64)

/* Makes a fresh directory from template (ending in XXXXXX) in root, a buffer
 * of size bytes, and when ctx is not NULL a context rooted there. 0, or -1
 * with neither left behind. */
static inline int tmproot_create(char *root, size_t size, const char *template, struct np_ctx *ctx)
{
	if ((size_t)snprintf(root, size, "%s", template) >= size || !mkdtemp(root))
		return -1;
	if (ctx && np_ctx_init(ctx, root)) {
		np_ctx_fini(ctx);
		rmdir(root);
		return -1;
	}
	return 0;
}

static inline int tmproot_remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* Ends ctx when it is not NULL, then removes root and all below it; nftw's
 * result (0, or -1 with errno). */
static inline int tmproot_remove(const char *root, struct np_ctx *ctx)
{
	if (ctx)
		np_ctx_fini(ctx);
	/* FTW_PHYS: remove the test's symlinks, never what they point at. */
	return nftw(root, tmproot_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* buf (PATH_MAX bytes) = root + rel. */
static inline void tmproot_path(const char *root, char *buf, const char *rel)
{
	snprintf(buf, PATH_MAX, "%s%s", root, rel);
}

/* Makes the directory root + rel and any missing parents. */
static inline void tmproot_make_dirs(const char *root, const char *rel)
{
	char path[TMPROOT_PATH_MAX];
	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			fail_msg("mkdir '%s': %s", path, strerror(errno));
		*p = '/';
	}
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		fail_msg("mkdir '%s': %s", path, strerror(errno));
}

/* Makes the directories that hold root + rel. */
static inline void tmproot_parent_dirs(const char *root, const char *rel)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", rel);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		tmproot_make_dirs(root, dir);
	}
}

/* Writes len bytes (content may hold NULs) to path, created or truncated. */
static inline void tmproot_write(const char *path, const void *content, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fail_msg("create '%s': %s", path, strerror(errno));
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* Writes len bytes (content may hold NULs) at root + rel, making parents. */
static inline void tmproot_put_bytes(const char *root, const char *rel, const char *content, size_t len)
{
	char path[TMPROOT_PATH_MAX];
	tmproot_parent_dirs(root, rel);
	snprintf(path, sizeof(path), "%s%s", root, rel);
	tmproot_write(path, content, len);
}

static inline void tmproot_put(const char *root, const char *rel, const char *content)
{
	tmproot_put_bytes(root, rel, content, strlen(content));
}

/* Reads root + rel directly, bypassing the layers under test: at most
 * size - 1 bytes, in a buffer of size bytes to free; NULL when it cannot be
 * opened. */
static inline char *tmproot_slurp(const char *root, const char *rel, size_t size)
{
	char path[TMPROOT_PATH_MAX];
	snprintf(path, sizeof(path), "%s%s", root, rel);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return NULL;
	char *buf = calloc(1, size);
	assert_non_null(buf);
	size_t n = fread(buf, 1, size - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static inline void assert_err_has(const struct np_ctx *ctx, const char *needle)
{
	if (!strstr(ctx->err, needle))
		fail_msg("ctx.err '%s' lacks '%s'", ctx->err, needle);
}

#endif
