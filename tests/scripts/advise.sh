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
	# Every device's interrupts count: the NVMe's two busy managed queues (2.9M each) keep
	# cores 0 and 2 (CPUs 0 and 2), so both ports' queue 0s go to core 1, the idle one.
	expect_eq 1 "$(awk '$2 == "q0" {print $3 % 8}' <<<"$lines" | sort -u)" "core of the queue 0s"
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
	# The NIC's local CPUs are exactly node 1's: node 1 is inferred for its busy
	# completion vectors; its async vector (5 a second) is idle and stays where it is.
	awk '$1 == "0000:17:00.0" && $2 ~ /comp/ {print $3}' <<<"$lines" | while read -r c; do
		[[ $c =~ ^[4-7](-[4-7])?$ ]] || die "NIC vector on CPU $c, not node 1"
	done
	expect_eq "0-7" "$(awk '$1 == "0000:17:00.0" && $2 ~ /async/ {print $3}' <<<"$lines")" "the idle async vector's CPUs"
	# The RAID controller's local CPUs span both nodes: nothing recommended, and said so.
	[ -z "$(awk '$1 == "0000:31:00.0"' <<<"$lines")" ] || die "a plan for a device of unknown node"
	jq -e '.warnings[] | select(test("0000:31:00.0") and test("unknown"))' <<<"$json" >/dev/null ||
		die "no warning for the device of unknown node"
}

rq() { adv "$@" --json | jq -r '[.recommendations[] | select(.kind == "rq_affinity") | "\(.block)=\(.recommended)"] | join(" ")'; }

test_rq_affinity_from_seed_004() {
	local json
	# The MegaRAID (one queue) completes on node 3, one L3 (a Magny-Cours die). Submitters
	# pinned on node 3's other CPUs: today's 1 completes their requests on the IRQ's CPU,
	# 2 on each of them, as the seed's rq_affinity=1 did (+12.9%).
	json=$(adv r715 --json --app-cpus 1,3 --device megaraid_sas)
	expect_eq "sda=2" "$(jq -r '[.recommendations[] | select(.kind == "rq_affinity") | "\(.block)=\(.recommended)"] | join(" ")' <<<"$json")" \
		"pinned submitters in the IRQ CPU's L3"
	jq -e '.recommendations[] | select(.kind == "rq_affinity") | .reason | test("12.9%") and test("blk_mq_complete_need_ipi")' <<<"$json" >/dev/null ||
		die "the reason does not give the seed's numbers and what the kernel does"
	# Pinned on node 1, another L3: today's 1 already sends each completion there.
	expect_eq "" "$(rq r715 --app-cpus 8,10 --device megaraid_sas)" "pinned submitters off the IRQ's L3"
	# The plan puts the IRQ on the submitter's CPU: no gain measured, nothing recommended.
	expect_eq "" "$(rq r715 --policy app --app-cpus 8 --device megaraid_sas)" "IRQ on the submitter"
	# On the submitters' node, one CPU of them delivers it: the others share its L3.
	expect_eq "sda=2" "$(rq r715 --policy app --app-node 1 --device megaraid_sas)" "IRQ among the submitters"
	# No application placement: the -14% case.
	expect_eq "" "$(rq r715)" "unpinned submitters"
	# NVMe: a managed queue per CPU, completion already local.
	expect_eq "" "$(rq smt-isolated --app-cpus 4-6)" "per-CPU managed queues"
	# Forced IRQ threads (threadirqs): no IPI whatever the value: nothing, and said why.
	expect_eq "" "$(rq rt-guest --app-cpus 5-6)" "threadirqs"
	adv rt-guest --json --app-cpus 5-6 | jq -e '.notes[] | select(test("sda\\): rq_affinity left as it is: IRQ handlers run in threads here \\(threadirqs"))' >/dev/null ||
		die "threadirqs not said"
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
	# Its NVMe's managed queues serve isolated core pairs only (masks 2-3, 6-7...): they fire
	# only for I/O submitted there and managed_irq cannot move them: a note, no boot advice.
	jq -e '.notes[] | select(test("6 managed IRQs on isolated CPUs 1-3,5-7 serve only isolated CPUs"))' <<<"$json" >/dev/null ||
		die "managed IRQs wholly on isolated CPUs not said"
	jq -e '[.warnings[] | select(test("isolcpus=managed_irq"))] | length == 0' <<<"$json" >/dev/null ||
		die "boot advice for masks managed_irq would not change"
	jq -e '.warnings[] | select(test("irq 45 .*affinity not honoured"))' <<<"$json" >/dev/null ||
		die "the IRQ running outside its affinity is not reported"
	# The application (CCX 1's isolated CPUs) gets its devices' IRQs on CCX 1's housekeeping core.
	json=$(adv rt-ice16 --json --policy app --app-pid 4242)
	expect_eq "12 4" "$(jq -r '[.recommendations[] | select(.kind == "irq_affinity" and (.vector | test("TxRx"))) | .recommended] | unique | join(" ")' <<<"$json")" \
		"CPUs of the application's NIC queues"
	expect_eq 0 "$(jq '[.recommendations[] | select(.device == "0000:41:00.1")] | length' <<<"$json")" \
		"recommendations for the NIC the application does not use"
}

# Every written IRQ, RPS and default affinity as "kind value" lines, for the CPU checks.
written_cpus() {
	jq -r '.recommendations[] | select(.kind == "irq_affinity" or .kind == "rps_cpus" or
		.kind == "xps_cpus" or .kind == "default_irq_affinity") | .recommended'
}

# True when the CPU list $1 holds a CPU of the list $2.
cpus_meet() {
	local a b
	for a in $(expand_cpus "$1"); do
		for b in $(expand_cpus "$2"); do [ "$a" = "$b" ] && return 0; done
	done
	return 1
}
expand_cpus() {
	local part
	for part in ${1//,/ }; do
		if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
	done
}

# irqbalance's banned CPUs (both forms) and TuneD's isolated cores are kept free
# of every value the plan writes, named in the reasons; IRQs someone pinned on
# CPUs only irqbalance bans stay, with a note.
test_forbidden_sources() {
	local json v
	json=$(adv banned --json)
	for v in $(written_cpus <<<"$json"); do
		! cpus_meet "$v" 6-7 || die "banned: the plan writes $v, which holds banned CPU 6 or 7"
	done
	expect_eq "" "$(jq -r '.recommendations[] | select(.irq == 40 or .irq == 41) | .irq' <<<"$json")" \
		"the completion vectors pinned on banned CPUs 6 and 7 stay"
	jq -e '.notes[] | select(test("2 IRQs pinned on CPUs 6-7, which irqbalance.s configuration bans"))' <<<"$json" >/dev/null ||
		die "banned: the pinned IRQs are not said"
	jq -e '.notes[] | select(test("IRQBALANCE_BANNED_CPULIST=7 in Environment= of") and
		test("IRQBALANCE_BANNED_CPUS=6 in /etc/sysconfig/irqbalance"))' <<<"$json" >/dev/null ||
		die "banned: where the bans come from is not said"
	jq -e '.recommendations[] | select(.irq == 37) | .reason | test("irqbalance-banned CPUs 6-7")' <<<"$json" >/dev/null ||
		die "banned: the async vector's reason does not name irqbalance"
	expect_eq "6-7" "$("$NUMAPLACE" --root "$FIXTURES/banned" report --json | jq -r .irqbalance.banned_cpus)" \
		"report --json: irqbalance's banned CPUs"
	json=$(adv tuned --json)
	for v in $(written_cpus <<<"$json"); do
		! cpus_meet "$v" 6-7 || die "tuned: the plan writes $v, which holds TuneD-isolated CPU 6 or 7"
	done
	expect_eq "4 5" "$(jq -r '[.recommendations[] | select(.irq == 40 or .irq == 41) | .recommended] | sort | join(" ")' <<<"$json")" \
		"tuned: the completion vectors on TuneD's cores move to the node's others"
	jq -e '.recommendations[] | select(.irq == 40) | .reason | test("TuneD-isolated CPU 6")' <<<"$json" >/dev/null ||
		die "tuned: the reason does not name TuneD"
	json=$(adv tuned-unevaluated --json)
	expect_eq 0 "$(jq '.recommendations | length' <<<"$json")" "tuned-unevaluated: nothing kept free, nothing moved"
	jq -e '.notes[] | select(test("isolated_cores=\\$\\{f:calc_isolated_cores:1\\} in /etc/tuned/realtime-variables.conf is evaluated by TuneD only"))' \
		<<<"$json" >/dev/null || die "tuned-unevaluated: the value not read is not said"
}

# What the kernel does without interrupt remapping and with managed queues
# (rt-guest: a KVM guest, 6.1): idle queues whose new mask waits for their next
# interrupt are notes, not refusals; a managed mask mixing isolated and
# housekeeping CPUs gets the boot option, wholly isolated ones do not.
test_kernel_semantics() {
	local json
	json=$(adv rt-guest --json)
	jq -e '.notes[] | select(test("^0000:00:03.0 \\(eth0\\): 2 IRQs move when they next fire: irq 27 virtio0-input.1 to CPU 2 \\(on CPU 0 until then\\)"))' \
		<<<"$json" >/dev/null || die "the deferred move is not said"
	expect_eq 0 "$(jq '[.warnings[] | select(test("not honoured"))] | length' <<<"$json")" "deferred moves called refusals"
	jq -e '.warnings[] | select(test("1 managed IRQ on isolated CPU 1 whose mask also holds housekeeping CPUs") and
		test("isolcpus=managed_irq,1,3,7"))' <<<"$json" >/dev/null || die "no boot advice for the mixed mask"
	jq -e '.notes[] | select(test("2 managed IRQs on isolated CPUs 3,7 serve only isolated CPUs"))' <<<"$json" >/dev/null ||
		die "the wholly isolated masks are not said"
	# With interrupt remapping a mask the kernel did not follow is a refusal.
	json=$(adv rt-ice16 --json)
	jq -e '.warnings[] | select(test("irq 45 .*affinity not honoured"))' <<<"$json" >/dev/null ||
		die "a remapped IRQ outside its affinity is not a warning"
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

# Machines already placed get nothing, whatever placed them: irqbalance with its idle
# vectors piled anywhere (irqb112: 10 idle queues on CPU 50, others on the far node), a
# hand-placed server (placed, e810, wide112), a VM (vm1).
test_placed_machines_get_nothing() {
	local f
	for f in irqb112 placed e810 wide112 vm1; do
		expect_eq 0 "$("$NUMAPLACE" --root "$FIXTURES/$f" advise --json | applicable)" "$f: changes"
	done
}

# The real 32-CPU worker (OpenShift, RHEL 9.4): of its NICs only eno3 is busy, and its CPU 28
# delivers three of its queues, a third of its interrupts: the two lighter ones move, and
# nothing else (its ixgbe ports' 64 queues, about 1k interrupts each since boot, stay).
test_real_worker_moves_only_what_carries_load() {
	local out root=$WORK/worker-minute
	# As copied: counts since an unknown boot (no /proc/uptime, no /proc/stat)
	# show no load, so nothing moves for balance; the placed worker keeps all.
	out=$("$NUMAPLACE" --root "$SNAPSHOTS/cnto-worker2.tgz" advise --json)
	expect_eq 0 "$(jq '.recommendations | length' <<<"$out")" "changes with the load unknown"
	# The same counts over a minute: eno3's two lighter queues on CPU 28 move.
	rm -rf "$root" && cp -a "$(snapshot_root cnto-worker2.tgz)" "$root"
	echo "60.00 100.00" >"$root/proc/uptime"
	out=$("$NUMAPLACE" --root "$root" advise --json)
	expect_eq "eno3-TxRx-5 28
eno3-TxRx-6 28" "$(jq -r '.recommendations[] | select(.kind == "irq_affinity") | "\(.vector) \(.current)"' <<<"$out" | sort)" \
		"the IRQs moved"
	expect_eq 2 "$(jq '.recommendations | length' <<<"$out")" "changes"
}

# Dense SMT (2 x 26 cores x 2 threads): 63 busy completion vectors, three on each of the
# first threads of cores 0-10 and none on their siblings. Only the third of each moves, to a
# thread holding none: no thread keeps three while another holds none.
test_smt_no_third_vector_while_a_thread_is_empty() {
	local out after
	out=$("$NUMAPLACE" --root "$FIXTURES/smt104" advise --json)
	expect_eq 11 "$(jq '[.recommendations[] | select(.kind == "irq_affinity")] | length' <<<"$out")" "IRQs moved"
	after=$( {
		jq -r '.recommendations[] | select(.kind == "irq_affinity") | "\(.irq) \(.recommended)"' <<<"$out"
		jq -r '.kept[] | "\(.irq) \(.cpus)"' <<<"$out"
	} | sort -un -k1,1 | awk '$2 ~ /^[0-9]+$/ {print $2}' | sort -n | uniq -c | awk '{print $1}' | sort -n | tail -1)
	expect_eq 2 "$after" "most completion vectors on one thread after the plan"
}

# A profile's rule has no volume floor: it places a device whose IRQs have not fired yet
# (as hold finds them after a re-probe). irqb112's second port is idle, its queues on both
# nodes: advise leaves it, a rule moves its node-1 queues to node 0.
test_profile_rule_places_idle_vectors() {
	cat >"$WORK/idle-rule.json" <<-EOF
	{"format": "numaplace-profile/1", "name": "idle", "rules": [
	 {"match": {"net": "ens3f1"}, "irqs": "local"}]}
	EOF
	expect_eq 0 "$("$NUMAPLACE" --root "$FIXTURES/irqb112" advise --json --device ens3f1 | applicable)" \
		"advise's changes for the idle port"
	local out
	out=$("$NUMAPLACE" --root "$FIXTURES/irqb112" apply --dry-run --json "$WORK/idle-rule.json" 2>/dev/null)
	expect_eq 28 "$(jq '[.changes[] | select(.change and (.subject | test("ens3f1-TxRx")))] | length' <<<"$out")" \
		"the rule's moves of the idle port's node-1 queues"
}
