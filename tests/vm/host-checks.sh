# SPDX-License-Identifier: GPL-2.0-or-later
# What the host checks on the files a guest sent back (sourced by run.sh):
# host_checks SHORT, with RUN the layout's directory.

# The host's --root report of the guest's snapshot is the guest's live one,
# counters aside (tests/vm/report-stable.jq).
host_checks() {
	local short=$1 files=$RUN/files root
	if [ -f "$files/snapshot.tar.gz" ] && [ -f "$files/report.json" ]; then
		root=$files/root
		rm -rf "$root" && mkdir -p "$root"
		if ! tar -xzf "$files/snapshot.tar.gz" -C "$root"; then
			fail "vm-$short:snapshot_root_equals_live" "cannot unpack the guest's snapshot"
		elif ! "$TOP/numaplace" --root "$root" report --json >"$files/root-report.json" 2>"$files/root-report.err"; then
			fail "vm-$short:snapshot_root_equals_live" "report --root failed: $(head -3 "$files/root-report.err")"
		elif diff -u <(jq -S -f "$TOP/tests/vm/report-stable.jq" "$files/report.json") \
			<(jq -S -f "$TOP/tests/vm/report-stable.jq" "$files/root-report.json") \
			>"$files/root-report.diff"; then
			pass "vm-$short:snapshot_root_equals_live" "$(jq '.irqs | length' "$files/report.json") IRQs, $(jq '.devices | length' "$files/report.json") devices"
		else
			fail "vm-$short:snapshot_root_equals_live" "the host's --root report of the snapshot differs from the guest's live one"
			head -30 "$files/root-report.diff" | sed 's/^/       /'
		fi
	fi
}
