/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The output layer: a command describes its columns once, and each row
 * becomes a table line (libsmartcols, as lsblk and lsirq print) or a JSON
 * object from the same values: a cJSON object for a small document, or
 * written at once (jsonwrt.h) for a large one. */
#ifndef NUMAPLACE_OUTPUT_H
#define NUMAPLACE_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>
#include <libsmartcols/libsmartcols.h>

#include "cmd.h"
#include "render/jsonwrt.h"

/* The version of every --json document: raised on any incompatible change. */
#define NP_JSON_SCHEMA 1

/* One cell's value, rendered as text for the table and as JSON. */
enum np_value_type {
	NP_VAL_NULL,   /* text "-" (or the column's null_text), JSON null */
	NP_VAL_STRING, /* s */
	NP_VAL_INT,    /* i */
	NP_VAL_NUMBER, /* d */
	NP_VAL_BOOL,   /* b: text "yes" or "no" */
	NP_VAL_SHARE,  /* d, a fraction: text "42%", JSON 0.42 */
	NP_VAL_JSON,   /* json, a nested value; s its text */
	NP_VAL_KB,     /* i, kilobytes: text "512M" or "1.5G", JSON the number */
	NP_VAL_TIME,   /* i, seconds since the epoch: text local "2026-11-30 15:04:05", JSON the number */
	NP_VAL_COUNTS, /* counts: text "0:120 1:3" (the non-zero ones), JSON {"0": 120, "1": 3, "2": 0} */
};
/* One count of an NP_VAL_COUNTS value, under a numeric key (a node id...). */
struct np_count {
	long long key;
	unsigned long long n;
};
struct np_value {
	/* Set before get(): whether the cell is for people (a table, not -r,
	 * -P or JSON), which may abbreviate ("all", "0-62:2"); so too a value
	 * whose text costs work spares it for JSON. -r and -P carry the
	 * kernel's form, as JSON does. */
	bool text;
	enum np_value_type type;
	const char *s; /* the string or the text */
	char *owned;   /* s when the value owns it (freed with the value) */
	long long i;
	double d;
	bool b;
	cJSON *json; /* owned */
	const struct np_count *counts; /* ncounts of them */
	struct np_count *counts_owned; /* counts, when the value owns them */
	size_t ncounts;
	/* A short text needs no allocation (4000 IRQs, five CPU lists each): s
	 * then points here, and the value must stay where it is. */
	char room[48];
};

/* The value setters. np_val_str refers to s, which must outlive the row
 * (NULL makes a null value); np_val_take owns s. They return 0 or -ENOMEM. */
int np_val_str(struct np_value *v, const char *s);
int np_val_take(struct np_value *v, char *s);
/* A copy of s (a getter's own buffer): in the value's room when it fits,
 * as most cells do, else on the heap. */
int np_val_copy(struct np_value *v, const char *s);
int np_val_int(struct np_value *v, long long i);
int np_val_number(struct np_value *v, double d);
int np_val_bool(struct np_value *v, bool b);
int np_val_share(struct np_value *v, double fraction);
int np_val_null(struct np_value *v);
int np_val_kb(struct np_value *v, unsigned long long kb);
int np_val_time(struct np_value *v, long long seconds);
/* Takes counts (malloc'd, n of them). */
int np_val_counts(struct np_value *v, struct np_count *counts, size_t n);
/* Refers to counts, which must stay as they are until the value is used. */
int np_val_counts_ref(struct np_value *v, const struct np_count *counts, size_t n);
/* A CPU set in list form ("0-3,8"); an empty set is "" unless empty_null. */
struct np_cpuset;
int np_val_cpus(struct np_value *v, const struct np_cpuset *set, bool empty_null);

/* A CPU set for people in a table ("all", "node 1", "0-110:2", "0,2,...,110
 * (56)": lib/judge/cpuset-names), its list form in JSON and for sorting, which the
 * kernel and profiles read; an empty set as np_val_cpus. */
struct np_topology;
int np_val_cpus_text(struct np_value *v, const struct np_topology *topo, const struct np_cpuset *set, bool empty_null);

/* Column flags of numaplace's own, beside libsmartcols' SCOLS_FL_*.
 * NP_FL_DESCENDING: --sort puts the largest first (counts, shares).
 * Fitting a terminal (np_table_print): SCOLS_FL_TRUNC columns are cut first,
 * SCOLS_FL_WRAP ones wrap at word boundaries, then whole columns are left
 * out, NP_FL_GIVE(1) first ... NP_FL_GIVE(7), then the unranked ones from
 * the right. NP_FL_KEY columns (what names a row: IRQ, device) are never
 * cut or left out, nor is any column named with -o. */
#define NP_FL_DESCENDING (1 << 24)
#define NP_FL_KEY (1 << 25)
#define NP_FL_GIVE(n) ((n) << 26)
#define NP_FL_GIVE_MASK (7 << 26)
#define NP_FL_OWN (NP_FL_DESCENDING | NP_FL_KEY | NP_FL_GIVE_MASK)

/* One column: its header and its JSON key, and one get() for both. */
struct np_column {
	const char *name;   /* JSON key and the name -o takes */
	const char *header;
	double whint;       /* width hint: < 1 a fraction of the terminal, else columns */
	int flags;          /* SCOLS_FL_RIGHT, SCOLS_FL_TRUNC, SCOLS_FL_WRAP..., NP_FL_DESCENDING */
	const char *help;
	/* Fills v for row (data: what every row shares, the machine...). */
	int (*get)(const void *data, const void *row, struct np_value *v);
	const char *null_text;  /* the cell of a null value; "-" when NULL */
	const char *empty_text; /* the cell of an empty string (an empty CPU set); "-" when NULL */
};

#define NP_COLUMN(n, h, w, f, hl, g) { .name = (n), .header = (h), .whint = (w), .flags = (f), .help = (hl), .get = (g) }
/* The same, with the cells of a null value and of an empty string. */
#define NP_COLUMN_TEXT(n, h, w, f, hl, g, null, empty)                                                  \
	{ .name = (n), .header = (h), .whint = (w), .flags = (f), .help = (hl), .get = (g), .null_text = (null), \
	  .empty_text = (empty) }
#define NP_COLUMN_END { .name = NULL }

/* The options of a command that prints a table. */
struct np_table_opts {
	const char *columns;
	const char *sort; /* a column name, or NULL: the command's order */
	bool noheadings, raw, pairs;
};
#define NP_OPT_TABLE(T, F)                                                                                  \
	NP_OPT_STRING('o', "output", T, F.columns, "COLUMNS",                                               \
		      "the columns to show, comma-separated ('-o help' lists them;\n"                      \
		      "+COL,... adds them to the default ones); with --json, the keys", "columns"),         \
	NP_OPT_BOOL('n', "noheadings", T, F.noheadings, "print no header line"),                           \
	NP_OPT_BOOL('r', "raw", T, F.raw, "columns separated by one space, nothing aligned or cut"),       \
	NP_OPT_BOOL('P', "pairs", T, F.pairs, "one line per row of NAME=\"value\" pairs")
/* -s, as lsirq's: any column, shown or not. */
#define NP_OPT_SORT(T, F)                                                                                   \
	NP_OPT_STRING('s', "sort", T, F.sort, "COLUMN",                                                     \
		      "sort the rows by COLUMN (counts and shares largest first)", "columns")
/* -J, as util-linux's tools spell it. */
#define NP_OPT_JSON(T, F, help) NP_OPT_BOOL('J', "json", T, F, help)
#define NP_OPT_PRETTY(T, F) NP_OPT_BOOL(0, "pretty", T, F, "indent the JSON (the default on a terminal)")

struct np_table {
	const struct np_column *cols;
	size_t *shown, nshown;
	bool *named; /* each shown column: named with -o (never left out to fit) */
	bool raw;    /* -r or -P: every character, nothing fitted */
	const struct np_column *sort; /* --sort's column, or NULL */
	size_t *widest; /* the text table: each shown column's widest cell */
	const void *data;
	struct libscols_table *tb;
	cJSON *rows; /* with json: the array of row objects */
	struct np_jw *jw; /* or, streamed: each row written as it is added */
	struct np_jw_key *keys; /* streamed: each shown column's key, made once */
	bool *keyed;            /* ... where it could be */
};

/* Prepares a table of cols (NULL-terminated by name) for rows sharing data:
 * JSON objects when json, else a text table of the -o columns or
 * defaults (comma-separated names). Returns NP_CONTINUE, or an exit status:
 * EXIT_OK after printing the list of columns for "-o help", EXIT_USAGE
 * for an unknown column. */
int np_table_init(struct np_table *t, const struct np_command *cmd, const struct np_column *cols,
		  const char *defaults, const struct np_table_opts *opts, bool json, const void *data);
/* Puts rows (n pointers to rows) in --sort's order, ties and rows without a
 * value (nulls: last) kept in their order; nothing without --sort. Returns
 * an exit status. */
int np_table_sort(const struct np_table *t, const void **rows, size_t n);
/* Adds a row. Returns an exit status. */
int np_table_add(struct np_table *t, const void *row);
/* The rows so far as a JSON array, which the caller then owns. */
cJSON *np_table_take_json(struct np_table *t);
/* With json: the rows added from now on are written to jw as they come, an
 * array named key (none is kept); np_table_stream_end closes it. For the
 * tables of thousands of rows, which are never held whole. */
void np_table_stream(struct np_table *t, struct np_jw *jw, const char *key);
void np_table_stream_end(struct np_table *t);
/* Prints the text table, fitted to the terminal out is (np_output_width).
 * Returns an exit status. */
int np_table_print(struct np_table *t, FILE *out);
void np_table_free(struct np_table *t);

/* A JSON document: an object whose first key is "schema". NULL when out of memory. */
cJSON *np_json_doc(void);
/* Prints "numaplace: MESSAGE" on stderr (a note or a warning: the message
 * says which) and keeps it for np_print_json, which lists what was said in
 * the document's "warnings". */
void np_notef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints doc and a newline to stdout, indented when pretty or on a
 * terminal, and frees it. Reports a failed allocation anywhere in building
 * it. Returns an exit status. */
int np_print_json(cJSON *doc, bool pretty);
/* The same document written as it is produced: np_json_begin opens it on
 * stdout (the object and its "schema"), the caller writes its keys with
 * np_jw_*, np_json_end adds "warnings" and ends it. An exit status. */
void np_json_begin(struct np_jw *jw, bool pretty);
int np_json_end(struct np_jw *jw);
/* The JSON of a CPU set, written: its list ("0-3,8"), or null when empty and empty_null. */
void np_jw_cpus(struct np_jw *jw, const char *key, const struct np_cpuset *set, bool empty_null);
/* Adds item to o under key (to the array o when key is NULL); a failure is
 * remembered for np_print_json to report, and item freed. */
void np_json_put(cJSON *o, const char *key, cJSON *item);
cJSON *np_json_str(const char *s);  /* a string, or null */
cJSON *np_json_int(long long i, bool known); /* a number, or null */

#endif
