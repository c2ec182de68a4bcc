# SPDX-License-Identifier: GPL-2.0-or-later
# report: the answer first (== Summary), findings grouped and weighed, output that fits
# the terminal.

# Seed 000's question: which node handles the MegaRAID's interrupts? Its IRQ runs on CPU 0
# (node 0) while the controller is on node 3; that must be in the first lines.
test_summary_answers_the_seed() {
	local head
	head=$("$NUMAPLACE" --root "$FIXTURES/r715" report | head -n 5)
	[ "$(head -n 1 <<<"$head")" = "== Summary" ] || die "report does not open with the summary: $head"
	grep -q '^sda 0000:22:00.0 (megaraid_sas, node 3): IRQ [0-9]* on CPU 0, node 0; 48.2M of 48.2M interrupts ran off node 3 (node 0 100%), 48.2k/s -> numaplace advise --device sda$' <<<"$head" ||
		die "the MegaRAID's placement is not in the first lines: $head"
}

# The RT worker: its story is one NIC's queues on isolated CPUs, in one line, not one warning
# per IRQ; the nearly idle system IRQs there are a single minor line, not warnings.
test_summary_names_the_nic_on_isolated_cpus() {
	local out
	out=$("$NUMAPLACE" --root "$FIXTURES/rt-igb80" report)
	sed -n 2p <<<"$out" | grep -q '^eno1 0000:03:00.0 (igb, node 0): 8 IRQs on isolated CPUs 4-18:2; 4.8M of 4.8M interrupts ran there' ||
		die "the igb NIC on isolated CPUs does not lead the summary: $(head -n 4 <<<"$out")"
	# Grouped, and said once: the Findings section holds what the Summary does not.
	[ "$(grep -c 'eno1 .* on isolated' <<<"$out")" = 1 ] || die "isolated-CPU findings not grouped, or said twice: $out"
	sed -n '/== Findings/,$p' <<<"$out" | grep -q "^Beyond the Summary's [0-9]* problems:" || die "no pointer to the Summary: $out"
	"$NUMAPLACE" --root "$FIXTURES/rt-igb80" report --all | grep -q '^minor   system IRQs (dmar1, PCIe PME): 3 IRQs on isolated CPUs 3,20,43' ||
		die "system IRQs on isolated CPUs are not one minor line"
}

test_summary_says_when_nothing_is_wrong() {
	local out
	out=$("$NUMAPLACE" --root "$FIXTURES/wide112" report | sed -n '1,3p')
	expect_eq "== Summary
Nothing wrong: no device's interrupts ran off its node or on isolated CPUs (100/s or more each)." "$out" "summary of a machine with nothing wrong"
}

# Runs numaplace in a pseudo-terminal COLS columns wide; prints what it showed (CRs gone).
in_pty() {
	local cols=$1
	shift
	command -v script >/dev/null || skip_test "script (util-linux) not installed"
	local cmd="stty cols $cols rows 50; exec"
	for a in "$NUMAPLACE" "$@"; do cmd+=" $(printf '%q' "$a")"; done
	script -qfec "$cmd" /dev/null </dev/null | tr -d '\r'
}

# No line wider than a 120-column terminal, on the machine whose CPU lists are 56 numbers
# long and on the others; colour only on a terminal, and never with NO_COLOR or --color=never.
test_report_fits_120_columns() {
	local root out wide esc=$'\033'
	for root in wide112 rt-igb80 r715 smt-isolated nonode amd16; do
		out=$(NO_COLOR= in_pty 120 --root "$FIXTURES/$root" report --all)
		grep -q '^== Summary' <<<"$out" || die "$root: no report in the pty: $out"
		# stderr shares the pty: its notes are one line each, as util-linux's messages.
		wide=$(sed "s/$esc\[[0-9;]*m//g" <<<"$out" | grep -v '^numaplace: ' | awk 'length > 120')
		[ -z "$wide" ] || die "$root: lines wider than 120 columns: $wide"
	done
	out=$(in_pty 120 --root "$FIXTURES/r715" report)
	grep -q "$esc\[" <<<"$out" || die "no colour on a terminal"
	out=$(NO_COLOR=1 in_pty 120 --root "$FIXTURES/r715" report)
	! grep -q "$esc\[" <<<"$out" || die "colour despite NO_COLOR"
	out=$(in_pty 120 --root "$FIXTURES/r715" report --color=never)
	! grep -q "$esc\[" <<<"$out" || die "colour despite --color=never"
	! "$NUMAPLACE" --root "$FIXTURES/r715" report | grep -q "$esc\[" || die "colour into a pipe"
}

# A copy of a fixture whose /proc/interrupts the test can rewrite.
copy_root() {
	local dst="$WORK/report-$1"
	rm -rf "$dst" && cp -r "$FIXTURES/$1" "$dst"
	printf '%s' "$dst"
}

# Adds n to IRQ irq's count in CPU column col (0-based) of root's /proc/interrupts.
bump() {
	local root=$1 irq=$2 col=$3 n=$4
	awk -v irq="$irq:" -v col="$col" -v n="$n" '
		$1 == irq { split($0, f, " "); c = 0; line = ""
			# rebuild the row: the count columns re-printed as the kernel does (%10u )
			match($0, /^ *[0-9]+: /); line = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
			for (i = 0; i <= col; i++) { match(rest, /^ *[0-9]+ /); cell[i] = substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1) }
			for (i = 0; i < col; i++) line = line cell[i]
			line = line sprintf("%10u ", cell[col] + n) rest; print line; next }
		{ print }' "$root/proc/interrupts" >"$root/proc/interrupts.new"
	mv "$root/proc/interrupts.new" "$root/proc/interrupts"
}

# --interval judges what ran while it sampled: rates per second per IRQ, device and node,
# and the summary from those counts (the threshold a rate: 100 a second).
test_report_interval_rates() {
	local root out irq
	root=$(copy_root r715)
	irq=$(awk '/megasas/ { sub(":", "", $1); print $1 }' "$root/proc/interrupts")
	read_watch "$root/proc/interrupts"
	("$NUMAPLACE" --root "$root" report --interval 2 >"$WORK/report-interval.out") &
	read_wait
	bump "$root" "$irq" 0 3000
	wait $!
	out=$(<"$WORK/report-interval.out")
	sed -n 1,2p <<<"$out" | grep -q "^sda 0000:22:00.0 (megaraid_sas, node 3): IRQ $irq on CPU 0, node 0; 3000 of 3000 interrupts ran off node 3 (node 0 100%)" ||
		die "interval summary: $(head -n 4 <<<"$out")"
	grep -Eq '^0000:22:00.0 +megaraid_sas +3 +1 +0 +0 +1500 +100% +-$' <<<"$out" ||
		die "no rate for the MegaRAID: $(grep -A14 'IRQ placement' <<<"$out")"
	grep -q '^Per node /s: node 0 1500, node 1 0, node 2 0, node 3 0$' <<<"$out" || die "per-node rates: $out"
	grep -q '^Per device /s: sda 1500$' <<<"$out" || die "per-device rates: $out"
	read_watch "$root/proc/interrupts"
	("$NUMAPLACE" --root "$root" irqs --interval 1 "$irq" >"$WORK/irqs-interval.out") &
	read_wait
	bump "$root" "$irq" 0 500
	wait $!
	grep -Eq "^ *$irq +megasas .* 500 +0:500 +100% +no$" "$WORK/irqs-interval.out" ||
		die "irqs --interval: $(cat "$WORK/irqs-interval.out")"
}

# report --svg: well-formed, a box per node and per device with interrupts, and the seed's
# answer as a red arrow from the MegaRAID to node 0; local flows green.
test_report_svg() {
	command -v xmllint >/dev/null || skip_test "xmllint not installed"
	local svg="$WORK/r715.svg" out
	"$NUMAPLACE" --root "$FIXTURES/r715" report --svg "$svg" >/dev/null || die "report --svg failed"
	xmllint --noout "$svg" || die "not well-formed XML"
	expect_eq 4 "$(grep -c '<g class="node"' "$svg")" "node boxes"
	expect_eq 9 "$(grep -c '<g class="device[ "]' "$svg")" "device boxes (the 9 that had interrupts)"
	grep -q '<path class="irq-flow remote" data-device="0000:22:00.0" data-node="0" data-interrupts="48213377"' "$svg" ||
		die "no remote arrow from the MegaRAID to node 0"
	grep -q '<path class="irq-flow" data-device="0000:23:00.0" data-node="3"' "$svg" || die "no local arrow for eth4"
	[ "$(grep -c 'class="irq-flow remote" data-device="0000:23:00.1"' "$svg")" = 2 ] || die "eth5 should have 2 remote arrows"
	grep -q '<text x="[0-9]*" y="[0-9]*" font-weight="bold">sda 0000:22:00.0</text>' "$svg" || die "MegaRAID box unlabelled"
	if command -v rsvg-convert >/dev/null; then
		rsvg-convert "$svg" -o "$WORK/r715.png" || die "rsvg-convert cannot render it"
	fi
	out=$("$NUMAPLACE" --root "$FIXTURES/r715" report --svg /nonexistent/dir/x.svg 2>&1) && die "an unwritable --svg succeeded"
	expect_eq "numaplace: cannot write '/nonexistent/dir/x.svg': No such file or directory" "$out"
}

# One problem list: under each policy, the devices whose summary line points to advise are
# exactly the devices advise changes, on every fixture.
test_report_and_advise_show_the_same_problems_on_every_fixture() {
	local dir f pol said planned
	for dir in "$FIXTURES"/*/; do
		f=$(basename "$dir")
		[ -d "$dir/proc" ] || continue
		for pol in local spread; do
			said=$("$NUMAPLACE" --root "$dir" report --policy "$pol" --json 2>/dev/null |
				jq -r '[.findings[] | select(.severity == "warning" and (.minor | not) and
					(.fix // "" | startswith("numaplace advise"))) | .device // "machine"] | unique | join(" ")')
			planned=$("$NUMAPLACE" --root "$dir" advise --policy "$pol" --json 2>/dev/null |
				jq -r '[.recommendations[] | select(.carried) | .device // "machine"] | unique | join(" ")')
			expect_eq "$planned" "$said" "$f --policy $pol: devices advise changes against devices the report calls wrong"
		done
	done
}
