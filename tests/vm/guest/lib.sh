# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the guest tests (sourced by runner.sh before tests.sh).

die() { echo "$*" >&2; exit 1; }
note() { echo "@note $*"; }
expect_eq() { [ "$1" == "$2" ] || die "${3:-values differ}: expected '$1', got '$2'"; }
NP=/sbin/numaplace
STATE=/tmp/np-state

# wait_for SECONDS WHAT CMD...: CMD until it succeeds, for SECONDS at most.
wait_for() {
	local secs=$1 what=$2 end
	shift 2
	end=$(($(date +%s) + secs))
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || die "$what: not within $secs s"
		sleep 0.2
	done
}

# Milliseconds since START (an $EPOCHREALTIME).
ms_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }'; }

# The PCI function bound to DRIVER (virtio-pci for virtio devices, whose
# child virtioN holds the class driver): the first one found.
pci_of_driver() {
	local d
	for d in /sys/bus/pci/drivers/"$1"/0000:*; do
		[ -e "$d" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}
# The interface a driver (virtio_net, e1000e) made.
net_of_driver() {
	local n drv
	for n in /sys/class/net/*; do
		drv=$(readlink "$n/device/driver" 2>/dev/null) || continue
		[ "${drv##*/}" = "$1" ] && { echo "${n##*/}"; return 0; }
	done
	return 1
}
# The IRQ numbers whose action name matches the extended regex, in order.
irqs_named() { awk -v re="$1" '$1 ~ /^[0-9]+:$/ && $NF ~ re { sub(":", "", $1); print $1 }' /proc/interrupts; }
# The count of IRQ N on all CPUs together.
irq_count() {
	awk -v n="$1:" '$1 == n { s = 0; for (i = 2; i <= NF; i++) { if ($i !~ /^[0-9]+$/) break; s += $i }; print s }' /proc/interrupts
}
cpus_of_node() { cat "/sys/devices/system/node/node$1/cpulist"; }
# The virtio NIC's PCI function (its interface's device is the virtio device
# under it) and that function's node.
net_pci() { basename "$(readlink -f "/sys/class/net/$VNET/device/..")"; }
net_node() { cat "/sys/bus/pci/devices/$(net_pci)/numa_node"; }
# A CPU of the NIC's node other than CPU $1 (the one an IRQ is on now).
other_local_cpu() {
	local node c
	node=$(net_node)
	for c in $(expand_cpus "$(cpus_of_node "$node")"); do
		[ "$c" = "$1" ] || { echo "$c"; return 0; }
	done
	return 1
}
# A CPU list (0-2,5) as its CPUs, one a word.
expand_cpus() {
	local r
	for r in ${1//,/ }; do
		case $r in
		*-*) seq "${r%-*}" "${r#*-}" ;;
		*) echo "$r" ;;
		esac
	done
}

# The guest's side of the layout's network: the virtio NIC, 10.77.0.2, facing
# the host's tap (10.77.0.1) inside the layout's own network namespace.
guest_setup() {
	ip link set lo up
	# e1000e requests its IRQs when its interface goes up.
	ENET=$(net_of_driver e1000e) && ip link set "$ENET" up
	NVME_DISK=$(ls /sys/block | grep -m1 '^nvme') || true
	VNET=$(net_of_driver virtio_net) || return 0
	ip addr add 10.77.0.2/24 dev "$VNET"
	ip link set "$VNET" up
}
