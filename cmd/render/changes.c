/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The changes of a transaction: apply shows what it wrote, revert what it
 * restored. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change/attr.h"
#include "change/txn.h"
#include "render/render.h"

#define CHANGE(row) ((const struct np_change *)(row))

static int get_path(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, CHANGE(row)->path);
}

static int get_subject(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, CHANGE(row)->subject);
}

char *np_value_shown(enum np_value_kind kind, const char *value)
{
	if (kind == NP_VALUE_TEXT && value) {
		/* A whole file (irqbalance's) is no cell: its size. */
		size_t lines = 0;
		for (const char *p = value; *p; p++)
			lines += *p == '\n';
		char *text;
		return asprintf(&text, "(a file of %zu line%s)", lines, lines == 1 ? "" : "s") < 0 ? NULL : text;
	}
	char *norm = kind == NP_VALUE_CPULIST || kind == NP_VALUE_CPUMASK ? np_value_normalize(kind, value) : NULL;
	if (norm && !*norm) {
		free(norm);
		return strdup("off");
	}
	return norm ? norm : strdup(value ? value : "?");
}

int np_val_change_value(struct np_value *v, enum np_value_kind kind, const char *value)
{
	if (!v->text || !value)
		return np_val_str(v, value);
	char *shown = np_value_shown(kind, value);
	return shown ? np_val_take(v, shown) : -ENOMEM;
}

void np_print_change_line(FILE *out, enum np_attr attr, const char *subject, const char *from, const char *to)
{
	char *a = np_value_shown(np_attrs[attr].value, from), *b = np_value_shown(np_attrs[attr].value, to);
	fprintf(out, "  %s: %s -> %s\n", subject, a ? a : from, b ? b : to);
	free(a);
	free(b);
}

static int get_old(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_change_value(v, np_attrs[CHANGE(row)->attr].value, CHANGE(row)->old_value);
}

static int get_new(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_change_value(v, np_attrs[CHANGE(row)->attr].value, CHANGE(row)->new_value);
}

const struct np_column np_change_columns[] = {
	NP_COLUMN("path", "FILE", 1, 0, "the file written", get_path),
	NP_COLUMN("subject", "SUBJECT", 1, NP_FL_KEY, "what the value is for", get_subject),
	NP_COLUMN("old", "OLD", 1, 0, "the value before the apply", get_old),
	NP_COLUMN("new", "NEW", 1, 0, "the value the apply wrote", get_new),
	NP_COLUMN_END,
};

cJSON *np_changes_json(const struct np_change *changes, size_t n)
{
	struct np_table t;
	if (np_table_init(&t, np_command_find("apply"), np_change_columns, "path", NULL, true, NULL) != NP_CONTINUE)
		return NULL;
	cJSON *a = NULL;
	size_t i = 0;
	while (i < n && np_table_add(&t, &changes[i]) == EXIT_OK)
		i++;
	if (i == n)
		a = np_table_take_json(&t);
	np_table_free(&t);
	return a;
}

const char *np_recovered_line(const struct np_txn *t, bool dry_run, char *buf, size_t size)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nchanges; i++)
		n += !t->changes[i].gone;
	if (t->state == NP_TXN_STALE)
		snprintf(buf, size, "transaction %s did not finish during an earlier boot, whose reboot reset its "
			 "values: %s stale", t->id, dry_run ? "would mark it" : "marked it");
	else
		snprintf(buf, size, "transaction %s (%s) did not finish: %s", t->id, t->profile,
			 dry_run ? "an apply would roll it back first" : "rolled it back first");
	if (t->state != NP_TXN_STALE && dry_run)
		snprintf(buf + strlen(buf), size - strlen(buf), " (%zu value%s to restore)", n, n == 1 ? "" : "s");
	else if (t->state != NP_TXN_STALE)
		snprintf(buf + strlen(buf), size - strlen(buf), " (%zu value%s as before it)", n, n == 1 ? "" : "s");
	return buf;
}
