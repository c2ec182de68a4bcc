/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Machine path (mpath) and what messages show (root + mpath). */
/* The conversions paths are made of (%s, %d, %u), without printf's
 * machinery: on a 1024-CPU root a report formats 21,000 paths, and
 * vsnprintf's set-up per call was a twentieth of its user time. Returns the
 * length written to out (NUL-terminated), or -1 for any other conversion or
 * a path that does not fit, which vsnprintf then formats. */
static int format_path(char *out, size_t size, const char *fmt, va_list ap)
{
	size_t n = 0;
	for (const char *f = fmt;; f++) {
		char num[24];
		const char *s;
		size_t len;
		/* The text up to the next conversion, at once. */
		const char *pct = strchrnul(f, '%');
		if ((size_t)(pct - f) >= size - n)
			return -1;
		memcpy(out + n, f, (size_t)(pct - f));
		n += (size_t)(pct - f);
		if (!*(f = pct))
			break;
		switch (*++f) {
		case 's':
			if (!(s = va_arg(ap, const char *)))
				return -1; /* printf's "(null)" */
			len = strlen(s);
			break;
		case 'd':
		case 'u': {
			bool neg = false;
			unsigned long long u;
			if (*f == 'd') {
				int i = va_arg(ap, int);
				neg = i < 0;
				u = neg ? 0ULL - (unsigned long long)(long long)i : (unsigned long long)i;
			} else {
				u = va_arg(ap, unsigned);
			}
			char *d = num + sizeof(num);
			do
				*--d = (char)('0' + u % 10);
			while (u /= 10);
			if (neg)
				*--d = '-';
			s = d;
			len = (size_t)(num + sizeof(num) - d);
			break;
		}
		default:
			return -1;
		}
		if (len >= size - n)
			return -1;
		memcpy(out + n, s, len);
		n += len;
	}
	out[n] = '\0';
	return (int)n;
}

static int vpath(struct np_ctx *ctx, char *shown, char *mpath, const char *fmt, va_list ap)
{
	size_t rootlen = strlen(ctx->root);
	if (rootlen >= PATH_MAX)
		return np_fail(ctx, -ENAMETOOLONG, "root '%s': %s", ctx->root, strerror(ENAMETOOLONG));
	va_list again;
	va_copy(again, ap);
	int n = format_path(mpath, PATH_MAX, fmt, again);
	va_end(again);
	if (n < 0)
		n = vsnprintf(mpath, PATH_MAX, fmt, ap);
	if (n < 0 || (size_t)n >= PATH_MAX - rootlen)
		return np_fail(ctx, -ENAMETOOLONG, "path under '%s': %s", ctx->root, strerror(ENAMETOOLONG));
	memcpy(shown, ctx->root, rootlen);
	memcpy(shown + rootlen, mpath, (size_t)n + 1);
	return 0;
}

#define WITH_PATH(ctx, shown, mpath, fmt)                    \
	char shown[PATH_MAX], mpath[PATH_MAX];               \
	do {                                                 \
		va_list ap_;                                 \
		va_start(ap_, fmt);                          \
		int rc_ = vpath(ctx, shown, mpath, fmt, ap_); \
		va_end(ap_);                                 \
		if (rc_)                                     \
			return rc_;                          \
	} while (0)

int np_sysfs_path(struct np_ctx *ctx, char *buf, const char *fmt, ...)
{
	char mpath[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	int rc = vpath(ctx, buf, mpath, fmt, ap);
	va_end(ap);
	return rc;
}

int np_open(struct np_ctx *ctx, const char *path, int flags, mode_t mode)
{
	int fd;
	/* A root unpacked from an archive is a copy to read, removed on exit. */
	if (ctx->archive && ((flags & (O_WRONLY | O_RDWR | O_CREAT)) || (flags & __O_TMPFILE) == __O_TMPFILE))
		return -EROFS;
	if (ctx->rootfd < 0) {
		fd = open(path, flags | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	/* ".." stops at the root and an absolute link starts again from it, so a
	 * hostile copy of another machine cannot make us read or write outside. */
	struct open_how how = { .flags = (uint64_t)(flags | O_CLOEXEC),
				.mode = (flags & (O_CREAT | __O_TMPFILE)) ? mode : 0,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	do
		fd = (int)syscall(SYS_openat2, ctx->rootfd, path, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN);
	return fd < 0 ? -errno : fd;
}

int np_open_parent(struct np_ctx *ctx, const char *path, const char **base)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1] || (size_t)(slash - path) >= sizeof(dir))
		return -EINVAL;
	*base = slash + 1;
	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return np_open(ctx, dir, O_RDONLY | O_DIRECTORY, 0);
}

int np_mkdirs(struct np_ctx *ctx, const char *path, mode_t mode)
{
	char part[PATH_MAX], shown[PATH_MAX];
	if (strlen(path) >= sizeof(part) || path[0] != '/')
		return np_fail(ctx, -EINVAL, "cannot create directory '%s': %s", path, strerror(EINVAL));
	if (ctx->archive)
		return np_fail(ctx, -EROFS, "cannot create directory '%s' under a root read from the archive '%s': %s",
			       path, ctx->archive, strerror(EROFS));
	snprintf(part, sizeof(part), "%s", path);
	for (char *p = part + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = '\0';
		const char *base;
		int dfd = np_open_parent(ctx, part, &base), err = 0;
		if (dfd < 0)
			err = dfd;
		else if (mkdirat(dfd, base, mode) == 0)
			/* Whatever the umask; and durable only once its parent is synced. */
			err = fchmodat(dfd, base, mode, 0) < 0 || fsync(dfd) < 0 ? -errno : 0;
		else if (errno != EEXIST)
			err = -errno;
		if (dfd >= 0)
			close(dfd);
		if (err) {
			snprintf(shown, sizeof(shown), "%s%s", ctx->root, part);
			return np_fail(ctx, err, "cannot create directory '%s': %s", shown, strerror(-err));
		}
		if (!c)
			return 0;
		*p = '/';
	}
}

bool np_sysfs_exists(struct np_ctx *ctx, const char *fmt, ...)
{
	char shown[PATH_MAX], mpath[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	int rc = vpath(ctx, shown, mpath, fmt, ap);
	va_end(ap);
	if (rc)
		return false;
	int fd = np_open(ctx, mpath, O_PATH, 0);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* Only what a kernel attribute or a copy of one can be: a FIFO would block,
 * a device or a huge file would never end. sysfs and procfs attributes are
 * regular files to stat. */
static int bounded_fd(struct np_ctx *ctx, int fd, const char *shown, off_t *size)
{
	if (fd < 0)
		return np_fail(ctx, fd, "cannot open '%s': %s", shown, strerror(-fd));
	struct stat st;
	int err = fstat(fd, &st) < 0 ? -errno : 0;
	if (err)
		np_fail(ctx, err, "cannot read '%s': %s", shown, strerror(-err));
	else if (S_ISDIR(st.st_mode))
		err = np_fail(ctx, -EISDIR, "cannot read '%s': %s", shown, strerror(EISDIR));
	else if (!S_ISREG(st.st_mode))
		err = np_fail(ctx, -EINVAL, "'%s' is not a regular file or kernel attribute; refusing it",
			      shown);
	if (err) {
		close(fd);
		return err;
	}
	if (size)
		*size = st.st_size;
	return fd;
}

static int open_bounded(struct np_ctx *ctx, const char *mpath, const char *shown, off_t *size)
{
	return bounded_fd(ctx, np_open(ctx, mpath, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0), shown, size);
}

const char *np_size_name(size_t max, char *buf, size_t size)
{
	if (max >= (1u << 30) && max % (1u << 30) == 0)
		snprintf(buf, size, "%zu GiB", max >> 30);
	else if (max >= (1u << 20) && max % (1u << 20) == 0)
		snprintf(buf, size, "%zu MiB", max >> 20);
	else
		snprintf(buf, size, "%zu bytes", max);
	return buf;
}

/* Why fd, which read oddly (nothing, too much, or would block), is refused:
 * what is no regular file (a FIFO, a device) is no kernel attribute nor a
 * copy of one; else err itself. Only these reads ask: a stat per file was a
 * quarter of a report's system calls. */
static int refuse_odd(struct np_ctx *ctx, int fd, const char *shown, int err)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return np_fail(ctx, -EINVAL, "'%s' is not a regular file or kernel attribute; refusing it", shown);
	return err;
}

/* Every page size is a multiple of this, the smallest. */
#define NP_READ_BLOCK 4096

/* Whether a read that returned less than asked ends the file. sysfs
 * attributes are whole in one read (a page at most), and since Linux 5.14 the
 * CPU-list files of nodes and topology are binary attributes that can exceed a
 * page, which kernfs hands out a page per read: a read ending on a page
 * boundary may have more behind it. A regular file (a copy under --root) is
 * short only at its end. procfs files of several records (maps, mountinfo,
 * net/...) are filled a record at a time, short reads and all: on this
 * machine, /proc is read to its end, but for /proc/irq and /proc/sys, whose
 * files are one record. */
static bool short_read_ends(const struct np_ctx *ctx, const char *mpath, size_t got, size_t want)
{
	if (got >= want || got % NP_READ_BLOCK == 0)
		return false;
	return ctx->rootfd >= 0 || strncmp(mpath, "/proc/", 6) || !strncmp(mpath, "/proc/irq/", 10) ||
	       !strncmp(mpath, "/proc/sys/", 10);
}

/* Room for a value read on the stack: an attribute is a few bytes, and a 4
 * KiB malloc per file (17,000 of them on a 1024-CPU machine) misses malloc's
 * per-thread cache each time. Each read asks for at least a block (and one
 * byte stays for the NUL). */
struct small_buf {
	char b[NP_READ_BLOCK + 1];
};

/* The whole file, at most max bytes, as read: *len bytes and a NUL, in
 * small->b when it fits there (*out == small->b), else malloc'd. Never
 * sized from fstat (sysfs says a page and holds less, procfs says 0): read
 * until a short read, growing the buffer within max. */
static int read_into(struct np_ctx *ctx, const char *mpath, const char *shown, size_t max, struct small_buf *small,
		     char **out, size_t *outlen)
{
	int fd = np_open(ctx, mpath, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0)
		return np_fail(ctx, fd, "cannot open '%s': %s", shown, strerror(-fd));
	char sz[32], *buf = small->b;
	size_t cap = sizeof(small->b), len = 0;
	int rc = 0;
	while (!rc) {
		if (cap - len - 1 < NP_READ_BLOCK) {
			char *bigger = cap > max ? NULL : buf == small->b ? malloc(cap * 2) : realloc(buf, cap * 2);
			if (!bigger) {
				rc = np_fail(ctx, -ENOMEM, "cannot read '%s': %s", shown, strerror(ENOMEM));
				break;
			}
			if (buf == small->b)
				memcpy(bigger, small->b, len);
			buf = bigger;
			cap *= 2;
		}
		size_t want = cap - len - 1;
		ssize_t n = read(fd, buf + len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;
			rc = refuse_odd(ctx, fd, shown, np_fail(ctx, -err, "cannot read '%s': %s", shown, strerror(err)));
			break;
		}
		len += (size_t)n;
		if (len > max)
			rc = refuse_odd(ctx, fd, shown,
					np_fail(ctx, -EFBIG, "'%s' is larger than %s; refusing it", shown,
						np_size_name(max, sz, sizeof(sz))));
		else if (n == 0 || short_read_ends(ctx, mpath, (size_t)n, want)) {
			/* Empty: a FIFO without a writer and /dev/null read so too. */
			if (!len)
				rc = refuse_odd(ctx, fd, shown, 0);
			break;
		}
	}
	close(fd);
	/* Copies of sysfs (hwloc's gathered dumps) may pad a value with NULs after
	 * its newline ("0-31\n\0"); a NUL inside the value is still corruption. */
	size_t vlen = rc ? 0 : len;
	while (vlen && (buf[vlen - 1] == '\n' || buf[vlen - 1] == '\0'))
		vlen--;
	if (!rc && memchr(buf, '\0', vlen))
		rc = np_fail(ctx, -EINVAL, "'%s': unexpected binary content", shown);
	if (rc) {
		if (buf != small->b)
			free(buf);
		return rc;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

/* read_into, always malloc'd. */
static int read_path(struct np_ctx *ctx, const char *mpath, const char *shown, size_t max, char **out,
		     size_t *outlen)
{
	struct small_buf small;
	int rc = read_into(ctx, mpath, shown, max, &small, out, outlen);
	if (rc || *out != small.b)
		return rc;
	if (!(*out = malloc(*outlen + 1)))
		return np_fail(ctx, -ENOMEM, "cannot read '%s': %s", shown, strerror(ENOMEM));
	memcpy(*out, small.b, *outlen + 1);
	return 0;
}

/* The value without its trailing newlines and NULs. */
static void trim_line(char *text, size_t len)
{
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\0'))
		len--;
	text[len] = '\0';
}

static int read_line(struct np_ctx *ctx, const char *mpath, const char *shown, char **out)
{
	size_t len;
	int rc = read_path(ctx, mpath, shown, NP_ATTR_MAX_BYTES, out, &len);
	if (rc == 0)
		trim_line(*out, len);
	return rc;
}

/* read_line for a value parsed at once: on the stack when it fits (*out
 * then is small->b; else free it). */
static int read_line_small(struct np_ctx *ctx, const char *mpath, const char *shown, struct small_buf *small,
			   char **out)
{
	size_t len;
	int rc = read_into(ctx, mpath, shown, NP_ATTR_MAX_BYTES, small, out, &len);
	if (rc == 0)
		trim_line(*out, len);
	return rc;
}

static void free_small(struct small_buf *small, char *text)
{
	if (text != small->b)
		free(text);
}

int np_read_text(struct np_ctx *ctx, char **out, const char *fmt, ...)
{
	WITH_PATH(ctx, path, mpath, fmt);
	return read_line(ctx, mpath, path, out);
}

int np_read_bytes(struct np_ctx *ctx, char **out, size_t *len, const char *fmt, ...)
{
	WITH_PATH(ctx, path, mpath, fmt);
	return read_path(ctx, mpath, path, NP_ATTR_MAX_BYTES, out, len);
}

int np_read_int(struct np_ctx *ctx, long long *out, const char *fmt, ...)
{
	WITH_PATH(ctx, path, mpath, fmt);
	struct small_buf small;
	char *text, *end, ex[44];
	int rc = read_line_small(ctx, mpath, path, &small, &text);
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
		free_small(&small, text);
		return rc;
	}
	free_small(&small, text);
	*out = v;
	return 0;
}

static int read_set(struct np_ctx *ctx, const char *mpath, const char *path, struct np_cpuset *out,
		    bool mask)
{
	struct small_buf small;
	char *text, ex[44];
	int rc = read_line_small(ctx, mpath, path, &small, &text);
	if (rc)
		return rc;
	rc = mask ? np_cpuset_parse_mask(out, text) : np_cpuset_parse_list(out, text);
	if (rc == -ERANGE)
		np_fail(ctx, rc, "'%s': '%s' names a CPU above %d, the most numaplace handles", path,
			np_excerpt(text, ex, sizeof(ex)), NP_CPUSET_MAX_CPU);
	else if (rc)
		np_fail(ctx, rc, "'%s': expected a CPU %s, found '%s'", path, mask ? "mask" : "list",
			np_excerpt(text, ex, sizeof(ex)));
	free_small(&small, text);
	return rc;
}

int np_read_cpulist(struct np_ctx *ctx, struct np_cpuset *out, const char *fmt, ...)
{
	WITH_PATH(ctx, path, mpath, fmt);
	return read_set(ctx, mpath, path, out, false);
}

int np_read_cpumask(struct np_ctx *ctx, struct np_cpuset *out, const char *fmt, ...)
{
	WITH_PATH(ctx, path, mpath, fmt);
	return read_set(ctx, mpath, path, out, true);
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

/* sync false: neither the file nor the directory is synced here (a write
 * batch syncs them with the others, see np_write_batch_begin). */
static int replace_at(struct np_ctx *ctx, int dirfd, const char *base, const char *shown, const char *buf,
		      size_t len, mode_t mode, const struct stat *old, bool sync)
{
	char tmp[NAME_MAX + 1], self[64];
	/* An unnamed file that gets a name only when whole: a kill leaves no
	 * half-written file behind, under any name. */
	int fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600), err = 0;
	bool named = false;
	if (fd < 0)
		return np_fail(ctx, -errno, "cannot write '%s': %s", shown, strerror(errno));
	/* The replacement keeps the original's mode and owner: root editing a
	 * file another user owns must not take it over. */
	if (fchmod(fd, old ? old->st_mode & 07777 : mode) < 0 ||
	    (old && (old->st_uid != geteuid() || old->st_gid != getegid()) &&
	     fchown(fd, old->st_uid, old->st_gid) < 0))
		err = errno;
	if (!err)
		err = -np_write_all(fd, buf, len);
	if (!err && sync && fsync(fd) < 0)
		err = errno;
	/* Hidden, and named by our pid: two writers never share a temporary name. */
	snprintf(tmp, sizeof(tmp), ".%.200s.numaplace-%ld", base, (long)getpid());
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (!err && unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
		err = errno;
	if (!err && linkat(AT_FDCWD, self, dirfd, tmp, AT_SYMLINK_FOLLOW) < 0)
		err = errno;
	named = !err;
	if (!err && renameat(dirfd, tmp, dirfd, base) < 0)
		err = errno;
	if (close(fd) < 0 && !err)
		err = errno;
	if (err && named)
		unlinkat(dirfd, tmp, 0);
	if (!err && sync && fsync(dirfd) < 0)
		err = errno;
	if (err)
		return np_fail(ctx, -err, "cannot write '%s': %s", shown, strerror(err));
	return 0;
}

int np_replace_at(struct np_ctx *ctx, int dirfd, const char *base, const char *shown,
		  const char *buf, size_t len, mode_t mode, const struct stat *old)
{
	return replace_at(ctx, dirfd, base, shown, buf, len, mode, old, true);
}

int np_write_batch_begin(struct np_ctx *ctx, struct np_write_batch *b)
{
	if (ctx->batch)
		return 0;
	b->fd = -1;
	ctx->batch = b;
	return 1;
}

/* A write of the batch into dirfd, on device dev: the batch keeps a
 * directory of its filesystem to sync at the end. A file on another
 * filesystem (a mount inside a copied tree) is synced on its own. */
static bool batch_defers(struct np_ctx *ctx, int dirfd, dev_t dev)
{
	struct np_write_batch *b = ctx->batch;
	if (!b)
		return false;
	if (b->fd < 0) {
		b->fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
		b->dev = dev;
	}
	return b->fd >= 0 && b->dev == dev;
}

int np_write_batch_sync(struct np_ctx *ctx)
{
	struct np_write_batch *b = ctx->batch;
	if (!b || b->fd < 0)
		return 0;
	int err = syncfs(b->fd) < 0 ? errno : 0;
	close(b->fd);
	b->fd = -1;
	if (err)
		return np_fail(ctx, -err, "cannot sync the values written: %s", strerror(err));
	return 0;
}

int np_write_batch_end(struct np_ctx *ctx, int owner)
{
	if (!owner)
		return 0;
	int rc = np_write_batch_sync(ctx);
	ctx->batch = NULL;
	return rc;
}

/* A temporary name of np_replace_at for base: ".BASE.numaplace-PID". */
static bool temp_name_of(const char *name, const char *base)
{
	static const char tag[] = ".numaplace-";
	size_t blen = strlen(base);
	if (name[0] != '.' || strncmp(name + 1, base, blen) || strncmp(name + 1 + blen, tag, sizeof(tag) - 1))
		return false;
	const char *pid = name + 1 + blen + sizeof(tag) - 1;
	if (!*pid)
		return false;
	for (; *pid; pid++)
		if (*pid < '0' || *pid > '9')
			return false;
	return true;
}

/* The kernel's own files (sysfs, procfs, a cgroup's): one write(2) each,
 * acted on, never replaced. */
static bool kernel_fs(const struct statfs *sfs)
{
	return sfs->f_type == SYSFS_MAGIC || sfs->f_type == PROC_SUPER_MAGIC || sfs->f_type == CGROUP_SUPER_MAGIC ||
	       sfs->f_type == CGROUP2_SUPER_MAGIC;
}

int np_remove_stale_temps(struct np_ctx *ctx, const char *fmt, ...)
{
	WITH_PATH(ctx, path, mpath, fmt);
	const char *base;
	struct statfs sfs;
	int dfd = np_open_parent(ctx, mpath, &base), err = 0;
	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0)
		return np_fail(ctx, dfd, "cannot open the directory of '%s': %s", path, strerror(-dfd));
	/* The kernel's own files are written in place: nothing to look for. */
	if (fstatfs(dfd, &sfs) == 0 && kernel_fs(&sfs)) {
		close(dfd);
		return 0;
	}
	int lfd = dup(dfd);
	DIR *dir = lfd < 0 ? NULL : fdopendir(lfd);
	if (!dir) {
		err = errno;
		if (lfd >= 0)
			close(lfd);
	}
	for (struct dirent *de; dir && (de = readdir(dir));)
		if (temp_name_of(de->d_name, base) && unlinkat(dfd, de->d_name, 0) < 0 && errno != ENOENT && !err)
			err = errno;
	if (dir)
		closedir(dir);
	close(dfd);
	if (err)
		return np_fail(ctx, -err, "cannot remove the temporary files beside '%s': %s", path, strerror(err));
	return 0;
}

/* sysfs, procfs and cgroupfs take one write(2) and act on it; they cannot be
 * replaced. Anything else that holds a value (a copy under --root) is a
 * regular file, replaced whole so that a crash leaves the old value or the
 * new one, never an empty file. */
static int write_path(struct np_ctx *ctx, const char *mpath, const char *path, const char *buf,
		      size_t len, const char *shown_value)
{
	/* No O_CREAT: a setting that does not exist is an error, never a new file. */
	int fd = np_open(ctx, mpath, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0)
		return np_fail(ctx, fd, "cannot open '%s' for writing: %s", path, strerror(-fd));
	struct statfs sfs;
	struct stat st;
	int err = fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0 ? errno : 0;
	if (err) {
		close(fd);
		return np_fail(ctx, -err, "cannot write '%s': %s", path, strerror(err));
	}
	if (kernel_fs(&sfs)) {
		ssize_t n;
		do
			n = write(fd, buf, len);
		while (n < 0 && errno == EINTR);
		err = n < 0 ? errno : (size_t)n != len ? EIO : 0;
		if (close(fd) < 0 && !err)
			err = errno;
		if (err)
			return np_fail(ctx, -err, "cannot write '%s' to '%s': %s", shown_value, path,
				       strerror(err));
		return 0;
	}
	close(fd);
	if (!S_ISREG(st.st_mode))
		return np_fail(ctx, -EINVAL, "'%s' is not a regular file or kernel attribute; refusing to write it",
			       path);
	const char *base;
	int dfd = np_open_parent(ctx, mpath, &base);
	if (dfd < 0)
		return np_fail(ctx, dfd, "cannot open the directory of '%s': %s", path, strerror(-dfd));
	int rc = replace_at(ctx, dfd, base, path, buf, len, 0, &st, !batch_defers(ctx, dfd, st.st_dev));
	close(dfd);
	return rc;
}

int np_write_text(struct np_ctx *ctx, const char *value, const char *fmt, ...)
{
	WITH_PATH(ctx, path, mpath, fmt);
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
	int rc = write_path(ctx, mpath, path, line, len, value);
	free(line);
	return rc;
}

int np_write_bytes(struct np_ctx *ctx, const char *value, size_t len, const char *fmt, ...)
{
	WITH_PATH(ctx, path, mpath, fmt);
	char ex[44];
	return write_path(ctx, mpath, path, value, len, np_excerpt_n(value, len, ex, sizeof(ex)));
}

int np_read_link(struct np_ctx *ctx, char **out, const char *fmt, ...)
{
	WITH_PATH(ctx, path, mpath, fmt);
	char target[PATH_MAX];
	const char *base;
	int dfd = np_open_parent(ctx, mpath, &base);
	if (dfd < 0)
		return np_fail(ctx, dfd, "cannot read link '%s': %s", path, strerror(-dfd));
	ssize_t n = readlinkat(dfd, base, target, sizeof(target));
	int err = n < 0 ? errno : 0;
	close(dfd);
	if (err)
		return np_fail(ctx, -err, "cannot read link '%s': %s", path, strerror(err));
	if ((size_t)n >= sizeof(target))
		return np_fail(ctx, -ENAMETOOLONG, "link '%s' is longer than %d bytes; refusing it",
			       path, PATH_MAX - 1);
	target[n] = '\0';
	*out = strdup(target);
	return *out ? 0 : np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
}

int np_resolve(struct np_ctx *ctx, char **out, const char *fmt, ...)
{
	WITH_PATH(ctx, path, mpath, fmt);
	char proc[64], real[PATH_MAX];
	int fd = np_open(ctx, mpath, O_PATH, 0);
	if (fd < 0)
		return np_fail(ctx, fd, "cannot resolve '%s': %s", path, strerror(-fd));
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(proc, real, sizeof(real));
	int err = n < 0 ? errno : (size_t)n >= sizeof(real) ? ENAMETOOLONG : 0;
	close(fd);
	if (err)
		return np_fail(ctx, -err, "cannot resolve '%s': %s", path, strerror(err));
	real[n] = '\0';
	/* Resolved inside the root, it is the root or below it; anything else
	 * (the root renamed meanwhile) is refused rather than guessed at. */
	size_t rootlen = strlen(ctx->root);
	if (strncmp(real, ctx->root, rootlen) || (real[rootlen] && real[rootlen] != '/'))
		return np_fail(ctx, -EXDEV, "cannot resolve '%s': it resolved to '%s', outside the root", path, real);
	*out = strdup(real[rootlen] ? real + rootlen : "/");
	return *out ? 0 : np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
}

static bool decimal(char c)
{
	return c >= '0' && c <= '9';
}

/* strverscmp's order ("rx-9" before "rx-10"), answered without its state
 * machine where the names first differ outside digits (strverscmp orders
 * those as strcmp does) or within a number that starts with no 0 (a queue's
 * or a CPU's: the longer number is the larger, else the first differing
 * digit decides); strverscmp itself otherwise (leading zeros). */
static int natural_order(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t k = 0;
	while (x[k] && x[k] == y[k])
		k++;
	if (x[k] == y[k])
		return 0;
	size_t r = k; /* where the number the names differ in starts */
	while (r > 0 && decimal(x[r - 1]))
		r--;
	if (r == k && !decimal(x[k]) && !decimal(y[k]))
		return (unsigned char)x[k] - (unsigned char)y[k];
	if (decimal(x[r]) && decimal(y[r]) && x[r] != '0' && y[r] != '0') {
		size_t ex = r, ey = r;
		while (decimal(x[ex]))
			ex++;
		while (decimal(y[ey]))
			ey++;
		if (ex != ey)
			return ex < ey ? -1 : 1;
		return (unsigned char)x[k] - (unsigned char)y[k];
	}
	return strverscmp(x, y);
}

/* A name as the sort sees it: most of a directory's names are a short
 * prefix and a number ("rx-12", "tx-3", an IRQ's "9847"), and two with the
 * same prefix are in the order of their numbers, as natural_order would
 * put them, without reading the names again (a NIC with 256 queues lists
 * 512 of them, and its MSI-X vectors 257). */
struct sort_key {
	char *name;
	uint64_t prefix;     /* its bytes before the number (7 at most); ~0 when not of that form */
	unsigned long long number;
};

static struct sort_key sort_key(char *name)
{
	struct sort_key k = { .name = name, .prefix = ~UINT64_C(0) };
	size_t pre = strcspn(name, "0123456789"), digits = strspn(name + pre, "0123456789");
	/* Not of that form: no number, or one not last; one with a leading 0
	 * (a fraction to strverscmp: "01" < "1"); past 19 digits; a prefix
	 * past 7 bytes (the key's last byte stays 0). */
	if (pre >= 8 || !digits || name[pre + digits] || digits > 19 || (name[pre] == '0' && digits > 1))
		return k;
	k.prefix = 0; /* past the prefix's bytes: 0, which no name holds; never ~0 */
	memcpy(&k.prefix, name, pre);
	for (size_t i = pre; i < pre + digits; i++)
		k.number = k.number * 10 + (unsigned long long)(name[i] - '0');
	return k;
}

static int by_sort_key(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;
	if (x->prefix == y->prefix && x->prefix != ~UINT64_C(0))
		return x->number < y->number ? -1 : x->number > y->number;
	return natural_order(&x->name, &y->name);
}

/* list in natural_order, by sort keys when memory allows. */
static void sort_names(char **list, size_t n)
{
	struct sort_key *keys = malloc(n * sizeof(*keys));
	if (!keys) {
		qsort(list, n, sizeof(*list), natural_order);
		return;
	}
	for (size_t i = 0; i < n; i++)
		keys[i] = sort_key(list[i]);
	qsort(keys, n, sizeof(*keys), by_sort_key);
	for (size_t i = 0; i < n; i++)
		list[i] = keys[i].name;
	free(keys);
}

void np_names_free(char **names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

/* A directory entry as getdents64 gives it (struct linux_dirent64). */
struct np_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

int np_list_dir(struct np_ctx *ctx, char ***names, size_t *count, const char *fmt, ...)
{
	WITH_PATH(ctx, path, mpath, fmt);
	int fd = np_open(ctx, mpath, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return np_fail(ctx, fd, "cannot list '%s': %s", path, strerror(-fd));
	/* getdents64 on the descriptor itself: opendir's stat and two fcntl
	 * calls per directory were 3 of every 100 system calls of a report. */
	char **list = NULL;
	size_t n = 0, cap = 0;
	int err = 0;
	union {
		char bytes[32768];
		struct np_dirent64 align;
	} ents;
	for (;;) {
		long got = syscall(SYS_getdents64, fd, ents.bytes, sizeof(ents.bytes));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err = got < 0 ? errno : 0;
			break;
		}
		for (long off = 0; off < got && !err;) {
			const struct np_dirent64 *de = (const struct np_dirent64 *)(ents.bytes + off);
			off += de->d_reclen;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				char **bigger = realloc(list, cap * sizeof(*list));
				if (!bigger) {
					err = ENOMEM;
					break;
				}
				list = bigger;
			}
			if (!(list[n] = strdup(de->d_name)))
				err = ENOMEM;
			else
				n++;
		}
		if (err)
			break;
	}
	close(fd);
	if (err) {
		np_names_free(list, n);
		return np_fail(ctx, -err, "cannot list '%s': %s", path, strerror(err));
	}
	/* An empty directory leaves list NULL, which qsort must not be given. */
	if (n)
		sort_names(list, n);
	*names = list;
	*count = n;
	return 0;
}

/* Counts what passes through: a read fails (EFBIG) past the total or a
 * line past the line limit, so a reader's memory stays bounded. */
struct np_bounded {
	int fd;
	size_t total, line, max_total, max_line;
};

ssize_t np_bounded_read(struct np_bounded *b, char *buf, size_t size)
{
	ssize_t n;
	do
		n = read(b->fd, buf, size);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n;
	b->total += (size_t)n;
	const char *nl = memrchr(buf, '\n', (size_t)n);
	b->line = nl ? (size_t)(buf + n - nl - 1) : b->line + (size_t)n;
	if (b->total > b->max_total || b->line > b->max_line) {
		errno = EFBIG;
		return -1;
	}
	return n;
}

void np_bounded_close(struct np_bounded *b)
{
	if (b) {
		close(b->fd);
		free(b);
	}
}

/* Over fd (closed on failure); path names it in messages. */
static struct np_bounded *bounded_over(struct np_ctx *ctx, int *rc, int fd, const char *path, size_t max_total,
				       size_t max_line)
{
	if (fd < 0) {
		*rc = fd;
		return NULL;
	}
	struct np_bounded *b = calloc(1, sizeof(*b));
	if (!b) {
		close(fd);
		*rc = np_fail(ctx, -ENOMEM, "cannot open '%s': %s", path, strerror(ENOMEM));
		return NULL;
	}
	*b = (struct np_bounded){ .fd = fd, .max_total = max_total, .max_line = max_line };
	*rc = 0;
	return b;
}

/* The machine file fmt names, opened as the bounded readers want it; its
 * path as shown in messages into path. An fd, or -errno (ctx->err). */
static int vopen_bounded(struct np_ctx *ctx, char *path, const char *fmt, va_list ap)
{
	char mpath[PATH_MAX];
	int rc = vpath(ctx, path, mpath, fmt, ap);
	return rc ? rc : open_bounded(ctx, mpath, path, NULL);
}

struct np_bounded *np_bounded_open(struct np_ctx *ctx, int *rc, size_t max_total, size_t max_line, const char *fmt,
				   ...)
{
	char path[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	int fd = vopen_bounded(ctx, path, fmt, ap);
	va_end(ap);
	return bounded_over(ctx, rc, fd, path, max_total, max_line);
}

struct np_bounded *np_bounded_open_user(struct np_ctx *ctx, int *rc, size_t max_total, size_t max_line,
					const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	return bounded_over(ctx, rc, bounded_fd(ctx, fd < 0 ? -errno : fd, path, NULL), path, max_total, max_line);
}

/* The stream's: the bounds, and its buffer. */
struct bounded {
	struct np_bounded in;
	/* Such a file is read through: in large reads, not stdio's 8 KiB.
	 * glibc takes a size for setvbuf only with the buffer, which fclose
	 * leaves to its owner: this. */
	char buf[(size_t)256 << 10];
};

static ssize_t bounded_read(void *cookie, char *buf, size_t size)
{
	return np_bounded_read(&((struct bounded *)cookie)->in, buf, size);
}

static int bounded_close(void *cookie)
{
	struct bounded *b = cookie;
	int rc = close(b->in.fd);
	free(b);
	return rc;
}

/* A stream over fd (closed on failure); path names it in messages. */
static FILE *bounded_stream(struct np_ctx *ctx, int *rc, int fd, const char *path, size_t max_total, size_t max_line)
{
	if (fd < 0) {
		*rc = fd;
		return NULL;
	}
	struct bounded *b = calloc(1, sizeof(*b));
	cookie_io_functions_t io = { .read = bounded_read, .close = bounded_close };
	FILE *f = b ? fopencookie(b, "r", io) : NULL;
	if (!f) {
		free(b);
		close(fd);
		*rc = np_fail(ctx, -ENOMEM, "cannot open '%s': %s", path, strerror(ENOMEM));
		return NULL;
	}
	b->in = (struct np_bounded){ .fd = fd, .max_total = max_total, .max_line = max_line };
	setvbuf(f, b->buf, _IOFBF, sizeof(b->buf));
	*rc = 0;
	return f;
}

FILE *np_fopen(struct np_ctx *ctx, int *rc, size_t max_total, size_t max_line, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	int fd = vopen_bounded(ctx, path, fmt, ap);
	va_end(ap);
	return bounded_stream(ctx, rc, fd, path, max_total, max_line);
}

FILE *np_fopen_user(struct np_ctx *ctx, int *rc, size_t max_total, size_t max_line, const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	return bounded_stream(ctx, rc, bounded_fd(ctx, fd < 0 ? -errno : fd, path, NULL), path, max_total,
			      max_line);
}
