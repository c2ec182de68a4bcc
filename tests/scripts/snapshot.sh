# SPDX-License-Identifier: GPL-2.0-or-later
# snapshot: a copy of the files numaplace reads reports like the machine it
# was taken from (fixture roots, an archive of one, this machine), holds only
# those files, and never mixes two machines in one directory.

# The fixture roots with something to copy; bad/ holds broken roots on purpose.
snapshot_fixtures() {
	local root
	for root in "$FIXTURES"/*/; do
		root=${root%/}
		[ "${root##*/}" = bad ] && continue
		[ -d "$root/sys/bus/pci" ] || [ -d "$root/sys/devices/system/cpu" ] || continue
		printf '%s\n' "$root"
	done
}

# take_snapshot ROOT OUT: ROOT "" is this machine; checks the one line printed.
take_snapshot() {
	local line what=${1:-this machine}
	if [ -n "$1" ]; then
		line=$("$NUMAPLACE" --root "$1" snapshot "$2") || die "snapshot of $what failed"
	else
		line=$("$NUMAPLACE" snapshot "$2") || die "snapshot of $what failed"
	fi
	[[ $line =~ ^"snapshot of $what written to $2: "[0-9]+" files, "[0-9]+" links, "[0-9]+" skipped"$ ]] ||
		die "unexpected output: $line"
}

# same_report ORIG SNAP: report --json of both, compared whole but for the
# root itself (notes name the files they could not read).
same_report() {
	local a b
	a=$("$NUMAPLACE" --root "$1" report --json) || die "report failed on $1"
	b=$("$NUMAPLACE" --root "$2" report --json) || die "report failed on $2, the snapshot of $1"
	diff -u <(printf '%s\n' "${a//"$1"/ROOT}") <(printf '%s\n' "${b//"$2"/ROOT}") || die "$2 does not report like $1"
}

# Every entry of a tree: type, path, link target, and the contents of files.
tree_listing() {
	(cd "$1" && find . -printf '%y %p %l\n' | LC_ALL=C sort && find . -type f -exec md5sum {} + | LC_ALL=C sort -k2)
}

# Fails on any file of the snapshot that numaplace or hwloc does not read, on
# a process other than irqbalance's name, and on anything naming a machine or
# a person (MAC addresses, serial numbers, the boot id, environments). The
# files of the tunable kinds come from their rows (tests/attr-files.c); the
# rest are what numaplace and hwloc read besides.
only_allowed_files() {
	local snap=$1 bad dir kinds=() re
	while IFS= read -r re; do kinds+=(-e "$re"); done < <("$TOP/build/san/tests/attr-files")
	[ ${#kinds[@]} -gt 0 ] || die "no kind's snapshot files from build/san/tests/attr-files"
	bad=$(cd "$snap" && find . -type f | sed 's|^\./||' | grep -Ev "${kinds[@]}" \
		-e '^proc/(interrupts|uptime|stat|softirqs|cmdline|cpuinfo|meminfo|sys/kernel/(osrelease|version))$' -e '^sys/kernel/realtime$' \
		-e '^proc/irq/[0-9]+/(effective_affinity|effective_affinity_list|node)$' \
		-e '^proc/[0-9]+/comm$' \
		-e '^sys/devices/system/cpu/(online|offline|possible|present|isolated|nohz_full|kernel_max)$' \
		-e '^sys/devices/system/cpu/cpu[0-9]+/(online|topology/[a-z_]+|cache/index[0-9]+/[a-z_]+)$' \
		-e '^sys/devices/system/node/(online|possible|has_[a-z_]+)$' \
		-e '^sys/devices/system/node/node[0-9]+/(cpulist|cpumap|distance|meminfo)$' \
		-e '^sys/devices/.*/(vendor|device|class|revision|subsystem_vendor|subsystem_device|irq|numa_node)$' \
		-e '^sys/devices/.*/(local_cpus|local_cpulist|modalias|resource|config)$' \
		-e '^sys/devices/.*/msi_irqs/[0-9]+(/mode)?$' \
		-e '^sys/devices/.*/(ifindex|type|mtu|speed|operstate)$' \
		-e '^sys/devices/.*/queue/(scheduler|nr_requests|rotational|logical_block_size)$' \
		-e '^sys/devices/.*/mq/[0-9]+/cpu_list$' \
		-e '^sys/kernel/debug/irq/irqs/[0-9]+$' \
		-e '^var/lib/kubelet/cpu_manager_state$' -e '^var/lib/kubelet/pods/[0-9a-f-]+/etc-hosts$' \
		-e '^((etc|run|usr/local/lib|usr/lib|lib)/systemd/system)/irqbalance\.service(\.d/[^/]+\.conf)?$' \
		-e '^etc/(default|sysconfig|conf\.d)/irqbalance$' -e '^usr/lib/irqbalance/defaults\.env$' \
		-e '^etc/tuned/(active_profile|cpu-partitioning-variables\.conf|realtime-variables\.conf)$') || true
	[ -z "$bad" ] || die "files numaplace does not read in $snap: $(head -n 5 <<<"$bad")"
	bad=$(find "$snap" \( -name address -o -name serial -o -name wwid -o -name uuid -o -name vpd -o -name ppin \
		-o -name environ -o -name boot_id -o -name '*.pid' \))
	[ -z "$bad" ] || die "private files in $snap: $bad"
	# irqbalance's comm, or else one process's (that it does not run).
	local nproc=0
	for dir in "$snap"/proc/[0-9]*; do
		[ -e "$dir" ] || continue
		expect_eq "comm" "$(ls -A "$dir")" "entries of ${dir#"$snap"/}"
		nproc=$((nproc + 1))
	done
	[ "$nproc" -le 1 ] || die "$nproc processes in $snap"
	if grep -q '^Serial' "$snap/proc/cpuinfo" 2>/dev/null; then
		die "$snap/proc/cpuinfo has a Serial line"
	fi
}

test_snapshot_of_fixture_reports_the_same() {
	local root out n=0
	mkdir -p "$WORK/snapshot"
	while read -r root; do
		out=$WORK/snapshot/fixture-${root##*/}
		rm -rf "$out" "$out-again"
		take_snapshot "$root" "$out"
		same_report "$root" "$out"
		# A snapshot of the snapshot is the same tree: nothing is lost or invented.
		take_snapshot "$out" "$out-again"
		diff -u <(tree_listing "$out") <(tree_listing "$out-again") || die "snapshot of $out differs from it"
		n=$((n + 1))
	done < <(snapshot_fixtures)
	[ "$n" -ge 5 ] || die "expected at least 5 fixture roots, found $n"
}

# The fixture root with the most PCI functions (links, drivers, children).
richest_fixture() {
	local root best='' most=-1 n
	while read -r root; do
		n=$(find "$root/sys/bus/pci/devices" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
		if [ "$n" -gt "$most" ]; then
			best=$root most=$n
		fi
	done < <(snapshot_fixtures)
	printf '%s\n' "$best"
}

test_snapshot_tar_gz() {
	command -v tar >/dev/null || skip_test "tar is not installed"
	local root out=$WORK/snapshot/archive status before
	root=$(richest_fixture)
	[ -n "$root" ] || die "no fixture root"
	rm -rf "$out" && mkdir -p "$out/unpacked"
	take_snapshot "$root" "$out/snap.tar.gz"
	[ -f "$out/snap.tar.gz" ] || die "no $out/snap.tar.gz"
	expect_eq "snap.tar.gz unpacked" "$(ls -A "$out" | paste -sd " ")" "entries next to the archive (temporary tree left?)"
	expect_eq "proc sys" "$(tar -tzf "$out/snap.tar.gz" | cut -d/ -f1 | sort -u | xargs)" "top of the archive"
	tar -xzf "$out/snap.tar.gz" -C "$out/unpacked" || die "cannot unpack $out/snap.tar.gz"
	same_report "$root" "$out/unpacked"
	# Links stay links: the archive holds what a directory snapshot holds.
	take_snapshot "$root" "$out/tree"
	diff -u <(tree_listing "$out/tree") <(tree_listing "$out/unpacked") || die "the archive differs from the tree"
	[ -n "$(find "$out/unpacked/sys" -type l)" ] || die "no links in the archive"

	# .tgz too; an existing archive is never overwritten.
	take_snapshot "$root" "$out/snap.tgz"
	tar -tzf "$out/snap.tgz" >/dev/null || die "$out/snap.tgz is not a gzip tar"
	before=$(md5sum <"$out/snap.tgz")
	status=0
	"$NUMAPLACE" --root "$root" snapshot "$out/snap.tgz" >/dev/null 2>&1 || status=$?
	expect_eq 1 "$status" "exit status for an existing archive"
	expect_eq "$before" "$(md5sum <"$out/snap.tgz")" "the existing archive was changed"
}

# What keeps CPUs free of IRQs lives outside sys/ and proc/ (irqbalance's unit and
# files, TuneD's profile, the kubelet's state): an archive keeps it, and reports the same.
test_snapshot_archive_keeps_the_configuration() {
	command -v tar >/dev/null || skip_test "tar is not installed"
	local name out tops
	for name in banned tuned kube; do
		out=$WORK/snapshot/config-$name
		rm -rf "$out" && mkdir -p "$out/unpacked"
		take_snapshot "$FIXTURES/$name" "$out/snap.tar.gz"
		tar -xzf "$out/snap.tar.gz" -C "$out/unpacked" || die "cannot unpack $out/snap.tar.gz"
		same_report "$FIXTURES/$name" "$out/unpacked"
		tops=$(tar -tzf "$out/snap.tar.gz" | cut -d/ -f1 | sort -u | xargs)
		case $name in
		banned) expect_eq "etc proc sys usr" "$tops" "top of the archive of $name" ;;
		tuned) expect_eq "etc proc sys" "$tops" "top of the archive of $name" ;;
		kube) expect_eq "proc sys var" "$tops" "top of the archive of $name" ;;
		esac
	done
	"$NUMAPLACE" --root "$WORK/snapshot/config-banned/snap.tar.gz" advise --json |
		jq -e '.notes[] | select(test("irqbalance-banned CPUs 6-7 kept free of IRQs"))' >/dev/null ||
		die "the archive of banned lost irqbalance's bans"
}

test_snapshot_live() {
	if [ ! -r /proc/interrupts ] || [ ! -d /sys/devices/system/cpu ]; then
		skip_test "no /sys and /proc of a Linux machine here"
	fi
	command -v jq >/dev/null || skip_test "jq is not installed"
	local out=$WORK/snapshot/live live snap want got
	# What changes from one second to the next: interrupt counts and what
	# follows from them, and irqbalance, which may rewrite affinities between
	# the two reports. The hostname and boot id are left out of snapshots on purpose.
	local filter='del(.irqs[].total, .irqs[].per_node, .irqs[].ran_on, .irqs[].remote_share,
		.devices[].remote_share, .devices[].irqs_remote, .devices[].interrupts_per_cpu, .findings, .interrupts_where,
		.topology.cpus[].irq_time_share, .hostname, .boot_id)'
	mkdir -p "$WORK/snapshot" && rm -rf "$out"
	take_snapshot "" "$out"
	live=$("$NUMAPLACE" report --json | jq -S "$filter") || die "report failed on this machine"
	snap=$("$NUMAPLACE" --root "$out" report --json | jq -S "$filter") || die "report failed on the snapshot"
	if [ "$(jq .irqbalance.running <<<"$live")" = true ]; then
		live=$(jq -S 'del(.irqs[].affinity, .irqs[].effective, .irqs[].effective_nodes)' <<<"$live")
		snap=$(jq -S 'del(.irqs[].affinity, .irqs[].effective, .irqs[].effective_nodes)' <<<"$snap")
	fi
	diff -u <(printf '%s\n' "$live") <(printf '%s\n' "$snap") || die "the snapshot does not report like this machine"
	echo "live snapshot: $(find "$out" -type f | wc -l) files, $(find "$out" -type l | wc -l) links, $(du -sk "$out" | cut -f1) KB on disk, $(find "$out" -type f -exec cat {} + | wc -c) bytes of content"

	command -v lstopo-no-graphics >/dev/null || skip_test "lstopo-no-graphics is not installed (the report part passed)"
	want=$(HWLOC_COMPONENTS=linux,stop lstopo-no-graphics --only pu | grep -c '^PU') || die "lstopo failed on this machine"
	got=$(HWLOC_COMPONENTS=linux,stop HWLOC_FSROOT=$out lstopo-no-graphics --only pu) || die "lstopo failed on the snapshot"
	expect_eq "$want" "$(grep -c '^PU' <<<"$got")" "PUs hwloc finds in the snapshot"
}

test_snapshot_has_no_secrets() {
	local root out
	mkdir -p "$WORK/snapshot"
	while read -r root; do
		out=$WORK/snapshot/secrets-${root##*/}
		rm -rf "$out"
		take_snapshot "$root" "$out"
		only_allowed_files "$out"
	done < <(snapshot_fixtures)
	if [ -r /proc/interrupts ] && [ -d /sys/devices/system/cpu ]; then
		out=$WORK/snapshot/secrets-live
		rm -rf "$out"
		take_snapshot "" "$out"
		only_allowed_files "$out"
	fi
}

test_snapshot_refuses_nonempty_dir() {
	local root out=$WORK/snapshot/nonempty err status
	root=$(snapshot_fixtures | head -n 1)
	[ -n "$root" ] || die "no fixture root"
	rm -rf "$out" && mkdir -p "$out" && echo other >"$out/other-machine"
	status=0
	err=$("$NUMAPLACE" --root "$root" snapshot "$out" 2>&1 >/dev/null) || status=$?
	expect_eq 1 "$status" "exit status for a non-empty directory"
	expect_eq 1 "$(wc -l <<<"$err")" "lines of error: $err"
	[[ $err == *"$out"* ]] || die "the error does not name $out: $err"
	expect_eq "other-machine" "$(ls -A "$out" | paste -sd " ")" "entries of the refused directory"

	# An empty directory is fine; the output is required; a second one is not.
	rm -rf "$out" && mkdir -p "$out"
	take_snapshot "$root" "$out"
	status=0
	"$NUMAPLACE" --root "$root" snapshot >/dev/null 2>&1 || status=$?
	expect_eq 2 "$status" "exit status without an output"
	status=0
	"$NUMAPLACE" --root "$root" snapshot "$out-a" "$out-b" >/dev/null 2>&1 || status=$?
	expect_eq 2 "$status" "exit status with two outputs"
	[ ! -e "$out-a" ] || die "$out-a was created on a usage error"
	# A failure leaves nothing behind.
	status=0
	"$NUMAPLACE" --root "$root" snapshot "$out/missing/parent/snap" >/dev/null 2>&1 || status=$?
	expect_eq 1 "$status" "exit status for a missing parent directory"
}

# --root takes the archive itself, as snapshot's help says: unpacked into a
# private temporary directory that is gone once numaplace ends, read only.
test_root_is_a_snapshot_archive() {
	command -v tar >/dev/null || skip_test "tar is not installed"
	local root out=$WORK/snapshot/as-root tmp status err deadline
	root=$(richest_fixture)
	rm -rf "$out" && mkdir -p "$out/tmp" "$out/unpacked"
	take_snapshot "$root" "$out/snap.tar.gz"
	tar -xzf "$out/snap.tar.gz" -C "$out/unpacked"
	tmp=$out/tmp
	expect_eq "$("$NUMAPLACE" --root "$out/unpacked" report --json | jq -S 'del(.notes, .warnings)')" \
		"$(TMPDIR=$tmp "$NUMAPLACE" --root "$out/snap.tar.gz" report --json | jq -S 'del(.notes, .warnings)')" \
		"report from the archive and from its unpacked tree"
	expect_eq "$("$NUMAPLACE" --root "$out/unpacked" irqs)" "$(TMPDIR=$tmp NUMAPLACE_ROOT=$out/snap.tar.gz "$NUMAPLACE" irqs)" \
		"NUMAPLACE_ROOT=ARCHIVE"
	# The copy is removed when numaplace ends: at once after it, by a deadline.
	deadline=$((SECONDS + 60))
	while [ -n "$(ls -A "$tmp")" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
	expect_eq "" "$(ls -A "$tmp")" "the unpacked copy left in TMPDIR"
	# Also when numaplace is killed.
	TMPDIR=$tmp "$NUMAPLACE" --root "$out/snap.tar.gz" top --batch -d 60 -n 2 >/dev/null 2>&1 &
	local pid=$!
	deadline=$((SECONDS + 60))
	until [ -n "$(ls -A "$tmp")" ] && [ -d "$(ls -d "$tmp"/*/sys 2>/dev/null | head -1)" ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	deadline=$((SECONDS + 60))
	while [ -n "$(ls -A "$tmp")" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
	expect_eq "" "$(ls -A "$tmp")" "the unpacked copy left after SIGKILL"
	# Read only: apply says why it cannot write.
	status=0
	err=$(TMPDIR=$tmp "$NUMAPLACE" --root "$out/snap.tar.gz" apply --irqbalance=ignore "$TOP/profiles/network-local.json" 2>&1) || status=$?
	expect_eq 1 "$status" "apply on an archive root"
	[[ $err == *"under a root read from the archive '$out/snap.tar.gz': Read-only file system"* ]] || die "apply: $err"
	# hwloc's archives hold NAME/sys: the one directory is the root.
	TMPDIR=$tmp "$NUMAPLACE" --root "$SNAPSHOTS/hwloc-40intel64-2g2n4c-pci.tar.bz2" topo -J | jq -e '.nodes | length == 4' >/dev/null ||
		die "hwloc's archive as --root"
	# What it lacks is named in the archive, not in its copy, gone once numaplace ends.
	local hwloc=$SNAPSHOTS/hwloc-32em64t-2n8c-mic.tar.bz2
	err=$(TMPDIR=$tmp "$NUMAPLACE" --root "$hwloc" topo 2>&1 >/dev/null)
	[[ $err == *"no '$hwloc:/sys/devices/system/cpu/isolated', 'nohz_full' nor '$hwloc:/proc/cmdline'"* && $err != *"$tmp"* ]] ||
		die "the note names the copy: $err"
	[[ $(TMPDIR=$tmp "$NUMAPLACE" --root "$hwloc" report -J 2>/dev/null | jq -r '.topology.notes[0]') == *"'$hwloc:/proc/cmdline'" ]] ||
		die "JSON's note names the copy: $(TMPDIR=$tmp "$NUMAPLACE" --root "$hwloc" report -J 2>/dev/null | jq -r '.topology.notes[0]')"
	# An archive that is no snapshot: one line naming it.
	tar -czf "$out/other.tar.gz" -C "$TOP" README.md
	status=0
	err=$(TMPDIR=$tmp "$NUMAPLACE" --root "$out/other.tar.gz" topo 2>&1) || status=$?
	expect_eq 1 "$status" "a root archive without sys/"
	[[ $err == "numaplace: --root '$out/other.tar.gz': the archive '$out/other.tar.gz' holds no sys/"* ]] || die "no clear error: $err"
	deadline=$((SECONDS + 60))
	while [ -n "$(ls -A "$tmp")" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
	expect_eq "" "$(ls -A "$tmp")" "copies left in TMPDIR"
}
