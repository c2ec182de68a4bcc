/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A copy of the files numaplace (and hwloc) read from a machine, laid out as
 * on the machine (OUT/sys, OUT/proc, and OUT/etc, OUT/var for the few
 * configuration and state files read) so that --root OUT and HWLOC_FSROOT=OUT
 * read it elsewhere as they would read the machine itself. Only those files:
 * no processes (but irqbalance's comm, which tells that it runs, or else
 * the first process's, which tells that it does not), no MAC
 * addresses, no serial numbers. */
#ifndef NUMAPLACE_SNAPSHOT_H
#define NUMAPLACE_SNAPSHOT_H

#include <stdbool.h>

#include "base/context.h"

struct np_snapshot_stats {
	unsigned long files;       /* regular files written */
	unsigned long links;       /* symbolic links recreated */
	unsigned long skipped;     /* present but unreadable: write-only, root-only, refused by the driver */
	unsigned long long bytes;  /* bytes of the regular files */
};

/* out ends in ".tar.gz" or ".tgz". */
bool np_snapshot_is_archive(const char *out);

/* Copies ctx's machine (ctx->root, or this machine) into out: a directory
 * that must not exist or be empty, or an archive that must not exist (made
 * by tar from a temporary tree next to it). On failure nothing is left
 * behind. Returns 0 or -errno with the detail in ctx->err. */
int np_snapshot(struct np_ctx *ctx, const char *out, struct np_snapshot_stats *stats);

/* --root ARCHIVE: a snapshot archive (a tar file, compressed or not: tar
 * finds out) is unpacked into a new private temporary directory (0700,
 * under $TMPDIR or /tmp), read only there and removed when numaplace ends.
 * Unpacked rather than read in place: every read goes through the one
 * root-aware layer, openat2 inside a real directory tree, and a report reads
 * most of the archive's files anyway; tar wrote it (np_snapshot), tar reads it.
 * np_snapshot_tmpdir makes the directory (named in tmpdir, PATH_MAX), so that
 * its removal can be arranged before anything is in it; np_snapshot_unpack
 * fills it and names in root the directory that holds sys/: the archive's
 * top, or its one directory. Each returns 0 or -errno with ctx->err. */
int np_snapshot_tmpdir(struct np_ctx *ctx, const char *archive, char *tmpdir);
int np_snapshot_unpack(struct np_ctx *ctx, const char *archive, const char *tmpdir, char *root);
/* Removes the tree at dir (an unpacked archive). 0 or -errno. */
int np_snapshot_remove(const char *dir);

#endif
