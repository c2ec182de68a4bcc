/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A streaming JSON writer, as util-linux's ul_jsonwrt (lib/jsonwrt.c) is for
 * lsblk and lsirq: values go to the stream as they are produced, so a
 * document of 4000 IRQs is never held as a tree. It writes exactly what
 * cJSON_PrintUnformatted and cJSON_Print (pretty) write for the same
 * document: the one JSON format of every command. */
#ifndef NUMAPLACE_JSONWRT_H
#define NUMAPLACE_JSONWRT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* Containers nested deeper than this are refused (the writer fails). */
#define NP_JW_MAX_DEPTH 64

struct np_jw {
	FILE *out;
	bool pretty;
	bool failed;    /* a value could not be written (out of memory, too deep) */
	bool keyed;     /* np_jw_key wrote the next value's key */
	int depth;
	/* per open container: whether it is an array, and whether it has a member yet */
	bool array[NP_JW_MAX_DEPTH], any[NP_JW_MAX_DEPTH];
	/* Written to out when full: a few bytes at a time through stdio cost a
	 * tenth of a 2 MB report. */
	size_t len;
	char buf[1 << 16];
};

void np_jw_init(struct np_jw *jw, FILE *out, bool pretty);
/* Each value is a member named key of the open object, or (key NULL) an
 * element of the open array or the document itself. */
void np_jw_object(struct np_jw *jw, const char *key);
void np_jw_array(struct np_jw *jw, const char *key);
void np_jw_close(struct np_jw *jw); /* the innermost open object or array */
void np_jw_str(struct np_jw *jw, const char *key, const char *s); /* NULL: null */
void np_jw_int(struct np_jw *jw, const char *key, long long i);
void np_jw_uint(struct np_jw *jw, const char *key, unsigned long long u);
void np_jw_number(struct np_jw *jw, const char *key, double d);
/* A count under a numeric key ("3": 120), as np_jw_uint with that key. */
void np_jw_count(struct np_jw *jw, long long key, unsigned long long n);
void np_jw_bool(struct np_jw *jw, const char *key, bool b);
void np_jw_null(struct np_jw *jw, const char *key);
/* A member's key made once for the many rows that repeat it (a table's
 * columns: 4,000 IRQ rows of 18 keys), as the value calls write it: the next
 * value call's key is then NULL. np_jw_key_init returns false for a key it
 * cannot make so (one to escape, or longer than the room): pass that one
 * to the value call. */
struct np_jw_key {
	unsigned char len;
	char text[63];
};
bool np_jw_key_init(const struct np_jw *jw, struct np_jw_key *key, const char *name);
void np_jw_key(struct np_jw *jw, const struct np_jw_key *key);
/* A value built as a cJSON tree (NULL: the writer fails). */
void np_jw_cjson(struct np_jw *jw, const char *key, const cJSON *item);
/* Ends the document with a newline and flushes. Returns 0, or -errno when
 * anything failed (ENOMEM for a value not written). */
int np_jw_finish(struct np_jw *jw);

#endif
