# SPDX-License-Identifier: GPL-2.0-or-later
# (a) 4 nodes x 2 CPUs; virtio-net with 4 queue pairs on node 2, NVMe on node 3,
# e1000e on node 0; no interrupt remapping (q35 without a vIOMMU), so an MSI's
# new affinity waits for its next interrupt.
# A layout is the QEMU command line (LAYOUT_ARGS) with the tests that its
# guest holds (LAYOUT_TESTS, tests/vm/guest/tests.sh), the kernel command line
# it adds (LAYOUT_APPEND) and its time budget in seconds, boot included.
# tests/vm/run.sh sets $TAP (a multi-queue tap in the layout's own network
# namespace, with $TAP_QUEUES queues), $DISK (a raw file for the NVMe) and $RUN.
LAYOUT_BUDGET=480
LAYOUT_APPEND=
TAP_QUEUES=4
LAYOUT_TESTS="snapshot report_agrees advise_agrees apply_verify_revert managed_refused kill9_revert deferred_move channels run_near move_memory trial hold_rebind hold_hotplug"
LAYOUT_ARGS=(
	-machine q35 -m 1G
	-smp 8,sockets=4,cores=2
	-object memory-backend-ram,id=m0,size=256M -numa node,nodeid=0,cpus=0-1,memdev=m0
	-object memory-backend-ram,id=m1,size=256M -numa node,nodeid=1,cpus=2-3,memdev=m1
	-object memory-backend-ram,id=m2,size=256M -numa node,nodeid=2,cpus=4-5,memdev=m2
	-object memory-backend-ram,id=m3,size=256M -numa node,nodeid=3,cpus=6-7,memdev=m3
	# Each device sits behind a root port of an expander bridge on its node.
	-device pxb-pcie,id=pxb0,bus_nr=32,numa_node=0,bus=pcie.0
	-device pcie-root-port,id=rp0,bus=pxb0,chassis=1
	-device pxb-pcie,id=pxb2,bus_nr=64,numa_node=2,bus=pcie.0
	-device pcie-root-port,id=rp2,bus=pxb2,chassis=2
	-device pxb-pcie,id=pxb3,bus_nr=128,numa_node=3,bus=pcie.0
	-device pcie-root-port,id=rp3,bus=pxb3,chassis=3
	-netdev tap,id=net0,ifname=$TAP,script=no,downscript=no,queues=$TAP_QUEUES,vhost=off
	-device virtio-net-pci,id=nic0,netdev=net0,bus=rp2,mq=on,vectors=10,romfile=
	# e1000e's backend is QEMU's user network, restricted: no way out of the guest.
	-netdev user,id=net1,restrict=on
	-device e1000e,id=nic1,netdev=net1,bus=rp0,romfile=
	# -blockdev, not -drive: a -drive goes with its device when that is unplugged.
	-blockdev driver=raw,node-name=disk0,file.driver=file,file.filename=$DISK
	-device nvme,id=nvme0,drive=disk0,serial=vmnvme0,bus=rp3
)
