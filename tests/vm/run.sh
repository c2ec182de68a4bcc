#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-vm: boots Debian's kernel in a QEMU guest for each layout
# (tests/vm/layouts/*.sh), runs that layout's tests inside it
# (tests/vm/guest/tests.sh) and brings their results back over the guest's
# second serial port; prints one line per test and "N passed, N failed,
# N skipped".
#
#   tests/vm/run.sh [LAYOUT...]     (a layout by its file name: a-numa4)
#   VM_TESTS="a b" tests/vm/run.sh LAYOUT   only those tests of the layout
#
# Nothing on the host changes: each layout's tap lives in a network namespace
# made for it (named numaplace-vm-LAYOUT-PID) and removed with the guest; the
# NVMe's disk is a file under build/vm/run/. KVM when it boots the guest
# (VM_ACCEL=kvm or tcg forces one), TCG (-cpu max) otherwise.
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
OUT=$TOP/build/vm
export LC_ALL=C

passed=0 failed=0 skipped=0
failures=()
pass() { passed=$((passed + 1)); echo "ok   $1${2:+ ($2)}"; }
fail() { failed=$((failed + 1)); failures+=("$1"); echo "FAIL $1${2:+: $2}"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $1: $2"; }
finish() {
	echo
	[ ${#failures[@]} -gt 0 ] && printf 'failed: %s\n' "${failures[@]}"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
}
now() { printf '%(%s)T' -1; }

LAYOUTS=()
for a in "$@"; do LAYOUTS+=("tests/vm/layouts/$a.sh"); done
[ $# -gt 0 ] || LAYOUTS=(tests/vm/layouts/*.sh)

# QEMU that cannot run at all is a skip, said with its reason; anything after
# that which fails is a failure.
QEMU=$(command -v qemu-system-x86_64 || true)
if [ -z "$QEMU" ]; then
	skip vm "qemu-system-x86_64 is not installed (Debian package qemu-system-x86)"
	finish
fi
mkdir -p "$OUT"
why=$("$QEMU" -machine q35 -accel tcg -display none -nodefaults -S -no-user-config \
	-monitor none -serial none -daemonize -pidfile "$OUT/probe.pid" 2>&1 >/dev/null) ||
	{ skip vm "qemu-system-x86_64 does not start: $why"; finish; }
kill "$(cat "$OUT/probe.pid")" 2>/dev/null
rm -f "$OUT/probe.pid"

echo "  VM      image (Debian's kernel, busybox, this tree's numaplace)"
bash tests/vm/image.sh "$OUT" || { fail vm:image "tests/vm/image.sh failed"; finish; }
echo "  VM      kernel $(cat "$OUT/kernel-version")"

# --- one guest: QEMU started in the background with its two pipes (the
# results' serial port and QMP), everything it made removed by stop_guest.
GUEST_PID= NETNS=
stop_guest() {
	if [ -n "$GUEST_PID" ]; then
		kill "$GUEST_PID" 2>/dev/null
		local i
		for i in $(seq 50); do kill -0 "$GUEST_PID" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$GUEST_PID" 2>/dev/null
	fi
	GUEST_PID=
	local fd
	for fd in ${RES_IN:-} ${RES_OUT:-} ${QMP_IN:-} ${QMP_OUT:-}; do exec {fd}>&-; done
	RES_IN= RES_OUT= QMP_IN= QMP_OUT=
	[ -z "$NETNS" ] || ip netns del "$NETNS" 2>/dev/null
	NETNS=
}
trap 'stop_guest' EXIT
trap 'stop_guest; exit 130' INT TERM

# start_guest NAME ACCEL CPU APPEND ARGS...: RUN is the guest's directory;
# RES_IN/RES_OUT and QMP_IN/QMP_OUT the descriptors of its pipes.
start_guest() {
	local name=$1 accel=$2 cpu=$3 append=$4
	shift 4
	rm -f "$RUN"/{res,qmp}.{in,out} "$RUN/console.log"
	PARTIAL=
	mkfifo "$RUN/res.in" "$RUN/res.out" "$RUN/qmp.in" "$RUN/qmp.out"
	exec {RES_IN}<>"$RUN/res.in" {RES_OUT}<>"$RUN/res.out" {QMP_IN}<>"$RUN/qmp.in" {QMP_OUT}<>"$RUN/qmp.out"
	local ns=()
	[ -z "$NETNS" ] || ns=(ip netns exec "$NETNS")
	"${ns[@]}" "$QEMU" -name "numaplace-vm-$name" -accel "$accel" -cpu "$cpu" \
		-nodefaults -no-user-config -display none -no-reboot \
		-kernel "$OUT/vmlinuz" -initrd "$OUT/initrd.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet $append" \
		-serial "file:$RUN/console.log" -chardev "pipe,id=res,path=$RUN/res" -serial chardev:res \
		-chardev "pipe,id=qmp,path=$RUN/qmp" -mon chardev=qmp,mode=control \
		"$@" >"$RUN/qemu.log" 2>&1 &
	GUEST_PID=$!
	# Not a job of this shell: bash would print the command line of a QEMU that
	# aborts (as it does when KVM refuses -cpu host); its log says why.
	disown "$GUEST_PID"
}

# A line from the guest, waiting until the deadline (seconds since the epoch)
# at most; partial lines are kept for the next call.
PARTIAL=
guest_line() {
	local deadline=$1 chunk left
	while :; do
		left=$((deadline - $(now)))
		[ "$left" -gt 0 ] || return 1
		[ "$left" -lt 5 ] || left=5
		if IFS= read -r -t "$left" -u "$RES_OUT" chunk; then
			LINE=$PARTIAL$chunk
			PARTIAL=
			LINE=${LINE%$'\r'}
			return 0
		fi
		PARTIAL+=$chunk
		kill -0 "$GUEST_PID" 2>/dev/null || return 2
	done
}

# QMP: one command, its answer (events on the way are kept in $RUN/events).
qmp() {
	local line deadline=$(($(now) + 60))
	printf '%s\n' "$1" >&"$QMP_IN"
	while IFS= read -r -t 60 -u "$QMP_OUT" line; do
		case $line in
		*'"event"'*) echo "$line" >>"$RUN/events" ;;
		*'"return"'* | *'"error"'*) QMP_ANSWER=$line; return 0 ;;
		esac
		[ "$(now)" -lt "$deadline" ] || break
	done
	QMP_ANSWER="no answer from QMP"
	return 1
}
qmp_start() {
	local line
	: >"$RUN/events"
	IFS= read -r -t 60 -u "$QMP_OUT" line && [[ $line == *'"QMP"'* ]] || return 1
	qmp '{"execute": "qmp_capabilities"}'
}
hmp() {
	qmp "{\"execute\": \"human-monitor-command\", \"arguments\": {\"command-line\": \"$1\"}}" || return 1
	# HMP's own errors come back as text in "return".
	[[ $QMP_ANSWER == *'"return": ""'* || $QMP_ANSWER == *'"return": {}'* ]]
}
# Waits for QEMU's DEVICE_DELETED event of device ID (the guest let it go).
qmp_wait_deleted() {
	local id=$1 deadline=$(($(now) + $2)) line
	while [ "$(now)" -lt "$deadline" ]; do
		grep -q "\"DEVICE_DELETED\".*\"device\": \"$id\"" "$RUN/events" && return 0
		IFS= read -r -t 2 -u "$QMP_OUT" line && echo "$line" >>"$RUN/events"
	done
	return 1
}

# The guest's requests: "request N unplug ID" and "request N plug ID" (QMP
# device_del, waiting for the guest to release the device, and device_add of
# the layout's own -device line for that id). Answered "ack N ok" or
# "ack N fail WHY" on the guest's serial port.
handle_request() {
	local n=$1 what=$2 id=$3 spec= a
	case $what in
	unplug)
		if hmp "device_del $id" && qmp_wait_deleted "$id" 90; then
			printf 'ack %s ok\n' "$n" >&"$RES_IN"
		else
			printf 'ack %s fail device_del %s: %s\n' "$n" "$id" "$QMP_ANSWER" >&"$RES_IN"
		fi ;;
	plug)
		for a in "${LAYOUT_ARGS[@]}"; do
			[[ ,$a, == *,id=$id,* ]] && spec=$a
		done
		sed -i "/\"device\": \"$id\"/d" "$RUN/events"
		if [ -n "$spec" ] && hmp "device_add $spec"; then
			printf 'ack %s ok\n' "$n" >&"$RES_IN"
		else
			printf 'ack %s fail device_add %s: %s\n' "$n" "${spec:-$id (not in the layout)}" "$QMP_ANSWER" >&"$RES_IN"
		fi ;;
	*) printf 'ack %s fail unknown request %s\n' "$n" "$what" >&"$RES_IN" ;;
	esac
}

# Does KVM boot the guest here? A guest that says hello within 60 s.
kvm_boots() {
	[ -w /dev/kvm ] || return 1
	RUN=$OUT/run/kvm-probe
	rm -rf "$RUN" && mkdir -p "$RUN"
	start_guest kvm-probe kvm host "vmtests=" -machine q35 -m 256M -smp 1
	local ok=1
	guest_line $(($(now) + 60)) && [[ $LINE == "VM: hello"* ]] && ok=0
	stop_guest
	return $ok
}
case ${VM_ACCEL:-auto} in
kvm) ACCEL=kvm CPU=host ;;
tcg) ACCEL=tcg CPU=max ;;
*) if kvm_boots; then ACCEL=kvm CPU=host; else ACCEL=tcg CPU=max; fi ;;
esac
echo "  VM      accelerator $ACCEL (-cpu $CPU)"

# --- each layout: one boot, all of its tests.
run_layout() {
	local file=$1 name
	name=${file##*/}
	name=${name%.sh}
	local LAYOUT_BUDGET=600 LAYOUT_APPEND= LAYOUT_TESTS= TAP_QUEUES=0 LAYOUT_ARGS=()
	local short=${name%%-*}
	RUN=$OUT/run/$name
	rm -rf "$RUN" && mkdir -p "$RUN/files"
	DISK=$RUN/disk.img TAP=vmtap0
	truncate -s 64M "$DISK"
	# shellcheck disable=SC1090
	source "$file"
	local t expected=() got=()
	# VM_TESTS="a b" runs only those of the layout's tests (while developing one).
	for t in ${VM_TESTS:-$LAYOUT_TESTS}; do expected+=("$t"); done
	local start
	start=$(now)
	local deadline=$((start + LAYOUT_BUDGET))
	if [ "$TAP_QUEUES" -gt 0 ]; then
		NETNS=numaplace-vm-$short-$$
		ip netns add "$NETNS" && ip -n "$NETNS" link set lo up &&
			ip -n "$NETNS" tuntap add dev "$TAP" mode tap multi_queue &&
			ip -n "$NETNS" addr add 10.77.0.1/24 dev "$TAP" &&
			ip -n "$NETNS" link set "$TAP" up ||
			{ fail "vm-$short" "cannot make the network namespace $NETNS and its tap"; stop_guest; return; }
	fi
	echo "  VM      $name: ${#expected[@]} tests, budget ${LAYOUT_BUDGET} s"
	start_guest "$name" "$ACCEL" "$CPU" "vmtests=$(IFS=,; echo "${expected[*]}") $LAYOUT_APPEND" "${LAYOUT_ARGS[@]}"
	qmp_start || { fail "vm-$short" "QEMU did not start: $(tail -3 "$RUN/qemu.log")"; stop_guest; return; }
	local booted= logs=() file_name= why status=0 verdict tname detail
	while :; do
		guest_line "$deadline" || { status=$?; break; }
		case $LINE in
		"VM: hello"*) booted=$(($(now) - start)); echo "  VM      $name: booted in ${booted} s" ;;
		"VM: log "*) logs+=("${LINE#VM: log }") ;;
		"VM: result "*)
			read -r verdict tname detail <<<"${LINE#VM: result }"
			got+=("$tname")
			if [ "$verdict" = pass ]; then
				pass "vm-$short:$tname" "$detail"
			else
				fail "vm-$short:$tname" "$detail"
				printf '       %s\n' "${logs[@]}"
			fi
			logs=() ;;
		"VM: request "*)
			read -r -a detail <<<"${LINE#VM: request }"
			handle_request "${detail[@]}" ;;
		"VM: file "*)
			file_name=${LINE#VM: file }
			file_name=${file_name//\//_}
			: >"$RUN/files/$file_name.b64" ;;
		"VM: end-file")
			base64 -d <"$RUN/files/$file_name.b64" >"$RUN/files/$file_name" && rm -f "$RUN/files/$file_name.b64"
			file_name= ;;
		"VM: done") break ;;
		*) [ -z "$file_name" ] || printf '%s\n' "$LINE" >>"$RUN/files/$file_name.b64" ;;
		esac
	done
	if [ -z "$booted" ]; then
		why="the guest did not boot"
	elif [ $status = 2 ]; then
		why="the guest stopped before it"
	else
		why="not done within the layout's budget (${LAYOUT_BUDGET} s)"
	fi
	for t in "${expected[@]}"; do
		[[ " ${got[*]} " == *" $t "* ]] || fail "vm-$short:$t" "$why (console: $RUN/console.log)"
	done
	stop_guest
	# What the host checks on what the guest sent back.
	host_checks "$short"
	echo "  VM      $name: $(($(now) - start)) s"
}

source tests/vm/host-checks.sh
for f in "${LAYOUTS[@]}"; do
	[ -f "$f" ] || { fail "vm:${f##*/}" "no layout $f"; continue; }
	run_layout "$f"
done
finish
