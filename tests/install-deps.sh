#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the Debian packages named as arguments that are not installed yet.
# Needs root and apt-get; elsewhere it names what is missing and lets the
# build fail on its own if something really is.
missing=
for pkg in "$@"; do
	dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null && exit 0
	echo "apt-get failed to install:$missing" >&2
	exit 1
fi
echo "warning: missing packages:$missing (install them, or run as root to let make do it)" >&2
exit 0
