# SPDX-License-Identifier: GPL-2.0-or-later
# The output layer as a user meets it: tables that fit a terminal, one meaning
# per option letter (-o COLUMNS, -J, --sort), no escapes where a terminal
# cannot take them.

# Runs numaplace in a pseudo-terminal COLS columns wide (TERM as given, else
# xterm); prints what it showed, CRs gone.
in_pty() {
	local cols=$1
	shift
	command -v script >/dev/null || skip_test "script (util-linux) not installed"
	local cmd="stty cols $cols rows 50; exec"
	for a in "$NUMAPLACE" "$@"; do cmd+=" $(printf '%q' "$a")"; done
	TERM=${TERM_FOR_PTY:-xterm} script -qfec "$cmd" /dev/null </dev/null | tr -d '\r'
}

# The real 112-CPU layout: 268-character lines before, with NAME cut to "i40e".
test_irqs_fit_120_columns_on_112_cpus() {
	local out wide
	out=$(in_pty 120 --root "$FIXTURES/wide112" irqs)
	grep -q '^IRQ' <<<"$out" || die "no table in the pty: $out"
	wide=$(awk 'length > 120' <<<"$out")
	[ -z "$wide" ] || die "lines wider than 120 columns: $wide"
	# Names whole, CPU lists compact: "all", the stride form.
	grep -q ' ice-ens1f0-TxRx-11 ' <<<"$out" || die "queue names cut: $out"
	grep -Eq '^ +30 nvme0q1 +0000:01:00.0 +1 0-26:2 ' <<<"$out" || die "no stride form: $(grep nvme0q1 <<<"$out")"
	grep -Eq '^ +0 timer .* all ' <<<"$out" || die "affinity of every CPU is not 'all'"
	# A pipe gets every character, and JSON the kernel's list form.
	"$NUMAPLACE" --root "$FIXTURES/wide112" irqs 30 -o affinity -n | grep -qx '0-26:2' || die "pipe: no stride form"
	expect_eq '"0,2,4,6,8,10,12,14,16,18,20,22,24,26"' \
		"$("$NUMAPLACE" --root "$FIXTURES/wide112" irqs 30 -J | jq '.irqs[0].affinity')" "JSON keeps the list"
}

# profile list at 80 columns: the description wraps at word boundaries
# rather than being cut to "Everything".
test_profile_list_keeps_description_at_80() {
	local out wide text
	out=$(in_pty 80 profile list)
	wide=$(awk 'length > 80' <<<"$out")
	[ -z "$wide" ] || die "lines wider than 80 columns: $wide"
	# The DESCRIPTION column's text, its lines joined: whole, and no word split.
	text=$(awk 'NR == 1 { at = index($0, "DESCRIPTION"); next }
		{ cell = substr($0, at); sub(/  +[^ ]+ *$/, "", cell); sub(/ +$/, "", cell); printf "%s ", cell }' <<<"$out")
	[[ $text == *"Everything near the application's node; edit \"app\" first (node 0 is a placeholder)."* ]] ||
		die "description not whole, or a word split: $text"
}

test_sort_by_any_column() {
	local out
	out=$("$NUMAPLACE" --root "$FIXTURES/rt-igb80" irqs -s total -o irq,total -n | awk '{ print $2 }' | head -5)
	expect_eq "$(sort -rn <<<"$out")" "$out" "--sort total is largest first"
	out=$("$NUMAPLACE" --root "$FIXTURES/rt-igb80" irqs --sort name -o name -n)
	expect_eq "$(sort -V <<<"$out")" "$out" "--sort name is in version order"
	# JSON rows in the same order as the table's.
	expect_eq "$("$NUMAPLACE" --root "$FIXTURES/rt-igb80" irqs -s total -o irq -n | head -3 | tr -d ' ' | paste -sd,)" \
		"$("$NUMAPLACE" --root "$FIXTURES/rt-igb80" irqs -s total -J | jq -r '[.irqs[:3][].irq] | join(",")')" \
		"JSON sorted as the table"
	local err status=0
	err=$("$NUMAPLACE" --root "$FIXTURES/rt-igb80" irqs -s nosuch 2>&1) || status=$?
	expect_eq 2 "$status" "an unknown sort column is a usage error"
	[[ $err == *"unknown column 'nosuch' for --sort"* ]] || die "unclear error: $err"
	"$NUMAPLACE" history --state-dir "$WORK/no-state" --sort changes >/dev/null || die "history --sort"
}

test_json_letter_is_capital_j() {
	"$NUMAPLACE" --root "$FIXTURES/r715" topo -J | jq -e '.schema == 1' >/dev/null || die "topo -J"
	"$NUMAPLACE" --root "$FIXTURES/r715" irqs -J | jq -e '.irqs | length > 0' >/dev/null || die "irqs -J"
	! "$NUMAPLACE" --root "$FIXTURES/r715" topo -j >/dev/null 2>&1 || die "-j still accepted"
}

# advise writes its plan with --save; -o FILE still works for one release, with a note.
test_advise_save_and_deprecated_o() {
	local err
	rm -f "$WORK/saved.json" "$WORK/old.json"
	"$NUMAPLACE" --root "$FIXTURES/r715" advise --save "$WORK/saved.json" >/dev/null 2>"$WORK/save.err"
	"$NUMAPLACE" profile validate "$WORK/saved.json" >/dev/null || die "--save wrote no valid profile"
	! grep -q deprecated "$WORK/save.err" || die "--save warned: $(cat "$WORK/save.err")"
	err=$("$NUMAPLACE" --root "$FIXTURES/r715" advise -o "$WORK/old.json" 2>&1 >/dev/null)
	[[ $err == *"-o/--output FILE is deprecated"*"--save $WORK/old.json"* ]] || die "no deprecation note: $err"
	cmp -s "$WORK/saved.json" "$WORK/old.json" || die "-o and --save wrote different plans"
}

# TERM=dumb and pipes get no escape sequences, even with --interval's countdown.
test_no_escapes_for_dumb_terminals() {
	local esc=$'\033' out
	out=$(TERM_FOR_PTY=dumb in_pty 120 --root "$FIXTURES/r715" report)
	grep -q '^== Summary' <<<"$out" || die "no report: $out"
	! grep -q "$esc" <<<"$out" || die "escapes for TERM=dumb: $(grep -c "$esc" <<<"$out") lines"
	out=$(TERM_FOR_PTY=xterm in_pty 120 --root "$FIXTURES/r715" report)
	grep -q "$esc\[" <<<"$out" || die "no colour on a real terminal"
}

# top's full screen is all escapes: a dumb terminal is told to use --batch,
# whose frames name no keys.
test_top_on_a_dumb_terminal() {
	local out
	out=$(TERM_FOR_PTY=dumb in_pty 80 --root "$FIXTURES/r715" top -n 1)
	[[ $out == *"not TERM=dumb; use --batch"* ]] || die "top on TERM=dumb: $out"
	out=$("$NUMAPLACE" --root "$FIXTURES/r715" top --batch -d 0.1 -n 1 | head -1)
	expect_eq "numaplace top: interrupts per second over 0.1 s; sort rate, filter none" "$out" "batch header"
}

# The widest line of what a pty COLS wide showed.
widest() { awk '{ sub(/ +$/, ""); if (length > m) m = length } END { print m + 0 }'; }

# Tables fit exactly, at any width: what names a row (IRQ, NAME, DEVICE) is
# never cut or left out, the rest gives way (cut, wrapped, then left out).
test_tables_fit_every_width_exactly() {
	local f w out
	# irqb112 at 120: the IRQ column is 4 wide (its width hint) over 3 digits.
	for f in r715 wide112 irqb112 rt-igb80 gpu8 e810; do
		for w in 60 80 100 119 120 121 150; do
			out=$(in_pty "$w" --root "$FIXTURES/$f" irqs)
			grep -Eq '^ *IRQ +NAME +DEVICE' <<<"$out" ||
				die "$f at $w: the identifying columns are not all there: $(head -1 <<<"$out")"
			[ "$(awk 'length > '"$w"'' <<<"$out" | wc -l)" = 0 ] ||
				die "$f irqs at $w columns: lines of $(widest <<<"$out") columns"
		done
	done
	# The IRQ names whole at 60 columns on the 112-CPU layout.
	out=$(in_pty 60 --root "$FIXTURES/wide112" irqs)
	grep -q ' ice-ens1f0-TxRx-11 ' <<<"$out" || die "names cut at 60 columns: $out"
	# And the text views: device headers, queue rows, the matrix, the report.
	for f in gpu8 r715 e810 pxb2; do
		out=$(in_pty 80 --root "$FIXTURES/$f" devices)
		[ "$(widest <<<"$out")" -le 80 ] || die "$f devices at 80: $(awk 'length > 80' <<<"$out" | head -3)"
		out=$(in_pty 80 --root "$FIXTURES/$f" report | sed 's/\x1b\[[0-9;]*m//g')
		[ "$(widest <<<"$out")" -le 80 ] || die "$f report at 80: $(awk 'length > 80' <<<"$out" | head -3)"
		out=$(in_pty 80 --root "$FIXTURES/$f" devices --matrix)
		[ "$(widest <<<"$out")" -le 80 ] || die "$f devices --matrix at 80: $(awk 'length > 80' <<<"$out" | head -3)"
	done
	# topo's pods: the kubelet's names wrap under their column (a state file at a short
	# path, so that the checkout's path is not a word too long for 80 columns).
	local ks
	ks=$(mktemp -d)
	cp "$FIXTURES/kube/var/lib/kubelet/cpu_manager_state" "$ks/"
	out=$(in_pty 80 --root "$FIXTURES/kube" --kubelet-state "$ks/cpu_manager_state" topo)
	rm -rf "$ks"
	grep -q '^  6-7 .*/l2fwd (pod$' <<<"$out" || die "topo's pods at 80: $(grep -A1 '6-7' <<<"$out")"
	[ "$(widest <<<"$out")" -le 80 ] || die "topo at 80: $(awk 'length > 80' <<<"$out" | head -3)"
	# apply --dry-run and advise --table keep what names a row and its values:
	# the file and the volume give way first, a long word of a reason is broken.
	out=$(in_pty 80 --root "$FIXTURES/r715" apply --dry-run --irqbalance=ignore "$TOP/profiles/network-local.json")
	grep -Eq '^SUBJECT +CURRENT +NEW +CHANGE$' <<<"$out" || die "apply --dry-run at 80: $(grep -m1 -A1 '^[A-Z]' <<<"$out")"
	[ "$(widest <<<"$out")" -le 80 ] || die "apply --dry-run at 80: $(widest <<<"$out") columns"
	out=$(in_pty 80 --root "$FIXTURES/r715" advise --table)
	grep -Eq '^TARGET +CURRENT +RECOMMENDED +REASON$' <<<"$out" || die "advise --table at 80: $(grep -m1 '^TARGET' <<<"$out")"
	[ "$(widest <<<"$out")" -le 80 ] || die "advise --table at 80: $(awk 'length > 80' <<<"$out" | head -3)"
	# The matrix goes on in blocks below; every label heads one column.
	out=$(in_pty 80 --root "$FIXTURES/gpu8" devices --matrix)
	expect_eq 2 "$(grep -c '^ *GPU[0-9]' <<<"$(grep -E '^ {7}[A-Z]' <<<"$out")")" "matrix blocks at 80"
	for w in NIC8 NUMA 'LOCAL CPUS'; do grep -Eq "^ {7}.*$w" <<<"$out" || die "no column $w at 80: $out"; done
	# A pipe gets every column whole, the matrix in one block.
	[ "$("$NUMAPLACE" --root "$FIXTURES/r715" irqs | widest)" -gt 120 ] || die "a pipe's table was fitted"
	cmp -s <("$NUMAPLACE" --root "$FIXTURES/gpu8" devices --matrix) <(sed '$d' "$TOP/tests/cases/devices-gpu8-matrix.out") ||
		die "the piped matrix changed"
}

# A terminal whose size is unknown (0x0) fits $COLUMNS, as findmnt does, else 80.
test_columns_when_the_size_is_unknown() {
	local out
	out=$(COLUMNS=100 in_pty 0 --root "$FIXTURES/r715" irqs)
	grep -q '^IRQ' <<<"$out" || die "no table: $out"
	[ "$(widest <<<"$out")" -le 100 ] && [ "$(widest <<<"$out")" -gt 80 ] ||
		die "COLUMNS=100 on a 0x0 terminal: $(widest <<<"$out") columns"
	out=$(env -u COLUMNS bash -c "$(declare -f in_pty); NUMAPLACE=$NUMAPLACE in_pty 0 --root $FIXTURES/r715 irqs")
	[ "$(widest <<<"$out")" -le 80 ] || die "no COLUMNS on a 0x0 terminal: $(widest <<<"$out") columns"
}

# -r and -P carry what JSON carries (the kernel's list), never "all".
test_raw_and_pairs_are_lossless() {
	local r715=$FIXTURES/r715
	expect_eq "$("$NUMAPLACE" --root "$r715" irqs -J | jq -r '.irqs[] | select(.irq == 34) | .affinity')" \
		"$("$NUMAPLACE" --root "$r715" irqs 34 -o affinity -r -n)" "-r's affinity"
	"$NUMAPLACE" --root "$r715" irqs 34 -o irq,affinity -P | grep -qx 'IRQ="34" AFFINITY="0-15"' ||
		die "-P: $("$NUMAPLACE" --root "$r715" irqs 34 -o irq,affinity -P)"
	# A table for people may say "all".
	"$NUMAPLACE" --root "$r715" irqs 34 -o affinity -n | grep -qx 'all' || die "the table lost 'all'"
}

# -o +COL appends to the default columns, as util-linux's tools.
test_output_plus_appends() {
	local head
	head=$("$NUMAPLACE" --root "$FIXTURES/r715" irqs -o +chip | head -1)
	[[ $head == "IRQ  NAME"*"REMOTE  PER CPU  CHIP" ]] || die "-o +chip: $head"
	head=$("$NUMAPLACE" --root "$FIXTURES/r715" irqs -o +chip,total -r | head -1)
	[[ $head == *" REMOTE_SHARE PER_CPU CHIP TOTAL" ]] || die "-o +chip,total: $head"
	local status=0
	"$NUMAPLACE" --root "$FIXTURES/r715" irqs -o +nosuch >/dev/null 2>&1 || status=$?
	expect_eq 2 "$status" "-o +nosuch"
}

# -n is --noheadings; --dry-run's -n still works in revert, apply and move, with a note.
test_n_is_noheadings() {
	local err
	err=$("$NUMAPLACE" revert -n --state-dir "$WORK/no-state-n" 2>&1 >/dev/null) || true
	[[ $err == *"-n is deprecated"*"use --dry-run"* ]] || die "no deprecation note: $err"
	! "$NUMAPLACE" revert --help | grep -q -- '-n,' || die "revert --help still shows -n"
	"$NUMAPLACE" --root "$FIXTURES/r715" apply -n "$TOP/profiles/network-local.json" 2>&1 >/dev/null |
		grep -q 'apply: note: -n is deprecated' || die "apply -n: no note"
	expect_eq "" "$("$NUMAPLACE" --root "$FIXTURES/r715" irqs 34 -o irq -n | grep IRQ)" "irqs -n prints no header"
}
