# SPDX-License-Identifier: GPL-2.0-or-later
# deploy/monitoring: the Prometheus rules check and pass their unit tests,
# the Grafana dashboard's queries parse, and every metric either names is
# one numaplace writes (its # HELP lines name each, hold's counters too).

MON=$TOP/deploy/monitoring

need_promtool() {
	command -v promtool >/dev/null || skip_test "promtool not installed (make check installs prometheus)"
}

test_alert_rules_check_and_pass_their_tests() {
	need_promtool
	local out
	out=$(promtool check rules "$MON/numaplace-rules.yml" 2>&1) || die "promtool check rules: $out"
	[[ $out == *"SUCCESS: "*" rules found"* ]] || die "promtool check rules: $out"
	# promtool resolves rule_files from the test file's directory.
	out=$(cd "$MON" && promtool test rules numaplace-rules.test.yml 2>&1) || die "promtool test rules: $out"
	[[ $out == *SUCCESS* ]] || die "promtool test rules: $out"
	# Every alert has a unit test that expects it to fire.
	local alert
	for alert in $(sed -n 's/^ *- alert: //p' "$MON/numaplace-rules.yml"); do
		grep -A2 "alertname: $alert\$" "$MON/numaplace-rules.test.yml" | grep -q 'exp_alerts:$' ||
			die "alert $alert has no test where it fires"
	done
}

test_dashboard_queries_parse_and_name_real_metrics() {
	need_promtool
	local dash=$MON/numaplace-dashboard.json written names name
	jq -e '.panels | length > 5' "$dash" >/dev/null || die "the dashboard is not JSON with panels"
	jq -e '[.panels[] | select(.type != "row") | .datasource.uid] | all(. == "${DS_PROMETHEUS}")' "$dash" >/dev/null ||
		die "a panel does not use the imported data source"
	# Each query as a recording rule: promtool parses it (Grafana's variables given values).
	{
		echo 'groups:'
		echo '  - name: dashboard'
		echo '    rules:'
		jq -r '.panels[] | select(.type != "row") | .targets[].expr' "$dash" | awk '{
			gsub(/\$__rate_interval/, "5m"); gsub(/\$instance/, ".*"); gsub(/\\/, "\\\\"); gsub(/"/, "\\\"")
			printf "      - record: dashboard:q%d\n        expr: \"%s\"\n", NR, $0 }'
	} >"$WORK/dashboard-rules.yml"
	promtool check rules "$WORK/dashboard-rules.yml" >"$WORK/dashboard-rules.log" 2>&1 ||
		die "a dashboard query does not parse: $(cat "$WORK/dashboard-rules.log")"
	# The metric names in the rules and the dashboard are numaplace's.
	written=$("$NUMAPLACE" --root "$FIXTURES/kube" metrics | sed -n 's/^# HELP \(numaplace_[a-z_]*\) .*/\1/p' | sort -u)
	[ "$(wc -l <<<"$written")" -ge 9 ] || die "numaplace metrics names fewer metrics than expected: $written"
	names=$( { jq -r '.panels[].targets[]?.expr' "$dash"; cat "$MON/numaplace-rules.yml"; } | grep -o 'numaplace_[a-z_]*' | sort -u)
	for name in $names; do
		grep -qx "$name" <<<"$written" || die "$name is no metric numaplace writes"
	done
	# The labels the rules group by are those numaplace writes.
	"$NUMAPLACE" --root "$FIXTURES/r715" metrics | grep -q '^numaplace_device_interrupts_total{device="[^"]*",name="[^"]*",driver="[^"]*",node="[^"]*",where="[a-z]*"} ' ||
		die "numaplace_device_interrupts_total's labels are not device, name, driver, node, where"
}
