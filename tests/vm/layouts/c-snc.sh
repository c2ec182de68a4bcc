# SPDX-License-Identifier: GPL-2.0-or-later
# (c) 2 sockets x 2 sub-NUMA nodes (SNC-like distances: 12 inside a socket, 21
# across) and a memory-only node 4 (CXL-like: memory, no CPUs; 17 from socket 0,
# 28 from socket 1). virtio-net on node 1, NVMe on node 2, e1000e on the
# memory-only node.
LAYOUT_BUDGET=240
LAYOUT_APPEND=
TAP_QUEUES=4
LAYOUT_TESTS="snapshot report_agrees advise_agrees cpuless_nearest run_near move_memory"
LAYOUT_ARGS=(
	-machine q35 -m 1280M
	-smp 8,sockets=2,cores=4
	-object memory-backend-ram,id=m0,size=256M -numa node,nodeid=0,cpus=0-1,memdev=m0
	-object memory-backend-ram,id=m1,size=256M -numa node,nodeid=1,cpus=2-3,memdev=m1
	-object memory-backend-ram,id=m2,size=256M -numa node,nodeid=2,cpus=4-5,memdev=m2
	-object memory-backend-ram,id=m3,size=256M -numa node,nodeid=3,cpus=6-7,memdev=m3
	-object memory-backend-ram,id=m4,size=256M -numa node,nodeid=4,memdev=m4
	-numa dist,src=0,dst=1,val=12 -numa dist,src=2,dst=3,val=12
	-numa dist,src=0,dst=2,val=21 -numa dist,src=0,dst=3,val=21
	-numa dist,src=1,dst=2,val=21 -numa dist,src=1,dst=3,val=21
	-numa dist,src=0,dst=4,val=17 -numa dist,src=1,dst=4,val=17
	-numa dist,src=2,dst=4,val=28 -numa dist,src=3,dst=4,val=28
	-device pxb-pcie,id=pxb1,bus_nr=32,numa_node=1,bus=pcie.0
	-device pcie-root-port,id=rp1,bus=pxb1,chassis=1
	-device pxb-pcie,id=pxb2,bus_nr=64,numa_node=2,bus=pcie.0
	-device pcie-root-port,id=rp2,bus=pxb2,chassis=2
	-device pxb-pcie,id=pxb4,bus_nr=128,numa_node=4,bus=pcie.0
	-device pcie-root-port,id=rp4,bus=pxb4,chassis=4
	-netdev tap,id=net0,ifname=$TAP,script=no,downscript=no,queues=$TAP_QUEUES,vhost=off
	-device virtio-net-pci,id=nic0,netdev=net0,bus=rp1,mq=on,vectors=10,romfile=
	-netdev user,id=net1,restrict=on
	-device e1000e,id=nic1,netdev=net1,bus=rp4,romfile=
	-blockdev driver=raw,node-name=disk0,file.driver=file,file.filename=$DISK
	-device nvme,id=nvme0,drive=disk0,serial=vmnvme0,bus=rp2
)
