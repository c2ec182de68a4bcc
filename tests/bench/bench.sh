#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`: how fast `numaplace report` reads a large machine, next to the
# floor (the least I/O the report can do) and to the usual tools.
#
# Generates (once; reused while its parameters and build/gen-root are
# unchanged) a 1024-CPU, 16-node root with 64 PCI functions and about 4000
# IRQs in build/bench-root, then times, interleaved, over BENCH_RUNS runs
# (default 5) after one warm-up run each:
#   (a) numaplace --root ROOT report
#   (b) the floor, build/bench-floor ROOT PCI_IDS (the files report --json reads)
#   (c) HWLOC_FSROOT=ROOT lstopo-no-graphics (console output)
#   (d) lsirq on ROOT/proc/interrupts (bind-mounted over /proc/interrupts in a
#       private mount namespace: needs root)
#   (e) (c) then (d)
# and `report --json` and one `top` refresh, and prints the medians of the
# wall time and of the CPU time (user + system), the peak RSS (largest over
# the runs), the ratios and the targets: report within 3x of the floor,
# faster than lstopo + lsirq, peak memory under 64 MB; report --json under
# 32 MB; a top refresh under 250 ms. Then `report --json` and the floor in
# BENCH_PAIRS (default 11) pairs, A B A B ...: the median of the pairs' CPU
# time ratios, target 1.25x (a pair shares the machine's state of the moment:
# other users' load moves both).
# A second root with half the CPUs (512, 8 nodes, same devices and IRQs)
# shows how report time grows. Three more roots of 1024 CPUs with 16, 64 and
# 256 queues per NIC (gen-root --nic-queues; the 32 NVMe controllers keep 64)
# show how advise grows with the IRQs it plans: its user time (the mean of
# BENCH_GROW_RUNS, default 60, of the 256-queue root, and BENCH_GROW_SMALL,
# default 4, times as many of the other two, all in turn: the kernel splits
# a process's exact CPU time into user and system by the ticks that caught
# it in each, 4 ms apart at HZ=250, so one run's user time is right on
# average but off by a tick or two, more than the differences taken here; a
# median of 5 put the ratio anywhere from 1.0x to 2.4x, a mean of 60 each
# from 1.05x to 1.32x), the cost of one more IRQ from 16 to 64 and from 64
# to 256 queues (start-up work cancels out), whose ratio should be within
# 1.3x (linear), with its standard error, and the same from the exact CPU
# time (medians); and the peak memory of irqs --json and advise --json at 16
# and 256 queues, next to the size of what they print: written as they are
# made, the output is never held. Then hold's re-apply of a 64-queue NIC
# (tests/bench/hold.sh) and an apply of 4,096 values (tests/bench/apply.sh).
#
# Wall time comes from bash's EPOCHREALTIME around /usr/bin/time (whose own
# %e has only 10 ms resolution); peak RSS from /usr/bin/time -f %M; CPU time
# from bash's `times` in the subshell that runs it (its children: the
# command, and /usr/bin/time's own fraction of a millisecond), to the
# millisecond. On a shared machine the wall time swings with the other jobs;
# CPU time much less, so the targets on the floor are judged by it.
# Exits 0 unless something failed to run; a MISS is a result, not a failure.
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
export LC_ALL=C
RUNS=${BENCH_RUNS:-5}
GROW_RUNS=${BENCH_GROW_RUNS:-60}
GROW_SMALL=${BENCH_GROW_SMALL:-4}
ROOT=$TOP/build/bench-root
HALF=$TOP/build/bench-root-512
# --hardlink: these trees are only read, never edited
BIG_ARGS=(--cpus 1024 --nodes 16 --devices 64 --irqs 4000 --smt --seed 1 --hardlink)
HALF_ARGS=(--cpus 512 --nodes 8 --devices 64 --irqs 4000 --smt --seed 1 --hardlink)
# the PCI ID database the report names the devices from: the floor reads it too
IDS=$(pkg-config --variable=idsdir libpci 2>/dev/null)/pci.ids

die() {
	echo "bench: $*" >&2
	exit 1
}

# --- set-up: the tools compared against, and the binaries (make bench has
# built them already; when run directly, build them here)
sh tests/install-deps.sh time hwloc-nox util-linux || die "cannot install time, hwloc-nox, util-linux"
if [ -z "${MAKELEVEL:-}" ]; then
	make --no-print-directory numaplace build/gen-root build/bench-floor >/dev/null || die "build failed"
fi
for tool in ./numaplace build/gen-root build/bench-floor /usr/bin/time lstopo-no-graphics lsirq unshare; do
	command -v "$tool" >/dev/null 2>&1 || die "missing $tool"
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive number"
[[ $GROW_RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_GROW_RUNS must be a positive number"
[[ $GROW_SMALL =~ ^[1-9][0-9]*$ ]] || die "BENCH_GROW_SMALL must be a positive number"

TMP=$(mktemp -d "$TOP/build/bench-tmp.XXXXXX") || die "cannot create a temporary directory"
OLD=() # outdated trees, deleted on exit: ext4 allocates inodes slowly for a
       # while after a mass deletion, so never delete right before generating
trap 'rm -rf "$TMP" "${OLD[@]}"' EXIT

# gen_root DIR ARGS...: (re)generates DIR unless it holds a complete tree made
# with the same arguments by the current generator.
gen_root() {
	local dir=$1
	shift
	local want="gen-root $*"
	if [ -f "$dir/.gen-root" ] && [ "$(cat "$dir/.gen-root")" = "$want" ] && [ "$dir/.gen-root" -nt build/gen-root ]; then
		echo "reusing $dir ($want)"
		return 0
	fi
	local n
	for n in "$dir" "$dir.tmp"; do
		if [ -e "$n" ]; then
			mv "$n" "$n.old.$$" || die "cannot move the old $n aside"
			OLD+=("$n.old.$$")
		fi
	done
	build/gen-root "$dir.tmp" "$@" || die "gen-root failed for $dir"
	mv "$dir.tmp" "$dir" || die "cannot rename $dir.tmp"
}

gen_root "$ROOT" "${BIG_ARGS[@]}"
gen_root "$HALF" "${HALF_ARGS[@]}"
QUEUES=(16 64 256)
for q in "${QUEUES[@]}"; do
	gen_root "$TOP/build/bench-q$q" --cpus 1024 --nodes 16 --devices 64 --irqs 4160 --smt --seed 1 --hardlink --nic-queues "$q"
done

isize=$(stat -c %s "$ROOT/proc/interrupts") || die "no $ROOT/proc/interrupts"
nirq=$(grep -c '^ *[0-9][0-9]*:' "$ROOT/proc/interrupts")
awk -v s="$isize" -v n="$nirq" 'BEGIN { printf "/proc/interrupts: %.1f MB (%d bytes), %d IRQ rows, 1024 CPU columns\n", s / 1e6, s, n }'

failed=0
declare -A WALL CPU USR MEM # "case" -> space-separated microseconds / microseconds / user microseconds / KB of each run

# run CASE CMD...: one timed run, appended to WALL[CASE], CPU[CASE] and MEM[CASE]
run() {
	local name=$1
	shift
	local t0=$EPOCHREALTIME
	# `times` prints the subshell's own times, then its children's: "0m0.123s 0m0.045s"
	if ! (/usr/bin/time -f '%e %M' -o "$TMP/time" "$@" >/dev/null 2>"$TMP/err" && times >"$TMP/times"); then
		echo "bench: $name failed: $*" >&2
		sed 's/^/  /' "$TMP/err" "$TMP/time" >&2
		failed=1
		return 1
	fi
	local t1=$EPOCHREALTIME
	local kb cpu usr
	kb=$(tail -n 1 "$TMP/time" | awk '{ print $2 }')
	cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%.0f", t * 1e6 }' "$TMP/times")
	usr=$(awk 'NR == 2 { split($1, a, /[ms]/); printf "%.0f", (a[1] * 60 + a[2]) * 1e6 }' "$TMP/times")
	WALL[$name]+="$((${t1/./} - ${t0/./})) "
	CPU[$name]+="$cpu "
	USR[$name]+="$usr "
	MEM[$name]+="$kb "
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "" }'; }
mean() { tr ' ' '\n' | grep . | awk '{ s += $1 } END { if (NR) printf "%.0f\n", s / NR; else print "" }'; }
largest() { tr ' ' '\n' | grep . | sort -n | tail -n 1; }

CASES=(report json top1 top6 floor lstopo lsirq both)
declare -A LABEL=(
	[report]="(a) numaplace report"
	[json]="(a') numaplace report --json"
	[top1]="top --batch -n 1 -d 0.01"
	[top6]="top --batch -n 6 -d 0.01"
	[floor]="(b) floor"
	[lstopo]="(c) lstopo-no-graphics"
	[lsirq]="(d) lsirq"
	[both]="(e) lstopo + lsirq"
)

run_case() { # CASE ROOT
	local r=$2
	case $1 in
	report) run "$1${3:-}" ./numaplace --root "$r" report ;;
	json) run "$1" ./numaplace --root "$r" report --json ;;
	# one top refresh costs (top6 - top1) / 5: it reads only /proc/interrupts
	top1) run "$1" ./numaplace --root "$r" top --batch -n 1 -d 0.01 ;;
	top6) run "$1" ./numaplace --root "$r" top --batch -n 6 -d 0.01 ;;
	floor) run "$1${3:-}" build/bench-floor "$r" "$IDS" ;;
	lstopo) run "$1" env HWLOC_FSROOT="$r" lstopo-no-graphics --of console ;;
	lsirq) run "$1" unshare -m sh -c 'mount --bind "$1" /proc/interrupts && exec lsirq' sh "$r/proc/interrupts" ;;
	both) run "$1" sh -c 'HWLOC_FSROOT="$1" lstopo-no-graphics --of console >/dev/null &&
		unshare -m sh -c "mount --bind \"\$1\" /proc/interrupts && exec lsirq" sh "$1/proc/interrupts"' sh "$r" ;;
	esac
}

if [ "$(id -u)" != 0 ]; then
	echo "bench: not root: lsirq cannot be pointed at the root's /proc/interrupts (unshare -m)" >&2
fi

echo "timing $RUNS runs of each (after one warm-up run)..."
for c in "${CASES[@]}"; do
	run_case "$c" "$ROOT" || true
done
WALL=() CPU=() MEM=()
for ((i = 0; i < RUNS; i++)); do
	for c in "${CASES[@]}"; do
		run_case "$c" "$ROOT" || true
	done
done
# linearity: the report (and the floor) on the half-size root
run_case report "$HALF" -512 || true
run_case floor "$HALF" -512 || true
WALL[report-512]="" CPU[report-512]="" MEM[report-512]="" WALL[floor-512]="" CPU[floor-512]="" MEM[floor-512]=""
for ((i = 0; i < RUNS; i++)); do
	run_case report "$HALF" -512 || true
	run_case floor "$HALF" -512 || true
done

ms() { [ -n "$1" ] && awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }' || printf 'n/a'; }
mb() { [ -n "$1" ] && awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }' || printf 'n/a'; }
declare -A MED MEDCPU PEAK
for c in "${CASES[@]}" report-512 floor-512; do
	MED[$c]=$(median <<<"${WALL[$c]:-}")
	MEDCPU[$c]=$(median <<<"${CPU[$c]:-}")
	PEAK[$c]=$(largest <<<"${MEM[$c]:-}")
done

echo
printf '%-30s %12s %12s %10s\n' "1024 CPUs, 16 nodes" "median wall" "median CPU" "peak MB"
for c in "${CASES[@]}"; do
	printf '%-30s %9s ms %9s ms %10s\n' "${LABEL[$c]}" "$(ms "${MED[$c]}")" "$(ms "${MEDCPU[$c]}")" "$(mb "${PEAK[$c]}")"
done

# ratio A B: A/B with two decimals, or n/a
ratio() { [ -n "$1" ] && [ -n "$2" ] && [ "$2" -gt 0 ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }' || printf 'n/a'; }
verdict() { [ "$1" = n/a ] && printf 'n/a' || awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN { ok = op == "<=" ? v <= t : v < t; printf ok ? "PASS" : "MISS" }'; }

r_floor=$(ratio "${MED[report]}" "${MED[floor]}")
r_floor_cpu=$(ratio "${MEDCPU[report]}" "${MEDCPU[floor]}")
r_json=$(ratio "${MED[json]}" "${MED[floor]}")
# report --json and the floor in pairs, one right after the other: the
# median of the pairs' ratios
PAIRS=${BENCH_PAIRS:-11}
[[ $PAIRS =~ ^[1-9][0-9]*$ ]] || die "BENCH_PAIRS must be a positive number"
pair_ratios=""
for ((i = 0; i < PAIRS; i++)); do
	CPU[pair-json]="" CPU[pair-floor]=""
	run pair-json ./numaplace --root "$ROOT" report --json || continue
	run pair-floor build/bench-floor "$ROOT" "$IDS" || continue
	pair_ratios+="$(ratio "${CPU[pair-json]% }" "${CPU[pair-floor]% }") "
done
r_json_cpu=$(median <<<"$pair_ratios")
[ -n "$r_json_cpu" ] || r_json_cpu=n/a
json_mb=$(mb "${PEAK[json]}")
# one refresh: (6 refreshes - 1) / 5
refresh() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (a - b) / 5000 }' || printf 'n/a'; }
top_ms=$(refresh "${MED[top6]:-}" "${MED[top1]:-}")
top_cpu_ms=$(refresh "${MEDCPU[top6]:-}" "${MEDCPU[top1]:-}")
r_tools=$(ratio "${MED[report]}" "${MED[both]}")
peak_mb=$(mb "${PEAK[report]}")
echo
printf '%-34s %10s   %-16s %s\n' "report / floor, CPU time" "${r_floor_cpu}x" "target <= 3x" "$(verdict "$r_floor_cpu" 3 '<=')"
printf '%-34s %10s\n' "report / floor, wall time" "${r_floor}x"
printf '%-34s %10s   %-16s %s\n' "report / (lstopo + lsirq), wall" "${r_tools}x" "target < 1x" "$(verdict "$r_tools" 1 '<')"
printf '%-34s %10s   %-16s %s\n' "report peak memory" "$peak_mb MB" "target < 64 MB" "$(verdict "$peak_mb" 64 '<')"
printf '%-34s %10s   %-16s %s\n' "report --json / floor, CPU time" "${r_json_cpu}x" "target <= 1.25x" "$(verdict "$r_json_cpu" 1.25 '<=')"
printf '%-34s %s\n' "  ($PAIRS pairs in turn, each's ratio)" "$(tr ' ' '\n' <<<"$pair_ratios" | grep . | sort -n | tr '\n' ' ')"
printf '%-34s %10s\n' "report --json / floor, wall time" "${r_json}x"
printf '%-34s %10s   %-16s %s\n' "report --json peak memory" "$json_mb MB" "target < 32 MB" "$(verdict "$json_mb" 32 '<')"
printf '%-34s %10s   %-16s %s\n' "one top refresh, CPU time" "$top_cpu_ms ms" "target < 250 ms" "$(verdict "$top_cpu_ms" 250 '<')"
printf '%-34s %10s\n' "one top refresh, wall time" "$top_ms ms"

echo
echo "growth (same 64 devices and ~4000 IRQs):"
printf '%-26s %12s %12s %10s\n' "" "512 CPUs" "1024 CPUs" "ratio"
printf '%-26s %12s %12s %10s\n' "numaplace report, CPU ms" "$(ms "${MEDCPU[report-512]}")" "$(ms "${MEDCPU[report]}")" \
	"$(ratio "${MEDCPU[report]}" "${MEDCPU[report-512]}")x"
printf '%-26s %12s %12s %10s\n' "floor, CPU ms" "$(ms "${MEDCPU[floor-512]}")" "$(ms "${MEDCPU[floor]}")" \
	"$(ratio "${MEDCPU[floor]}" "${MEDCPU[floor-512]}")x"

# advise as the queues per NIC grow: the three roots in turn, GROW_RUNS times
echo
echo "advise --json as the IRQs grow (1024 CPUs, 32 NICs of 16 / 64 / 256 queues, 32 NVMe of 64; $((GROW_RUNS * GROW_SMALL)) / $((GROW_RUNS * GROW_SMALL)) / $GROW_RUNS runs):"
declare -A NIRQ
for q in "${QUEUES[@]}"; do
	NIRQ[$q]=$(grep -c '^ *[0-9][0-9]*:' "$TOP/build/bench-q$q/proc/interrupts")
	run adv$q ./numaplace --root "$TOP/build/bench-q$q" advise --json || true # warm-up
	USR[adv$q]="" CPU[adv$q]=""
done
# The smaller roots run GROW_SMALL times as often: their difference is the
# small one, so the ticks' error weighs most on it.
for ((i = 0; i < GROW_RUNS; i++)); do
	for ((k = 0; k < GROW_SMALL; k++)); do
		for q in 16 64; do
			run adv$q ./numaplace --root "$TOP/build/bench-q$q" advise --json || true
		done
	done
	run adv256 ./numaplace --root "$TOP/build/bench-q256" advise --json || true
done
printf '%-34s %10s %10s %10s\n' "queues per NIC" "${QUEUES[@]}"
printf '%-34s %10s %10s %10s\n' "IRQs" "${NIRQ[16]}" "${NIRQ[64]}" "${NIRQ[256]}"
declare -A ADVU ADVC
for q in "${QUEUES[@]}"; do
	ADVU[$q]=$(mean <<<"${USR[adv$q]:-}")
	ADVC[$q]=$(median <<<"${CPU[adv$q]:-}")
done
printf '%-34s %10s %10s %10s\n' "advise --json, user time, ms" "$(ms "${ADVU[16]}")" "$(ms "${ADVU[64]}")" "$(ms "${ADVU[256]}")"
printf '%-34s %10s %10s %10s\n' "advise --json, CPU time, ms" "$(ms "${ADVC[16]}")" "$(ms "${ADVC[64]}")" "$(ms "${ADVC[256]}")"
# per_irq TIMES A B: the microseconds (of ADVU or ADVC) one more IRQ cost from root A to root B
per_irq() {
	local -n t=$1
	[ -n "${t[$2]}" ] && [ -n "${t[$3]}" ] &&
		awk -v a="${t[$2]}" -v b="${t[$3]}" -v na="${NIRQ[$2]}" -v nb="${NIRQ[$3]}" 'BEGIN { printf "%.2f", (b - a) / (nb - na) }' ||
		printf 'n/a'
}
growth() { [ "$1" != n/a ] && [ "$2" != n/a ] && awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "n/a" }' || printf 'n/a'; }
m1=$(per_irq ADVU 16 64) m2=$(per_irq ADVU 64 256)
c1=$(per_irq ADVC 16 64) c2=$(per_irq ADVC 64 256)
r_marg=$(growth "$m1" "$m2")
printf '%-34s %10s\n' "user us per IRQ, 16 -> 64 queues" "$m1"
printf '%-34s %10s\n' "user us per IRQ, 64 -> 256 queues" "$m2"
# The ratio's standard error, from each root's spread of user times (the
# 64-queue mean is in both differences: the derivative carries its sign).
r_se=$(awk -v a="${USR[adv16]:-}" -v b="${USR[adv64]:-}" -v c="${USR[adv256]:-}" \
	-v n16="${NIRQ[16]}" -v n64="${NIRQ[64]}" -v n256="${NIRQ[256]}" '
	function stats(list, out,   v, n, i, s, ss) {
		n = split(list, v, " "); s = 0; ss = 0
		for (i = 1; i <= n; i++) s += v[i]
		out["mean"] = n ? s / n : 0
		for (i = 1; i <= n; i++) ss += (v[i] - out["mean"]) ^ 2
		out["se2"] = n > 1 ? ss / (n - 1) / n : 0
	}
	BEGIN {
		stats(a, A); stats(b, B); stats(c, C)
		d1 = n64 - n16; d2 = n256 - n64
		m1 = (B["mean"] - A["mean"]) / d1; m2 = (C["mean"] - B["mean"]) / d2
		if (m1 <= 0) { print "n/a"; exit }
		g16 = m2 / (m1 * m1 * d1); g256 = 1 / (d2 * m1); g64 = -g256 - g16
		printf "%.2f", sqrt(g16 ^ 2 * A["se2"] + g64 ^ 2 * B["se2"] + g256 ^ 2 * C["se2"])
	}')
printf '%-34s %10s   %-16s %s   (standard error %s)\n' "advise, per IRQ, 64-256 / 16-64" "${r_marg}x" "target <= 1.3x" \
	"$(verdict "$r_marg" 1.3 '<=')" "$r_se"
printf '%-34s %10s   (CPU us per IRQ %s, then %s)\n' "the same in CPU time" "$(growth "$c1" "$c2")x" "$c1" "$c2"
run advise-big ./numaplace --root "$ROOT" advise --json || true
CPU[advise-big]="" MEM[advise-big]=""
for ((i = 0; i < RUNS; i++)); do
	run advise-big ./numaplace --root "$ROOT" advise --json || true
done
adv_ms=$(ms "$(median <<<"${CPU[advise-big]:-}")")
printf '%-34s %10s   %-16s %s\n' "advise --json (4013 IRQs), CPU time" "$adv_ms ms" "target < 300 ms" "$(verdict "$adv_ms" 300 '<')"

# Peak memory against what is printed: the JSON written as it is made.
echo
printf '%-34s %22s %22s\n' "peak memory (JSON printed)" "16 queues per NIC" "256 queues per NIC"
for c in irqs advise; do
	cells=()
	for q in 16 256; do
		MEM[peak-$c$q]=""
		run peak-$c$q sh -c 'exec "$@" >"$0"' "$TMP/out" ./numaplace --root "$TOP/build/bench-q$q" $c --json || true
		cells+=("$(mb "$(largest <<<"${MEM[peak-$c$q]:-}")") MB ($(awk -v b="$(stat -c %s "$TMP/out")" 'BEGIN { printf "%.1f", b / 1048576 }') MB)")
	done
	printf '%-34s %22s %22s\n' "$c --json" "${cells[@]}"
done

# hold's re-apply of one 64-queue NIC after its event (its own small root).
bash tests/bench/hold.sh || failed=1
# apply and revert of 4,096 values on the 1024-CPU root.
bash tests/bench/apply.sh || failed=1

if [ "$failed" != 0 ]; then
	echo "bench: some runs failed (see above)" >&2
	exit 1
fi
exit 0
