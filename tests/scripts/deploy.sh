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
	# No token: numaplace talks to no API server.
	expect_eq false "$(jq '.spec.template.spec.automountServiceAccountToken' <<<"$ds")" "automountServiceAccountToken"
	# The kubelet's directory, read-only, as a directory: the kubelet replaces
	# cpu_manager_state by rename, so a mount of the file goes stale; and the
	# node's /etc for OpenShift's kubelet.conf. Each must exist on the node:
	# nothing is created there.
	local name mount_path host_path
	while read -r name mount_path host_path; do
		expect_eq "$mount_path" "$(jq -r --arg n "$name" '.volumeMounts[] | select(.name == $n) | .mountPath' <<<"$c")" \
			"the mount of volume $name"
		expect_eq true "$(jq -r --arg n "$name" '.volumeMounts[] | select(.name == $n) | .readOnly' <<<"$c")" \
			"volume $name read-only"
		expect_eq "$host_path Directory" "$(jq -r --arg n "$name" \
			'.spec.template.spec.volumes[] | select(.name == $n) | "\(.hostPath.path) \(.hostPath.type)"' <<<"$ds")" \
			"the host path of volume $name"
	done <<-'EOF'
	kubelet /host/var/lib/kubelet /var/lib/kubelet
	etc /host/etc /etc
	EOF
	! jq -e '[.spec.template.spec.volumes[] | .hostPath.type // empty] | index("FileOrCreate")' <<<"$ds" >/dev/null ||
		die "a hostPath volume creates a file on the node (FileOrCreate)"
	! jq -e '[.volumeMounts[].mountPath | select(startswith("/host/var/lib/kubelet/"))] | length > 0' <<<"$c" >/dev/null ||
		die "a file of the kubelet's directory is mounted on its own"
	# The metrics go where node_exporter's textfile collector reads: the
	# hostPath the manifest and deploy/monitoring document.
	local textfile metrics
	textfile=$(jq -r '.spec.template.spec.volumes[] | select(.name == "textfile") | .hostPath.path' <<<"$ds")
	expect_eq /var/lib/node_exporter/textfile_collector "$textfile" "the textfile volume's host path"
	metrics=$(jq -r '.env[] | select(.name == "METRICS_FILE") | .value' <<<"$c")
	expect_eq "$(jq -r '.volumeMounts[] | select(.name == "textfile") | .mountPath' <<<"$c")/numaplace.prom" "$metrics" \
		"METRICS_FILE in the textfile volume"
	grep -q -- "--collector.textfile.directory=$textfile" "$MANIFEST" || die "the manifest does not document $textfile"
	grep -q -- "$textfile/numaplace.prom" "$TOP/deploy/monitoring/README.md" || die "deploy/monitoring does not name $textfile"
	for name in RETRY_SECONDS RETRY_MAX_SECONDS; do
		jq -e --arg n "$name" '.env[] | select(.name == $n) | .value | tonumber > 0' <<<"$c" >/dev/null ||
			die "no $name"
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
		RETRY_MAX_SECONDS=${RETRY_MAX_SECONDS:-4} METRICS_FILE=${METRICS_FILE:-} sh "$NODE_SH" >"$K/log" 2>&1 &
	NODE_PID=$!
	# A test that fails leaves neither the script nor its hold running.
	trap 'kill -TERM "$NODE_PID" 2>/dev/null || true; wait "$NODE_PID" 2>/dev/null || true; ${NODE_CLEANUP:-true}' EXIT
}

# Stops it as the kubelet does (SIGTERM), and waits.
node_stop() {
	kill -TERM "$NODE_PID"
	wait "$NODE_PID" || die "exit status $? on SIGTERM"
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

# wait_log_times N TEXT: until TEXT is in the log N times (10 s at most).
wait_log_times() {
	local i
	for i in $(seq 1 50); do
		[ "$(grep -c -- "$2" "$K/log")" -ge "$1" ] && return 0
		sleep 0.2
	done
	cat "$K/log" >&2
	die "'$2' not $1 times in the log"
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
	# Said again at the next read of the ConfigMap (every second here): the script waits, alive.
	wait_log_times 2 'the profile cannot be applied on this node'
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

# "0-2,40" -> 0 1 2 40.
cpu_list() { tr ',' '\n' <<<"$1" | awk -F- 'NF { for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }'; }

# How many IRQ affinities transaction $1 (of $K/root) wrote that take a CPU of list $2.
irqs_on() {
	local cpus n=0 list
	cpus=$(cpu_list "$2")
	for list in $("$NUMAPLACE" --root "$K/root" history --json "$1" |
		jq -r '.transaction.changes[] | select(.path | startswith("/proc/irq/")) | .new'); do
		grep -qxFf <(cpu_list "$list") <<<"$cpus" && n=$((n + 1))
	done
	echo "$n"
}

# The entry script on a copy of the real-time worker whose kubelet gives a
# Guaranteed pod CPUs 2 and 42 (housekeeping CPUs, neither isolated nor
# reserved): numaplace reads the state file under the root, as the pod
# reads the node's through its /var/lib/kubelet mount, and no IRQ goes there;
# without the file some do (the DaemonSet that mounted config.yaml alone).
test_node_script_keeps_irqs_off_a_pods_exclusive_cpus() {
	local with without
	for state in with without; do
		node_setup
		if [ "$state" = with ]; then
			mkdir -p "$K/root/var/lib/kubelet"
			printf '%s\n' '{"policyName":"static","defaultCpuSet":"0-1,3-41,43-79","entries":{"5d3c1a7e-0b2f-4e8a-9c61-2f7d8e9a0b1c":{"app":"2,42"}},"checksum":1}' \
				>"$K/root/var/lib/kubelet/cpu_manager_state"
		fi
		node_start
		wait_log 'applied k8s-housekeeping'
		node_stop
		local id
		id=$("$NUMAPLACE" --root "$K/root" history --json | jq -r '.transactions[-1].id')
		if [ "$state" = with ]; then with=$(irqs_on "$id" 2,42); else without=$(irqs_on "$id" 2,42); fi
	done
	expect_eq 0 "$with" "IRQs placed on the pod's CPUs 2 and 42 with the kubelet's state there"
	[ "$without" -gt 0 ] || die "without the state file no IRQ went to CPUs 2 and 42 either: the test tells nothing"
}

# The kubelet's configuration in OpenShift's layout (/etc/kubernetes/kubelet.conf, JSON)
# and kubeadm's kubeconfig of the same name, which is not one.
test_node_script_finds_the_kubelet_config_on_openshift_and_kubeadm() {
	node_setup
	mkdir -p "$K/root/etc/kubernetes"
	printf '%s\n' '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","reservedSystemCPUs":"0-1,40"}' \
		>"$K/root/etc/kubernetes/kubelet.conf"
	node_start
	wait_log 'holding k8s-housekeeping'
	node_stop
	grep -q "housekeeping CPUs: the kubelet's reservedSystemCPUs 0-1,40 ($K/root/etc/kubernetes/kubelet.conf)" "$K/log" ||
		die "OpenShift's kubelet.conf not read: $(head -3 "$K/log")"
	# kubeadm: config.yaml, and a kubeconfig named kubelet.conf beside it.
	node_setup
	mkdir -p "$K/root/etc/kubernetes" "$K/root/var/lib/kubelet"
	printf '%s\n' 'apiVersion: v1' 'kind: Config' 'reservedSystemCPUs: "7"' >"$K/root/etc/kubernetes/kubelet.conf"
	printf '%s\n' 'apiVersion: kubelet.config.k8s.io/v1beta1' 'kind: KubeletConfiguration' "reservedSystemCPUs: '0,40'" \
		>"$K/root/var/lib/kubelet/config.yaml"
	node_start
	wait_log 'holding k8s-housekeeping'
	node_stop
	grep -q "housekeeping CPUs: the kubelet's reservedSystemCPUs 0,40 ($K/root/var/lib/kubelet/config.yaml)" "$K/log" ||
		die "kubeadm's config.yaml not read: $(head -3 "$K/log")"
	# Neither: isolcpus and nohz_full tell.
	node_setup
	mkdir -p "$K/root/etc/kubernetes"
	printf '%s\n' 'apiVersion: v1' 'kind: Config' >"$K/root/etc/kubernetes/kubelet.conf"
	node_start
	wait_log 'holding k8s-housekeeping'
	node_stop
	grep -q 'housekeeping CPUs: 0-2,40-42 (online' "$K/log" || die "a kubeconfig taken for the kubelet's configuration: $(head -3 "$K/log")"
}

# A hold that fails (its first apply refused: a file the kernel would not
# take) is started again after a back-off that doubles, each failure's
# rolled-back journal pruned as apply prunes, no transaction left pending or
# applied.
test_node_script_backs_off_a_failing_hold() {
	command -v chattr >/dev/null || skip_test "no chattr(1) to make a file the apply cannot write"
	node_setup
	local path
	sed 's/@HOUSEKEEPING@/0-2,40-42/' "$K/profile.json" >"$K/p.json"
	path=$("$NUMAPLACE" --root "$K/root" apply --dry-run --json --irqbalance=ignore "$K/p.json" |
		jq -r '[.changes[] | select(.change) | .path][0]')
	[ -n "$path" ] && [ "$path" != null ] || die "no change to refuse"
	chattr +i "$K/root$path" 2>/dev/null || skip_test "chattr +i is not supported here"
	NODE_CLEANUP="chattr -i $K/root$path"
	RETRY_MAX_SECONDS=4 node_start
	wait_log 'trying again in 4s'
	node_stop
	chattr -i "$K/root$path"
	local waits
	waits=$(sed -n 's/.*hold exited with status 1; trying again in \([0-9]*\)s$/\1/p' "$K/log" | paste -sd ' ')
	[[ $waits == "1 2 4"* ]] || die "no back-off: the waits were '$waits': $(cat "$K/log")"
	[[ $waits != *8* ]] || die "the back-off went past RETRY_MAX_SECONDS: $waits"
	expect_eq 0 "$("$NUMAPLACE" --root "$K/root" history --json |
		jq '[.transactions[] | select(.state == "pending" or .state == "applied")] | length')" \
		"transactions left pending or applied"
}

# hold writes its metrics to METRICS_FILE, for node_exporter's textfile collector.
test_node_script_writes_the_metrics() {
	command -v promtool >/dev/null || skip_test "promtool not installed"
	node_setup
	mkdir -p "$K/textfile"
	METRICS_FILE=$K/textfile/numaplace.prom node_start
	wait_log 'applied k8s-housekeeping'
	local i
	for i in $(seq 100); do
		[ -s "$K/textfile/numaplace.prom" ] && break
		sleep 0.1
	done
	node_stop
	grep -q '^numaplace_profile_applied{profile="k8s-housekeeping"} 1$' "$K/textfile/numaplace.prom" ||
		die "no metrics in METRICS_FILE: $(head -3 "$K/textfile/numaplace.prom" 2>&1)"
	promtool check metrics <"$K/textfile/numaplace.prom" >/dev/null 2>&1 || die "promtool rejects the metrics"
}
