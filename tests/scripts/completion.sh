# SPDX-License-Identifier: GPL-2.0-or-later
# Shell completions: the committed scripts are what 'numaplace completion'
# prints from the command tables now, and the bash one completes commands,
# options and live values (of this machine, or of a --root).

COMPLETIONS=$TOP/completions

# Runs the bash completion function on a command line, the cursor at its end,
# and prints the matches, one a line. COMP_WORDS is split as bash splits it:
# at blanks, with runs of ':' and '=' as words of their own.
bash_complete() {
	bash --norc --noprofile -c '
		source "$1" || exit 1
		COMP_LINE=$2 COMP_POINT=${#2} COMP_WORDS=()
		set -f
		for w in $COMP_LINE; do
			while [[ $w =~ ^([^:=]*)([:=]+)(.*)$ ]]; do
				[[ -n ${BASH_REMATCH[1]} ]] && COMP_WORDS+=("${BASH_REMATCH[1]}")
				COMP_WORDS+=("${BASH_REMATCH[2]}")
				w=${BASH_REMATCH[3]}
			done
			[[ -n $w ]] && COMP_WORDS+=("$w")
		done
		set +f
		[[ $COMP_LINE == *[[:blank:]] ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_numaplace numaplace "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' bash "$COMPLETIONS/numaplace.bash" "$1"
}

# The matches for a line must be exactly these words (in any order).
expect_completions() {
	local line=$1 want got
	shift
	want=$(printf '%s\n' "$@" | sort | paste -sd ' ' -)
	got=$(bash_complete "$line" | sort | paste -sd ' ' -)
	expect_eq "$want" "$got" "completions of '$line'"
}

# The matches for a line must include these words.
expect_offered() {
	local line=$1 got word
	shift
	got=$(bash_complete "$line")
	for word in "$@"; do
		grep -qxF -- "$word" <<<"$got" || die "completions of '$line' lack '$word': $(paste -sd ' ' - <<<"$got")"
	done
}

test_committed_completions_are_current() {
	local shell file
	for shell in bash zsh fish; do
		case $shell in
		bash) file=numaplace.bash ;;
		zsh) file=_numaplace ;;
		fish) file=numaplace.fish ;;
		esac
		"$NUMAPLACE" completion "$shell" >"$WORK/completion.$shell" || die "numaplace completion $shell failed"
		diff -u "$COMPLETIONS/$file" "$WORK/completion.$shell" ||
			die "completions/$file is not what 'numaplace completion $shell' prints: regenerate it"
	done
	bash -n "$COMPLETIONS/numaplace.bash" || die "completions/numaplace.bash does not parse"
}

test_bash_completes_commands() {
	# Commands, options, and the values the tables name.
	expect_completions "numaplace to" top topo
	expect_completions "numaplace top --b" --batch
	expect_completions "numaplace topo --" --json --pretty --cpus --help
	expect_completions "numaplace --" --root --help --version --kubelet-state
	expect_completions "numaplace advise --policy " local app spread
	expect_completions "numaplace advise -p sp" spread
	expect_completions "numaplace advise --policy=a" app
	expect_completions "numaplace completion " bash zsh fish
	expect_completions "numaplace completion bash " # one shell only
	expect_completions "numaplace profile " list show validate
	expect_completions "numaplace topo " # no operands
	expect_offered "numaplace help " topo devices profile completion help
	expect_offered "numaplace --root $FIXTURES/r7" "$FIXTURES/r715"
	expect_offered "numaplace run --near lo -- ba" bash
	# A command the script does not know takes files.
	expect_offered "numaplace no-such-command $TOP/Makef" "$TOP/Makefile"

	# Options may follow operands, as getopt_long permutes them ...
	expect_completions "numaplace devices lo --" --all --class --help --json --matrix --near --noheadings --output --pairs --pretty --raw
	expect_completions "numaplace devices --matrix --class " gpu net nvme storage all
	# ... but not after "--", nor in the command line that run runs.
	expect_completions "numaplace devices -- lo --"
	expect_completions "numaplace run --near lo sh --"
	# After profile show come the profile names.
	expect_completions "numaplace profile list --profile-" --profile-dir
	local names=() file
	for file in "$TOP"/profiles/*.json; do
		[ -f "$file" ] && file=${file##*/} && names+=("${file%.json}")
	done
	[ ${#names[@]} -gt 0 ] || die "no profiles in $TOP/profiles"
	expect_offered "$NUMAPLACE profile --profile-dir $TOP/profiles show " "${names[@]}"
	expect_offered "$NUMAPLACE profile --profile-dir=$TOP/profiles show net" network-local

	# A machine's devices (a fixture's: the tests read no live /sys), with
	# --root DIR or --root=DIR; bash replaces only
	# what follows the last ':' of a PCI address.
	local root=$WORK/completion-root
	rm -rf "$root"
	device_root "$root"
	expect_completions "numaplace --root $root devices " 0000:00:1f.2 0000:03:00.0 ens1f0 nvme0n1
	expect_completions "numaplace --root=$root irqs en" ens1f0
	expect_completions "numaplace --root $root devices 0000:0" 00:1f.2 03:00.0
	expect_completions "numaplace --root $root devices 0000:03:" 00.0
	expect_completions "numaplace --root $root advise --device=nv" nvme0n1
	expect_completions "numaplace --root $root irqs nvme0n1 " 0000:00:1f.2 0000:03:00.0 ens1f0 nvme0n1
	expect_completions "numaplace --root $root run --near " 0000:00:1f.2 0000:03:00.0 ens1f0 nvme0n1
	expect_completions "numaplace --root $root run --near 0000:00:1" 1f.2
}

# A machine root with two PCI functions, an interface and a block device of
# one of them (a device link each), and lo and loop0, which have none and
# which numaplace refuses: never offered.
device_root() {
	local root=$1
	rm -rf "$root"
	mkdir -p "$root"/sys/bus/pci/devices/{0000:00:1f.2,0000:03:00.0} "$root"/sys/class/net/{ens1f0,lo} \
		"$root"/sys/block/{nvme0n1,loop0}
	ln -s ../../../bus/pci/devices/0000:03:00.0 "$root/sys/class/net/ens1f0/device"
	ln -s ../../bus/pci/devices/0000:00:1f.2 "$root/sys/block/nvme0n1/device"
}

# -o and --sort complete the command's column names, after a comma too.
test_bash_completes_columns() {
	completion_root
	expect_completions "numaplace irqs -o ir" irq
	expect_completions "numaplace irqs -o irq,aff" irq,affinity irq,affinity_nodes
	expect_completions "numaplace history --sort st" state
	expect_completions "numaplace profile list -o desc" description
	expect_completions "numaplace --root $CROOT irqs --output=remote_" remote_share
}

# The r715 fixture's PCI devices, when it has them.
test_bash_completes_devices_of_fixture_root() {
	local root=$FIXTURES/r715 want=() dir
	mapfile -t want < <(ls "$root/sys/bus/pci/devices")
	for dir in "$root"/sys/class/net/* "$root"/sys/block/*; do
		[ -e "$dir/device" ] && want+=("${dir##*/}")
	done
	[ -n "$(ls -A "$root/sys/bus/pci/devices" 2>/dev/null)" ] ||
		skip_test "tests/fixtures/r715 has no PCI devices (sys/bus/pci/devices) yet"
	expect_offered "numaplace --root $root devices " "${want[@]}"
	local pids=() pid
	for pid in "$root"/proc/[0-9]*; do
		[ -d "$pid" ] && pids+=("${pid##*/}")
	done
	if [ ${#pids[@]} -gt 0 ]; then
		expect_offered "numaplace --root $root advise --app-pid " "${pids[@]}"
	fi
}

test_zsh_and_fish_parse() {
	local checked=
	if command -v zsh >/dev/null; then
		zsh -n "$COMPLETIONS/_numaplace" || die "completions/_numaplace does not parse"
		checked+=" zsh"
	fi
	if command -v fish >/dev/null; then
		fish -n "$COMPLETIONS/numaplace.fish" || die "completions/numaplace.fish does not parse"
		checked+=" fish"
	fi
	[ -n "$checked" ] || skip_test "neither zsh nor fish is installed"
	echo "checked:$checked"
}

# --- every shell for real: bash (the function, as bash calls it), zsh (an
# interactive zsh in a pty, tests/zsh-complete.zsh) and fish (complete -C).

# A machine root with two PCI functions, an interface and a block device.
completion_root() {
	CROOT=$WORK/completion-shells-root
	rm -rf "$CROOT"
	device_root "$CROOT"
	# The scripts run 'numaplace profile list --json' for the profile names.
	mkdir -p "$WORK/completion-bin"
	ln -sf "$NUMAPLACE" "$WORK/completion-bin/numaplace"
	export PATH=$WORK/completion-bin:$PATH
}

# The words SHELL offers for LINE, sorted, on one line.
complete_in() {
	local shell=$1 line=$2
	case $shell in
	bash) bash_complete "$line" ;;
	zsh) timeout 30 zsh -f "$TOP/tests/zsh-complete.zsh" "$COMPLETIONS" "$line" ;;
	fish) timeout 30 fish --no-config -c 'source $argv[1]; complete -C $argv[2]' \
		"$COMPLETIONS/numaplace.fish" "$line" | cut -f 1 ;;
	esac | sort -u | paste -sd ' ' -
}

expect_in() {
	local shell=$1 line=$2 want
	shift 2
	want=$(printf '%s\n' "$@" | sort -u | paste -sd ' ' -)
	expect_eq "$want" "$(complete_in "$shell" "$line")" "$shell completions of '$line'"
}

expect_offered_in() {
	local shell=$1 line=$2 got word
	shift 2
	got=$(complete_in "$shell" "$line")
	for word in "$@"; do
		[[ " $got " == *" $word "* ]] || die "$shell completions of '$line' lack '$word': $got"
	done
}

# What all three complete alike: values, never files, for option values.
shell_completes_values() {
	local sh=$1 r
	completion_root
	r=$CROOT
	expect_in "$sh" "numaplace to" top topo
	expect_in "$sh" "numaplace advise --policy " local app spread
	expect_in "$sh" "numaplace apply --irqbalance " ban warn ignore
	expect_in "$sh" "numaplace apply --irqbalance w" warn
	expect_in "$sh" "numaplace completion " bash zsh fish
	expect_in "$sh" "numaplace --root $r devices " 0000:00:1f.2 0000:03:00.0 ens1f0 nvme0n1
	expect_in "$sh" "numaplace --root $r run --near en" ens1f0
	expect_in "$sh" "numaplace --root $r advise --device nv" nvme0n1
	expect_in "$sh" "numaplace --root $r irqs nvme0n1 " 0000:00:1f.2 0000:03:00.0 ens1f0 nvme0n1
	# Column names, for -o and --sort.
	expect_in "$sh" "numaplace history --sort st" state
	expect_offered_in "$sh" "numaplace irqs -o " irq name affinity remote_share
	# Profile names, from the profiles in --profile-dir and the shipped ones.
	local names=() file
	for file in "$TOP"/profiles/*.json; do
		file=${file##*/} && names+=("${file%.json}")
	done
	expect_offered_in "$sh" "numaplace apply --profile-dir $TOP/profiles " "${names[@]}"
	expect_offered_in "$sh" "numaplace profile --profile-dir $TOP/profiles show " "${names[@]}"
	expect_offered_in "$sh" "numaplace verify net" network-local
}

test_bash_completes_values() { shell_completes_values bash; }
test_zsh_completes_values() {
	command -v zsh >/dev/null || die "zsh is not installed ('make check-deps' installs it)"
	shell_completes_values zsh
}
test_fish_completes_values() {
	command -v fish >/dev/null || die "fish is not installed ('make check-deps' installs it)"
	shell_completes_values fish
}
