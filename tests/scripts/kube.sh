# SPDX-License-Identifier: GPL-2.0-or-later
# Kubernetes nodes: pods' exclusive CPUs (the kubelet's CPU manager state) in report,
# advise, apply and hold, on the kube fixture (a Guaranteed container on CPUs 6-7 of
# the ConnectX-5's node, two of its queues' interrupts landing there).

KUBE_POD=6f1c2e9a-3b7d-4c2e-9a51-0d2f8e7b4c13
kube_root() {
	rm -rf "$WORK/kube"
	cp -a "$FIXTURES/kube" "$WORK/kube"
	ROOT=$WORK/kube
}
np() { "$NUMAPLACE" --root "$ROOT" "$@"; }

test_report_names_the_container_whose_cpus_take_interrupts() {
	local json finding
	json=$("$NUMAPLACE" --root "$FIXTURES/kube" report --json)
	finding=$(jq -c '[.findings[] | select(.kind == "irq_on_exclusive_cpus")]' <<<"$json")
	expect_eq 1 "$(jq length <<<"$finding")" "exclusive-CPU findings"
	expect_eq "0000:98:00.0 6-7 warning false" "$(jq -r '.[0] | "\(.device) \(.cpus) \(.severity) \(.minor)"' <<<"$finding")" \
		"the finding"
	[[ $(jq -r '.[0].message' <<<"$finding") == *"$KUBE_POD/l2fwd (pod l2fwd-7d9f8b6c5-x4kqp)"* ]] ||
		die "the finding does not name the pod and container: $finding"
	# As heavy as the same interrupts on isolated CPUs: what ran on CPUs 6-7, from the irqs.
	expect_eq "$(jq '[.irqs[] | select(.device == "0000:98:00.0") | .per_node] | length' <<<"$json")" 5 "mlx5 IRQs"
	expect_eq "$(jq '.interrupts_where[] | select(.device == "0000:98:00.0") | .exclusive' <<<"$json")" \
		"$(jq '.[0].interrupts' <<<"$finding")" "interrupts at stake"
	expect_eq "$KUBE_POD l2fwd 6-7 l2fwd-7d9f8b6c5-x4kqp" \
		"$(jq -r '.kubelet.containers[] | "\(.pod_uid) \(.container) \(.cpus) \(.pod_name)"' <<<"$json")" "kubelet in JSON"
}

test_advise_clears_exclusive_cpus_and_is_idempotent_after_apply() {
	kube_root
	local plan
	plan=$(np advise --json)
	# Every movable IRQ's recommended CPUs are off 6-7, nearest the device first.
	expect_eq "" "$(jq -r '.recommendations[] | select(.kind == "irq_affinity") | .recommended' <<<"$plan" |
		grep -E '(^|[,-])[67]($|[,-])')" "recommended CPUs inside the exclusive 6-7"
	expect_eq "4 5" "$(jq -r '[.recommendations[] | select(.irq == 40 or .irq == 41) | .recommended] | sort | join(" ")' <<<"$plan")" \
		"the two queues on CPUs 6-7 go to node 1's remaining cores"
	expect_eq 0-5 "$(jq -r '.recommendations[] | select(.kind == "default_irq_affinity") | .recommended' <<<"$plan")" \
		"new IRQs start on the default CPU set"
	np advise -o "$WORK/kube-plan.json" >/dev/null
	np apply "$WORK/kube-plan.json" >/dev/null
	expect_eq 0 "$(np advise --json | jq '[.recommendations[] | select(.kind != "channels")] | length')" \
		"advise after apply recommends nothing"
	expect_eq false "$(np apply --json "$WORK/kube-plan.json" | jq .changed)" "second apply changes nothing"
}

test_pileup_is_reported_instead_of_moved() {
	local plan
	plan=$("$NUMAPLACE" --root "$FIXTURES/kube" --kubelet-state "$FIXTURES/kubelet-states/pileup" advise --json)
	expect_eq 0 "$(jq '[.recommendations[] | select(.device == "0000:98:00.0")] | length' <<<"$plan")" \
		"changes to the NIC whose queues would pile up on one core"
	[[ $(jq -r '.warnings[]' <<<"$plan") == *"0000:98:00.0 (ens6f0np0): clearing CPUs 5-7"*"pile-up"* ]] ||
		die "no pile-up warning: $(jq -c .warnings <<<"$plan")"
	# The report still names the container.
	"$NUMAPLACE" --root "$FIXTURES/kube" --kubelet-state "$FIXTURES/kubelet-states/pileup" report --json |
		jq -e '.findings[] | select(.kind == "irq_on_exclusive_cpus")' >/dev/null || die "no finding"
}

test_malformed_state_is_a_note() {
	local f out status=0
	for f in truncated v0; do
		out=$("$NUMAPLACE" --root "$FIXTURES/kube" --kubelet-state "$FIXTURES/kubelet-states/$f" report --json 2>"$WORK/kube-err") ||
			status=$?
		expect_eq 0 "$status" "report with the $f state"
		grep -q "^numaplace: note: '.*/$f': .*(the file is set aside)$" "$WORK/kube-err" || die "no note: $(cat "$WORK/kube-err")"
		expect_eq 1 "$(jq '.kubelet.notes | length' <<<"$out")" "notes in JSON"
		expect_eq 0 "$(jq '[.findings[] | select(.kind == "irq_on_exclusive_cpus")] | length' <<<"$out")" "findings"
	done
}
