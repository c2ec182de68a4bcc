# SPDX-License-Identifier: GPL-2.0-or-later
# deploy/: the Kubernetes DaemonSet manifest (parsed and checked field by
# field: no schema validator is packaged for Debian, and kubeconform needs
# its schemas from the network), its entry script run against copies of the
# real-time worker fixture, and the Containerfile.

MANIFEST=$TOP/deploy/kubernetes/numaplace.yaml
NODE_SH=$TOP/deploy/kubernetes/numaplace-node.sh

# The manifest's documents as JSON, one a line.
manifest_json() {
	python3 -c 'import json, sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])): print(json.dumps(d))' "$MANIFEST"
}

test_manifest_fields() {
	local docs cm ds c
	docs=$(manifest_json) || die "the manifest is not YAML"
	cm=$(jq -c 'select(.kind == "ConfigMap")' <<<"$docs")
	ds=$(jq -c 'select(.kind == "DaemonSet")' <<<"$docs")
	[ -n "$cm" ] && [ -n "$ds" ] || die "want a ConfigMap and a DaemonSet: $(jq -r .kind <<<"$docs" | paste -sd ' ')"
	expect_eq '"v1" "apps/v1"' "$(jq -c .apiVersion <<<"$cm") $(jq -c .apiVersion <<<"$ds")" "apiVersions"
	# The selector selects the template's pods.
	jq -e '.spec.selector.matchLabels as $m | .spec.template.metadata.labels | contains($m)' <<<"$ds" >/dev/null ||
		die "the selector does not match the pod labels"
	jq -e '.spec.template.spec.hostNetwork == true' <<<"$ds" >/dev/null || die "no hostNetwork"
	c=$(jq -c '.spec.template.spec.containers[0]' <<<"$ds")
	jq -e '.securityContext.privileged == true' <<<"$c" >/dev/null || die "not privileged"
	# The reasons, in the manifest.
	grep -B4 '^      hostNetwork: true' "$MANIFEST" | grep -q 'per network' || die "hostNetwork without its reason"
	grep -B6 '^            privileged: true' "$MANIFEST" | grep -q 'read-only' || die "privileged without its reason"
	expect_eq '["/usr/sbin/numaplace-node"]' "$(jq -c .command <<<"$c")" "the entry point"
	! grep -q 'sleep infinity' "$MANIFEST" || die "sleep infinity"
	# Every mount has its volume; the profile comes from the ConfigMap.
	jq -e --argjson ds "$ds" '[.volumeMounts[].name] - [$ds.spec.template.spec.volumes[].name] == []' <<<"$c" >/dev/null ||
		die "a volumeMount without a volume"
	expect_eq "$(jq -r .metadata.name <<<"$cm")" \
		"$(jq -r '.spec.template.spec.volumes[] | select(.name == "profile") | .configMap.name' <<<"$ds")" "profile volume"
	for path in /host/sys /host/proc /host/var/lib/numaplace /etc/numaplace-profile; do
		jq -e --arg p "$path" '[.volumeMounts[].mountPath] | index($p)' <<<"$c" >/dev/null || die "nothing mounted at $path"
	done
	expect_eq /etc/numaplace-profile/profile.json "$(jq -r '.env[] | select(.name == "PROFILE") | .value' <<<"$c")" "PROFILE"
	# The profile is one numaplace accepts, once a node's CPUs stand in for @HOUSEKEEPING@.
	jq -r '.data["profile.json"]' <<<"$cm" | sed 's/@HOUSEKEEPING@/0-1/' >"$WORK/k8s-profile.json"
	"$NUMAPLACE" profile validate "$WORK/k8s-profile.json" >/dev/null || die "the ConfigMap's profile is invalid"
}

# A copy of the real-time worker and the ConfigMap's profile in $K.
node_setup() {
	K=$WORK/k8s
	rm -rf "$K" && mkdir -p "$K"
	cp -a "$FIXTURES/rt-igb80" "$K/root"
	manifest_json | jq -r 'select(.kind == "ConfigMap") | .data["profile.json"]' >"$K/profile.json"
}

# Starts the entry script in the background; its pid in NODE_PID, its log in $K/log.
node_start() {
	NUMAPLACE=$NUMAPLACE HOST_ROOT=$K/root PROFILE=$K/profile.json RUN_DIR=$K/run RETRY_SECONDS=1 \
		KUBELET_CONFIG=${KUBELET_CONFIG:-$K/root/var/lib/kubelet/config.yaml} sh "$NODE_SH" >"$K/log" 2>&1 &
	NODE_PID=$!
}

# Waits up to 20 s for the log to have a line matching $1.
wait_log() {
	local i
	for i in $(seq 1 100); do
		grep -q -- "$1" "$K/log" && return 0
		sleep 0.2
	done
	cat "$K/log" >&2
	die "no '$1' in the log"
}

test_node_script_holds_and_leaves_applied() {
	node_setup
	node_start
	wait_log 'holding k8s-housekeeping'
	wait_log 'applied k8s-housekeeping'
	grep -q 'housekeeping CPUs: 0-2,40-42 (online 0-79, isolated or nohz_full 3-39,43-79)' "$K/log" ||
		die "housekeeping CPUs not from isolcpus/nohz_full: $(head -3 "$K/log")"
	kill -TERM "$NODE_PID"
	local status=0
	wait "$NODE_PID" || status=$?
	expect_eq 0 "$status" "exit status on SIGTERM"
	wait_log 'stopped; the placements stay applied'
	expect_eq applied "$("$NUMAPLACE" --root "$K/root" history --json | jq -r '.transactions[-1].state')" "the transaction"
	"$NUMAPLACE" --root "$K/root" verify "$K/run/node.json" >/dev/null || die "placements not left applied"
}

test_node_script_takes_the_kubelets_reserved_cpus() {
	node_setup
	mkdir -p "$K/root/var/lib/kubelet"
	printf '%s\n' 'kind: KubeletConfiguration' 'reservedSystemCPUs: "0-1,40"' >"$K/root/var/lib/kubelet/config.yaml"
	node_start
	wait_log 'holding k8s-housekeeping'
	kill -TERM "$NODE_PID"
	wait "$NODE_PID" || true
	grep -q "housekeeping CPUs: the kubelet's reservedSystemCPUs 0-1,40" "$K/log" || die "reserved CPUs not used: $(cat "$K/log")"
	expect_eq '0-1,40' "$(jq -r .app.cpus "$K/run/node.json")" "the profile's CPUs"
}

# A profile that does not fit: logged and waited on, no exit (no crash loop);
# a fixed ConfigMap is then held.
test_node_script_waits_for_a_profile_that_fits() {
	node_setup
	cp "$K/profile.json" "$K/good.json"
	printf '%s\n' '{ "format": "numaplace-profile/1", "name": "elsewhere",' \
		'  "settings": [ { "kind": "irq_affinity", "device": "0000:99:00.0", "vector": "x", "cpus": "@HOUSEKEEPING@" } ] }' \
		>"$K/profile.json"
	node_start
	wait_log 'the profile does not fit this node'
	sleep 2.5
	kill -0 "$NODE_PID" || die "the script exited on a profile that does not fit: $(cat "$K/log")"
	expect_eq 0 "$("$NUMAPLACE" --root "$K/root" history --json | jq '.transactions | length')" "transactions"
	cp "$K/good.json" "$K/profile.json"
	wait_log 'holding k8s-housekeeping'
	kill -TERM "$NODE_PID"
	wait "$NODE_PID" || die "exit status $? on SIGTERM"
}

test_containerfile() {
	local file=$TOP/deploy/Containerfile src
	! grep -v '^#' "$file" | grep -qi python || die "python in the image"
	for src in $(sed -n 's/^COPY \([^-][^ ]*\) .*/\1/p' "$file"); do
		[ -e "$TOP/$src" ] || die "Containerfile copies $src, which is not in the tree"
	done
	grep -qx 'ENTRYPOINT \["/usr/sbin/numaplace-node"\]' "$file" || die "entry point differs from the manifest's command"
	grep -q '^COPY deploy/kubernetes/numaplace-node.sh /usr/sbin/numaplace-node$' "$file" || die "entry script not installed"
}
