# SPDX-License-Identifier: GPL-2.0-or-later
# report --svg tells what the report tells: on the real-time worker
# (rt-igb80: isolcpus and nohz_full 3-39,43-79, igb queues on isolated CPUs),
# rendered with rsvg-convert as a viewer would.

# Expands a CPU list ("3-5,8") to one number a line.
cpu_lines() {
	tr ',' '\n' <<<"$1" | awk -F- 'NF { for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }'
}

svg_of() {
	local svg="$WORK/$1.svg"
	"$NUMAPLACE" --root "$FIXTURES/$1" report --svg "$svg" >/dev/null || die "report --svg failed on $1"
	xmllint --noout "$svg" || die "$1: not well-formed XML"
	printf '%s' "$svg"
}

test_svg_rt_worker_marks_isolated_cpus() {
	command -v rsvg-convert >/dev/null || skip_test "rsvg-convert (librsvg2-bin) not installed"
	local svg png want got
	svg=$(svg_of rt-igb80)
	# It renders, at the size it says.
	png="$WORK/rt-igb80.png"
	rsvg-convert -o "$png" "$svg" || die "rsvg-convert cannot render it"
	local size
	size=$(sed -n 's/^<svg [^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1x\2/p' "$svg")
	[[ $(file "$png") == *", ${size/x/ x },"* ]] || die "rendered $(file "$png"), the SVG says $size"
	# A mark per CPU, and the isolated ones exactly those the kernel isolates.
	expect_eq 80 "$(grep -c '<rect class="cpu' "$svg")" "CPU marks"
	want=$(cpu_lines "$("$NUMAPLACE" --root "$FIXTURES/rt-igb80" topo -J | jq -r .isolated)")
	got=$(sed -n 's/.*<rect class="cpu isolated[^"]*" data-cpu="\([0-9]*\)".*/\1/p' "$svg" | sort -n)
	expect_eq "$want" "$got" "isolated CPU marks"
	# Named in their node's box.
	grep -q '<text class="isolated-cpus" [^>]*>isolated CPUs 3-19,43-59 (34)</text>' "$svg" || die "node 0's isolated CPUs not named"
	# The ones interrupts ran on: those where the report says eno1's queues ran.
	want=$(cpu_lines "$("$NUMAPLACE" --root "$FIXTURES/rt-igb80" report -J |
		jq -r '.findings[] | select(.kind == "irq_on_isolated_cpus" and .device == "0000:03:00.0") | .cpus')")
	got=$(sed -n 's/.*<rect class="cpu isolated interrupted" data-cpu="\([0-9]*\)".*/\1/p' "$svg" | sort -n)
	[ -n "$want" ] || die "the report has no isolated-CPU finding for eno1"
	for c in $want; do grep -qx "$c" <<<"$got" || die "CPU $c ran eno1's interrupts but is not marked: $got"; done
	# Those interrupts drawn as the problem, not as a local green arrow.
	grep -q '<path class="irq-flow isolated" data-device="0000:03:00.0" data-node="0" data-interrupts="4757331"' "$svg" ||
		die "eno1's interrupts on isolated CPUs not drawn as such"
	! grep -q '<path class="irq-flow" data-device="0000:03:00.0" data-node="0" data-interrupts="47' "$svg" ||
		die "eno1's interrupts on isolated CPUs drawn green"
	# Every device the report's summary warns about is outlined as warned.
	want=$("$NUMAPLACE" --root "$FIXTURES/rt-igb80" report -J |
		jq -r '[.findings[] | select(.severity == "warning" and .minor == false and .device != null) | .device] | unique | .[]')
	got=$(sed -n 's/^<g class="device warned" data-device="\([^"]*\)".*/\1/p' "$svg" | sort -u)
	expect_eq "$want" "$got" "devices outlined as warned"
}

# Managed per-CPU queues run on every node on purpose: drawn local (dashed
# green), never red, as the report never calls them remote.
test_svg_managed_queues_drawn_local() {
	local svg
	svg=$(svg_of wide112)
	grep -q '<path class="irq-flow managed" data-device="0000:01:00.0" data-node="1"' "$svg" ||
		die "nvme's managed queues on node 1 not drawn as managed"
	! grep -q '<path class="irq-flow remote" data-device="0000:01:00.0"' "$svg" || die "nvme's managed queues drawn remote"
	grep -q 'irq-flow managed.* stroke="#2ca02c"' "$svg" || die "managed flows not green"
}

# The canvas holds its text: the title is not clipped at the width of two nodes.
test_svg_canvas_holds_title() {
	local svg width title
	svg=$(svg_of rt-igb80)
	width=$(sed -n 's/^<svg [^>]* width="\([0-9]*\)".*/\1/p' "$svg")
	title=$(sed -n 's/^<text x="40" y="30" [^>]*>\(.*\)<\/text>$/\1/p' "$svg")
	[ -n "$title" ] || die "no title"
	# 16px bold DejaVu Sans is under 0.6 em a character.
	[ "$width" -ge $((40 + ${#title} * 16 * 6 / 10)) ] || die "canvas $width px for a title of ${#title} characters"
}
