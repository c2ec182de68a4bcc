/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Journals: one that parses formats to text that parses again to the same
 * text (the same changes, state and error); one that fails is refused with
 * a reason and leaves nothing behind. The id is fixed: a journal's id must
 * be its file's name. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "change/txn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ID "20261130-031500-1234"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct np_ctx ctx = { .root = "", .rootfd = -1 };
	struct np_txn t, u;
	char *error = NULL, *error2 = NULL;

	int rc = np_txn_parse(&ctx, ID ".json", ID, (const char *)data, size, &t, &error);
	if (rc) {
		if ((rc != -EINVAL && rc != -ENOMEM) || !ctx.err[0] || error || t.id || t.changes || t.nchanges)
			abort();
		return 0;
	}
	if (t.state == NP_TXN_UNREADABLE || !t.id || strcmp(t.id, ID))
		abort();
	for (size_t i = 0; i < t.nchanges; i++)
		if (np_attr_match(t.changes[i].path, NULL) != (int)t.changes[i].attr)
			abort();
	char *text = np_txn_format(&t, error);
	if (!text)
		abort();
	if (np_txn_parse(&ctx, ID ".json", ID, text, strlen(text), &u, &error2))
		abort();
	char *again = np_txn_format(&u, error2);
	if (!again || strcmp(text, again))
		abort();
	/* An empty error is no error: the journal leaves it out. */
	if (u.nchanges != t.nchanges || u.state != t.state || (error && *error) != (error2 != NULL))
		abort();
	free(text);
	free(again);
	free(error);
	free(error2);
	np_txn_free(&t);
	np_txn_free(&u);
	return 0;
}
