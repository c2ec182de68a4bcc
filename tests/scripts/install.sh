# make install into a DESTDIR: every file where it belongs with sane modes,
# a binary that runs, a unit that starts it, and make uninstall undoing it.

INSTALL_PREFIX=/usr/local

install_into() {
	DEST=$WORK/destdir
	rm -rf "$DEST"
	make -C "$TOP" --no-print-directory install PREFIX=$INSTALL_PREFIX DESTDIR="$DEST" >"$WORK/install.log" 2>&1 ||
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
	local p=$INSTALL_PREFIX f
	installed $p/bin/numaplace 755
	for f in "$TOP"/man/*.8; do
		[ -e "$f" ] && installed $p/share/man/man8/"${f##*/}" 644 "$f"
	done
	for f in "$TOP"/man/*.5; do
		[ -e "$f" ] && installed $p/share/man/man5/"${f##*/}" 644 "$f"
	done
	installed $p/share/bash-completion/completions/numaplace 644 "$TOP/completions/numaplace.bash"
	installed $p/share/zsh/site-functions/_numaplace 644 "$TOP/completions/_numaplace"
	installed $p/share/fish/vendor_completions.d/numaplace.fish 644 "$TOP/completions/numaplace.fish"
	for f in "$TOP"/profiles/*.json; do
		installed $p/share/numaplace/profiles/"${f##*/}" 644 "$f"
	done
	installed $p/lib/systemd/system/numaplace.service 644
	installed $p/lib/systemd/system/numaplace-hold.service 644
	# Nothing group- or world-writable, no directory others may write to.
	[ -z "$(find "$DEST" -perm /022)" ] || die "writable by others: $(find "$DEST" -perm /022)"

	expect_eq "numaplace 0.1" "$("$DEST$p/bin/numaplace" --version)" "the installed binary's --version"
	local unit=$DEST$p/lib/systemd/system/numaplace.service
	! grep -q @BINDIR@ "$unit" || die "@BINDIR@ left in the unit"
	expect_eq "ExecStart=$p/bin/numaplace apply --boot" "$(grep '^ExecStart=' "$unit")" "the unit's ExecStart"
	grep -qx 'Type=oneshot' "$unit" || die "the unit is not oneshot"
	grep -qx 'ConditionPathExists=/etc/numaplace/boot.json' "$unit" || die "the unit has no boot.json condition"
	unit=$DEST$p/lib/systemd/system/numaplace-hold.service
	! grep -q @BINDIR@ "$unit" || die "@BINDIR@ left in the hold unit"
	expect_eq "ExecStart=$p/bin/numaplace hold --boot" "$(grep '^ExecStart=' "$unit")" "the hold unit's ExecStart"
	grep -qx 'Type=simple' "$unit" || die "the hold unit is not Type=simple"
	grep -qx 'Restart=on-failure' "$unit" || die "the hold unit does not restart on failure"

	# The profile directory is compiled in: it must be where they landed.
	grep -qaF "$p/share/numaplace" "$DEST$p/bin/numaplace" || die "the binary does not look in $p/share/numaplace"
	local listed
	listed=$("$DEST$p/bin/numaplace" profile list --profile-dir "$DEST$p/share/numaplace/profiles")
	for f in "$TOP"/profiles/*.json; do
		f=${f##*/}
		grep -q "^${f%.json}\b" <<<"$listed" || die "profile list lacks ${f%.json}: $listed"
	done

	make -C "$TOP" --no-print-directory uninstall PREFIX=$INSTALL_PREFIX DESTDIR="$DEST" >>"$WORK/install.log" 2>&1 ||
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
		sed "s|^ExecStart=$INSTALL_PREFIX|ExecStart=$DEST$INSTALL_PREFIX|" \
			"$DEST$INSTALL_PREFIX/lib/systemd/system/$name" >"$unit"
	done
	for name in numaplace.service numaplace-hold.service; do
		out=$(systemd-analyze verify --man=no "$WORK/unit/$name" 2>&1) || die "systemd-analyze verify $name: $out"
		# Unknown keys are only warned about: any word from it is a fault.
		expect_eq "" "$out" "systemd-analyze verify $name"
	done
}
