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
	installed $p/sbin/numaplace 755
	for f in "$TOP"/man/*.in; do
		f=${f##*/} f=${f%.in}
		installed $p/share/man/man"${f##*.}"/"$f" 644 "$TOP/build/man/$f"
		! grep -q '@[A-Z]*@' "$DEST$p/share/man/man${f##*.}/$f" || die "a placeholder is left in $f"
		grep -qF "$p/share/numaplace/profiles" "$DEST$p/share/man/man${f##*.}/$f" ||
			die "$f does not name $p/share/numaplace/profiles"
	done
	installed $p/share/bash-completion/completions/numaplace 644 "$TOP/completions/numaplace.bash"
	installed $p/share/zsh/site-functions/_numaplace 644 "$TOP/completions/_numaplace"
	installed $p/share/fish/vendor_completions.d/numaplace.fish 644 "$TOP/completions/numaplace.fish"
	for f in "$TOP"/profiles/*.json; do
		installed $p/share/numaplace/profiles/"${f##*/}" 644 "$f"
	done
	installed $p/lib/systemd/system/numaplace.service 644
	# Nothing group- or world-writable, no directory others may write to.
	[ -z "$(find "$DEST" -perm /022)" ] || die "writable by others: $(find "$DEST" -perm /022)"

	expect_eq "numaplace 0.1" "$("$DEST$p/sbin/numaplace" --version)" "the installed binary's --version"
	local unit=$DEST$p/lib/systemd/system/numaplace.service
	! grep -q @BINDIR@ "$unit" || die "@BINDIR@ left in the unit"
	expect_eq "ExecStart=$p/sbin/numaplace apply --boot" "$(grep '^ExecStart=' "$unit")" "the unit's ExecStart"
	grep -qx 'Type=oneshot' "$unit" || die "the unit is not oneshot"
	grep -qx 'ConditionPathExists=/etc/numaplace/boot.json' "$unit" || die "the unit has no boot.json condition"

	# The profile directory is compiled in: it must be where they landed.
	grep -qaF "$p/share/numaplace" "$DEST$p/sbin/numaplace" || die "the binary does not look in $p/share/numaplace"
	local listed
	# NUMAPLACE_DATADIR stands for it, to run the tree where it is.
	listed=$(NUMAPLACE_DATADIR="$DEST$p/share/numaplace" "$DEST$p/sbin/numaplace" profile list)
	for f in "$TOP"/profiles/*.json; do
		f=${f##*/}
		grep -qE "^${f%.json} .* $DEST$p/share/numaplace/profiles/$f\$" <<<"$listed" ||
			die "profile list lacks the installed ${f%.json}: $listed"
	done

	make -C "$TOP" --no-print-directory uninstall PREFIX=$INSTALL_PREFIX DESTDIR="$DEST" >>"$WORK/install.log" 2>&1 ||
		die "make uninstall failed: $(tail -n 5 "$WORK/install.log")"
	expect_eq "" "$(find "$DEST" -type f)" "files left after uninstall"
}

test_unit_verifies() {
	command -v systemd-analyze >/dev/null || skip_test "no systemd-analyze here"
	install_into
	# ExecStart must name an executable that exists: point it at the DESTDIR copy.
	local unit=$WORK/unit/numaplace.service out
	mkdir -p "$WORK/unit"
	sed "s|^ExecStart=$INSTALL_PREFIX|ExecStart=$DEST$INSTALL_PREFIX|" \
		"$DEST$INSTALL_PREFIX/lib/systemd/system/numaplace.service" >"$unit"
	out=$(systemd-analyze verify --man=no "$unit" 2>&1) || die "systemd-analyze verify: $out"
	# Unknown keys are only warned about: any word from it is a fault.
	expect_eq "" "$out" "systemd-analyze verify"
}
