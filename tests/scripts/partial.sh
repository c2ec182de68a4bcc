# SPDX-License-Identifier: GPL-2.0-or-later
# Partial copies of real machines: what a copy lacks is said, never shown as
# fine (a dangling PCI link, no /proc/interrupts, a pasted /proc/interrupts
# of other CPUs, no queues/ directory, queue vectors no device claims), and
# notes of one kind come once.

partial_copy() {
	P=$WORK/partial/$1
	rm -rf "$P" && mkdir -p "$WORK/partial" && cp -a "$FIXTURES/$2" "$P"
}

test_dangling_pci_link_is_a_note_everywhere() {
	partial_copy dangling gpu8
	local link target cmd out status
	link=$P/sys/bus/pci/devices/0000:01:00.0
	target=$(readlink -f "$link")
	rm -rf "$target"
	for cmd in devices "devices --matrix --class all" "devices --near 18:00.0" report advise irqs; do
		status=0
		out=$("$NUMAPLACE" --root "$P" $cmd 2>&1 >/dev/null) || status=$?
		expect_eq 0 "$status" "$cmd on a copy with a dangling PCI link"
		[[ $out == *"PCI function 0000:01:00.0: everything but its address unknown (its link in /sys/bus/pci/devices leads nowhere: a partial copy)"* ]] ||
			die "$cmd: no note of the dangling link: $out"
	done
	"$NUMAPLACE" --root "$P" devices --matrix --class all 2>/dev/null | grep -q '^Unplaced: 1 function' || die "the matrix does not say it"
}

test_no_proc_interrupts_is_unknown_not_fine() {
	partial_copy nointerrupts r715
	rm "$P/proc/interrupts"
	local out status=0
	out=$("$NUMAPLACE" --root "$P" report 2>&1) || status=$?
	expect_eq 0 "$status" "report without /proc/interrupts"
	[[ $out == *"note: interrupts unknown: there is no /proc/interrupts here"* ]] || die "report: no note: $out"
	[[ $out == *"Interrupts unknown: there is no /proc/interrupts here"* ]] || die "report's summary: $out"
	[[ $out != *"Nothing wrong"* ]] || die "report says nothing is wrong: $out"
	out=$("$NUMAPLACE" --root "$P" advise 2>&1) || die "advise failed: $out"
	[[ $out == *"(interrupts unknown: there is no"* && $out != *"already follows"* ]] || die "advise: $out"
	"$NUMAPLACE" --root "$P" report --json 2>/dev/null | jq -e '.warnings | map(select(test("interrupts unknown"))) | length == 1' >/dev/null ||
		die "report --json does not carry the note"
	out=$("$NUMAPLACE" --root "$P" irqs 2>&1) || die "irqs failed"
	[[ $out == *"interrupts unknown"* ]] || die "irqs says nothing: $out"
	# A real copy without them, whose plan has warnings (nodes unknown): its
	# heading still says so, not only stderr.
	out=$("$NUMAPLACE" --root "$(snapshot_root hwloc-40intel64-2g2n4c-pci.tar.bz2)" advise 2>/dev/null | head -2)
	[[ $(tr '\n' ' ' <<<"$out") == "Policy local: 0 changes recommended (interrupts unknown: there is no "* ]] ||
		die "advise's heading on the hwloc copy: $out"
}

test_pasted_interrupts_checked_against_the_root() {
	local out status=0
	out=$("$NUMAPLACE" --root "$FIXTURES/r715" irqs --interrupts "$FIXTURES/wide112/proc/interrupts" 2>&1 >/dev/null)
	[[ $out == *"has 112 CPU columns, the root 16 online CPUs; CPUs 16-111 are not the root's"* ]] || die "no warning: $out"
	out=$("$NUMAPLACE" --root "$FIXTURES/wide112" irqs --interrupts "$FIXTURES/r715/proc/interrupts" 2>&1 >/dev/null)
	[[ $out == *"has 16 CPU columns, the root 112 online CPUs; the root's CPUs 16-111 have no column"* ]] || die "no warning: $out"
	# Same CPUs: nothing said; MANAGED unknown (a copy tells nothing of it).
	out=$("$NUMAPLACE" --root "$FIXTURES/r715" irqs --interrupts "$FIXTURES/r715/proc/interrupts" 34 -o managed -n 2>&1)
	expect_eq unknown "$out" "MANAGED from a pasted file"
	# No CPU in common: refused.
	partial_copy othercpus r715
	sed '1s/CPU\([0-9]*\)/CPU9\1/g' "$FIXTURES/r715/proc/interrupts" >"$P/interrupts"
	"$NUMAPLACE" --root "$FIXTURES/r715" irqs --interrupts "$P/interrupts" >/dev/null 2>&1 || status=$?
	expect_eq 1 "$status" "a file of none of the root's CPUs"
}

test_unknown_stays_unknown_and_notes_come_once() {
	partial_copy noqueues r715
	rm -rf "$P/sys/class/net/eth0/queues" "$(readlink -f "$P/sys/class/net/eth0")/queues"
	"$NUMAPLACE" --root "$P" devices eth0 | grep -q '^  net eth0: queues unknown (no queues/ directory)$' ||
		die "missing queues read as none: $("$NUMAPLACE" --root "$P" devices eth0 | grep 'net eth0')"
	expect_eq "null null" "$("$NUMAPLACE" --root "$P" devices eth0 -J | jq -r '.devices[0].net_queues[0] | "\(.rx) \(.tx)"')" \
		"JSON of unknown queues"
	# One note for the functions that all lack irq.
	partial_copy noirqfile gpu8
	find "$P/sys/devices" -name irq -type f -delete
	local notes
	notes=$("$NUMAPLACE" --root "$P" devices 2>&1 >/dev/null | grep -c 'irq unknown')
	expect_eq 1 "$notes" "notes of irq unknown"
	# Queue vectors no device claims: counted in one note.
	partial_copy untied r715
	sed -i -e 's/eth5-TxRx-/ens9-TxRx-/' -e 's/PCI-MSIX-0000:23:00.1/PCI-MSIX-0000:99:00.0/' "$P/proc/interrupts"
	find "$P/sys" -path '*0000:23:00.1/msi_irqs' -prune -exec rm -rf {} +
	notes=$("$NUMAPLACE" --root "$P" irqs 2>&1 >/dev/null | grep 'named as device queues')
	[[ $notes == "numaplace: note: 8 IRQs named as device queues (ens9-TxRx-0, ...) are tied to no device"* ]] ||
		die "untied vectors: $notes"
}

# A real copy without /sys/class/net and /sys/block (cnto-worker2: ixgbe,
# igb, i40e NICs, megaraid and NVMe): interfaces and disks are unknown, one
# note each, not shown as none.
test_copy_without_net_and_block_says_so() {
	local root out
	root=$(snapshot_root cnto-worker2.tgz)
	for cmd in devices report advise irqs; do
		out=$("$NUMAPLACE" --root "$root" $cmd 2>&1 >/dev/null) || die "$cmd failed: $out"
		expect_eq 1 "$(grep -c 'note: network interfaces unknown: there is no /sys/class/net here (a partial copy): the interfaces of 6 network controllers' <<<"$out")" \
			"$cmd's note of the interfaces"
		expect_eq 1 "$(grep -c 'note: block devices unknown: there is no /sys/block here (a partial copy): the disks of 4 storage controllers' <<<"$out")" \
			"$cmd's note of the disks"
	done
	"$NUMAPLACE" --root "$root" report --json 2>/dev/null |
		jq -e '.warnings | map(select(test("network interfaces unknown"))) | length == 1' >/dev/null ||
		die "report --json does not carry the note"
	# A copy that has them says nothing of the kind.
	out=$("$NUMAPLACE" --root "$FIXTURES/r715" devices 2>&1 >/dev/null)
	[[ $out != *"unknown: there is no /sys/"* ]] || die "r715: $out"
}
