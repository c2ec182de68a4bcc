# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for numaplace.
# Made by 'numaplace completion bash' from the command and option tables:
# regenerate it, do not edit it. Install it as
# /usr/share/bash-completion/completions/numaplace, or source it.

_numaplace_commands='report topo devices irqs top advise app apply hold metrics trial verify revert enable disable history profile run move snapshot completion help'
# Their options end at the first operand (a command line follows).
_numaplace_options_end='run'

# The options of command $1 ('' for the global ones, before the command).
_numaplace_options()
{
	case $1 in
	'') echo '--root --help -h --version -V --kubelet-state' ;;
	report) echo '--json -J --pretty --all -a --color --interval -i --policy -p --svg --help -h' ;;
	topo) echo '--json -J --pretty --cpus -c --help -h' ;;
	devices) echo '--all -a --matrix -m --near --class --output -o --noheadings -n --raw -r --pairs -P --json -J --pretty --help -h' ;;
	irqs) echo '--json -J --pretty --interval -i --interrupts --output -o --noheadings -n --raw -r --pairs -P --sort -s --help -h' ;;
	top) echo '--delay -d --batch -b --iterations -n --filter -f --help -h' ;;
	advise) echo '--policy -p --app-cpus --app-node --app-pid --pod --device -d --exclude-cpus -x --interval -i --channels --save --output -o --xps --table --json -J --pretty --help -h' ;;
	app) echo '--interval -i --json -J --pretty --help -h' ;;
	apply) echo '--dry-run --json -J --pretty --profile-dir --state-dir --no-wait --irqbalance --boot --help -h' ;;
	hold) echo '--interval -i --report-only --json -J --profile-dir --state-dir --irqbalance --boot --metrics --help -h' ;;
	metrics) echo '--save --profile --profile-dir --state-dir --help -h' ;;
	trial) echo '--runs --metric --lower-is-better --min-gain --warmup --keep-output --timeout --settle --seed --keep-going --require-keep --profile-dir --state-dir --irqbalance --output -o --noheadings -n --raw -r --pairs -P --json -J --pretty --help -h' ;;
	verify) echo '--json -J --pretty --profile-dir --help -h' ;;
	revert) echo '--force -f --dry-run --session --state-dir --no-wait --json -J --pretty --help -h' ;;
	enable) echo '--profile-dir --json -J --pretty --hold --help -h' ;;
	disable) echo '--json -J --pretty --help -h' ;;
	history) echo '--json -J --pretty --state-dir --output -o --noheadings -n --raw -r --pairs -P --sort -s --prune --keep --help -h' ;;
	profile) echo '--profile-dir --json -J --pretty --output -o --noheadings -n --raw -r --pairs -P --help -h' ;;
	run) echo '--near --print --json -J --pretty --help -h' ;;
	move) echo '--node --near --memory --cgroup --dry-run --state-dir --no-wait --json -J --pretty --help -h' ;;
	snapshot) echo '--json -J --pretty --help -h' ;;
	completion) echo '--help -h' ;;
	help) echo '--help -h' ;;
	esac
}

# What completes the argument of option $2 of command $1: a kind ("file",
# "dir", "device", "pid", "policy"...), "none", or nothing for a flag.
_numaplace_argument()
{
	case $1:$2 in
	:--root) echo dir ;;
	:--kubelet-state) echo file ;;
	report:--color) echo none ;;
	report:--interval | report:-i) echo none ;;
	report:--policy | report:-p) echo policy ;;
	report:--svg) echo file ;;
	devices:--near) echo device ;;
	devices:--class) echo class ;;
	devices:--output | devices:-o) echo columns ;;
	irqs:--interval | irqs:-i) echo none ;;
	irqs:--interrupts) echo file ;;
	irqs:--output | irqs:-o) echo columns ;;
	irqs:--sort | irqs:-s) echo columns ;;
	top:--delay | top:-d) echo none ;;
	top:--iterations | top:-n) echo none ;;
	top:--filter | top:-f) echo device ;;
	advise:--policy | advise:-p) echo policy ;;
	advise:--app-cpus) echo none ;;
	advise:--app-node) echo none ;;
	advise:--app-pid) echo pid ;;
	advise:--pod) echo none ;;
	advise:--device | advise:-d) echo device ;;
	advise:--exclude-cpus | advise:-x) echo none ;;
	advise:--interval | advise:-i) echo none ;;
	advise:--channels) echo channels ;;
	advise:--save) echo file ;;
	advise:--output | advise:-o) echo file ;;
	app:--interval | app:-i) echo none ;;
	apply:--profile-dir) echo dir ;;
	apply:--state-dir) echo dir ;;
	apply:--irqbalance) echo irqbalance ;;
	hold:--interval | hold:-i) echo none ;;
	hold:--profile-dir) echo dir ;;
	hold:--state-dir) echo dir ;;
	hold:--irqbalance) echo none ;;
	hold:--metrics) echo file ;;
	metrics:--save) echo file ;;
	metrics:--profile) echo profile-name ;;
	metrics:--profile-dir) echo dir ;;
	metrics:--state-dir) echo dir ;;
	trial:--runs) echo none ;;
	trial:--metric) echo none ;;
	trial:--min-gain) echo none ;;
	trial:--warmup) echo none ;;
	trial:--keep-output) echo none ;;
	trial:--timeout) echo none ;;
	trial:--settle) echo none ;;
	trial:--seed) echo none ;;
	trial:--profile-dir) echo dir ;;
	trial:--state-dir) echo dir ;;
	trial:--irqbalance) echo irqbalance ;;
	trial:--output | trial:-o) echo columns ;;
	verify:--profile-dir) echo dir ;;
	revert:--state-dir) echo dir ;;
	enable:--profile-dir) echo dir ;;
	history:--state-dir) echo dir ;;
	history:--output | history:-o) echo columns ;;
	history:--sort | history:-s) echo columns ;;
	history:--keep) echo none ;;
	profile:--profile-dir) echo dir ;;
	profile:--output | profile:-o) echo columns ;;
	run:--near) echo device ;;
	move:--node) echo none ;;
	move:--near) echo device ;;
	move:--state-dir) echo dir ;;
	esac
}

# The fixed words that complete kind $1 (none for the other kinds).
_numaplace_fixed()
{
	case $1 in
	policy) echo local app spread ;;
	channels) echo per-core per-node ;;
	irqbalance) echo ban warn ignore ;;
	shell) echo bash zsh fish ;;
	subcommand) echo list show validate ;;
	class) echo gpu net nvme storage all ;;
	esac
}

# What completes the operands of command $1, and whether it takes one or many.
_numaplace_operands()
{
	case $1 in
	report) echo none one ;;
	topo) echo none one ;;
	devices) echo device many ;;
	irqs) echo device many ;;
	top) echo none one ;;
	advise) echo none one ;;
	app) echo none one ;;
	apply) echo profile-name one ;;
	hold) echo profile-name one ;;
	metrics) echo none one ;;
	trial) echo profile-name one ;;
	verify) echo profile-name one ;;
	revert) echo none one ;;
	enable) echo profile-name one ;;
	disable) echo none one ;;
	history) echo none one ;;
	profile) echo profile many ;;
	run) echo exec many ;;
	move) echo pid one ;;
	snapshot) echo file many ;;
	completion) echo shell one ;;
	help) echo command one ;;
	*) echo file many ;;
	esac
}

# The values of kind $1 on the machine under root $2 ('' for this one).
_numaplace_values()
{
	local f
	case $1 in
	device)
		command ls -1 -- "$2/sys/bus/pci/devices" 2>/dev/null
		# Interfaces and disks of a device: not lo, loop0 or a bridge, which
		# numaplace refuses.
		for f in "$2"/sys/class/net/* "$2"/sys/block/*; do
			[[ -e $f/device || -L $f/device ]] && echo "${f##*/}"
		done
		;;
	pid)
		command ls -1 -- "$2/proc" 2>/dev/null | while read -r f; do
			[[ $f == *[!0-9]* ]] || echo "$f"
		done
		;;
	command) echo "$_numaplace_commands" ;;
	esac
}

# The column names of a command's table, one a line: "$@ -o help" (numaplace
# [--root DIR] COMMAND [list]).
_numaplace_columns()
{
	"$@" -o help 2>/dev/null | awk 'NR > 1 { print $1 }'
}

# The profile names, one a line: "$@ list -n -o name" (numaplace [--root DIR]
# profile [--profile-dir DIR...]).
_numaplace_profiles()
{
	"$@" list -n -o name 2>/dev/null
}

_numaplace()
{
	# The words up to the cursor, with those bash split at ':' or '=' (as in
	# 0000:03:00.0 or --root=DIR) joined again.
	local line=${COMP_LINE:0:COMP_POINT} words=() w i pos=0 glued
	for ((i = 0; i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]} glued=$((i > 0))
		while [[ ${line:pos:1} == [[:space:]] ]]; do
			pos=$((pos + 1)) glued=0
		done
		if ((i == COMP_CWORD)); then
			w=${line:pos}
		fi
		if ((glued)); then
			words[${#words[@]} - 1]+=$w
		else
			words+=("$w")
		fi
		pos=$((pos + ${#w}))
	done

	# The global --root, the command, its --profile-dir options and its
	# operands. Options may follow operands (getopt_long permutes), except
	# after "--" and for the commands of $_numaplace_options_end.
	local last=$((${#words[@]} - 1)) root='' cmd='' opt='' only='' operands=() dirs=()
	for ((i = 1; i < last; i++)); do
		w=${words[i]}
		if [[ -n $opt ]]; then
			w=$opt=$w opt=
		elif [[ -n $only || $w != -?* ]]; then
			if [[ -z $cmd ]]; then
				cmd=$w
			else
				operands+=("$w")
				[[ " $_numaplace_options_end " == *" $cmd "* ]] && only=1
			fi
			continue
		elif [[ $w == -- ]]; then
			only=1
			continue
		elif [[ $w != *=* && -n $(_numaplace_argument "$cmd" "$w") ]]; then
			opt=$w
			continue
		fi
		case $w in
		--root=*) [[ -n $cmd ]] || root=${w#*=} ;;
		--profile-dir=*) dirs+=("$w") ;;
		esac
	done

	# What completes the word at the cursor.
	local cur=${words[last]} kind='' many=''
	if [[ -n $opt ]]; then
		kind=$(_numaplace_argument "$cmd" "$opt")
	elif [[ -z $only && $cur == -?*=* ]]; then
		kind=$(_numaplace_argument "$cmd" "${cur%%=*}")
		cur=${cur#*=}
	elif [[ -z $only && $cur == -* ]]; then
		kind=options
	elif [[ -z $cmd ]]; then
		kind='command'
	else
		read -r kind many < <(_numaplace_operands "$cmd")
		if [[ $many == one && ${#operands[@]} -gt 0 ]]; then
			kind=none
		elif [[ $kind == profile ]]; then
			case ${#operands[@]}:${operands[0]-} in
			0:*) kind=subcommand ;;
			1:show) kind=profile-name ;;
			*:validate) kind='file' ;;
			*) kind=none ;;
			esac
		elif [[ $kind == exec ]]; then
			if ((${#operands[@]})); then kind='file'; else kind='executable'; fi
		fi
	fi

	COMPREPLY=()
	case $kind in
	'' | none) ;;
	options)
		mapfile -t COMPREPLY < <(compgen -W "$(_numaplace_options "$cmd")" -- "$cur") ;;
	device | pid | command)
		mapfile -t COMPREPLY < <(compgen -W "$(_numaplace_values "$kind" "$root")" -- "$cur") ;;
	executable)
		mapfile -t COMPREPLY < <(compgen -c -- "$cur") ;;
	columns)	# a comma-separated list: the names after its last comma
		local pre=''
		[[ $cur == *,* ]] && pre=${cur%,*},
		mapfile -t COMPREPLY < <(compgen -P "$pre" -W "$(_numaplace_columns "${words[0]}" \
			${root:+"--root=$root"} "$cmd" ${operands[0]:+"${operands[0]}"})" -- "${cur##*,}")
		compopt -o nospace 2>/dev/null ;;
	dir)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
	profile-name)
		mapfile -t COMPREPLY < <(compgen -W "$(_numaplace_profiles "${words[0]}" \
			${root:+"--root=$root"} profile "${dirs[@]}")" -- "$cur")
		compopt -o filenames 2>/dev/null
		mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -f -- "$cur") ;;
	*)	# fixed words, file, and the kinds this script does not know
		local fixed
		fixed=$(_numaplace_fixed "$kind")
		if [[ -n $fixed ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$fixed" -- "$cur")
		else
			compopt -o filenames 2>/dev/null
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		fi ;;
	esac

	# Bash replaces only what follows the last ':' or '=' (of
	# COMP_WORDBREAKS) in the word: give it the matches from there on.
	local word=${words[last]} tail=${words[last]}
	[[ $COMP_WORDBREAKS == *:* ]] && tail=${tail##*:}
	[[ $COMP_WORDBREAKS == *=* ]] && tail=${tail##*=}
	local head=${word%"$cur"} cut=${word%"$tail"}
	for i in "${!COMPREPLY[@]}"; do
		w=$head${COMPREPLY[i]}
		COMPREPLY[i]=${w#"$cut"}
	done
}

complete -F _numaplace numaplace
