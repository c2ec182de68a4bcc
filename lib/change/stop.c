/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "change/stop.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int np_stop_hold(struct np_stop *s, const sigset_t *blocked)
{
	static const int terminating[] = { SIGTERM, SIGINT, SIGHUP };
	if (blocked) {
		s->stops = *blocked;
	} else {
		sigemptyset(&s->stops);
		for (size_t i = 0; i < sizeof(terminating) / sizeof(terminating[0]); i++) {
			struct sigaction sa;
			/* One the process ignores (nohup's SIGHUP, a background
			 * job's SIGINT) must not stop it either: a blocked signal
			 * is kept pending even when ignored. */
			if (sigaction(terminating[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
				continue;
			sigaddset(&s->stops, terminating[i]);
		}
	}
	return sigprocmask(SIG_BLOCK, &s->stops, &s->saved) ? -errno : 0;
}

int np_stop_pending(const sigset_t *stops)
{
	sigset_t pending;
	if (!stops || sigpending(&pending))
		return 0;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(stops, sig) == 1 && sigismember(&pending, sig) == 1)
			return sig;
	return 0;
}

const char *np_stop_name(int sig)
{
	static __thread char other[24];
	const char *abbrev = sigabbrev_np(sig);
	if (!abbrev) {
		snprintf(other, sizeof(other), "signal %d", sig);
		return other;
	}
	snprintf(other, sizeof(other), "SIG%s", abbrev);
	return other;
}

void np_stop_release(const struct np_stop *s)
{
	sigprocmask(SIG_SETMASK, &s->saved, NULL);
}
