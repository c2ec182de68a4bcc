# SPDX-License-Identifier: GPL-2.0-or-later
# PCIe proximity: devices --matrix and --near against hwloc's tree, the two
# sources of port types, ACS, the GPU class and the per-rank mapping example.

# A copy of a fixture in $WORK, to break or change.
pcie_copy() {
	rm -rf "${WORK:?}/$2" && cp -a "$FIXTURES/$1" "$WORK/$2"
	echo "$WORK/$2"
}

test_pci_tree_agrees_with_hwloc() {
	local root json
	for root in gpu8 pxb2 r715 amd16 nonode smt-isolated placed rt-ice16; do
		json=$("$NUMAPLACE" --root "$FIXTURES/$root" devices --matrix --class all --json) ||
			die "devices --matrix failed on $root"
		"$TOP/build/san/tests/hwloc-pcitree" "$FIXTURES/$root" <<<"$json" || die "hwloc disagrees on $root"
	done
	# A real machine's tree (its config files hold the bridges' bus numbers).
	root=$(snapshot_root hwloc-40intel64-2g2n4c-pci.tar.bz2)
	json=$("$NUMAPLACE" --root "$root" devices --matrix --class all --json 2>/dev/null)
	"$TOP/build/san/tests/hwloc-pcitree" "$root" <<<"$json" || die "hwloc disagrees on the snapshot"
	# And the checker sees a difference when there is one.
	json=$("$NUMAPLACE" --root "$FIXTURES/pxb2" devices --matrix --class all --json | jq '.devices[1].bridges |= .[1:]')
	if "$TOP/build/san/tests/hwloc-pcitree" "$FIXTURES/pxb2" <<<"$json" 2>/dev/null; then
		die "a bridge left out went unnoticed"
	fi
}

# Without root, sysfs gives 64 bytes of config space: the path's shape must
# give the same links as the PCI Express capability did.
test_path_shape_gives_the_config_space_links() {
	local root want got
	root=$(pcie_copy gpu8 gpu8-cut)
	find "$root/sys/devices" -name config -type f -exec truncate -s 64 {} +
	want=$("$NUMAPLACE" --root "$FIXTURES/gpu8" devices --matrix --class all --json | jq -c '[.links[] | [.a, .b, .link]]')
	got=$("$NUMAPLACE" --root "$root" devices --matrix --class all --json | jq -c '[.links[] | [.a, .b, .link]]')
	expect_eq "$want" "$got" "links from the path's shape"
	expect_eq '{"config_space":0,"path_shape":36}' \
		"$("$NUMAPLACE" --root "$root" devices --matrix --json | jq -c .port_types)" "port type sources"
	expect_eq '{"config_space":36,"path_shape":0}' \
		"$("$NUMAPLACE" --root "$FIXTURES/gpu8" devices --matrix --json | jq -c .port_types)" "port type sources"
	# ACS cannot be read from 64 bytes: unknown, never "off".
	expect_eq null "$("$NUMAPLACE" --root "$root" devices --matrix --json |
		jq '.links[] | select(.a == "0000:18:00.0" and .b == "0000:19:00.0") | .acs_redirect')" "ACS from 64 bytes"
}

# acs_ctrl ROOT ADDR HEX: the ACS control register (0x106, behind gpu8's ACS
# capability at 0x100) of ADDR's config space
acs_ctrl() {
	printf '%b' "$(printf '\\x%02x\\x%02x' $((16#$3 & 255)) $((16#$3 >> 8)))" |
		dd of="$1/sys/bus/pci/devices/$2/config" bs=1 seek=$((16#106)) conv=notrunc status=none
}

test_acs_request_redirect_marks_the_link() {
	local root link
	root=$(pcie_copy gpu8 gpu8-acs)
	link='.links[] | select(.a == "0000:18:00.0" and .b == "0000:19:00.0")'
	expect_eq 'PIX false' "$("$NUMAPLACE" --root "$root" devices --matrix --json | jq -j "$link"' | .link, " ", .acs_redirect')" \
		"GPU0-NIC0 with ACS off"
	# Request redirect on the NIC's downstream port only is enough.
	acs_ctrl "$root" 0000:17:01.0 0004
	expect_eq 'PIX true' "$("$NUMAPLACE" --root "$root" devices --matrix --json | jq -j "$link"' | .link, " ", .acs_redirect')" \
		"GPU0-NIC0 with ACS request redirect on"
	"$NUMAPLACE" --root "$root" devices --matrix | grep -q '^GPU0  *X  *PIX\* ' || die "PIX* not marked in the matrix"
	# Other ACS controls (source validation, upstream forwarding) leave it alone.
	acs_ctrl "$root" 0000:17:01.0 0011
	expect_eq false "$("$NUMAPLACE" --root "$root" devices --matrix --json | jq "$link | .acs_redirect")" "ACS without RR"
	expect_eq yes "$("$NUMAPLACE" --root "$FIXTURES/gpu8" devices --near 0000:9a:00.0 -o acs -n | head -n 1 | tr -d ' ')" \
		"--near's acs column on socket 1's first switch"
}

test_gpu_class_covers_accelerators_not_bmc_displays() {
	expect_eq "0000:18:00.0 0000:29:00.0 0000:3a:00.0 0000:4b:00.0 0000:9a:00.0 0000:ab:00.0 0000:bc:00.0 0000:cd:00.0" \
		"$("$NUMAPLACE" --root "$FIXTURES/gpu8" devices --matrix --class gpu --json | jq -r '[.devices[].device] | join(" ")')" \
		"gpu8's GPUs (not the ASPEED)"
	expect_eq "0000:05:00.0 0000:09:00.0" \
		"$("$NUMAPLACE" --root "$FIXTURES/pxb2" devices --matrix --class gpu --json | jq -r '[.devices[].device] | join(" ")')" \
		"pxb2's MI210 (0x0380) and Gaudi2 (0x1200), not the Matrox"
	# InfiniBand controllers (0x0207) are net; nvme is a part of storage.
	expect_eq 9 "$("$NUMAPLACE" --root "$FIXTURES/gpu8" devices --matrix --class net --json | jq '.devices | length')" "gpu8's NICs"
	expect_eq 2 "$("$NUMAPLACE" --root "$FIXTURES/gpu8" devices --matrix --class storage --json | jq '.devices | length')" "storage"
	# A GPU is a device like the others: report lists it with its IRQs.
	expect_eq 1 "$("$NUMAPLACE" --root "$FIXTURES/gpu8" report --json | jq '.devices[] | select(.device == "0000:cd:00.0") | .irqs | length')" \
		"the GPU's IRQs in report"
}

# The per-rank mapping loop of numaplace(8)'s EXAMPLES, on gpu8.
test_per_rank_mapping_example() {
	local out
	out=$(
		export NUMAPLACE_ROOT=$FIXTURES/gpu8
		numaplace() { "$NUMAPLACE" "$@"; }
		rank=0
		for gpu in $(numaplace devices --matrix --class gpu --json | jq -r '.devices[].device'); do
			hca=$(numaplace devices --near "$gpu" --class net -o rdma -n | awk '$1 != "-" { print; exit }')
			echo "rank $rank: GPU $gpu, NCCL_IB_HCA=$hca, $(numaplace run --near "$gpu" --print | head -n 1)"
			rank=$((rank + 1))
		done
	)
	expect_eq 8 "$(wc -l <<<"$out")" "ranks"
	expect_eq "rank 0: GPU 0000:18:00.0, NCCL_IB_HCA=mlx5_0, cpus 0-3 memory-nodes 0" "$(sed -n 1p <<<"$out")" "rank 0"
	expect_eq "rank 7: GPU 0000:cd:00.0, NCCL_IB_HCA=mlx5_7, cpus 4-7 memory-nodes 1" "$(sed -n 8p <<<"$out")" "rank 7"
}

test_matrix_and_near_usage_errors() {
	local status err
	for args in "--matrix --near 18:00.0" "--class gpu" "-o device" "--all --matrix" "--near 18:00.0 --class fpga"; do
		status=0
		# shellcheck disable=SC2086
		err=$("$NUMAPLACE" --root "$FIXTURES/gpu8" devices $args 2>&1) || status=$?
		expect_eq 2 "$status" "exit status of devices $args ($err)"
	done
	status=0
	err=$("$NUMAPLACE" --root "$FIXTURES/gpu8" devices --near eth9 2>&1) || status=$?
	expect_eq 1 "$status" "exit status of --near eth9"
	[[ $err == *"no PCI function matches 'eth9'"* ]] || die "unclear error: $err"
}

# A snapshot keeps what the matrix needs but the config space past its
# header (no capabilities: the path's shape gives the same links, ACS is
# unknown) and keeps the RDMA device names.
test_snapshot_keeps_links_and_rdma_names() {
	local snap=$WORK/pcie-snapshot want got
	rm -rf "$snap"
	"$NUMAPLACE" --root "$FIXTURES/gpu8" snapshot "$snap" >/dev/null 2>&1 || die "snapshot of gpu8 failed"
	want=$("$NUMAPLACE" --root "$FIXTURES/gpu8" devices --matrix --json | jq -c '[.links[] | [.a, .b, .link]], [.devices[].rdma]')
	got=$("$NUMAPLACE" --root "$snap" devices --matrix --json | jq -c '[.links[] | [.a, .b, .link]], [.devices[].rdma]')
	expect_eq "$want" "$got" "links and RDMA names from the snapshot"
}

# lstopo_parents ROOT: "ADDRESS PARENT-BRIDGE" (- for none) of each PCI
# function lstopo --whole-io shows under ROOT, from its indentation.
lstopo_parents() {
	HWLOC_COMPONENTS=linux,linuxio,stop HWLOC_FSROOT=$1 lstopo-no-graphics --whole-io -v 2>/dev/null | awk '
		match($0, /^ */) { indent = RLENGTH }
		/(PCIBridge|PCI) L#[0-9]+ \(busid=/ {
			match($0, /busid=[0-9a-f:.]+/)
			id = substr($0, RSTART + 6, RLENGTH - 6)
			while (n > 0 && ind[n] >= indent) n--
			if ($1 == "PCI") print id, (n > 0 ? bus[n] : "-")
			if ($1 == "PCIBridge") { n++; ind[n] = indent; bus[n] = id }
		}' | sort
}

# What lstopo-no-graphics --whole-io draws (hwloc reads the bridges' bus
# numbers from config space) and what numaplace reads (sysfs paths) put each
# function below the same bridge.
test_lstopo_draws_the_same_parents() {
	local root ours theirs
	for root in gpu8 pxb2; do
		ours=$("$NUMAPLACE" --root "$FIXTURES/$root" devices --matrix --class all --json |
			jq -r '.devices[] | "\(.device) \(.bridges[-1] // "-")"' | sort)
		theirs=$(lstopo_parents "$FIXTURES/$root" | grep -F -f <(cut -d' ' -f1 <<<"$ours"))
		[ "$(wc -l <<<"$ours")" -gt 5 ] || die "too few devices on $root: $ours"
		expect_eq "$theirs" "$ours" "parents on $root (lstopo, numaplace)"
	done
}
