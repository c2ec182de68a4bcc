#include "conffile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs.h"

/* A configuration file this large is not one numaplace should be editing,
 * and every byte of it goes into a journal. */
#define CONF_MAX_BYTES (1u << 20)

/* Splits full into its directory (in dir) and returns its last component. */
static const char *split_dir(const char *full, char *dir)
{
	snprintf(dir, PATH_MAX, "%s", full);
	char *slash = strrchr(dir, '/');
	if (!slash) {
		snprintf(dir, PATH_MAX, ".");
		return full;
	}
	if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return full + (slash - dir) + 1;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int err = fsync(fd) < 0 ? -errno : 0;
	close(fd);
	return err;
}

int np_conf_read(struct np_ctx *ctx, const char *path, char **out)
{
	char full[PATH_MAX], *buf = NULL;
	struct stat st;
	size_t len = 0;
	int rc = np_sysfs_path(ctx, full, "%s", path);
	if (rc)
		return rc;
	*out = NULL;
	int fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP)
		return np_fail(ctx, -ELOOP, "'%s' is a symbolic link; refusing it", full);
	if (fd < 0)
		return np_fail(ctx, -errno, "cannot open '%s': %s", full, strerror(errno));
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

/* Makes the directories leading to path under the root, 0755 whatever the umask. */
static int make_parents(struct np_ctx *ctx, const char *path)
{
	char rel[PATH_MAX], full[PATH_MAX];
	snprintf(rel, sizeof(rel), "%s", path);
	for (char *p = rel + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		int rc = np_sysfs_path(ctx, full, "%s", rel);
		*p = '/';
		if (rc)
			return rc;
		if (mkdir(full, 0755) == 0) {
			char parent[PATH_MAX];
			split_dir(full, parent);
			int err = chmod(full, 0755) < 0 ? -errno : sync_dir(parent);
			if (err)
				return np_fail(ctx, err, "cannot create directory '%s': %s", full,
					       strerror(-err));
		} else if (errno != EEXIST) {
			return np_fail(ctx, -errno, "cannot create directory '%s': %s", full,
				       strerror(errno));
		}
	}
	return 0;
}

int np_write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int np_conf_write(struct np_ctx *ctx, const char *path, const char *content, mode_t mode, bool create)
{
	char full[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX + 64];
	struct stat st;
	bool exists = false;
	int rc = np_sysfs_path(ctx, full, "%s", path);
	if (rc)
		return rc;
	if (lstat(full, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return np_fail(ctx, -ELOOP, "'%s' is a symbolic link; refusing to replace it", full);
		if (!S_ISREG(st.st_mode))
			return np_fail(ctx, -EINVAL, "'%s' is not a regular file; refusing to replace it",
				       full);
		exists = true;
		mode = st.st_mode & 07777;
	} else if (errno != ENOENT || !create) {
		return np_fail(ctx, -errno, "cannot replace '%s': %s", full, strerror(errno));
	} else if ((rc = make_parents(ctx, path))) {
		return rc;
	}

	/* Hidden, and named by our pid: two writers never share a temporary file. */
	const char *base = split_dir(full, dir);
	snprintf(tmp, sizeof(tmp), "%s/.%s.numaplace-%ld", dir, base, (long)getpid());
	if (unlink(tmp) < 0 && errno != ENOENT)
		return np_fail(ctx, -errno, "cannot remove '%s': %s", tmp, strerror(errno));
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600), err = 0;
	if (fd < 0)
		return np_fail(ctx, -errno, "cannot create '%s': %s", tmp, strerror(errno));
	/* The replacement keeps the original's owner: root editing a file
	 * another user owns must not take it over. */
	if (fchmod(fd, mode) < 0 ||
	    (exists && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
	     fchown(fd, st.st_uid, st.st_gid) < 0))
		err = errno;
	if (!err)
		err = -np_write_all(fd, content, strlen(content));
	if (!err && fsync(fd) < 0)
		err = errno;
	if (close(fd) < 0 && !err)
		err = errno;
	if (!err && rename(tmp, full) < 0)
		err = errno;
	if (err) {
		unlink(tmp);
		return np_fail(ctx, -err, "cannot write '%s': %s", full, strerror(err));
	}
	if ((err = sync_dir(dir)))
		return np_fail(ctx, err, "cannot sync directory '%s': %s", dir, strerror(-err));
	return 0;
}

int np_conf_remove(struct np_ctx *ctx, const char *path)
{
	char full[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	int rc = np_sysfs_path(ctx, full, "%s", path);
	if (rc)
		return rc;
	if (lstat(full, &st) < 0)
		return np_fail(ctx, -errno, "cannot remove '%s': %s", full, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return np_fail(ctx, -EISDIR, "cannot remove '%s': %s", full, strerror(EISDIR));
	if (unlink(full) < 0)
		return np_fail(ctx, -errno, "cannot remove '%s': %s", full, strerror(errno));
	split_dir(full, dir);
	if ((rc = sync_dir(dir)))
		return np_fail(ctx, rc, "cannot sync directory '%s': %s", dir, strerror(-rc));
	return 0;
}
