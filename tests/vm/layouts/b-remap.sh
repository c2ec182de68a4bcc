# SPDX-License-Identifier: GPL-2.0-or-later
# (b) layout (a) with interrupt remapping: a vIOMMU (intel-iommu, intremap=on;
# it needs the split irqchip), so an MSI moves as soon as its affinity is
# written (the chip column reads IR-PCI-MSI).
source "${BASH_SOURCE[0]%/*}/a-numa4.sh"
LAYOUT_BUDGET=240
# iommu=pt: interrupt remapping without translating the devices' DMA.
LAYOUT_APPEND="intremap=on iommu=pt"
LAYOUT_TESTS="snapshot report_agrees immediate_move apply_verify_revert managed_refused"
LAYOUT_ARGS=("${LAYOUT_ARGS[@]/#q35/q35,kernel-irqchip=split}")
# The IOMMU comes before the devices it remaps.
LAYOUT_ARGS=(-device intel-iommu,intremap=on "${LAYOUT_ARGS[@]}")
