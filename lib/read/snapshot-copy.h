/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the two parts of the snapshot share, and nobody else: snapshot.c (what
 * is copied, and the directory or archive it goes to) and snapshot-copy.c
 * (how one file, link or directory is copied). Each function returns 0 or
 * -errno with the detail in s->ctx->err unless it says otherwise. */
#ifndef NUMAPLACE_SNAPSHOT_COPY_H
#define NUMAPLACE_SNAPSHOT_COPY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/context.h"
#include "read/snapshot.h"

/* Directories already copied, so that two links to one device copy it once. */
struct seen {
	char **slot;
	size_t cap, n;
};

struct snap {
	struct np_ctx *ctx;
	char out[PATH_MAX]; /* the tree being written; machine paths are appended */
	size_t outlen;
	struct np_snapshot_stats *stats;
	struct seen seen;
};

/* What a link leads to, and so what of its target is copied. */
enum follow { FOLLOW_NONE, FOLLOW_PCI, FOLLOW_DRIVER, FOLLOW_NET, FOLLOW_BLOCK };

enum { COPY_DONE = 0, COPY_IS_DIR = 1 };

void snap_seen_free(struct seen *set);
/* 1 when dir has not been copied as kind yet, 0 when it has; -ENOMEM. */
int snap_first_visit(struct snap *s, char kind, const char *dir);
/* A machine path into buf (PATH_MAX bytes); -ENAMETOOLONG when it does not fit. */
int snap_mp_fmt(struct snap *s, char *buf, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A source that could not be read (err: a positive errno): absent is
 * nothing, present but unreadable is counted as skipped (0), and errors that
 * say the machine is in trouble (ENOMEM, EMFILE, ...) fail. */
int snap_skip_or_fail(struct snap *s, int err, const char *src);
/* The directory of machine path mp in the output tree, with its parents. */
int snap_ensure_dir(struct snap *s, const char *mp);
/* Copies one file by reading it; limit > 0 keeps only that many bytes.
 * COPY_DONE (also when absent or unreadable), COPY_IS_DIR, or -errno. */
int snap_copy_file(struct snap *s, const char *mp, size_t limit);
/* snap_copy_file of a file, a directory being nothing to copy. */
int snap_copy_plain(struct snap *s, const char *mp);
/* Each of names (NULL-ended) in machine directory dir. */
int snap_copy_files(struct snap *s, const char *dir, const char *const *names);
/* Entries of a machine directory, in natural order; none when it is absent
 * or unreadable (the latter counted). *present (may be NULL) says whether
 * it was there. Free with np_names_free. */
int snap_list(struct snap *s, const char *mp, char ***names, size_t *n, bool *present);
/* The machine path a link at link with text target leads to, by the text
 * alone, into out (PATH_MAX bytes); false when it does not fit. */
bool snap_resolve(const char *link, const char *target, char *out);
/* Recreates the link at mp with the same text. */
int snap_copy_link(struct snap *s, const char *mp, const char *target);

#endif
