#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The DaemonSet's entry point (deploy/kubernetes/numaplace.yaml): keeps the
# ConfigMap's profile applied on this node with 'numaplace hold', its
# "@HOUSEKEEPING@" replaced by this node's housekeeping CPUs, taken from the
# node itself: the kubelet's reservedSystemCPUs when its configuration sets
# them, else the online CPUs that are neither isolated (isolcpus) nor
# nohz_full. A profile that does not fit the node (a device it names is
# missing, a CPU offline) is logged and waited on, never a crash loop:
# the ConfigMap is read again every RETRY_SECONDS. SIGTERM stops hold, which
# leaves the placements applied. POSIX sh, awk and jq: no python in the image.
set -u
NUMAPLACE=${NUMAPLACE:-numaplace}
ROOT=${HOST_ROOT:-/host}
PROFILE=${PROFILE:-/etc/numaplace-profile/profile.json}
KUBELET_CONFIG=${KUBELET_CONFIG:-$ROOT/var/lib/kubelet/config.yaml}
RUN=${RUN_DIR:-/run/numaplace}
RETRY=${RETRY_SECONDS:-60}
# CRI-O and the tuned operator own irqbalance's configuration on such nodes.
IRQBALANCE=${IRQBALANCE:-ignore}

log() { echo "numaplace-node: $*" >&2; }

# "0-3,8" -> one CPU a line, and back.
expand() { echo "$1" | tr ',' '\n' | awk -F- 'NF { for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }'; }
compress() {
	sort -un | awk 'function out() { printf "%s%s%s", sep, s, (s == p ? "" : "-" p); sep = "," }
		NR == 1 { s = p = $1; next } $1 == p + 1 { p = $1; next } { out(); s = p = $1 } END { if (NR) out(); print "" }'
}

# This node's housekeeping CPUs, and where they came from (on stderr).
housekeeping() {
	topo=$("$NUMAPLACE" --root "$ROOT" topo --json) || return 1
	online=$(echo "$topo" | jq -r '.online')
	reserved=$(sed -n 's/^reservedSystemCPUs:[[:space:]]*["'\'']\{0,1\}\([0-9,-]*\).*/\1/p' "$KUBELET_CONFIG" 2>/dev/null | head -n 1)
	if [ -n "$reserved" ]; then
		log "housekeeping CPUs: the kubelet's reservedSystemCPUs $reserved ($KUBELET_CONFIG)"
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
		log "the profile does not fit this node; waiting for the ConfigMap or the node to change (every ${RETRY}s):"
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

mkdir -p "$RUN"
while :; do
	sum=$(profile_sum)
	if [ -z "$hold" ]; then
		if prepare; then
			"$NUMAPLACE" --root "$ROOT" hold --irqbalance="$IRQBALANCE" "$RUN/node.json" &
			hold=$!
			log "holding $(jq -r .name "$RUN/node.json") (pid $hold)"
		fi
	fi
	pause "$RETRY"
	if [ -n "$hold" ] && ! kill -0 "$hold" 2>/dev/null; then
		wait "$hold"
		log "hold exited with status $?; trying again"
		hold=
	elif [ -n "$hold" ] && [ "$(profile_sum)" != "$sum" ]; then
		# A new ConfigMap: hold re-reads its profile on SIGHUP, if it fits.
		prepare && kill -HUP "$hold" && log "the ConfigMap changed: profile reloaded"
	fi
done
