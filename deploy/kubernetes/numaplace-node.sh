#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The DaemonSet's entry point (deploy/kubernetes/numaplace.yaml): keeps the
# ConfigMap's profile applied on this node with 'numaplace hold', its
# "@HOUSEKEEPING@" replaced by this node's housekeeping CPUs, taken from the
# node itself: the kubelet's reservedSystemCPUs when its configuration sets
# them (kubeadm's /var/lib/kubelet/config.yaml, or OpenShift's
# /etc/kubernetes/kubelet.conf), else the online CPUs that are neither
# isolated (isolcpus) nor nohz_full. A profile that does not fit the node (a
# device it names is missing, a CPU offline) is logged and waited on, never a
# crash loop: the ConfigMap is read again every RETRY_SECONDS. A hold that
# exits is started again after a back-off, RETRY_SECONDS doubling up to
# RETRY_MAX_SECONDS (at once for a new ConfigMap), the journals its failed
# applies left pruned as apply prunes its own. hold writes its metrics to
# METRICS_FILE (none when empty). SIGTERM stops hold, which leaves the
# placements applied. POSIX sh, awk and jq: no python in the image.
set -u
NUMAPLACE=${NUMAPLACE:-numaplace}
ROOT=${HOST_ROOT:-/host}
PROFILE=${PROFILE:-/etc/numaplace-profile/profile.json}
KUBELET_CONFIG=${KUBELET_CONFIG:-}
RUN=${RUN_DIR:-/run/numaplace}
RETRY=${RETRY_SECONDS:-60}
RETRY_MAX=${RETRY_MAX_SECONDS:-3600}
METRICS_FILE=${METRICS_FILE-}
# CRI-O and the tuned operator own irqbalance's configuration on such nodes.
IRQBALANCE=${IRQBALANCE:-ignore}

log() { echo "numaplace-node: $*" >&2; }

# "0-3,8" -> one CPU a line, and back.
expand() { echo "$1" | tr ',' '\n' | awk -F- 'NF { for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }'; }
compress() {
	sort -un | awk 'function out() { printf "%s%s%s", sep, s, (s == p ? "" : "-" p); sep = "," }
		NR == 1 { s = p = $1; next } $1 == p + 1 { p = $1; next } { out(); s = p = $1 } END { if (NR) out(); print "" }'
}

# The kubelet's configuration file: KUBELET_CONFIG, else kubeadm's, else
# OpenShift's (where kubeadm keeps a kubeconfig of the same name: only a
# KubeletConfiguration counts); nothing when there is none.
kubelet_config() {
	if [ -n "$KUBELET_CONFIG" ]; then
		echo "$KUBELET_CONFIG"
		return
	fi
	for f in "$ROOT/var/lib/kubelet/config.yaml" "$ROOT/etc/kubernetes/kubelet.conf"; do
		if grep -qs KubeletConfiguration "$f"; then
			echo "$f"
			return
		fi
	done
}

# The reservedSystemCPUs of configuration $1: JSON (as OpenShift writes it) or YAML.
reserved_cpus() {
	if jq -e 'type == "object"' "$1" >/dev/null 2>&1; then
		jq -r '.reservedSystemCPUs // empty' "$1"
	else
		sed -n 's/^reservedSystemCPUs:[[:space:]]*["'\'']\{0,1\}\([0-9,-]*\).*/\1/p' "$1" 2>/dev/null | head -n 1
	fi
}

# This node's housekeeping CPUs, and where they came from (on stderr).
housekeeping() {
	topo=$("$NUMAPLACE" --root "$ROOT" topo --json) || return 1
	online=$(echo "$topo" | jq -r '.online')
	conf=$(kubelet_config)
	reserved=
	[ -z "$conf" ] || reserved=$(reserved_cpus "$conf")
	if [ -n "$reserved" ]; then
		log "housekeeping CPUs: the kubelet's reservedSystemCPUs $reserved ($conf)"
		expand "$online" >"$RUN/online"
		expand "$reserved" | grep -Fxf "$RUN/online" | compress
		return 0
	fi
	quiet=$(echo "$topo" | jq -r '[.isolated // "", .nohz_full // ""] | map(select(. != "")) | join(",")')
	expand "$quiet" >"$RUN/quiet"
	quiet=$(compress <"$RUN/quiet")
	hk=$(expand "$online" | grep -vFxf "$RUN/quiet" | compress)
	log "housekeeping CPUs: $hk (online $online, isolated or nohz_full ${quiet:-none})"
	echo "$hk"
}

# Writes $RUN/node.json from the ConfigMap's profile; 0 when it fits this node.
prepare() {
	hk=$(housekeeping) && [ -n "$hk" ] || { log "cannot tell this node's housekeeping CPUs"; return 1; }
	sed "s/@HOUSEKEEPING@/$hk/g" "$PROFILE" >"$RUN/node.json.new" || return 1
	if ! out=$("$NUMAPLACE" --root "$ROOT" apply --dry-run --irqbalance="$IRQBALANCE" "$RUN/node.json.new" 2>&1); then
		log "the profile cannot be applied on this node (numaplace says why below: it does not fit, or a value was changed under an unfinished transaction); waiting for the ConfigMap or the node to change (every ${RETRY}s):"
		echo "$out" | sed 's/^/  /' >&2
		return 1
	fi
	mv "$RUN/node.json.new" "$RUN/node.json"
}

profile_sum() { cksum <"$PROFILE" 2>/dev/null; }

hold=
stop() {
	[ -n "$hold" ] && kill -TERM "$hold" 2>/dev/null && wait "$hold"
	log "stopped; the placements stay applied"
	exit 0
}
trap stop TERM INT

# A sleep SIGTERM interrupts at once.
pause() {
	sleep "$1" &
	wait $! 2>/dev/null
}

# Waits $1 seconds, less when the ConfigMap changes from sum $2.
back_off() {
	waited=0
	while [ "$waited" -lt "$1" ] && [ "$(profile_sum)" = "$2" ]; do
		pause "$RETRY"
		waited=$((waited + RETRY))
	done
}

mkdir -p "$RUN"
backoff=$RETRY
while :; do
	sum=$(profile_sum)
	if [ -z "$hold" ]; then
		if prepare; then
			"$NUMAPLACE" --root "$ROOT" hold --irqbalance="$IRQBALANCE" ${METRICS_FILE:+--metrics "$METRICS_FILE"} \
				"$RUN/node.json" &
			hold=$!
			started=$(date +%s)
			log "holding $(jq -r .name "$RUN/node.json") (pid $hold)"
		fi
	fi
	pause "$RETRY"
	if [ -n "$hold" ] && ! kill -0 "$hold" 2>/dev/null; then
		wait "$hold"
		status=$?
		hold=
		# One that held longer than its back-off was not failing to start.
		[ $(($(date +%s) - started)) -le "$backoff" ] || backoff=$RETRY
		# A first apply that failed left a rolled-back journal: as many as
		# apply keeps, not one more per retry.
		"$NUMAPLACE" --root "$ROOT" history --prune >/dev/null 2>&1 || true
		log "hold exited with status $status; trying again in ${backoff}s"
		back_off "$backoff" "$sum"
		if [ "$(profile_sum)" != "$sum" ]; then
			backoff=$RETRY
		else
			backoff=$((backoff * 2 > RETRY_MAX ? RETRY_MAX : backoff * 2))
		fi
	elif [ -n "$hold" ] && [ "$(profile_sum)" != "$sum" ]; then
		# A new ConfigMap: hold re-reads its profile on SIGHUP, if it fits.
		prepare && kill -HUP "$hold" && log "the ConfigMap changed: profile reloaded"
	fi
done
