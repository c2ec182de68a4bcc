/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Profiles: one that parses has a canonical text that parses again, to the
 * same canonical text; one that fails says why and leaks nothing. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "change/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct np_ctx ctx = { .root = "", .rootfd = -1 };
	struct np_profile p, q;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	int rc = np_profile_parse(&ctx, "fuzz.json", text, &p);
	free(text);
	if (rc) {
		if (rc != -EINVAL && rc != -ENOMEM)
			abort();
		if (!ctx.err[0])
			abort();
		return 0;
	}
	char *canon = np_profile_to_text(&p);
	if (!canon)
		abort();
	if (np_profile_parse(&ctx, "canonical.json", canon, &q))
		abort();
	char *again = np_profile_to_text(&q);
	if (!again || strcmp(canon, again))
		abort();
	if (p.nsettings != q.nsettings || p.nrules != q.nrules)
		abort();
	free(canon);
	free(again);
	np_profile_free(&p);
	np_profile_free(&q);
	return 0;
}
