# SPDX-License-Identifier: GPL-2.0-or-later
# The channels kind live, through this kernel's ethtool netlink interface, on a veth pair
# (rx and tx channels only: numrxqueues/numtxqueues 4) inside a network namespace the test
# makes and removes: apply, verify and revert, the channel change written first and the
# queue settings found again after it, the kernel's refusals with its own words.

CH_NS=
ch_cleanup() { [ -z "$CH_NS" ] || ip netns del "$CH_NS" 2>/dev/null || true; }

# ch_setup: the namespace with veth va (4 rx, 4 tx queues) and its peer vb, both up.
ch_setup() {
	[ "$(id -u)" = 0 ] || skip_test "needs root (creates a network namespace)"
	command -v ip >/dev/null || skip_test "no ip(8)"
	CH_NS=npch$$
	ip netns add "$CH_NS" 2>/dev/null || skip_test "cannot create a network namespace here"
	trap ch_cleanup EXIT
	ip -n "$CH_NS" link add va numtxqueues 4 numrxqueues 4 type veth peer name vb numtxqueues 4 numrxqueues 4 ||
		skip_test "cannot create a veth pair with 4 queues here"
	ip -n "$CH_NS" link set va up && ip -n "$CH_NS" link set vb up
	CH_DIR=$WORK/channels-live
	rm -rf "$CH_DIR" && mkdir -p "$CH_DIR"
}

# ch COMMAND...: numaplace inside the namespace (its /sys shows the namespace's interfaces).
ch() { ip netns exec "$CH_NS" "$NUMAPLACE" "$@"; }
# ch_queues: "RX TX", the queues va has now.
ch_queues() { ip netns exec "$CH_NS" sh -c 'echo $(ls -d /sys/class/net/va/queues/rx-* | wc -l) $(ls -d /sys/class/net/va/queues/tx-* | wc -l)'; }
ch_read() { ip netns exec "$CH_NS" cat "/sys/class/net/va/queues/$1"; }

test_live_channels_veth_apply_verify_revert() {
	ch_setup
	local state=$CH_DIR/state out hist
	expect_eq "4 4" "$(ch_queues)" "va's queues at the start"
	# Queue 1 is there before and after the change: its values are found again after it.
	cat >"$CH_DIR/p.json" <<-EOF
	{"format": "numaplace-profile/1", "name": "ch-live", "settings": [
	 {"kind": "rps_cpus", "net": "va", "queue": 1, "cpus": "0"},
	 {"kind": "xps_cpus", "net": "va", "queue": 1, "cpus": "0"},
	 {"kind": "channels", "net": "va", "value": "rx 2 tx 2"}]}
	EOF
	ch apply --dry-run "$CH_DIR/p.json" | grep -q 'va channels  *rx 4 tx 4  *rx 2 tx 2  *yes' ||
		die "the dry run does not read the channels: $(ch apply --dry-run "$CH_DIR/p.json")"
	ch verify "$CH_DIR/p.json" >/dev/null && die "verify matched before the apply"
	out=$(ch apply --state-dir "$state" "$CH_DIR/p.json") || die "apply failed: $out"
	expect_eq "2 2" "$(ch_queues)" "va's queues after the apply"
	expect_eq 1 "$(ch_read rx-1/rps_cpus)" "rx-1 rps_cpus after the apply"
	expect_eq 1 "$(ch_read tx-1/xps_cpus)" "tx-1 xps_cpus after the apply"
	ch verify "$CH_DIR/p.json" >/dev/null || die "verify after the apply: $(ch verify "$CH_DIR/p.json")"
	# One transaction, the channels first in it, their old value read from the kernel.
	hist=$(ch history --state-dir "$state" --json)
	expect_eq 1 "$(jq '.transactions | length' <<<"$hist")" "transactions"
	hist=$(ch history --state-dir "$state" --json "$(jq -r '.transactions[0].id' <<<"$hist")")
	expect_eq "/sys/class/net/va/channels rx 4 tx 4 rx 2 tx 2" \
		"$(jq -r '.transaction.changes[0] | "\(.path) \(.old) \(.new)"' <<<"$hist")" "the journal's first change"
	expect_eq 3 "$(jq '.transaction.changes | length' <<<"$hist")" "the journal's changes"
	# A second apply has nothing to do.
	expect_eq false "$(ch apply --state-dir "$state" --json "$CH_DIR/p.json" | jq .changed)" "second apply changes"
	out=$(ch revert --state-dir "$state") || die "revert failed: $out"
	expect_eq "4 4" "$(ch_queues)" "va's queues after the revert"
	expect_eq 0 "$(ch_read rx-1/rps_cpus)" "rx-1 rps_cpus after the revert"
	expect_eq 0 "$(ch_read tx-1/xps_cpus)" "tx-1 xps_cpus after the revert"
	grep -q 'va channels: rx 2 tx 2 -> rx 4 tx 4' <<<"$out" || die "the revert does not show the channels: $out"
}

# The kernel's refusal comes with its own words, and nothing is left changed; a setting for a
# queue the change removes stops the apply, which puts the channels back.
test_live_channels_refusals_leave_nothing() {
	ch_setup
	local state=$CH_DIR/state out status=0
	cat >"$CH_DIR/combined.json" <<-EOF
	{"format": "numaplace-profile/1", "name": "ch-combined", "settings": [
	 {"kind": "channels", "net": "va", "value": "combined 2"}]}
	EOF
	out=$(ch apply --state-dir "$state" "$CH_DIR/combined.json" 2>&1) || status=$?
	expect_eq 1 "$status" "apply's exit for a refused count"
	grep -q "va channels: the kernel refused .*requested channel count exceeds maximum" <<<"$out" ||
		die "not the kernel's message: $out"
	expect_eq "4 4" "$(ch_queues)" "va's queues after a refusal"
	cat >"$CH_DIR/gone.json" <<-EOF
	{"format": "numaplace-profile/1", "name": "ch-gone", "settings": [
	 {"kind": "channels", "net": "va", "value": "rx 2 tx 2"},
	 {"kind": "rps_cpus", "net": "va", "queue": 3, "cpus": "0"}]}
	EOF
	status=0
	out=$(ch apply --state-dir "$state" "$CH_DIR/gone.json" 2>&1) || status=$?
	expect_eq 1 "$status" "apply's exit for a queue the change removes"
	grep -q "once the channels were changed: .*va has no receive queue 3" <<<"$out" || die "unclear: $out"
	expect_eq "4 4" "$(ch_queues)" "va's queues after the undone apply"
	expect_eq rolled_back "$(ch history --state-dir "$state" --json | jq -r '.transactions[-1].state')" \
		"the undone apply's state"
}
