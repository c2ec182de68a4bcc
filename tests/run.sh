#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the tests: cmocka unit tests, command tests (the sanitizer build of the
# binary against fixture roots, compared with expected output), and scripted
# tests (snapshots, hwloc agreement). Ends with "N passed, N failed, N skipped"
# and exits non-zero on any failure.
#
#   tests/run.sh [--regen] [--live | --package] [PATTERN]
# --regen rewrites the expected output of the command tests from what the
# binary prints now (review the diff before committing it).
# --live runs only the live tests instead: those named *live* (unit binaries
# test_live_*, script functions test_*live*), which read and write this
# machine's kernel (IRQ affinities, rq_affinity, RPS, /etc/default/irqbalance)
# and restore it. Without --live they never run, so `make check` leaves the
# machine alone. --package runs only the tests named *package* (make
# check-package: the Debian package is built and inspected).
set -u
cd "$(dirname "$0")/.."
TOP=$PWD
REGEN=${REGEN:-0}
MODE=check
PATTERN=
for a in "$@"; do
	case $a in
	--regen) REGEN=1 ;;
	--live) MODE=live ;;
	--package) MODE=package ;;
	*) PATTERN=$a ;;
	esac
done

export NUMAPLACE=${NUMAPLACE:-$TOP/build/san/numaplace}
export FIXTURES=$TOP/tests/fixtures
export WORK=$TOP/build/test-work
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LC_ALL=C
unset NUMAPLACE_ROOT
mkdir -p "$WORK"
# The package is built once per run (package.sh): never one a past run left.
[ "$MODE" != package ] || rm -rf "$WORK/package"

passed=0 failed=0 skipped=0
failures=()
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); failures+=("$1"); echo "FAIL: $1"; }
skip() { skipped=$((skipped + 1)); echo "SKIP: $1${2:+ ($2)}"; }
wanted() { [ -z "$PATTERN" ] || [[ $1 == *$PATTERN* ]]; }
# A test is live when its name says so; each mode runs only its own kind.
mode_of() { case $1 in *live*) echo live ;; *package*) echo package ;; *) echo check ;; esac; }
in_mode() { [ "$(mode_of "$1")" = "$MODE" ]; }

# What the tests must leave alone on this machine: every IRQ's affinity, the
# block queues' rq_affinity, the network queues' RPS/XPS masks, and
# irqbalance's configuration (content and mtime). Taken before and after the
# non-live tests; a difference fails the suite.
host_state() {
	local f
	for f in /proc/irq/*/smp_affinity_list /sys/block/*/queue/rq_affinity \
		/sys/class/net/*/queues/[rt]x-*/[rx]ps_cpus; do
		[ -r "$f" ] && printf '%s %s\n' "$f" "$(cat "$f" 2>/dev/null)"
	done
	if [ -e /etc/default/irqbalance ]; then
		stat -c '%n %Y %s' /etc/default/irqbalance && sha256sum /etc/default/irqbalance
	else
		echo "/etc/default/irqbalance absent"
	fi
}
[ "$MODE" = live ] || host_state >"$WORK/host-before"

# --- unit tests (cmocka, TAP output)
for bin in build/san/tests/unit/test_*; do
	[ -x "$bin" ] || continue
	name=${bin##*/}
	wanted "$name" && in_mode "$name" || continue
	out=$(CMOCKA_MESSAGE_OUTPUT=TAP "$bin" 2>&1)
	status=$?
	ok=$(grep -c '^ok ' <<<"$out")
	notok=$(grep '^not ok ' <<<"$out" | grep -vc '# SKIP')
	passed=$((passed + ok))
	# cmocka prints "not ok N # SKIP TEST" after what the test printed: the
	# reason, which a skip must give.
	while IFS=$'\t' read -r t why; do
		if [ -n "$why" ]; then
			skip "$name:$t" "$why"
		else
			echo "$name:$t skipped without printing why"
			notok=$((notok + 1))
		fi
	done < <(awk '/^not ok .*# SKIP/ { print $NF "\t" (prev ~ /^(ok|not ok|1\.\.)/ ? "" : prev) } { prev = $0 }' <<<"$out")
	if [ "$notok" -gt 0 ] || [ "$status" -ne 0 ] || [ "$ok" -eq 0 ]; then
		echo "$out" | grep -v '^ok '
		[ "$notok" -gt 0 ] && failed=$((failed + notok)) && failures+=("$name")
		[ "$notok" -eq 0 ] && fail "$name (exit $status)"
	fi
done

# --- command tests: tests/cases/NAME.cmd holds the arguments (shell words,
# $FIXTURES available); NAME.out the expected stdout, stderr and exit status.
run_case() {
	local args
	args=$(<"$1")
	(cd "$WORK" && eval "\"\$NUMAPLACE\" $args" 2>&1; echo "[exit $?]")
}
for cmdfile in tests/cases/*.cmd; do
	[ -f "$cmdfile" ] && [ "$MODE" = check ] || continue
	name=${cmdfile##*/}
	name=${name%.cmd}
	wanted "$name" || continue
	expected=${cmdfile%.cmd}.out
	# Paths under the checkout vary between machines: compare them as @TOP@.
	actual=$(run_case "$cmdfile" | sed "s|$TOP|@TOP@|g")
	if [ "$REGEN" = 1 ]; then
		printf '%s\n' "$actual" >"$expected"
	fi
	if [ -f "$expected" ] && diff -u "$expected" <(printf '%s\n' "$actual") >"$WORK/$name.diff"; then
		pass
	else
		[ -f "$expected" ] || echo "no expected output $expected (run tests/run.sh --regen)" >"$WORK/$name.diff"
		head -40 "$WORK/$name.diff"
		fail "case $name"
	fi
done

# --- scripted tests: each tests/scripts/*.sh defines test_* functions; a
# function passes on exit 0 and is skipped on exit 77. Each runs in its own
# subshell so a failing one cannot leave state for the next (live tests
# restore what they change with traps inside their subshell).
for script in tests/scripts/*.sh; do
	[ -f "$script" ] || continue
	for fn in $(bash -c "source '$script'; declare -F" | awk '$3 ~ /^test_/ {print $3}'); do
		name="${script##*/}:$fn"
		wanted "$name" && in_mode "$fn" || continue
		log="$WORK/${script##*/}.$fn.log"
		(set -eu; source tests/scripts/lib.sh; source "$script"; "$fn") >"$log" 2>&1
		status=$?
		if [ $status -eq 0 ]; then
			pass
		elif [ $status -eq 77 ] && [ -n "$(tail -n 1 "$log")" ]; then
			skip "$name" "$(tail -n 1 "$log")"
		else
			tail -n 30 "$log"
			[ $status -ne 77 ] || echo "(it skipped without printing why)"
			fail "$name"
		fi
	done
done

if [ "$MODE" != live ]; then
	if diff -u "$WORK/host-before" <(host_state) >"$WORK/host.diff"; then
		pass
	else
		head -40 "$WORK/host.diff"
		fail "suite: the tests changed this machine's IRQ, queue or irqbalance settings"
	fi
fi

echo
[ ${#failures[@]} -gt 0 ] && printf 'failed: %s\n' "${failures[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
