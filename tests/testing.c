/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Linked into test binaries only (the sanitizer build of numaplace, the
 * unit tests): the hooks a release binary must not have. */
#include <stdlib.h>

#include "change/txn.h"

/* The crash tests' fault: NUMAPLACE_FAULT_AFTER_WRITES=K ends the process
 * right after the K-th write of a transaction. */
long np_txn_fault_after(void)
{
	const char *s = getenv(NP_FAULT_ENV);
	char *end;
	if (!s || !*s)
		return 0;
	long k = strtol(s, &end, 10);
	return *end || k <= 0 ? 0 : k;
}
