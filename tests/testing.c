/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Linked into test binaries only (the sanitizer build of numaplace, the
 * unit tests): the hooks a release binary must not have. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

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

/* NUMAPLACE_FAULT_SIGNAL=TERM (or INT, HUP, KILL, or a number): the fault
 * raises that signal instead of ending the process. */
int np_txn_fault_signal(void)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = { { "TERM", SIGTERM }, { "INT", SIGINT }, { "HUP", SIGHUP }, { "KILL", SIGKILL } };
	const char *s = getenv(NP_FAULT_SIGNAL_ENV);
	if (!s || !*s)
		return 0;
	if (!strncmp(s, "SIG", 3))
		s += 3;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].sig;
	char *end;
	long n = strtol(s, &end, 10);
	return *end || n <= 0 || n >= NSIG ? 0 : (int)n;
}
