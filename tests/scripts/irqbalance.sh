# SPDX-License-Identifier: GPL-2.0-or-later
# irqbalance moves every IRQ it has not banned within seconds: apply bans the
# IRQs it places in /etc/default/irqbalance as part of the transaction, on a
# copy of the r715 fixture (where irqbalance runs: /proc/1432/comm), and live
# the real daemon leaves a banned IRQ where numaplace put it.

IRQB_USER_LINE='IRQBALANCE_ARGS="--hintpolicy=exact"'

# A writable r715 with irqbalance's configuration, and a profile that moves
# the megasas IRQ (34, 0-15 in the fixture) to node 1's CPUs.
irqb_root() {
	ROOT=$WORK/irqb-root
	STATE=$WORK/irqb-state
	CONF=$ROOT/etc/default/irqbalance
	rm -rf "$ROOT" "$STATE"
	cp -a "$FIXTURES/r715" "$ROOT"
	mkdir -p "$ROOT/etc/default"
	printf '%s\n' '# irqbalance settings' "$IRQB_USER_LINE" 'IRQBALANCE_ONESHOT=' >"$CONF"
	cp -p "$CONF" "$WORK/irqb-conf.orig"
	cat >"$WORK/irqb-megasas.json" <<-EOF
	{ "format": "numaplace-profile/1", "name": "megasas-node1",
	  "settings": [ { "kind": "irq_affinity", "device": "0000:22:00.0", "vector": "megasas", "cpus": "4-7" } ] }
	EOF
}

npi() { "$NUMAPLACE" --root "$ROOT" "$@"; }

# IRQBALANCE_ARGS as irqbalance's unit and init script get it.
irqb_args() { (set -a && . "$1" && printf '%s\n' "${IRQBALANCE_ARGS-}"); }

conf_unchanged() { cmp -s "$WORK/irqb-conf.orig" "$CONF" || die "$CONF changed: $(cat "$CONF")"; }

test_apply_bans_the_placed_irq_and_revert_restores_the_file() {
	irqb_root
	local out
	out=$(npi apply --state-dir "$STATE" "$WORK/irqb-megasas.json" 2>"$WORK/irqb.err")
	expect_eq 4-7 "$(cat "$ROOT/proc/irq/34/smp_affinity_list")" "irq 34 after apply"
	expect_eq "--hintpolicy=exact --banirq=34" "$(irqb_args "$CONF")" "IRQBALANCE_ARGS after apply"
	grep -q '^# numaplace: banned IRQs 34 ' "$CONF" || die "no numaplace mark in $CONF: $(cat "$CONF")"
	# Every other line is the user's, untouched.
	expect_eq "$(grep -v IRQBALANCE_ARGS "$WORK/irqb-conf.orig")" \
		"$(grep -v -e IRQBALANCE_ARGS -e '^# numaplace:' "$CONF")" "the other lines"
	[[ $out == *"--banirq=34 added to /etc/default/irqbalance"* ]] || die "apply does not say it banned: $out"
	[[ $out == *"restart irqbalance: systemctl restart irqbalance"* ]] || die "apply does not say to restart: $out"
	! grep -q WARNING "$WORK/irqb.err" || die "a ban is no reason to warn: $(cat "$WORK/irqb.err")"
	local txn
	txn=$(npi history --state-dir "$STATE" --json | jq -r '.transactions[-1].id')
	expect_eq "text" "$(jq -r '.changes[] | select(.path == "/etc/default/irqbalance") | .kind' \
		"$STATE/txn/$txn.json")" "the journal holds the file"

	npi revert --state-dir "$STATE" >/dev/null
	conf_unchanged
	expect_eq 0-15 "$(cat "$ROOT/proc/irq/34/smp_affinity_list")" "irq 34 after revert"
}

# The revert puts back only the banned-IRQ line (the irqbalance kind's), never
# the journal's whole text: a line edited since the apply stays, with or
# without --force.
test_revert_restores_only_the_ban_line() {
	local force
	for force in "" --force; do
		irqb_root
		npi apply --state-dir "$STATE" "$WORK/irqb-megasas.json" >/dev/null 2>&1 || die "apply failed"
		sed -i 's/^IRQBALANCE_ONESHOT=$/IRQBALANCE_ONESHOT=yes/' "$CONF"
		echo 'IRQBALANCE_BANNED_CPULIST=0' >>"$CONF"
		npi revert $force --state-dir "$STATE" >/dev/null 2>"$WORK/irqb.err" ||
			die "revert $force after another line was edited: $(cat "$WORK/irqb.err")"
		expect_eq "$(printf '%s\n' '# irqbalance settings' "$IRQB_USER_LINE" 'IRQBALANCE_ONESHOT=yes' \
			'IRQBALANCE_BANNED_CPULIST=0')" "$(cat "$CONF")" "the file after revert $force"
		expect_eq 0-15 "$(cat "$ROOT/proc/irq/34/smp_affinity_list")" "irq 34 after revert $force"
	done
	# The ban line itself edited since: refused, and put back with --force.
	irqb_root
	npi apply --state-dir "$STATE" "$WORK/irqb-megasas.json" >/dev/null 2>&1 || die "apply failed"
	sed -i 's/--banirq=34/--banirq=34 --banirq=99/' "$CONF"
	npi revert --state-dir "$STATE" >/dev/null 2>"$WORK/irqb.err" && die "revert over an edited ban line succeeded"
	grep -q "banned-IRQ lines (IRQBALANCE_ARGS) changed since" "$WORK/irqb.err" ||
		die "revert does not say the ban line changed: $(cat "$WORK/irqb.err")"
	npi revert --force --state-dir "$STATE" >/dev/null 2>&1 || die "revert --force failed"
	conf_unchanged
}

test_second_apply_bans_nothing_twice() {
	irqb_root
	cat >"$WORK/irqb-two.json" <<-EOF
	{ "format": "numaplace-profile/1", "name": "two",
	  "settings": [ { "kind": "irq_affinity", "device": "0000:22:00.0", "vector": "megasas", "cpus": "4-7" },
	                { "kind": "irq_affinity", "device": "eth0", "queue": 0, "cpus": "8" } ] }
	EOF
	npi apply --state-dir "$STATE" "$WORK/irqb-megasas.json" >/dev/null 2>&1
	cp "$CONF" "$WORK/irqb-conf.once"
	# The same again: nothing to write, and it says the IRQ is banned already.
	local out
	out=$(npi apply --state-dir "$STATE" "$WORK/irqb-megasas.json" 2>/dev/null)
	[[ $out == *"already applied"* && $out == *"banned already"* ]] || die "second apply: $out"
	cmp -s "$WORK/irqb-conf.once" "$CONF" || die "a second apply changed $CONF"
	# Another profile with the same IRQ and eth0's (59): only 59 is added.
	npi apply --state-dir "$STATE" "$WORK/irqb-two.json" >/dev/null 2>&1
	expect_eq "--hintpolicy=exact --banirq=34 --banirq=59" "$(irqb_args "$CONF")" "IRQBALANCE_ARGS"
	grep -q '^# numaplace: banned IRQs 34 59 ' "$CONF" || die "the mark does not list both: $(cat "$CONF")"
	npi revert --state-dir "$STATE" >/dev/null
	cmp -s "$WORK/irqb-conf.once" "$CONF" || die "the first revert did not restore the first ban"
	npi revert --state-dir "$STATE" >/dev/null
	conf_unchanged
}

test_warn_leaves_the_file_alone_and_warns() {
	irqb_root
	local err
	err=$(npi apply --irqbalance=warn --state-dir "$STATE" "$WORK/irqb-megasas.json" 2>&1 >/dev/null)
	expect_eq 4-7 "$(cat "$ROOT/proc/irq/34/smp_affinity_list")" "irq 34 after apply"
	conf_unchanged
	[[ $err == *"WARNING: irqbalance is running and will move IRQ 34"* ]] || die "no loud warning: $err"
	[[ $(jq -r '.changes[].path' "$STATE"/txn/*.json) != *etc* ]] || die "the journal names /etc"
	npi revert --state-dir "$STATE" >/dev/null
	# ignore: not a word about it.
	err=$(npi apply --irqbalance=ignore --state-dir "$STATE" "$WORK/irqb-megasas.json" 2>&1 >/dev/null)
	conf_unchanged
	[[ $err != *WARNING* ]] || die "ignore still warns: $err"
}

# Asked to ban where no irqbalance file exists (no unit names one, none of
# the distributions' layouts): an error, and nothing written.
test_ban_without_any_file_exits_1_and_writes_nothing() {
	irqb_root
	rm "$CONF"
	local err status=0
	err=$(npi apply --irqbalance=ban --state-dir "$STATE" "$WORK/irqb-megasas.json" 2>&1 >/dev/null) || status=$?
	expect_eq 1 "$status" "apply --irqbalance=ban without irqbalance's file"
	[ ! -e "$CONF" ] || die "apply created $CONF"
	[[ $err == *"cannot ban IRQs: irqbalance's configuration file '$CONF' (the Debian layout) is missing"* ]] ||
		die "no word of the missing file: $err"
	expect_eq 0-15 "$(cat "$ROOT/proc/irq/34/smp_affinity_list")" "irq 34 after the refused apply"
	[ -z "$(ls "$STATE/txn" 2>/dev/null)" ] || die "a journal was written: $(ls "$STATE/txn")"
	# Without --irqbalance=ban, irqbalance running: applied, with the warning.
	status=0
	err=$(npi apply --state-dir "$STATE" "$WORK/irqb-megasas.json" 2>&1 >/dev/null) || status=$?
	expect_eq 0 "$status" "apply without irqbalance's file, default mode"
	[[ $err == *"configuration file '$CONF' (the Debian layout) is missing"* ]] || die "no word of the missing file: $err"
	[[ $err == *"WARNING: irqbalance is running"* ]] || die "no warning: $err"
	expect_eq 4-7 "$(cat "$ROOT/proc/irq/34/smp_affinity_list")" "irq 34 after apply"
}

# The RHEL family (RHEL, Fedora, OpenShift): the unit reads
# /etc/sysconfig/irqbalance. The ban goes there, /etc/default is not made,
# and the revert gives the file back byte for byte.
test_rhel_layout_bans_in_sysconfig_and_reverts_byte_exact() {
	irqb_root
	rm -r "$ROOT/etc/default"
	local conf=$ROOT/etc/sysconfig/irqbalance unit=$ROOT/usr/lib/systemd/system/irqbalance.service
	mkdir -p "$ROOT/etc/sysconfig" "${unit%/*}"
	# As Fedora's package ships them (no final newline on the last line, a
	# commented default the edit must leave alone).
	printf '%s\n' '# irqbalance is a daemon process that distributes interrupts across' \
		'#IRQBALANCE_BANNED_CPULIST=' '' '#IRQBALANCE_ARGS=' >"$conf"
	printf 'IRQBALANCE_ONESHOT=' >>"$conf"
	printf '%s\n' '[Unit]' 'Description=irqbalance daemon' '[Service]' \
		'EnvironmentFile=-/usr/lib/irqbalance/defaults.env' 'EnvironmentFile=-/etc/sysconfig/irqbalance' \
		'ExecStart=/usr/sbin/irqbalance --foreground $IRQBALANCE_ARGS' >"$unit"
	cp -p "$conf" "$WORK/irqb-rhel.orig"
	local out
	out=$(npi apply --irqbalance=ban --state-dir "$STATE" "$WORK/irqb-megasas.json" 2>"$WORK/irqb.err") ||
		die "apply failed: $(cat "$WORK/irqb.err")"
	expect_eq 4-7 "$(cat "$ROOT/proc/irq/34/smp_affinity_list")" "irq 34 after apply"
	expect_eq "--banirq=34" "$(irqb_args "$conf")" "IRQBALANCE_ARGS in /etc/sysconfig/irqbalance"
	[[ $out == *"--banirq=34 added to /etc/sysconfig/irqbalance"* ]] || die "apply does not name the file: $out"
	[ ! -e "$ROOT/etc/default/irqbalance" ] || die "apply wrote /etc/default/irqbalance"
	local json
	json=$(npi apply --json --dry-run --state-dir "$STATE" "$WORK/irqb-megasas.json")
	expect_eq "/etc/sysconfig/irqbalance|banirq|banned_already" \
		"$(jq -r '.irqbalance | "\(.file)|\(.method)|\(.action)"' <<<"$json")" "apply --json's irqbalance"
	# Someone else's edit since stays; numaplace's tokens go.
	echo 'IRQBALANCE_BANNED_CPULIST=0' >>"$conf"
	npi revert --state-dir "$STATE" >/dev/null 2>"$WORK/irqb.err" || die "revert: $(cat "$WORK/irqb.err")"
	expect_eq "$(cat "$WORK/irqb-rhel.orig"; echo; echo 'IRQBALANCE_BANNED_CPULIST=0')" "$(cat "$conf")" \
		"the file after revert, with the line added since"
	# And with nothing added since: byte for byte.
	cp -p "$WORK/irqb-rhel.orig" "$conf"
	npi apply --irqbalance=ban --state-dir "$STATE" "$WORK/irqb-megasas.json" >/dev/null 2>&1 || die "apply failed"
	npi revert --state-dir "$STATE" >/dev/null 2>&1 || die "revert failed"
	cmp "$WORK/irqb-rhel.orig" "$conf" || die "not byte-exact after revert: $(od -c "$conf" | tail -3)"
}

test_a_line_it_cannot_edit_is_left_alone_with_a_warning() {
	irqb_root
	printf '%s\n' 'IRQBALANCE_ARGS="--hintpolicy=exact" # tuned' >"$CONF"
	cp -p "$CONF" "$WORK/irqb-conf.orig"
	local err
	err=$(npi apply --state-dir "$STATE" "$WORK/irqb-megasas.json" 2>&1 >/dev/null)
	conf_unchanged
	[[ $err == *"cannot ban the IRQs"*"text follows the value"* ]] || die "no reason given: $err"
	[[ $err == *WARNING* ]] || die "no warning: $err"
}

test_dry_run_names_the_ban_and_writes_nothing() {
	irqb_root
	local out
	out=$(npi apply --dry-run --state-dir "$STATE" "$WORK/irqb-megasas.json" 2>/dev/null)
	[[ $out == *"irqbalance: would add --banirq=34 to /etc/default/irqbalance"* ]] || die "dry run: $out"
	expect_eq ban "$(npi apply --dry-run --json --state-dir "$STATE" "$WORK/irqb-megasas.json" 2>/dev/null |
		jq -r .irqbalance.action)" "JSON dry run"
	conf_unchanged
	expect_eq 0-15 "$(cat "$ROOT/proc/irq/34/smp_affinity_list")" "irq 34 after the dry run"
}

# --- live: the real daemon, on this machine

# Every IRQ's affinity: irqbalance moves the ones that are not banned.
irqb_save_live() {
	IRQB_SAVE=$WORK/irqb-live-save
	rm -rf "$IRQB_SAVE" && mkdir -p "$IRQB_SAVE"
	local f
	for f in /proc/irq/*/smp_affinity_list; do
		mkdir -p "$IRQB_SAVE${f%/*}" && cat "$f" >"$IRQB_SAVE$f"
	done
	# irqbalance's file: restored byte for byte, or removed when we made it.
	if [ -e /etc/default/irqbalance ]; then
		cp -p /etc/default/irqbalance "$IRQB_SAVE/irqbalance.conf"
	fi
	trap irqb_restore_live EXIT
}

irqb_restore_live_irqs() {
	local f
	(cd "$IRQB_SAVE" && find proc -type f) | while read -r f; do
		[ "$(cat "/$f")" == "$(cat "$IRQB_SAVE/$f")" ] || cat "$IRQB_SAVE/$f" >"/$f" 2>/dev/null || true
	done
}

irqb_restore_live() {
	irqb_restore_live_irqs
	if [ -e "$IRQB_SAVE/irqbalance.conf" ]; then
		cmp -s "$IRQB_SAVE/irqbalance.conf" /etc/default/irqbalance ||
			cp -p "$IRQB_SAVE/irqbalance.conf" /etc/default/irqbalance
	else
		rm -f /etc/default/irqbalance
	fi
}

irqb_running_here() {
	local c
	for c in /proc/[0-9]*/comm; do
		[ "$(cat "$c" 2>/dev/null)" = irqbalance ] && return 0
	done
	return 1
}

# One balancing pass of the real daemon with the arguments the unit would
# give it; skips the test when the daemon cannot run here.
irqb_oneshot() {
	local log=$1 status=0 start end
	start=$(date +%s)
	(set -a && . /etc/default/irqbalance && set +a &&
		exec timeout 20 /usr/sbin/irqbalance --oneshot --foreground ${IRQBALANCE_ARGS-}) >"$log" 2>&1 || status=$?
	end=$(date +%s)
	if [ "$status" -ne 0 ]; then
		skip_test "irqbalance --oneshot exited with $status after $((end - start)) s: $(tr '\n' ' ' <"$log")"
	fi
}

test_live_irqbalance_leaves_a_banned_irq_where_numaplace_put_it() {
	[ "$(id -u)" = 0 ] || skip_test "live tests need root"
	[ -x /usr/sbin/irqbalance ] || skip_test "irqbalance is not installed"
	! irqb_running_here || skip_test "an irqbalance daemon runs here; the test runs its own"
	local irq
	irq=$(awk '$NF ~ /-input\.0$/ {sub(":", "", $1); print $1; exit}' /proc/interrupts)
	[ -n "$irq" ] || skip_test "no virtio-net input IRQ (*-input.0) here"
	local online cur
	online=$(cat /sys/devices/system/cpu/online)
	[ "$online" != 0 ] || skip_test "needs a second CPU"
	irqb_save_live
	cur=$(cat /proc/irq/$irq/smp_affinity_list)
	[ -e /etc/default/irqbalance ] || : >/etc/default/irqbalance
	cp -p /etc/default/irqbalance "$WORK/irqb-live-conf.before"

	local state=$WORK/irqb-live-state p=$WORK/irqb-live.json cpu target=
	# First without a ban: the daemon must move the IRQ, or keeping it
	# would prove nothing. Its choice depends on load: try each CPU.
	for cpu in $(seq 0 $(($(nproc --all) - 1))); do
		[ "$cpu" != "$cur" ] && [ -d /sys/devices/system/cpu/cpu$cpu ] || continue
		[ "$(cat /sys/devices/system/cpu/cpu$cpu/online 2>/dev/null || echo 1)" = 1 ] || continue
		printf '{ "format": "numaplace-profile/1", "name": "irqbalance-live",
		  "settings": [ { "kind": "irq_affinity", "irq": %s, "cpus": "%s" } ] }\n' "$irq" "$cpu" >"$p"
		rm -rf "$state"
		"$NUMAPLACE" apply --irqbalance=ignore --state-dir "$state" "$p" >/dev/null
		expect_eq "$cpu" "$(cat /proc/irq/$irq/smp_affinity_list)" "irq $irq after apply"
		irqb_oneshot "$WORK/irqb-live-control.log"
		local moved
		moved=$(cat /proc/irq/$irq/smp_affinity_list)
		"$NUMAPLACE" revert --force --state-dir "$state" >/dev/null
		irqb_restore_live_irqs
		if [ "$moved" != "$cpu" ]; then
			target=$cpu
			echo "without a ban irqbalance moved irq $irq from $cpu to $moved"
			break
		fi
	done
	[ -n "$target" ] || skip_test "irqbalance --oneshot left irq $irq alone even without a ban: nothing to tell"

	# Now with the ban, as apply makes it by default.
	rm -rf "$state"
	local out
	out=$("$NUMAPLACE" apply --state-dir "$state" "$p")
	echo "$out"
	[[ $out == *"--banirq=$irq added to /etc/default/irqbalance"* ]] || die "apply did not ban irq $irq: $out"
	expect_eq "$target" "$(cat /proc/irq/$irq/smp_affinity_list)" "irq $irq after apply"
	irqb_oneshot "$WORK/irqb-live-banned.log"
	echo "irqbalance printed: $(tr '\n' ' ' <"$WORK/irqb-live-banned.log")"
	grep -q "IRQ $irq was BANNED" "$WORK/irqb-live-banned.log" || die "irqbalance did not see the ban"
	expect_eq "$target" "$(cat /proc/irq/$irq/smp_affinity_list)" "irq $irq after irqbalance ran with the ban"

	# The revert puts back the IRQ and the file, byte for byte.
	"$NUMAPLACE" revert --state-dir "$state" >/dev/null
	expect_eq "$cur" "$(cat /proc/irq/$irq/smp_affinity_list)" "irq $irq after revert"
	cmp -s "$WORK/irqb-live-conf.before" /etc/default/irqbalance || die "/etc/default/irqbalance differs after revert"
}
