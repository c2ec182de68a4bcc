# The committed fuzz corpus (tests/fuzz/corpus/NAME/, past findings included)
# replayed through each harness under the sanitizers; make fuzz explores more.

test_fuzz_corpus_replays_clean() {
	local h n
	for h in "$TOP"/build/san/tests/fuzz/fuzz_*-replay; do
		[ -x "$h" ] || skip_test "no replay binaries built"
		n=${h##*/fuzz_}; n=${n%-replay}
		"$h" "$TOP"/tests/fuzz/corpus/"$n"/* >/dev/null || die "harness $n failed on its corpus"
	done
}
