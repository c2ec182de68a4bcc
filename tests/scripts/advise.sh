# The advisor's placement rules, on the fixture roots, and run --near live.

adv() { "$NUMAPLACE" --root "$FIXTURES/$1" advise "${@:2}"; }

# Every planned value (changed or not) as "DEVICE VECTOR CPUS" lines, from -o.
planned_irqs() {
	local root=$1 out=$WORK/plan-$RANDOM.json
	shift
	"$NUMAPLACE" --root "$FIXTURES/$root" advise -o "$out" "$@" >/dev/null
	jq -r '.settings[] | select(.kind == "irq_affinity") | "\(.device) \(.vector // ("q" + (.queue|tostring))) \(.cpus)"' "$out"
}

test_r715_megaraid_goes_to_its_node_under_local() {
	expect_eq "0000:22:00.0 megasas 1,3,5,7" "$(planned_irqs r715 | grep '^0000:22:00.0')" "MegaRAID under local"
}

test_r715_megaraid_goes_to_the_app_node_under_app() {
	expect_eq "0000:22:00.0 megasas 8,10,12,14" "$(planned_irqs r715 --policy app --app-node 1 | grep '^0000:22:00.0')" \
		"MegaRAID under --policy app --app-node 1"
}

test_r715_82599_queues_spread_and_balanced_on_node3() {
	local lines cpu
	lines=$(planned_irqs r715 | grep -E '^0000:23:00\.[01] q[0-9]')
	expect_eq 16 "$(wc -l <<<"$lines")" "queue vectors of the two 82599 ports"
	# One CPU each, all on node 3 (1,3,5,7), four queues per CPU.
	for cpu in 1 3 5 7; do
		expect_eq 4 "$(awk -v c="$cpu" '$3 == c' <<<"$lines" | wc -l)" "queues on CPU $cpu"
	done
	# The two ports' queue 0 do not share a CPU.
	[ "$(awk '$2 == "q0" {print $3}' <<<"$lines" | sort -u | wc -l)" -eq 2 ] || die "both queue 0s on one CPU"
}

test_smt_one_vector_per_core_before_siblings() {
	local lines
	lines=$(planned_irqs smt-isolated | grep -E '^0000:81:00\.[01] q[0-9]')
	expect_eq 8 "$(wc -l <<<"$lines")" "queue vectors of the two X710 ports"
	# Node 1: cores 4-7 with siblings 12-15; 8 vectors -> every CPU exactly once.
	expect_eq "12 13 14 15 4 5 6 7" "$(awk '{print $3}' <<<"$lines" | sort | xargs)" "CPUs used once each"
	# Queues 0 and 1 of both ports (the first four placed) are on four different cores.
	expect_eq 4 "$(awk '$2 == "q0" || $2 == "q1" {c = $3 % 8; print c}' <<<"$lines" | sort -u | wc -l)" \
		"distinct cores for the first four vectors"
}

# "0-2,5" -> "0 1 2 5"
expand_cpus() {
	local part
	for part in ${1//,/ }; do
		if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
	done
}

test_isolated_and_excluded_cpus_get_no_irqs() {
	local used=() cpus
	for cpus in $(planned_irqs smt-isolated --policy spread --exclude-cpus 4 | awk '{print $3}'); do
		mapfile -t -O "${#used[@]}" used < <(expand_cpus "$cpus")
	done
	[ "${#used[@]}" -gt 0 ] || die "no plan"
	for c in 3 11 4; do
		! printf '%s\n' "${used[@]}" | grep -qx "$c" || die "CPU $c (isolated or excluded) got an IRQ"
	done
}

test_managed_irqs_are_never_changed() {
	local json
	json=$(adv smt-isolated --json --policy spread)
	expect_eq 0 "$(jq '[.recommendations[] | select(.vector // "" | test("^nvme0q[1-9]"))] | length' <<<"$json")" \
		"recommendations for managed NVMe queues"
	jq -e '.warnings[] | select(test("managed"))' <<<"$json" >/dev/null || die "no warning about managed IRQs"
}

test_device_on_cpuless_node_goes_to_nearest_node() {
	# The GPU sits on memory-only node 2; node 0 is nearer (30) than node 1 (40).
	expect_eq "0 1" "$(planned_irqs nonode | awk '$1 == "0000:cb:00.0" {print $3}' | xargs)" "GPU vectors"
}

test_numa_node_minus_one() {
	local json lines
	json=$(adv nonode --json)
	lines=$(planned_irqs nonode)
	# The NIC's local CPUs are exactly node 1's: node 1 is inferred.
	awk '$1 == "0000:17:00.0" {print $3}' <<<"$lines" | while read -r c; do
		[[ $c =~ ^[4-7]$ ]] || die "NIC vector on CPU $c, not node 1"
	done
	# The RAID controller's local CPUs span both nodes: nothing recommended, and said so.
	[ -z "$(awk '$1 == "0000:31:00.0"' <<<"$lines")" ] || die "a plan for a device of unknown node"
	jq -e '.warnings[] | select(test("0000:31:00.0") and test("unknown"))' <<<"$json" >/dev/null ||
		die "no warning for the device of unknown node"
}

test_rq_affinity_2_when_completions_miss_the_submitters() {
	local json
	# The NVMe queues are managed and stay where they are; the app runs on 0-2.
	json=$(adv smt-isolated --json --policy app --app-cpus 0-2)
	expect_eq 2 "$(jq -r '.recommendations[] | select(.kind == "rq_affinity" and .block == "nvme0n1") | .recommended' <<<"$json")" \
		"rq_affinity for nvme0n1"
	jq -e '.recommendations[] | select(.kind == "rq_affinity") | .reason | test("12.9%")' <<<"$json" >/dev/null ||
		die "the reason does not give the seed's trade-off"
}

test_irqbalance_running_is_warned_with_how_to_ban() {
	adv r715 --json | jq -e '.warnings[] | select(test("irqbalance") and test("banirq"))' >/dev/null ||
		die "no irqbalance warning with a ban recipe"
}

test_advise_is_idempotent_after_apply() {
	rm -rf "$WORK/r715" && cp -a "$FIXTURES/r715" "$WORK/r715"
	local np=("$NUMAPLACE" --root "$WORK/r715")
	"${np[@]}" advise -o "$WORK/r715.json" >/dev/null
	"${np[@]}" apply "$WORK/r715.json" >/dev/null
	expect_eq 0 "$("${np[@]}" advise --json | jq '.recommendations | length')" "recommendations after apply"
	"${np[@]}" verify "$WORK/r715.json" >/dev/null
	"${np[@]}" revert >/dev/null
	rm -rf "$WORK/r715/var"
	diff -r --no-dereference "$FIXTURES/r715" "$WORK/r715" >/dev/null || die "r715 copy differs after revert"
}

test_run_near_binds_the_child_live() {
	[ -d /sys/class/net/eth0 ] || skip_test "no eth0 here"
	local node want got status=0
	node=$("$NUMAPLACE" devices --json eth0 | jq -r '.devices[0].node')
	want=$("$NUMAPLACE" topo --json | jq -r --argjson n "$node" '.nodes[] | select(.node == $n) | .cpus')
	got=$("$NUMAPLACE" run --near eth0 -- cat /proc/self/status | awk '/^Cpus_allowed_list:/ {print $2}')
	expect_eq "$want" "$got" "the child's Cpus_allowed_list"
	"$NUMAPLACE" run --near eth0 -- sh -c 'exit 7' || status=$?
	expect_eq 7 "$status" "the child's exit status"
	status=0
	"$NUMAPLACE" run --near no-such-device -- true 2>/dev/null || status=$?
	expect_eq 1 "$status" "an unknown device"
}
