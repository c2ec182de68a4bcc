/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a profile's values: the getters the parser (profile.c) and the
 * target classes (target.c) share, so that every message names the file and
 * the field ("p.json: settings[2].queue: got ..., expected ...") and says
 * what was expected. Each returns 0, -EINVAL (ctx->err says why) or -ENOMEM. */
#ifndef NUMAPLACE_PROFILE_READER_H
#define NUMAPLACE_PROFILE_READER_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/context.h"

/* Above any kernel name (IFNAMSIZ is 16, disk names are short), far below
 * what would make messages unreadable. */
#define NP_PR_NAME_MAX 64
/* A field's path in a message: "settings[12].vector". */
#define NP_PR_PATH_MAX 160

/* The file being read, for its messages. */
struct np_profile_reader {
	struct np_ctx *ctx;
	const char *file;
};

int np_pr_bad(struct np_profile_reader *ps, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int np_pr_no_memory(struct np_profile_reader *ps);
/* "got X, expected Y". */
int np_pr_wrong(struct np_profile_reader *ps, const char *path, const cJSON *v, const char *expected);
int np_pr_missing(struct np_profile_reader *ps, const char *path, const char *key, const char *expected);
/* User text quoted into a one-line message (size >= 8). */
void np_pr_quote(char *buf, size_t size, const char *s);
/* parent.key into buf (NP_PR_PATH_MAX), the key made printable. */
void np_pr_subpath(char *buf, const char *parent, const char *key);
/* *out (freed first) becomes a copy of s. */
int np_pr_dup(struct np_profile_reader *ps, char **out, const char *s);
/* The value itself (borrowed). */
int np_pr_string(struct np_profile_reader *ps, const cJSON *v, const char *path, const char *expected,
		 const char **out);
int np_pr_int(struct np_profile_reader *ps, const cJSON *v, const char *path, int min, int max,
	      const char *expected, int *out);
/* A kernel name (nothing that could leave a directory); inner_spaces for
 * IRQ action names, which are compared, never made into paths. */
int np_pr_check_name(struct np_profile_reader *ps, const cJSON *v, const char *path, const char *expected,
		     bool inner_spaces, char **out);
int np_pr_name(struct np_profile_reader *ps, const cJSON *v, const char *path, const char *expected,
	       char **out);
/* A PCI address (made full), an interface or a block device. */
int np_pr_device(struct np_profile_reader *ps, const cJSON *v, const char *path, char **out);
/* A CPU list, stored canonical. */
int np_pr_cpus(struct np_profile_reader *ps, const cJSON *v, const char *path, bool allow_empty, char **out);

/* One setting being read: what a target class's parse reads its keys
 * through (the keys' paths are under where). key NULL: the setting. */
struct np_setting_reader {
	struct np_profile_reader *ps;
	const char *where; /* "settings[3]" */
};
int np_reader_fail(struct np_setting_reader *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int np_reader_missing(struct np_setting_reader *r, const char *key, const char *expected);
int np_reader_int(struct np_setting_reader *r, const cJSON *v, const char *key, int min, int max,
		  const char *expected, int *out);
int np_reader_name(struct np_setting_reader *r, const cJSON *v, const char *key, const char *expected,
		   bool inner_spaces, char **out);
int np_reader_device(struct np_setting_reader *r, const cJSON *v, const char *key, char **out);

#endif
