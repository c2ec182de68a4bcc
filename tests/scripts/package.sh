# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package (make check-package only: tests named *package*). It is
# built once per run from a copy of this tree (so the tree gets no debhelper
# files), without its tests (make check runs them; CI runs it first), then
# checked with lintian, listed and unpacked.

PKG=$WORK/package

# Builds the package once per run; sets DEB to the .deb.
build_package() {
	if [ ! -e "$PKG/built" ]; then
		rm -rf "$PKG" && mkdir -p "$PKG/numaplace"
		tar -C "$TOP" --exclude=./build --exclude=./numaplace --exclude=./.git -cf - . |
			tar -C "$PKG/numaplace" -xf - || die "cannot copy the tree"
		(cd "$PKG/numaplace" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) \
			>"$PKG/build.log" 2>&1 || die "dpkg-buildpackage failed: $(tail -n 20 "$PKG/build.log")"
		touch "$PKG/built"
	fi
	DEB=$(ls "$PKG"/numaplace_*.deb 2>/dev/null | head -n 1)
	[ -n "$DEB" ] || die "no .deb in $PKG"
}

# Unpacks the package once per run into $PKG/root.
unpack_package() {
	build_package
	if [ ! -e "$PKG/root/.unpacked" ]; then
		rm -rf "$PKG/root" && dpkg -x "$DEB" "$PKG/root" && touch "$PKG/root/.unpacked" ||
			die "dpkg -x $DEB failed"
	fi
	ROOT=$PKG/root
}

test_package_builds_and_lintian_finds_no_errors() {
	build_package
	local out
	out=$(lintian "$PKG"/numaplace_*.changes 2>&1) || true
	echo "$out"
	! grep -q '^E:' <<<"$out" || die "lintian errors: $(grep '^E:' <<<"$out")"
}

test_package_contents() {
	build_package
	local list f
	list=$(dpkg -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|')
	echo "$list"
	for f in "$TOP"/profiles/*.json; do
		grep -qx "/usr/share/numaplace/profiles/${f##*/}" <<<"$list" || die "the package lacks profile ${f##*/}"
	done
	for f in /usr/sbin/numaplace /usr/share/man/man8/numaplace.8.gz /usr/share/man/man5/numaplace-profile.5.gz \
		/lib/systemd/system/numaplace.service /usr/share/bash-completion/completions/numaplace \
		/usr/share/zsh/vendor-completions/_numaplace /usr/share/fish/vendor_completions.d/numaplace.fish \
		/usr/share/doc/numaplace/copyright; do
		grep -qx "$f" <<<"$list" || die "the package lacks $f"
	done
	# The profiles are not configuration: nothing under /etc, no conffiles.
	! grep -q '^/etc/' <<<"$list" || die "the package installs under /etc: $(grep '^/etc/' <<<"$list")"
	[ -z "$(dpkg-deb -f "$DEB" Conffiles)" ] || die "the package has conffiles"
}

test_package_binary_is_built_for_usr_and_hardened() {
	unpack_package
	local bin=$ROOT/usr/sbin/numaplace page
	# Search paths the binary looks through wherever it is installed (systemd's
	# unit directories for irqbalance's unit, the default PATH for trial's
	# command) are not where it was built for.
	local built_for
	built_for=$(strings "$bin" | grep /usr/local |
		grep -vx -e '/usr/local/lib/systemd/system' -e '/usr/local/bin:/usr/bin:/bin') || true
	[ -z "$built_for" ] || die "the binary names /usr/local: $built_for"
	binary_names_path "$bin" /usr/share/numaplace || die "the binary does not name /usr/share/numaplace"
	readelf -d "$bin" | grep -q 'BIND_NOW' || die "the binary has no BIND_NOW"
	readelf -h "$bin" | grep -q 'DYN' || die "the binary is not PIE"
	for page in "$ROOT"/usr/share/man/man*/*.gz; do
		! zcat "$page" | grep -q /usr/local || die "${page#"$ROOT"} names /usr/local"
		zcat "$page" | grep -q /usr/share/numaplace/profiles || die "${page#"$ROOT"} does not name the profiles"
	done
	grep -qx 'ExecStart=/usr/sbin/numaplace apply --boot' "$ROOT/lib/systemd/system/numaplace.service" ||
		die "the unit does not run /usr/sbin/numaplace"
}

test_package_binary_finds_its_profiles() {
	unpack_package
	local bin=$ROOT/usr/sbin/numaplace listed f
	# The compiled-in /usr/share/numaplace, redirected to the unpacked tree.
	listed=$(NUMAPLACE_DATADIR=$ROOT/usr/share/numaplace "$bin" profile list) || die "profile list failed: $listed"
	echo "$listed"
	for f in "$TOP"/profiles/*.json; do
		f=${f##*/}
		grep -qE "^${f%.json} .* $ROOT/usr/share/numaplace/profiles/$f\$" <<<"$listed" ||
			die "profile list lacks the packaged ${f%.json}"
	done
	NUMAPLACE_DATADIR=$ROOT/usr/share/numaplace "$bin" profile show network-local >/dev/null ||
		die "profile show network-local failed"
}

test_package_unit_is_not_enabled() {
	build_package
	local ctl=$PKG/control
	rm -rf "$ctl" && dpkg-deb -e "$DEB" "$ctl"
	# dh_installsystemd --no-enable: postinst enables the unit again only
	# where it was installed and enabled before (an upgrade); never starts it.
	[ -f "$ctl/postinst" ] || return 0
	grep -q "deb-systemd-helper debian-installed 'numaplace.service'" "$ctl/postinst" ||
		die "postinst enables the unit on a first install: $(cat "$ctl/postinst")"
	! grep -q 'deb-systemd-invoke' "$ctl/postinst" || die "postinst starts the unit: $(cat "$ctl/postinst")"
}
