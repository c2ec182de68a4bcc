# SPDX-License-Identifier: GPL-2.0-or-later
# numaplace move on this machine (live): a child process of the test (tests/move-child.c),
# pinned to the last CPU, moved to node 0 and back. Nothing but the children and, for the
# cgroup test, a cpuset cgroup of its own is changed; the children are killed and the
# cgroup removed whatever happens.

MOVE_CHILD=$WORK/move-child
MOVE_STATE=$WORK/move-state

# Root, two CPUs at least, and node 0's CPUs other than the last one alone.
live_move_ok() {
	[ "$(id -u)" = 0 ] || skip_test "not root"
	NODE0=$("$NUMAPLACE" topo --json | jq -r '.nodes[] | select(.node == 0) | .cpus')
	LAST=$(awk -F- '{ print $NF }' /sys/devices/system/cpu/online | awk -F, '{ print $NF }')
	[ -n "$NODE0" ] && [ "$NODE0" != "$LAST" ] || skip_test "node 0 is CPU $LAST alone: nowhere to move"
	cc -O2 -pthread -o "$MOVE_CHILD" "$TOP/tests/move-child.c" || die "cannot build move-child"
	rm -rf "$MOVE_STATE"
	CHILDREN=()
	trap 'kill -9 "${CHILDREN[@]}" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
}

# start_child ARGS...: move-child on CPU $LAST; CHILD is its PID, once its threads run.
start_child() {
	local out=$WORK/move-child.out.$RANDOM i
	: >"$out"
	taskset -c "$LAST" "$MOVE_CHILD" "$@" >"$out" &
	CHILD=$!
	CHILDREN+=("$CHILD")
	for i in $(seq 200); do
		grep -q ready "$out" && return 0
		sleep 0.01
	done
	die "move-child $* did not start"
}

# The CPU lists of PID's threads, one line each: "TID LIST".
thread_cpus() {
	local t
	for t in /proc/"$1"/task/*; do
		echo "${t##*/} $(awk '/^Cpus_allowed_list:/ { print $2 }' "$t/status" 2>/dev/null)"
	done
}

# Every thread of PID runs on LIST.
expect_all_on() {
	local bad
	bad=$(thread_cpus "$1" | awk -v l="$2" '$2 != "" && $2 != l')
	[ -z "$bad" ] || die "${3:-threads}: not on $2: $(head -3 <<<"$bad")"
}

# until_threads PID N: PID has N threads, within 10 s.
until_threads() {
	local i n=0
	for ((i = 0; i < 100; i++)); do
		n=$(ls /proc/"$1"/task | wc -l)
		[ "$n" -ge "$2" ] && return 0
		sleep 0.1
	done
	die "$1 has $n threads after 10 s, not $2"
}

np_move() { "$NUMAPLACE" move --state-dir "$MOVE_STATE" "$@"; }
np_revert() { "$NUMAPLACE" revert --state-dir "$MOVE_STATE" "$@"; }

no_pending() {
	local n
	n=$("$NUMAPLACE" history --state-dir "$MOVE_STATE" --json | jq '[.transactions[]? | select(.state == "pending")] | length')
	expect_eq 0 "$n" "pending transactions"
}

test_move_child_and_revert_live() {
	live_move_ok
	start_child 4
	expect_all_on "$CHILD" "$LAST" "before the move"
	local out
	out=$(np_move --node 0 "$CHILD")
	grep -q "^5 values changed (transaction " <<<"$out" || die "move said: $out"
	expect_all_on "$CHILD" "$NODE0" "after the move"
	out=$(np_revert)
	grep -q "5 values restored$" <<<"$out" || die "revert said: $out"
	expect_all_on "$CHILD" "$LAST" "after the revert"
	no_pending
	# --near: the CPUs run --near binds to, the same five threads in the plan.
	if [ -e /sys/block/vda ]; then
		out=$(np_move --near vda --dry-run --json "$CHILD")
		expect_eq 5 "$(jq '.changes | length' <<<"$out")" "threads in the plan of --near vda"
		expect_eq "$("$NUMAPLACE" run --near vda --print --json | jq -r .cpus)" "$(jq -r .cpus <<<"$out")" \
			"the CPUs of move --near vda and run --near vda"
	fi
}

# This machine's one node: the pages have nowhere else to go, and the call must succeed.
test_move_memory_live() {
	live_move_ok
	start_child 2
	local out
	out=$(np_move --node 0 --memory --json "$CHILD")
	expect_eq true "$(jq -r '.memory.migrated' <<<"$out")" "memory migrated"
	expect_eq "0" "$(jq -r '.memory_nodes' <<<"$out")" "memory nodes"
	expect_all_on "$CHILD" "$NODE0" "after the move"
	out=$(np_revert)
	grep -q "not moved back" <<<"$out" || die "revert does not say the memory stays: $out"
	expect_all_on "$CHILD" "$LAST" "after the revert"
}

# A child that starts threads while it is moved: those that start on the old CPUs (from its
# spawner thread before the move reaches it) are listed again and moved in the same
# transaction; the later ones inherit the new CPUs. None is left behind, and the revert
# puts back each thread the transaction journaled.
test_move_thread_created_mid_move_live() {
	live_move_ok
	start_child 40 300
	kill -USR1 "$CHILD"
	local out ids
	out=$(np_move --node 0 --json "$CHILD")
	# Once the spawner is done (the main thread, the spawner, 40 and 300 more), every
	# thread it started is checked.
	until_threads "$CHILD" 342
	expect_all_on "$CHILD" "$NODE0" "after the move"
	# A thread's path, or the process's: its main thread's.
	ids=$(jq -r '.changes[].path' <<<"$out" | sed -E 's|^/proc/[0-9]+/task/([0-9]+)@.*|\1|; s|^/proc/([0-9]+)@.*|\1|')
	[ "$(wc -l <<<"$ids")" -ge 42 ] || die "only $(wc -l <<<"$ids") threads moved"
	np_revert >/dev/null
	local tid
	for tid in $ids; do
		expect_eq "$LAST" "$(awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$CHILD/task/$tid/status")" \
			"thread $tid after the revert"
	done
	no_pending
}

# Processes that exit while they are moved (after 1 to 28 ms): the move moves what is
# there, or says there is no process; nothing is left pending, and a revert skips the
# threads that are gone.
test_move_pid_exiting_mid_move_live() {
	live_move_ok
	local i status err=$WORK/move-exit.err out
	for i in $(seq 0 9); do
		start_child 30 0 $((i * 3 + 1))
		status=0
		out=$(np_move --node 0 --json "$CHILD" 2>"$err") || status=$?
		! grep -qiE 'sanitizer|runtime error' "$err" || die "move: $(cat "$err")"
		case $status in
		0)
			if [ "$(jq -r '.transaction' <<<"$out")" != null ]; then
				wait "$CHILD" 2>/dev/null || true
				out=$(np_revert) || die "revert after the process exited: $out"
				grep -q "gone skipped" <<<"$out" || die "revert did not skip the threads gone: $out"
			fi ;;
		2) grep -q "no process $CHILD" "$err" || die "move: $(cat "$err")" ;;
		*) die "move of an exiting process: exit $status: $(cat "$err")" ;;
		esac
		no_pending
	done
}

# A thread ends after the move and a new process takes its TID (ns_last_pid): the revert
# skips it, says so, and leaves the newcomer's CPUs alone.
test_move_revert_skips_a_reused_tid_live() {
	live_move_ok
	[ -w /proc/sys/kernel/ns_last_pid ] || skip_test "no ns_last_pid to reuse a TID with"
	start_child 3
	np_move --node 0 "$CHILD" >/dev/null
	local before after tid s i
	before=$(ls "/proc/$CHILD/task")
	kill -USR2 "$CHILD"
	for i in $(seq 100); do
		after=$(ls "/proc/$CHILD/task")
		[ "$before" != "$after" ] && break
		sleep 0.01
	done
	tid=$(comm -23 <(sort <<<"$before") <(sort <<<"$after"))
	[ -n "$tid" ] || die "no thread ended"
	s=
	for i in $(seq 20); do
		echo $((tid - 1)) >/proc/sys/kernel/ns_last_pid
		sleep 300 &
		CHILDREN+=($!)
		[ "$!" = "$tid" ] && { s=$!; break; }
		kill "$!"
	done
	[ -n "$s" ] || skip_test "TID $tid was not reused in 20 tries (a busy machine)"
	local newcomer out
	newcomer=$(awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$s/status")
	out=$(np_revert)
	grep -q "pid $CHILD thread $tid: gone" <<<"$out" || die "revert did not skip thread $tid: $out"
	expect_eq "$newcomer" "$(awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$s/status")" "the newcomer's CPUs"
	expect_all_on "$CHILD" "$LAST" "the other threads after the revert"
}

# A cpuset cgroup of the test's own (cgroup v1) owns the child's placement: a move is refused
# and names it; with --cgroup the cgroup's cpuset.cpus is the change, and the revert puts it back.
test_move_cgroup_live() {
	live_move_ok
	local cg=/sys/fs/cgroup/cpuset/numaplace-move-test
	[ -f /sys/fs/cgroup/cpuset/cpuset.cpus ] || skip_test "no cgroup v1 cpuset hierarchy"
	trap 'kill -9 "${CHILDREN[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rmdir '"$cg"' 2>/dev/null || true' EXIT
	mkdir "$cg"
	cat /sys/fs/cgroup/cpuset/cpuset.mems >"$cg/cpuset.mems"
	echo "$LAST" >"$cg/cpuset.cpus"
	start_child 2
	local t
	for t in /proc/"$CHILD"/task/*; do echo "${t##*/}" >"$cg/tasks"; done
	local status=0 err=$WORK/move-cgroup.err
	np_move --node 0 "$CHILD" 2>"$err" >/dev/null || status=$?
	expect_eq 2 "$status" "a move without --cgroup"
	grep -q "cgroup cpuset/numaplace-move-test" "$err" || die "the refusal does not name the cgroup: $(cat "$err")"
	np_move --node 0 --cgroup "$CHILD" >/dev/null
	expect_eq "$NODE0" "$(cat "$cg/cpuset.cpus")" "the cgroup's cpuset.cpus after the move"
	expect_all_on "$CHILD" "$NODE0" "after the move"
	np_revert >/dev/null
	expect_eq "$LAST" "$(cat "$cg/cpuset.cpus")" "the cgroup's cpuset.cpus after the revert"
	expect_all_on "$CHILD" "$LAST" "after the revert"
}

# Threads started after the move (a thread pool that grows) take the moved CPUs from the
# thread that starts them: the revert finds them, puts them back with the others, and says
# how many it found.
test_move_revert_finds_threads_started_after_the_move_live() {
	live_move_ok
	start_child 2 5
	np_move --node 0 "$CHILD" >/dev/null
	# The spawner, moved, starts five more.
	kill -USR1 "$CHILD"
	local i
	for i in $(seq 200); do
		[ "$(ls "/proc/$CHILD/task" | wc -l)" -ge 9 ] && break
		sleep 0.01
	done
	[ "$i" -lt 200 ] || die "the child did not start its five threads"
	expect_all_on "$CHILD" "$NODE0" "the threads started after the move"
	local out
	out=$(np_revert) || die "revert: $out"
	grep -q "^process $CHILD: 9 threads found, 5 started after the move$" <<<"$out" || die "revert said: $out"
	expect_all_on "$CHILD" "$LAST" "after the revert"
	no_pending
}

# A thread its application re-pinned since the move is left where it is, and said; the
# others are restored (it was a refusal: "changed since the transaction, use --force").
test_move_revert_leaves_a_repinned_thread_live() {
	live_move_ok
	start_child 3
	np_move --node 0 "$CHILD" >/dev/null
	local tid out first
	tid=$(ls "/proc/$CHILD/task" | sort -n | tail -n 1)
	first=${NODE0%%[-,]*}
	taskset -p -c "$first" "$tid" >/dev/null
	out=$(np_revert) || die "revert of a move with a re-pinned thread: $out"
	grep -q "pid $CHILD thread $tid: re-pinned by its application since the move: left as it is" <<<"$out" ||
		die "revert said: $out"
	grep -q "1 re-pinned by its application since, left as it is" <<<"$out" || die "revert said: $out"
	expect_eq "$first" "$(awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$CHILD/task/$tid/status")" \
		"the re-pinned thread's CPUs"
	[ -z "$(thread_cpus "$CHILD" | awk -v t="$tid" -v l="$LAST" '$1 != t && $2 != "" && $2 != l')" ] ||
		die "a thread other than $tid is not on $LAST after the revert: $(thread_cpus "$CHILD")"
	no_pending
}

# A move reverted under --root where its process is not (a copy of another machine, or of
# this one taken without it) is refused and stays applied; on its machine it reverts.
test_move_revert_under_another_root_refuses_live() {
	live_move_ok
	start_child 2
	np_move --node 0 "$CHILD" >/dev/null
	local root=$WORK/move-other-root status=0 err
	rm -rf "$root" && mkdir -p "$root/proc/sys/kernel/random"
	cat /proc/sys/kernel/random/boot_id >"$root/proc/sys/kernel/random/boot_id"
	err=$("$NUMAPLACE" --root "$root" revert --state-dir "$MOVE_STATE" 2>&1) || status=$?
	expect_eq 1 "$status" "revert under a root without the process"
	[[ $err == *"process $CHILD (as it started) is not under --root"*"left as it is"* ]] || die "revert said: $err"
	expect_eq applied "$("$NUMAPLACE" history --state-dir "$MOVE_STATE" --json | jq -r '.transactions[-1].state')" \
		"the transaction after the refused revert"
	expect_all_on "$CHILD" "$NODE0" "after the refused revert"
	np_revert >/dev/null || die "revert on this machine failed"
	expect_all_on "$CHILD" "$LAST" "after the revert"
}
