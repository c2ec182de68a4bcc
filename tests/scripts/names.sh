# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile names (issue 22): the kernel lets an interface be named with ';',
# '$', '#', '{}' (15 bytes at most) and with control bytes and invalid UTF-8.
# What numaplace prints for a user to run is quoted for the shell; names are
# shown with what would not show escaped (\x1b) in text, SVG and JSON; a plan
# that apply would refuse is not written; files given with -o and --svg are
# never followed through a link.

# named_root NAME: r715 at $ROOT with eth5 (a finding of report) renamed NAME.
named_root() {
	local name=$1 dev
	rm -rf "$WORK/names" && mkdir -p "$WORK/names"
	ROOT=$WORK/names/root
	cp -a "$TOP/tests/fixtures/r715" "$ROOT"
	dev=$ROOT/sys/devices/pci0000:20/0000:20:0b.0/0000:23:00.1/net
	mv "$dev/eth5" "$dev/$name"
	rm "$ROOT/sys/class/net/eth5"
	ln -s "../../devices/pci0000:20/0000:20:0b.0/0000:23:00.1/net/$name" "$ROOT/sys/class/net/$name"
	# Its IRQs are named after it, as drivers name them; /proc/interrupts
	# lines with control bytes are skipped (binary content), so only a
	# printable name goes there.
	case $name in *[![:print:]]*) ;; *) NAME=$name perl -pi -e 's/eth5/$ENV{NAME}/g' "$ROOT/proc/interrupts" ;; esac
}

np() { "$NUMAPLACE" --root "$ROOT" "$@"; }

test_fix_command_is_quoted_for_the_shell() {
	named_root 'a;touch${IFS}P#'
	local fix
	fix=$(np report 2>/dev/null | grep -a -- "-> numaplace advise --device 'a;" | sed 's/.* -> //') ||
		die "no quoted fix for the device in report: $(np report 2>&1 | head -12)"
	expect_eq "numaplace advise --device 'a;touch\${IFS}P#'" "$fix" "the fix command"
	# Run as a user would paste it: the whole name is one argument, nothing else runs.
	mkdir -p "$WORK/names/run"
	(cd "$WORK/names/run" && numaplace() { printf '%s\n' "$@" >args; } && eval "$fix")
	[ -e "$WORK/names/run/P" ] && die "eval of the fix ran a command"
	expect_eq "advise|--device|a;touch\${IFS}P#" "$(paste -sd'|' "$WORK/names/run/args")" "the fix's arguments"
	np report --json 2>/dev/null | jq -e --arg f "$fix" '[.. | .fix? // empty] | index($f) != null' >/dev/null ||
		die "report --json does not carry the same quoted fix"
}

test_control_bytes_are_escaped_in_text_svg_and_json() {
	named_root $'a\e]0;PWN\a\x01\xff'
	local out
	for cmd in report devices "devices --all" "advise"; do
		out=$(np $cmd 2>/dev/null) || die "$cmd failed"
		grep -aq $'[\e\a\x01\xff]' <<<"$out" && die "$cmd printed a raw control or invalid byte"
	done
	np devices 2>/dev/null | grep -aqF 'net a\x1b]0;PWN\x07\x01\xff:' || die "devices does not show the name escaped"
	for cmd in "report --json" "devices --json"; do
		np $cmd 2>/dev/null >"$WORK/names/out.json" || die "$cmd failed"
		python3 -c 'import json,sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$WORK/names/out.json" ||
			die "$cmd is not valid UTF-8 JSON"
	done
	jq -e '[.. | strings | select(contains("a\u001b]0;PWN\u0007\u0001\\xff"))] | length > 0' "$WORK/names/out.json" >/dev/null ||
		die "devices --json does not carry the name with its invalid byte written \\xff"
	np report --svg "$WORK/names/m.svg" >/dev/null 2>&1 || die "report --svg failed"
	python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$WORK/names/m.svg" || die "the SVG is not well-formed XML"
	grep -qF 'a\x1b]0;PWN\x07\x01\xff' "$WORK/names/m.svg" || die "the SVG does not show the name escaped"
}

test_plan_apply_would_refuse_is_not_written() {
	named_root $'a\e]0;PWN\a'
	local err
	echo "old plan" >"$WORK/names/plan.json"
	err=$(np advise -o "$WORK/names/plan.json" 2>&1 >/dev/null) && die "advise -o wrote a plan with a control character"
	[[ $err == *"apply would refuse this plan"*"control character"* ]] || die "advise -o does not say why: $err"
	[[ $err == *$'\e'* ]] && die "the error shows the raw name"
	expect_eq "old plan" "$(cat "$WORK/names/plan.json")" "the file advise -o refused to write"
	# A printable name: written, and apply takes what advise wrote.
	named_root 'a;touch${IFS}P#'
	np advise -o "$WORK/names/plan.json" >/dev/null 2>&1 || die "advise -o failed"
	np apply --dry-run --irqbalance=ignore "$WORK/names/plan.json" >/dev/null 2>&1 || die "apply refuses the plan advise wrote"
}

test_svg_and_plan_never_follow_a_link() {
	named_root eth9
	ln -s "$WORK/names/target" "$WORK/names/link.svg"
	np report --svg "$WORK/names/link.svg" >/dev/null 2>"$WORK/names/err" && die "report --svg wrote through a link"
	grep -q "symbolic link" "$WORK/names/err" || die "report --svg does not say why: $(cat "$WORK/names/err")"
	[ -e "$WORK/names/target" ] && die "report --svg created the link's target"
	ln -s "$WORK/names/target" "$WORK/names/link.json"
	np advise -o "$WORK/names/link.json" >/dev/null 2>&1 && die "advise -o wrote through a link"
	[ -e "$WORK/names/target" ] && die "advise -o created the link's target"
	# A regular file is replaced whole (a new inode), never truncated in place.
	echo old >"$WORK/names/m.svg"
	local before
	before=$(stat -c %i "$WORK/names/m.svg")
	np report --svg "$WORK/names/m.svg" >/dev/null 2>&1 || die "report --svg failed"
	[ "$(stat -c %i "$WORK/names/m.svg")" != "$before" ] || die "report --svg rewrote the file in place"
	ls -a "$WORK/names" | grep -q numaplace- && die "a temporary file was left"
	return 0
}

# Errors and warnings carry names from the machine too (a path under an
# interface's directory, a subject): escaped as the rest of the output.
# Before, an unreadable mask under a hostile interface printed its raw ESC
# and BEL (an OSC title change) in the one-line error.
test_error_messages_escape_names() {
	local name=$'a\e]0;PWN\a\x01\xff' err
	named_root "$name"
	echo zz >"$ROOT/sys/class/net/$name/queues/rx-0/rps_cpus"
	for cmd in devices report irqs advise; do
		err=$(np $cmd 2>&1 >/dev/null) && die "$cmd read a malformed rps_cpus without an error"
		grep -aq $'[\e\a\x01\xff]' <<<"$err" && die "$cmd's error shows raw bytes: $(cat -v <<<"$err")"
		[[ $err == *"/net/a\\x1b]0;PWN\\x07\\x01\\xff/queues/rx-0/rps_cpus': expected a CPU mask, found 'zz'"* ]] ||
			die "$cmd's error does not name the file with its name escaped: $err"
	done
}
