/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stopping a write on a terminating signal. SIGTERM (a pod deleted,
 * 'systemctl stop'), SIGINT (Ctrl-C) and SIGHUP (an ssh session gone) must
 * never end a process between a transaction's first write and its journal's
 * outcome: that leaves the transaction pending, and every later apply
 * refused. A command blocks them (np_stop_hold) before it writes and hands
 * s.stops to the transaction (np_txn_opts.stop); the transaction looks
 * between its writes whether one is pending and, when one is, writes no
 * more: what it wrote is undone, its journal says rolled back, and it
 * returns -EINTR naming the signal. The command then says what it has to
 * and lets the signal act (np_stop_release): its default action ends the
 * process, as it would have a moment earlier, with the status a shell
 * expects. Used by apply, revert, hold and trial:
 *
 *	struct np_stop stop;
 *	np_stop_hold(&stop, NULL);
 *	opts.stop = &stop.stops;
 *	rc = np_pipeline_write(ctx, &p, &opts, name, NP_PIPELINE_ALL);
 *	... report rc (-EINTR: stopped, nothing changed) ...
 *	np_stop_release(&stop);
 */
#ifndef NUMAPLACE_STOP_H
#define NUMAPLACE_STOP_H

#include <signal.h>

struct np_stop {
	sigset_t stops; /* the blocked signals that stop a transaction once pending */
	sigset_t saved; /* the signal mask before np_stop_hold */
};

/* Blocks the signals of blocked (NULL: SIGTERM, SIGINT and SIGHUP, but for
 * those the process ignores) and makes them s->stops. A caller that handles one its own way (hold: SIGHUP
 * reloads the profile) deletes it from s->stops: a transaction then
 * finishes, and the signal waits, pending, for the caller to read it
 * (signalfd). 0 or -errno. */
int np_stop_hold(struct np_stop *s, const sigset_t *blocked);
/* The lowest signal of stops that is pending, else 0. */
int np_stop_pending(const sigset_t *stops);
/* "SIGTERM", for messages: the name a user passes to kill. */
const char *np_stop_name(int sig);
/* Restores the mask from before np_stop_hold: a pending signal acts now. */
void np_stop_release(const struct np_stop *s);

#endif
