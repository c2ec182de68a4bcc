# SPDX-License-Identifier: GPL-2.0-or-later
# The snapshots make check-vm's guests took (tests/snapshots/vm-*.tar.gz, a
# real 6.1 kernel on the QEMU layout each README row names): numaplace reads
# them as the kernel wrote them (each device's node, local CPUs and MSI
# vectors; each IRQ's affinity and effective CPUs), and hwloc reads the same
# topology.

vm_snapshots() {
	local f
	for f in "$SNAPSHOTS"/vm-*.tar.gz; do
		[ -f "$f" ] && printf '%s\n' "${f##*/}"
	done
}

test_vm_snapshots_agree_with_hwloc() {
	local snap root n=0
	for snap in $(vm_snapshots); do
		root=$(snapshot_root "$snap")
		"$NUMAPLACE" --root "$root" topo --json | "$TOP/build/san/tests/hwloc-agree" "$root" ||
			die "hwloc disagrees on $snap"
		n=$((n + 1))
	done
	[ "$n" -ge 1 ] || die "no vm-*.tar.gz in $SNAPSHOTS"
}

test_vm_snapshots_devices_as_the_kernel_wrote_them() {
	local snap root json dev d want got
	for snap in $(vm_snapshots); do
		root=$(snapshot_root "$snap")
		json=$("$NUMAPLACE" --root "$root" devices --all --json) || die "devices failed on $snap"
		for d in "$root"/sys/bus/pci/devices/*; do
			dev=${d##*/}
			want="$(cat "$d/numa_node") $(cat "$d/local_cpulist") $(ls "$d/msi_irqs" 2>/dev/null | sort -n | paste -sd,)"
			# An empty local_cpulist (a node without CPUs) is unknown: null.
			got=$(jq -r --arg d "$dev" '.devices[] | select(.device == $d) |
				"\(.numa_node) \(.local_cpus // "") \(.irqs | map(tostring) | join(","))"' <<<"$json")
			expect_eq "$want" "$got" "$snap: $dev's node, local CPUs and MSI vectors"
		done
	done
}

test_vm_snapshots_irqs_as_the_kernel_wrote_them() {
	local snap root json d irq want got
	for snap in $(vm_snapshots); do
		root=$(snapshot_root "$snap")
		json=$("$NUMAPLACE" --root "$root" irqs --json) || die "irqs failed on $snap"
		for d in "$root"/proc/irq/[0-9]*; do
			irq=${d##*/}
			[ -e "$d/smp_affinity_list" ] || continue
			want="$(cat "$d/smp_affinity_list") $(cat "$d/effective_affinity_list")"
			got=$(jq -r --argjson n "$irq" '.irqs[] | select(.irq == $n) | "\(.affinity) \(.effective)"' <<<"$json")
			# An IRQ without an action (a vector freed) is not in /proc/interrupts.
			if [ -z "$got" ] && ! grep -q "^ *$irq:" "$root/proc/interrupts"; then continue; fi
			expect_eq "$want" "$got" "$snap: IRQ $irq's affinity and effective CPUs"
		done
	done
}

# Without interrupt remapping (vm-a, PCI-MSI chips) virtio-net's idle queues
# still run where they started, their new mask pending until they next fire:
# notes that they will move, no refusal. With it (vm-b, IR-PCI-MSI) the same
# guest shows nothing pending. The NVMe's managed queues are per CPU by design:
# never remote, only its admin queue is.
test_vm_snapshots_deferred_moves_and_per_cpu_queues() {
	local root json
	root=$(snapshot_root vm-a-numa4.tar.gz)
	json=$("$NUMAPLACE" --root "$root" advise --json) || die "advise failed on vm-a"
	expect_eq "30 31 34 35" "$(jq -r '[.notes[] | select(test("move when they next fire")) |
		scan("irq (?<n>[0-9]+) [^ ]+ to CPUs? [0-9-]+ \\(on CPU") | .[0]] | join(" ")' <<<"$json")" \
		"vm-a: IRQs whose move waits for their next interrupt"
	expect_eq 0 "$(jq '[.warnings[] | select(test("not honoured"))] | length' <<<"$json")" "vm-a: refusals"
	json=$("$NUMAPLACE" --root "$root" report --json) || die "report failed on vm-a"
	expect_eq "8 3 1" "$(jq -r '.devices[] | select(.device == "0000:81:00.0") |
		"\(.irqs_per_cpu) \(.interrupts_per_cpu) \(.remote_share)"' <<<"$json")" \
		"vm-a: the NVMe's per-CPU queues, their interrupts, and the remote share of the rest (its admin queue)"
	expect_eq "" "$(jq -r '.irqs[] | select(.per_cpu and .remote_share != null) | .irq' <<<"$json")" \
		"vm-a: a per-CPU queue with a remote share"
	root=$(snapshot_root vm-b-remap.tar.gz)
	json=$("$NUMAPLACE" --root "$root" advise --json) || die "advise failed on vm-b"
	expect_eq 0 "$(jq '[.notes[] | select(test("when it next fires"))] | length' <<<"$json")" "vm-b: pending moves"
}
