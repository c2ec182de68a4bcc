# SPDX-License-Identifier: GPL-2.0-or-later
# (d) a real-time worker: 2 nodes x 4 CPUs with CPUs 2-3 and 6-7 isolated
# (isolcpus=managed_irq,domain) and tickless (nohz_full); virtio-net on node 0,
# NVMe on node 1.
LAYOUT_BUDGET=300
LAYOUT_APPEND="isolcpus=managed_irq,domain,2-3,6-7 nohz_full=2-3,6-7"
TAP_QUEUES=4
LAYOUT_TESTS="snapshot report_agrees isolated_kept_free"
LAYOUT_ARGS=(
	-machine q35 -m 768M
	-smp 8,sockets=2,cores=4
	-object memory-backend-ram,id=m0,size=384M -numa node,nodeid=0,cpus=0-3,memdev=m0
	-object memory-backend-ram,id=m1,size=384M -numa node,nodeid=1,cpus=4-7,memdev=m1
	-device pxb-pcie,id=pxb0,bus_nr=32,numa_node=0,bus=pcie.0
	-device pcie-root-port,id=rp0,bus=pxb0,chassis=1
	-device pxb-pcie,id=pxb1,bus_nr=64,numa_node=1,bus=pcie.0
	-device pcie-root-port,id=rp1,bus=pxb1,chassis=2
	-netdev tap,id=net0,ifname=$TAP,script=no,downscript=no,queues=$TAP_QUEUES,vhost=off
	-device virtio-net-pci,id=nic0,netdev=net0,bus=rp0,mq=on,vectors=10,romfile=
	-blockdev driver=raw,node-name=disk0,file.driver=file,file.filename=$DISK
	-device nvme,id=nvme0,drive=disk0,serial=vmnvme0,bus=rp1
)
