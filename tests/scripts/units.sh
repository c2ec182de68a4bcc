# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd units are sandboxed as far as writing /proc/irq, /sys, the state
# directory and the irqbalance configuration allows, and systemd accepts them.

UNITS=(numaplace.service numaplace-hold.service)

test_units_hardened() {
	local name unit key
	for name in "${UNITS[@]}"; do
		unit=$TOP/build/$name
		[ -f "$unit" ] || die "$unit not built"
		for key in ProtectSystem=strict ProtectHome=yes PrivateTmp=yes NoNewPrivileges=yes StateDirectory=numaplace \
			'ReadWritePaths=/var/lib/numaplace -/etc/default -/etc/sysconfig' \
			'CapabilityBoundingSet=CAP_NET_ADMIN CAP_CHOWN CAP_FOWNER'; do
			grep -qxF "$key" "$unit" || die "$name lacks $key"
		done
		# Each would break what the unit is for.
		for key in PrivateNetwork ProtectKernelTunables ProcSubset ProtectProc; do
			! grep -q "^$key=" "$unit" || die "$name sets $key="
		done
	done
}

# systemd's own verdict, offline (no running systemd needed): verify finds
# nothing, and security rates the exposure OK (it was 9.6, UNSAFE).
test_units_verify_and_security() {
	command -v systemd-analyze >/dev/null || skip_test "no systemd-analyze here"
	local name unit out score
	mkdir -p "$WORK/units"
	for name in "${UNITS[@]}"; do
		# ExecStart must name an executable that exists.
		unit=$WORK/units/$name
		sed "s|^ExecStart=[^ ]*/numaplace|ExecStart=$TOP/numaplace|" "$TOP/build/$name" >"$unit"
		out=$(systemd-analyze verify --man=no "$unit" 2>&1) || die "systemd-analyze verify $name: $out"
		expect_eq "" "$out" "systemd-analyze verify $name"
		out=$(systemd-analyze security --offline=yes --no-pager "$unit" 2>&1) || true
		score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p' <<<"$out")
		[ -n "$score" ] || die "no exposure level from systemd-analyze security: $out"
		awk -v s="$score" 'BEGIN { exit !(s <= 5.0) }' || die "$name exposure $score (want 5.0 or less): $out"
	done
}
