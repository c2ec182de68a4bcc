#include "sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int vpath(struct np_ctx *ctx, char *buf, const char *fmt, va_list ap)
{
	size_t rootlen = strlen(ctx->root);
	if (rootlen >= PATH_MAX)
		return np_fail(ctx, -ENAMETOOLONG, "root '%s': %s", ctx->root, strerror(ENAMETOOLONG));
	memcpy(buf, ctx->root, rootlen);
	int n = vsnprintf(buf + rootlen, PATH_MAX - rootlen, fmt, ap);
	if (n < 0 || (size_t)n >= PATH_MAX - rootlen)
		return np_fail(ctx, -ENAMETOOLONG, "path under '%s': %s", ctx->root, strerror(ENAMETOOLONG));
	return 0;
}

#define WITH_PATH(ctx, buf, fmt)                 \
	char buf[PATH_MAX];                      \
	do {                                     \
		va_list ap_;                     \
		va_start(ap_, fmt);              \
		int rc_ = vpath(ctx, buf, fmt, ap_); \
		va_end(ap_);                     \
		if (rc_)                         \
			return rc_;              \
	} while (0)

int np_sysfs_path(struct np_ctx *ctx, char *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vpath(ctx, buf, fmt, ap);
	va_end(ap);
	return rc;
}

bool np_sysfs_exists(struct np_ctx *ctx, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	int rc = vpath(ctx, path, fmt, ap);
	va_end(ap);
	return rc == 0 && access(path, F_OK) == 0;
}

static int read_path(struct np_ctx *ctx, const char *path, char **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return np_fail(ctx, -errno, "cannot open '%s': %s", path, strerror(errno));
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		return np_fail(ctx, -ENOMEM, "cannot read '%s': %s", path, strerror(ENOMEM));
	}
	for (;;) {
		if (len + 1 >= cap) {
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				close(fd);
				return np_fail(ctx, -ENOMEM, "cannot read '%s': %s", path, strerror(ENOMEM));
			}
			buf = bigger;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;
			free(buf);
			close(fd);
			return np_fail(ctx, -err, "cannot read '%s': %s", path, strerror(err));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	/* Copies of sysfs (hwloc's gathered dumps) may pad a value with NULs after
	 * its newline ("0-31\n\0"); a NUL inside the value is still corruption. */
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\0'))
		len--;
	if (memchr(buf, '\0', len)) {
		free(buf);
		return np_fail(ctx, -EINVAL, "'%s': unexpected binary content", path);
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int np_read_text(struct np_ctx *ctx, char **out, const char *fmt, ...)
{
	WITH_PATH(ctx, path, fmt);
	return read_path(ctx, path, out);
}

int np_read_int(struct np_ctx *ctx, long long *out, const char *fmt, ...)
{
	WITH_PATH(ctx, path, fmt);
	char *text, *end, ex[44];
	int rc = read_path(ctx, path, &text);
	if (rc)
		return rc;
	errno = 0;
	long long v = strtoll(text, &end, 10);
	/* Decided before the blank skip, which would move end past a blank-only text. */
	bool digits = end != text;
	while (*end == ' ' || *end == '\t')
		end++;
	if (!digits || *end || errno) {
		rc = np_fail(ctx, errno == ERANGE ? -ERANGE : -EINVAL,
			     "'%s': expected an integer, found '%s'", path, np_excerpt(text, ex, sizeof(ex)));
		free(text);
		return rc;
	}
	free(text);
	*out = v;
	return 0;
}

static int read_set(struct np_ctx *ctx, const char *path, struct np_cpuset *out, bool mask)
{
	char *text, ex[44];
	int rc = read_path(ctx, path, &text);
	if (rc)
		return rc;
	rc = mask ? np_cpuset_parse_mask(out, text) : np_cpuset_parse_list(out, text);
	if (rc)
		np_fail(ctx, rc, "'%s': expected a CPU %s, found '%s'%s", path, mask ? "mask" : "list",
			np_excerpt(text, ex, sizeof(ex)), rc == -ERANGE ? " (CPU number too large)" : "");
	free(text);
	return rc;
}

int np_read_cpulist(struct np_ctx *ctx, struct np_cpuset *out, const char *fmt, ...)
{
	WITH_PATH(ctx, path, fmt);
	return read_set(ctx, path, out, false);
}

int np_read_cpumask(struct np_ctx *ctx, struct np_cpuset *out, const char *fmt, ...)
{
	WITH_PATH(ctx, path, fmt);
	return read_set(ctx, path, out, true);
}

int np_write_text(struct np_ctx *ctx, const char *value, const char *fmt, ...)
{
	WITH_PATH(ctx, path, fmt);
	/* Newline-terminated, as echo writes it and as the kernel prints it back,
	 * so a copy of /sys written and restored stays byte-identical. */
	size_t len = strlen(value);
	bool newline = !len || value[len - 1] != '\n';
	char *line = malloc(len + 2);
	if (!line)
		return np_fail(ctx, -ENOMEM, "cannot write '%s': %s", path, strerror(ENOMEM));
	memcpy(line, value, len);
	if (newline)
		line[len++] = '\n';
	line[len] = '\0';
	/* No O_CREAT: a setting that does not exist is an error, never a new file. */
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_TRUNC);
	if (fd < 0) {
		free(line);
		return np_fail(ctx, -errno, "cannot open '%s' for writing: %s", path, strerror(errno));
	}
	ssize_t n;
	do
		n = write(fd, line, len);
	while (n < 0 && errno == EINTR);
	free(line);
	int err = n < 0 ? errno : (size_t)n != len ? EIO : 0;
	if (close(fd) < 0 && !err)
		err = errno;
	if (err)
		return np_fail(ctx, -err, "cannot write '%s' to '%s': %s", value, path, strerror(err));
	return 0;
}

int np_read_link(struct np_ctx *ctx, char **out, const char *fmt, ...)
{
	WITH_PATH(ctx, path, fmt);
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return np_fail(ctx, -errno, "cannot read link '%s': %s", path, strerror(errno));
	target[n] = '\0';
	*out = strdup(target);
	return *out ? 0 : np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
}

static int natural_order(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

void np_names_free(char **names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

int np_list_dir(struct np_ctx *ctx, char ***names, size_t *count, const char *fmt, ...)
{
	WITH_PATH(ctx, path, fmt);
	DIR *dir = opendir(path);
	if (!dir)
		return np_fail(ctx, -errno, "cannot list '%s': %s", path, strerror(errno));
	char **list = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **bigger = realloc(list, cap * sizeof(*list));
			if (!bigger)
				goto nomem;
			list = bigger;
		}
		if (!(list[n] = strdup(de->d_name)))
			goto nomem;
		n++;
	}
	closedir(dir);
	/* An empty directory leaves list NULL, which qsort must not be given. */
	if (n)
		qsort(list, n, sizeof(*list), natural_order);
	*names = list;
	*count = n;
	return 0;
nomem:
	closedir(dir);
	np_names_free(list, n);
	return np_fail(ctx, -ENOMEM, "cannot list '%s': %s", path, strerror(ENOMEM));
}

FILE *np_fopen(struct np_ctx *ctx, int *rc, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	*rc = vpath(ctx, path, fmt, ap);
	va_end(ap);
	if (*rc)
		return NULL;
	FILE *f = fopen(path, "re");
	if (!f)
		*rc = np_fail(ctx, -errno, "cannot open '%s': %s", path, strerror(errno));
	return f;
}
