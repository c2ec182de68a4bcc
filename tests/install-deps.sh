#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the Debian packages named as arguments that are not installed yet,
# naming them first. Needs root and apt-get; elsewhere it names what is
# missing and lets the build fail on its own if something really is.
missing=
for pkg in "$@"; do
	dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
# Another apt or dpkg (unattended-upgrades, a second make) may hold the dpkg
# lock: wait for it, as apt's DPkg::Lock::Timeout does, instead of failing
# with "Could not get lock".
LOCK_WAIT=${LOCK_WAIT:-600}
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "installing with apt-get (waiting up to ${LOCK_WAIT}s for the dpkg lock):$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout="$LOCK_WAIT" update -qq &&
		apt-get -o DPkg::Lock::Timeout="$LOCK_WAIT" install -y -qq --no-install-recommends $missing >/dev/null &&
		exit 0
	echo "apt-get failed to install:$missing" >&2
	exit 1
fi
echo "warning: missing packages:$missing (install them, or run as root to let make do it)" >&2
exit 0
