# SPDX-License-Identifier: GPL-2.0-or-later
# The boot profile: 'enable' checks a profile on this machine and copies it to
# /etc/numaplace/boot.json, 'apply --boot' applies it (what numaplace.service
# runs), 'disable' removes it. On copies of the r715 fixture.

boot_root() {
	ROOT=$WORK/boot-root
	STATE=$WORK/boot-state
	BOOT=$ROOT/etc/numaplace/boot.json
	rm -rf "$ROOT" "$STATE"
	cp -a "$FIXTURES/r715" "$ROOT"
	# Formatted as a person would, comments of layout included: enable copies
	# the file, it does not rewrite it.
	cat >"$WORK/boot-megasas.json" <<-EOF
	{
	    "format": "numaplace-profile/1",
	    "name": "megasas-node1",
	    "settings": [
	        { "kind": "irq_affinity", "device": "0000:22:00.0", "vector": "megasas", "cpus": "4-7" },
	        { "kind": "rps_cpus", "net": "eth0", "queue": 0, "cpus": "8" }
	    ]
	}
	EOF
}

npb() { "$NUMAPLACE" --root "$ROOT" "$@"; }

mode_of() { stat -c %a "$1"; }

test_enable_apply_boot_disable() {
	boot_root
	local out
	out=$(npb enable "$WORK/boot-megasas.json" 2>/dev/null)
	cmp -s "$WORK/boot-megasas.json" "$BOOT" || die "boot.json is not a copy of the profile"
	expect_eq 644 "$(mode_of "$BOOT")" "boot.json mode"
	expect_eq 755 "$(mode_of "$ROOT/etc/numaplace")" "/etc/numaplace mode"
	[[ $out == *"systemctl enable numaplace.service"* ]] || die "enable does not say how to run it at boot: $out"
	[ -z "$(find "$ROOT/etc/numaplace" -name '.*')" ] || die "a temporary file is left in /etc/numaplace"

	# What the unit runs: one line per value changed, for the journal.
	out=$(npb apply --boot --irqbalance=ignore --state-dir "$STATE")
	[[ $out == "boot profile megasas-node1 ($BOOT)"* ]] || die "apply --boot does not name the profile: $out"
	grep -qx '  0000:22:00.0 irq 34 megasas: 0-15 -> 4-7' <<<"$out" || die "no line for irq 34: $out"
	grep -q '^  eth0 rx-0 rps_cpus: ' <<<"$out" || die "no line for eth0 rx-0: $out"
	expect_eq 4-7 "$(cat "$ROOT/proc/irq/34/smp_affinity_list")" "irq 34 after apply --boot"
	[[ $(npb apply --boot --irqbalance=ignore --state-dir "$STATE") == *"already applied"* ]] ||
		die "a second apply --boot changes something"
	npb revert --state-dir "$STATE" >/dev/null

	out=$(npb disable)
	[ ! -e "$BOOT" ] || die "disable left $BOOT"
	[[ $out == *"removed '$BOOT'"* ]] || die "disable does not say what it removed: $out"
	local status=0
	out=$(npb disable) || status=$?
	expect_eq 0 "$status" "disable with nothing enabled"
	[[ $out == *"nothing to disable"* ]] || die "disable with nothing enabled: $out"

	rm -rf "$STATE"
	out=$(npb apply --boot --state-dir "$STATE") || status=$?
	expect_eq 0 "$status" "apply --boot with nothing enabled"
	expect_eq "no boot profile enabled" "$out" "apply --boot with nothing enabled"
	[ ! -e "$STATE" ] || die "apply --boot with nothing enabled made a state directory"
}

test_enable_by_name_copies_the_shipped_profile() {
	boot_root
	npb enable --profile-dir "$TOP/profiles" network-local >/dev/null 2>&1
	cmp -s "$TOP/profiles/network-local.json" "$BOOT" || die "boot.json is not profiles/network-local.json"
	# Enabling another replaces it, and says so.
	local out
	out=$(npb enable "$WORK/boot-megasas.json" 2>/dev/null)
	[[ $out == "replaced the boot profile megasas-node1"* ]] || die "enable over another: $out"
	cmp -s "$WORK/boot-megasas.json" "$BOOT" || die "boot.json was not replaced"
}

test_enable_refuses_a_profile_that_does_not_fit() {
	boot_root
	npb enable "$WORK/boot-megasas.json" >/dev/null 2>&1
	printf '%s\n' '{ "format": "numaplace-profile/1", "name": "elsewhere",
	  "settings": [ { "kind": "irq_affinity", "device": "0000:99:00.0", "queue": 0, "cpus": "0" } ] }' \
		>"$WORK/boot-bad.json"
	local status=0 err
	err=$(npb enable "$WORK/boot-bad.json" 2>&1) || status=$?
	expect_eq 2 "$status" "enable of a profile that does not fit"
	[[ $err == *"0000:99:00.0"* ]] || die "the error does not name the device: $err"
	cmp -s "$WORK/boot-megasas.json" "$BOOT" || die "the enabled profile changed"
	status=0
	npb enable "$WORK/no-such-profile.json" 2>/dev/null || status=$?
	expect_eq 2 "$status" "enable of a missing profile"
	status=0
	npb enable 2>/dev/null || status=$?
	expect_eq 2 "$status" "enable without a profile"
	status=0
	npb disable extra 2>/dev/null || status=$?
	expect_eq 2 "$status" "disable with an argument"
	status=0
	npb apply --boot "$WORK/boot-megasas.json" 2>/dev/null || status=$?
	expect_eq 2 "$status" "apply --boot with a profile"
}

test_apply_boot_bans_in_the_transaction() {
	boot_root
	mkdir -p "$ROOT/etc/default"
	printf '%s\n' 'IRQBALANCE_ARGS="--hintpolicy=exact"' >"$ROOT/etc/default/irqbalance"
	cp "$ROOT/etc/default/irqbalance" "$WORK/boot-irqb.orig"
	npb enable "$WORK/boot-megasas.json" >/dev/null 2>&1
	local out
	out=$(npb apply --boot --state-dir "$STATE" 2>/dev/null)
	grep -qx '  irqbalance: --banirq=34 added to /etc/default/irqbalance' <<<"$out" || die "no ban line: $out"
	grep -q -- '--banirq=34' "$ROOT/etc/default/irqbalance" || die "irq 34 is not banned"
	npb revert --state-dir "$STATE" >/dev/null
	cmp -s "$WORK/boot-irqb.orig" "$ROOT/etc/default/irqbalance" || die "revert did not restore the file"
}

# enable, apply, revert, history and disable say the same in JSON: one object
# each, "schema" first, the transaction by the ID that history lists.
test_json_of_the_writing_commands() {
	boot_root
	local out id
	out=$(npb enable --json "$WORK/boot-megasas.json" 2>/dev/null)
	expect_eq '["schema",true,"megasas-node1",2]' "$(jq -c '[keys_unsorted[0], .enabled, .profile, .values]' <<<"$out")" \
		"enable --json"
	out=$(npb apply --json --irqbalance=ignore --state-dir "$STATE" "$WORK/boot-megasas.json")
	id=$(jq -r .transaction <<<"$out")
	[ -n "$id" ] && [ "$id" != null ] || die "apply --json names no transaction: $out"
	expect_eq "$id" "$(npb history --state-dir "$STATE" --json | jq -r '.transactions[-1].id')" "history --json"
	expect_eq "$id" "$(npb history --state-dir "$STATE" -n -r -o id | tail -n 1)" "history -n -r -o id"
	out=$(npb revert --json --state-dir "$STATE")
	expect_eq "[\"schema\",true,\"$id\",2]" "$(jq -c '[keys_unsorted[0], .reverted, .transaction, (.changes | length)]' <<<"$out")" \
		"revert --json"
	# What revert restored is what apply wrote, the other way round.
	expect_eq "$(jq -c '[.changes[] | .old]' <<<"$out")" \
		"$(cd "$FIXTURES/r715" && cat proc/irq/34/smp_affinity_list sys/class/net/eth0/queues/rx-0/rps_cpus | jq -Rcs 'split("\n")[:-1]')" \
		"revert --json: the old values"
	out=$(npb disable --json)
	expect_eq '["schema",true]' "$(jq -c '[keys_unsorted[0], .disabled]' <<<"$out")" "disable --json"
	out=$(npb disable --json)
	expect_eq false "$(jq .disabled <<<"$out")" "disable --json with nothing enabled"
}
