# SPDX-License-Identifier: GPL-2.0-or-later
# Crash torture (issue 15): kill -9 apply and revert at random moments while
# they write a plan of hundreds of values (IRQ affinities, RPS and XPS masks
# of a generated 32-CPU machine with six devices, and irqbalance's file),
# recover with a plain revert, as a user would, and compare the tree byte for
# byte with the original. Seeded, so a failure can be replayed; every command
# is bounded in time. The tree lives in /dev/shm when there is one: kill -9
# needs no fsync to be survived, and on disk the fsyncs of 300 atomic writes
# would make each apply take seconds.

TRIALS=36
GEN_ARGS="--cpus 32 --nodes 2 --devices 6 --irqs 400 --seed 15 --jobs 1"

tnp() { timeout 20 "$TOP/numaplace" --root "$T/t" "$@"; }

# Runs "$@" and kills it with SIGKILL after a random 0 to $SPAN ms.
kill_at_random() {
	"$@" >/dev/null 2>&1 &
	local pid=$! ms=$((RANDOM % (SPAN + 1)))
	sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
	kill -9 "$pid" 2>/dev/null && KILLED=$((KILLED + 1))
	wait "$pid" 2>/dev/null || true
}

unfinished() {
	tnp history --json | jq -e '[.transactions[] | select(.state == "pending" or .state == "applied")] | length > 0' \
		>/dev/null
}

# Reverts until nothing is applied or pending: a plain revert must do it,
# never --force nor a hand edit. kill_first: that revert is killed too.
# $3: how many reverts it may take (default 3).
recover() {
	local i
	[ "${2:-}" = kill_first ] && unfinished && kill_at_random "$TOP/numaplace" --root "$T/t" revert
	for ((i = 0; i < ${3:-3}; i++)); do
		unfinished || return 0
		tnp revert >/dev/null 2>"$T/err" || die "trial $1: revert after the kill failed: $(cat "$T/err")"
	done
	die "trial $1: still something to revert after ${3:-3} reverts: $(tnp history 2>&1)"
}

same_tree() {
	local d
	for d in sys proc etc; do
		diff -r --no-dereference "$T/orig/$d" "$T/t/$d" >"$T/diff" 2>&1 ||
			die "trial $1: $d/ differs from the original: $(head -5 "$T/diff")"
	done
}

# The machine of the torture tests at $T/orig (and a copy at $T/t), and a
# plan at $T/plan.json that changes hundreds of its values.
torture_tree() {
	command -v jq >/dev/null || skip_test "jq not installed"
	[ -x "$TOP/build/gen-root" ] || die "build/gen-root is not built (make check builds it)"
	T=$(mktemp -d "$( [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo "$WORK")/numaplace-torture.XXXXXX")
	trap 'rm -rf "$T"' EXIT
	"$TOP/build/gen-root" "$T/orig" $GEN_ARGS >/dev/null || die "gen-root failed"
	mkdir -p "$T/orig/etc/default"
	printf '%s\n' '# irqbalance settings' 'IRQBALANCE_ARGS="--hintpolicy=exact"' 'IRQBALANCE_ONESHOT=' \
		>"$T/orig/etc/default/irqbalance"
	cp -a "$T/orig" "$T/t"
	# Every value of the advice changed to one the machine does not have, so
	# that each setting is a write.
	tnp advise --policy spread --save "$T/advice.json" >/dev/null 2>&1 || die "advise failed"
	jq '.settings |= [to_entries[] | .key as $k | .value + {cpus:
		(if .value.kind == "irq_affinity" then ($k * 7 % 32 | tostring)
		 else "\($k * 5 % 32),\(($k * 5 + 16) % 32)" end)}]' "$T/advice.json" >"$T/plan.json"
}

test_kill_apply_and_revert_at_random() {
	torture_tree
	local out start writes
	start=$(date +%s%N)
	out=$(tnp apply --irqbalance=ban "$T/plan.json" 2>&1) || die "reference apply failed: $out"
	SPAN=$((($(date +%s%N) - start) / 1000000 + 5))
	writes=$(sed -n 's/^applied \([0-9]*\) changes.*/\1/p' <<<"$out")
	[ "${writes:-0}" -ge 250 ] || die "the plan makes ${writes:-no} writes, expected hundreds: $out"
	tnp revert >/dev/null 2>&1 || die "reference revert failed"
	same_tree reference

	RANDOM=15
	KILLED=0
	local trial t0=$SECONDS
	for trial in $(seq 1 $TRIALS); do
		if ((trial % 2)); then
			kill_at_random "$TOP/numaplace" --root "$T/t" apply --irqbalance=ban "$T/plan.json"
		else
			tnp apply --irqbalance=ban "$T/plan.json" >/dev/null 2>&1 || die "trial $trial: apply failed"
			kill_at_random "$TOP/numaplace" --root "$T/t" revert
		fi
		# Every third trial, the first revert after the kill is killed too.
		recover "$trial" $( ((trial % 3 == 0)) && echo kill_first)
		same_tree "$trial"
	done
	echo "$TRIALS trials of a $writes-write plan, $KILLED killed while running (window $SPAN ms), $((SECONDS - t0)) s"
}
