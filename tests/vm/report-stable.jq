# SPDX-License-Identifier: GPL-2.0-or-later
# report --json without what changes while a machine runs or what a snapshot
# leaves out: interrupt counts and what is worked out from them alone (shares,
# finding texts), the host name and the boot id. What is left (devices,
# queues, IRQs and their CPUs, topology, the kinds and subjects of the
# findings) must be the same from the kernel or from its snapshot.
del(.boot_id, .hostname) | walk(if type == "object" then
	del(.total, .per_node, .per_sec, .remote_share, .ran_on, .interrupts, .interrupts_per_cpu, .irqs_remote, .irq_time_share,
	    .local, .remote, .isolated, .exclusive, .message) else . end)
