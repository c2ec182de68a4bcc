/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "change/irqbalance.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/conffile.h"
#include "read/sysfs.h"

#define ARGS_VAR "IRQBALANCE_ARGS"
#define OPTS_VAR "IRQBALANCE_OPTS"
#define MARK_TAIL " (added by 'numaplace apply'; 'numaplace revert' removes them)"

/* ---- sets of IRQ numbers ---- */

struct irqset {
	int *v;
	size_t n, cap;
};

static bool irqset_has(const struct irqset *s, int irq)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == irq)
			return true;
	return false;
}

static int irqset_add(struct irqset *s, int irq)
{
	if (irqset_has(s, irq))
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		int *bigger = realloc(s->v, cap * sizeof(*bigger));
		if (!bigger)
			return -ENOMEM;
		s->v = bigger;
		s->cap = cap;
	}
	s->v[s->n++] = irq;
	return 0;
}

static int by_number(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void irqset_sort(struct irqset *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), by_number);
}

/* A decimal IRQ number, the whole of [p, end). */
static bool parse_irq(const char *p, const char *end, int *irq)
{
	long v = 0;
	if (p == end)
		return false;
	for (; p < end; p++) {
		if (!isdigit((unsigned char)*p) || v > INT_MAX / 10)
			return false;
		v = v * 10 + (*p - '0');
	}
	if (v > INT_MAX)
		return false;
	*irq = (int)v;
	return true;
}

int np_irqbalance_irqs(const struct np_change *changes, size_t n, int **irqs, size_t *count)
{
	struct irqset s = { 0 };
	/* A change knows what it writes: no path is parsed to find out. */
	for (size_t i = 0; i < n; i++) {
		if (changes[i].attr != NP_ATTR_IRQ_AFFINITY || changes[i].target.irq < 0)
			continue;
		if (irqset_add(&s, changes[i].target.irq)) {
			free(s.v);
			return -ENOMEM;
		}
	}
	irqset_sort(&s);
	*irqs = s.v;
	*count = s.n;
	return 0;
}

/* ---- the assignment ---- */

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && blank(*p))
		p++;
	return p;
}

/* Where the value of an active "VAR=" line starts, or NULL. */
static const char *assignment_value(const char *line, const char *end, const char *var)
{
	const char *p = skip_blanks(line, end);
	if (end - p > 7 && !strncmp(p, "export", 6) && blank(p[6]))
		p = skip_blanks(p + 6, end);
	size_t len = strlen(var);
	if ((size_t)(end - p) <= len || strncmp(p, var, len) || p[len] != '=')
		return NULL;
	return p + len + 1;
}

/* Characters that mean the same unquoted and inside double quotes, in the
 * shell that sources the file and in systemd's EnvironmentFile parser. */
static bool plain_char(char c)
{
	return isalnum((unsigned char)c) || strchr("_-=,.:/+@%", c);
}

struct value {
	const char *start, *end; /* the words, quotes excluded */
	const char *close;       /* the closing quote, or NULL when unquoted */
};

static int parse_value(struct np_ctx *ctx, const char *var, const char *p, const char *end, struct value *v)
{
	const char *q;
	memset(v, 0, sizeof(*v));
	if (p < end && (*p == '"' || *p == '\'')) {
		char quote = *p;
		for (q = p + 1; q < end && *q != quote; q++) {
			/* The shell expands these inside double quotes, systemd does
			 * not: the daemon's arguments would depend on who starts it. */
			if (quote == '"' && (*q == '$' || *q == '`'))
				return np_fail(ctx, -EINVAL, "%s holds '%c', which the shell expands and "
					       "systemd does not", var, *q);
			if (quote == '"' && *q == '\\')
				q++;
		}
		if (q >= end)
			return np_fail(ctx, -EINVAL, "%s goes on past its line (no closing %c)", var, quote);
		v->start = p + 1;
		v->end = q;
		v->close = q;
		q++;
	} else {
		for (q = p; q < end && !blank(*q); q++)
			if (!plain_char(*q))
				return np_fail(ctx, -EINVAL,
					       "%s is unquoted and holds '%c', which would need quoting", var, *q);
		v->start = p;
		v->end = q;
	}
	if (skip_blanks(q, end) != end)
		return np_fail(ctx, -EINVAL, "text follows the value of %s on its line", var);
	return 0;
}

/* The lines a ban edit owns in a text: the last assignment of the variable
 * (the one the shell and systemd keep) and numaplace's mark line right
 * above it. Everything else in the file is the user's. */
struct ban_block {
	const char *start; /* the mark line, else the assignment; NULL when none */
	const char *args;  /* the assignment line */
	const char *value; /* its value */
	const char *end;   /* the end of the assignment line, before its newline */
	bool mark;
};

static bool is_mark(const char *line, const char *end)
{
	size_t len = strlen(NP_IRQBALANCE_MARK);
	return (size_t)(end - line) >= len && !strncmp(line, NP_IRQBALANCE_MARK, len);
}

static void find_block(const char *text, const char *var, struct ban_block *b)
{
	const char *last = NULL, *last_end = NULL;
	memset(b, 0, sizeof(*b));
	for (const char *p = text; *p;) {
		const char *e = strchrnul(p, '\n');
		const char *value = assignment_value(p, e, var);
		if (value) {
			b->mark = last && is_mark(last, last_end);
			b->start = b->mark ? last : p;
			b->args = p;
			b->value = value;
			b->end = e;
		}
		last = p;
		last_end = e;
		p = *e ? e + 1 : e;
	}
}

/* The variable a ban edit changed in text: the one assigned right under its
 * last NP_IRQBALANCE_MARK line (so a journal needs no word of which file
 * layout it was), IRQBALANCE_ARGS when none says otherwise. */
static const char *edited_var(const char *text)
{
	const char *var = ARGS_VAR;
	for (const char *p = text; *p;) {
		const char *e = strchrnul(p, '\n');
		if (is_mark(p, e) && *e) {
			const char *next = e + 1, *next_end = strchrnul(next, '\n');
			var = assignment_value(next, next_end, OPTS_VAR) ? OPTS_VAR : ARGS_VAR;
		}
		p = *e ? e + 1 : e;
	}
	return var;
}

static bool same_block(const struct ban_block *a, const struct ban_block *b)
{
	if (!a->start || !b->start)
		return !a->start && !b->start;
	return a->end - a->start == b->end - b->start &&
	       !memcmp(a->start, b->start, (size_t)(a->end - a->start));
}

/* The IRQs the words ban: --banirq=N, --banirq N, -iN and -i N (getopt's forms). */
static int banned_in(const struct value *v, struct irqset *out)
{
	const char *p = v->start, *prev = NULL, *prev_end = NULL;
	while ((p = skip_blanks(p, v->end)) < v->end) {
		const char *w = p;
		while (p < v->end && !blank(*p))
			p++;
		size_t len = (size_t)(p - w);
		int irq, rc = 0;
		if (len > 9 && !strncmp(w, "--banirq=", 9) && parse_irq(w + 9, p, &irq))
			rc = irqset_add(out, irq);
		else if (len > 2 && !strncmp(w, "-i", 2) && parse_irq(w + 2, p, &irq))
			rc = irqset_add(out, irq);
		else if (prev && parse_irq(w, p, &irq) &&
			 ((prev_end - prev == 8 && !strncmp(prev, "--banirq", 8)) ||
			  (prev_end - prev == 2 && !strncmp(prev, "-i", 2))))
			rc = irqset_add(out, irq);
		if (rc)
			return rc;
		prev = w;
		prev_end = p;
	}
	return 0;
}

/* The IRQs an earlier numaplace mark line lists. */
static int marked_in(const char *line, const char *end, struct irqset *out)
{
	size_t len = strlen(NP_IRQBALANCE_MARK);
	if ((size_t)(end - line) < len || strncmp(line, NP_IRQBALANCE_MARK, len))
		return 0;
	for (const char *p = line + len;;) {
		p = skip_blanks(p, end);
		const char *w = p;
		while (p < end && isdigit((unsigned char)*p))
			p++;
		int irq;
		if (!parse_irq(w, p, &irq))
			return 0;
		if (irqset_add(out, irq))
			return -ENOMEM;
	}
}

static void print_mark(FILE *f, const struct irqset *s)
{
	fputs(NP_IRQBALANCE_MARK, f);
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, " %d", s->v[i]);
	fputs(MARK_TAIL "\n", f);
}

static void print_bans(FILE *f, const struct irqset *s, bool space)
{
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%s--banirq=%d", space || i ? " " : "", s->v[i]);
}

int np_irqbalance_ban_text(struct np_ctx *ctx, const char *text, const char *var, const int *irqs, size_t n,
			   char **out, int **added, size_t *nadded)
{
	struct irqset banned = { 0 }, add = { 0 }, marked = { 0 };
	struct ban_block b;
	struct value v = { 0 };
	char *buf = NULL;
	size_t size = 0;
	int rc = 0;

	*out = NULL;
	*added = NULL;
	*nadded = 0;
	find_block(text, var, &b);
	const char *val = b.value, *line = b.args, *line_end = b.end;
	if (val && (rc = parse_value(ctx, var, val, line_end, &v)))
		goto out;
	if (val && (rc = banned_in(&v, &banned)))
		goto nomem;
	for (size_t i = 0; i < n; i++)
		if (!irqset_has(&banned, irqs[i]) && irqset_add(&add, irqs[i]))
			goto nomem;
	if (!add.n)
		goto out;
	irqset_sort(&add);

	/* The mark lists what numaplace banned before too, so that it stays true. */
	if (b.mark && (rc = marked_in(b.start, strchrnul(b.start, '\n'), &marked)))
		goto nomem;
	for (size_t i = 0; i < add.n; i++)
		if (irqset_add(&marked, add.v[i]))
			goto nomem;
	irqset_sort(&marked);

	FILE *f = open_memstream(&buf, &size);
	if (!f)
		goto nomem;
	if (!val) {
		size_t len = strlen(text);
		fputs(text, f);
		if (len && text[len - 1] != '\n')
			fputc('\n', f);
		if (len)
			fputc('\n', f);
		print_mark(f, &marked);
		fprintf(f, "%s=\"", var);
		print_bans(f, &add, false);
		fputs("\"\n", f);
	} else {
		fwrite(text, 1, (size_t)(b.start - text), f);
		print_mark(f, &marked);
		bool space = v.end > v.start && !blank(v.end[-1]);
		if (v.close) {
			fwrite(line, 1, (size_t)(v.close - line), f);
			print_bans(f, &add, space);
			fputs(v.close, f);
		} else {
			/* Quoted now, for the words to stay one value. */
			fwrite(line, 1, (size_t)(val - line), f);
			fputc('"', f);
			fwrite(v.start, 1, (size_t)(v.end - v.start), f);
			print_bans(f, &add, space);
			fputc('"', f);
			fputs(v.end, f);
		}
	}
	if (fclose(f) || !buf)
		goto nomem;
	*out = buf;
	buf = NULL;
	*added = add.v;
	*nadded = add.n;
	add.v = NULL;
	goto out;
nomem:
	rc = np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
out:
	free(buf);
	free(banned.v);
	free(add.v);
	free(marked.v);
	return rc;
}

int np_irqbalance_unban_text(struct np_ctx *ctx, const char *current, const char *old, const char *new,
			     enum np_ban_state *state, char **out)
{
	struct ban_block bc, bo, bn;
	char *buf = NULL;
	size_t size = 0;

	*out = NULL;
	const char *var = edited_var(new);
	find_block(current, var, &bc);
	find_block(old, var, &bo);
	find_block(new, var, &bn);
	if (same_block(&bc, &bo)) {
		*state = NP_BANS_OLD;
		return 0;
	}
	*state = same_block(&bc, &bn) ? NP_BANS_NEW : NP_BANS_OTHER;
	FILE *f = open_memstream(&buf, &size);
	if (!f)
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	size_t len = strlen(current);
	if (bo.start && bc.start) {
		fwrite(current, 1, (size_t)(bc.start - current), f);
		fwrite(bo.start, 1, (size_t)(bo.end - bo.start), f);
		fputs(bc.end, f);
	} else if (bo.start) {
		/* Someone removed the assignment: old's goes back at the end. */
		fputs(current, f);
		if (len && current[len - 1] != '\n')
			fputc('\n', f);
		fwrite(bo.start, 1, (size_t)(bo.end - bo.start), f);
		fputc('\n', f);
	} else {
		/* The edit appended the assignment, after a blank line (and the
		 * newline a last line lacked): they go with it. */
		size_t pre = (size_t)(bc.start - current), olen = strlen(old);
		const char *after = *bc.end ? bc.end + 1 : bc.end;
		if (olen && pre >= 2 && current[pre - 1] == '\n' && current[pre - 2] == '\n')
			pre--;
		if (olen && old[olen - 1] != '\n' && !*after && pre && current[pre - 1] == '\n')
			pre--;
		fwrite(current, 1, pre, f);
		fputs(after, f);
	}
	if (fclose(f) || !buf) {
		free(buf);
		return np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	*out = buf;
	return 0;
}

/* The words of a value, one at a time: [*w, *p) after each call. */
static bool next_word(const char **p, const char *end, const char **w)
{
	*p = skip_blanks(*p, end);
	if (*p >= end)
		return false;
	*w = *p;
	while (*p < end && !blank(**p))
		(*p)++;
	return true;
}

static bool ban_word(const char *w, const char *e)
{
	int irq;
	return e - w > 9 && !strncmp(w, "--banirq=", 9) && parse_irq(w + 9, e, &irq);
}

/* Whether the words of n are those of o (NULL: none) and then bans only. */
static bool adds_only_bans(const struct value *o, const struct value *n)
{
	const char *po = o ? o->start : NULL, *pn = n->start, *wo, *wn;
	bool any = false;
	while (next_word(&pn, n->end, &wn)) {
		if (po && next_word(&po, o->end, &wo)) {
			if (po - wo != pn - wn || memcmp(wo, wn, (size_t)(pn - wn)))
				return false;
			continue;
		}
		po = NULL;
		if (!ban_word(wn, pn))
			return false;
		any = true;
	}
	return any && !(po && next_word(&po, o->end, &wo));
}

static bool mark_ok(const struct ban_block *b)
{
	if (!b->mark)
		return true;
	for (const char *p = b->start; p < b->args - 1; p++)
		if (*p < 0x20 || *p > 0x7e)
			return false;
	return true;
}

bool np_irqbalance_edit_ok(const char *old, const char *new)
{
	struct np_ctx ctx = { .rootfd = -1 };
	struct ban_block bo, bn;
	struct value vo, vn;
	enum np_ban_state state;
	char *back;

	const char *var = edited_var(new);
	find_block(old, var, &bo);
	find_block(new, var, &bn);
	if (!bn.start || !mark_ok(&bn) || parse_value(&ctx, var, bn.value, bn.end, &vn))
		return false;
	if (bo.start && parse_value(&ctx, var, bo.value, bo.end, &vo))
		return false;
	if (!adds_only_bans(bo.start ? &vo : NULL, &vn))
		return false;
	if (np_irqbalance_unban_text(&ctx, new, old, new, &state, &back))
		return false;
	bool same = state == NP_BANS_NEW && back && !strcmp(back, old);
	free(back);
	return same;
}

int np_irqbalance_ban_change(struct np_ctx *ctx, const struct np_irqb_conf *conf, const int *irqs, size_t n,
			     struct np_change *out, int **added, size_t *nadded)
{
	char *text, *edited, *subject = NULL, full[PATH_MAX], detail[sizeof(ctx->err)];
	size_t subject_len;
	int rc;

	memset(out, 0, sizeof(*out));
	out->target = NP_TARGET_NONE;
	*added = NULL;
	*nadded = 0;
	if (strncmp(conf->path, "/etc/", 5))
		return np_fail(ctx, -EINVAL, "'%s' is not a file under /etc numaplace may edit", conf->path);
	if ((rc = np_conf_read(ctx, conf->path, &text)))
		return rc;
	rc = np_irqbalance_ban_text(ctx, text, conf->var, irqs, n, &edited, added, nadded);
	if (rc) {
		free(text);
		if (rc == -ENOMEM || np_sysfs_path(ctx, full, "%s", conf->path))
			return rc;
		memcpy(detail, ctx->err, sizeof(detail));
		return np_fail(ctx, rc, "'%s': %s", full, detail);
	}
	if (!edited) {
		free(text);
		return 0;
	}
	FILE *f = open_memstream(&subject, &subject_len);
	if (f) {
		fputs("irqbalance:", f);
		for (size_t i = 0; i < *nadded; i++)
			fprintf(f, " --banirq=%d", (*added)[i]);
		if (fclose(f))
			subject = NULL;
	}
	struct np_target file = NP_TARGET_NONE;
	file.file = conf->path + strlen("/etc/");
	if (!subject || (rc = np_change_make(out, NP_ATTR_IRQBALANCE_CONFIG, &file, edited))) {
		free(text);
		free(edited);
		free(subject);
		free(*added);
		*added = NULL;
		*nadded = 0;
		return rc == -EINVAL ? np_fail(ctx, rc, "'%s' is not a file under /etc numaplace may edit", conf->path)
				     : np_fail(ctx, -ENOMEM, "%s", strerror(ENOMEM));
	}
	/* The row's subject says which file; this one says what changed in it. */
	free(out->subject);
	out->subject = subject;
	out->old_value = text;
	free(edited);
	return 0;
}
