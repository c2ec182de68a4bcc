# SPDX-License-Identifier: GPL-2.0-or-later
# A stop never wedges a node (issue 35). SIGTERM, SIGINT and SIGHUP during
# the writes of apply, revert and hold (its first apply and its re-applies)
# stop them and roll the transaction back, or let it finish, before the
# process ends: never a pending transaction. What a kill -9 leaves, the next
# apply or hold of the same profile rolls back by itself, in one log line;
# a human is asked only about a value someone else changed meanwhile, and
# the DaemonSet's readiness check (apply --dry-run) then says the same as
# hold. On copies of the real RT worker (cnto-worker2) with the DaemonSet's
# profile. The signal comes from the test build's fault hook
# (NUMAPLACE_FAULT_AFTER_WRITES=K with NUMAPLACE_FAULT_SIGNAL=SIG: the
# process sends itself SIG right after its K-th write), so that it falls
# inside the writes every time; torture.sh sends real ones at random.

# A private, writable copy of the snapshot, an untouched one, and the profile.
rec_root() {
	local src
	src=$(snapshot_root cnto-worker2.tgz)
	rm -rf "$WORK/rec" && mkdir -p "$WORK/rec"
	cp -a "$src" "$WORK/rec/root"
	cp -a "$src" "$WORK/rec/orig"
	ROOT=$WORK/rec/root
	# The DaemonSet's ConfigMap profile, CPUs 0-1 its housekeeping CPUs.
	cat >"$WORK/rec/p.json" <<-'EOF'
	{"format": "numaplace-profile/1", "name": "k8s-housekeeping", "app": {"cpus": "0-1"}, "rules": [
	 {"match": {"class": "network"}, "irqs": "app", "xps": "follow-irq", "rps": "app"},
	 {"match": {"class": "storage"}, "irqs": "app"}]}
	EOF
}

np() { "$NUMAPLACE" --root "$ROOT" "$@"; }
# np with the terminating signals as a shell starts a command: a background
# job's SIGINT ignored would be ignored by the apply too (and must be).
np_signals() { env --default-signal=HUP,INT,TERM "$NUMAPLACE" --root "$ROOT" "$@"; }

same_tree() {
	local d
	for d in sys proc; do
		diff -r --no-dereference "$WORK/rec/orig/$d" "$ROOT/$d" >"$WORK/rec/diff" 2>&1 ||
			die "$1: $d/ differs from the original: $(head -3 "$WORK/rec/diff")"
	done
}

# The state of each transaction, oldest first, one word each.
states() { np history --json | jq -r '[.transactions[].state] | join(" ")'; }

no_pending() {
	[[ " $(states) " != *" pending "* ]] || die "$1: a transaction is left pending: $(np history)"
}

# status_of SIG: the exit status of a process that SIG ended (128 + its number).
status_of() { echo $((128 + $(kill -l "$1"))); }

test_signal_during_apply_rolls_back() {
	rec_root
	local sig status err n
	n=$(np apply --dry-run --json --irqbalance ignore "$WORK/rec/p.json" 2>/dev/null | jq .would_change)
	[ "$n" -gt 100 ] || die "the profile changes $n values, expected over 100"
	for sig in TERM INT HUP; do
		status=0
		err=$(NUMAPLACE_FAULT_AFTER_WRITES=20 NUMAPLACE_FAULT_SIGNAL=$sig np_signals apply --irqbalance ignore \
			"$WORK/rec/p.json" 2>&1 >/dev/null) || status=$?
		# The signal acts once the apply has said what it did: the status a shell expects.
		expect_eq "$(status_of "$sig")" "$status" "exit status of an apply stopped by SIG$sig"
		[[ $err == *"stopped by SIG$sig after writing 20 of $n values: they were put back, nothing changed"* ]] ||
			die "SIG$sig: the apply does not say what it did: $err"
		no_pending "SIG$sig"
		[[ $(states) == *rolled_back ]] || die "SIG$sig: the last transaction is not rolled back: $(states)"
		same_tree "SIG$sig"
	done
}

test_signal_during_revert_keeps_the_transaction() {
	rec_root
	local status=0 err
	np apply --irqbalance ignore "$WORK/rec/p.json" >/dev/null 2>&1 || die "apply failed"
	err=$(NUMAPLACE_FAULT_AFTER_WRITES=30 NUMAPLACE_FAULT_SIGNAL=TERM np_signals revert 2>&1 >/dev/null) || status=$?
	expect_eq "$(status_of TERM)" "$status" "exit status of a revert stopped by SIGTERM"
	[[ $err == *"stopped by SIGTERM after restoring 30 of"*"the revert's writes were undone"* ]] ||
		die "the revert does not say what it did: $err"
	expect_eq applied "$(states)" "the transaction after a stopped revert"
	np verify "$WORK/rec/p.json" >/dev/null || die "the values are not all applied after a stopped revert"
	np revert >/dev/null || die "revert after the stopped one failed"
	same_tree "after the revert"
}

# hold_start LOG ARGS...: hold in the background (HOLD_PID), its log in LOG.
hold_start() {
	HOLD_LOG=$1
	shift
	"$NUMAPLACE" --root "$ROOT" hold --irqbalance ignore "$@" 2>"$HOLD_LOG" &
	HOLD_PID=$!
	trap 'kill -9 $HOLD_PID 2>/dev/null || true' EXIT
}

# hold_wait PATTERN [COUNT]: until the log has COUNT lines (default 1)
# matching PATTERN; 60 s at most, and fails at once when hold exits.
hold_wait() {
	local i
	for ((i = 0; i < 600; i++)); do
		[ "$(grep -c -- "$1" "$HOLD_LOG" || true)" -ge "${2:-1}" ] && return 0
		kill -0 "$HOLD_PID" 2>/dev/null || die "hold exited while waiting for '$1': $(cat "$HOLD_LOG")"
		sleep 0.1
	done
	die "no '$1' in hold's log after 60 s: $(cat "$HOLD_LOG")"
}

# hold_exit: waits for hold to end (60 s at most); its exit status in HOLD_STATUS.
hold_exit() {
	local i
	for ((i = 0; i < 600; i++)); do
		kill -0 "$HOLD_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$HOLD_PID" 2>/dev/null && die "hold still runs after 60 s: $(cat "$HOLD_LOG")"
	HOLD_STATUS=0
	wait "$HOLD_PID" || HOLD_STATUS=$?
}

# The issue's report: SIGTERM (a pod deleted) during hold's first apply left
# its transaction pending, and every later hold exited "run 'numaplace revert'
# first".
test_sigterm_during_holds_first_apply_leaves_nothing_pending() {
	rec_root
	NUMAPLACE_FAULT_AFTER_WRITES=20 NUMAPLACE_FAULT_SIGNAL=TERM hold_start "$WORK/rec/log1" "$WORK/rec/p.json"
	hold_exit
	expect_eq 0 "$HOLD_STATUS" "hold's exit status after SIGTERM in its first apply"
	grep -q "stopped by SIGTERM after writing 20 of .* values: they were put back, nothing changed" "$WORK/rec/log1" ||
		die "hold does not say it stopped: $(cat "$WORK/rec/log1")"
	no_pending "after the stopped hold"
	same_tree "after the stopped hold"
	hold_start "$WORK/rec/log2" "$WORK/rec/p.json"
	hold_wait "^numaplace: hold: holding"
	grep -q "applied k8s-housekeeping: " "$WORK/rec/log2" || die "the next hold did not apply: $(cat "$WORK/rec/log2")"
	kill -TERM "$HOLD_PID"
	hold_exit
	expect_eq 0 "$HOLD_STATUS" "the next hold's exit status"
}

# A re-apply: SIGTERM stops it (rolled back, the drift left as it was) and
# hold ends. SIGHUP in a first apply lets it finish, then reloads.
test_hold_reapply_stops_on_sigterm_and_finishes_on_sighup() {
	rec_root
	local irqs f
	np apply --irqbalance ignore "$WORK/rec/p.json" >/dev/null 2>&1 || die "apply failed"
	irqs=$(jq -r '[.changes[].path | select(endswith("smp_affinity_list"))][:10][]' "$ROOT"/var/lib/numaplace/txn/*.json)

	NUMAPLACE_FAULT_AFTER_WRITES=3 NUMAPLACE_FAULT_SIGNAL=TERM hold_start "$WORK/rec/log1" --interval 3600 \
		"$WORK/rec/p.json"
	hold_wait "^numaplace: hold: holding"
	for f in $irqs; do echo 30 >"$ROOT$f"; done
	kill -HUP "$HOLD_PID"
	hold_exit
	expect_eq 0 "$HOLD_STATUS" "hold's exit status after SIGTERM in a re-apply"
	grep -q "re-apply (SIGHUP reload) stopped by SIGTERM after writing 3 of 10 values" "$WORK/rec/log1" ||
		die "hold does not say the re-apply stopped: $(cat "$WORK/rec/log1")"
	no_pending "after the stopped re-apply"
	[[ $(states) == *rolled_back ]] || die "the re-apply is not rolled back: $(states)"
	for f in $irqs; do expect_eq 30 "$(cat "$ROOT$f")" "$f, whose re-apply was stopped"; done

	NUMAPLACE_FAULT_AFTER_WRITES=3 NUMAPLACE_FAULT_SIGNAL=HUP hold_start "$WORK/rec/log2" --interval 3600 \
		"$WORK/rec/p.json"
	hold_wait "SIGHUP: re-read"
	grep -q "applied k8s-housekeeping: 10 changes" "$WORK/rec/log2" || die "the first apply did not finish: $(cat "$WORK/rec/log2")"
	no_pending "after a first apply that SIGHUP came in"
	np verify "$WORK/rec/p.json" >/dev/null || die "the first apply did not finish"
	kill -TERM "$HOLD_PID"
	hold_exit
	expect_eq 0 "$HOLD_STATUS" "hold's exit status"
}

# kill -9 (or a power cut) mid-write: the next hold rolls the transaction
# back by itself, says so in one line, then applies.
test_hold_recovers_what_a_kill_left() {
	rec_root
	local id
	NUMAPLACE_FAULT_AFTER_WRITES=20 NUMAPLACE_FAULT_SIGNAL=KILL hold_start "$WORK/rec/log1" "$WORK/rec/p.json"
	hold_exit
	expect_eq "$(status_of KILL)" "$HOLD_STATUS" "hold's exit status after kill -9"
	expect_eq pending "$(states)" "the transaction kill -9 left"
	id=$(np history --json | jq -r '.transactions[0].id')
	hold_start "$WORK/rec/log2" "$WORK/rec/p.json"
	hold_wait "^numaplace: hold: holding"
	expect_eq 1 "$(grep -c "transaction $id (k8s-housekeeping) did not finish: rolled it back first" "$WORK/rec/log2")" \
		"lines saying the roll-back: $(cat "$WORK/rec/log2")"
	expect_eq "reverted applied" "$(states)" "the transactions"
	kill -TERM "$HOLD_PID"
	hold_exit
	expect_eq 0 "$HOLD_STATUS" "hold's exit status"
	np revert >/dev/null || die "revert of the hold failed"
	same_tree "after the revert"
}

# A value someone else changed since the kill: nothing is rolled back, apply,
# its dry run and hold all refuse, naming it; 'revert --force' settles it.
test_recovery_asks_only_about_a_value_changed_meanwhile() {
	rec_root
	local id file err status=0
	NUMAPLACE_FAULT_AFTER_WRITES=20 np apply --irqbalance ignore "$WORK/rec/p.json" >/dev/null 2>&1 || status=$?
	expect_eq 3 "$status" "the crash of the fault hook"
	id=$(np history --json | jq -r '.transactions[0].id')
	file=$(jq -r '.changes[5].path' "$ROOT/var/lib/numaplace/txn/$id.json")
	echo 31 >"$ROOT$file"
	for cmd in "apply --dry-run" "apply" "hold"; do
		status=0
		# shellcheck disable=SC2086
		err=$(timeout 60 "$NUMAPLACE" --root "$ROOT" $cmd --irqbalance ignore "$WORK/rec/p.json" 2>&1 >/dev/null) ||
			status=$?
		expect_eq 1 "$status" "exit status of $cmd"
		[[ $err == *"transaction $id (k8s-housekeeping) did not finish, and its roll-back needs you: '$ROOT$file'"*"it is '31'"*"run 'numaplace revert --force $id'"* ]] ||
			die "$cmd does not name the value changed meanwhile: $err"
	done
	expect_eq 31 "$(cat "$ROOT$file")" "the value someone else wrote"
	expect_eq pending "$(states)" "the transaction, left for the human"
	np revert --force "$id" >/dev/null || die "revert --force failed"
	np apply --dry-run --irqbalance ignore "$WORK/rec/p.json" >/dev/null 2>&1 || die "the dry run still refuses"
}

# The dry run says what the apply will do first, and writes nothing.
test_dry_run_plans_the_roll_back() {
	rec_root
	local id out
	NUMAPLACE_FAULT_AFTER_WRITES=20 np apply --irqbalance ignore "$WORK/rec/p.json" >/dev/null 2>&1 && die "no crash"
	id=$(np history --json | jq -r '.transactions[0].id')
	out=$(np apply --dry-run --irqbalance ignore "$WORK/rec/p.json" 2>/dev/null) || die "dry run: exit $?"
	expect_eq "transaction $id (k8s-housekeeping) did not finish: an apply would roll it back first (20 values to restore)" \
		"$(head -n 1 <<<"$out")" "the dry run's first line"
	expect_eq "\"$id\"" "$(np apply --dry-run --json --irqbalance ignore "$WORK/rec/p.json" 2>/dev/null | jq .recover)" \
		"recover in --json"
	expect_eq pending "$(states)" "after the dry runs"
	# apply, as hold: one line on stderr, then the apply.
	out=$(np apply --json --irqbalance ignore "$WORK/rec/p.json" 2>"$WORK/rec/err") || die "apply: $(cat "$WORK/rec/err")"
	expect_eq "\"$id\"" "$(jq .recovered <<<"$out")" "recovered in apply --json"
	grep -q "^numaplace: apply: transaction $id (k8s-housekeeping) did not finish: rolled it back first" "$WORK/rec/err" ||
		die "apply does not say it rolled back: $(cat "$WORK/rec/err")"
	expect_eq "reverted applied" "$(states)" "the transactions"
}

# The DaemonSet's entry script: its check (apply --dry-run) and hold agree.
# What a kill left is rolled back by the hold it starts; a value changed
# meanwhile keeps it waiting, with the reason, instead of a loop of holds
# that exit 1 ("hold exited with status 1; trying again").
test_node_script_check_and_hold_agree() {
	command -v python3 >/dev/null || skip_test "python3 not installed (the manifest is YAML)"
	local K=$WORK/rec-node i id file
	rm -rf "$K" && mkdir -p "$K"
	cp -a "$FIXTURES/rt-igb80" "$K/root"
	ROOT=$K/root
	python3 -c 'import json, sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d.get("kind") == "ConfigMap": print(d["data"]["profile.json"])' "$TOP/deploy/kubernetes/numaplace.yaml" \
		>"$K/profile.json"
	node() {
		NUMAPLACE=$NUMAPLACE HOST_ROOT=$ROOT PROFILE=$K/profile.json RUN_DIR=$K/run RETRY_SECONDS=1 \
			KUBELET_CONFIG=$ROOT/var/lib/kubelet/config.yaml sh "$TOP/deploy/kubernetes/numaplace-node.sh" \
			>"$K/log" 2>&1 &
		NODE_PID=$!
		trap 'kill -TERM $NODE_PID 2>/dev/null || true' EXIT
	}
	node_wait() {
		for ((i = 0; i < 300; i++)); do
			grep -q -- "$1" "$K/log" && return 0
			sleep 0.1
		done
		die "no '$1' in the entry script's log: $(cat "$K/log")"
	}
	node_stop() { kill -TERM "$NODE_PID" && wait "$NODE_PID" || die "the entry script's exit status: $?"; }
	# The node's profile, as the script writes it; then a hold of it killed mid-write.
	node
	node_wait "applied k8s-housekeeping"
	node_stop
	np revert >/dev/null
	NUMAPLACE_FAULT_AFTER_WRITES=5 np apply --irqbalance ignore "$K/run/node.json" >/dev/null 2>&1 && die "no crash"
	id=$(np history --json | jq -r '.transactions[-1].id')

	# A value changed meanwhile: the check fails with the reason, and no hold starts.
	file=$(jq -r '.changes[2].path' "$ROOT/var/lib/numaplace/txn/$id.json")
	echo 79 >"$ROOT$file"
	node
	node_wait "roll-back needs you: '$ROOT$file'"
	# Two more rounds of the script's 1 s retry say it again, and still no hold.
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c -- "roll-back needs you: '$ROOT$file'" "$K/log")" -ge 3 ] && break
		sleep 0.1
	done
	[ "$i" -lt 100 ] || die "the script did not retry: $(cat "$K/log")"
	! grep -q "holding k8s-housekeeping\|hold exited" "$K/log" || die "a hold started: $(cat "$K/log")"
	node_stop

	# Settled by the human (the value put back): the hold the script starts
	# rolls back, then holds.
	jq -r '.changes[2].old' "$ROOT/var/lib/numaplace/txn/$id.json" >"$ROOT$file"
	node
	node_wait "applied k8s-housekeeping"
	grep -q "transaction $id (k8s-housekeeping) did not finish: rolled it back first" "$K/log" ||
		die "no roll-back line: $(cat "$K/log")"
	! grep -q "hold exited" "$K/log" || die "hold exited: $(cat "$K/log")"
	node_stop
}
