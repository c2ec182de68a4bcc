# SPDX-License-Identifier: GPL-2.0-or-later
# (e) a cloud VM: one node (no NUMA in the firmware), 8 CPUs, virtio-net with 4
# queue pairs and an NVMe on the root bus. advise_apply first puts every NIC
# queue on CPU 0, as some cloud images leave them.
LAYOUT_BUDGET=300
LAYOUT_APPEND=
TAP_QUEUES=4
LAYOUT_TESTS="snapshot report_agrees advise_apply"
LAYOUT_ARGS=(
	-machine q35 -m 768M
	-smp 8
	-netdev tap,id=net0,ifname=$TAP,script=no,downscript=no,queues=$TAP_QUEUES,vhost=off
	-device virtio-net-pci,id=nic0,netdev=net0,mq=on,vectors=10,romfile=
	-blockdev driver=raw,node-name=disk0,file.driver=file,file.filename=$DISK
	-device nvme,id=nvme0,drive=disk0,serial=vmnvme0
)
