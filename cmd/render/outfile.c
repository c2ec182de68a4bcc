/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The files a command writes where the user said (advise -o, report --svg):
 * a link planted at the name is refused, never followed (numaplace runs as
 * root, often in a shared directory), and a regular file is replaced whole
 * by a rename, so a reader or a crash sees the old file or the new one. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/context.h"
#include "read/sysfs.h"
#include "cmd.h"

int np_write_output(const char *path, const char *text, size_t len)
{
	char dir[PATH_MAX];
	struct stat st;
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return np_error("cannot write '%s': %s", path, strerror(EISDIR));
	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return np_error("cannot write '%s': %s", path, strerror(errno));
	int rc = EXIT_OK;
	bool exists = fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (exists && S_ISLNK(st.st_mode)) {
		rc = np_error("cannot write '%s': it is a symbolic link; refusing to follow it (remove it first)", path);
	} else if (exists && !S_ISREG(st.st_mode)) {
		/* A FIFO or a terminal (-o /dev/stdout): nothing to replace, written into. */
		int fd = openat(dirfd, base, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		int err = fd < 0 ? errno : -np_write_all(fd, text, len);
		if (fd >= 0 && close(fd) < 0 && !err)
			err = errno;
		if (err)
			rc = np_error("cannot write '%s': %s", path, strerror(err));
	} else {
		struct np_ctx ctx = { .root = (char *)"", .rootfd = -1 };
		if (np_replace_at(&ctx, dirfd, base, path, text, len, 0644, exists ? &st : NULL))
			rc = np_error("%s", ctx.err);
	}
	close(dirfd);
	return rc;
}
