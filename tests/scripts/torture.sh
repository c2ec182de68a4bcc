# Crash torture (issue 15): kill -9 apply and revert at random moments on a
# copy of a fixture, recover with revert, and compare the tree byte for byte
# with the original. Seeded, so a failure can be replayed; bounded in time.

torture_root() {
	rm -rf "$WORK/t" "$WORK/t-orig"
	cp -a "$TOP/tests/fixtures/r715" "$WORK/t"
	cp -a "$TOP/tests/fixtures/r715" "$WORK/t-orig"
}

tnp() { timeout 20 "$TOP/numaplace" --root "$WORK/t" "$@"; }

# Runs "$@" and kills it with SIGKILL after a random 0-40 ms.
kill_at_random() {
	"$@" >/dev/null 2>&1 &
	local pid=$!
	sleep "0.0$(printf '%02d' $((RANDOM % 40)))"
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# Reverts until nothing is applied or pending, as a user would after a crash.
recover() {
	local i
	for i in 1 2 3; do
		tnp history --json | jq -e '.transactions[] | select(.state == "pending" or .state == "applied")' \
			>/dev/null || return 0
		tnp revert >/dev/null 2>&1 || tnp revert --force >/dev/null 2>&1 || true
	done
	die "trial $1: still something to revert after three reverts: $(tnp history 2>&1)"
}

test_kill_apply_and_revert_at_random() {
	command -v jq >/dev/null || skip_test "jq not installed"
	torture_root
	tnp advise --policy spread -o "$WORK/plan.json" >/dev/null
	RANDOM=15
	local trial
	for trial in $(seq 1 24); do
		if ((trial % 2)); then
			kill_at_random "$TOP/numaplace" --root "$WORK/t" apply "$WORK/plan.json"
		else
			tnp apply "$WORK/plan.json" >/dev/null 2>&1 || true
			kill_at_random "$TOP/numaplace" --root "$WORK/t" revert
		fi
		recover "$trial"
		diff -r --no-dereference "$WORK/t-orig/sys" "$WORK/t/sys" >"$WORK/diff" 2>&1 ||
			die "trial $trial: sys/ differs from the original: $(head -5 "$WORK/diff")"
		diff -r --no-dereference "$WORK/t-orig/proc" "$WORK/t/proc" >"$WORK/diff" 2>&1 ||
			die "trial $trial: proc/ differs from the original: $(head -5 "$WORK/diff")"
	done
}
