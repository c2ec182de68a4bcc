# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile copies of a machine (issue 15): links that leave the root, files
# that never end or block, CPU numbers that never stop, a driver link libpci
# cannot take. Each must be a clear error (or a contained success) quickly,
# with bounded memory, and nothing outside the root may change.

FIXTURE=$TOP/tests/fixtures/r715

# A private copy of the fixture at $ROOT, and $OUT outside it.
fresh_root() {
	rm -rf "$WORK/h" "$WORK/outside"
	cp -a "$FIXTURE" "$WORK/h"
	mkdir -p "$WORK/outside"
	ROOT=$WORK/h OUT=$WORK/outside
}

np() { timeout 10 "$NUMAPLACE" --root "$ROOT" "$@"; }

rq_profile() {
	printf '{"format":"numaplace-profile/1","name":"t","settings":[{"kind":"rq_affinity","block":"sda","value":2}]}\n' \
		>"$WORK/rq.json"
}

# Runs numaplace; fails unless it exits 1 within the timeout with an error
# holding $1. The normal build under a 1 GB address-space limit: memory
# stays bounded (the sanitizer build cannot run under such a limit).
expect_clear_error() {
	local want=$1 err status=0
	shift
	err=$( (ulimit -v 1000000; timeout 10 "$TOP/numaplace" --root "$ROOT" "$@") 2>&1 >/dev/null) || status=$?
	expect_eq 1 "$status" "exit status of '$*' (124: timed out)"
	[[ $err == *"$want"* ]] || die "error of '$*' does not say '$want': $err"
	err=$(np "$@" 2>&1 >/dev/null) && die "'$*' succeeded under the sanitizers"
	[[ $err == *"$want"* ]] || die "sanitizer build, '$*': $err"
}

test_write_through_absolute_link_stays_inside() {
	fresh_root
	rq_profile
	local q=$ROOT/sys/block/sda/queue
	cp -a "$q/." "$OUT/" && rm -rf "$q" && ln -s "$OUT" "$q"
	# Inside the root the link leads nowhere: no sda queue on this machine.
	np apply "$WORK/rq.json" >/dev/null 2>&1 && die "apply through a link leaving the root succeeded"
	expect_eq 1 "$(cat "$OUT/rq_affinity")" "the file outside the root"
}

test_state_dir_through_absolute_link_stays_inside() {
	fresh_root
	rq_profile
	ln -s "$OUT" "$ROOT/var"
	np apply "$WORK/rq.json" >/dev/null 2>&1 && die "apply made its state directory through a link leaving the root"
	[ -z "$(ls -A "$OUT")" ] || die "state written outside the root: $(ls -AR "$OUT")"
	expect_eq 1 "$(cat "$ROOT/sys/block/sda/queue/rq_affinity")" "rq_affinity after a refused apply"
}

test_snapshot_through_absolute_link_copies_nothing_outside() {
	fresh_root
	echo "host secret" >"$OUT/secret"
	rm "$ROOT/proc/cmdline" && ln -s "$OUT/secret" "$ROOT/proc/cmdline"
	np snapshot "$WORK/snap" >/dev/null 2>&1 || true
	! grep -rqs "host secret" "$WORK/snap" || die "snapshot copied a file from outside the root"
}

test_long_driver_link_does_not_abort() {
	fresh_root
	local link=$ROOT/sys/devices/pci0000:00/0000:00:09.0/driver status=0
	rm "$link" && ln -s "../../../bus/pci/drivers/$(printf 'd%.0s' $(seq 1100))" "$link"
	np devices --all >/dev/null 2>"$WORK/err" || status=$?
	expect_eq 0 "$status" "devices with a 1100-byte driver link: $(head -c 300 "$WORK/err")"
}

# libpci opened the PCI files by path, following an absolute link out of the
# root. The link's target exists twice: outside the root (a network class)
# and at the same path inside it (the real one, a host bridge); only the
# second may be read.
test_pci_attribute_through_absolute_link_stays_inside() {
	fresh_root
	local dev=$ROOT/sys/devices/pci0000:00/0000:00:00.0 class
	echo 0x020000 >"$OUT/class"
	mkdir -p "$ROOT$OUT" && mv "$dev/class" "$ROOT$OUT/class" && ln -s "$OUT/class" "$dev/class"
	class=$(np devices --all --json 0000:00:00.0 | jq -r '.devices[0].class_id') ||
		die "devices with a class link: $class"
	expect_eq 0600 "$class" "class read through an absolute link"
}

# An interface's link is followed inside the root to find its PCI function,
# as the kernel would follow it on that machine: an absolute link names the
# root's own /sys, not this machine's.
test_interface_through_absolute_link_resolves_inside() {
	fresh_root
	local link=$ROOT/sys/class/net/eth4 target net
	target=$(readlink "$link") && target=/sys/${target#../../}
	rm "$link" && ln -s "$target" "$link"
	net=$(np devices --all --json 0000:23:00.0 | jq -c '.devices[0].net') ||
		die "devices with an absolute interface link: $net"
	expect_eq '["eth4"]' "$net" "interface found through an absolute link"
	# One that leads through the root's name to a sibling tree is no owner.
	mkdir -p "$WORK/h2/sys"
	rm "$link" && ln -s "../../../../h2/sys" "$link"
	net=$(np devices --all --json 0000:23:00.0 | jq -c '.devices[0].net') ||
		die "devices with an interface link out of the root: $net"
	expect_eq '[]' "$net" "interface linked out of the root"
	rm -rf "$WORK/h2"
}

test_fifo_is_refused() {
	fresh_root
	rm "$ROOT/sys/devices/system/cpu/online" && mkfifo "$ROOT/sys/devices/system/cpu/online"
	expect_clear_error "cpu/online' is not a regular file" topo
}

test_endless_attribute_is_refused() {
	fresh_root
	truncate -s 16G "$ROOT/sys/devices/system/cpu/online"
	expect_clear_error "cpu/online' is larger than 1 MiB" topo
}

test_endless_interrupts_is_refused() {
	fresh_root
	truncate -s 64G "$ROOT/proc/interrupts"
	expect_clear_error "interrupts' is larger than 1 GiB or has a line longer than 4 MiB" irqs
}

test_huge_cpu_number_is_refused() {
	fresh_root
	echo 0-1048576 >"$ROOT/sys/devices/system/cpu/present"
	echo 0-1048576 >"$ROOT/sys/devices/system/cpu/possible"
	expect_clear_error "names a CPU above 65535" topo
}

# The leak on a malformed CPU list turned exit 2 into 1 under the sanitizers.
test_bad_cpu_list_profile_leaks_nothing() {
	printf '{"format":"numaplace-profile/1","name":"t","app":{"cpus":"0,x"},"rules":[{"match":{"class":"network"},"irqs":"app"}]}\n' \
		>"$WORK/leak.json"
	local status=0 err
	err=$("$NUMAPLACE" profile validate "$WORK/leak.json" 2>&1) || status=$?
	expect_eq 2 "$status" "validate of a bad CPU list: $err"
	[[ $err == *'"0,x" is not a CPU list'* ]] || die "no clear error: $err"
}

# A plan without a setting made a profile that apply and validate reject.
test_advise_with_nothing_to_plan_writes_nothing() {
	local err status=0
	rm -f "$WORK/none.json"
	err=$("$NUMAPLACE" --root "$FIXTURE" advise --device 0000:00:00.0 -o "$WORK/none.json" 2>&1 >/dev/null) || status=$?
	expect_eq 0 "$status" "advise -o with nothing to plan"
	[[ $err == *"nothing to write"* ]] || die "advise does not say nothing to write: $err"
	[ ! -e "$WORK/none.json" ] || die "advise wrote $(cat "$WORK/none.json")"
}

# A malformed journal beside a good one: history lists both, and says why
# the bad one is unreadable in JSON ("error") as in text (stderr); the good
# one still reverts, the bad one's revert refuses.
test_history_json_says_why_a_journal_is_unreadable() {
	command -v jq >/dev/null || skip_test "jq not installed"
	fresh_root
	rq_profile
	np apply "$WORK/rq.json" >/dev/null 2>&1 || die "apply failed"
	local txn=$ROOT/var/lib/numaplace/txn json err
	printf '{"id": "20260101-000000-1", "changes": 3' >"$txn/20260101-000000-1.json"
	json=$(np history --json 2>/dev/null) || die "history --json failed beside a malformed journal"
	expect_eq "unreadable" "$(jq -r '.transactions[0].state' <<<"$json")" "state of the malformed journal"
	[[ $(jq -r '.transactions[0].error' <<<"$json") == *"20260101-000000-1.json' is malformed"* ]] ||
		die "history --json does not say why the journal is unreadable: $json"
	expect_eq "null" "$(jq -r '.transactions[1].error' <<<"$json")" "error of the good journal"
	err=$(np history 2>&1 >/dev/null)
	[[ $err == *"20260101-000000-1 is unreadable"*"is malformed"* ]] || die "text history does not say why: $err"
	np revert 20260101-000000-1 >/dev/null 2>&1 && die "revert of a malformed journal succeeded"
	np revert >/dev/null 2>&1 || die "the good transaction does not revert beside a malformed journal"
	expect_eq 1 "$(cat "$ROOT/sys/block/sda/queue/rq_affinity")" "rq_affinity after the revert"
}

# A writer killed between naming its temporary file and renaming it leaves
# ".NAME.numaplace-PID" beside the file: the revert of the pending journal
# (under the lock, so no writer is alive) removes it; the tree is as before.
test_revert_of_a_killed_apply_removes_its_temporary_file() {
	fresh_root
	rq_profile
	np apply "$WORK/rq.json" >/dev/null 2>&1 || die "apply failed"
	local q=$ROOT/sys/block/sda/queue journal
	journal=$(ls "$ROOT"/var/lib/numaplace/txn/*.json)
	sed -i 's/"state":\t"applied"/"state":\t"pending"/' "$journal"
	grep -q '"pending"' "$journal" || die "could not mark the journal pending: $(cat "$journal")"
	echo 2 >"$q/.rq_affinity.numaplace-4242"
	echo 2 >"$q/.rq_affinity.numaplace-x"
	np revert >/dev/null 2>"$WORK/err" || die "revert failed: $(cat "$WORK/err")"
	[ ! -e "$q/.rq_affinity.numaplace-4242" ] || die "the killed writer's temporary file is still there"
	[ -e "$q/.rq_affinity.numaplace-x" ] || die "a file that is no temporary name of numaplace was removed"
	expect_eq 1 "$(cat "$q/rq_affinity")" "rq_affinity after the revert"
}
