/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The irqbalance configuration editor. Input: the file's text, then
 * optionally a NUL byte and the IRQs to ban (two bytes each; 1, 34 and 35
 * without). Banning the same IRQs twice changes nothing; the lines other
 * than the banned-IRQ lines are untouched; what the edit makes is a change a
 * journal may hold (else revert would refuse it); and the revert's edit
 * gives back the text before the ban, byte for byte, keeping a line added
 * since. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change/irqbalance.h"
#include "change/txn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_IRQS 16

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* An active IRQBALANCE_ARGS assignment, as the shell reads one. */
static bool assignment(const char *l, size_t len)
{
	size_t i = 0;
	while (i < len && blank(l[i]))
		i++;
	if (len - i > 7 && !strncmp(l + i, "export", 6) && blank(l[i + 6]))
		for (i += 6; i < len && blank(l[i]);)
			i++;
	return len - i >= 16 && !strncmp(l + i, "IRQBALANCE_ARGS=", 16);
}

struct lines {
	const char *s[4096];
	size_t len[4096], n;
};

/* text's lines without the last assignment and the mark line above it, and
 * without the empty lines that end it; false when too many. */
static bool user_lines(const char *text, struct lines *out)
{
	struct lines all = { .n = 0 };
	size_t last = SIZE_MAX;
	for (const char *p = text; *p;) {
		const char *e = strchrnul(p, '\n');
		if (all.n == 4096)
			return false;
		all.s[all.n] = p;
		all.len[all.n] = (size_t)(e - p);
		if (assignment(p, all.len[all.n]))
			last = all.n;
		all.n++;
		p = *e ? e + 1 : e;
	}
	size_t mark = SIZE_MAX, mlen = strlen(NP_IRQBALANCE_MARK);
	if (last != SIZE_MAX && last > 0 && all.len[last - 1] >= mlen && !strncmp(all.s[last - 1], NP_IRQBALANCE_MARK, mlen))
		mark = last - 1;
	out->n = 0;
	for (size_t i = 0; i < all.n; i++) {
		if (i == last || i == mark)
			continue;
		out->s[out->n] = all.s[i];
		out->len[out->n++] = all.len[i];
	}
	while (out->n && !out->len[out->n - 1])
		out->n--;
	return true;
}

static void same_user_lines(const char *a, const char *b)
{
	static struct lines la, lb;
	if (!user_lines(a, &la) || !user_lines(b, &lb))
		return;
	if (la.n != lb.n)
		abort();
	for (size_t i = 0; i < la.n; i++)
		if (la.len[i] != lb.len[i] || memcmp(la.s[i], lb.s[i], la.len[i]))
			abort();
}

/* What apply journals for the edit, a revert must accept. */
static void journal_accepts(const char *old, const char *new)
{
	struct np_ctx ctx = { .root = "", .rootfd = -1 };
	cJSON *j = cJSON_CreateObject(), *changes = cJSON_AddArrayToObject(j, "changes");
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "id", "1");
	cJSON_AddStringToObject(j, "profile", "p");
	cJSON_AddStringToObject(j, "boot_id", "b");
	cJSON_AddNumberToObject(j, "time", 1);
	cJSON_AddStringToObject(j, "state", "applied");
	cJSON_AddItemToArray(changes, c);
	cJSON_AddStringToObject(c, "path", "/etc/default/irqbalance");
	cJSON_AddStringToObject(c, "attr", "irqbalance_config");
	cJSON_AddStringToObject(c, "subject", "irqbalance");
	cJSON_AddStringToObject(c, "old", old);
	cJSON_AddStringToObject(c, "new", new);
	char *text = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	struct np_txn t;
	if (!text)
		abort();
	if (np_txn_parse(&ctx, "1.json", "1", text, strlen(text), &t, NULL)) {
		fprintf(stderr, "journal refused: %s\n", ctx.err);
		abort();
	}
	np_txn_free(&t);
	free(text);
}

/* The revert's edit of current gives want; state as expected. */
static void unban_gives(const char *current, const char *old, const char *new, enum np_ban_state expect,
			const char *want)
{
	struct np_ctx ctx = { .root = "", .rootfd = -1 };
	enum np_ban_state state;
	char *out;
	if (np_irqbalance_unban_text(&ctx, current, old, new, &state, &out) || state != expect)
		abort();
	if (want ? !out || strcmp(out, want) : out != NULL)
		abort();
	free(out);
}

static char *concat(const char *a, const char *b)
{
	char *s;
	if (asprintf(&s, "%s%s", a, b) < 0)
		abort();
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct np_ctx ctx = { .root = "", .rootfd = -1 };
	int irqs[MAX_IRQS] = { 1, 34, 35 }, *added, *added2;
	size_t n = 3, nadded, nadded2;
	char *text = malloc(size + 1), *banned, *twice;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	size_t tlen = strlen(text);
	if (tlen < size) {
		const uint8_t *p = data + tlen + 1, *end = data + size;
		for (n = 0; n < MAX_IRQS && end - p >= 2; p += 2)
			irqs[n++] = p[0] | p[1] << 8;
	}

	int rc = np_irqbalance_ban_text(&ctx, text, "IRQBALANCE_ARGS", irqs, n, &banned, &added, &nadded);
	if (rc) {
		if ((rc != -EINVAL && rc != -ENOMEM) || !ctx.err[0] || banned || added || nadded)
			abort();
		free(text);
		return 0;
	}
	if (!banned) {
		if (added || nadded)
			abort();
		free(text);
		return 0;
	}
	for (size_t i = 0; i < nadded; i++) {
		bool asked = false;
		for (size_t k = 0; k < n; k++)
			asked |= irqs[k] == added[i];
		if (!asked || (i && added[i - 1] >= added[i]))
			abort();
	}
	/* Twice: nothing more to ban. */
	if (np_irqbalance_ban_text(&ctx, banned, "IRQBALANCE_ARGS", irqs, n, &twice, &added2, &nadded2) || twice || nadded2)
		abort();
	same_user_lines(text, banned);
	journal_accepts(text, banned);

	/* The revert: back to the text before, byte for byte; a line added
	 * since (at the top, and at the end) stays. */
	unban_gives(banned, text, banned, NP_BANS_NEW, text);
	unban_gives(text, text, banned, NP_BANS_OLD, NULL);
	char *edited = concat("X=1\n", banned), *want = concat("X=1\n", text);
	unban_gives(edited, text, banned, NP_BANS_NEW, want);
	free(edited);
	free(want);
	size_t blen = strlen(banned);
	if (blen && banned[blen - 1] == '\n' && (!tlen || text[tlen - 1] == '\n')) {
		edited = concat(banned, "Y=2\n");
		want = concat(text, "Y=2\n");
		unban_gives(edited, text, banned, NP_BANS_NEW, want);
		free(edited);
		free(want);
	}
	free(banned);
	free(added);
	free(text);
	return 0;
}
