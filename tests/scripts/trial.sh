# SPDX-License-Identifier: GPL-2.0-or-later
# numaplace trial on a copy of the amd16 fixture, driven by a benchmark that
# reads the copy's IRQ affinity: its throughput changes by BENCH_EFFECT when
# eth0's queue-0 IRQ (28) is on CPU 4, as the profile puts it, plus noise
# from a fixed cycle, so that a seed gives one result.

trial_root() {
	rm -rf "$WORK/trial" && mkdir -p "$WORK/trial"
	cp -a "$FIXTURES/amd16" "$WORK/trial/root"
	cp -a "$FIXTURES/amd16" "$WORK/trial/orig"
	ROOT=$WORK/trial/root
	cat >"$WORK/trial/p.json" <<-'EOF'
	{"format": "numaplace-profile/1", "name": "trial-test", "settings": [
	 {"kind": "irq_affinity", "device": "0000:04:00.0", "queue": 0, "cpus": "4"},
	 {"kind": "irq_affinity", "device": "0000:04:00.0", "queue": 1, "cpus": "5"}]}
	EOF
	cat >"$WORK/trial/bench" <<-'EOF'
	#!/bin/sh
	d=$BENCH_DIR
	a=$(cat "$BENCH_ROOT/proc/irq/28/smp_affinity_list")
	n=$(cat "$d/count" 2>/dev/null || echo 0)
	echo $((n + 1)) >"$d/count"
	echo "$a" >>"$d/seen"
	if [ -n "${BENCH_FAIL_AT:-}" ] && [ "$n" -eq "$BENCH_FAIL_AT" ]; then
		echo "bench: failing as asked" >&2
		exit 3
	fi
	if [ -n "${BENCH_SLEEP:-}" ]; then
		echo $$ >"$d/pid"
		sleep "$BENCH_SLEEP"
	fi
	# What fills the state directory's filesystem, with the profile applied.
	[ -z "${BENCH_FILL:-}" ] || [ "$a" != 4 ] || head -c 4194304 /dev/zero >"$BENCH_FILL" 2>/dev/null || true
	# As irqbalance would: the IRQ moved back behind numaplace's back.
	[ -z "${BENCH_UNDO:-}" ] || printf '0-15\n' >"$BENCH_ROOT/proc/irq/28/smp_affinity_list"
	awk -v a="$a" -v e="${BENCH_EFFECT:-0}" -v n="$n" 'BEGIN {
		split("0.6 -0.4 0.9 -0.8 0.2 -0.1 0.5 -0.7 0.3 -0.2 0.8 -0.5 0.1 -0.9 0.4", z, " ")
		v = 1000 * (1 + z[n % 15 + 1] / 100)
		if (a == "4") v *= 1 + e
		printf "starting\nthroughput: %.2f ops/s\ndone\n", v }'
	EOF
	chmod +x "$WORK/trial/bench"
	export BENCH_DIR=$WORK/trial BENCH_ROOT=$ROOT
}

np() { "$NUMAPLACE" --root "$ROOT" "$@"; }

# trial [OPTIONS]: the fixture's trial of the profile, in JSON.
trial() {
	np trial --json --metric 'throughput: ([0-9.]+)' "$@" "$WORK/trial/p.json" -- "$WORK/trial/bench"
}

same_tree() {
	diff -r --no-dereference "$WORK/trial/orig/sys" "$ROOT/sys" >/dev/null || die "sys/ differs from the original"
	diff -r --no-dereference "$WORK/trial/orig/proc" "$ROOT/proc" >/dev/null || die "proc/ differs from the original"
}

no_applied() {
	expect_eq 0 "$(np history --json | jq '[.transactions[] | select(.state != "reverted")] | length')" \
		"transactions left applied or pending"
}

test_a_real_gain_is_kept() {
	trial_root
	local out status=0
	out=$(BENCH_EFFECT=0.10 trial --runs 6 --seed 1) || status=$?
	expect_eq 0 "$status" "exit status of a completed trial"
	expect_eq keep "$(jq -r .verdict <<<"$out")" "verdict"
	expect_eq 12 "$(jq '.runs | length' <<<"$out")" "runs"
	expect_eq 6 "$(jq .pairs_counted <<<"$out")" "pairs counted"
	# Six pairs reach 1 - 2/64.
	expect_eq 0.96875 "$(jq .level <<<"$out")" "level"
	jq -e '.interval[0] > 0.08 and .interval[1] < 0.12 and .estimate > 0.09 and .estimate < 0.11' <<<"$out" \
		>/dev/null || die "the interval does not hold the 10% gain: $(jq -c '[.estimate, .interval]' <<<"$out")"
	# Each arm ran in its state: the benchmark saw the profile's CPU in the
	# profile runs only.
	paste -d ' ' <(jq -r '.runs[].arm' <<<"$out") "$WORK/trial/seen" | while read -r arm seen; do
		case $arm:$seen in
		profile:4 | baseline:0-15) ;;
		*) die "a $arm run saw IRQ 28 on '$seen'" ;;
		esac
	done || exit 1
	local id
	id=$(jq -r .transaction <<<"$out")
	np verify "$WORK/trial/p.json" >/dev/null || die "the kept profile is not applied"
	expect_eq applied "$(np history --json | jq -r --arg id "$id" '.transactions[] | select(.id == $id) | .state')" \
		"state of the kept transaction"
	local evidence
	evidence=$(np history --json | jq -r --arg id "$id" '.transactions[] | select(.id == $id) | .trial')
	[[ $evidence == *"keep"*"6 pairs"*"seed 1"*"bench"* ]] || die "the journal lacks the evidence: $evidence"
	[[ $(np history -o id,trial) == *"seed 1"* ]] || die "history -o trial does not show the evidence"
	# Every run's output is kept, one file each.
	expect_eq 12 "$(jq -r '.runs[].output' <<<"$out" | xargs grep -l '^throughput' | wc -l)" "output files"
	np revert "$id" >/dev/null
	same_tree
}

test_no_effect_is_not_kept_and_the_tree_is_byte_identical() {
	trial_root
	local out
	out=$(BENCH_EFFECT=0 trial --runs 8 --seed 2) || die "trial failed: exit $?"
	local verdict
	verdict=$(jq -r .verdict <<<"$out")
	[[ $verdict == inconclusive || $verdict == revert ]] || die "no effect gave the verdict $verdict"
	# The evidence stays beside the outputs, though no journal keeps it.
	expect_eq "$(jq -c '[.verdict, .seed, .interval, [.runs[].value]]' <<<"$out")" \
		"$(jq -c '[.verdict, .seed, .interval, [.runs[].value]]' "$(jq -r .outputs <<<"$out")/trial.json")" \
		"trial.json against the printed document"
	expect_eq null "$(jq .transaction <<<"$out")" "transaction left by a trial that did not keep"
	same_tree
	no_applied
}

test_a_loss_is_reverted() {
	trial_root
	local out status=0
	out=$(BENCH_EFFECT=-0.10 trial --runs 6 --seed 3 --require-keep) || status=$?
	expect_eq 4 "$status" "--require-keep when the verdict is not keep"
	expect_eq revert "$(jq -r .verdict <<<"$out")" "verdict"
	jq -e '.interval[1] < 0' <<<"$out" >/dev/null || die "the interval of a loss is not below 0"
	same_tree
	no_applied
	# Lower is better: the same loss in a latency is a gain.
	trial_root
	out=$(BENCH_EFFECT=-0.10 trial --runs 6 --seed 3 --lower-is-better) || die "trial failed: exit $?"
	expect_eq keep "$(jq -r .verdict <<<"$out")" "verdict of a lower latency"
}

test_text_output_prints_the_seed_and_the_verdict() {
	trial_root
	local out
	out=$(BENCH_EFFECT=0.10 np trial --runs 6 --seed 77 --metric 'throughput: ([0-9.]+)' "$WORK/trial/p.json" \
		-- "$WORK/trial/bench" 2>"$WORK/trial/err") || die "trial failed: exit $?"
	[[ $out == *"seed 77 (--seed 77 repeats the order)"* ]] || die "the seed is not printed: $out"
	[[ $out == *"96.9% interval"* ]] || die "the level is not printed: $out"
	[[ $out == *"verdict: keep"* ]] || die "no verdict: $out"
	# Not a terminal: no progress.
	[ ! -s "$WORK/trial/err" ] || die "a trial writing to a pipe printed progress: $(cat "$WORK/trial/err")"
}

test_runs_interleave() {
	trial_root
	local out arms
	out=$(trial --runs 12 --seed 5) || die "trial failed: exit $?"
	arms=$(jq -r '[.runs[].arm[0:1]] | join("")' <<<"$out")
	expect_eq 24 "${#arms}" "runs"
	[[ $arms != *ppp* && $arms != *bbb* ]] || die "an arm ran three times in a row: $arms"
	local i orders=""
	for ((i = 0; i < 24; i += 2)); do
		[[ ${arms:i:2} == pb || ${arms:i:2} == bp ]] || die "pair $((i / 2 + 1)) is not one run of each: $arms"
		orders+=" ${arms:i:2}"
	done
	# Both orders occur (seed 5 draws both).
	[[ $orders == *pb* && $orders == *bp* ]] || die "one order only: $arms"
}

test_the_seed_reproduces_the_order() {
	trial_root
	local a b c
	a=$(trial --runs 10 --seed 42 | jq -r '[.runs[].arm] | join(",")') || die "trial failed"
	trial_root
	b=$(trial --runs 10 --seed 42 | jq -r '[.runs[].arm] | join(",")') || die "trial failed"
	trial_root
	c=$(trial --runs 10 --seed 43 | jq -r '[.runs[].arm] | join(",")') || die "trial failed"
	expect_eq "$a" "$b" "order of two trials with seed 42"
	[ "$a" != "$c" ] || die "seeds 42 and 43 drew the same order: $a"
}

test_sigint_mid_trial_leaves_the_baseline() {
	stopped_by INT Interrupt
}

test_sigterm_mid_trial_leaves_the_baseline() {
	stopped_by TERM Terminated
}

# An ssh session that drops (SIGHUP), a closed pipe, a user's signal, Ctrl-\,
# an alarm from outside: each ends the trial, the machine back first.
test_every_terminating_signal_leaves_the_baseline() {
	stopped_by HUP Hangup
	stopped_by PIPE "Broken pipe"
	stopped_by USR1 "User defined signal 1"
	stopped_by USR2 "User defined signal 2"
	stopped_by QUIT Quit
	stopped_by ALRM "Alarm clock"
}

# A signal numaplace was started with ignored (nohup) stays ignored: the
# trial goes on, as any program started so would.
test_an_ignored_sighup_is_left_ignored() {
	trial_root
	local pid status=0
	BENCH_SLEEP=0.2 nohup "$NUMAPLACE" --root "$ROOT" trial --json --metric 'throughput: ([0-9.]+)' --runs 6 \
		--seed 6 "$WORK/trial/p.json" -- "$WORK/trial/bench" >"$WORK/trial/out" 2>"$WORK/trial/err" &
	pid=$!
	wait_until 15 '[ -s "$WORK/trial/pid" ]' || true
	kill -HUP "$pid"
	wait "$pid" || status=$?
	expect_eq 0 "$status" "exit status of a nohup trial after SIGHUP"
	expect_eq 12 "$(jq '.runs | length' "$WORK/trial/out")" "runs"
	same_tree
}

# stopped_by SIGNAL WORD: the signal sent during a profile run; the error names it by WORD.
stopped_by() {
	trial_root
	local pid status=0 sig=$1 word=$2
	# numaplace itself, not a subshell running it, gets the signal; with its
	# default action, as at a terminal (a background job of a script starts
	# with SIGINT and SIGQUIT ignored).
	BENCH_SLEEP=0.3 env --default-signal "$NUMAPLACE" --root "$ROOT" trial --runs 10 --seed 6 "$WORK/trial/p.json" -- \
		"$WORK/trial/bench" >"$WORK/trial/out" 2>"$WORK/trial/err" &
	pid=$!
	# Until a profile run is under way.
	wait_until 15 '[ "$(tail -n 1 "$WORK/trial/seen" 2>/dev/null)" = 4 ] && [ -s "$WORK/trial/pid" ]' ||
		die "no profile run started"
	kill -"$sig" "$pid"
	wait "$pid" || status=$?
	expect_eq 1 "$status" "exit status after SIG$sig"
	grep -q "$word" "$WORK/trial/err" || die "no word of the signal: $(cat "$WORK/trial/err")"
	! kill -0 "$(cat "$WORK/trial/pid")" 2>/dev/null || die "the benchmark still runs after SIG$sig"
	same_tree
	no_applied
}

test_a_failing_cmd_stops_the_trial() {
	trial_root
	local status=0 err
	err=$(BENCH_FAIL_AT=3 trial --runs 6 --seed 7 2>&1 >/dev/null) || status=$?
	expect_eq 1 "$status" "exit status when CMD fails"
	[[ $err == *"exited with status 3"* && $err == *"--keep-going"* ]] || die "the error does not say: $err"
	expect_eq 4 "$(cat "$WORK/trial/count")" "runs made before the trial stopped"
	same_tree
	no_applied
	# --keep-going leaves that pair out.
	trial_root
	local out
	out=$(BENCH_FAIL_AT=3 BENCH_EFFECT=0.10 trial --runs 7 --seed 7 --keep-going 2>/dev/null) ||
		die "--keep-going trial failed: exit $?"
	expect_eq 6 "$(jq .pairs_counted <<<"$out")" "pairs counted without the failed one"
	expect_eq 3 "$(jq '[.runs[] | select(.value == null)][0].status' <<<"$out")" "status of the failed run"
}

test_drift_is_reapplied_before_a_profile_run() {
	trial_root
	local out
	# Each run moves IRQ 28 back, as irqbalance would; seed 3 has two
	# profile runs in a row (pairs 2 and 3: bp pb).
	out=$(BENCH_UNDO=1 BENCH_EFFECT=0.10 trial --runs 6 --seed 3 2>"$WORK/trial/err") ||
		die "trial failed: exit $?"
	jq -e '.reapplied > 0' <<<"$out" >/dev/null || die "nothing re-applied: $(jq -c .reapplied <<<"$out")"
	grep -q "had drifted from the profile: re-applied" "$WORK/trial/err" || die "the re-apply is not said"
	# Still every profile run saw the profile.
	paste -d ' ' <(jq -r '.runs[].arm' <<<"$out") "$WORK/trial/seen" | grep -c '^profile 4$' |
		grep -qx 6 || die "a profile run did not see the profile"
	np revert "$(jq -r .transaction <<<"$out")" >/dev/null
	same_tree
}

test_refused_before_the_first_run() {
	trial_root
	local status err
	# A device this machine does not have.
	sed 's/0000:04:00.0/0000:99:00.0/' "$WORK/trial/p.json" >"$WORK/trial/other.json"
	status=0
	err=$(np trial --runs 6 "$WORK/trial/other.json" -- "$WORK/trial/bench" 2>&1) || status=$?
	expect_eq 2 "$status" "a profile that does not fit"
	[[ $err == *other.json* ]] || die "the error does not name the profile: $err"
	[ ! -e "$WORK/trial/count" ] || die "the benchmark ran for a profile that does not fit"
	# Already applied: there is no baseline.
	np apply "$WORK/trial/p.json" >/dev/null
	status=0
	err=$(np trial --runs 6 "$WORK/trial/p.json" -- "$WORK/trial/bench" 2>&1) || status=$?
	expect_eq 1 "$status" "a profile the machine matches already"
	[[ $err == *"already matches"* ]] || die "no reason given: $err"
	np revert >/dev/null
	# A transaction left half applied.
	NUMAPLACE_FAULT_AFTER_WRITES=1 np apply "$WORK/trial/p.json" >/dev/null 2>&1 || true
	status=0
	err=$(np trial --runs 6 "$WORK/trial/p.json" -- "$WORK/trial/bench" 2>&1) || status=$?
	expect_eq 1 "$status" "an unfinished transaction"
	[[ $err == *unfinished*revert* ]] || die "no advice to revert: $err"
	[ ! -e "$WORK/trial/count" ] || die "the benchmark ran"
	np revert >/dev/null
	same_tree
	# A command that cannot run.
	local before
	before=$(np history --json | jq '.transactions | length')
	status=0
	err=$(np trial --runs 6 "$WORK/trial/p.json" -- "$WORK/trial/no-such-bench" 2>&1) || status=$?
	expect_eq 1 "$status" "a command that cannot run"
	[[ $err == *"cannot run"*no-such-bench* ]] || die "the error does not name the command: $err"
	expect_eq "$before" "$(np history --json | jq '.transactions | length')" \
		"transactions after a trial of a command that cannot run"
	# Usage.
	local args
	for args in "--runs 5 p -- true" "p true" "p --" "--metric x( p -- true" "--metric x p -- true" "--seed -1 p -- true"; do
		status=0
		# shellcheck disable=SC2086
		np trial $args >/dev/null 2>&1 || status=$?
		expect_eq 2 "$status" "numaplace trial $args"
	done
}

test_progress_on_a_terminal_only() {
	command -v script >/dev/null || skip_test "script(1) is not installed (util-linux)"
	trial_root
	local out
	# script(1) gives the trial a terminal; the test above checks the pipe.
	out=$(BENCH_EFFECT=0.10 script -qec "$(printf '%q ' "$NUMAPLACE" --root "$ROOT" trial --runs 6 --seed 9 \
		--metric 'throughput: ([0-9.]+)' "$WORK/trial/p.json" -- "$WORK/trial/bench")" /dev/null) ||
		die "trial on a terminal failed: $out"
	[[ $out == *"run 12 of 12 ("*"medians baseline"*", profile"* ]] || die "no progress on a terminal: $out"
	[[ $out == *"run 1 of 12 ("* ]] || die "the first run's progress is missing: $out"
}

test_timeout_and_wall_time() {
	trial_root
	local status=0 err
	err=$(BENCH_SLEEP=5 np trial --runs 6 --timeout 1 "$WORK/trial/p.json" -- "$WORK/trial/bench" 2>&1 >/dev/null) ||
		status=$?
	expect_eq 1 "$status" "exit status after a timeout"
	[[ $err == *"more than --timeout 1 s"* ]] || die "the timeout is not said: $err"
	! kill -0 "$(cat "$WORK/trial/pid")" 2>/dev/null || die "the timed-out benchmark still runs"
	same_tree
	# Without --metric: wall time, lower is better, a value for every run.
	local out
	out=$(np trial --json --runs 6 --seed 10 "$WORK/trial/p.json" -- "$WORK/trial/bench") || die "trial failed: exit $?"
	expect_eq true "$(jq .lower_is_better <<<"$out")" "wall time is lower-is-better"
	expect_eq null "$(jq .metric <<<"$out")" "metric of a wall-time trial"
	jq -e '[.runs[] | select(.value > 0 and .value == .seconds or (.value - .seconds | fabs) < 0.001)] | length == 12' \
		<<<"$out" >/dev/null || die "a run's value is not its wall time: $(jq -c '[.runs[] | [.value, .seconds]]' <<<"$out")"
}

test_a_crash_mid_trial_is_undone_by_revert() {
	trial_root
	local status=0
	# The trial's first apply dies after one write, as a crash would.
	NUMAPLACE_FAULT_AFTER_WRITES=1 np trial --runs 6 --seed 1 "$WORK/trial/p.json" -- "$WORK/trial/bench" \
		>/dev/null 2>&1 || status=$?
	expect_eq 3 "$status" "the fault point exits like a crash"
	# seed 1 starts with the profile: the crash came before any run.
	[ ! -e "$WORK/trial/count" ] || die "the benchmark ran with a half-applied transaction"
	[[ $(np history) == *pending* ]] || die "the interrupted transaction is not pending"
	np revert >/dev/null
	same_tree
}

# Every key of trial --json is in its JSON OUTPUT subsection of numaplace(8)
# (schema and warnings, every document's, in the section's opening).
test_json_keys_documented() {
	trial_root
	local text key missing=()
	text=$(awk '/^\.SH/ { s = ($0 ~ /JSON OUTPUT/) } s && /^\.SS/ { t = ($2 == "trial") } s && t' \
		"$TOP/man/numaplace.8.in" | sed -e 's/\\f[BIR]//g' -e 's/\\-/-/g')
	[ -n "$text" ] || die "no trial subsection in JSON OUTPUT"
	for key in $(BENCH_EFFECT=0.1 trial --runs 6 --seed 1 | jq -r '[paths | .[] | strings] | unique[]' |
		grep -vx -e schema -e warnings); do
		grep -qw -- "$key" <<<"$text" || missing+=("$key")
	done
	[ ${#missing[@]} -eq 0 ] || die "trial JSON keys not in numaplace(8): ${missing[*]}"
}

test_warmup_runs_are_not_counted() {
	trial_root
	local out
	out=$(BENCH_EFFECT=0.10 trial --runs 6 --warmup 2 --seed 1) || die "trial failed: exit $?"
	expect_eq 14 "$(jq '.runs | length' <<<"$out")" "runs with two warm-ups"
	expect_eq "true true" "$(jq -r '[.runs[0:2][] | .warmup] | join(" ")' <<<"$out")" "the first two are warm-ups"
	expect_eq "baseline baseline" "$(jq -r '[.runs[0:2][] | .arm] | join(" ")' <<<"$out")" "warm-ups' state"
	expect_eq 0 "$(jq '[.runs[2:][] | select(.warmup)] | length' <<<"$out")" "warm-ups after the first pair"
	expect_eq 6 "$(jq .pairs_counted <<<"$out")" "pairs counted"
	# The order of the counted runs is the seed's, warm-ups or not.
	expect_eq "$(trial_root; trial --runs 6 --seed 1 | jq -c '[.runs[].arm]')" \
		"$(jq -c '[.runs[2:][].arm]' <<<"$out")" "order after the warm-ups"
}

# With irqbalance configured the profile's state includes its bans, applied
# at each switch and removed with the rest; profile runs in a row (seed 3)
# re-check the placements only.
test_irqbalance_bans_come_and_go_with_the_profile() {
	trial_root
	local f
	for f in root orig; do
		mkdir -p "$WORK/trial/$f/etc/default"
		printf '%s\n' '# irqbalance settings' 'IRQBALANCE_ARGS="--hintpolicy=exact"' >"$WORK/trial/$f/etc/default/irqbalance"
	done
	local out
	out=$(BENCH_EFFECT=0 trial --runs 6 --seed 3 2>/dev/null) || die "trial with irqbalance configured failed: exit $?"
	diff -r "$WORK/trial/orig/etc" "$ROOT/etc" >/dev/null || die "etc/ differs after the trial"
	same_tree
	out=$(BENCH_EFFECT=0.10 trial --runs 6 --seed 3 2>/dev/null) || die "trial failed: exit $?"
	expect_eq keep "$(jq -r .verdict <<<"$out")" "verdict"
	grep -q -- '--banirq=28' "$ROOT/etc/default/irqbalance" || die "the kept profile's bans are not in place"
	np revert >/dev/null
	diff -r "$WORK/trial/orig/etc" "$ROOT/etc" >/dev/null || die "etc/ differs after the revert"
}

# CMD's children that leave its session (setsid, as a daemon does) end with
# its run: the trial is their subreaper and kills every process below it.
test_children_that_call_setsid_end_with_their_run() {
	trial_root
	cat >"$WORK/trial/daemonize" <<-'EOF'
	#!/bin/sh
	setsid sleep 300 </dev/null >/dev/null 2>&1 &
	echo $! >>"$BENCH_DIR/daemons"
	exec "$BENCH_DIR/bench"
	EOF
	chmod +x "$WORK/trial/daemonize"
	trap 'xargs kill -9 <"$WORK/trial/daemons" 2>/dev/null || true' EXIT
	np trial --runs 6 --seed 1 "$WORK/trial/p.json" -- "$WORK/trial/daemonize" >/dev/null 2>&1 ||
		die "trial failed: exit $?"
	expect_eq 12 "$(wc -l <"$WORK/trial/daemons")" "daemons started"
	local p
	while read -r p; do
		! kill -0 "$p" 2>/dev/null || die "process $p, started in a session of its own by CMD, outlived the trial"
	done <"$WORK/trial/daemons"
	same_tree
}

# loud: 3 MiB of output on one line before the benchmark's.
make_loud() {
	cat >"$WORK/trial/loud" <<-'EOF'
	#!/bin/sh
	head -c "${LOUD_BYTES:-3145728}" /dev/zero | tr '\0' a
	echo
	"$BENCH_DIR/bench"
	: >"$BENCH_DIR/printed"
	EOF
	chmod +x "$WORK/trial/loud"
}

# Each run keeps its output's last --keep-output KiB (1024 by default), its
# first line saying how much was left out; the metric is read from them.
test_each_runs_output_is_capped() {
	trial_root
	make_loud
	local out f size
	out=$(BENCH_EFFECT=0.10 np trial --json --metric 'throughput: ([0-9.]+)' --runs 6 --seed 1 --keep-output 64 \
		"$WORK/trial/p.json" -- "$WORK/trial/loud") || die "trial failed: exit $?"
	expect_eq keep "$(jq -r .verdict <<<"$out")" "verdict read from the kept output"
	for f in $(jq -r '.runs[].output' <<<"$out"); do
		size=$(stat -c %s "$f")
		[ "$size" -gt 65536 ] && [ "$size" -le $((65536 + 200)) ] || die "$f: $size bytes, not 64 KiB and a line"
		head -n 1 "$f" | grep -q "^numaplace trial: the first 3080[0-9]* bytes of this run's output are left out (--keep-output 64 KiB)$" ||
			die "$f: its first line does not say what was left out: $(head -c 200 "$f")"
		tail -n 2 "$f" | grep -q '^throughput: ' || die "$f: the end of the output is not kept"
	done
	np revert >/dev/null
	trial_root
	make_loud
	out=$(np trial --json --runs 6 --seed 2 "$WORK/trial/p.json" -- "$WORK/trial/loud") || die "trial failed: exit $?"
	size=$(stat -c %s "$(jq -r '.runs[0].output' <<<"$out")")
	[ "$size" -gt 1048576 ] && [ "$size" -le $((1048576 + 200)) ] || die "$size bytes kept by default, not 1 MiB and a line"
	local status=0 err
	err=$(np trial --keep-output 0 "$WORK/trial/p.json" -- true 2>&1) || status=$?
	expect_eq 2 "$status" "--keep-output 0"
	[[ $err == *"--keep-output takes KiB from 1 to"* ]] || die "$err"
}

# history --prune removes the outputs of the trials older than the newest
# --keep, but never those of a trial that still runs.
test_history_prune_removes_old_trials_outputs() {
	trial_root
	local seed first out
	for seed in 1 2 3; do
		out=$(trial --runs 6 --seed "$seed") || die "trial $seed failed: exit $?"
		[ -n "${first:-}" ] || first=$(jq -r .outputs <<<"$out")
	done
	local trials=$ROOT/var/lib/numaplace/trials newest
	newest=$(jq -r .outputs <<<"$out")
	expect_eq 3 "$(find "$trials" -mindepth 1 -maxdepth 1 -type d | wc -l)" "trials' directories"
	out=$(np history --prune --keep 1) || die "history --prune failed: exit $?"
	[[ $out == *"removed the outputs of trial ${first##*/}"* ]] || die "the removal is not said: $out"
	expect_eq "$newest" "$(find "$trials" -mindepth 1 -maxdepth 1 -type d)" "what --keep 1 leaves"
	# A trial under way keeps its outputs, even with --keep 0.
	BENCH_SLEEP=2 "$NUMAPLACE" --root "$ROOT" trial --runs 6 --seed 1 "$WORK/trial/p.json" -- "$WORK/trial/bench" \
		>"$WORK/trial/out" 2>&1 &
	local pid=$! running
	wait_until 15 '[ -s "$WORK/trial/pid" ]' || true
	running=$(sed -n 's/.*; outputs in //p' "$WORK/trial/out")
	[ -n "$running" ] || die "no outputs directory printed: $(cat "$WORK/trial/out")"
	out=$(np history --prune --keep 0 --json) || die "history --prune --json failed: exit $?"
	expect_eq "[\"${newest##*/}\"]" "$(jq -c .pruned_trials <<<"$out")" "trials pruned with one running"
	[ -d "$running" ] || die "the running trial's outputs were removed"
	kill -TERM "$pid"
	wait "$pid" || true
	same_tree
}

# CMD's output is written once the machine is back at its baseline: when it
# fills the state directory's filesystem, the restore has been made already,
# and the output that does not fit is said, not kept half.
test_a_full_filesystem_cannot_stop_the_restore() {
	command -v unshare >/dev/null || skip_test "no unshare(1) to mount a small filesystem in"
	trial_root
	make_loud
	mkdir -p "$WORK/trial/small"
	# In a mount namespace of its own: nothing to unmount, whatever happens.
	unshare -m --propagation private true 2>/dev/null || skip_test "cannot make a mount namespace here"
	local status=0
	LOUD_BYTES=1572864 unshare -m --propagation private sh -c '
		mount -t tmpfs -o size=1m tmpfs "$1" || exit 99
		"$NUMAPLACE" --root "$4" trial --json --metric "throughput: ([0-9.]+)" --runs 6 \
			--seed 1 --state-dir "$1/state" "$2" -- "$3"' sh "$WORK/trial/small" "$WORK/trial/p.json" \
		"$WORK/trial/loud" "$ROOT" >"$WORK/trial/out" 2>"$WORK/trial/err" || status=$?
	[ "$status" != 99 ] || skip_test "cannot mount a tmpfs here"
	expect_eq 0 "$status" "exit status of a trial whose outputs do not fit: $(tail -n 3 "$WORK/trial/err")"
	same_tree
	grep -q "the output of run 1 was not saved in .*/trials/.*/001-profile.out: No space left on device" \
		"$WORK/trial/err" || die "the lost output is not said: $(head -n 3 "$WORK/trial/err")"
	expect_eq null "$(jq '.runs[0].output' "$WORK/trial/out")" "the output of a run not saved"
	# CMD itself fills it, the profile applied: the restore cannot be
	# journaled, and the error says where room can be made.
	trial_root
	mkdir -p "$WORK/trial/small"
	status=0
	BENCH_FILL=fill unshare -m --propagation private sh -c '
		mount -t tmpfs -o size=1m tmpfs "$1" || exit 99
		cd "$1" && mkdir state
		"$NUMAPLACE" --root "$4" trial --runs 6 --seed 1 --state-dir "$1/state" "$2" -- "$3"
		s=$?
		rm -f fill
		"$NUMAPLACE" --root "$4" revert --state-dir "$1/state" >&2 || exit 98
		exit $s' sh "$WORK/trial/small" "$WORK/trial/p.json" "$WORK/trial/bench" "$ROOT" >"$WORK/trial/out" \
		2>"$WORK/trial/err" || status=$?
	expect_eq 1 "$status" "exit status when the restore cannot be journaled: $(cat "$WORK/trial/err")"
	grep -q "filesystem is full: make room (this trial's outputs are in .*/trials/[^,]*, older trials' beside it in trials/: 'numaplace history --prune' removes those) and undo it with 'numaplace revert " \
		"$WORK/trial/err" || die "the error does not say where to make room: $(cat "$WORK/trial/err")"
	same_tree
}

# --metric refuses back-references, and its matching has a time limit:
# an expression that backtracks on a long line neither hangs the trial nor
# outlives a SIGTERM with the profile applied.
test_metric_is_matched_in_bounded_time() {
	trial_root
	local status=0 err
	err=$(timeout 60 "$NUMAPLACE" --root "$ROOT" trial --runs 6 --metric '([0-9]*)(a*)*(a*)*(a*)*\4\3\2x' \
		"$WORK/trial/p.json" -- "$WORK/trial/bench" 2>&1) || status=$?
	expect_eq 2 "$status" "a --metric with back-references"
	[[ $err == *"refers back to group 4 (a back-reference)"* ]] || die "the refusal does not say why: $err"
	[ ! -e "$WORK/trial/count" ] || die "the benchmark ran"
	# [\1] is a bracket expression, not a back-reference.
	BENCH_EFFECT=0 timeout 60 "$NUMAPLACE" --root "$ROOT" trial --runs 6 --seed 1 --metric 'throughput:[\1]* ([0-9.]+)' \
		"$WORK/trial/p.json" -- "$WORK/trial/bench" >/dev/null 2>&1 || die "a bracket with \\1 refused: exit $?"
	# Quadratic in glibc: 200 KB of 'a' take it minutes.
	trial_root
	make_loud
	status=0
	err=$(LOUD_BYTES=200000 timeout 60 "$NUMAPLACE" --root "$ROOT" trial --runs 6 --seed 1 \
		--metric '([0-9]*)(a*)*(a*)*c' "$WORK/trial/p.json" -- "$WORK/trial/loud" 2>&1) || status=$?
	expect_eq 1 "$status" "exit status of a trial whose metric takes too long"
	[[ $err == *"--metric took more than 5 s to match"* ]] || die "the time limit is not said: $err"
	same_tree
	# SIGTERM while it matches, the profile applied (seed 1 starts with it).
	trial_root
	make_loud
	LOUD_BYTES=200000 env --default-signal "$NUMAPLACE" --root "$ROOT" trial --runs 6 --seed 1 \
		--metric '([0-9]*)(a*)*(a*)*c' "$WORK/trial/p.json" -- "$WORK/trial/loud" >/dev/null 2>"$WORK/trial/err" &
	local pid=$!
	wait_until 15 '[ -e "$WORK/trial/printed" ]' || die "the first run did not end"
	[ "$(cat "$WORK/trial/seen")" = 4 ] || die "the first run was not a profile run"
	# The match runs in a child of the trial's own (a fork: named as it is).
	wait_until 15 'pgrep -P "$pid" -x numaplace >/dev/null' ||
		die "the trial did not start matching the first run's output"
	kill -TERM "$pid"
	wait_until 5 '! kill -0 "$pid" 2>/dev/null' || { kill -9 "$pid"; die "the trial still ran 5 s after SIGTERM"; }
	status=0
	wait "$pid" || status=$?
	expect_eq 1 "$status" "exit status after SIGTERM while matching"
	grep -q Terminated "$WORK/trial/err" || die "$(cat "$WORK/trial/err")"
	same_tree
	no_applied
}

# On this machine's kernel: SIGHUP (an ssh session that drops) during a profile run puts the
# virtio-net input IRQ back where it was before numaplace exits.
test_live_trial_sighup_restores_this_machines_irq() {
	[ "$(id -u)" = 0 ] || skip_test "live tests need root"
	local irq dev queue before target
	read -r irq dev queue < <("$NUMAPLACE" irqs --json | jq -r '.irqs[] | select(.name | test("-input\\.0$"))
		| select(.managed != true and .device != null) | "\(.irq) \(.device) \(.queue)"' | head -n 1)
	[ -n "${irq:-}" ] || skip_test "no virtio-net input IRQ (*-input.0) here"
	[ "$(cat /sys/devices/system/cpu/online)" != 0 ] || skip_test "needs a second CPU"
	before=$(cat "/proc/irq/$irq/smp_affinity_list")
	target=$(awk -F'[-,]' '{ print $NF }' /sys/devices/system/cpu/online)
	[ "$before" != "$target" ] || target=0
	# Put back whatever happens (the trap runs after the locals are gone).
	trap "echo '$before' >/proc/irq/$irq/smp_affinity_list 2>/dev/null || true" EXIT
	local d=$WORK/trial-live
	rm -rf "$d" && mkdir -p "$d"
	printf '{"format": "numaplace-profile/1", "name": "trial-live", "settings": [{"kind": "irq_affinity", "device": "%s", "queue": %s, "cpus": "%s"}]}\n' \
		"$dev" "$queue" "$target" >"$d/p.json"
	cat >"$d/bench" <<-EOF2
	#!/bin/sh
	cat /proc/irq/$irq/smp_affinity_list >>"$d/seen"
	echo \$\$ >"$d/pid"
	sleep 0.3
	EOF2
	chmod +x "$d/bench"
	env --default-signal "$NUMAPLACE" trial --runs 10 --seed 6 --irqbalance=ignore --state-dir "$d/state" "$d/p.json" -- \
		"$d/bench" >"$d/out" 2>"$d/err" &
	local pid=$! status=0
	wait_until 15 '[ "$(tail -n 1 "$d/seen" 2>/dev/null)" = "$target" ]' ||
		{ kill -TERM "$pid"; wait "$pid"; die "no profile run started: $(cat "$d/err")"; }
	kill -HUP "$pid"
	wait "$pid" || status=$?
	expect_eq 1 "$status" "exit status after SIGHUP"
	grep -q Hangup "$d/err" || die "$(cat "$d/err")"
	expect_eq "$before" "$(cat "/proc/irq/$irq/smp_affinity_list")" "IRQ $irq's affinity after the trial"
	expect_eq 0 "$("$NUMAPLACE" history --state-dir "$d/state" --json |
		jq '[.transactions[] | select(.state == "applied" or .state == "pending")] | length')" "transactions left"
}
