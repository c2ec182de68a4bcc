/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Configuration files under the machine's /etc: the boot profile and
 * irqbalance's settings (lib/read/irqbalance-conf.c finds which file). Paths are machine
 * paths ("/etc/default/irqbalance");
 * the context's root is prefixed, as for /sys and /proc. Files are read whole,
 * byte for byte, and replaced atomically, so that a crash leaves the old file
 * or the new one, never a torn one. */
#ifndef NUMAPLACE_CONFFILE_H
#define NUMAPLACE_CONFFILE_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/context.h"
#include "base/paths.h"

/* The profile numaplace.service applies at boot ('numaplace enable'). */
#define NP_BOOT_PROFILE NUMAPLACE_CONFDIR "/boot.json"

/* The whole file, trailing newlines included; *out is malloc'd. A symbolic
 * link is refused (-ELOOP), as the write would refuse it; so is a file with a
 * NUL byte or over 1 MiB (-EINVAL, -EFBIG). */
int np_conf_read(struct np_ctx *ctx, const char *path, char **out);
/* Replaces the file with content through a temporary file in the same
 * directory: write, fsync, rename, fsync of the directory. With create, a
 * missing file is made with mode (and missing directories with 0755);
 * without, it must exist (-ENOENT) and keeps its mode and owner. A symbolic
 * link or anything but a regular file in its place is refused. */
int np_conf_write(struct np_ctx *ctx, const char *path, const char *content, mode_t mode, bool create);
/* Removes the file, durably; -ENOENT when it is absent. */
int np_conf_remove(struct np_ctx *ctx, const char *path);

/* The value of the last active "name=" assignment of text (quotes taken
 * off, as the shell and systemd read a simple one) into *value (malloc'd);
 * 0 with *value NULL when text assigns none, -ENOMEM. spaced: an INI file's
 * "name = value" (TuneD's), where a shell's "export name=" is no form. */
int np_conf_value(const char *text, const char *name, bool spaced, char **value);

#endif
