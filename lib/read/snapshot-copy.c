/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The snapshot's copier: how one file, link or directory of the machine is
 * copied into the output tree (read through the root-aware layer, written
 * below the output directory, private names never copied, each directory
 * copied once). What is copied is lib/read/snapshot.c's. */
#include "read/snapshot-copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/sysfs.h"

/* Names that identify a machine or its owner rather than its layout (ppin is
 * the CPU's serial number, root-only since 5.19). Never copied, wherever
 * they appear in a directory that is copied whole. */
static const char *const private_names[] = {
	"serial", "address", "wwid", "uuid", "vpd", "ppin", "environ", NULL,
};

static uint64_t fnv1a(const char *text)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *text; text++) {
		h ^= (unsigned char)*text;
		h *= 1099511628211ULL;
	}
	return h;
}

static int seen_grow(struct seen *set)
{
	size_t cap = set->cap ? set->cap * 2 : 256;
	char **slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < set->cap; i++) {
		if (!set->slot[i])
			continue;
		size_t j = fnv1a(set->slot[i]) & (cap - 1);
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = set->slot[i];
	}
	free(set->slot);
	set->slot = slot;
	set->cap = cap;
	return 0;
}

/* 1 the first time key is given, 0 afterwards, or -ENOMEM. */
static int seen_add(struct seen *set, const char *key)
{
	if ((set->n + 1) * 2 > set->cap && seen_grow(set))
		return -ENOMEM;
	size_t j = fnv1a(key) & (set->cap - 1);
	for (; set->slot[j]; j = (j + 1) & (set->cap - 1))
		if (!strcmp(set->slot[j], key))
			return 0;
	if (!(set->slot[j] = strdup(key)))
		return -ENOMEM;
	set->n++;
	return 1;
}

void snap_seen_free(struct seen *set)
{
	for (size_t i = 0; i < set->cap; i++)
		free(set->slot[i]);
	free(set->slot);
	memset(set, 0, sizeof(*set));
}

/* 1 when dir has not been copied as kind yet, 0 when it has; -ENOMEM. */
int snap_first_visit(struct snap *s, char kind, const char *dir)
{
	char key[PATH_MAX + 2];
	snprintf(key, sizeof(key), "%c%s", kind, dir);
	int rc = seen_add(&s->seen, key);
	return rc < 0 ? np_fail(s->ctx, rc, "snapshot: %s", strerror(ENOMEM)) : rc;
}

int snap_mp_fmt(struct snap *s, char *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX)
		return np_fail(s->ctx, -ENAMETOOLONG, "path under '%s%s...': %s", s->ctx->root, buf,
			       strerror(ENAMETOOLONG));
	return 0;
}

static int dst_path(struct snap *s, char *buf, const char *mp)
{
	size_t len = strlen(mp);
	if (s->outlen + len >= PATH_MAX)
		return np_fail(s->ctx, -ENAMETOOLONG, "'%s%s': %s", s->out, mp, strerror(ENAMETOOLONG));
	memcpy(buf, s->out, s->outlen);
	memcpy(buf + s->outlen, mp, len + 1);
	return 0;
}

/* Source errors that say the machine, not this one file, is in trouble. */
static bool fatal_error(int err)
{
	return err == ENOMEM || err == EMFILE || err == ENFILE || err == ENAMETOOLONG;
}

/* A present but unreadable source: write-only attributes (EINVAL), root-only
 * ones (EACCES), ones a driver refuses (EIO, ENODEV, ...) are left out and
 * counted; an absent one is not counted. */
int snap_skip_or_fail(struct snap *s, int err, const char *src)
{
	if (err == ENOENT || err == ENOTDIR)
		return 0;
	if (fatal_error(err))
		return np_fail(s->ctx, -err, "cannot read '%s': %s", src, strerror(err));
	s->stats->skipped++;
	return 0;
}

static bool private_name(const char *mp)
{
	const char *base = strrchr(mp, '/');
	base = base ? base + 1 : mp;
	for (size_t i = 0; private_names[i]; i++)
		if (!strcmp(base, private_names[i]))
			return true;
	return false;
}

/* Creates the directories of dst below the output directory: every
 * component, or all but the last. */
static int make_dirs(struct snap *s, char *dst, bool last)
{
	char *p = dst + s->outlen; /* the '/' that starts the machine path */
	for (;;) {
		char *slash = strchr(p + 1, '/');
		if (!slash && !last)
			return 0;
		if (slash)
			*slash = '\0';
		int err = mkdir(dst, 0755) < 0 && errno != EEXIST ? errno : 0;
		if (err)
			np_fail(s->ctx, -err, "cannot create directory '%s': %s", dst, strerror(err));
		if (slash)
			*slash = '/';
		if (err)
			return -err;
		if (!slash)
			return 0;
		p = slash;
	}
}

int snap_ensure_dir(struct snap *s, const char *mp)
{
	char dst[PATH_MAX];
	int rc = dst_path(s, dst, mp);
	return rc ? rc : make_dirs(s, dst, true);
}

static int write_file(struct snap *s, const char *mp, const char *data, size_t len)
{
	char dst[PATH_MAX];
	int rc = dst_path(s, dst, mp);
	if (rc)
		return rc;
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
	int fd = open(dst, flags, 0644);
	if (fd < 0 && errno == ENOENT) {
		if ((rc = make_dirs(s, dst, false)))
			return rc;
		fd = open(dst, flags, 0644);
	}
	if (fd < 0 && errno == EEXIST)
		return 0; /* reached a second time, through another link */
	if (fd < 0)
		return np_fail(s->ctx, -errno, "cannot create '%s': %s", dst, strerror(errno));
	size_t done = 0;
	int err = 0;
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			break;
		}
		done += (size_t)n;
	}
	if (close(fd) < 0 && !err)
		err = errno;
	if (err)
		return np_fail(s->ctx, -err, "cannot write '%s': %s", dst, strerror(err));
	s->stats->files++;
	s->stats->bytes += len;
	return 0;
}

/* Some boards (Raspberry Pi) print the SoC's serial number in /proc/cpuinfo. */
static bool not_serial(const char *line, size_t n)
{
	return n < 6 || memcmp(line, "Serial", 6);
}

/* Of /proc/stat, the CPU times only: not btime, which dates this boot. */
static bool cpu_time(const char *line, size_t n)
{
	return n >= 3 && !memcmp(line, "cpu", 3);
}

/* Keeps the lines keep accepts; returns the new length. */
static size_t keep_lines(char *buf, size_t len, bool (*keep)(const char *line, size_t n))
{
	size_t in = 0, out = 0;
	while (in < len) {
		const char *nl = memchr(buf + in, '\n', len - in);
		size_t end = nl ? (size_t)(nl - buf) + 1 : len;
		if (keep(buf + in, end - in)) {
			memmove(buf + out, buf + in, end - in);
			out += end - in;
		}
		in = end;
	}
	return out;
}

/* Copies one file by reading it: sysfs sizes say 4096 whatever the content.
 * limit > 0 keeps only that many bytes. Returns COPY_DONE (also when absent
 * or unreadable), COPY_IS_DIR, or -errno. */
int snap_copy_file(struct snap *s, const char *mp, size_t limit)
{
	char src[PATH_MAX];
	if (private_name(mp))
		return COPY_DONE;
	int rc = np_sysfs_path(s->ctx, src, "%s", mp);
	if (rc)
		return rc;
	/* O_NONBLOCK: a FIFO in a copied root must not hang the copy. Resolved
	 * inside the root: a link there never copies a file of this machine. */
	int fd = np_open(s->ctx, mp, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0)
		return snap_skip_or_fail(s, -fd, src);
	struct stat st;
	int err = fstat(fd, &st) < 0 ? errno : 0;
	if (err || !S_ISREG(st.st_mode)) {
		close(fd);
		if (err)
			return snap_skip_or_fail(s, err, src);
		if (S_ISDIR(st.st_mode))
			return COPY_IS_DIR;
		s->stats->skipped++;
		return COPY_DONE;
	}
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	err = buf ? 0 : ENOMEM;
	while (!err) {
		if (len == cap) {
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				err = ENOMEM;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
		size_t want = cap - len;
		if (limit && want > limit - len)
			want = limit - len;
		if (!want)
			break;
		ssize_t n = read(fd, buf + len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		else if (n == 0)
			break;
		else
			len += (size_t)n;
	}
	close(fd);
	if (err) {
		free(buf);
		/* Opened, so present: ENOENT here is a driver's refusal (xps_cpus). */
		return snap_skip_or_fail(s, err == ENOENT || err == ENOTDIR ? EIO : err, src);
	}
	if (!strcmp(mp, "/proc/cpuinfo"))
		len = keep_lines(buf, len, not_serial);
	else if (!strcmp(mp, "/proc/stat"))
		len = keep_lines(buf, len, cpu_time);
	rc = write_file(s, mp, buf, len);
	free(buf);
	return rc < 0 ? rc : COPY_DONE;
}

int snap_copy_plain(struct snap *s, const char *mp)
{
	int rc = snap_copy_file(s, mp, 0);
	return rc < 0 ? rc : 0;
}

int snap_copy_files(struct snap *s, const char *dir, const char *const *names)
{
	char mp[PATH_MAX];
	int rc = 0;
	for (size_t i = 0; names[i] && rc >= 0; i++)
		if (!(rc = snap_mp_fmt(s, mp, "%s/%s", dir, names[i])))
			rc = snap_copy_file(s, mp, 0);
	return rc < 0 ? rc : 0;
}

/* Entries of a machine directory, in natural order; none when it is absent
 * or unreadable (the latter counted). *present says whether it was there. */
int snap_list(struct snap *s, const char *mp, char ***names, size_t *n, bool *present)
{
	*names = NULL;
	*n = 0;
	int rc = np_list_dir(s->ctx, names, n, "%s", mp);
	if (present)
		*present = rc == 0;
	if (rc == -ENOENT || rc == -ENOTDIR)
		return 0;
	if (rc && !fatal_error(-rc)) {
		s->stats->skipped++;
		return 0;
	}
	return rc;
}

/* "/sys/devices/pci0000:00/0000:00:02.0/../../../bus/pci/drivers/x" ->
 * "/sys/bus/pci/drivers/x", by the text alone: the target may not exist yet
 * in the copy, and in a copied root it must be resolved inside the root. */
bool snap_resolve(const char *link, const char *target, char *out)
{
	char buf[2 * PATH_MAX + 2];
	if (target[0] == '/') {
		snprintf(buf, sizeof(buf), "%s", target);
	} else {
		const char *slash = strrchr(link, '/');
		snprintf(buf, sizeof(buf), "%.*s/%s", slash ? (int)(slash - link) : 0, link, target);
	}
	size_t o = 0;
	for (char *save = NULL, *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			while (o > 0 && out[--o] != '/')
				;
			continue;
		}
		size_t len = strlen(c);
		if (o + 1 + len >= PATH_MAX)
			return false;
		out[o++] = '/';
		memcpy(out + o, c, len);
		o += len;
	}
	if (!o)
		out[o++] = '/';
	out[o] = '\0';
	return true;
}

int snap_copy_link(struct snap *s, const char *mp, const char *target)
{
	char dst[PATH_MAX];
	int rc = dst_path(s, dst, mp);
	if (rc)
		return rc;
	int ok = symlink(target, dst) == 0;
	if (!ok && errno == ENOENT) {
		if ((rc = make_dirs(s, dst, false)))
			return rc;
		ok = symlink(target, dst) == 0;
	}
	if (ok)
		s->stats->links++;
	else if (errno != EEXIST)
		return np_fail(s->ctx, -errno, "cannot create link '%s': %s", dst, strerror(errno));
	return 0;
}
