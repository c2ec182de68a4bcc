# SPDX-License-Identifier: GPL-2.0-or-later
# The committed fuzz corpus (tests/fuzz/corpus/NAME/, past findings included)
# replayed through each harness under the sanitizers; make fuzz explores more.

test_fuzz_corpus_replays_clean() {
	local h n count=0
	for h in "$TOP"/build/san/tests/fuzz/fuzz_*-replay; do
		[ -x "$h" ] || skip_test "no replay binaries built"
		n=${h##*/fuzz_}; n=${n%-replay}
		"$h" "$TOP"/tests/fuzz/corpus/"$n"/* >/dev/null 2>"$WORK/fuzz-$n.err" ||
			die "harness $n failed on its corpus: $(tail -n 30 "$WORK/fuzz-$n.err")"
		count=$((count + 1))
	done
	# cpu lists and masks, /proc/interrupts, profiles, journals, irqbalance's file,
	# uevent and rtnetlink datagrams.
	[ "$count" -ge 7 ] || die "expected 7 harnesses, replayed $count"
}
