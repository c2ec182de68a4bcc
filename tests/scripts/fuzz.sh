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
	# Every harness in tests/fuzz, each with its corpus.
	local want
	want=$(ls "$TOP"/tests/fuzz/fuzz_*.c | wc -l)
	[ "$count" -eq "$want" ] || die "expected $want harnesses, replayed $count"
	for h in "$TOP"/tests/fuzz/fuzz_*.c; do
		n=${h##*/fuzz_}; n=${n%.c}
		ls "$TOP"/tests/fuzz/corpus/"$n"/* >/dev/null 2>&1 || die "harness $n has no corpus"
	done
}
