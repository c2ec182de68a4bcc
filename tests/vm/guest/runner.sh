# SPDX-License-Identifier: GPL-2.0-or-later
# Runs in the guest (from init): the tests the kernel command line names
# (vmtests=a,b,c), each in its own subshell, with its verdict, its last log
# lines and the files it hands back sent to the host over the second serial
# port (ttyS1), which tests/vm/run.sh reads. Lines to the host start "VM: ";
# the host's answers to requests come back on the same port.
set -u
export PATH=/sbin:/bin:/usr/sbin:/usr/bin LC_ALL=C HOME=/root
mkdir -p /root
stty -F /dev/ttyS1 raw -echo 2>/dev/null
exec 3>/dev/ttyS1 4</dev/ttyS1
say() { printf 'VM: %s\n' "$*" >&3; }
say "hello $(uname -r) $(nproc) CPUs"

# send_file PATH NAME: PATH to the host as build/vm/run/LAYOUT/files/NAME.
send_file() {
	say "file $2"
	base64 "$1" >&3
	say "end-file"
}
# request WHAT ARGS: asks the host (QMP) and waits for its answer, "ok" or why not.
REQ=0
request() {
	REQ=$((REQ + 1))
	say "request $REQ $*"
	local line
	while IFS= read -r -t 180 line <&4; do
		line=${line%$'\r'}
		case $line in
		"ack $REQ ok") return 0 ;;
		"ack $REQ "*) echo "host: ${line#ack $REQ }" >&2; return 1 ;;
		esac
	done
	echo "host: no answer to request $REQ ($*)" >&2
	return 1
}

tests=$(sed -n 's/.*vmtests=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')
source /vm/lib.sh
source /vm/tests.sh
guest_setup >/tmp/setup.log 2>&1 || { say "log setup failed: $(tail -5 /tmp/setup.log | tr '\n' ' ')"; }
for t in $tests; do
	log=/tmp/log.$t
	start=$EPOCHREALTIME
	(set -eu; "test_$t") >"$log" 2>&1
	status=$?
	secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	# A test's "@note" lines (note) are its figures, shown beside its verdict.
	notes=$(sed -n 's/^@note //p' "$log" | awk 'NR > 1 { printf "; " } { printf "%s", $0 }')
	if [ $status = 0 ]; then
		say "result pass $t ${secs} s${notes:+; $notes}"
	else
		tail -n 25 "$log" | while IFS= read -r l; do say "log $l"; done
		say "result fail $t after ${secs} s (exit $status)"
	fi
done
say done
