/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "render/output.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "judge/cpuset-names.h"
#include "base/cpuset.h"
#include "base/quote.h"
#include "render/term.h"

static size_t text_width(const char *text, size_t len);

/* ---- values ---- */

/* A value of type with nothing else set, as {.type = type} but for room
 * (48 bytes to clear for each of 70,000 IRQ cells) and text, which get()
 * reads. */
static void reset(struct np_value *v, enum np_value_type type)
{
	v->type = type;
	v->s = NULL;
	v->owned = NULL;
	v->i = 0;
	v->d = 0;
	v->b = false;
	v->json = NULL;
	v->counts = NULL;
	v->counts_owned = NULL;
	v->ncounts = 0;
}

int np_val_null(struct np_value *v)
{
	reset(v, NP_VAL_NULL);
	return 0;
}

int np_val_take(struct np_value *v, char *s)
{
	reset(v, s ? NP_VAL_STRING : NP_VAL_NULL);
	v->s = s;
	v->owned = s;
	return 0;
}

int np_val_copy(struct np_value *v, const char *s)
{
	size_t n = strlen(s);
	if (n < sizeof(v->room)) {
		np_val_str(v, v->room);
		memcpy(v->room, s, n + 1);
		return 0;
	}
	char *copy = strdup(s);
	return copy ? np_val_take(v, copy) : -ENOMEM;
}

int np_val_str(struct np_value *v, const char *s)
{
	reset(v, s ? NP_VAL_STRING : NP_VAL_NULL);
	v->s = s;
	return 0;
}

int np_val_int(struct np_value *v, long long i)
{
	reset(v, NP_VAL_INT);
	v->i = i;
	return 0;
}

int np_val_number(struct np_value *v, double d)
{
	reset(v, NP_VAL_NUMBER);
	v->d = d;
	return 0;
}

int np_val_bool(struct np_value *v, bool b)
{
	reset(v, NP_VAL_BOOL);
	v->b = b;
	return 0;
}

int np_val_share(struct np_value *v, double fraction)
{
	reset(v, NP_VAL_SHARE);
	v->d = fraction;
	return 0;
}

int np_val_cpus(struct np_value *v, const struct np_cpuset *set, bool empty_null)
{
	if (empty_null && np_cpuset_empty(set))
		return np_val_null(v);
	np_val_str(v, v->room);
	if (np_cpuset_print_list(set, v->room, sizeof(v->room)) < sizeof(v->room))
		return 0;
	char *text = np_cpuset_format_list(set);
	return text ? np_val_take(v, text) : -ENOMEM;
}

int np_val_cpus_text(struct np_value *v, const struct np_topology *topo, const struct np_cpuset *set, bool empty_null)
{
	if (!v->text || np_cpuset_empty(set))
		return np_val_cpus(v, set, empty_null);
	char *text = np_cpus_text(topo, set);
	return text ? np_val_take(v, text) : -ENOMEM;
}

int np_val_kb(struct np_value *v, unsigned long long kb)
{
	reset(v, NP_VAL_KB);
	v->i = (long long)kb;
	return 0;
}

int np_val_time(struct np_value *v, long long seconds)
{
	reset(v, NP_VAL_TIME);
	v->i = seconds;
	return 0;
}

int np_val_counts(struct np_value *v, struct np_count *counts, size_t n)
{
	reset(v, NP_VAL_COUNTS);
	v->counts = counts;
	v->counts_owned = counts;
	v->ncounts = n;
	return 0;
}

int np_val_counts_ref(struct np_value *v, const struct np_count *counts, size_t n)
{
	reset(v, NP_VAL_COUNTS);
	v->counts = counts;
	v->ncounts = n;
	return 0;
}

/* A value that may be moved and kept beside others (a sort key): its text
 * and counts its own, not in its room or another's. */
static int value_detach(struct np_value *v)
{
	if (v->s && v->s == v->room && !(v->s = v->owned = strdup(v->room)))
		return -ENOMEM;
	if (v->counts && !v->counts_owned) {
		if (!(v->counts_owned = malloc((v->ncounts ? v->ncounts : 1) * sizeof(*v->counts_owned))))
			return -ENOMEM;
		memcpy(v->counts_owned, v->counts, v->ncounts * sizeof(*v->counts));
		v->counts = v->counts_owned;
	}
	return 0;
}

static void value_free(struct np_value *v)
{
	/* Most values own nothing: no calls for them (70,000 IRQ cells). */
	if (v->owned || v->counts_owned || v->json) {
		free(v->owned);
		free(v->counts_owned);
		cJSON_Delete(v->json);
		v->owned = NULL;
		v->counts_owned = NULL;
		v->json = NULL;
	}
}

/* The cell text, allocated. */
static char *value_text(const struct np_column *c, const struct np_value *v)
{
	char *text = NULL;
	switch (v->type) {
	case NP_VAL_NULL:
		return strdup(c->null_text ? c->null_text : "-");
	case NP_VAL_STRING:
	case NP_VAL_JSON:
		/* Names are the kernel's bytes: escape what would not show as itself. */
		return v->s && *v->s ? np_escape_dup(v->s) : strdup(c->empty_text ? c->empty_text : "-");
	case NP_VAL_INT:
		return asprintf(&text, "%lld", v->i) < 0 ? NULL : text;
	case NP_VAL_NUMBER:
		return asprintf(&text, "%g", v->d) < 0 ? NULL : text;
	case NP_VAL_BOOL:
		return strdup(v->b ? "yes" : "no");
	case NP_VAL_SHARE:
		return asprintf(&text, "%.0f%%", 100 * v->d) < 0 ? NULL : text;
	case NP_VAL_TIME: {
		char when[32];
		time_t tt = (time_t)v->i;
		struct tm tm;
		if (!localtime_r(&tt, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm))
			snprintf(when, sizeof(when), "%lld", v->i);
		return strdup(when);
	}
	case NP_VAL_KB:
		if (v->i >= 1024LL * 1024)
			return asprintf(&text, "%.1fG", (double)v->i / (1024.0 * 1024.0)) < 0 ? NULL : text;
		return asprintf(&text, "%lldM", v->i / 1024) < 0 ? NULL : text;
	case NP_VAL_COUNTS: {
		/* A key and a count: at most 20 + 1 + 20 + 1 characters. */
		size_t len = 0;
		if (!(text = malloc(v->ncounts * 42 + 2)))
			return NULL;
		text[0] = '\0';
		for (size_t k = 0; k < v->ncounts; k++)
			if (v->counts[k].n)
				len += (size_t)sprintf(text + len, "%s%lld:%llu", len ? " " : "", v->counts[k].key,
						       v->counts[k].n);
		if (!len)
			strcpy(text, c->empty_text ? c->empty_text : "-");
		return text;
	}
	}
	return NULL;
}

/* The key of a count: its number (no printf: 16 of them a row, 4000 rows). */
static const char *count_key(const struct np_count *c, char *buf, size_t size)
{
	char *p = buf + size;
	unsigned long long u = c->key < 0 ? 0ULL - (unsigned long long)c->key : (unsigned long long)c->key;
	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (c->key < 0)
		*--p = '-';
	return p;
}

/* The JSON value; takes v's nested value. */
static cJSON *value_json(struct np_value *v)
{
	cJSON *j = NULL;
	switch (v->type) {
	case NP_VAL_NULL:
		return cJSON_CreateNull();
	case NP_VAL_STRING:
		if (!v->owned)
			return cJSON_CreateString(v->s);
		/* The item takes the string rather than a copy of it (4000 IRQs, 16 keys
		 * each), cut to its length: a CPU list is formatted in room for every CPU. */
		j = cJSON_CreateString("");
		char *fit = j ? realloc(v->owned, strlen(v->owned) + 1) : NULL;
		if (fit) {
			cJSON_free(j->valuestring);
			j->valuestring = fit;
			v->owned = NULL;
		} else if (j) {
			cJSON_Delete(j);
			j = NULL;
		}
		return j;
	case NP_VAL_INT:
	case NP_VAL_KB:
	case NP_VAL_TIME:
		return cJSON_CreateNumber((double)v->i);
	case NP_VAL_NUMBER:
	case NP_VAL_SHARE:
		return cJSON_CreateNumber(v->d);
	case NP_VAL_BOOL:
		return cJSON_CreateBool(v->b);
	case NP_VAL_JSON:
		j = v->json;
		v->json = NULL;
		return j;
	case NP_VAL_COUNTS:
		j = cJSON_CreateObject();
		for (size_t k = 0; j && k < v->ncounts; k++) {
			char key[24];
			if (!cJSON_AddNumberToObject(j, count_key(&v->counts[k], key, sizeof(key)), (double)v->counts[k].n)) {
				cJSON_Delete(j);
				j = NULL;
			}
		}
		return j;
	}
	return NULL;
}

/* The JSON value, written. */
static void value_write(struct np_jw *jw, const char *key, const struct np_value *v)
{
	switch (v->type) {
	case NP_VAL_NULL:
		return np_jw_null(jw, key);
	case NP_VAL_STRING:
		return np_jw_str(jw, key, v->s);
	case NP_VAL_INT:
	case NP_VAL_KB:
	case NP_VAL_TIME:
		return np_jw_int(jw, key, v->i);
	case NP_VAL_NUMBER:
	case NP_VAL_SHARE:
		return np_jw_number(jw, key, v->d);
	case NP_VAL_BOOL:
		return np_jw_bool(jw, key, v->b);
	case NP_VAL_JSON:
		return np_jw_cjson(jw, key, v->json);
	case NP_VAL_COUNTS:
		np_jw_object(jw, key);
		for (size_t k = 0; k < v->ncounts; k++)
			np_jw_count(jw, v->counts[k].key, v->counts[k].n);
		return np_jw_close(jw);
	}
}

/* ---- tables ---- */

static size_t count_columns(const struct np_column *cols)
{
	size_t n = 0;
	while (cols[n].name)
		n++;
	return n;
}

static void print_columns(const struct np_command *cmd, const struct np_column *cols, const char *defaults)
{
	printf("The columns of 'numaplace %s' (-o NAME,...; the default: %s):\n", cmd->name, defaults);
	for (const struct np_column *c = cols; c->name; c++)
		printf("  %-16s %-11s %s\n", c->name, c->header, c->help);
}

/* The index of the column named by the len characters at name, or -1. */
static long find_column(const struct np_column *cols, const char *name, size_t len)
{
	for (long i = 0; cols[i].name; i++)
		if (strlen(cols[i].name) == len && !strncasecmp(cols[i].name, name, len))
			return i;
	return -1;
}

/* The columns named in list (comma-separated), appended to t->shown;
 * named says whether the user named them (-o), else they are defaults. */
static int select_columns(struct np_table *t, const struct np_command *cmd, const char *list, bool named)
{
	const char *p = list;
	while (*p) {
		size_t len = strcspn(p, ",");
		long i = find_column(t->cols, p, len);
		if (i < 0)
			return np_usage_error(cmd, "unknown column '%.*s' ('numaplace %s -o help' lists them)", (int)len,
					      p, cmd->name);
		t->named[t->nshown] = named;
		t->shown[t->nshown++] = (size_t)i;
		p += len + (p[len] == ',');
	}
	if (!t->nshown)
		return np_usage_error(cmd, "no columns given to --output");
	return NP_CONTINUE;
}

/* SCOLS_FL_WRAP columns: libsmartcols cuts anywhere ("may ru" / "n on C"),
 * so np_table_print breaks their cells at blanks itself, with newlines, and
 * libsmartcols only splits them there: the column is as wide as its longest
 * line. */
static size_t wrap_width(const struct libscols_column *cl, const char *data, void *unused)
{
	(void)cl;
	(void)unused;
	size_t widest = 0;
	for (const char *p = data; p && *p;) {
		size_t len = strcspn(p, "\n");
		if (len > widest)
			widest = len;
		p += len + (p[len] == '\n');
	}
	return widest;
}

static char *wrap_next_line(const struct libscols_column *cl, char *data, void *unused)
{
	(void)cl;
	(void)unused;
	char *nl = data ? strchr(data, '\n') : NULL;
	if (!nl)
		return NULL;
	*nl = '\0';
	return nl + 1;
}

/* A value to sort by: null last, then numbers or text. */
static int sort_compare(const struct np_value *a, const struct np_value *b)
{
	if ((a->type == NP_VAL_NULL) != (b->type == NP_VAL_NULL))
		return a->type == NP_VAL_NULL ? 1 : -1;
	switch (a->type) {
	case NP_VAL_NULL:
		return 0;
	case NP_VAL_INT:
	case NP_VAL_KB:
	case NP_VAL_TIME:
		return (a->i > b->i) - (a->i < b->i);
	case NP_VAL_NUMBER:
	case NP_VAL_SHARE:
		return (a->d > b->d) - (a->d < b->d);
	case NP_VAL_BOOL:
		return (int)a->b - (int)b->b;
	case NP_VAL_COUNTS: {
		/* By the sum: how many there were in all. */
		unsigned long long sa = 0, sb = 0;
		for (size_t k = 0; k < a->ncounts; k++)
			sa += a->counts[k].n;
		for (size_t k = 0; k < b->ncounts; k++)
			sb += b->counts[k].n;
		return (sa > sb) - (sa < sb);
	}
	case NP_VAL_STRING:
	case NP_VAL_JSON:
		/* "nvme0q2" before "nvme0q10", as ls -v. */
		return strverscmp(a->s ? a->s : "", b->s ? b->s : "");
	}
	return 0;
}

struct sort_key {
	struct np_value v;
	const void *row;
	size_t order;
};

static int sort_key_compare(const void *pa, const void *pb, void *descending)
{
	const struct sort_key *a = pa, *b = pb;
	int c = sort_compare(&a->v, &b->v);
	/* Nulls stay last either way. */
	if (*(const bool *)descending && a->v.type != NP_VAL_NULL && b->v.type != NP_VAL_NULL)
		c = -c;
	return c ? c : (a->order > b->order) - (a->order < b->order);
}

int np_table_sort(const struct np_table *t, const void **rows, size_t n)
{
	if (!t->sort || n < 2)
		return EXIT_OK;
	struct sort_key *keys = calloc(n, sizeof(*keys));
	if (!keys)
		return np_error("%s", strerror(ENOMEM));
	int err = 0;
	for (size_t i = 0; i < n; i++) {
		keys[i].row = rows[i];
		keys[i].order = i;
		if (!err)
			err = t->sort->get(t->data, rows[i], &keys[i].v);
		if (!err)
			err = value_detach(&keys[i].v);
	}
	bool descending = t->sort->flags & NP_FL_DESCENDING;
	if (!err) {
		qsort_r(keys, n, sizeof(*keys), sort_key_compare, &descending);
		for (size_t i = 0; i < n; i++)
			rows[i] = keys[i].row;
	}
	for (size_t i = 0; i < n; i++)
		value_free(&keys[i].v);
	free(keys);
	return err ? np_error("sorting the rows: %s", strerror(-err)) : EXIT_OK;
}

int np_table_init(struct np_table *t, const struct np_command *cmd, const struct np_column *cols,
		  const char *defaults, const struct np_table_opts *opts, bool json, const void *data)
{
	static const struct np_table_opts none = { 0 };
	size_t ncols = count_columns(cols);
	*t = (struct np_table){ .cols = cols, .data = data };
	if (!opts)
		opts = &none;
	if (opts->columns && !strcmp(opts->columns, "help")) {
		print_columns(cmd, cols, defaults);
		return EXIT_OK;
	}
	/* A column may be asked for more than once: as many as the list has words. */
	const char *list = opts->columns ? opts->columns : defaults;
	size_t room = ncols + 2;
	for (const char *p = list; *p; p++)
		room += *p == ',';
	for (const char *p = defaults; list[0] == '+' && *p; p++)
		room += *p == ',';
	t->shown = calloc(room, sizeof(*t->shown));
	t->widest = calloc(room, sizeof(*t->widest));
	t->named = calloc(room, sizeof(*t->named));
	t->raw = opts->raw || opts->pairs;
	if (!t->shown || !t->widest || !t->named) {
		np_table_free(t);
		return np_error("%s", strerror(ENOMEM));
	}
	int rc = NP_CONTINUE;
	if (opts->sort) {
		long k = find_column(cols, opts->sort, strlen(opts->sort));
		if (k < 0)
			rc = np_usage_error(cmd, "unknown column '%s' for --sort ('numaplace %s -o help' lists them)",
					    opts->sort, cmd->name);
		else
			t->sort = &cols[k];
	}
	if (rc == NP_CONTINUE && json && (!opts->columns || list[0] == '+')) {
		/* JSON has every column, in the table's order (so "+COL" adds none). */
		for (size_t i = 0; i < ncols; i++)
			t->shown[t->nshown++] = i;
	} else if (rc == NP_CONTINUE && list[0] == '+') {
		/* util-linux's "-o +COL": the defaults and more. */
		rc = select_columns(t, cmd, defaults, false);
		if (rc == NP_CONTINUE)
			rc = select_columns(t, cmd, list + 1, true);
	} else if (rc == NP_CONTINUE) {
		rc = select_columns(t, cmd, list, opts->columns != NULL);
	}
	if (rc == NP_CONTINUE && json && !(t->rows = cJSON_CreateArray()))
		rc = np_error("%s", strerror(ENOMEM));
	if (rc == NP_CONTINUE && !json) {
		t->tb = scols_new_table();
		if (!t->tb)
			rc = np_error("%s", strerror(ENOMEM));
	}
	if (rc == NP_CONTINUE && t->tb) {
		/* Two spaces between columns, as numaplace always printed them. */
		scols_table_set_column_separator(t->tb, "  ");
		scols_table_enable_noheadings(t->tb, opts->noheadings);
		scols_table_enable_raw(t->tb, opts->raw);
		if (opts->raw || opts->pairs)
			scols_table_set_column_separator(t->tb, " ");
		scols_table_enable_export(t->tb, opts->pairs);
		scols_table_enable_shellvar(t->tb, opts->pairs);
		for (size_t i = 0; i < t->nshown && rc == NP_CONTINUE; i++) {
			const struct np_column *c = &cols[t->shown[i]];
			int flags = c->flags & ~NP_FL_OWN;
			/* Words a script reads need no quoting: "EFFECTIVE_NODES", not "EFF NODES". */
			char name[64];
			size_t k = 0;
			for (; (opts->raw || opts->pairs) && c->name[k] && k + 1 < sizeof(name); k++)
				name[k] = (char)toupper((unsigned char)c->name[k]);
			name[k] = '\0';
			struct libscols_column *cl = scols_table_new_column(t->tb, k ? name : c->header, c->whint, flags);
			if (!cl)
				rc = np_error("%s", strerror(ENOMEM));
			else if (flags & SCOLS_FL_WRAP)
				rc = scols_column_set_wrapfunc(cl, wrap_width, wrap_next_line, NULL) ||
						     scols_column_set_safechars(cl, "\n")
					     ? np_error("%s", strerror(ENOMEM))
					     : NP_CONTINUE;
		}
	}
	if (rc != NP_CONTINUE)
		np_table_free(t);
	return rc;
}

int np_table_add(struct np_table *t, const void *row)
{
	struct libscols_line *ln = t->tb ? scols_table_new_line(t->tb, NULL) : NULL;
	cJSON *o = t->rows ? cJSON_CreateObject() : NULL;
	if ((t->tb && !ln) || (t->rows && !o))
		return np_error("building the output: %s", strerror(ENOMEM));
	if (o)
		cJSON_AddItemToArray(t->rows, o);
	if (t->jw)
		np_jw_object(t->jw, NULL);
	for (size_t i = 0; i < t->nshown; i++) {
		const struct np_column *c = &t->cols[t->shown[i]];
		struct np_value v = { .text = ln != NULL && !t->raw };
		int err = c->get(t->data, row, &v);
		if (!err && ln) {
			char *text = value_text(c, &v);
			size_t width = text ? text_width(text, strlen(text)) : 0;
			if (!text || scols_line_refer_data(ln, i, text)) {
				free(text);
				err = -ENOMEM;
			} else if (width > t->widest[i]) {
				t->widest[i] = width;
			}
		}
		if (!err && o) {
			cJSON *j = value_json(&v);
			if (!j || !cJSON_AddItemToObject(o, c->name, j)) {
				cJSON_Delete(j);
				err = -ENOMEM;
			}
		}
		if (!err && t->jw) {
			if (t->keyed && t->keyed[i])
				np_jw_key(t->jw, &t->keys[i]);
			value_write(t->jw, t->keyed && t->keyed[i] ? NULL : c->name, &v);
		}
		value_free(&v);
		if (err)
			return np_error("building the output: %s", strerror(-err));
	}
	if (t->jw)
		np_jw_close(t->jw);
	return EXIT_OK;
}

void np_table_stream(struct np_table *t, struct np_jw *jw, const char *key)
{
	cJSON_Delete(t->rows);
	t->rows = NULL;
	t->jw = jw;
	/* Without the room, each row writes its keys in full. */
	if (!t->keys && t->nshown) {
		t->keys = malloc(t->nshown * sizeof(*t->keys));
		t->keyed = calloc(t->nshown, sizeof(*t->keyed));
	}
	for (size_t i = 0; t->keys && t->keyed && i < t->nshown; i++)
		t->keyed[i] = np_jw_key_init(jw, &t->keys[i], t->cols[t->shown[i]].name);
	np_jw_array(jw, key);
}

void np_table_stream_end(struct np_table *t)
{
	if (t->jw)
		np_jw_close(t->jw);
	t->jw = NULL;
}

cJSON *np_table_take_json(struct np_table *t)
{
	cJSON *rows = t->rows;
	t->rows = NULL;
	return rows;
}

/* ---- fitting a terminal ---- */

/* The columns text takes on a terminal, as libsmartcols counts them: what
 * the locale cannot print is shown as \xHH. */
static size_t text_width(const char *text, size_t len)
{
	mbstate_t st = { 0 };
	size_t width = 0;
	while (len) {
		if ((unsigned char)*text >= 0x20 && (unsigned char)*text < 0x7f) {
			width++, text++, len--;
			continue;
		}
		wchar_t wc;
		size_t n = mbrtowc(&wc, text, len, &st);
		int w = n == (size_t)-1 || n == (size_t)-2 || n == 0 ? -1 : wcwidth(wc);
		if (w < 0) {
			memset(&st, 0, sizeof(st));
			n = 1;
			w = 4;
		}
		width += (size_t)w;
		text += n;
		len -= n;
	}
	return width;
}

/* The bytes of text that fit width columns. */
static size_t fit_bytes(const char *text, size_t width)
{
	size_t len = strlen(text), used = 0, at = 0;
	while (at < len) {
		size_t n = 1;
		while (at + n < len && ((unsigned char)text[at + n] & 0xc0) == 0x80 && n < 4)
			n++;
		size_t w = text_width(text + at, n);
		if (used + w > width)
			break;
		used += w;
		at += n;
	}
	return at;
}

/* A shown column while fitting: its width, and how narrow it may go. */
struct fit_col {
	struct libscols_column *cl;
	size_t natural, min, width;
	int give;        /* left out in this order (1 first); 0: never */
	bool wrap;       /* narrowed by wrapping (after the cut ones) */
	bool left_out;
};

/* The widest word of a wrapped column's cells (it may go no narrower, up
 * to WRAP_WORD). */
#define WRAP_WORD 20
static size_t widest_word(struct libscols_table *tb, size_t col)
{
	struct libscols_iter *it = scols_new_iter(SCOLS_ITER_FORWARD);
	struct libscols_line *ln;
	size_t widest = 0;
	while (it && scols_table_next_line(tb, it, &ln) == 0) {
		const char *data = scols_cell_get_data(scols_line_get_cell(ln, col));
		for (const char *p = data; p && *p;) {
			size_t len = strcspn(p, " ");
			size_t w = text_width(p, len);
			if (w > widest)
				widest = w;
			p += len + (p[len] == ' ');
		}
	}
	scols_free_iter(it);
	return widest;
}

/* Each column's width for a line of width columns: the cut and wrapped
 * ones narrowed first, widest first, then columns left out (fc->left_out)
 * in their order until the rest fits. Returns the separator's width. */
static size_t fit_plan(struct fit_col *fc, size_t n, size_t width)
{
	size_t total = 0, shown = 0;
	for (size_t i = 0; i < n; i++)
		if (!fc[i].left_out)
			total += fc[i].natural, shown++;
	if (total + 2 * (shown - 1) <= width)
		return 2;
	for (;;) {
		size_t room = 0, need = 0;
		shown = 0;
		for (size_t i = 0; i < n; i++) {
			if (fc[i].left_out)
				continue;
			fc[i].width = fc[i].natural;
			need += fc[i].natural;
			room += fc[i].min;
			shown++;
		}
		need += shown - 1;
		room += shown - 1;
		if (need <= width)
			return 1;
		if (room <= width) {
			/* The cut columns first, then the wrapped ones; in each stage one
			 * column at a time off the widest, so that they end even. */
			for (int stage = 0; stage < 2 && need > width; stage++) {
				for (;;) {
					size_t widest = n;
					for (size_t i = 0; i < n; i++)
						if (!fc[i].left_out && fc[i].wrap == (stage > 0) && fc[i].width > fc[i].min &&
						    (widest == n || fc[i].width > fc[widest].width))
							widest = i;
					if (widest == n || need <= width)
						break;
					fc[widest].width--;
					need--;
				}
			}
			return 1;
		}
		/* The next to give way: the lowest order, the rightmost of equals. */
		size_t next = n;
		for (size_t i = 0; i < n; i++)
			if (!fc[i].left_out && fc[i].give && (next == n || fc[i].give <= fc[next].give))
				next = i;
		if (next == n) {
			/* Only what names the rows is left: as narrow as it goes, and wider than the terminal. */
			for (size_t i = 0; i < n; i++)
				fc[i].width = fc[i].min;
			return 1;
		}
		fc[next].left_out = true;
	}
}

/* text in lines of width columns at most: each ends at its last blank
 * within width; a word wider than width (a path) is broken inside. */
static char *wrapped(const char *text, size_t width)
{
	/* A newline replaces a blank, or is one more byte inside a word. */
	char *out = malloc(2 * strlen(text) + 1), *o = out;
	for (const char *line = text; out;) {
		if (text_width(line, strlen(line)) <= width) {
			strcpy(o, line);
			break;
		}
		size_t fit = fit_bytes(line, width), cut = 0;
		for (size_t k = 1; k <= fit && line[k]; k++)
			if (line[k] == ' ')
				cut = k;
		bool inside = !cut;
		if (inside)
			cut = fit ? fit : 1;
		memcpy(o, line, cut);
		o += cut;
		*o++ = '\n';
		line += cut + !inside;
	}
	return out;
}

/* Cuts or wraps (at blanks, with newlines) each cell of column col to width. */
static int fit_cells(struct libscols_table *tb, size_t col, size_t width, bool wrap)
{
	struct libscols_iter *it = scols_new_iter(SCOLS_ITER_FORWARD);
	struct libscols_line *ln;
	int err = it ? 0 : -ENOMEM;
	while (!err && scols_table_next_line(tb, it, &ln) == 0) {
		struct libscols_cell *ce = scols_line_get_cell(ln, col);
		const char *data = scols_cell_get_data(ce);
		if (!data || text_width(data, strlen(data)) <= width)
			continue;
		char *text = wrap ? wrapped(data, width) : strdup(data);
		if (!text) {
			err = -ENOMEM;
			break;
		}
		if (!wrap)
			text[fit_bytes(text, width)] = '\0';
		if (scols_cell_refer_data(ce, text)) {
			free(text);
			err = -ENOMEM;
		}
	}
	scols_free_iter(it);
	return err;
}

/* Fits the table to width columns exactly: libsmartcols would leave a
 * column that must not be cut wider than the terminal, and cuts the others
 * by its own measure; here every width is decided first and libsmartcols
 * lays the cells out as they are. */
static int fit_table(struct np_table *t, size_t width)
{
	struct fit_col *fc = calloc(t->nshown + 1, sizeof(*fc));
	if (!fc)
		return -ENOMEM;
	for (size_t i = 0; i < t->nshown; i++) {
		const struct np_column *c = &t->cols[t->shown[i]];
		/* libsmartcols makes a column no narrower than its header, nor than a
		 * width hint in columns (IRQ's 4, over 3 digits: 121 at 120). */
		size_t least = text_width(c->header, strlen(c->header));
		if (c->whint >= 1 && (size_t)c->whint > least)
			least = (size_t)c->whint;
		fc[i].cl = scols_table_get_column(t->tb, i);
		fc[i].natural = t->widest[i] > least ? t->widest[i] : least;
		fc[i].min = fc[i].natural;
		if (!(c->flags & NP_FL_KEY) && (c->flags & SCOLS_FL_WRAP)) {
			/* Words stay whole down to WRAP_WORD columns; a longer one (a
			 * file name in a reason) is broken rather than the column left out. */
			size_t word = widest_word(t->tb, i), whole = least > WRAP_WORD ? least : WRAP_WORD;
			fc[i].min = word > whole ? whole : word > least ? word : least;
			fc[i].wrap = true;
		} else if (!(c->flags & NP_FL_KEY) && (c->flags & SCOLS_FL_TRUNC)) {
			fc[i].min = least > 8 ? least : fc[i].natural < 8 ? fc[i].natural : 8;
		}
		if (fc[i].min > fc[i].natural)
			fc[i].min = fc[i].natural;
		fc[i].width = fc[i].natural;
		fc[i].give = c->flags & NP_FL_KEY || t->named[i] ? 0 : c->flags & NP_FL_GIVE_MASK ? (c->flags & NP_FL_GIVE_MASK) >> 26 : 8;
	}
	size_t sep = fit_plan(fc, t->nshown, width);
	int err = 0;
	if (sep == 1)
		scols_table_set_column_separator(t->tb, " ");
	for (size_t i = 0; !err && i < t->nshown; i++) {
		const struct np_column *c = &t->cols[t->shown[i]];
		if (fc[i].left_out)
			err = scols_column_set_flags(fc[i].cl, scols_column_get_flags(fc[i].cl) | SCOLS_FL_HIDDEN);
		else if (fc[i].width < fc[i].natural)
			err = fit_cells(t->tb, i, fc[i].width, (c->flags & SCOLS_FL_WRAP) != 0);
	}
	free(fc);
	return err;
}

int np_table_print(struct np_table *t, FILE *out)
{
	if (!t->tb)
		return EXIT_OK;
	/* Raw and pairs output carries every character; a pipe or a file gets
	 * every column whole; a terminal gets a table that fits it. */
	int width = t->raw ? 0 : np_output_width(fileno(out));
	int err = width > 0 ? fit_table(t, (size_t)width) : 0;
	if (err)
		return np_error("cannot print the table: %s", strerror(-err));
	scols_table_set_termforce(t->tb, SCOLS_TERMFORCE_NEVER);
	return scols_table_set_stream(t->tb, out) || scols_print_table(t->tb)
		       ? np_error("cannot print the table: %s", strerror(errno ? errno : EIO))
		       : EXIT_OK;
}

void np_table_free(struct np_table *t)
{
	scols_unref_table(t->tb);
	cJSON_Delete(t->rows);
	free(t->shown);
	free(t->widest);
	free(t->named);
	free(t->keys);
	free(t->keyed);
	*t = (struct np_table){ 0 };
}

/* ---- JSON documents ---- */

/* Every allocation cJSON makes goes through here, so that one that failed
 * anywhere in building a document is known when it is printed. */
static bool json_alloc_failed;

static void *json_malloc(size_t size)
{
	void *p = malloc(size);
	if (!p)
		json_alloc_failed = true;
	return p;
}

/* Before main: no cJSON value may come from another allocator. */
__attribute__((constructor)) static void json_hooks(void)
{
	cJSON_Hooks hooks = { json_malloc, free };
	cJSON_InitHooks(&hooks);
}

/* What np_notef said, for the JSON document: whoever reads only the JSON
 * (configuration management) must see the notes and warnings too. */
static char **notes;
static size_t nnotes;

void np_notef(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!text)
		return;
	va_start(ap, fmt);
	vsnprintf(text, (size_t)n + 1, fmt, ap);
	va_end(ap);
	/* A message written as one printf may end in a newline: the line is the note. */
	if (n > 0 && text[n - 1] == '\n')
		text[n - 1] = '\0';
	np_say(NULL, text);
	char *named = np_named_paths(text);
	if (named) {
		free(text);
		text = named;
	}
	char **more = realloc(notes, (nnotes + 1) * sizeof(*notes));
	if (!more) {
		free(text);
		return;
	}
	notes = more;
	notes[nnotes++] = text;
}

/* Notes said after the document was printed, or with no document: freed at
 * exit, so that the sanitizers' leak check sees none. */
__attribute__((destructor)) static void notes_free(void)
{
	for (size_t i = 0; i < nnotes; i++)
		free(notes[i]);
	free(notes);
	notes = NULL;
	nnotes = 0;
}

cJSON *np_json_doc(void)
{
	cJSON *doc = cJSON_CreateObject();
	if (doc && !cJSON_AddNumberToObject(doc, "schema", NP_JSON_SCHEMA)) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	return doc;
}

void np_json_begin(struct np_jw *jw, bool pretty)
{
	np_jw_init(jw, stdout, pretty || isatty(STDOUT_FILENO));
	np_jw_object(jw, NULL);
	np_jw_int(jw, "schema", NP_JSON_SCHEMA);
}

int np_json_end(struct np_jw *jw)
{
	if (nnotes) {
		np_jw_array(jw, "warnings");
		for (size_t i = 0; i < nnotes; i++)
			np_jw_str(jw, NULL, notes[i]);
		np_jw_close(jw);
	}
	np_jw_close(jw);
	int err = np_jw_finish(jw);
	if (err == -ENOMEM || (!err && json_alloc_failed))
		return np_error("cannot build the JSON output: %s", strerror(ENOMEM));
	if (err)
		return np_error("cannot write the JSON output: %s", strerror(-err));
	return EXIT_OK;
}

int np_print_json(cJSON *doc, bool pretty)
{
	if (!doc || json_alloc_failed) {
		cJSON_Delete(doc);
		return np_error("cannot build the JSON output: %s", strerror(ENOMEM));
	}
	/* doc's own "schema" is the one np_json_begin writes. */
	struct np_jw jw;
	np_json_begin(&jw, pretty);
	for (const cJSON *c = doc->child; c; c = c->next)
		if (strcmp(c->string, "schema"))
			np_jw_cjson(&jw, c->string, c);
	cJSON_Delete(doc);
	return np_json_end(&jw);
}

void np_jw_cpus(struct np_jw *jw, const char *key, const struct np_cpuset *set, bool empty_null)
{
	if (empty_null && np_cpuset_empty(set))
		return np_jw_null(jw, key);
	char small[128];
	if (np_cpuset_print_list(set, small, sizeof(small)) < sizeof(small))
		return np_jw_str(jw, key, small);
	char *text = np_cpuset_format_list(set);
	if (!text)
		jw->failed = true;
	np_jw_str(jw, key, text ? text : "");
	free(text);
}

void np_json_put(cJSON *o, const char *key, cJSON *item)
{
	bool ok = item && o && (key ? cJSON_AddItemToObject(o, key, item) : cJSON_AddItemToArray(o, item));
	if (!ok) {
		cJSON_Delete(item);
		json_alloc_failed = true;
	}
}

cJSON *np_json_str(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

cJSON *np_json_int(long long i, bool known)
{
	return known ? cJSON_CreateNumber((double)i) : cJSON_CreateNull();
}
