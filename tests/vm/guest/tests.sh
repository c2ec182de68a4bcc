# SPDX-License-Identifier: GPL-2.0-or-later
# The tests that run inside the guest, on its real kernel: test_NAME, named
# in a layout's LAYOUT_TESTS. Each runs in its own subshell (set -eu) and
# passes on exit 0; "note: TEXT" lines are figures shown with its verdict.

# The guest's snapshot and its live report, for the host to compare
# (tests/vm/host-checks.sh) and to keep as a real-kernel fixture.
test_snapshot() {
	"$NP" snapshot /tmp/snapshot.tar.gz
	"$NP" report --json >/tmp/report.json
	send_file /tmp/snapshot.tar.gz snapshot.tar.gz
	send_file /tmp/report.json report.json
	note "$(stat -c %s /tmp/snapshot.tar.gz) bytes"
}
