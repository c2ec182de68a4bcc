# SPDX-License-Identifier: GPL-2.0-or-later
# What configuration management needs from the CLI (the Ansible collection
# in ansible/ uses it): revert --dry-run and --json, enable and disable
# --json that say whether anything changed. On copies of the r715 fixture.

fleet_root() {
	ROOT=$WORK/fleet-root
	STATE=$WORK/fleet-state
	rm -rf "$ROOT" "$STATE" "$WORK/fleet-orig" "$WORK/fleet-applied" "$WORK/fleet-state-applied"
	cp -a "$FIXTURES/r715" "$ROOT"
	cp -a "$FIXTURES/r715" "$WORK/fleet-orig"
	cat >"$WORK/fleet.json" <<-EOF
	{ "format": "numaplace-profile/1", "name": "megasas-node1",
	  "settings": [ { "kind": "irq_affinity", "device": "0000:22:00.0", "vector": "megasas", "cpus": "4-7" },
	                { "kind": "rps_cpus", "net": "eth0", "queue": 0, "cpus": "8" } ] }
	EOF
}

npf() { "$NUMAPLACE" --root "$ROOT" "$@"; }

test_revert_dry_run_writes_nothing_and_says_what_it_would_restore() {
	fleet_root
	local txn out
	txn=$(npf apply --json --irqbalance=ignore --state-dir "$STATE" "$WORK/fleet.json" | jq -r .transaction)
	cp -a "$ROOT" "$WORK/fleet-applied"
	cp -a "$STATE" "$WORK/fleet-state-applied"
	out=$(npf revert --dry-run --json --state-dir "$STATE")
	expect_eq "false $txn megasas-node1 true" "$(jq -r '[.reverted, .transaction, .profile, .dry_run] | join(" ")' <<<"$out")" "dry run"
	expect_eq '0000:22:00.0 irq 34 megasas 4-7 0-15' \
		"$(jq -r '.changes[0] | [.subject, .current, .restore] | join(" ")' <<<"$out")" "first change of the dry run"
	expect_eq 2 "$(jq '.changes | length' <<<"$out")" "changes of the dry run"
	diff -r --no-dereference "$WORK/fleet-applied" "$ROOT" >/dev/null || die "revert --dry-run changed the root"
	diff -r --no-dereference "$WORK/fleet-state-applied" "$STATE" >/dev/null || die "revert --dry-run changed the state directory"
	rm -rf "$WORK/fleet-applied" "$WORK/fleet-state-applied"

	# A value someone changed since: refused in the dry run too, unless --force,
	# and then planned from its current value.
	echo 0-1 >"$ROOT/proc/irq/34/smp_affinity_list"
	local status=0
	npf revert --dry-run --state-dir "$STATE" >/dev/null 2>&1 || status=$?
	expect_eq 1 "$status" "dry run over drift"
	out=$(npf revert --dry-run --force --json --state-dir "$STATE")
	expect_eq 0-1 "$(jq -r '.changes[0].current' <<<"$out")" "current value planned over"

	out=$(npf revert --force --json --state-dir "$STATE")
	expect_eq "true $txn" "$(jq -r '[.reverted, .transaction] | join(" ")' <<<"$out")" "revert"
	expect_eq '/proc/irq/34/smp_affinity_list 4-7 0-15' \
		"$(jq -r '.changes[0] | [.path, .new, .old] | join(" ")' <<<"$out")" "first change reverted"
	diff -r --no-dereference "$WORK/fleet-orig" "$ROOT" >/dev/null || die "the revert did not restore the root"
	# Nothing applied is left: a dry run says so as a failure, like the revert.
	status=0
	npf revert --dry-run --json --state-dir "$STATE" >/dev/null 2>&1 || status=$?
	expect_eq 1 "$status" "dry run with nothing to revert"
}

test_enable_and_disable_json_say_what_changed() {
	fleet_root
	local out
	out=$(npf enable --json "$WORK/fleet.json")
	expect_eq "true true false megasas-node1" \
		"$(jq -r '[.enabled, .changed, .replaced, .profile] | join(" ")' <<<"$out")" "first enable"
	expect_eq "$ROOT/etc/numaplace/boot.json" "$(jq -r .file <<<"$out")" "the boot profile"
	touch -d @0 "$ROOT/etc/numaplace/boot.json"
	out=$(npf enable --json "$WORK/fleet.json")
	expect_eq "false true" "$(jq -r '[.changed, .replaced] | join(" ")' <<<"$out")" "second enable"
	expect_eq 0 "$(stat -c %Y "$ROOT/etc/numaplace/boot.json")" "boot.json rewritten by a second enable"
	[[ $(npf enable "$WORK/fleet.json") == *"already enabled"* ]] || die "a second enable does not say so"
	sed 's/4-7/6-7/' "$WORK/fleet.json" >"$WORK/fleet2.json"
	expect_eq "true true" "$(npf enable --json "$WORK/fleet2.json" | jq -r '[.changed, .replaced] | join(" ")')" \
		"enable of another profile"
	expect_eq true "$(npf disable --json | jq .disabled)" "disable"
	[ ! -e "$ROOT/etc/numaplace/boot.json" ] || die "disable left the boot profile"
	expect_eq false "$(npf disable --json | jq .disabled)" "disable again"
}

# Transactions of the fleet profile: n applies, each reverted.
apply_revert() {
	local i
	for ((i = 0; i < $1; i++)); do
		npf apply --irqbalance=ignore --state-dir "$STATE" "$WORK/fleet.json" >/dev/null
		npf revert --state-dir "$STATE" >/dev/null
	done
}

history_states() { npf history --json --state-dir "$STATE" | jq -r '[.transactions[].state] | join(" ")'; }

test_history_prune_keeps_what_a_revert_needs() {
	fleet_root
	mkdir -p "$ROOT/proc/sys/kernel/random"
	echo boot-1 >"$ROOT/proc/sys/kernel/random/boot_id"
	apply_revert 3
	npf apply --irqbalance=ignore --state-dir "$STATE" "$WORK/fleet.json" >/dev/null
	local ids out
	ids=$(npf history --json --state-dir "$STATE" | jq -c '[.transactions[].id]')
	expect_eq "reverted reverted reverted applied" "$(history_states)" "before pruning"
	out=$(npf history --prune --keep 1 --json --state-dir "$STATE")
	expect_eq "$(jq -c '.[0:3]' <<<"$ids")" "$(jq -c .pruned <<<"$out")" "pruned: the three reverted ones"
	expect_eq "applied" "$(history_states)" "after pruning"
	# Applied during this boot: kept even beyond --keep, its revert is still due.
	expect_eq '[]' "$(npf history --prune --keep 0 --json --state-dir "$STATE" | jq -c .pruned)" "prune of this boot's apply"
	# After a reboot its values are gone: nothing left to revert, pruned.
	echo boot-2 >"$ROOT/proc/sys/kernel/random/boot_id"
	[[ $(npf history --prune --keep 0 --state-dir "$STATE") == *"pruned 1 transaction "* ]] || die "the earlier boot's apply is not pruned"
	expect_eq "" "$(history_states)" "after the reboot's pruning"
	local status=0
	npf history --keep 3 --state-dir "$STATE" >/dev/null 2>&1 || status=$?
	expect_eq 2 "$status" "--keep without --prune"
}

test_apply_keeps_the_last_50_transactions() {
	fleet_root
	apply_revert 1
	# 50 older reverted transactions, copies of that one's journal: 51 in all.
	local journal i
	journal=$(ls "$STATE"/txn/*.json)
	for i in $(seq -w 1 50); do
		sed "s/\"id\":.*/\"id\": \"20200101-0000$i-1\",/" "$journal" >"$STATE/txn/20200101-0000$i-1.json"
	done
	chmod 600 "$STATE"/txn/*.json
	expect_eq 51 "$(npf history --json --state-dir "$STATE" | jq '.transactions | length')" "transactions made"
	npf apply --irqbalance=ignore --state-dir "$STATE" "$WORK/fleet.json" >/dev/null
	local out
	out=$(npf history --json --state-dir "$STATE")
	expect_eq 50 "$(jq '.transactions | length' <<<"$out")" "transactions kept"
	expect_eq 20200101-000003-1 "$(jq -r '.transactions[0].id' <<<"$out")" "the oldest kept"
	expect_eq applied "$(jq -r '.transactions[-1].state' <<<"$out")" "the newest"
}

test_report_json_says_which_host_and_boot() {
	fleet_root
	mkdir -p "$ROOT/proc/sys/kernel/random"
	echo r715-a >"$ROOT/proc/sys/kernel/hostname"
	echo 6.1.0-18-amd64 >"$ROOT/proc/sys/kernel/osrelease"
	echo 0d6c2c1e-6b7f-4e0e-9a53-3c7a3a51a4f2 >"$ROOT/proc/sys/kernel/random/boot_id"
	expect_eq '["r715-a","6.1.0-18-amd64","0d6c2c1e-6b7f-4e0e-9a53-3c7a3a51a4f2"]' \
		"$(npf report --json | jq -c '[.hostname, .kernel, .boot_id]')" "host and boot"
	# A copy without them: unknown, and the rest of the report as before.
	rm -r "$ROOT/proc/sys"
	expect_eq '[null,null,null,4]' "$(npf report --json | jq -c '[.hostname, .kernel, .boot_id, (.topology.nodes | length)]')" \
		"a copy without them"
}

test_report_interval_counts_only_what_ran_in_between() {
	fleet_root
	local out
	# Before: irq 34 ran all its interrupts since boot; in between, nothing ran.
	[ "$(npf report --json | jq '.irqs[] | select(.irq == 34) | .total')" -gt 0 ] || die "irq 34 never ran in the fixture"
	out=$(npf report --json --interval 0.2)
	expect_eq "0.2 0" "$(jq -r '[.interval, ([.irqs[].total] | add)] | join(" ")' <<<"$out")" "interval and counts"
	local status=0
	npf report --interval 0 >/dev/null 2>&1 || status=$?
	expect_eq 2 "$status" "--interval 0"
}

test_json_carries_the_warnings() {
	fleet_root
	local out
	out=$(npf apply --dry-run --json --state-dir "$STATE" "$WORK/fleet.json" 2>"$WORK/fleet.err")
	# The same lines as on stderr, without the "numaplace: " prefix.
	expect_eq "$(sed 's/^numaplace: //' "$WORK/fleet.err")" "$(jq -r '.warnings[]' <<<"$out")" "warnings in the JSON"
	[[ $(jq -r '.warnings[1]' <<<"$out") == "apply: WARNING: irqbalance is running and will move IRQ 34"* ]] ||
		die "no irqbalance warning in the JSON: $out"
	out=$(npf apply --dry-run --json --irqbalance=ignore --state-dir "$STATE" "$WORK/fleet.json")
	expect_eq null "$(jq -c .warnings <<<"$out")" "warnings when nothing was said"
}
