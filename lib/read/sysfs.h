/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one door to /sys and /proc. Paths are written as on the machine
 * ("/sys/...", "/proc/..."); the layer prefixes the context's root, so the
 * whole tool can read a copy of another machine. Every function returns 0 or
 * -errno and leaves a one-line detail naming the file in ctx->err; an absent
 * file is always -ENOENT, so callers can tell optional files from errors. */
#ifndef NUMAPLACE_SYSFS_H
#define NUMAPLACE_SYSFS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/context.h"
#include "base/cpuset.h"

#define NP_FMT(n) __attribute__((format(printf, n, n + 1)))

/* A kernel attribute is a page or a few; a file past this is not one. */
#define NP_ATTR_MAX_BYTES ((size_t)1 << 20)

/* Opens path (a machine path, "/sys/...") resolved inside the root with
 * openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS): "..", absolute symbolic
 * links and /proc magic links never leave it. O_CLOEXEC is added. Returns a
 * file descriptor or -errno, and leaves ctx->err alone. */
int np_open(struct np_ctx *ctx, const char *path, int flags, mode_t mode);
/* The directory holding path, opened (O_RDONLY) the same way; *base points
 * at path's last component. An fd or -errno. */
int np_open_parent(struct np_ctx *ctx, const char *path, const char **base);
/* mkdir -p inside the root, each new directory with mode and synced into its parent. */
int np_mkdirs(struct np_ctx *ctx, const char *path, mode_t mode);
/* Replaces dirfd/base with len bytes of buf: an unnamed file written and
 * synced, named, renamed over base, the directory synced. Keeps old's mode and
 * owner when old is given, else takes mode. shown names it in messages. */
int np_replace_at(struct np_ctx *ctx, int dirfd, const char *base, const char *shown,
		  const char *buf, size_t len, mode_t mode, const struct stat *old);
/* A batch of writes: the regular files np_write_text and np_write_bytes
 * replace (a copy of a machine under --root) from np_write_batch_begin on
 * are renamed into place unsynced, and synced all at once, one syncfs, by
 * np_write_batch_sync: a transaction's values, whose journal (which holds
 * the old value and the new of each) is synced before the first of them is
 * written, and again after, so that it never says applied before they are
 * durable. A kill leaves each file old or new, as an unbatched write does:
 * the rename is what makes it so, not the sync. A power cut before the sync
 * may leave one renamed without its data, which a revert then takes for a
 * value someone changed: the price of a copied tree (sysfs and procfs files
 * are written as ever, one write(2), nothing to sync). */
struct np_write_batch {
	int fd;    /* a directory on the filesystem of the unsynced writes, or -1 */
	dev_t dev; /* its device: a file on another one is synced as it is written */
};
/* Starts a batch on ctx, unless one is on already (a revert within an
 * apply): returns 1 when this call owns it, 0 when not. */
int np_write_batch_begin(struct np_ctx *ctx, struct np_write_batch *b);
/* Syncs what the batch wrote so far; 0 or -errno (the kernel's writeback error). */
int np_write_batch_sync(struct np_ctx *ctx);
/* Syncs and ends the batch when owner (np_write_batch_begin's 1). */
int np_write_batch_end(struct np_ctx *ctx, int owner);
/* Removes what np_replace_at leaves beside path when killed between naming
 * its temporary file and renaming it (".NAME.numaplace-PID"). Only for a
 * caller that knows no other writer of path runs: the transaction lock. */
int np_remove_stale_temps(struct np_ctx *ctx, const char *fmt, ...) NP_FMT(2);
/* Writes all of buf, retrying short writes and EINTR. Returns 0 or -errno. */
int np_write_all(int fd, const char *buf, size_t len);
/* "1 MiB", "1 GiB" or "N bytes", for messages about limits. */
const char *np_size_name(size_t max, char *buf, size_t size);

/* Builds root + path into buf (PATH_MAX), for messages. */
int np_sysfs_path(struct np_ctx *ctx, char *buf, const char *fmt, ...) NP_FMT(3);
bool np_sysfs_exists(struct np_ctx *ctx, const char *fmt, ...) NP_FMT(2);
/* Reads accept only a regular file (which sysfs and procfs attributes are)
 * of at most NP_ATTR_MAX_BYTES (-EFBIG), opened without blocking: a FIFO or a
 * device is refused (-EINVAL). */
/* Whole file, trailing newlines and NULs removed (a NUL before the end is
 * -EINVAL); *out is malloc'd. */
int np_read_text(struct np_ctx *ctx, char **out, const char *fmt, ...) NP_FMT(3);
/* Whole file as it is, *len bytes (NUL-terminated too). */
int np_read_bytes(struct np_ctx *ctx, char **out, size_t *len, const char *fmt, ...) NP_FMT(4);
int np_read_int(struct np_ctx *ctx, long long *out, const char *fmt, ...) NP_FMT(3);
int np_read_cpulist(struct np_ctx *ctx, struct np_cpuset *out, const char *fmt, ...) NP_FMT(3);
int np_read_cpumask(struct np_ctx *ctx, struct np_cpuset *out, const char *fmt, ...) NP_FMT(3);
/* Value and a newline (added when missing). On sysfs and procfs one
 * write(2), as the kernel expects, and its errno comes back; a regular file
 * (a copy under --root) is replaced whole (np_replace_at), never truncated. */
int np_write_text(struct np_ctx *ctx, const char *value, const char *fmt, ...) NP_FMT(3);
/* The same with exactly len bytes of value. */
int np_write_bytes(struct np_ctx *ctx, const char *value, size_t len, const char *fmt, ...) NP_FMT(4);
/* Target of a symbolic link, as stored; one of PATH_MAX or more is refused. */
int np_read_link(struct np_ctx *ctx, char **out, const char *fmt, ...) NP_FMT(3);
/* The machine path ("/sys/devices/...") that path resolves to inside the
 * root, every link followed as np_open follows it; *out is malloc'd. */
int np_resolve(struct np_ctx *ctx, char **out, const char *fmt, ...) NP_FMT(3);
/* Entry names in natural order ("cpu2" before "cpu10"), without "." and "..".
 * Free with np_names_free. */
int np_list_dir(struct np_ctx *ctx, char ***names, size_t *count, const char *fmt, ...) NP_FMT(4);
void np_names_free(char **names, size_t count);
/* A stream over a file opened as for the reads above, which fails with
 * EFBIG once max_total bytes or a line of max_line bytes have been read. */
FILE *np_fopen(struct np_ctx *ctx, int *rc, size_t max_total, size_t max_line, const char *fmt, ...)
	NP_FMT(5);
/* The same for a file the user named (a copy of /proc/interrupts from a bug
 * report): path as given, not under the root, with the same rules. */
FILE *np_fopen_user(struct np_ctx *ctx, int *rc, size_t max_total, size_t max_line, const char *path);
/* The same bounds without a stream, for a file read through in large
 * pieces (/proc/interrupts: 46 MB on 1024 CPUs), which a stream would copy
 * once more: reads go straight into the caller's buffer. NULL with *rc set
 * (and ctx->err) when it cannot be opened. */
struct np_bounded;
struct np_bounded *np_bounded_open(struct np_ctx *ctx, int *rc, size_t max_total, size_t max_line, const char *fmt,
				   ...) NP_FMT(5);
struct np_bounded *np_bounded_open_user(struct np_ctx *ctx, int *rc, size_t max_total, size_t max_line,
					const char *path);
/* Up to size bytes into buf: how many, 0 at the end, or -1 with errno
 * (EFBIG past the bounds). */
ssize_t np_bounded_read(struct np_bounded *b, char *buf, size_t size);
void np_bounded_close(struct np_bounded *b);

#endif
