# SPDX-License-Identifier: GPL-2.0-or-later
# Devices, IRQs and findings: fixtures, real snapshots, malformed input, live.

test_live_devices_find_vda_and_eth0_with_their_irqs() {
	[ -d /sys/block/vda ] && [ -d /sys/class/net/eth0 ] || skip_test "no vda and eth0 here"
	local json
	json=$("$NUMAPLACE" devices --json)
	jq -e '.devices[] | select(.block | index("vda")) | select(.driver == "virtio-pci")' <<<"$json" >/dev/null ||
		die "vda is not under a virtio PCI function"
	jq -e '.devices[] | select(.net | index("eth0")) | select(.driver == "virtio-pci")' <<<"$json" >/dev/null ||
		die "eth0 is not under a virtio PCI function"
	local irqs
	irqs=$("$NUMAPLACE" irqs --json vda eth0)
	jq -e '.irqs[] | select(.name | test("^virtio[0-9]+-req\\.0$")) | select(.managed)' <<<"$irqs" >/dev/null ||
		die "no managed virtioN-req.0 for vda"
	jq -e '.irqs[] | select(.name | test("^virtio[0-9]+-input\\.0$")) | select(.queue == 0)' <<<"$irqs" >/dev/null ||
		die "no virtioN-input.0 queue 0 for eth0"
}

test_interval_reports_what_ran_in_between_live() {
	local json
	json=$("$NUMAPLACE" irqs --json --interval 0.5)
	expect_eq 0.5 "$(jq .interval <<<"$json")" "interval"
	# The counts are a difference: far below the totals since boot for some IRQ.
	local during since
	during=$(jq '[.irqs[].total] | add' <<<"$json")
	since=$("$NUMAPLACE" irqs --json | jq '[.irqs[].total] | add')
	[ "$during" -lt "$since" ] || die "interval counts ($during) are not below the totals ($since)"
}

test_offline_cpu_counts_go_to_the_right_node() {
	local irq
	irq=$("$NUMAPLACE" --root "$FIXTURES/offline" irqs --json | jq -c '.irqs[] | select(.name == "virtio2-input.0")')
	[ -n "$irq" ] || die "no virtio2-input.0 in the offline fixture"
	expect_eq "$(jq .total <<<"$irq")" "$(jq '.per_node["1"]' <<<"$irq")" "node 1's share of the counts"
	expect_eq "6-7" "$(jq -r .ran_on <<<"$irq")" "CPUs the IRQ ran on (CPU 5 is offline and has no column)"
}

test_snapshot_irqs_tied_by_chip_and_names() {
	local root json
	root=$(snapshot_root cnto-worker2.tgz)
	json=$("$NUMAPLACE" --root "$root" irqs --json)
	expect_eq 33 "$(jq '[.irqs[] | select(.name | test("^megasas0-msix")) | select(.device == "0000:18:00.0")] | length' <<<"$json")" \
		"megasas vectors tied to the MegaRAID"
	expect_eq 0 "$(jq '[.irqs[] | select(.name | test("TxRx|nvme|megasas")) | select(.device == null)] | length' <<<"$json")" \
		"queue vectors left without a device"
	expect_eq 0000:86:00.0 "$(jq -r '.irqs[] | select(.name == "i40e-0000:86:00.0:misc") | .device' <<<"$json")" "an IRQ tied by the address in its name"
}

test_hwloc_snapshot_children_and_unknown_nodes() {
	local root json
	root=$(snapshot_root hwloc-40intel64-2g2n4c-pci.tar.bz2)
	json=$("$NUMAPLACE" --root "$root" devices --all --json)
	jq -e '.devices[] | select(.net | index("eth0"))' <<<"$json" >/dev/null || die "eth0 not under its PCI function"
	jq -e '.devices[] | select(.block | index("sda"))' <<<"$json" >/dev/null || die "sda not under its PCI function"
	jq -e '.devices[] | select(.numa_node == -1 and .node == null)' <<<"$json" >/dev/null ||
		die "numa_node -1 not shown as unknown"
	"$NUMAPLACE" --root "$root" report --json | jq -e '.findings[] | select(.kind == "no_numa_node")' >/dev/null ||
		die "no finding for devices without a NUMA node"
}

test_findings_on_the_seed_machine() {
	local json
	json=$("$NUMAPLACE" --root "$FIXTURES/r715" report --json)
	jq -e '.findings[] | select(.kind == "remote_irqs" and .subject == "0000:22:00.0")' <<<"$json" >/dev/null ||
		die "the MegaRAID's remote IRQ is not a finding"
	jq -e '.findings[] | select(.kind == "irqbalance")' <<<"$json" >/dev/null || die "irqbalance not found running"
	json=$("$NUMAPLACE" --root "$FIXTURES/smt-isolated" report --json)
	jq -e '.findings[] | select(.kind == "irq_on_isolated_cpus" and .subject == "0000:81:00.0" and .cpus == "3"
		and .irqs == 1 and .interrupts > 1000000 and .severity == "warning")' <<<"$json" >/dev/null ||
		die "no finding for ens1f0's queue IRQ running on isolated CPU 3"
	# The NVMe's managed queues are per CPU by design: never "remote".
	jq -e '[.findings[] | select(.kind == "remote_irqs" and .subject == "0000:01:00.0")] | length == 0' <<<"$json" >/dev/null ||
		die "managed NVMe queues warned as remote"
	jq -e '.findings[] | select(.kind == "managed_irqs" and .subject == "0000:01:00.0")' <<<"$json" >/dev/null ||
		die "no finding for the managed NVMe queues"
}

# A copy of the offline fixture whose /proc/interrupts gets broken rows.
broken_root() {
	rm -rf "$WORK/broken" && cp -a "$FIXTURES/offline" "$WORK/broken"
	echo "$WORK/broken"
}

test_malformed_interrupts_rows_are_skipped_with_a_warning() {
	local root err json
	root=$(broken_root)
	{
		echo " 90:          1"                                              # truncated
		echo " 91:  1  2  3  4  5  6  7  8  9  10  PCI-MSIX-0000:00:03.0 9-edge x" # extra column
		echo " 92: 99999999999999999999999 0 0 0 0 0 0 PCI-MSIX-0000:00:03.0 9-edge y" # too large
		printf ' 93: \001\002\377 junk\n'                                   # binary junk
	} >>"$root/proc/interrupts"
	json=$("$NUMAPLACE" --root "$root" irqs --json 2>"$WORK/err")
	err=$(<"$WORK/err")
	[[ $err == *"interrupts' line"* ]] || die "no warning naming the line: $err"
	for n in 90 91 92 93; do
		expect_eq 0 "$(jq --argjson n $n '[.irqs[] | select(.irq == $n)] | length' <<<"$json")" "broken row $n kept"
	done
	jq -e '.irqs[] | select(.name == "virtio2-input.0")' <<<"$json" >/dev/null || die "good rows lost"
}

test_headerless_interrupts_is_a_clear_error() {
	local root status=0 err
	root=$(broken_root)
	sed -i 1d "$root/proc/interrupts"
	err=$("$NUMAPLACE" --root "$root" irqs 2>&1) || status=$?
	expect_eq 1 "$status" "exit status"
	expect_eq 1 "$(wc -l <<<"$err")" "lines of error: $err"
	[[ $err == *proc/interrupts* ]] || die "error does not name the file: $err"
}

# irqs --interrupts FILE reads the user's file with the rules of the files
# under --root: a FIFO (which a plain open would wait on for a writer) and a
# device (/dev/zero never ends) are refused at once, naming the file.
test_interrupts_file_not_regular_is_refused_at_once() {
	local fifo=$WORK/interrupts-fifo file status err t0 t1
	rm -f "$fifo"
	mkfifo "$fifo" || die "cannot make a FIFO"
	for file in "$fifo" /dev/zero; do
		status=0
		t0=$EPOCHREALTIME
		err=$(timeout 10 "$NUMAPLACE" --root "$FIXTURES/r715" irqs --interrupts "$file" 2>&1) || status=$?
		t1=$EPOCHREALTIME
		expect_eq 1 "$status" "exit status for $file"
		expect_eq 1 "$(wc -l <<<"$err")" "lines of error for $file: $err"
		[[ $err == *"'$file'"*"not a regular file"* ]] || die "the error does not name $file as not a regular file: $err"
		(( ${t1/./} - ${t0/./} < 1000000 )) || die "$file took $(( (${t1/./} - ${t0/./}) / 1000 )) ms"
	done
	rm -f "$fifo"
}

# What the matrix prints names devices wherever they are selected: its labels
# (the same with or without FILTERs), RDMA devices, and IRQ name prefixes.
test_matrix_labels_rdma_and_vector_prefixes_are_filters() {
	local gpu8=$FIXTURES/gpu8 addr
	addr=$("$NUMAPLACE" --root "$gpu8" devices --matrix -J | jq -r '.devices[] | select(.label == "GPU3") | .device')
	[ -n "$addr" ] || die "no GPU3 in the matrix"
	expect_eq "$addr" "$("$NUMAPLACE" --root "$gpu8" devices --near GPU3 -J | jq -r .device)" "--near GPU3"
	expect_eq "GPU3" "$("$NUMAPLACE" --root "$gpu8" devices --matrix "$addr" -J | jq -r '.devices[0].label')" \
		"a label is the same in a filtered matrix"
	"$NUMAPLACE" --root "$gpu8" devices gpu3 | head -1 | grep -q "^$addr " || die "devices gpu3 (any case)"
	"$NUMAPLACE" --root "$gpu8" devices mlx5_3 | head -1 | grep -q '^0000:4c:00.0 ' || die "devices mlx5_3"
	"$NUMAPLACE" --root "$gpu8" run --near mlx5_3 --print | grep -q 'memory-nodes 0' || die "run --near mlx5_3"
	# irqs: the start of a vector's name, never the start of a longer number.
	expect_eq "24 25 26" "$("$NUMAPLACE" --root "$FIXTURES/vm1" irqs virtio0 -o irq -n | xargs)" "irqs virtio0"
	local status=0
	"$NUMAPLACE" --root "$FIXTURES/vm1" irqs virtio 2>/dev/null | grep -q . && die "virtio matched virtio0"
	"$NUMAPLACE" --root "$FIXTURES/r715" irqs 9999 >/dev/null 2>&1 || status=$?
	expect_eq 1 "$status" "irqs 9999 (no such IRQ)"
}
