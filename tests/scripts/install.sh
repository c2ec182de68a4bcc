# SPDX-License-Identifier: GPL-2.0-or-later
# make install into a DESTDIR: every file where it belongs with sane modes,
# a binary that runs, a unit that starts it, and make uninstall undoing it.
# The paths are those make check was run with (PREFIX=/usr/local unless it
# was given others, as a Debian build does): the install rebuilds nothing.

install_into() {
	DEST=$WORK/destdir
	rm -rf "$DEST"
	eval "$(make -s -C "$TOP" --no-print-directory paths)"
	[ -n "$BINDIR" ] && [ -n "$DATADIR" ] || die "make paths printed no paths"
	make -C "$TOP" --no-print-directory install DESTDIR="$DEST" >"$WORK/install.log" 2>&1 ||
		die "make install failed: $(tail -n 5 "$WORK/install.log")"
}

# Checks a file's type and mode; with a source, its content too.
installed() {
	local file=$DEST$1 mode=$2 src=${3:-}
	[ -f "$file" ] && [ ! -L "$file" ] || die "$1 is not installed"
	expect_eq "$mode" "$(stat -c %a "$file")" "mode of $1"
	[ -z "$src" ] || cmp -s "$src" "$file" || die "$1 differs from $src"
}

test_install_into_destdir() {
	install_into
	local f page
	installed "$BINDIR/numaplace" 755
	for f in "$TOP"/man/*.in; do
		f=${f##*/} f=${f%.in} page=$MANDIR/man${f##*.}/$f
		installed "$page" 644 "$TOP/build/man/$f"
		! grep -q '@[A-Z]*@' "$DEST$page" || die "a placeholder is left in $page"
		grep -qF "$DATADIR/profiles" "$DEST$page" || die "$page does not name $DATADIR/profiles"
	done
	installed "$BASHCOMPDIR/numaplace" 644 "$TOP/completions/numaplace.bash"
	installed "$ZSHCOMPDIR/_numaplace" 644 "$TOP/completions/_numaplace"
	installed "$FISHCOMPDIR/numaplace.fish" 644 "$TOP/completions/numaplace.fish"
	for f in "$TOP"/profiles/*.json; do
		installed "$DATADIR/profiles/${f##*/}" 644 "$f"
	done
	installed "$SYSTEMDUNITDIR/numaplace.service" 644
	installed "$SYSTEMDUNITDIR/numaplace-hold.service" 644
	# Nothing group- or world-writable, no directory others may write to.
	[ -z "$(find "$DEST" -perm /022)" ] || die "writable by others: $(find "$DEST" -perm /022)"

	expect_eq "numaplace 0.1" "$("$DEST$BINDIR/numaplace" --version)" "the installed binary's --version"
	local unit=$DEST$SYSTEMDUNITDIR/numaplace.service
	! grep -q '@[A-Z]*@' "$unit" || die "a placeholder is left in the unit"
	expect_eq "ExecStart=$BINDIR/numaplace apply --boot" "$(grep '^ExecStart=' "$unit")" "the unit's ExecStart"
	grep -qx 'Type=oneshot' "$unit" || die "the unit is not oneshot"
	grep -qx "ConditionPathExists=$SYSCONFDIR/numaplace/boot.json" "$unit" || die "the unit has no boot.json condition"
	unit=$DEST$SYSTEMDUNITDIR/numaplace-hold.service
	! grep -q '@[A-Z]*@' "$unit" || die "a placeholder is left in the hold unit"
	expect_eq "ExecStart=$BINDIR/numaplace hold --boot" "$(grep '^ExecStart=' "$unit")" "the hold unit's ExecStart"
	grep -qx "ConditionPathExists=$SYSCONFDIR/numaplace/boot.json" "$unit" || die "the hold unit has no boot.json condition"
	grep -qx 'Type=simple' "$unit" || die "the hold unit is not Type=simple"
	grep -qx 'Restart=on-failure' "$unit" || die "the hold unit does not restart on failure"

	# The profile directory is compiled in: it must be where they landed.
	binary_names_path "$DEST$BINDIR/numaplace" "$DATADIR" || die "the binary does not look in $DATADIR"
	# NUMAPLACE_DATADIR stands for it, to run the tree where it is.
	local listed
	listed=$(NUMAPLACE_DATADIR="$DEST$DATADIR" "$DEST$BINDIR/numaplace" profile list)
	for f in "$TOP"/profiles/*.json; do
		f=${f##*/}
		grep -qE "^${f%.json} .* $DEST$DATADIR/profiles/$f\$" <<<"$listed" ||
			die "profile list lacks the installed ${f%.json}: $listed"
	done

	make -C "$TOP" --no-print-directory uninstall DESTDIR="$DEST" >>"$WORK/install.log" 2>&1 ||
		die "make uninstall failed: $(tail -n 5 "$WORK/install.log")"
	expect_eq "" "$(find "$DEST" -type f)" "files left after uninstall"
}

test_unit_verifies() {
	command -v systemd-analyze >/dev/null || skip_test "no systemd-analyze here"
	install_into
	# ExecStart must name an executable that exists: point it at the DESTDIR copy.
	local name unit out
	mkdir -p "$WORK/unit"
	for name in numaplace.service numaplace-hold.service; do
		unit=$WORK/unit/$name
		sed "s|^ExecStart=|ExecStart=$DEST|" "$DEST$SYSTEMDUNITDIR/$name" >"$unit"
		out=$(systemd-analyze verify --man=no "$unit" 2>&1) || die "systemd-analyze verify $name: $out"
		# Unknown keys are only warned about: any word from it is a fault.
		expect_eq "" "$out" "systemd-analyze verify $name"
	done
}
