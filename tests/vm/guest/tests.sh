# SPDX-License-Identifier: GPL-2.0-or-later
# The tests that run inside the guest, on its real kernel: test_NAME, named
# in a layout's LAYOUT_TESTS. Each runs in its own subshell (set -eu) and
# passes on exit 0; what it says with note is shown with its verdict.
# They hold numaplace to what the kernel itself shows, read independently
# here (sysfs, /proc/irq, /proc/interrupts, numa_maps).

# --- what numaplace reads equals what the kernel shows

# Every PCI function's node, local CPUs and MSI vectors; every IRQ's
# affinity and effective CPUs; the topology, also as hwloc reads it.
test_report_agrees() {
	local json d dev want got n=0
	json=$("$NP" devices --all --json)
	for d in /sys/bus/pci/devices/*; do
		dev=${d##*/}
		want="$(cat "$d/numa_node") $(cat "$d/local_cpulist") $(ls "$d/msi_irqs" 2>/dev/null | sort -n | paste -sd,)"
		# An empty local_cpulist (a device on a node without CPUs) is
		# unknown to numaplace, as every empty file is: null.
		got=$(jq -r --arg d "$dev" '.devices[] | select(.device == $d) |
			"\(.numa_node) \(.local_cpus // "") \(.irqs | map(tostring) | join(","))"' <<<"$json")
		expect_eq "$want" "$got" "$dev's node, local CPUs and MSI vectors"
		n=$((n + 1))
	done
	# Read the IRQs twice around numaplace: a vector that fired in between
	# may have followed a pending move (then the two readings differ).
	local before after
	before=$(irq_state)
	json=$("$NP" irqs --json)
	after=$(irq_state)
	if [ "$before" != "$after" ]; then
		note "an IRQ moved while numaplace read: read again"
		json=$("$NP" irqs --json)
		after=$(irq_state)
	fi
	got=$(jq -r '.irqs[] | "\(.irq) \(.affinity) \(.effective)"' <<<"$json" | sort -n)
	expect_eq "$(sort -n <<<"$after")" "$got" "each IRQ's affinity and effective CPUs"
	# The topology: nodes, their CPUs and distances as sysfs says, and hwloc.
	json=$("$NP" topo --json)
	for d in /sys/devices/system/node/node[0-9]*; do
		want="$(cat "$d/cpulist") $(cat "$d/distance") $([ -n "$(cat "$d/cpulist")" ] && echo false || echo true)"
		got=$(jq -r --argjson n "${d##*node}" '.nodes[] | select(.node == $n) |
			"\(.cpus) \(.distances | map(tostring) | join(" ")) \(.memory_only)"' <<<"$json")
		expect_eq "$want" "$got" "node ${d##*node}'s CPUs, distances and memory-only"
	done
	# nohz_full reads "(null)" when the kernel has none.
	expect_eq "$(cat /sys/devices/system/cpu/isolated) $(sed 's/^ *(null)$//' /sys/devices/system/cpu/nohz_full)" \
		"$(jq -r '"\(.isolated) \(.nohz_full)"' <<<"$json")" "isolated and nohz_full CPUs"
	/vm/hwloc-agree / <<<"$json" || die "hwloc disagrees with numaplace topo"
	note "$n PCI functions, $(irqs_named . | wc -l) IRQs"
}
# Each IRQ's affinity and effective CPUs, as /proc/irq shows them.
irq_state() {
	local irq
	for irq in $(irqs_named .); do
		echo "$irq $(cat /proc/irq/$irq/smp_affinity_list) $(cat /proc/irq/$irq/effective_affinity_list)"
	done
}

# advise's view of each IRQ it keeps or changes is the kernel's: the CPUs it
# says an IRQ has now are its smp_affinity_list.
test_advise_agrees() {
	local json
	json=$("$NP" advise --json)
	jq -r '(.recommendations[]?, .kept[]?) | select(.irq != null) | "\(.irq) \(.current // .cpus)"' <<<"$json" >/tmp/advise.irqs
	[ -s /tmp/advise.irqs ] || die "advise judged no IRQ: $json"
	local irq cpus n=0
	while read -r irq cpus; do
		expect_eq "$(cat /proc/irq/$irq/smp_affinity_list)" "$cpus" "IRQ $irq's CPUs now, as advise says"
		n=$((n + 1))
	done </tmp/advise.irqs
	note "$n IRQs judged"
}

# A node with memory and no CPUs: numaplace's CPUs "near" it are those of the
# nearest nodes with CPUs by the firmware's distances, and run --near a device
# on it binds to them.
test_cpuless_nearest() {
	local d node best= bestd=1000 dist i n json want
	json=$("$NP" topo --json)
	for d in /sys/devices/system/node/node[0-9]*; do
		[ -z "$(cat "$d/cpulist")" ] || continue
		node=${d##*node}
		best= bestd=1000
		i=0
		for dist in $(cat "$d/distance"); do
			n=$i
			i=$((i + 1))
			[ -n "$(cat /sys/devices/system/node/node$n/cpulist)" ] || continue
			if [ "$dist" -lt "$bestd" ]; then best=$n bestd=$dist; elif [ "$dist" = "$bestd" ]; then best+=" $n"; fi
		done
		want=$(for n in $best; do expand_cpus "$(cpus_of_node "$n")"; done | sort -n | paste -sd,)
		expect_eq "$want" "$(expand_cpus "$(jq -r --argjson n "$node" '.nodes[] | select(.node == $n) | .near_cpus' <<<"$json")" | sort -n | paste -sd,)" \
			"CPUs near memory-only node $node (nearest: node $best at $bestd)"
		note "node $node: nearest node(s) $best at distance $bestd"
	done
	[ -n "$best" ] || die "this layout has no memory-only node"
	ENET=$(net_of_driver e1000e) || return 0
	local out
	out=$("$NP" run --near "$ENET" -- cat /proc/self/status)
	expect_eq "$want" "$(expand_cpus "$(awk '/^Cpus_allowed_list:/ { print $2 }' <<<"$out")" | paste -sd,)" \
		"run --near $ENET (on memory-only node $node)'s CPUs"
}

# Network load: pings from each CPU at once, each the next as soon as the
# last one's reply came (-A); tun brings each reply back on the queue its
# request left on, and XPS spreads those over the queues.
network_load() {
	local c pids=()
	for c in $(expand_cpus "$(cat /sys/devices/system/cpu/online)"); do
		taskset -c "$c" ping -A -q -c "$1" -w 120 10.77.0.1 >/dev/null 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}" || true
}

# A cloud VM as some images leave it: every queue of the NIC on CPU 0 (set
# here, then delivered there under load). advise's plan spreads them; it
# applies, verify matches, and once the moved queues fired (their moves wait
# for that without interrupt remapping) advise asks for nothing more; revert
# gives every byte back.
test_advise_apply() {
	local before n out irq
	for irq in $(irqs_named '^virtio[0-9]+-(input|output)'); do
		echo 0 >/proc/irq/$irq/smp_affinity_list
	done
	network_load 3000
	before=$(machine_state)
	"$NP" advise --save /tmp/plan.json >/tmp/advise.txt
	cat /tmp/advise.txt
	n=$("$NP" advise --json | jq '.recommendations | length')
	[ "$n" -gt 0 ] || die "advise recommends nothing with every queue on CPU 0: $(head -5 /tmp/advise.txt)"
	out=$("$NP" apply /tmp/plan.json) || die "apply of advise's plan failed: $out"
	"$NP" verify /tmp/plan.json || die "verify of advise's plan after its apply: exit $?"
	network_load 300
	"$NP" advise >/tmp/advise2.txt
	cat /tmp/advise2.txt
	expect_eq 0 "$("$NP" advise --json | jq '.recommendations | length')" "recommendations after applying advise's plan"
	"$NP" revert >/dev/null
	diff <(echo "$before") <(machine_state) || die "revert did not give back every byte"
	note "$n changes recommended, applied, verified, reverted"
}

# A real-time worker: the kernel's isolated and nohz_full CPUs are numaplace's;
# advise's plan puts no IRQ there and keeps new IRQs off them; applied, no IRQ
# it placed may run there.
test_isolated_kept_free() {
	local iso json irq cpus c n=0
	iso=$(cat /sys/devices/system/cpu/isolated)
	[ -n "$iso" ] || die "no isolated CPUs in this guest"
	network_load 2000
	json=$("$NP" advise --json)
	"$NP" advise --save /tmp/plan.json >/dev/null
	while read -r irq cpus; do
		for c in $(expand_cpus "$cpus"); do
			[[ ,$(expand_cpus "$iso" | paste -sd,), != *,$c,* ]] || die "advise puts IRQ $irq on isolated CPU $c ($cpus)"
		done
		n=$((n + 1))
	done < <(jq -r '.recommendations[]? | select(.kind == "irq_affinity") | "\(.irq) \(.recommended)"' <<<"$json")
	if [ "$n" -gt 0 ]; then
		"$NP" apply /tmp/plan.json >/dev/null
		"$NP" verify /tmp/plan.json
		for irq in $(jq -r '.recommendations[]? | select(.kind == "irq_affinity") | .irq' <<<"$json"); do
			for c in $(expand_cpus "$(cat /proc/irq/$irq/smp_affinity_list)"); do
				[[ ,$(expand_cpus "$iso" | paste -sd,), != *,$c,* ]] || die "IRQ $irq may run on isolated CPU $c after the apply"
			done
		done
		# The kernel's default held every CPU: the plan keeps new IRQs off
		# the isolated ones too.
		local mask
		mask=$(tr -d ',\n' </proc/irq/default_smp_affinity)
		for c in $(expand_cpus "$iso"); do
			[ $(((16#$mask >> c) & 1)) = 0 ] || die "default_smp_affinity $mask holds isolated CPU $c after the apply"
		done
		"$NP" revert >/dev/null
	else
		# Nothing to place: then no IRQ the kernel lets us move runs there.
		irq=$("$NP" irqs --json | jq -r --arg iso "$(expand_cpus "$iso" | paste -sd,)" \
			'.irqs[] | select(.managed != true) | select(.effective | split(",") | any(. as $c | $iso | split(",") | index($c))) | .irq' | head -n 1)
		[ -z "$irq" ] || die "advise places nothing, yet IRQ $irq runs on an isolated CPU"
	fi
	note "isolated $iso; $n IRQs placed by advise, none on them"
}

# --- apply, verify, revert on the real kernel

# Every value numaplace may change here, byte for byte.
machine_state() {
	local f
	for f in /proc/irq/*/smp_affinity_list /proc/irq/default_smp_affinity /sys/block/*/queue/rq_affinity \
		/sys/class/net/*/queues/[rt]x-*/[rx]ps_cpus /etc/default/irqbalance; do
		[ -r "$f" ] && printf '%s %s\n' "$f" "$(cat "$f" 2>/dev/null)"
	done
	return 0
}
# irqbalance as Debian installs it, not running: apply bans the IRQs it places.
irqbalance_conf() {
	mkdir -p /etc/default
	printf '%s\n' '# irqbalance' '#IRQBALANCE_ONESHOT=' '#IRQBALANCE_BANNED_CPULIST=' >/etc/default/irqbalance
}
# profile NAME SETTING...: a profile of settings (JSON objects) in /tmp/NAME.json.
profile() {
	local name=$1
	shift
	local IFS=,
	printf '{"format": "numaplace-profile/1", "name": "%s", "settings": [%s]}\n' "$name" "$*" >"/tmp/$name.json"
}

# IRQ, rq_affinity, RPS, XPS, the default IRQ affinity and irqbalance's bans in
# one transaction: each written value reads back, verify sees it and sees
# drift, and revert gives every byte back.
test_apply_verify_revert() {
	irqbalance_conf
	local before irq out
	before=$(machine_state)
	profile vm-apply \
		"{\"kind\": \"irq_affinity\", \"device\": \"$VNET\", \"queue\": 1, \"cpus\": \"5\"}" \
		"{\"kind\": \"irq_affinity\", \"device\": \"$VNET\", \"queue\": 2, \"cpus\": \"4\"}" \
		"{\"kind\": \"rps_cpus\", \"net\": \"$VNET\", \"queue\": 0, \"cpus\": \"4-5\"}" \
		"{\"kind\": \"xps_cpus\", \"net\": \"$VNET\", \"queue\": 3, \"cpus\": \"4\"}" \
		"{\"kind\": \"rq_affinity\", \"block\": \"$NVME_DISK\", \"value\": 2}" \
		"{\"kind\": \"default_irq_affinity\", \"cpus\": \"4-5\"}"
	out=$("$NP" apply --irqbalance ban /tmp/vm-apply.json) || die "apply failed: $out"
	echo "$out"
	irq=$(irqs_named "^virtio[0-9]+-input\\.1\$")
	expect_eq 5 "$(cat /proc/irq/$irq/smp_affinity_list)" "input.1's smp_affinity_list"
	expect_eq 2 "$(cat /sys/block/$NVME_DISK/queue/rq_affinity)" "rq_affinity"
	expect_eq 30 "$(cat /sys/class/net/$VNET/queues/rx-0/rps_cpus | sed 's/^0*//')" "rx-0's rps_cpus"
	expect_eq 10 "$(cat /sys/class/net/$VNET/queues/tx-3/xps_cpus | sed 's/^0*//')" "tx-3's xps_cpus"
	expect_eq 30 "$(sed 's/^0*//' /proc/irq/default_smp_affinity)" "default_smp_affinity"
	grep -q -- "--banirq=$irq" /etc/default/irqbalance || die "irqbalance's file bans no IRQ $irq: $(cat /etc/default/irqbalance)"
	"$NP" verify /tmp/vm-apply.json || die "verify after apply: exit $?"
	# Drift made by hand is seen, and named.
	echo 1 >/sys/block/$NVME_DISK/queue/rq_affinity
	local status=0
	out=$("$NP" verify /tmp/vm-apply.json) || status=$?
	expect_eq 1 "$status" "verify's exit on drift ($out)"
	[[ $out == *rq_affinity* ]] || die "verify does not name the drifted rq_affinity: $out"
	echo 2 >/sys/block/$NVME_DISK/queue/rq_affinity
	out=$("$NP" revert) || die "revert failed: $out"
	echo "$out"
	diff <(echo "$before") <(machine_state) || die "revert did not give back every byte"
}

# A managed IRQ (the NVMe's per-CPU queues): the kernel refuses a write with
# its own errno, numaplace refuses the profile and changes nothing, and a
# profile that also holds a movable IRQ is not half-applied.
test_managed_refused() {
	local irq err before status=0 out
	irq=$(irqs_named '^nvme0q1$')
	[ -n "$irq" ] || die "no nvme0q1 in /proc/interrupts"
	err=$( (echo 0 >/proc/irq/$irq/smp_affinity_list) 2>&1) && die "the kernel took a write to managed IRQ $irq"
	note "kernel: ${err##*: }"
	before=$(machine_state)
	profile vm-managed \
		"{\"kind\": \"irq_affinity\", \"device\": \"$VNET\", \"queue\": 1, \"cpus\": \"4\"}" \
		"{\"kind\": \"irq_affinity\", \"device\": \"$NVME_DISK\", \"queue\": 1, \"cpus\": \"0\"}"
	out=$("$NP" apply /tmp/vm-managed.json 2>&1) || status=$?
	echo "$out"
	[ "$status" -ne 0 ] || die "apply of a managed IRQ succeeded: $out"
	[[ $out == *"$irq"* || $out == *nvme0q1* ]] || die "apply's refusal does not name IRQ $irq (nvme0q1): $out"
	[[ $out == *managed* || $out == *"${err##*: }"* ]] || die "apply's refusal says neither managed nor the kernel's error (${err##*: }): $out"
	note "numaplace: exit $status"
	diff <(echo "$before") <(machine_state) || die "a refused apply changed the machine"
}

# An apply of many values ended at drawn points (kill -9 while it writes, and
# the crash tests' fault hook ending it right after its K-th write, for drawn
# K); a plain revert then restores every byte, whatever the end left: a
# pending journal, a finished transaction, or nothing written yet.
test_kill9_revert() {
	irqbalance_conf
	local settings=() q before pid trial pending=0 done=0 none=0 t0 ms writes k ks=
	rm -rf /var/lib/numaplace/txn
	for q in 0 1 2 3; do
		settings+=("{\"kind\": \"irq_affinity\", \"device\": \"$VNET\", \"queue\": $q, \"cpus\": \"$((4 + q % 2))\"}")
		settings+=("{\"kind\": \"rps_cpus\", \"net\": \"$VNET\", \"queue\": $q, \"cpus\": \"4-5\"}")
		settings+=("{\"kind\": \"xps_cpus\", \"net\": \"$VNET\", \"queue\": $q, \"cpus\": \"$((4 + q % 2))\"}")
	done
	settings+=("{\"kind\": \"rq_affinity\", \"block\": \"$NVME_DISK\", \"value\": 2}")
	profile vm-kill "${settings[@]}"
	before=$(machine_state)
	writes=$("$NP" apply --dry-run --json --irqbalance ban /tmp/vm-kill.json | jq '.changes | length')
	# The writes' window: from the journal's creation to the apply's end.
	"$NP" apply --irqbalance ban /tmp/vm-kill.json >/dev/null &
	pid=$!
	until_journal "$pid"
	t0=$EPOCHREALTIME
	wait "$pid"
	ms=$(ms_since "$t0")
	"$NP" revert >/dev/null
	for trial in $(seq 12); do
		if [ "$trial" -le 8 ]; then
			k=$((RANDOM % writes + 1))
			ks+=" $k"
			NUMAPLACE_FAULT_AFTER_WRITES=$k /vm/numaplace-fault apply --irqbalance ban /tmp/vm-kill.json >/tmp/kill.out 2>&1 || true
		else
			"$NP" apply --irqbalance ban /tmp/vm-kill.json >/tmp/kill.out 2>&1 &
			pid=$!
			until_journal "$pid"
			sleep "$(awk -v ms="$ms" -v r="$RANDOM" 'BEGIN { printf "%.3f", ms * (r / 32767) / 1000 }')"
			kill -9 "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
		fi
		if "$NP" history --json | jq -e '.transactions[]? | select(.state == "pending")' >/dev/null; then
			pending=$((pending + 1))
		elif "$NP" revert --dry-run >/dev/null 2>&1; then
			done=$((done + 1))
		else
			none=$((none + 1))
			diff <(echo "$before") <(machine_state) || die "trial $trial: no transaction to revert, yet the machine changed"
			continue
		fi
		"$NP" revert >/tmp/revert.out 2>&1 || die "trial $trial: revert failed: $(cat /tmp/revert.out)"
		diff <(echo "$before") <(machine_state) || die "trial $trial: revert did not restore every byte"
	done
	[ "$pending" -ge 1 ] || die "no end left a pending journal: the revert of one was not tested"
	note "$writes writes in $ms ms; ended after writes$ks and 4 kill -9: $pending pending, $done finished, $none before any write"
}

# until_journal PID: until the apply PID has written its journal (the state
# directory holds one more transaction) or has ended; 10 s at most.
until_journal() {
	local j end=$(($(date +%s) + 10)) n
	j=(/var/lib/numaplace/txn/*.json)
	n=${#j[@]}
	while kill -0 "$1" 2>/dev/null; do
		j=(/var/lib/numaplace/txn/*.json)
		[ "${#j[@]}" -le "$n" ] || return 0
		[ "$(date +%s)" -lt "$end" ] || die "apply $1 wrote no journal in 10 s"
	done
}

# --- moves of an idle IRQ: the NIC's input.3, written to another CPU of the
# NIC's node. Sets IRQ, EFF (its CPU before), TARGET and COUNT (its
# interrupts before).
move_idle_queue() {
	IRQ=$(irqs_named '^virtio[0-9]+-input\.3$')
	EFF=$(cat /proc/irq/$IRQ/effective_affinity_list)
	TARGET=$(other_local_cpu "$EFF")
	COUNT=$(irq_count "$IRQ")
	profile vm-move "{\"kind\": \"irq_affinity\", \"device\": \"$VNET\", \"queue\": 3, \"cpus\": \"$TARGET\"}"
	"$NP" apply /tmp/vm-move.json
}

# A deferred move: an MSI without interrupt remapping moves when it next
# fires. The kernel shows the new mask in smp_affinity at once and keeps
# effective_affinity on the old CPU until then.
test_deferred_move() {
	grep -q 'IR-PCI-MSI' /proc/interrupts && die "this guest has interrupt remapping: moves are not deferred"
	move_idle_queue
	[ "$(irq_count "$IRQ")" = "$COUNT" ] || die "input.3 fired during the test: cannot see the move wait"
	expect_eq "$TARGET" "$(cat /proc/irq/$IRQ/smp_affinity_list)" "smp_affinity_list right after the write (the pending mask)"
	expect_eq "$EFF" "$(cat /proc/irq/$IRQ/effective_affinity_list)" "effective_affinity_list before input.3 fires"
	# What numaplace says in between: the kernel's two values, as they are;
	# verify takes the accepted mask.
	expect_eq "$TARGET $EFF" "$("$NP" irqs --json | jq -r --argjson n "$IRQ" '.irqs[] | select(.irq == $n) | "\(.affinity) \(.effective)"')" \
		"numaplace irqs: affinity and effective of IRQ $IRQ while the move is pending"
	# advise says it moves when it next fires: a note, not a refusal.
	local advice
	advice=$("$NP" advise --json)
	jq -e --argjson n "$IRQ" --arg t "$TARGET" \
		'.notes[] | select(test("next fire") and test("irq \($n) [^ ]+ to CPU \($t) \\(on CPU"))' <<<"$advice" >/dev/null ||
		die "advise does not say that IRQ $IRQ moves to CPU $TARGET when it next fires: $(jq -c .notes <<<"$advice")"
	expect_eq 0 "$(jq --argjson n "$IRQ" '[.warnings[] | select(startswith("irq \($n) ") and test("not honoured"))] | length' <<<"$advice")" \
		"advise: IRQ $IRQ called not honoured while its move is pending"
	"$NP" verify /tmp/vm-move.json || die "verify while the move is pending: exit $?"
	# It may take a second interrupt: while an earlier move of the same IRQ
	# waits for its first interrupt on the new vector (move_in_progress, an
	# earlier test's revert), assign_vector_locked() refuses with -EBUSY and
	# irq_move_masked_irq() keeps the mask pending for the next one.
	local end=$(($(date +%s) + 60)) fired
	while [ "$(cat /proc/irq/$IRQ/effective_affinity_list)" != "$TARGET" ]; do
		[ "$(date +%s)" -lt "$end" ] ||
			die "effective_affinity_list still $(cat /proc/irq/$IRQ/effective_affinity_list) after 60 s of pings" \
				"($(($(irq_count "$IRQ") - COUNT)) interrupts of input.3)"
		network_load 1
	done
	fired=$(($(irq_count "$IRQ") - COUNT))
	[ "$fired" -gt 0 ] || die "effective_affinity_list followed the mask before input.3 fired"
	note "IRQ $IRQ (input.3): effective $EFF until it fired, then $TARGET ($fired interrupts by then)"
	"$NP" revert >/dev/null
}

# With interrupt remapping the same write moves the IRQ at once.
test_immediate_move() {
	grep -q 'IR-PCI-MSI' /proc/interrupts || die "no IR-PCI-MSI chip in /proc/interrupts: no interrupt remapping"
	move_idle_queue
	expect_eq "$TARGET" "$(cat /proc/irq/$IRQ/effective_affinity_list)" "effective_affinity_list right after the write"
	expect_eq "$COUNT" "$(irq_count "$IRQ")" "input.3's interrupts (it moved without firing)"
	"$NP" verify /tmp/vm-move.json
	note "IRQ $IRQ (input.3): effective $EFF, then $TARGET at once"
	"$NP" revert >/dev/null
}

# --- hold, with devices that really come and go

# hold's log: HOLD_LOG. Started on PROFILE; waits for its first apply.
start_hold() {
	HOLD_LOG=/tmp/hold.log
	: >"$HOLD_LOG"
	"$NP" hold --interval 10 "$1" >"$HOLD_LOG" 2>&1 &
	HOLD_PID=$!
	trap 'kill $HOLD_PID 2>/dev/null || true' EXIT
	wait_for 60 "hold's first apply" grep -q holding "$HOLD_LOG"
}
# SIGTERM leaves the values applied, as hold promises: the hold tests come
# last in a layout.
stop_hold() {
	kill "$HOLD_PID"
	wait "$HOLD_PID" || true
	trap - EXIT
}

hold_profile() {
	cat >/tmp/vm-hold.json <<-EOF
	{"format": "numaplace-profile/1", "name": "vm-hold", "rules": [
		{"match": {"driver": "virtio_net"}, "irqs": "local", "rps": "off"},
		{"match": {"class": "storage"}, "rq_affinity": 2}]}
	EOF
}

# QMP device_del / device_add of the NIC and of the NVMe: real uevents, the
# device's IRQs freed and requested again; hold re-applies, and verify then
# matches. (6.1 gives a device back the numbers it had: an MSI's number is
# searched from a hint made of its hardware IRQ, which is the same slot's.)
test_hold_hotplug() {
	hold_profile
	start_hold /tmp/vm-hold.json
	"$NP" verify /tmp/vm-hold.json || die "verify after hold's first apply: exit $?"
	local id old_irqs new_irqs t0 ms applies
	for id in nic0 nvme0; do
		old_irqs=$(hotplug_irqs "$id")
		request unplug "$id" || die "unplug $id failed"
		wait_for 60 "$id gone from the guest" hotplug_gone "$id"
		applies=$(grep -c "re-applied" "$HOLD_LOG" || true)
		request plug "$id" || die "plug $id failed"
		t0=$EPOCHREALTIME
		wait_for 60 "$id back in the guest" hotplug_back "$id"
		# The device comes back with the kernel's defaults: matching again
		# takes hold's own re-apply, which its log shows.
		wait_for 60 "hold re-applying $id" "$NP" verify /tmp/vm-hold.json
		ms=$(ms_since "$t0")
		[ "$(grep -c "re-applied" "$HOLD_LOG")" -gt "$applies" ] || die "hold logged no re-apply for $id: $(cat "$HOLD_LOG")"
		new_irqs=$(hotplug_irqs "$id")
		note "$id re-plugged: IRQs $(echo $old_irqs | tr ' ' ,) then $(echo $new_irqs | tr ' ' ,); applied and verified $ms ms after device_add"
	done
	stop_hold
	cat "$HOLD_LOG"
}
hotplug_irqs() {
	case $1 in
	nic0) irqs_named '^virtio[0-9]+-input' ;;
	nvme0) irqs_named '^nvme[0-9]+q[1-9]' ;;
	esac | paste -sd' '
}
hotplug_gone() {
	case $1 in
	nic0) ! net_of_driver virtio_net >/dev/null ;;
	nvme0) [ ! -e "/sys/block/$NVME_DISK" ] ;;
	esac
}
hotplug_back() {
	case $1 in
	nic0) VNET=$(net_of_driver virtio_net) && [ -n "$(irqs_named '^virtio[0-9]+-input')" ] ;;
	nvme0) [ -e "/sys/block/$NVME_DISK/queue/rq_affinity" ] ;;
	esac
}

# The NIC's driver unbound and bound again through sysfs: hold re-applies.
test_hold_rebind() {
	hold_profile
	start_hold /tmp/vm-hold.json
	local pci t0 ms
	pci=$(net_pci)
	echo "$pci" >/sys/bus/pci/drivers/virtio-pci/unbind
	wait_for 30 "the NIC unbound" hotplug_gone nic0
	local applies
	applies=$(grep -c "re-applied" "$HOLD_LOG" || true)
	t0=$EPOCHREALTIME
	echo "$pci" >/sys/bus/pci/drivers/virtio-pci/bind
	wait_for 30 "the NIC bound again" hotplug_back nic0
	wait_for 60 "hold re-applying the NIC" "$NP" verify /tmp/vm-hold.json
	ms=$(ms_since "$t0")
	[ "$(grep -c "re-applied" "$HOLD_LOG")" -gt "$applies" ] || die "hold logged no re-apply after the bind: $(cat "$HOLD_LOG")"
	note "unbind/bind of $pci: applied and verified $ms ms after bind"
	stop_hold
}

# --- processes

# move --memory: a process's pages on node 0 go to the NIC's node (numa_maps
# before and after); revert gives the threads back their CPUs.
test_move_memory() {
	local node0 dest pid out pages
	node0=$(cpus_of_node 0)
	dest=$(net_node)
	taskset -c "$node0" /vm/pages 32 >/tmp/pages.out &
	pid=$!
	PAGES_PID=$pid
	trap 'kill $PAGES_PID 2>/dev/null || true' EXIT
	wait_for 20 "the test process's pages" grep -q ready /tmp/pages.out
	pages=$(node_pages "$pid" 0)
	[ "$pages" -ge 8192 ] || die "only $pages pages on node 0 before the move"
	out=$("$NP" move --node "$dest" --memory "$pid") || die "move failed: $out"
	echo "$out"
	local after
	after=$(node_pages "$pid" "$dest")
	[ "$after" -ge 8192 ] || die "only $after pages on node $dest after the move ($(node_pages "$pid" 0) on node 0)"
	expect_eq "$(cpus_of_node "$dest")" "$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/$pid/status)" "the process's CPUs after the move"
	note "pages on node 0: $pages, then $after on node $dest"
	out=$("$NP" revert) || die "revert failed: $out"
	echo "$out"
	expect_eq "$node0" "$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/$pid/status)" "the process's CPUs after the revert"
	# Today's revert leaves the pages where the move put them, and says so.
	[[ $out == *"not moved back"* ]] || die "revert does not say the pages stay: $out"
	note "after the revert: $(node_pages "$pid" 0) pages on node 0, $(node_pages "$pid" "$dest") on node $dest"
}
# node_pages PID NODE: the process's pages on NODE (numa_maps' N<node>= counts).
node_pages() {
	awk -v k="N$2" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) s += kv[2] } } END { print s + 0 }' "/proc/$1/numa_maps"
}

# run --near: the device's node's CPUs (its affinity) and memory (its
# policy, bind:N in numa_maps: libnuma's membind, not the cpuset).
test_run_near() {
	local node out dev
	for dev in "$VNET" "$NVME_DISK"; do
		case $dev in
		nvme*) node=$(cat /sys/block/$NVME_DISK/device/device/numa_node) ;;
		*) node=$(net_node) ;;
		esac
		out=$("$NP" run --near "$dev" -- sh -c 'cat /proc/self/status /proc/self/numa_maps')
		expect_eq "$(cpus_of_node "$node")" "$(awk '/^Cpus_allowed_list:/ { print $2 }' <<<"$out")" "run --near $dev's CPUs"
		expect_eq "bind:$node" "$(awk '$1 ~ /^[0-9a-f]+$/ { print $2 }' <<<"$out" | sort -u | paste -sd' ')" \
			"run --near $dev's memory policy"
	done
}

# trial end to end: direct-I/O reads of the NVMe, with and without the shipped
# storage profile; the machine is at its baseline afterwards unless kept.
test_trial() {
	local before out status=0 verdict
	before=$(machine_state)
	# busybox dd prints no rate: the metric is the run's wall time.
	out=$("$NP" trial --runs 6 --timeout 60 storage-forced-completion -- \
		sh -c "dd if=/dev/$NVME_DISK of=/dev/null bs=64k count=256 iflag=direct 2>&1" 2>&1) || status=$?
	echo "$out"
	[ "$status" = 0 ] || { cat /var/lib/numaplace/trials/*/001-*.out; die "trial's exit: $status"; }
	verdict=$(sed -n 's/.*verdict[: ]*\([a-z]*\).*/\1/p' <<<"$out" | head -n 1)
	note "verdict ${verdict:-?}"
	if [ "$verdict" = keep ]; then
		"$NP" revert >/dev/null
	fi
	diff <(echo "$before") <(machine_state) || die "the machine is not at its baseline after the trial"
}

# The combined channels virtio-net has now (ethtool -l's current settings).
combined_now() { ethtool -l "$VNET" | awk '/^Combined:/ { n++ } n == 2 { print $2; exit }'; }

# Channels through numaplace on virtio-net (combined channels only), against what the
# kernel shows: a profile that cuts the queue pairs to 2 and places queue 1's IRQs and
# XPS is one transaction, the channel change written first; virtio-net then rewrites
# every queue's IRQ affinity and XPS (virtnet_set_affinity()), and queue 1's values are
# found again and written after it. verify matches; the revert restores the count first
# and leaves what the driver rewrote with it as the driver set it: the machine is as a
# channel round trip by ethtool alone leaves it.
test_channels() {
	local max base out irq hist
	irqbalance_conf
	max=$(ethtool -l "$VNET" | awk '/^Combined:/ { print $2; exit }')
	[ "$max" -ge 3 ] || die "virtio-net offers $max combined channels"
	expect_eq "$max" "$(combined_now)" "combined channels at the start"
	# What the driver itself leaves after a round trip: the revert's yardstick.
	ethtool -L "$VNET" combined 2
	ethtool -L "$VNET" combined "$max"
	base=$(machine_state)
	profile vm-channels \
		"{\"kind\": \"channels\", \"net\": \"$VNET\", \"value\": \"combined 2\"}" \
		"{\"kind\": \"irq_affinity\", \"device\": \"$VNET\", \"queue\": 1, \"cpus\": \"5\"}" \
		"{\"kind\": \"xps_cpus\", \"net\": \"$VNET\", \"queue\": 1, \"cpus\": \"5\"}"
	"$NP" verify /tmp/vm-channels.json >/dev/null && die "verify matched before the apply"
	out=$("$NP" apply --irqbalance ban /tmp/vm-channels.json) || die "apply failed: $out"
	echo "$out"
	expect_eq 2 "$(combined_now)" "combined channels after the apply (ethtool -l)"
	expect_eq 2 "$(ls -d /sys/class/net/$VNET/queues/rx-* | wc -l)" "rx queues after the apply"
	irq=$(irqs_named "^virtio[0-9]+-input\\.1\$")
	expect_eq 5 "$(cat /proc/irq/$irq/smp_affinity_list)" "input.1's CPUs after the apply"
	irq=$(irqs_named "^virtio[0-9]+-output\\.1\$")
	expect_eq 5 "$(cat /proc/irq/$irq/smp_affinity_list)" "output.1's CPUs after the apply"
	expect_eq 20 "$(sed 's/^0*//' /sys/class/net/$VNET/queues/tx-1/xps_cpus)" "tx-1's xps_cpus after the apply"
	grep -q -- "--banirq=$irq" /etc/default/irqbalance || die "irqbalance's file bans no IRQ $irq: $(cat /etc/default/irqbalance)"
	"$NP" verify /tmp/vm-channels.json || die "verify after apply: exit $?"
	# One transaction, the channels first, their old value the kernel's.
	hist=$("$NP" history --json "$("$NP" history --json | jq -r '.transactions[-1].id')")
	expect_eq "channels combined $max combined 2" \
		"$(jq -r '.transaction.changes[0] | "\(.path | split("/") | last) \(.old) \(.new)"' <<<"$hist")" \
		"the journal's first change"
	out=$("$NP" revert) || die "revert failed: $out"
	echo "$out"
	expect_eq "$max" "$(combined_now)" "combined channels after the revert"
	[[ $out == *"reset by its driver"* ]] || die "the revert does not say the driver reset queue 1's values: $out"
	diff <(echo "$base") <(machine_state) || die "the revert left the machine otherwise than the driver's round trip"
	note "combined $max -> 2 -> $max; $(grep -c 'reset by its driver' <<<"$out") values reset by the driver"
}

# The guest's snapshot and its live report, for the host to compare
# (tests/vm/host-checks.sh) and to keep as a real-kernel fixture. Taken
# between two live reports that agree but for their counters, so that no
# interrupt crossed a threshold of the findings while it was copied.
test_snapshot() {
	local try
	for try in 1 2 3 4 5; do
		"$NP" report --json >/tmp/report.json
		rm -f /tmp/snapshot.tar.gz
		"$NP" snapshot /tmp/snapshot.tar.gz
		"$NP" report --json >/tmp/report2.json
		[ "$(jq -S -f /vm/report-stable.jq /tmp/report.json)" != "$(jq -S -f /vm/report-stable.jq /tmp/report2.json)" ] || break
	done
	send_file /tmp/snapshot.tar.gz snapshot.tar.gz
	send_file /tmp/report.json report.json
	note "$(stat -c %s /tmp/snapshot.tar.gz) bytes, try $try"
}
