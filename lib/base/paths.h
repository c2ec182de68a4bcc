/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where numaplace's own files are, as configured when it is built: the
 * Makefile passes -DNUMAPLACE_DATADIR and -DNUMAPLACE_CONFDIR from PREFIX,
 * DATADIR and SYSCONFDIR, and writes the same paths into the man pages and
 * the systemd unit. The defaults are the Makefile's. */
#ifndef NUMAPLACE_PATHS_H
#define NUMAPLACE_PATHS_H

/* The shipped profiles are in NUMAPLACE_DATADIR/profiles. The environment
 * variable of the same name stands for it, so that an installed tree that
 * is not at its place (DESTDIR, an unpacked package) finds its own. */
#ifndef NUMAPLACE_DATADIR
#define NUMAPLACE_DATADIR "/usr/local/share/numaplace"
#endif
#define NP_DATADIR_ENV "NUMAPLACE_DATADIR"
/* The machine's numaplace configuration (boot profile, local profiles); a
 * machine path, under --root like /sys and /proc for the boot profile. */
#ifndef NUMAPLACE_CONFDIR
#define NUMAPLACE_CONFDIR "/etc/numaplace"
#endif

#endif
