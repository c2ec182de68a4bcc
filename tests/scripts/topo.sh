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
		distance-count:node0/distance missing-cpulist:node1; do
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
