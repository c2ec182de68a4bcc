# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the scripted tests (sourced by tests/run.sh).

# Fails the test with a message.
die() { echo "$*" >&2; exit 1; }
# Skips the test: the last line printed is the reason (on stderr, so that
# it reaches the log from inside a command substitution too).
skip_test() { echo "$*" >&2; exit 77; }

# Unpacks a snapshot from tests/snapshots (real machines, see its README)
# into $WORK, again whenever the archive changed (its checksum is kept beside
# the copy), and prints the root directory (the one holding sys/ and proc/).
# They are part of the repository: a missing one is a failure.
SNAPSHOTS=$TOP/tests/snapshots
snapshot_root() {
	local name=$1 dir="$WORK/snapshots/$1" sum
	[ -f "$SNAPSHOTS/$name" ] || die "snapshot $name not found in $SNAPSHOTS"
	sum=$(cksum <"$SNAPSHOTS/$name")
	if [ "$(cat "$dir/.unpacked" 2>/dev/null)" != "$sum" ]; then
		rm -rf "$dir" && mkdir -p "$dir"
		tar -xf "$SNAPSHOTS/$name" -C "$dir" 2>/dev/null || die "cannot unpack $name"
		printf '%s\n' "$sum" >"$dir/.unpacked"
	fi
	local sys
	sys=$(find "$dir" -maxdepth 3 -type d -name sys -path '*/sys' ! -path '*/proc/sys' | head -n 1)
	[ -n "$sys" ] || die "no sys/ in $name"
	dirname "$sys"
}

# Compares two strings; shows both on failure.
expect_eq() {
	[ "$1" == "$2" ] || die "${3:-values differ}: expected '$1', got '$2'"
}

# binary_names_path BIN PATH: BIN holds PATH as a string of its own. strings(1)
# also takes in a printable byte that happens to precede it, so a line that
# ends with PATH after a byte that cannot be part of a path counts too.
binary_names_path() {
	strings "$1" | awk -v d="$2" '{ n = length($0) - length(d) }
		n >= 0 && substr($0, n + 1) == d && (n == 0 || substr($0, n, 1) !~ /[[:alnum:]\/._-]/) { f = 1 }
		END { exit !f }'
}

# wait_until SECONDS CONDITION: evaluates CONDITION (shell code) every 50 ms
# until it holds; returns 1 once SECONDS have passed without it.
wait_until() {
	local end=$((${EPOCHREALTIME//[!0-9]/} + $1 * 1000000))
	until eval "$2"; do
		((${EPOCHREALTIME//[!0-9]/} < end)) || return 1
		sleep 0.05
	done
}

# A test that changes a file between a command's two samples of it must know
# when the first was taken. read_watch FILE [N] sets an inotify watch on FILE
# (set up when it returns); read_wait then waits, at most 30 s, until readers
# have read FILE through and closed it N times (1 by default: a command that
# reads it once before it samples it takes 2), and returns at once: the
# command's interval is the test's whole margin. Nothing else may read FILE.
# Opens are watched too: inotify merges an event into the same one still
# queued, and two reads in a row would count as one.
read_watch() {
	local line
	command -v inotifywait >/dev/null || die "inotifywait not installed (inotify-tools: make check-deps installs it)"
	READ_WATCHED=$1 READ_COUNT=${2:-1}
	coproc READ_WATCH { exec inotifywait -m -e open -e close_nowrite --format %e "$1" 2>&1; }
	IFS= read -r -t 30 -u "${READ_WATCH[0]}" line && IFS= read -r -t 30 -u "${READ_WATCH[0]}" line &&
		[ "$line" = "Watches established." ] || die "inotifywait set up no watch on $1: $line"
}
read_wait() {
	local i=0 line
	while ((i < READ_COUNT)) && IFS= read -r -t 30 -u "${READ_WATCH[0]}" line; do
		[[ $line != CLOSE_NOWRITE* ]] || i=$((i + 1))
	done
	kill "$READ_WATCH_PID" 2>/dev/null
	wait "$READ_WATCH_PID" 2>/dev/null || true
	[ "$i" -ge "$READ_COUNT" ] || die "$READ_WATCHED read $i times within 30 s, not $READ_COUNT"
}
