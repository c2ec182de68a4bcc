/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every library call needs: where the machine's files are, and room
 * for the one-line detail of the last error. The library never prints. */
#ifndef NUMAPLACE_CONTEXT_H
#define NUMAPLACE_CONTEXT_H

#include <stddef.h>

#define NP_ROOT_ENV "NUMAPLACE_ROOT"

struct np_write_batch;

struct np_ctx {
	char *root;      /* "" for this machine, else a directory holding sys/ and proc/ */
	int rootfd;      /* root opened (O_PATH) when root is not "": every path under it is
			  * resolved inside it (lib/read/sysfs.c); -1 for this machine */
	char err[1024];  /* detail of the last failure, for the caller to print */
	const char *kubelet_state; /* --kubelet-state: the kubelet's CPU manager state, not under the root */
	const char *archive; /* the snapshot archive root was unpacked from (read only), or NULL */
	struct np_write_batch *batch; /* writes synced together (lib/read/sysfs.h), or NULL */
};

/* root NULL: take $NUMAPLACE_ROOT, else this machine. Returns 0 or -errno.
 * A root other than "/" needs openat2 (Linux 5.6): without it nothing under
 * the root could be kept from escaping it, so it is refused (-ENOSYS). */
int np_ctx_init(struct np_ctx *ctx, const char *root);
void np_ctx_fini(struct np_ctx *ctx);
/* Records the detail and returns rc, so callers can "return np_fail(...)". */
int np_fail(struct np_ctx *ctx, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Quotes text read from a file in a message: printable characters only, at
 * most size - 4 of them, then "..." when cut. Returns buf. */
const char *np_excerpt(const char *text, char *buf, size_t size);
/* The same for the first len bytes of text. */
const char *np_excerpt_n(const char *text, size_t len, char *buf, size_t size);

#endif
