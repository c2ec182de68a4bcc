#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds what make check-vm boots: Debian's kernel (downloaded as a package,
# unpacked, never installed) and an initramfs holding busybox, the modules the
# layouts' devices need, this tree's numaplace with its shared libraries, the
# tools the guest tests use, and the guest's init and tests.
#
#   tests/vm/image.sh OUTDIR
# writes OUTDIR/vmlinuz, OUTDIR/initrd.cpio.gz and OUTDIR/kernel-version.
# The kernel package is kept in OUTDIR/deb/ (one download per version).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1
mkdir -p "$OUT/deb"

# The kernel linux-image-amd64 depends on today (linux-image-6.1.0-N-amd64).
# apt-cache knows the package once apt-get update ran (a fresh machine: not yet).
latest_kernel() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }'; }
kpkg=$(latest_kernel)
[ -n "$kpkg" ] || [ "$(id -u)" != 0 ] || { apt-get -o DPkg::Lock::Timeout=600 update -qq && kpkg=$(latest_kernel); }
[ -n "$kpkg" ] || { echo "vm: apt-cache knows no linux-image-amd64 (run apt-get update)" >&2; exit 1; }
kver=${kpkg#linux-image-}
deb=$(ls "$OUT"/deb/"${kpkg}"_*.deb 2>/dev/null | head -n 1 || true)
if [ -z "$deb" ]; then
	rm -f "$OUT"/deb/*.deb
	(cd "$OUT/deb" && apt-get download -q "$kpkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) || true
	deb=$(ls "$OUT"/deb/"${kpkg}"_*.deb 2>/dev/null | head -n 1 || true)
	[ -n "$deb" ] || { echo "vm: apt-get download $kpkg failed" >&2; exit 1; }
fi
KDIR=$OUT/kernel
if [ ! -e "$KDIR/.$kver" ]; then
	rm -rf "$KDIR" && mkdir -p "$KDIR"
	dpkg-deb -x "$deb" "$KDIR"
	touch "$KDIR/.$kver"
fi
cp "$KDIR/boot/vmlinuz-$kver" "$OUT/vmlinuz"
echo "$kver" >"$OUT/kernel-version"
MODDIR=$KDIR/lib/modules/$kver

ROOT=$OUT/root
rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,etc,proc,sys,dev,tmp,run,var/lib,mnt,lib/modules,usr/share/misc,vm}

# busybox: the shell, mount, insmod, ip, ping, dd and the rest.
cp /bin/busybox "$ROOT/bin/busybox"
for app in $("$ROOT/bin/busybox" --list); do
	[ -e "$ROOT/bin/$app" ] || ln -s busybox "$ROOT/bin/$app"
done

# copy_libs BIN: the shared libraries ldd names for BIN, at the same paths
# (the dynamic loader too), so that it runs in the guest as on the host.
copy_libs() {
	local lib
	for lib in $(ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		[ -e "$ROOT$lib" ] && continue
		mkdir -p "$ROOT$(dirname "$lib")"
		cp -L "$lib" "$ROOT$lib"
	done
}
# copy_bin PATH...: host binaries at their own paths, with their libraries.
copy_bin() {
	local f
	for f in "$@"; do
		mkdir -p "$ROOT$(dirname "$f")"
		cp -L "$f" "$ROOT$f"
		copy_libs "$f"
	done
}
# The guest tests are bash, as the host's; jq reads numaplace's JSON;
# ethtool sets channels.
copy_bin /bin/bash "$(command -v jq)" "$(command -v ethtool)"
cp "$TOP/numaplace" "$ROOT/sbin/numaplace"
copy_libs "$TOP/numaplace"
# The same with the crash tests' fault hook (make build/numaplace-fault).
cp "$TOP/build/numaplace-fault" "$ROOT/vm/numaplace-fault"
cp /usr/share/misc/pci.ids "$ROOT/usr/share/misc/pci.ids"
mkdir -p "$ROOT/usr/local/share/numaplace"
cp -r "$TOP/profiles" "$ROOT/usr/local/share/numaplace/"
# The test process move --memory moves, and the tests' hwloc reading of the
# topology (tests/hwloc-agree.c, as make check uses it on fixture roots).
cc -O2 -Wall -o "$ROOT/vm/pages" "$TOP/tests/vm/guest/pages.c"
# shellcheck disable=SC2046
cc -O2 -Wall $(pkg-config --cflags hwloc libcjson) -o "$ROOT/vm/hwloc-agree" "$TOP/tests/hwloc-agree.c" \
	$(pkg-config --libs hwloc libcjson)
copy_libs "$ROOT/vm/hwloc-agree"

# Modules: the devices' drivers and what they depend on (modinfo's
# "depends", followed), loaded by init in that order.
: >"$ROOT/lib/modules/order"
declare -A seen=()
add_module() {
	local name=$1 f dep
	name=${name//-/_}
	[ -n "${seen[$name]:-}" ] && return 0
	seen[$name]=1
	f=$(find "$MODDIR/kernel" -name "$name.ko*" -o -name "${name//_/-}.ko*" | head -n 1)
	[ -n "$f" ] || return 0 # built in
	for dep in $(modinfo -F depends "$f" | tr , ' '); do
		add_module "$dep"
	done
	cp "$f" "$ROOT/lib/modules/"
	echo "${f##*/}" >>"$ROOT/lib/modules/order"
}
# crc-t10dif and crc64-rocksoft ask the crypto API for their algorithm (a
# softdep on an alias, "pre: crct10dif"): these generic modules provide it,
# and nothing in the guest would load them on demand.
for m in virtio_pci virtio_net e1000e crct10dif_generic crc64_rocksoft_generic nvme; do
	add_module "$m"
done

cp "$TOP/tests/vm/guest/init" "$ROOT/init"
cp "$TOP/tests/vm/guest/"*.sh "$TOP/tests/vm/report-stable.jq" "$ROOT/vm/"
chmod 0755 "$ROOT/init"
(cd "$ROOT" && find . | cpio -o -H newc --quiet) | gzip -1 >"$OUT/initrd.cpio.gz"
