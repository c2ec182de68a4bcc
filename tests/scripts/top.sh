# SPDX-License-Identifier: GPL-2.0-or-later
# numaplace top: the live view (in tmux) and --batch, on a copy of the R715 fixture whose
# /proc/interrupts the test rewrites between refreshes.

top_root() {
	local dst="$WORK/top-r715"
	rm -rf "$dst" && cp -r "$FIXTURES/r715" "$dst"
	printf '%s' "$dst"
}

# Adds n to the first CPU column of the row of IRQ irq in root's /proc/interrupts.
bump_first_cpu() {
	local root=$1 irq=$2 n=$3
	awk -v irq="$irq:" -v n="$n" '
		$1 == irq { match($0, /^ *[0-9]+: /); head = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
			match(rest, /^ *[0-9]+ /); cell = substr(rest, 1, RLENGTH)
			print head sprintf("%10u ", cell + n) substr(rest, RLENGTH + 1); next }
		{ print }' "$root/proc/interrupts" >"$root/proc/interrupts.new"
	mv "$root/proc/interrupts.new" "$root/proc/interrupts"
}

megasas_irq() { awk '/megasas/ { sub(":", "", $1); print $1 }' "$1/proc/interrupts"; }

# Two frames one second apart: the first sees 4000 MegaRAID interrupts (on CPU 0, node 0,
# while the controller is on node 3), the second none.
test_top_batch_frames() {
	local root irq
	root=$(top_root)
	irq=$(megasas_irq "$root")
	# top reads the IRQs once to list them, then samples their counts
	read_watch "$root/proc/interrupts" 2
	("$NUMAPLACE" --root "$root" top --batch -d 1 -n 2 >"$WORK/top-batch.out" 2>&1) &
	local pid=$!
	read_wait
	bump_first_cpu "$root" "$irq" 4000
	wait $pid || die "top --batch failed: $(cat "$WORK/top-batch.out")"
	local want
	want=$(printf '%s\n' \
		"numaplace top: interrupts per second over 1 s; sort rate, filter none" "" \
		"NODE        IRQ/S   REMOTE/S" \
		"0            4000       4000" \
		"1               0          0" \
		"2               0          0" \
		"3               0          0" "" \
		"DEVICE           ADDRESS      NODE      IRQ/S  REMOTE" \
		"sda              0000:22:00.0    3       4000    100%" "" \
		"  IRQ NAME                     DEVICE            IRQ/S  RAN ON" \
		"$(printf '%5d %-24s %-12s %10s  %s' "$irq" megasas sda 4000 "CPU 0, node 0")" "" \
		"numaplace top: interrupts per second over 1 s; sort rate, filter none" "" \
		"NODE        IRQ/S   REMOTE/S" \
		"0               0          0" \
		"1               0          0" \
		"2               0          0" \
		"3               0          0" "" \
		"DEVICE           ADDRESS      NODE      IRQ/S  REMOTE" \
		"(no device interrupts)" "" \
		"  IRQ NAME                     DEVICE            IRQ/S  RAN ON" \
		"(no interrupts in this interval)")
	diff -u <(printf '%s\n' "$want") "$WORK/top-batch.out" || die "top --batch frames differ"
}

# until_pane PATTERN, until_pane_lacks PATTERN: the tmux pane (in $pane) shows
# a line matching PATTERN, or none, within 5 s.
until_pane() {
	local i
	for ((i = 0; i < 50; i++)); do
		pane=$(tmux -S "$sock" capture-pane -p)
		grep -q "$1" <<<"$pane" && return 0
		sleep 0.1
	done
	return 1
}
until_pane_lacks() {
	local i
	for ((i = 0; i < 50; i++)); do
		pane=$(tmux -S "$sock" capture-pane -p)
		grep -q "$1" <<<"$pane" || return 0
		sleep 0.1
	done
	return 1
}

# The full-screen view in a tmux pane: it shows what ran since the last refresh, and obeys
# its keys (f filters by device, p pauses, q quits).
test_top_screen_in_tmux() {
	command -v tmux >/dev/null || skip_test "tmux not installed"
	local root irq pane i
	sock="$WORK/top-tmux.sock"
	root=$(top_root)
	irq=$(megasas_irq "$root")
	tmux -S "$sock" kill-server 2>/dev/null || true
	trap 'tmux -S "$sock" kill-server 2>/dev/null || true' EXIT
	tmux -S "$sock" new-session -d -x 100 -y 30 \
		"NUMAPLACE_ROOT='$root' '$NUMAPLACE' top -d 0.5; echo EXITED \$?; sleep 30"
	# bump every 0.1 s until a frame shows the MegaRAID, at most 5 s
	for i in $(seq 50); do
		bump_first_cpu "$root" "$irq" 1000
		pane=$(tmux -S "$sock" capture-pane -p)
		grep -q "^sda  *0000:22:00.0    3 .* 100%" <<<"$pane" && break
		sleep 0.1
	done
	grep -q "^sda  *0000:22:00.0    3 .* 100%" <<<"$pane" || die "the live view never showed the MegaRAID: $pane"
	grep -Eq "^ *$irq megasas +sda +[0-9.k]+ +CPU 0, node 0" <<<"$pane" || die "no busiest-IRQ row: $pane"
	grep -q "q quit" <<<"$pane" || die "no key help line: $pane"
	# filter to eth4: the MegaRAID leaves the device list
	tmux -S "$sock" send-keys f
	until_pane "Esc: keep" || die "f opens no prompt: $pane"
	tmux -S "$sock" send-keys eth4 Enter
	until_pane "filter eth4 (f)" || die "filter not applied: $pane"
	until_pane_lacks "^sda " || die "the filter left the MegaRAID in: $pane"
	# Esc leaves the prompt and the filter as they were (it was typed as "^[q").
	tmux -S "$sock" send-keys f
	until_pane "Esc: keep" || die "f opens no prompt: $pane"
	tmux -S "$sock" send-keys xyz Escape
	until_pane_lacks "Esc: keep" || die "Esc left the prompt open: $pane"
	grep -q "filter eth4 (f)" <<<"$pane" || die "Esc changed the filter: $pane"
	tmux -S "$sock" send-keys p
	until_pane "PAUSED" || die "p does not pause: $pane"
	tmux -S "$sock" send-keys q
	until_pane "^EXITED" || die "q did not quit: $pane"
	grep -q "^EXITED 0" <<<"$pane" || die "q did not quit cleanly: $pane"
}

test_top_needs_a_terminal_or_batch() {
	local out
	out=$("$NUMAPLACE" --root "$FIXTURES/r715" top </dev/null 2>&1) && die "top without a terminal succeeded"
	expect_eq "numaplace: top: the live view needs a terminal; use --batch for plain frames" "$out"
	out=$("$NUMAPLACE" --root "$FIXTURES/r715" top --batch -f nosuchdev 2>&1) && die "an unknown filter succeeded"
	expect_eq "numaplace: top: no device matches 'nosuchdev'" "$out"
}
