/* The one door to /sys and /proc. Paths are written as on the machine
 * ("/sys/...", "/proc/..."); the layer prefixes the context's root, so the
 * whole tool can read a copy of another machine. Every function returns 0 or
 * -errno and leaves a one-line detail naming the file in ctx->err; an absent
 * file is always -ENOENT, so callers can tell optional files from errors. */
#ifndef NUMAPLACE_SYSFS_H
#define NUMAPLACE_SYSFS_H

#include <stdbool.h>
#include <stdio.h>

#include "context.h"
#include "cpuset.h"

#define NP_FMT(n) __attribute__((format(printf, n, n + 1)))

/* Builds root + path into buf (PATH_MAX). */
int np_sysfs_path(struct np_ctx *ctx, char *buf, const char *fmt, ...) NP_FMT(3);
bool np_sysfs_exists(struct np_ctx *ctx, const char *fmt, ...) NP_FMT(2);
/* Whole file, trailing newlines and NULs removed (a NUL before the end is
 * -EINVAL); *out is malloc'd. */
int np_read_text(struct np_ctx *ctx, char **out, const char *fmt, ...) NP_FMT(3);
int np_read_int(struct np_ctx *ctx, long long *out, const char *fmt, ...) NP_FMT(3);
int np_read_cpulist(struct np_ctx *ctx, struct np_cpuset *out, const char *fmt, ...) NP_FMT(3);
int np_read_cpumask(struct np_ctx *ctx, struct np_cpuset *out, const char *fmt, ...) NP_FMT(3);
/* One write(2) of value and a newline (added when missing), as sysfs
 * expects; the kernel's errno comes back. */
int np_write_text(struct np_ctx *ctx, const char *value, const char *fmt, ...) NP_FMT(3);
/* Target of a symbolic link, as stored. */
int np_read_link(struct np_ctx *ctx, char **out, const char *fmt, ...) NP_FMT(3);
/* Entry names in natural order ("cpu2" before "cpu10"), without "." and "..".
 * Free with np_names_free. */
int np_list_dir(struct np_ctx *ctx, char ***names, size_t *count, const char *fmt, ...) NP_FMT(4);
void np_names_free(char **names, size_t count);
FILE *np_fopen(struct np_ctx *ctx, int *rc, const char *fmt, ...) NP_FMT(3);

#endif
