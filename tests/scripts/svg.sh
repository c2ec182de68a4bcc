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

# Arrows run beside the boxes, never over other ones (on the real-time
# worker they left each box at its left edge and crossed the boxes above),
# and the legend ends above the node boxes. Each arrow is followed along its
# path, as wide as it is drawn.
test_svg_arrows_pass_beside_the_boxes() {
	local f svg
	for f in rt-igb80 gpu8 r715 wide112 pxb2; do
		svg=$(svg_of "$f")
		python3 - "$svg" >"$WORK/svg-check.log" 2>&1 <<'PY' || die "$f: $(tail -3 "$WORK/svg-check.log")"
import re, sys
svg = open(sys.argv[1]).read()
devices = {m[0]: tuple(map(int, m[1:])) for m in re.findall(
    r'<g class="device[^"]*" data-device="([^"]*)">\n(?: <title>.*</title>\n)? <rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"', svg)}
nodes = [int(y) for y in re.findall(r'<g class="node" data-node="\d+">\n <rect x="\d+" y="(\d+)"', svg)]
paths = re.findall(r'<path class="irq-flow[^"]*" data-device="([^"]*)"[^>]* d="([^"]*)"[^>]* stroke-width="([\d.]+)"', svg)
if not devices or not nodes or not paths:
    sys.exit('no device boxes, node boxes or arrows found')

def points(d):
    """The path's points, a cubic in 50 steps (the commands numaplace writes: M, H, V, C)."""
    x = y = 0.0
    for cmd, args in re.findall(r'([MHVC])([^MHVC]*)', d):
        v = [float(a) for a in re.findall(r'-?[\d.]+', args)]
        if cmd == 'M':
            x, y = v
            yield x, y
        elif cmd in 'HV':
            end = v[0]
            for k in range(1, 51):
                yield (x + (end - x) * k / 50, y) if cmd == 'H' else (x, y + (end - y) * k / 50)
            x, y = (end, y) if cmd == 'H' else (x, end)
        else:
            (x1, y1, x2, y2, x3, y3) = v
            for k in range(1, 51):
                t = k / 50
                a, b, c, e = (1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t ** 2, t ** 3
                yield a * x + b * x1 + c * x2 + e * x3, a * y + b * y1 + c * y2 + e * y3
            x, y = x3, y3

for dev, d, width in paths:
    half = float(width) / 2
    for px, py in points(d):
        for other, (x, y, w, h) in devices.items():
            if other != dev and x - half < px < x + w + half and y - half < py < y + h + half:
                sys.exit(f'the arrow of {dev} runs over the box of {other} at {px:.0f},{py:.0f}')
legend = max(int(y) for y in re.findall(r'<text class="legend" x="\d+" y="(\d+)"', svg))
if legend + 8 > min(nodes):
    sys.exit(f'the legend (its last line at y={legend}) runs into the node boxes (y={min(nodes)})')
PY
	done
}
