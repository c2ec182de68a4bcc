#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Part of `make bench` (run by bench.sh; runs alone too): how long `numaplace
# hold` takes to re-apply one device after its event, for a NIC with 64
# queues (64 IRQs, 64 rps_cpus, 64 xps_cpus) on a 64-CPU, 2-node generated
# root. Every value of eth0 is put off the profile (network-local), an "add
# net eth0" event is injected through NUMAPLACE_HOLD_EVENTS, and the time hold
# logs for the pass (re-resolve the profile on the machine as it is, read,
# journal, write and read back) is taken, with hold's CPU time over the
# same pass; medians of BENCH_RUNS (default 5).
# Target: under 50 ms.
#
# The root is copied to a tmpfs (BENCH_HOLD_TMPFS, default /dev/shm): it
# stands in for sysfs and procfs, where a write is one write(2). On a disk,
# each of the 191 values would be written as a regular file is (a new file
# renamed over it, all of them synced at the end with one syncfs, which
# also waits for whatever else the filesystem has to write: a cost a real
# kernel never has). The state directory, whose journal syncs are real,
# stays on the disk under build/.
#
# HOLD_BASELINE=BINARY times another numaplace (an older build) the same way
# in the same run, after this one, for a before/after.
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
# At most 5: a sixth re-apply of eth0 within a minute would be a fight that
# hold gives up (and a run that never ends in a re-apply).
RUNS=${BENCH_RUNS:-5}
[ "$RUNS" -le 5 ] || RUNS=5
ROOT=$TOP/build/bench-hold-root
W=$(mktemp -d "$TOP/build/bench-hold.XXXXXX") || exit 1
TMPFS=${BENCH_HOLD_TMPFS:-/dev/shm}
if [ "$(stat -f -c %T "$TMPFS" 2>/dev/null)" = tmpfs ] && R=$(mktemp -d "$TMPFS/numaplace-bench-hold.XXXXXX"); then
	where="root on tmpfs"
else
	R=$W where="root on disk (no tmpfs at $TMPFS)"
fi
PID=
trap '[ -z "$PID" ] || kill $PID 2>/dev/null; rm -rf "$W" "$R"' EXIT
die() { echo "bench hold: $*" >&2; exit 1; }

if [ -z "${MAKELEVEL:-}" ]; then
	make --no-print-directory numaplace build/gen-root >/dev/null || die "build failed"
fi
ARGS="--cpus 64 --nodes 2 --devices 4 --irqs 400 --seed 1"
if [ "$(cat "$ROOT/.gen-root" 2>/dev/null)" != "gen-root $ARGS" ]; then
	rm -rf "$ROOT"
	# shellcheck disable=SC2086
	build/gen-root "$ROOT.tmp" $ARGS >/dev/null || die "gen-root failed"
	echo "gen-root $ARGS" >"$ROOT.tmp/.gen-root"
	mv "$ROOT.tmp" "$ROOT"
fi
irqs=$(./numaplace --root "$ROOT" devices --json eth0 | jq -r '.devices[0].irqs[]')
hz=$(getconf CLK_TCK)
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# measure BINARY LABEL: hold with BINARY on a fresh copy of the root.
measure() {
	local bin=$1 label=$2 r i line n times=() cpus=() t0 med
	rm -rf "$R/root" "$W/state" "$W/log" "$W/ev"
	cp -a "$ROOT" "$R/root"
	local Q=$R/root/sys/class/net/eth0/queues
	local nq
	nq=$(ls -d "$Q"/rx-* | wc -l)
	mkfifo "$W/ev"
	NUMAPLACE_HOLD_EVENTS=$W/ev "$bin" --root "$R/root" hold --interval 3600 --irqbalance ignore \
		--state-dir "$W/state" profiles/network-local.json 2>"$W/log" &
	PID=$!
	for ((i = 0; i < 100; i++)); do grep -q holding "$W/log" && break; sleep 0.1; done
	grep -q holding "$W/log" || die "hold did not start: $(cat "$W/log")"
	# CPU time of hold in µs: /proc/PID/schedstat's time on a CPU (ns), else
	# user + system from /proc/PID/stat (clock ticks, 10 ms at 100 Hz).
	cpu_us() {
		if [ -r "/proc/$PID/schedstat" ]; then
			awk '{ printf "%d\n", $1 / 1000 }' "/proc/$PID/schedstat"
		else
			awk -v hz="$hz" '{ printf "%d\n", ($14 + $15) * 1000000 / hz }' "/proc/$PID/stat"
		fi
	}
	for ((r = 1; r <= RUNS; r++)); do
		sleep 1.1 # past the once-a-second limit of each device
		for f in "$Q"/rx-*/rps_cpus "$Q"/tx-*/xps_cpus; do echo 1 >"$f"; done
		for irq in $irqs; do echo 63 >"$R/root/proc/irq/$irq/smp_affinity_list"; done
		t0=$(cpu_us)
		echo "add net eth0" >"$W/ev"
		for ((i = 0; i < 100; i++)); do [ "$(grep -c "re-applied" "$W/log")" -ge "$r" ] && break; sleep 0.05; done
		line=$(grep "re-applied" "$W/log" | sed -n "${r}p")
		[ -n "$line" ] || die "no re-apply after event $r: $(tail -5 "$W/log")"
		times+=("$(sed -n 's/.* in \([0-9]*\) ms$/\1/p' <<<"$line")")
		cpus+=($((($(cpu_us) - t0) / 1000)))
		n=$(sed -n 's/.*re-applied \([0-9]*\) values.*/\1/p' <<<"$line")
	done
	kill "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	PID=
	med=$(median "${times[@]}")
	echo
	echo "hold$label: re-apply of eth0 ($nq queues, $n values, $(wc -w <<<"$irqs") IRQs, $where) after its event:" \
		"median $med ms (runs: ${times[*]}); target < 50 ms: $([ "$med" -lt 50 ] && echo PASS || echo MISS)"
	# On a shared, loaded machine the wall time is mostly waiting for a CPU and
	# for the journal's syncs: the CPU time says what the pass itself costs.
	echo "hold$label: CPU time of those passes: median $(median "${cpus[@]}") ms (runs: ${cpus[*]})"
}

measure ./numaplace ""
if [ -n "${HOLD_BASELINE:-}" ]; then
	measure "$HOLD_BASELINE" " (baseline $HOLD_BASELINE)"
fi
