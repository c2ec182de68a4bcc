# SPDX-License-Identifier: GPL-2.0-or-later
# numaplace metrics: the Prometheus text format (promtool's check), its values against
# report --json's for the same root, drift from the journals, and --save's atomic replace.

need_promtool() { command -v promtool >/dev/null || die "promtool not installed (Debian package prometheus: make check-deps)"; }

# Every fixture and snapshot root that loads: promtool finds nothing to say.
test_promtool_is_clean_on_every_root() {
	need_promtool
	local root n=0 out
	for root in "$FIXTURES"/*/ "$(snapshot_root cnto-worker2.tgz)"; do
		[ -d "$root/sys" ] || continue
		"$NUMAPLACE" --root "$root" report >/dev/null 2>&1 || continue # a root made to fail (bad)
		out=$("$NUMAPLACE" --root "$root" metrics 2>/dev/null) || die "metrics failed on $root"
		promtool check metrics <<<"$out" >"$WORK/promtool.out" 2>&1 || die "promtool on $root: $(cat "$WORK/promtool.out")"
		n=$((n + 1))
	done
	[ "$n" -ge 10 ] || die "only $n roots checked"
}

# "device where value" lines from the metrics, and the same from report --json.
metric_where() {
	awk '/^numaplace_device_interrupts_total\{/ {
		match($0, /device="[^"]*"/); d = substr($0, RSTART + 8, RLENGTH - 9)
		match($0, /where="[^"]*"/); w = substr($0, RSTART + 7, RLENGTH - 8)
		print d, w, $NF }' | sort
}
report_where() {
	jq -r '.interrupts_where[] | "\(.device) local \(.local)", "\(.device) remote \(.remote)",
		"\(.device) isolated \(.isolated)", "\(.device) exclusive \(.exclusive)",
		"\(.device) per_cpu \(.per_cpu)"' | sort
}

test_values_equal_report_json() {
	local root json metrics name
	for name in kube smt-isolated r715 rt-ice16 placed nonode rt-guest; do
		root=$FIXTURES/$name
		json=$("$NUMAPLACE" --root "$root" report --json 2>/dev/null)
		metrics=$("$NUMAPLACE" --root "$root" metrics 2>/dev/null)
		expect_eq "$(report_where <<<"$json")" "$(metric_where <<<"$metrics")" "interrupts by where on $name"
		# The five add up to each device's interrupts in the irqs rows.
		expect_eq "$(jq -r '[.irqs[] | select(.device != null)] | group_by(.device)[] |
				"\(.[0].device) \(map(.total) | add)"' <<<"$json" | sort)" \
			"$(metric_where <<<"$metrics" | awk '{ s[$1] += $3 } END { for (d in s) print d, s[d] }' | sort)" \
			"device totals on $name"
		# IRQs delivered to isolated CPUs, counted from the irqs rows' effective CPUs.
		local iso want got
		iso=$(jq -r '[.topology.isolated, .topology.nohz_full] | map(select(. != "")) | join(",")' <<<"$json")
		want=$(jq -r --arg iso "$iso" '
			def cpus: if . == null or . == "" then [] else split(",") | map(if test("-") then
				(split("-") | map(tonumber)) as [$a, $b] | [range($a; $b + 1)] else [tonumber] end) | add end;
			($iso | cpus) as $q | [.irqs[] | select(.device != null)] | group_by(.device)[] |
			"\(.[0].device) \(map(select((.effective | cpus) as $e | ($e - ($e - $q)) | length > 0)) | length)"' <<<"$json" | sort)
		got=$(awk '/^numaplace_device_irqs_on_isolated_cpus\{/ { match($0, /device="[^"]*"/);
			print substr($0, RSTART + 8, RLENGTH - 9), $NF }' <<<"$metrics" | sort)
		expect_eq "$want" "$got" "IRQs on isolated CPUs on $name"
	done
	# rt-guest: the NVMe's managed queues are their own class, never remote: per CPU
	# by design on housekeeping CPUs 2, 4, 6 (1933 + 388190 + 2011), isolated on 1, 3, 7,
	# and its admin queue (not managed) local on CPU 0.
	expect_eq "0000:00:04.0 exclusive 0
0000:00:04.0 isolated 414414
0000:00:04.0 local 212
0000:00:04.0 per_cpu 392134
0000:00:04.0 remote 0" "$("$NUMAPLACE" --root "$FIXTURES/rt-guest" metrics | metric_where | grep '^0000:00:04.0')" \
		"rt-guest: the NVMe's interrupts by where"
	# kube: the finding's interrupts are the exclusive ones, its IRQs those on exclusive CPUs.
	json=$("$NUMAPLACE" --root "$FIXTURES/kube" report --json)
	metrics=$("$NUMAPLACE" --root "$FIXTURES/kube" metrics)
	expect_eq "$(jq '.findings[] | select(.kind == "irq_on_exclusive_cpus") | .interrupts' <<<"$json")" \
		"$(metric_where <<<"$metrics" | awk '$1 == "0000:98:00.0" && $2 == "exclusive" { print $3 }')" "exclusive interrupts"
	expect_eq "$(jq '.findings[] | select(.kind == "irq_on_exclusive_cpus") | .irqs' <<<"$json")" \
		"$(grep '^numaplace_device_irqs_on_exclusive_cpus{device="0000:98:00.0"' <<<"$metrics" | awk '{print $NF}')" \
		"IRQs on exclusive CPUs"
}

# Label values are valid UTF-8 whatever a name's bytes: a byte of invalid UTF-8 or a control
# byte is written \xHH (a backslash too), as text output shows it, then escaped as the format
# wants; promtool (node_exporter's textfile collector parses as it does) accepts the file.
test_label_values_are_escaped() {
	need_promtool
	local odd want
	for odd in 'e"n\s6' $'e\xffn\x1b[31m' $'e\xc3\x28n'; do
		case $odd in
		'e"n\s6') want='name="e\"n\\x5cs6"' ;;
		e?n*) want='name="e\\xffn\\x1b[31m"' ;;
		*) want='name="e\\xc3(n"' ;;
		esac
		rm -rf "$WORK/mroot" && cp -a "$FIXTURES/placed" "$WORK/mroot"
		# An interface name may hold any byte but '/', ':', a blank and NUL.
		local dev=$WORK/mroot/sys/devices/pci0000:97/0000:97:01.0/0000:98:00.0/net
		mv "$dev/ens6f0np0" "$dev/$odd"
		rm "$WORK/mroot/sys/class/net/ens6f0np0"
		ln -s "../../devices/pci0000:97/0000:97:01.0/0000:98:00.0/net/$odd" "$WORK/mroot/sys/class/net/$odd"
		local out
		out=$("$NUMAPLACE" --root "$WORK/mroot" metrics)
		grep -qF "numaplace_device_irqs_on_isolated_cpus{device=\"0000:98:00.0\",$want,driver=\"mlx5_core\"} 0" <<<"$out" ||
			die "not escaped as $want: $(grep 0000:98:00.0 <<<"$out" | head -n 2 | od -c | head -5)"
		iconv -f UTF-8 -t UTF-8 <<<"$out" >/dev/null 2>&1 || die "the metrics are not valid UTF-8"
		promtool check metrics <<<"$out" >"$WORK/promtool.out" 2>&1 ||
			die "promtool rejects the metrics of an interface named $(printf %q "$odd"): $(cat "$WORK/promtool.out")"
	done
}

test_drift_and_last_apply_follow_the_journals() {
	rm -rf "$WORK/mroot" && cp -a "$FIXTURES/kube" "$WORK/mroot"
	local np="$NUMAPLACE --root $WORK/mroot" out
	out=$($np metrics)
	grep -q '^numaplace_profile_drift' <<<"$out" && die "a drift metric with nothing applied"
	$np advise -o "$WORK/mplan.json" >/dev/null
	$np apply "$WORK/mplan.json" >/dev/null
	out=$($np metrics)
	grep -qx 'numaplace_profile_applied{profile="advised"} 1' <<<"$out" || die "no applied profile"
	grep -qx 'numaplace_profile_drift{profile="advised"} 0' <<<"$out" || die "drift after apply: $(grep drift <<<"$out")"
	grep -qx 'numaplace_last_apply_success{profile="advised",state="applied"} 1' <<<"$out" || die "no success"
	expect_eq "$($np history --json | jq '.transactions[-1].time')" \
		"$(awk '/^numaplace_last_apply_timestamp_seconds\{/ {print $NF}' <<<"$out")" "last apply time"
	echo 7 >"$WORK/mroot/proc/irq/40/smp_affinity_list"
	grep -qx 'numaplace_profile_drift{profile="advised"} 1' <<<"$($np metrics)" || die "no drift after a change"
	grep -qx 'numaplace_profile_drift{profile="advised"} 1' <<<"$($np metrics --profile "$WORK/mplan.json")" ||
		die "no drift with --profile"
	$np revert --force >/dev/null
	grep -q '^numaplace_profile_applied{' <<<"$($np metrics)" && die "an applied profile after revert"
	true
}

# --save renames a whole file over the old one: a reader sees the old or the new, never
# part of one, and nothing is left beside it.
test_save_replaces_atomically() {
	local dir=$WORK/textfile f n=0 want
	rm -rf "$dir" && mkdir -p "$dir"
	f=$dir/numaplace.prom
	"$NUMAPLACE" --root "$FIXTURES/r715" metrics --save "$f"
	expect_eq 644 "$(stat -c %a "$f")" "mode"
	want=$(wc -l <"$f")
	"$NUMAPLACE" --root "$FIXTURES/r715" metrics | cmp -s - "$f" || die "--save differs from stdout"
	local ino
	ino=$(stat -c %i "$f")
	# A second name keeps the first file's inode in use, so a new file cannot get its number.
	ln -f "$f" "$WORK/textfile-first"
	( for _ in $(seq 20); do "$NUMAPLACE" --root "$FIXTURES/r715" metrics --save "$f" || exit 1; done ) &
	local writer=$!
	while kill -0 "$writer" 2>/dev/null; do
		expect_eq "$want" "$(wc -l <"$f")" "lines seen by a reader"
		n=$((n + 1))
	done
	wait "$writer" || die "a save failed"
	[ "$n" -gt 0 ] || die "the reader never ran"
	[ "$(stat -c %i "$f")" != "$ino" ] || die "the file was rewritten in place, not replaced"
	rm -f "$WORK/textfile-first"
	expect_eq numaplace.prom "$(ls -A "$dir")" "files in the directory"
	local status=0
	"$NUMAPLACE" --root "$FIXTURES/r715" metrics --save "$WORK/no-such-dir/x.prom" 2>"$WORK/merr" || status=$?
	expect_eq 1 "$status" "exit status for a missing directory"
	grep -q "no-such-dir/x.prom" "$WORK/merr" || die "the error does not name the file"
}

# name is what people call the device, driver its driver (node_exporter's word).
test_device_labels_name_and_driver() {
	local out
	out=$("$NUMAPLACE" --root "$FIXTURES/r715" metrics)
	grep -qF 'numaplace_device_interrupts_total{device="0000:22:00.0",name="sda",driver="megaraid_sas",node="3",where="remote"}' <<<"$out" ||
		die "megaraid's labels: $(grep 0000:22:00.0 <<<"$out" | head -n 1)"
	grep -qF 'numaplace_device_interrupts_total{device="0000:00:12.0",name="",driver="ohci-pci",node="0",where="local"}' <<<"$out" ||
		die "a device without interface: $(grep 0000:00:12.0 <<<"$out" | head -n 1)"
}
