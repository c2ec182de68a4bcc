# SPDX-License-Identifier: GPL-2.0-or-later
# Topology: numaplace against hwloc on fixtures and real snapshots, bad roots,
# and this machine against numactl.

agree_with_hwloc() {
	local root=$1 json
	json=$("$NUMAPLACE" --root "$root" topo --json) || die "numaplace failed on $root"
	"$TOP/build/san/tests/hwloc-agree" "$root" <<<"$json" || die "hwloc disagrees on $root"
}

test_fixtures_agree_with_hwloc() {
	local n=0
	for root in "$FIXTURES"/*/; do
		[ -d "$root/sys/devices/system/cpu" ] || continue
		# hwloc counts a CPU without topology/ as offline; numaplace, as the
		# kernel's online file says, online with package and core unknown.
		[ "$(basename "$root")" != notopology ] || continue
		agree_with_hwloc "${root%/}"
		n=$((n + 1))
	done
	[ "$n" -ge 5 ] || die "expected at least 5 fixture roots, found $n"
}

test_snapshots_agree_with_hwloc() {
	local root
	for snap in cnto-worker2.tgz hwloc-32em64t-2n8c-mic.tar.bz2 hwloc-40intel64-2g2n4c-pci.tar.bz2; do
		root=$(snapshot_root "$snap") # a missing snapshot skips the test
		agree_with_hwloc "$root"
	done
}

# hwloc's gathered dumps end values in NULs: such a root reads as the same root without them.
test_trailing_nuls_read_as_clean() {
	local dirty=$FIXTURES/trailing-nul clean=$WORK/trailing-nul-clean f
	grep -qlaP '\x00' "$dirty/sys/devices/system/node/node0/cpulist" || die "the fixture has no NULs"
	rm -rf "$clean" && cp -a "$dirty" "$clean" || die "cannot copy $dirty"
	find "$clean/sys" -type f | while read -r f; do tr -d '\0' <"$f" >"$f.tmp" && mv "$f.tmp" "$f"; done
	[ -z "$(find "$clean/sys" -type f -exec grep -laP '\x00' {} +)" ] || die "NULs left in $clean"
	for args in "topo --json" "topo --cpus" "report"; do
		# shellcheck disable=SC2086
		expect_eq "$("$NUMAPLACE" --root "$clean" $args 2>&1 | sed "s|$clean|ROOT|g")" \
			"$("$NUMAPLACE" --root "$dirty" $args 2>&1 | sed "s|$dirty|ROOT|g")" "$args with and without NULs"
	done
}

# Each broken root: exit 1, a single line on stderr naming the file at fault.
test_bad_roots_fail_cleanly() {
	local root err status
	for case in empty:sys/devices/system/cpu distance:node1/distance cpulist:node0/cpulist \
		distance-count:node0/distance; do
		root=$FIXTURES/bad/${case%%:*}
		status=0
		err=$("$NUMAPLACE" --root "$root" topo 2>&1 >/dev/null) || status=$?
		expect_eq 1 "$status" "exit status for bad/${case%%:*}"
		expect_eq 1 "$(wc -l <<<"$err")" "lines of error for bad/${case%%:*}: $err"
		[[ $err == *"${case#*:}"* ]] || die "error for bad/${case%%:*} does not name ${case#*:}: $err"
	done
	status=0
	err=$("$NUMAPLACE" --root "$WORK/no-such-root" topo 2>&1) || status=$?
	expect_eq 1 "$status" "exit status for a missing root"
	[[ $err == *no-such-root* ]] || die "error does not name the missing root: $err"
}

test_live_matches_numactl_and_sysfs() {
	command -v numactl >/dev/null || skip_test "numactl is not installed"
	local json hw
	json=$("$NUMAPLACE" topo --json)
	hw=$(numactl --hardware)
	expect_eq "$(cat /sys/devices/system/cpu/online)" "$(jq -r .online <<<"$json")" "online CPUs"
	expect_eq "$(awk '/^available:/ {print $2}' <<<"$hw")" "$(jq '.nodes | length' <<<"$json")" "node count"
	for node in $(jq '.nodes[].node' <<<"$json"); do
		# numactl lists CPUs one by one; numaplace as a range list.
		local want got
		want=$(awk -v n="$node" '$1 == "node" && $2 == n && $3 == "cpus:" {$1=$2=$3=""; print}' <<<"$hw" | xargs)
		got=$(jq -r --argjson n "$node" '.cpus[] | select(.node == $n and .online) | .cpu' <<<"$json" | xargs)
		expect_eq "$want" "$got" "node $node CPUs"
		# Memory onlined lazily (this VM's deferred_init) can grow between the
		# two reads: read both again a few times before calling it a mismatch.
		for _ in 1 2 3 4 5; do
			want=$(numactl --hardware | awk -v n="$node" '$1 == "node" && $2 == n && $3 == "size:" {print $4}')
			got=$("$NUMAPLACE" topo --json | jq --argjson n "$node" '.nodes[] | select(.node == $n) | .memory_kb / 1024 | floor')
			[ "$want" == "$got" ] && break
			sleep 0.2
		done
		expect_eq "$want" "$got" "node $node size in MB"
		want=$(awk -v n="$node:" 'f && $1 == n {$1=""; print} /^node distances:/ {f=1}' <<<"$hw" | xargs)
		got=$(jq -r --argjson n "$node" '.nodes[] | select(.node == $n) | .distances | join(" ")' <<<"$json")
		expect_eq "$want" "$got" "node $node distances"
	done
}

# Every fixture root, the firmware ones included.
all_fixture_roots() {
	local root
	for root in "$FIXTURES"/*/ "$FIXTURES"/firmware/*/; do
		[ -d "$root/sys/devices/system/cpu" ] && echo "${root%/}"
	done
}

# Each CPU is in exactly one node: node lists are disjoint, hold online CPUs only, and
# agree with each CPU's own node.
test_no_cpu_in_two_nodes() {
	local root n=0 bad
	for root in $(all_fixture_roots); do
		bad=$("$NUMAPLACE" --root "$root" topo --json 2>/dev/null | jq -r '
			def expand: if . == "" then [] else split(",") | map(split("-") | map(tonumber)
				| if length == 2 then [range(.[0]; .[1] + 1)] else . end) | add end;
			(.online | expand) as $online
			| [.nodes[] | .node as $n | .cpus | expand[] | {cpu: ., node: $n}] as $listed
			| ($listed | group_by(.cpu)[] | select(length > 1) | "CPU \(.[0].cpu) in nodes \(map(.node))"),
			  ($listed[] | select(.cpu as $c | $online | index($c) | not) | "offline CPU \(.cpu) in node \(.node)"),
			  ($listed[] as $l | .cpus[] | select(.cpu == $l.cpu and .node != $l.node)
				| "CPU \(.cpu) listed by node \($l.node), its node is \(.node)")') ||
			die "topo --json failed on $root"
		[ -z "$bad" ] || die "$root: $bad"
		n=$((n + 1))
	done
	[ "$n" -ge 15 ] || die "expected at least 15 fixture roots, found $n"
}

# The firmware roots read with a note, never an exit; hwloc agrees where it reads the
# same. It deliberately differs on three: without cpulist or cpumap hwloc drops node 1
# (numaplace takes its CPUs from their cpuN/node1 links); with overlapping lists hwloc
# keeps the first node's whole list (numaplace follows each CPU's link, the kernel's
# cpu_to_node); with overlapping lists and no links hwloc drops node 2 and its memory
# (numaplace keeps it, memory only).
test_firmware_roots_agree_with_hwloc() {
	local root
	for root in "$FIXTURES"/firmware/*/; do
		case $(basename "$root") in missing-cpulist | overlap-linked | overlap-unlinked) continue ;; esac
		agree_with_hwloc "${root%/}"
	done
}

# What each firmware root must read as, from its JSON.
test_firmware_roots_read_as_the_kernel_means() {
	local fw=$FIXTURES/firmware json
	json=$("$NUMAPLACE" --root "$fw/empty-online" topo --json)
	expect_eq "0-3" "$(jq -r .online <<<"$json")" "empty cpuN/online taken as online"
	[[ $(jq -r '.notes[]' <<<"$json") == *"cpu0/online' is empty, and 3 more"* ]] || die "no note on empty online files"
	json=$("$NUMAPLACE" --root "$fw/offline-node0" topo --json)
	expect_eq "[10]" "$(jq -c '.nodes[0].distances' <<<"$json")" "node 1's row indexed by possible nodes"
	json=$("$NUMAPLACE" --root "$fw/overlap-linked" topo --json)
	expect_eq "0 1 2 3" "$(jq -r '[.nodes[].cpus] | join(" ")' <<<"$json")" "overlapping lists, links decide"
	[[ $(jq -r '.notes[]' <<<"$json") == *"inconsistent firmware"*"cpuN/nodeM link"* ]] || die "no firmware note"
	json=$("$NUMAPLACE" --root "$fw/overlap-unlinked" topo --json)
	expect_eq "0-1 2-3 " "$(jq -r '[.nodes[].cpus] | join(" ")' <<<"$json")" "overlapping lists, first node keeps"
	[[ $(jq -r '.notes[]' <<<"$json") == *"inconsistent firmware"*"first node listing it"* ]] || die "no firmware note"
	json=$("$NUMAPLACE" --root "$fw/offline-in-list" topo --json)
	expect_eq "2" "$(jq -r '.nodes[1].cpus' <<<"$json")" "offline CPU out of node 1's list"
	expect_eq "1 false" "$(jq -r '.cpus[3] | "\(.node) \(.online)"' <<<"$json")" "offline CPU 3 keeps node 1"
	json=$("$NUMAPLACE" --root "$fw/hmat" topo --json)
	expect_eq "2-3 initiators" "$(jq -r '.nodes[2] | "\(.near_cpus) \(.near_by)"' <<<"$json")" "HMAT initiators"
	json=$("$NUMAPLACE" --root "$FIXTURES/cpuless" topo --json)
	expect_eq "0-3 distance" "$(jq -r '.nodes[2] | "\(.near_cpus) \(.near_by)"' <<<"$json")" "nearest by distance"
}

# Blank, "(null)" and unreadable (a directory where the file should be) per-CPU and
# per-node files are unknown, one note per kind, never an exit.
test_unknown_per_cpu_and_node_files() {
	local root=$WORK/fw-unknown out json
	rm -rf "$root" && cp -a "$FIXTURES/r715" "$root" || die "cannot copy r715"
	local cpu=$root/sys/devices/system/cpu node=$root/sys/devices/system/node
	printf '   \n' >"$cpu/cpu1/topology/core_id"
	printf '(null)\n' >"$cpu/cpu2/topology/thread_siblings_list"
	printf '(null)\n' >"$node/node1/distance"
	rm "$node/node2/meminfo" && mkdir "$node/node2/meminfo"
	rm "$node/node3/cpulist" && mkdir "$node/node3/cpulist"
	printf '\n' >"$node/node3/cpumap"
	json=$("$NUMAPLACE" --root "$root" topo --json 2>/dev/null) || die "topo exits on unknown files"
	out=$(jq -r '.notes[]' <<<"$json")
	[[ $out == *"package and core of CPU 1 unknown: '$cpu/cpu1/topology/core_id' is blank"* ]] || die "core_id: $out"
	[[ $out == *"SMT siblings of CPU 2 unknown"*"reads '(null)'"* ]] || die "siblings: $out"
	[[ $out == *"distances of node 1 unknown"* ]] || die "distance: $out"
	[[ $out == *"memory of node 2 unknown"*"cannot be read (Is a directory)"* ]] || die "meminfo: $out"
	[[ $out == *"CPU list of node 3 unknown"* ]] || die "cpulist: $out"
	expect_eq "1,3,5,7" "$(jq -r '.nodes[3].cpus' <<<"$json")" "node 3's CPUs from their links"
	expect_eq "null null" "$(jq -r '"\(.nodes[1].distances) \(.nodes[2].memory_kb)"' <<<"$json")" "unknown as null"
	expect_eq "null" "$(jq -r '.cpus[1].core' <<<"$json")" "core of CPU 1"
}

# Each CPU's time in devices' interrupts, from /proc/stat and /proc/softirqs:
# the figures follow the files, and a /proc/stat that cannot be parsed leaves
# them unknown (a note, no column, null in JSON), never the topology unshown.
test_cpu_irq_time() {
	local root=$WORK/topo-irq-time out
	rm -rf "$root" && cp -r "$FIXTURES/r715" "$root"
	# CPU 3: 100 ticks in all, 5 in hard IRQs, 20 in softirqs of which
	# devices raised half (NET_RX 10 of 20): 15%.
	sed -i 's/^cpu3 .*/cpu3 50 0 25 0 0 5 20 0 0 0/' "$root/proc/stat"
	awk '$1 == "CPU0" { print; next } { for (i = 2; i <= NF; i++) $i = 0; if ($1 == "NET_RX:" || $1 == "TIMER:") $5 = 10; print }' \
		"$root/proc/softirqs" >"$root/proc/softirqs.new" && mv "$root/proc/softirqs.new" "$root/proc/softirqs"
	out=$("$NUMAPLACE" --root "$root" topo --cpus) || die "topo failed: $out"
	grep -Eq '^ +3 +3 +0 +5 +3 +yes +15\.0%$' <<<"$out" || die "CPU 3's time in interrupts: $(grep -E '^ +(CPU|3) ' <<<"$out")"
	expect_eq 0.15 "$("$NUMAPLACE" --root "$root" topo --json | jq '.cpus[] | select(.cpu == 3) | .irq_time_share')" \
		"CPU 3's irq_time_share"
	echo "cpu3 garbage" >>"$root/proc/stat"
	out=$("$NUMAPLACE" --root "$root" topo --cpus 2>"$WORK/topo-irq-time.err") || die "topo failed on a bad /proc/stat"
	grep -q "^numaplace: note: /proc/stat: line .* the CPUs' time in interrupts is unknown$" "$WORK/topo-irq-time.err" ||
		die "no note on the bad /proc/stat: $(cat "$WORK/topo-irq-time.err")"
	! grep -q 'IRQ TIME' <<<"$out" || die "a column of unknowns: $out"
	expect_eq null "$("$NUMAPLACE" --root "$root" topo --json 2>/dev/null | jq '.cpus[3].irq_time_share')" \
		"irq_time_share from a bad /proc/stat"
}
