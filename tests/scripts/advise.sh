# SPDX-License-Identifier: GPL-2.0-or-later
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
	expect_eq "0000:22:00.0 megasas 8,10,12,14" \
		"$(planned_irqs r715 --policy app --app-node 1 --device megaraid_sas | grep '^0000:22:00.0')" \
		"MegaRAID under --policy app --app-node 1"
}

# Seed 000 moved one IRQ: the RAID controller's. Nothing else is the application's.
test_app_policy_touches_only_the_applications_devices() {
	local json
	json=$(adv r715 --json --policy app --app-node 1 --device megaraid_sas)
	expect_eq "0000:22:00.0" "$(jq -r '[.recommendations[].device] | unique | join(" ")' <<<"$json")" \
		"devices with recommendations"
	local status=0 err
	err=$(adv r715 --policy app --app-node 1 2>&1 >/dev/null) || status=$?
	expect_eq 2 "$status" "--policy app without --device or --app-pid"
	[[ $err == *--device* && $err == *--app-pid* ]] || die "the error does not name --device and --app-pid: $err"
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
	local lines port
	# Node 1 excluded: both X710 ports' 4 queues move to node 0's usable CPUs 0-2,8-10,
	# three cores (k and k + 8) for 4 queues each.
	lines=$(planned_irqs smt-isolated --policy spread --exclude-cpus 4-7,12-15 | grep -E '^0000:81:00\.[01] q[0-9]')
	expect_eq 8 "$(wc -l <<<"$lines")" "queue vectors of the two X710 ports"
	for port in 0000:81:00.0 0000:81:00.1; do
		# Queues 0-2 on three distinct cores, queue 3 on a sibling: two per core at most,
		# and never twice the same CPU.
		expect_eq 3 "$(awk -v p=$port '$1 == p && $2 != "q3" {print $3 % 8}' <<<"$lines" | sort -u | wc -l)" \
			"distinct cores for $port queues 0-2"
		expect_eq 4 "$(awk -v p=$port '$1 == p {print $3}' <<<"$lines" | sort -u | wc -l)" "distinct CPUs for $port"
		expect_eq 2 "$(awk -v p=$port '$1 == p {print $3 % 8}' <<<"$lines" | sort | uniq -c | awk '{print $1}' | sort -n | tail -1)" \
			"most queues of $port on one core"
	done
	# The two ports start at different cores: their queue 0s differ.
	expect_eq 2 "$(awk '$2 == "q0" {print $3 % 8}' <<<"$lines" | sort -u | wc -l)" "cores of the queue 0s"
}

test_r715_spread_per_device_over_distinct_cores() {
	local lines cpu
	# eth5's queues run on nodes 0 and 1: all 8 move to node 3 (CPUs 1,3,5,7), two per CPU,
	# while eth4's 8 queues, already there two per CPU, stay.
	lines=$(adv r715 --json | jq -r '.recommendations[] | select(.kind == "irq_affinity" and (.vector | test("^eth5-TxRx"))) | .recommended')
	expect_eq 8 "$(wc -l <<<"$lines")" "eth5 queues moved"
	for cpu in 1 3 5 7; do
		expect_eq 2 "$(grep -cx "$cpu" <<<"$lines")" "eth5 queues on CPU $cpu"
	done
	expect_eq 0 "$(adv r715 --json | jq '[.recommendations[] | select(.vector // "" | test("^eth4-TxRx"))] | length')" \
		"eth4 queues moved"
	expect_eq 8 "$(adv r715 --json | jq '[.kept[] | select(.vector | test("^eth4-TxRx"))] | length')" "eth4 queues kept"
}

# Issue 33's case: 8 busy ixgbe queues per port for node 3's 4 CPUs (eth4 and eth5, 16 in
# all). Each port on its own: one queue per core, offered as a judgement with its evidence,
# in no saved plan unless asked.
test_channels_offered_per_device_not_carried() {
	local json
	json=$(adv r715 --json)
	expect_eq "eth4 combined 8 combined 4 false
eth5 combined 8 combined 4 false" \
		"$(jq -r '.recommendations[] | select(.kind == "channels") | "\(.net) \(.current) \(.recommended) \(.carried)"' <<<"$json" | sort)" \
		"one queue per core for each ixgbe port"
	jq -e '[.recommendations[] | select(.kind == "channels")] | all(.command == "ethtool -L \(.net) combined 4" and .volume == null
		and (.reason | startswith("judgement: 8 busy data queues for 4 cores (CPUs 1,3,5,7): one queue per core"))
		and (.reason | test("cutting combined cuts its transmit queues too"))
		and (.reason | test("node tuning operator .*net.userLevelNetworking"))
		and (.reason | test("perftune.py .*2022-07-28")) and (.reason | test("offered, not in the plan")))' <<<"$json" >/dev/null ||
		die "channels: not a judgement with its command, its caveat and its peers: $(jq -c '[.recommendations[] | select(.kind == "channels")]' <<<"$json")"
	expect_eq true "$(jq '[.recommendations[] | select(.kind != "channels")] | all(.carried)' <<<"$json")" "other changes carried"
	adv r715 --save "$WORK/r715-offered.json" >/dev/null
	expect_eq 0 "$(jq '[.settings[] | select(.kind == "channels")] | length' "$WORK/r715-offered.json")" \
		"an offered judgement in the saved plan"
	# The report lists it too, as information.
	"$NUMAPLACE" --root "$FIXTURES/r715" report --json | jq -e '[.findings[] | select(.kind == "channels" and
		.severity == "info")] | length == 2' >/dev/null || die "report: the channel judgements are not info findings"
}

# Carried on request: the plan places the IRQs, XPS and RPS of the queues that stay only.
test_channels_per_core_carried_with_the_queues_that_stay() {
	local json
	json=$(adv r715 --channels per-core --json)
	expect_eq "eth4 true
eth5 true" "$(jq -r '.recommendations[] | select(.kind == "channels") | "\(.net) \(.carried)"' <<<"$json" | sort)" \
		"channels carried"
	jq -e '.recommendations[] | select(.kind == "channels") | .reason | test("carried on request")' <<<"$json" >/dev/null ||
		die "the reason does not say it is carried"
	adv r715 --channels per-core --save "$WORK/r715-cores.json" >/dev/null
	expect_eq "eth4 combined 4
eth5 combined 4" "$(jq -r '.settings[] | select(.kind == "channels") | "\(.net) \(.value)"' "$WORK/r715-cores.json" | sort)" \
		"channels in the saved plan"
	expect_eq "0 1 2 3" "$(jq -r '[.settings[] | select(.kind == "irq_affinity" and .device == "0000:23:00.1" and .queue != null)
		| .queue] | sort | map(tostring) | join(" ")' "$WORK/r715-cores.json")" "eth5's IRQs planned: the 4 queues that stay"
	expect_eq "0 1 2 3" "$(jq -r '[.settings[] | select(.kind == "xps_cpus" and .net == "eth5") | .queue] | sort
		| map(tostring) | join(" ")' "$WORK/r715-cores.json")" "eth5's XPS: the 4 queues that stay"
	expect_eq 4 "$(jq '[.settings[] | select(.kind == "rps_cpus" and .net == "eth4")] | length' "$WORK/r715-cores.json")" \
		"eth4's RPS: the 4 queues that stay"
}

# A busy queue is one that carries work: with half of eth4's queues idle (RSS over few
# flows), its 4 busy ones fit node 3's 4 cores and nothing is judged for it.
# with_counts FIXTURE COPY AWK: a copy of FIXTURE in $WORK/COPY whose /proc/interrupts AWK
# rewrote (fields 2-17: the 16 CPUs' counts); prints its root.
with_counts() {
	local root=$WORK/$2
	rm -rf "$root" && cp -a "$FIXTURES/$1" "$root"
	awk "$3"' { print }' "$FIXTURES/$1/proc/interrupts" >"$root/proc/interrupts"
	echo "$root"
}

test_channels_count_busy_queues() {
	local root
	root=$(with_counts r715 r715-idle '/ eth4-TxRx-[4-7]$/ { for (i = 2; i <= 17; i++) $i = 0 }')
	expect_eq "eth5" "$("$NUMAPLACE" --root "$root" advise --json | jq -r '.recommendations[] | select(.kind == "channels") | .net')" \
		"channels judged with eth4's queues 4-7 idle"
}

# RDMA completion vectors (irdma's CEQs), the ctrl VSI's and flow director's are no channels:
# e810's port has 8 ice queues on node 0's 8 cores, and 8 irdma vectors beside them (made as
# busy as the queues here, so that counting them would count 16).
test_channels_count_data_queues_only() {
	local root
	root=$(with_counts e810 e810-rdma '/ irdma-/ { for (i = 2; i <= 17; i++) $i *= 20 }')
	expect_eq 8 "$(grep -c ' irdma-0000:4b:00.0-' "$root/proc/interrupts")" "the fixture's irdma vectors"
	expect_eq 0 "$("$NUMAPLACE" --root "$root" advise --channels per-core --json |
		jq '[.recommendations[] | select(.kind == "channels")] | length')" "channels judged for e810's ice port"
}

# The real-time worker: 80 i40e queues per port, 6 housekeeping CPUs (3 cores). The busy
# ports get one queue per housekeeping core, the idle ones nothing: an idle queue costs
# a vector, not a core's time.
test_channels_real_time_worker() {
	local json
	json=$(adv rt-x710 --json)
	expect_eq "ens1f0 combined 80 combined 3
ens5f0 combined 80 combined 3" \
		"$(jq -r '.recommendations[] | select(.kind == "channels") | "\(.net) \(.current) \(.recommended)"' <<<"$json" | sort)" \
		"the busy ports' channels"
	expect_eq 0 "$(jq '[.recommendations[] | select(.carried)] | length' <<<"$json")" "changes on a placed worker"
}

# One queue per node (Tom Herbert's 2009 layout) is spread's, on request only.
test_channels_per_node_with_spread_only() {
	local json
	expect_eq 0 "$(adv amd16 --policy spread --json | jq '[.recommendations[] | select(.kind == "channels")] | length')" \
		"channels for 16 queues on 16 cores"
	json=$(adv amd16 --policy spread --channels per-node --json)
	expect_eq "eth0 combined 16 combined 4 true" \
		"$(jq -r '.recommendations[] | select(.kind == "channels") | "\(.net) \(.current) \(.recommended) \(.carried)"' <<<"$json")" \
		"one queue per node for eth0 (16 queues, 4 nodes)"
	jq -e '.recommendations[] | select(.kind == "channels") | .command == "ethtool -L eth0 combined 4"
		and (.reason | test("^judgement")) and (.reason | test("Tom Herbert measured best \\(netdev, 2009-11-24\\)"))
		and (.reason | test("2.6.37"))' <<<"$json" >/dev/null ||
		die "channels: no command field, or not labelled judgement with the citation and its caveat"
	adv amd16 --channels per-node >/dev/null 2>&1 && die "--channels per-node accepted without --policy spread"
	adv amd16 --channels 4 >/dev/null 2>&1 && die "--channels 4 accepted"
	true
}

# Channels are the kernel's answer (ethtool netlink), which a copy of a machine cannot give:
# a profile that sets them says so instead of reading a file.
test_channels_profile_needs_the_machine() {
	local out
	cat >"$WORK/ch-rule.json" <<-EOF
	{"format": "numaplace-profile/1", "name": "ch", "rules": [
	 {"match": {"driver": "ixgbe"}, "irqs": "local", "channels": "per-core"}]}
	EOF
	out=$("$NUMAPLACE" --root "$FIXTURES/r715" apply --dry-run "$WORK/ch-rule.json" 2>&1) &&
		die "a channels rule resolved on a copy of a machine: $out"
	grep -q "eth4 channels: asked of this machine's kernel (ethtool netlink), which --root '.*r715' is not" <<<"$out" ||
		die "unclear error: $out"
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
	jq -e '.notes[] | select(test("managed"))' <<<"$json" >/dev/null || die "no note about managed IRQs"
}

test_device_on_cpuless_node_goes_to_nearest_node() {
	# The GPU sits on memory-only node 2; node 0 is nearer (30) than node 1 (40). Its
	# vectors run on CPUs 0 and 1 already: kept. With CPU 0 excluded they keep to node 0.
	expect_eq "0-7 0-7" "$(planned_irqs nonode | awk '$1 == "0000:cb:00.0" {print $3}' | xargs)" "GPU vectors kept"
	expect_eq "1-3 1-3" "$(planned_irqs nonode --exclude-cpus 0 | awk '$1 == "0000:cb:00.0" {print $3}' | xargs)" \
		"GPU vectors with CPU 0 excluded"
}

test_numa_node_minus_one() {
	local json lines
	json=$(adv nonode --json)
	lines=$(planned_irqs nonode)
	# The NIC's local CPUs are exactly node 1's: node 1 is inferred.
	awk '$1 == "0000:17:00.0" {print $3}' <<<"$lines" | while read -r c; do
		[[ $c =~ ^[4-7](-[4-7])?$ ]] || die "NIC vector on CPU $c, not node 1"
	done
	# The RAID controller's local CPUs span both nodes: nothing recommended, and said so.
	[ -z "$(awk '$1 == "0000:31:00.0"' <<<"$lines")" ] || die "a plan for a device of unknown node"
	jq -e '.warnings[] | select(test("0000:31:00.0") and test("unknown"))' <<<"$json" >/dev/null ||
		die "no warning for the device of unknown node"
}

rq() { adv "$@" --json | jq -r '[.recommendations[] | select(.kind == "rq_affinity") | "\(.block)=\(.recommended)"] | join(" ")'; }

test_rq_affinity_from_seed_004() {
	local json
	# The MegaRAID (one queue) completes on node 3; the application is pinned on node 1's
	# CPUs, another L3: forcing completion on the submitters is what gained 12.9%.
	json=$(adv r715 --json --app-cpus 8,10 --device megaraid_sas)
	expect_eq "sda=2" "$(jq -r '[.recommendations[] | select(.kind == "rq_affinity") | "\(.block)=\(.recommended)"] | join(" ")' <<<"$json")" \
		"pinned submitters off the IRQ's L3"
	jq -e '.recommendations[] | select(.kind == "rq_affinity") | .reason | test("12.9%") and test("today")' <<<"$json" >/dev/null ||
		die "the reason does not give the seed's numbers and today's meaning"
	# The plan puts the IRQ on the submitters' CPUs: no gain measured, nothing recommended.
	expect_eq "" "$(rq r715 --policy app --app-node 1 --device megaraid_sas)" "IRQ on the submitters"
	# No application placement: the -14% case.
	expect_eq "" "$(rq r715)" "unpinned submitters"
	# NVMe: a managed queue per CPU, completion already local.
	expect_eq "" "$(rq smt-isolated --app-cpus 4-6)" "per-CPU managed queues"
}

test_irqbalance_running_is_warned_with_how_to_ban() {
	adv r715 --json | jq -e '.warnings[] | select(test("irqbalance") and test("banirq"))' >/dev/null ||
		die "no irqbalance warning with a ban recipe"
}

test_already_right_machines_get_no_changes() {
	local f
	for f in placed vm1; do
		expect_eq 0 "$(adv $f --json | jq '.recommendations | length')" "$f: recommendations"
		adv $f | head -2 | tr -s '\n ' '  ' | grep -q "already follows this plan" || die "$f: not said to follow the plan"
	done
	adv vm1 | grep -q "^note: one NUMA node and one L3 cache domain" || die "vm1: the one-node note is missing"
	# The AHCI controller pinned on one CPU of its node stays pinned, not widened to the node.
	expect_eq "2" "$(adv placed --json | jq -r '.kept[] | select(.vector | test("ahci")) | .cpus')" "AHCI kept on CPU 2"
}

test_isolated_worker() {
	local json
	json=$(adv rt-ice16 --json)
	# Busy queues pinned on isolated CPUs always move, to the housekeeping CPUs 0,4,8,12.
	expect_eq "0 12 4 8" "$(jq -r '[.recommendations[] | select(.kind == "irq_affinity" and (.vector | test("ens2f0-TxRx"))) | .recommended] | unique | join(" ")' <<<"$json")" \
		"CPUs of ens2f0's queues"
	jq -e '.warnings[] | select(test("managed IRQs on isolated CPUs 1-3,5-7"))' <<<"$json" >/dev/null ||
		die "managed IRQs on isolated CPUs not reported"
	jq -e '.warnings[] | select(test("irq 45 .*affinity not honoured"))' <<<"$json" >/dev/null ||
		die "the IRQ running outside its affinity is not reported"
	# The application (CCX 1's isolated CPUs) gets its devices' IRQs on CCX 1's housekeeping core.
	json=$(adv rt-ice16 --json --policy app --app-pid 4242)
	expect_eq "12 4" "$(jq -r '[.recommendations[] | select(.kind == "irq_affinity" and (.vector | test("TxRx"))) | .recommended] | unique | join(" ")' <<<"$json")" \
		"CPUs of the application's NIC queues"
	expect_eq 0 "$(jq '[.recommendations[] | select(.device == "0000:41:00.1")] | length' <<<"$json")" \
		"recommendations for the NIC the application does not use"
}

test_app_pid_inference() {
	local json
	json=$(adv rt-ice16 --json --policy app --app-pid 4242)
	jq -e '.notes[] | select(test("nvme0n1 \\(0000:01:00.0\\): its open file /var/lib/rt/journal.dat"))' <<<"$json" >/dev/null ||
		die "the block device behind the open file is not inferred"
	jq -e '.notes[] | select(test("ens2f0 \\(0000:41:00.0\\): a tcp socket \\(port 8080\\)"))' <<<"$json" >/dev/null ||
		die "the interface behind the TCP socket is not inferred"
	jq -e '.notes[] | select(test("every address"))' <<<"$json" >/dev/null || die "the wildcard UDP socket is not said"
	local status=0
	adv rt-ice16 --policy app --app-pid 999 >/dev/null 2>&1 || status=$?
	expect_eq 1 "$status" "a process that does not exist"
}

# x86 has about 200 vectors per CPU: a CPU that holds them gets no more queues.
test_vector_budget() {
	local root=$WORK/vectors n c counts
	rm -rf "$root" && cp -a "$FIXTURES/amd16" "$root"
	# 200 more IRQs (of a device numaplace does not list) pinned on CPU 4
	for ((n = 100; n < 300; n++)); do
		counts=""
		for ((c = 0; c < 16; c++)); do counts+=$(printf '%10u ' $((c == 4 ? 5 : 0))); done
		printf '%3d: %s PCI-MSIX-0000:99:00.0 %3d-edge  fake%d\n' $n "$counts" $((n - 100)) $n
		mkdir -p "$root/proc/irq/$n"
		echo 4 >"$root/proc/irq/$n/smp_affinity_list"
		echo 4 >"$root/proc/irq/$n/effective_affinity_list"
	done >"$WORK/more-irqs"
	awk -v more="$WORK/more-irqs" '/^ *NMI:/ { while ((getline l < more) > 0) print l } { print }' \
		"$FIXTURES/amd16/proc/interrupts" >"$root/proc/interrupts"
	local json
	json=$("$NUMAPLACE" --root "$root" advise --json)
	expect_eq 0 "$(jq '[.recommendations[] | select(.kind == "irq_affinity" and .recommended == "4")] | length' <<<"$json")" \
		"queues placed on the full CPU 4"
	jq -e '.warnings[] | select(test("CPU 4 already holds 200 vectors"))' <<<"$json" >/dev/null || die "the budget is not said"
}

# Applicable recommendations: those the plan carries (a channel count is offered only).
applicable() { jq '[.recommendations[] | select(.carried)] | length'; }

test_advise_is_idempotent_after_apply_on_every_fixture() {
	local f np
	for f in amd16 smt-isolated nonode offline rt-ice16 placed vm1 e810 flat8 amd16-cpu0; do
		rm -rf "${WORK:?}/$f" && cp -a "$FIXTURES/$f" "$WORK/$f"
		np=("$NUMAPLACE" --root "$WORK/$f")
		"${np[@]}" advise -o "$WORK/$f.json" >/dev/null
		"${np[@]}" apply --irqbalance=warn "$WORK/$f.json" >/dev/null 2>&1 || die "$f: apply failed"
		expect_eq 0 "$("${np[@]}" advise --json | applicable)" "$f: recommendations after apply"
	done
}

test_advise_is_idempotent_after_apply() {
	rm -rf "$WORK/r715" && cp -a "$FIXTURES/r715" "$WORK/r715"
	local np=("$NUMAPLACE" --root "$WORK/r715")
	"${np[@]}" advise -o "$WORK/r715.json" >/dev/null
	"${np[@]}" apply "$WORK/r715.json" >/dev/null
	expect_eq 0 "$("${np[@]}" advise --json | applicable)" "recommendations after apply"
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

# The grouped text reads at 80 columns: no line wider on any fixture, under every policy
# that needs nothing more, and every change's device has its group.
test_advise_text_fits_80_columns_on_every_fixture() {
	local dir f pol out
	for dir in "$FIXTURES"/*/; do
		f=$(basename "$dir")
		[ -d "$dir/proc" ] || continue
		for pol in local spread; do
			out=$("$NUMAPLACE" --root "$dir" advise --policy "$pol" 2>/dev/null)
			awk -v f="$f $pol" 'length($0) > 80 { print f ": " length($0) " columns: " $0; bad = 1 } END { exit bad }' \
				<<<"$out" || die "advise text wider than 80 columns"
		done
	done
	out=$("$NUMAPLACE" --root "$FIXTURES/r715" advise)
	grep -q '^eth5 0000:23:00.1 (ixgbe, node 3): ' <<<"$out" || die "no heading line for eth5's group: $out"
	grep -q '^  for: node 3, the device.s node$' <<<"$out" || die "the shared reason is not said once: $out"
}
