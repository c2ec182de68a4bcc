# report: the answer first (== Summary), findings grouped and weighed, output that fits
# the terminal.

# Seed 000's question: which node handles the MegaRAID's interrupts? Its IRQ runs on CPU 0
# (node 0) while the controller is on node 3; that must be in the first lines.
test_summary_answers_the_seed() {
	local head
	head=$("$NUMAPLACE" --root "$FIXTURES/r715" report | head -n 5)
	[ "$(head -n 1 <<<"$head")" = "== Summary" ] || die "report does not open with the summary: $head"
	grep -q '^sda 0000:22:00.0 (megaraid_sas, node 3): IRQ [0-9]* on CPU 0, node 0; 48.2M of 48.2M interrupts ran off node 3 (node 0 100%) -> numaplace advise --device sda$' <<<"$head" ||
		die "the MegaRAID's placement is not in the first lines: $head"
}

# The RT worker: its story is one NIC's queues on isolated CPUs, in one line, not one warning
# per IRQ; the nearly idle system IRQs there are a single minor line, not warnings.
test_summary_names_the_nic_on_isolated_cpus() {
	local out
	out=$("$NUMAPLACE" --root "$FIXTURES/rt-worker" report)
	sed -n 2p <<<"$out" | grep -q '^eno1 0000:03:00.0 (igb, node 0): 8 IRQs on isolated CPUs 4,6,8,10,12,14,16,18; 4.8M of 4.8M interrupts ran there' ||
		die "the igb NIC on isolated CPUs does not lead the summary: $(head -n 4 <<<"$out")"
	[ "$(grep -c 'isolated' <<<"$(sed -n '/== Findings/,$p' <<<"$out")")" = 1 ] ||
		die "isolated-CPU findings not grouped: $out"
	"$NUMAPLACE" --root "$FIXTURES/rt-worker" report --all | grep -q '^minor   system IRQs (dmar1, PCIe PME): 3 IRQs on isolated CPUs 3,20,43' ||
		die "system IRQs on isolated CPUs are not one minor line"
}

test_summary_says_when_nothing_is_wrong() {
	local out
	out=$("$NUMAPLACE" --root "$FIXTURES/wide112" report | sed -n '1,3p')
	expect_eq "== Summary
Nothing wrong: no device's interrupts ran off its node or on isolated CPUs (10000 or more each)." "$out" "summary of a machine with nothing wrong"
}
