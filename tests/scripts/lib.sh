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
