/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/conffile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/sysfs.h"

/* A configuration file this large is not one numaplace should be editing,
 * and every byte of it goes into a journal. */
#define CONF_MAX_BYTES (1u << 20)

int np_conf_read(struct np_ctx *ctx, const char *path, char **out)
{
	char full[PATH_MAX], *buf = NULL;
	struct stat st;
	size_t len = 0;
	int rc = np_sysfs_path(ctx, full, "%s", path);
	if (rc)
		return rc;
	*out = NULL;
	int fd = np_open(ctx, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0);
	if (fd == -ELOOP)
		return np_fail(ctx, -ELOOP, "'%s' is a symbolic link; refusing it", full);
	if (fd < 0)
		return np_fail(ctx, fd, "cannot open '%s': %s", full, strerror(-fd));
	if (fstat(fd, &st) < 0) {
		rc = np_fail(ctx, -errno, "cannot read '%s': %s", full, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = np_fail(ctx, -EINVAL, "'%s' is not a regular file", full);
		goto out;
	}
	if (!(buf = malloc(CONF_MAX_BYTES + 1))) {
		rc = np_fail(ctx, -ENOMEM, "cannot read '%s': %s", full, strerror(ENOMEM));
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, CONF_MAX_BYTES + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = np_fail(ctx, -errno, "cannot read '%s': %s", full, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CONF_MAX_BYTES) {
			rc = np_fail(ctx, -EFBIG, "'%s' is larger than %u bytes; refusing it", full,
				     CONF_MAX_BYTES);
			break;
		}
	}
	if (!rc && memchr(buf, '\0', len))
		rc = np_fail(ctx, -EINVAL, "'%s': unexpected binary content", full);
	if (rc) {
		free(buf);
		goto out;
	}
	buf[len] = '\0';
	*out = realloc(buf, len + 1);
	if (!*out)
		*out = buf;
out:
	close(fd);
	return rc;
}

/* The directory of path, made first when create; an fd, or -errno with the detail. */
static int open_dir_of(struct np_ctx *ctx, const char *path, const char *full, bool create,
		       const char **base)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (create && slash && slash != path) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		int rc = np_mkdirs(ctx, dir, 0755);
		if (rc)
			return rc;
	}
	int dfd = np_open_parent(ctx, path, base);
	if (dfd < 0)
		return np_fail(ctx, dfd, "cannot open the directory of '%s': %s", full, strerror(-dfd));
	return dfd;
}

int np_conf_write(struct np_ctx *ctx, const char *path, const char *content, mode_t mode, bool create)
{
	char full[PATH_MAX];
	struct stat st;
	const char *base;
	int rc = np_sysfs_path(ctx, full, "%s", path);
	if (rc)
		return rc;
	int dfd = open_dir_of(ctx, path, full, create, &base);
	if (dfd < 0)
		return dfd;
	bool exists = fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (exists && S_ISLNK(st.st_mode))
		rc = np_fail(ctx, -ELOOP, "'%s' is a symbolic link; refusing to replace it", full);
	else if (exists && !S_ISREG(st.st_mode))
		rc = np_fail(ctx, -EINVAL, "'%s' is not a regular file; refusing to replace it", full);
	else if (!exists && (errno != ENOENT || !create))
		rc = np_fail(ctx, -errno, "cannot replace '%s': %s", full, strerror(errno));
	else
		rc = np_replace_at(ctx, dfd, base, full, content, strlen(content), mode,
				   exists ? &st : NULL);
	close(dfd);
	return rc;
}

int np_conf_remove(struct np_ctx *ctx, const char *path)
{
	char full[PATH_MAX];
	struct stat st;
	const char *base;
	int rc = np_sysfs_path(ctx, full, "%s", path);
	if (rc)
		return rc;
	int dfd = open_dir_of(ctx, path, full, false, &base);
	if (dfd < 0)
		return dfd == -ENOENT ? np_fail(ctx, -ENOENT, "cannot remove '%s': %s", full,
						strerror(ENOENT))
				      : dfd;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = np_fail(ctx, -errno, "cannot remove '%s': %s", full, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		rc = np_fail(ctx, -EISDIR, "cannot remove '%s': %s", full, strerror(EISDIR));
	else if (unlinkat(dfd, base, 0) < 0)
		rc = np_fail(ctx, -errno, "cannot remove '%s': %s", full, strerror(errno));
	else if (fsync(dfd) < 0)
		rc = np_fail(ctx, -errno, "cannot sync the directory of '%s': %s", full, strerror(errno));
	close(dfd);
	return rc;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

int np_conf_value(const char *text, const char *name, bool spaced, char **value)
{
	size_t nlen = strlen(name);
	const char *v = NULL, *v_end = NULL;
	*value = NULL;
	for (const char *p = text; p && *p;) {
		const char *e = strchrnul(p, '\n'), *l = p;
		p = *e ? e + 1 : e;
		while (l < e && blank(*l))
			l++;
		if (!spaced && e - l > 7 && !strncmp(l, "export", 6) && blank(l[6]))
			for (l += 6; l < e && blank(*l);)
				l++;
		if ((size_t)(e - l) <= nlen || strncmp(l, name, nlen))
			continue;
		const char *eq = l + nlen;
		while (spaced && eq < e && blank(*eq))
			eq++;
		if (eq == e || *eq != '=')
			continue;
		v = eq + 1;
		while (spaced && v < e && blank(*v))
			v++;
		v_end = e;
		while (v_end > v && (blank(v_end[-1]) || v_end[-1] == '\r'))
			v_end--;
		if (v_end - v >= 2 && (*v == '"' || *v == '\'') && v_end[-1] == *v) {
			v++;
			v_end--;
		}
	}
	if (!v)
		return 0;
	*value = strndup(v, (size_t)(v_end - v));
	return *value ? 0 : -ENOMEM;
}
