/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU lists and masks: whatever parses formats to text that parses again to
 * the same set, and formatting that is stable. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpuset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *text, bool mask)
{
	struct np_cpuset a = NP_CPUSET_INIT, b = NP_CPUSET_INIT;
	int rc = mask ? np_cpuset_parse_mask(&a, text) : np_cpuset_parse_list(&a, text);
	if (rc == 0) {
		char *f = np_cpuset_format_list(&a);
		if (!f || np_cpuset_parse_list(&b, f) || !np_cpuset_equal(&a, &b))
			abort();
		char *g = np_cpuset_format_list(&b);
		if (!g || strcmp(f, g))
			abort();
		free(f);
		free(g);
	}
	np_cpuset_free(&a);
	np_cpuset_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	check(text, false);
	check(text, true);
	free(text);
	return 0;
}
