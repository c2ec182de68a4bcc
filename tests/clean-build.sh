#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the Debian package in a fresh root that holds only the buildd set
# (build-essential) and what debian/control's Build-Depends name, so a
# library the build links or a header it includes that is not listed there
# fails the build here instead of being found on a developer's machine.
# mmdebstrap makes the root from the mirror apt already uses on this machine
# (its sources), installs the Build-Depends with apt-get build-dep, builds
# the committed tree (git archive HEAD) and then checks that the package's
# dependencies name libsmartcols and ncurses (they come from the build).
#
#   tests/clean-build.sh [PROFILE [REF]]
# PROFILE "nocheck" (the default) builds without the test tools; "check"
# installs them too and runs make check inside the root (much longer). REF is
# the commit to build (default HEAD).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
profile=${1:-nocheck}
ref=${2:-HEAD}
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
out=$top/build/clean-build
command -v mmdebstrap >/dev/null || { echo "mmdebstrap is not installed (apt-get install mmdebstrap)" >&2; exit 1; }
sources=
for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list; do
	[ -s "$f" ] && sources="$sources $f"
done
[ -n "$sources" ] || { echo "no apt sources on this machine to build from" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
git -C "$top" archive --prefix=numaplace/ -o "$out/src.tar" "$ref"
case $profile in
nocheck) opts="-Pnocheck" env="DEB_BUILD_OPTIONS=nocheck DEB_BUILD_PROFILES=nocheck" ;;
check) opts="" env="" ;;
*) echo "unknown profile '$profile' (nocheck or check)" >&2; exit 2 ;;
esac
echo "building numaplace $ref ($profile) in a fresh $suite root from:$sources"
# shellcheck disable=SC2086
mmdebstrap --variant=buildd --quiet \
	--customize-hook="copy-in '$out/src.tar' /tmp" \
	--customize-hook='chroot "$1" tar -C /tmp -xf /tmp/src.tar' \
	--customize-hook="chroot \"\$1\" sh -c 'cd /tmp/numaplace && apt-get build-dep -y -q $opts ./ >/tmp/build-dep.log'" \
	--customize-hook="chroot \"\$1\" sh -c 'cd /tmp/numaplace && $env dpkg-buildpackage -b -us -uc $opts' >'$out/build.log' 2>&1" \
	--customize-hook="sync-out /tmp '$out/root-tmp'" \
	"$suite" /dev/null $sources
deb=$(ls "$out"/root-tmp/numaplace_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
echo "built $(basename "$deb"); Depends: $depends"
for lib in libsmartcols1 libncursesw6 libcjson1 libpci3 libnuma1; do
	case $depends in
	*"$lib"*) ;;
	*) echo "the package does not depend on $lib: a library the build did not link" >&2; exit 1 ;;
	esac
done
echo "clean build passed"
