/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/context.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int np_ctx_init(struct np_ctx *ctx, const char *root)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->rootfd = -1;
	if (!root)
		root = getenv(NP_ROOT_ENV);
	if (!root || !*root || strcmp(root, "/") == 0)
		root = "";
	size_t len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		len--;
	ctx->root = strndup(root, len);
	if (!ctx->root)
		return -ENOMEM;
	if (*ctx->root) {
		struct stat st;
		if (stat(ctx->root, &st) < 0)
			return np_fail(ctx, -errno, "root '%s': %s", ctx->root, strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return np_fail(ctx, -ENOTDIR, "root '%s': %s", ctx->root, strerror(ENOTDIR));
		/* Absolute and without links, so that resolved sysfs links can be
		 * compared with it ("--root ." must see the same as "--root $PWD"). */
		char *real = realpath(ctx->root, NULL);
		if (!real)
			return np_fail(ctx, -errno, "root '%s': %s", ctx->root, strerror(errno));
		free(ctx->root);
		ctx->root = strcmp(real, "/") ? real : (free(real), strdup(""));
		if (!ctx->root)
			return -ENOMEM;
	}
	if (*ctx->root) {
		ctx->rootfd = open(ctx->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (ctx->rootfd < 0)
			return np_fail(ctx, -errno, "root '%s': %s", ctx->root, strerror(errno));
		/* The one check that the kernel can resolve inside a root. */
		struct open_how how = { .flags = O_PATH | O_CLOEXEC,
					.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
		int fd = (int)syscall(SYS_openat2, ctx->rootfd, ".", &how, sizeof(how));
		if (fd < 0 && errno == ENOSYS)
			return np_fail(ctx, -ENOSYS,
				       "root '%s': this kernel lacks openat2 (Linux 5.6 or later), "
				       "without which paths under the root could escape it; "
				       "use a newer kernel or copy the files onto this machine's root",
				       ctx->root);
		if (fd < 0)
			return np_fail(ctx, -errno, "root '%s': %s", ctx->root, strerror(errno));
		close(fd);
	}
	return 0;
}

void np_ctx_fini(struct np_ctx *ctx)
{
	free(ctx->root);
	ctx->root = NULL;
	if (ctx->rootfd >= 0)
		close(ctx->rootfd);
	ctx->rootfd = -1;
}

int np_fail(struct np_ctx *ctx, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ctx->err, sizeof(ctx->err), fmt, ap);
	va_end(ap);
	return rc;
}

const char *np_excerpt_n(const char *text, size_t len, char *buf, size_t size)
{
	size_t i = 0;
	for (; i < len && text[i] && i + 4 < size; i++)
		buf[i] = (text[i] >= 0x20 && text[i] < 0x7f) ? text[i] : '?';
	if (i < len && text[i])
		buf[i++] = '.', buf[i++] = '.', buf[i++] = '.';
	buf[i] = '\0';
	return buf;
}

const char *np_excerpt(const char *text, char *buf, size_t size)
{
	return np_excerpt_n(text, strlen(text), buf, size);
}
