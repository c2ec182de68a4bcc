#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Part of `make bench` (run by bench.sh after it made build/bench-root; runs
# alone too): apply and revert of thousands of values on the 1024-CPU bench
# root. The profile puts the IRQs, RPS and XPS of 22 of its 32 NICs on node
# 3: 4,096 values, 4,032 of them to write, each written and read back. The
# tree is a hard-linked copy of the bench root on the disk (a write replaces
# its file by a rename, so the bench root's own files never change), the
# state directory beside it: both under build/. Target (issue 35): 4,096
# values in under 2 s wall. Also the syncs a run makes (strace, when
# installed): a constant, where there were two a value.
#
# Medians of BENCH_RUNS (default 5); APPLY_BASELINE=BINARY times another
# numaplace (an older build) the same way, interleaved, for a before/after.
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
RUNS=${BENCH_RUNS:-5}
ROOT=$TOP/build/bench-root
die() { echo "bench apply: $*" >&2; exit 1; }
[ -f "$ROOT/.gen-root" ] || die "no $ROOT: run 'make bench'"
W=$(mktemp -d "$TOP/build/bench-apply.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
cp -al "$ROOT" "$W/root" || die "cannot copy $ROOT"
rule() { echo '{"match": {"class": "network", "net": "'"$1"'"}, "irqs": "app", "rps": "app", "xps": "follow-irq"}'; }
echo '{"format": "numaplace-profile/1", "name": "bench-apply", "app": {"node": 3}, "rules": [' \
	"$(rule 'eth[0-9]'), $(rule 'eth1[0-9]'), $(rule 'eth2[01]')]}" >"$W/p.json"
total=$(./numaplace --root "$W/root" apply --dry-run --json --irqbalance ignore "$W/p.json" 2>/dev/null |
	jq '.changes | length') || die "dry run failed"

BINS=(./numaplace)
[ -z "${APPLY_BASELINE:-}" ] || BINS+=("$APPLY_BASELINE")
declare -A APPLY REVERT
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
n=
for ((r = 0; r < RUNS; r++)); do
	for bin in "${BINS[@]}"; do
		rm -rf "$W/state"
		t0=$EPOCHREALTIME
		out=$("$bin" --root "$W/root" apply --irqbalance ignore --state-dir "$W/state" "$W/p.json" 2>/dev/null) ||
			die "$bin apply failed"
		t1=$EPOCHREALTIME
		"$bin" --root "$W/root" revert --state-dir "$W/state" >/dev/null 2>&1 || die "$bin revert failed"
		t2=$EPOCHREALTIME
		APPLY[$bin]+="$(ms "$t0" "$t1") " REVERT[$bin]+="$(ms "$t1" "$t2") "
		n=$(sed -n 's/^applied \([0-9]*\) changes.*/\1/p' <<<"$out")
	done
done
# syncs BINARY: fsync, fdatasync and syncfs calls of one apply and its revert.
syncs() {
	command -v strace >/dev/null || { echo "n/a (no strace)"; return; }
	rm -rf "$W/state"
	local a b
	a=$(strace -f -c -e trace=fsync,fdatasync,syncfs -o "$W/strace" "$1" --root "$W/root" apply --irqbalance ignore \
		--state-dir "$W/state" "$W/p.json" >/dev/null 2>&1 && awk '$NF == "total" { print $4 }' "$W/strace")
	b=$(strace -f -c -e trace=fsync,fdatasync,syncfs -o "$W/strace" "$1" --root "$W/root" revert \
		--state-dir "$W/state" >/dev/null 2>&1 && awk '$NF == "total" { print $4 }' "$W/strace")
	echo "${a:-?} for the apply, ${b:-?} for the revert"
}
echo
for bin in "${BINS[@]}"; do
	label=$([ "$bin" = ./numaplace ] && echo "" || echo " (baseline $bin)")
	a=$(median ${APPLY[$bin]}) v=$(median ${REVERT[$bin]})
	# shellcheck disable=SC2086
	echo "apply$label: $total values ($n written) on the 1024-CPU root: median $a ms (runs: ${APPLY[$bin]% });" \
		"target < 2000 ms: $([ "$a" -lt 2000 ] && echo PASS || echo MISS)"
	echo "revert$label: median $v ms (runs: ${REVERT[$bin]% }); syncs: $(syncs "$bin")"
done
