# SPDX-License-Identifier: GPL-2.0-or-later
# fish completion for numaplace.
# Made by 'numaplace completion fish' from the command and option tables:
# regenerate it, do not edit it. Install it as numaplace.fish in a directory
# of $fish_complete_path.

# What completes the argument of option $argv[2] of command $argv[1] ('' for
# the global options): a kind ("file", "dir", "device", "pid", "policy"...),
# "none", or nothing for a flag.
function __numaplace_argument
    switch "$argv[1]:$argv[2]"
        case ':--root'
            echo dir
        case ':--kubelet-state'
            echo file
        case 'report:--color'
            echo none
        case 'report:--interval' 'report:-i'
            echo none
        case 'report:--policy' 'report:-p'
            echo policy
        case 'report:--svg'
            echo file
        case 'devices:--near'
            echo device
        case 'devices:--class'
            echo class
        case 'devices:--output' 'devices:-o'
            echo columns
        case 'irqs:--interval' 'irqs:-i'
            echo none
        case 'irqs:--interrupts'
            echo file
        case 'irqs:--output' 'irqs:-o'
            echo columns
        case 'irqs:--sort' 'irqs:-s'
            echo columns
        case 'top:--delay' 'top:-d'
            echo none
        case 'top:--iterations' 'top:-n'
            echo none
        case 'top:--filter' 'top:-f'
            echo device
        case 'advise:--policy' 'advise:-p'
            echo policy
        case 'advise:--app-cpus'
            echo none
        case 'advise:--app-node'
            echo none
        case 'advise:--app-pid'
            echo pid
        case 'advise:--pod'
            echo none
        case 'advise:--device' 'advise:-d'
            echo device
        case 'advise:--exclude-cpus' 'advise:-x'
            echo none
        case 'advise:--interval' 'advise:-i'
            echo none
        case 'advise:--channels'
            echo channels
        case 'advise:--save'
            echo file
        case 'advise:--output' 'advise:-o'
            echo file
        case 'app:--interval' 'app:-i'
            echo none
        case 'apply:--profile-dir'
            echo dir
        case 'apply:--state-dir'
            echo dir
        case 'apply:--irqbalance'
            echo irqbalance
        case 'hold:--interval' 'hold:-i'
            echo none
        case 'hold:--profile-dir'
            echo dir
        case 'hold:--state-dir'
            echo dir
        case 'hold:--irqbalance'
            echo none
        case 'hold:--metrics'
            echo file
        case 'metrics:--save'
            echo file
        case 'metrics:--profile'
            echo profile-name
        case 'metrics:--profile-dir'
            echo dir
        case 'metrics:--state-dir'
            echo dir
        case 'trial:--runs'
            echo none
        case 'trial:--metric'
            echo none
        case 'trial:--min-gain'
            echo none
        case 'trial:--warmup'
            echo none
        case 'trial:--keep-output'
            echo none
        case 'trial:--timeout'
            echo none
        case 'trial:--settle'
            echo none
        case 'trial:--seed'
            echo none
        case 'trial:--profile-dir'
            echo dir
        case 'trial:--state-dir'
            echo dir
        case 'trial:--irqbalance'
            echo irqbalance
        case 'trial:--output' 'trial:-o'
            echo columns
        case 'verify:--profile-dir'
            echo dir
        case 'revert:--state-dir'
            echo dir
        case 'enable:--profile-dir'
            echo dir
        case 'history:--state-dir'
            echo dir
        case 'history:--output' 'history:-o'
            echo columns
        case 'history:--sort' 'history:-s'
            echo columns
        case 'history:--keep'
            echo none
        case 'profile:--profile-dir'
            echo dir
        case 'profile:--output' 'profile:-o'
            echo columns
        case 'run:--near'
            echo device
        case 'move:--node'
            echo none
        case 'move:--near'
            echo device
        case 'move:--state-dir'
            echo dir
    end
end

# The commands, with their summaries.
function __numaplace_commands
    printf '%s\t%s\n' \
        report 'Show everything numaplace knows about this machine.' \
        topo 'Show NUMA nodes, CPUs, memory and distances.' \
        devices 'Show PCI devices with their node, queues, block devices and IRQs.' \
        irqs 'Show every IRQ: device, queue, affinity, where it ran, remote share.' \
        top 'Watch interrupt rates live: per node, per device, the busiest IRQs.' \
        advise 'Recommend IRQ, RPS/XPS and rq_affinity placements, each with its reason.' \
        app 'Show a process\'s threads and memory per node, its devices, and where it belongs.' \
        apply 'Apply a profile as one transaction: all of it, checked, or nothing.' \
        hold 'Apply a profile, then keep it applied as devices come and go (foreground).' \
        metrics 'Print placement, drift and hold\'s work as Prometheus metrics.' \
        trial 'Measure a profile on your own command, in pairs; keep it only if it wins.' \
        verify 'Check that the machine matches a profile.' \
        revert 'Restore the values saved by the latest (or given) transaction.' \
        enable 'Apply a profile at every boot (checked here, copied to /etc/numaplace/boot.json).' \
        disable 'Stop applying a profile at boot, held or not (remove /etc/numaplace/boot.json).' \
        history 'List the transactions; with ID, one and its values before and after.' \
        profile 'List, show and validate tuning profiles.' \
        run 'Run a command on the CPUs and memory of a device\'s node.' \
        move 'Move a running process\'s threads (and its memory) to a node, as one transaction.' \
        snapshot 'Copy the files numaplace reads into a directory or a .tar.gz, for --root on another machine.' \
        completion 'Print the completion script for bash, zsh or fish.' \
        help 'Show the commands, or the help of one command.'
end

# The fixed words that complete kind $kind (false for the other kinds).
function __numaplace_fixed --argument-names kind
    switch $kind
        case policy
            printf '%s\n' local app spread
        case channels
            printf '%s\n' per-core per-node
        case irqbalance
            printf '%s\n' ban warn ignore
        case shell
            printf '%s\n' bash zsh fish
        case subcommand
            printf '%s\n' list show validate
        case class
            printf '%s\n' gpu net nvme storage all
        case '*'
            return 1
    end
end

# Their options end at the first operand (a command line follows).
set -g __numaplace_options_end run

# One part of the line before the cursor: "root" (the global --root),
# "command", "operands", "profile-dirs" (as --profile-dir=DIR), "pending"
# (an option waiting for its argument) or "options" (the command, while
# options may come). Options may follow operands (getopt_long permutes),
# except after "--" and for the commands of $__numaplace_options_end.
function __numaplace_words --argument-names what
    set -l words (commandline -opc)
    set -e words[1]
    set -l root
    set -l cmd
    set -l operands
    set -l dirs
    set -l opt
    set -l only
    for w in $words
        if test -n "$opt"
            set w "$opt=$w"
            set opt
        else if test -n "$only"; or not string match -q -- '-?*' $w
            if test -z "$cmd"
                set cmd $w
            else
                set -a operands $w
                contains -- $cmd $__numaplace_options_end; and set only 1
            end
            continue
        else if test "$w" = --
            set only 1
            continue
        else if not string match -q -- '*=*' $w
            set -l kind (__numaplace_argument "$cmd" $w)
            if test -n "$kind"
                set opt $w
            end
            continue
        end
        if string match -q -- '--root=*' $w; and test -z "$cmd"
            set root (string replace -- --root= '' $w)
        else if string match -q -- '--profile-dir=*' $w
            set -a dirs $w
        end
    end
    switch $what
        case root
            test -n "$root"; and echo $root
        case command
            test -n "$cmd"; and echo $cmd
        case operands
            for w in $operands
                echo $w
            end
        case profile-dirs
            for w in $dirs
                echo $w
            end
        case pending
            test -n "$opt"; and echo $opt
        case options
            test -n "$cmd"; and test -z "$only"; and echo $cmd
    end
    return 0
end

# True while the line has no command yet.
function __numaplace_needs_command
    set -l cmd (__numaplace_words command)
    test -z "$cmd"
end

# True when the command is $cmd and an option may come.
function __numaplace_option --argument-names cmd
    set -l c (__numaplace_words options)
    test -n "$c"; and test "$c" = "$cmd"
end

# True when the word being completed is an operand of command $cmd: any
# of them when $many is "many", else only the first.
function __numaplace_operand --argument-names cmd many
    set -l c (__numaplace_words command)
    set -l pending (__numaplace_words pending)
    test "$c" = "$cmd"; and test -z "$pending"; or return 1
    test "$many" = many; or test (count (__numaplace_words operands)) -eq 0
end

# The entries of directory $dir, described as $desc.
function __numaplace_list --argument-names dir desc
    for f in $dir/*
        printf '%s\t%s\n' (string replace -r -- '.*/' '' $f) $desc
    end
end

# The entries of directory $dir that have a device link, described as $desc.
function __numaplace_list_of_device --argument-names dir desc
    for f in $dir/*
        if test -e $f/device; or test -L $f/device
            printf '%s\t%s\n' (string replace -r -- '.*/' '' $f) $desc
        end
    end
end

# The profile names: 'numaplace profile list -n -o name'.
function __numaplace_profiles
    set -l prog (commandline -opc)[1]
    set -l root (__numaplace_words root)
    set -l args
    if test -n "$root"
        set args --root=$root
    end
    command $prog $args profile (__numaplace_words profile-dirs) list -n -o name 2>/dev/null
end

# The values of kind $kind on the machine under the global --root.
function __numaplace_values --argument-names kind
    set -l root (__numaplace_words root)
    set -l operands (__numaplace_words operands)
    switch $kind
        case dir
            __fish_complete_directories
        case device
            __numaplace_list "$root/sys/bus/pci/devices" 'PCI address'
            # Interfaces and disks of a device: not lo, loop0 or a bridge.
            __numaplace_list_of_device "$root/sys/class/net" interface
            __numaplace_list_of_device "$root/sys/block" 'block device'
        case columns
            # the names of the command's table (-o help), after the last comma
            set -l prog (commandline -opc)[1]
            set -l cmd (__numaplace_words command)
            set -l args
            test -n "$root"; and set args --root=$root
            test "$cmd" = profile; and set cmd profile list
            set -l pre (string match -r -- '^.*,' (commandline -ct))
            for c in (command $prog $args $cmd -o help 2>/dev/null | string match -r -- '^  \S+' | string trim)
                printf '%s%s\n' "$pre" $c
            end
        case pid
            __numaplace_list "$root/proc" process | string match -r '^[0-9]+\t.*'
        case command
            __numaplace_commands
        case profile
            # profile's operands: list | show NAME | validate FILE...
            if not set -q operands[1]
                __numaplace_fixed subcommand
            else if test "$operands[1]" = show; and not set -q operands[2]
                __numaplace_values profile-name
            else if test "$operands[1]" = validate
                __fish_complete_path (commandline -ct)
            end
        case profile-name
            __numaplace_profiles
            __fish_complete_path (commandline -ct)
        case exec
            if set -q operands[1]
                __fish_complete_path (commandline -ct)
            else
                __fish_complete_command
            end
        case none
        case '*'
            # fixed words, file, and the kinds this script does not know
            __numaplace_fixed $kind; or __fish_complete_path (commandline -ct)
    end
end

complete -c numaplace -f
complete -c numaplace -n __numaplace_needs_command -a '(__numaplace_commands)'
complete -c numaplace -n __numaplace_needs_command -l root -x -a '(__numaplace_values dir)' -d 'read and write the machine files under DIR (DIR/sys, DIR/proc) instead of this machine; also $NUMAPLACE_ROOT; or a snapshot archive'
complete -c numaplace -n __numaplace_needs_command -s h -l help -d 'show this help'
complete -c numaplace -n __numaplace_needs_command -s V -l version -d 'show the version'
complete -c numaplace -n __numaplace_needs_command -l kubelet-state -r -F -d 'read pods\' exclusive CPUs from FILE instead of DIR/var/lib/kubelet/cpu_manager_state'

# report
complete -c numaplace -n '__numaplace_option report' -s J -l json -d 'print everything as one JSON document'
complete -c numaplace -n '__numaplace_option report' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option report' -s a -l all -d 'also list findings under the volume threshold'
complete -c numaplace -n '__numaplace_option report' -l color -x -d 'colour severities: auto (a terminal, no NO_COLOR), always, never'
complete -c numaplace -n '__numaplace_option report' -s i -l interval -x -d 'judge what ran during SEC seconds (0 < SEC <= 3600), with rates per second'
complete -c numaplace -n '__numaplace_option report' -s p -l policy -x -a '(__numaplace_values policy)' -d 'judge by this policy, as \'advise --policy\' plans: local (default) or spread'
complete -c numaplace -n '__numaplace_option report' -l svg -r -F -d 'also draw the nodes, devices and where their interrupts ran into FILE (SVG)'
complete -c numaplace -n '__numaplace_option report' -s h -l help -d 'show this help'

# topo
complete -c numaplace -n '__numaplace_option topo' -s J -l json -d 'print JSON instead of tables'
complete -c numaplace -n '__numaplace_option topo' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option topo' -s c -l cpus -d 'also list every CPU with its node, package, core, siblings and time in interrupts'
complete -c numaplace -n '__numaplace_option topo' -s h -l help -d 'show this help'

# devices
complete -c numaplace -n '__numaplace_option devices' -s a -l all -d 'list every PCI function, not only the ones that matter'
complete -c numaplace -n '__numaplace_option devices' -s m -l matrix -d 'the PCIe link type between every two devices (X, PIX, PXB, PHB, NODE, SYS)'
complete -c numaplace -n '__numaplace_option devices' -l near -x -a '(__numaplace_values device)' -d 'the other devices, nearest to DEVICE first (link type, then NUMA distance)'
complete -c numaplace -n '__numaplace_option devices' -l class -x -a '(__numaplace_values class)' -d 'with --matrix or --near: gpu, net, nvme, storage, all, comma-separated (default gpu,net,storage)'
complete -c numaplace -n '__numaplace_option devices' -s o -l output -x -a '(__numaplace_values columns)' -d 'the columns to show, comma-separated (\'-o help\' lists them; +COL,... adds them to the default ones); with --json, the keys'
complete -c numaplace -n '__numaplace_option devices' -s n -l noheadings -d 'print no header line'
complete -c numaplace -n '__numaplace_option devices' -s r -l raw -d 'columns separated by one space, nothing aligned or cut'
complete -c numaplace -n '__numaplace_option devices' -s P -l pairs -d 'one line per row of NAME="value" pairs'
complete -c numaplace -n '__numaplace_option devices' -s J -l json -d 'print JSON instead of text'
complete -c numaplace -n '__numaplace_option devices' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option devices' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand devices many' -a '(__numaplace_values device)'

# irqs
complete -c numaplace -n '__numaplace_option irqs' -s J -l json -d 'print JSON instead of a table'
complete -c numaplace -n '__numaplace_option irqs' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option irqs' -s i -l interval -x -d 'sample /proc/interrupts twice, SEC apart (0 < SEC <= 3600), and show what ran in between'
complete -c numaplace -n '__numaplace_option irqs' -l interrupts -r -F -d 'read the counts from a copy of /proc/interrupts (the topology and devices: --root or this machine)'
complete -c numaplace -n '__numaplace_option irqs' -s o -l output -x -a '(__numaplace_values columns)' -d 'the columns to show, comma-separated (\'-o help\' lists them; +COL,... adds them to the default ones); with --json, the keys'
complete -c numaplace -n '__numaplace_option irqs' -s n -l noheadings -d 'print no header line'
complete -c numaplace -n '__numaplace_option irqs' -s r -l raw -d 'columns separated by one space, nothing aligned or cut'
complete -c numaplace -n '__numaplace_option irqs' -s P -l pairs -d 'one line per row of NAME="value" pairs'
complete -c numaplace -n '__numaplace_option irqs' -s s -l sort -x -a '(__numaplace_values columns)' -d 'sort the rows by COLUMN (counts and shares largest first)'
complete -c numaplace -n '__numaplace_option irqs' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand irqs many' -a '(__numaplace_values device)'

# top
complete -c numaplace -n '__numaplace_option top' -s d -l delay -x -d 'seconds between refreshes (0 < SEC <= 3600, default 1)'
complete -c numaplace -n '__numaplace_option top' -s b -l batch -d 'print plain frames to stdout instead of a full-screen view'
complete -c numaplace -n '__numaplace_option top' -s n -l iterations -x -d 'stop after COUNT frames (default: until q, or 1 with --batch)'
complete -c numaplace -n '__numaplace_option top' -s f -l filter -x -a '(__numaplace_values device)' -d 'only this device\'s IRQs (a FILTER as devices takes)'
complete -c numaplace -n '__numaplace_option top' -s h -l help -d 'show this help'

# advise
complete -c numaplace -n '__numaplace_option advise' -s p -l policy -x -a '(__numaplace_values policy)' -d 'local (IRQs on the device\'s node, default), app, or spread'
complete -c numaplace -n '__numaplace_option advise' -l app-cpus -x -d 'the application runs on these CPUs (for --policy app)'
complete -c numaplace -n '__numaplace_option advise' -l app-node -x -d 'the application runs on this node (for --policy app)'
complete -c numaplace -n '__numaplace_option advise' -l app-pid -x -a '(__numaplace_values pid)' -d 'the application is this process: its CPUs, where it belongs, and (for --policy app) its devices'
complete -c numaplace -n '__numaplace_option advise' -l pod -x -d 'the application is this Kubernetes pod (UID, or UID/CONTAINER): its exclusive CPUs'
complete -c numaplace -n '__numaplace_option advise' -s d -l device -x -a '(__numaplace_values device)' -d 'plan only for matching devices (repeatable); with --policy app, the application\'s devices'
complete -c numaplace -n '__numaplace_option advise' -s x -l exclude-cpus -x -d 'keep these CPUs free of IRQs'
complete -c numaplace -n '__numaplace_option advise' -s i -l interval -x -d 'weigh IRQs by what they ran during SEC seconds (0 < SEC <= 3600), not since boot'
complete -c numaplace -n '__numaplace_option advise' -l channels -x -a '(__numaplace_values channels)' -d 'per-core: the plan carries the channel count judged right; per-node: one queue per node (spread)'
complete -c numaplace -n '__numaplace_option advise' -l save -r -F -d 'also write the plan as a profile for \'numaplace apply\''
complete -c numaplace -n '__numaplace_option advise' -s o -l output -r -F -d 'deprecated: --save FILE (-o will name columns, as in the other commands)'
complete -c numaplace -n '__numaplace_option advise' -l xps -d 'XPS follows the IRQs of every device selected, not only of those whose IRQs move'
complete -c numaplace -n '__numaplace_option advise' -l table -d 'print the changes as one table, not grouped by device'
complete -c numaplace -n '__numaplace_option advise' -s J -l json -d 'print JSON instead of text'
complete -c numaplace -n '__numaplace_option advise' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option advise' -s h -l help -d 'show this help'

# app
complete -c numaplace -n '__numaplace_option app' -s i -l interval -x -d 'measure its threads\' CPU time per node and its devices\' interrupts during SEC seconds (0 < SEC <= 3600)'
complete -c numaplace -n '__numaplace_option app' -s J -l json -d 'print JSON instead of text'
complete -c numaplace -n '__numaplace_option app' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option app' -s h -l help -d 'show this help'

# apply
complete -c numaplace -n '__numaplace_option apply' -l dry-run -d 'print the plan (file, current, new) and write nothing'
complete -c numaplace -n '__numaplace_option apply' -s J -l json -d 'print JSON: {"changed": true|false, "transaction": ID, "changes": [...]}'
complete -c numaplace -n '__numaplace_option apply' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option apply' -l profile-dir -x -a '(__numaplace_values dir)' -d 'look for profiles in DIR first (repeatable)'
complete -c numaplace -n '__numaplace_option apply' -l state-dir -x -a '(__numaplace_values dir)' -d 'keep transactions in DIR (default /var/lib/numaplace, under --root)'
complete -c numaplace -n '__numaplace_option apply' -l no-wait -d 'fail at once when another apply or revert holds the lock'
complete -c numaplace -n '__numaplace_option apply' -l irqbalance -x -a '(__numaplace_values irqbalance)' -d 'ban the IRQs placed in irqbalance\'s configuration file (default if irqbalance runs or is installed), warn, or ignore'
complete -c numaplace -n '__numaplace_option apply' -l boot -d 'apply /etc/numaplace/boot.json (\'numaplace enable\'), waiting 30 s at most for the lock'
complete -c numaplace -n '__numaplace_option apply' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand apply one' -a '(__numaplace_values profile-name)'

# hold
complete -c numaplace -n '__numaplace_option hold' -s i -l interval -x -d 'check every value against the profile this often (default 30)'
complete -c numaplace -n '__numaplace_option hold' -l report-only -d 'log drift and device events, change nothing'
complete -c numaplace -n '__numaplace_option hold' -s J -l json -d 'log one JSON object per line'
complete -c numaplace -n '__numaplace_option hold' -l profile-dir -x -a '(__numaplace_values dir)' -d 'look for profiles in DIR first (repeatable)'
complete -c numaplace -n '__numaplace_option hold' -l state-dir -x -a '(__numaplace_values dir)' -d 'keep transactions in DIR (default /var/lib/numaplace, under --root)'
complete -c numaplace -n '__numaplace_option hold' -l irqbalance -x -d 'ban the IRQs placed in irqbalance\'s configuration file at the first apply and at each re-apply (default if irqbalance runs or is installed), warn, or ignore'
complete -c numaplace -n '__numaplace_option hold' -l boot -d 'hold /etc/numaplace/boot.json (\'numaplace enable --hold\')'
complete -c numaplace -n '__numaplace_option hold' -l metrics -r -F -d 'write \'numaplace metrics\' to FILE after each pass, with hold\'s counters'
complete -c numaplace -n '__numaplace_option hold' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand hold one' -a '(__numaplace_values profile-name)'

# metrics
complete -c numaplace -n '__numaplace_option metrics' -l save -r -F -d 'write FILE (mode 0644) by renaming a whole new file over it, not stdout'
complete -c numaplace -n '__numaplace_option metrics' -l profile -x -a '(__numaplace_values profile-name)' -d 'check this profile for drift (default: the values the transactions applied)'
complete -c numaplace -n '__numaplace_option metrics' -l profile-dir -x -a '(__numaplace_values dir)' -d 'look for profiles in DIR first (repeatable)'
complete -c numaplace -n '__numaplace_option metrics' -l state-dir -x -a '(__numaplace_values dir)' -d 'read transactions from DIR (default /var/lib/numaplace, under --root)'
complete -c numaplace -n '__numaplace_option metrics' -s h -l help -d 'show this help'

# trial
complete -c numaplace -n '__numaplace_option trial' -l runs -x -d 'run CMD N times in each state, in N pairs (default 10, at least 6)'
complete -c numaplace -n '__numaplace_option trial' -l metric -x -d 'the number in REGEX\'s first group on CMD\'s last matching output line (default: CMD\'s wall time)'
complete -c numaplace -n '__numaplace_option trial' -l lower-is-better -d 'a lower --metric is better (as a latency)'
complete -c numaplace -n '__numaplace_option trial' -l min-gain -x -d 'keep only when the whole interval is above PCT percent (default 0)'
complete -c numaplace -n '__numaplace_option trial' -l warmup -x -d 'run CMD N times first, before any switch, and count none of them'
complete -c numaplace -n '__numaplace_option trial' -l keep-output -x -d 'keep the last KIB KiB of each run\'s output (default 1024)'
complete -c numaplace -n '__numaplace_option trial' -l timeout -x -d 'stop a run of CMD after SECONDS: a failed run'
complete -c numaplace -n '__numaplace_option trial' -l settle -x -d 'wait this long after each switch between the states'
complete -c numaplace -n '__numaplace_option trial' -l seed -x -d 'draw the order of the pairs from SEED (a trial prints its own)'
complete -c numaplace -n '__numaplace_option trial' -l keep-going -d 'go on when CMD fails (its pair is left out) instead of stopping'
complete -c numaplace -n '__numaplace_option trial' -l require-keep -d 'exit 4 when the verdict is not keep'
complete -c numaplace -n '__numaplace_option trial' -l profile-dir -x -a '(__numaplace_values dir)' -d 'look for profiles in DIR first (repeatable)'
complete -c numaplace -n '__numaplace_option trial' -l state-dir -x -a '(__numaplace_values dir)' -d 'keep transactions and CMD\'s output in DIR (default /var/lib/numaplace, under --root)'
complete -c numaplace -n '__numaplace_option trial' -l irqbalance -x -a '(__numaplace_values irqbalance)' -d 'ban the IRQs placed in irqbalance\'s configuration file while the profile is applied (default if irqbalance runs or is installed), warn, or ignore'
complete -c numaplace -n '__numaplace_option trial' -s o -l output -x -a '(__numaplace_values columns)' -d 'the columns to show, comma-separated (\'-o help\' lists them; +COL,... adds them to the default ones); with --json, the keys'
complete -c numaplace -n '__numaplace_option trial' -s n -l noheadings -d 'print no header line'
complete -c numaplace -n '__numaplace_option trial' -s r -l raw -d 'columns separated by one space, nothing aligned or cut'
complete -c numaplace -n '__numaplace_option trial' -s P -l pairs -d 'one line per row of NAME="value" pairs'
complete -c numaplace -n '__numaplace_option trial' -s J -l json -d 'print JSON: the runs, the medians, the interval and the verdict'
complete -c numaplace -n '__numaplace_option trial' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option trial' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand trial one' -a '(__numaplace_values profile-name)'

# verify
complete -c numaplace -n '__numaplace_option verify' -s J -l json -d 'print JSON: {"matches": true|false, "drift": [...]}'
complete -c numaplace -n '__numaplace_option verify' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option verify' -l profile-dir -x -a '(__numaplace_values dir)' -d 'look for profiles in DIR first (repeatable)'
complete -c numaplace -n '__numaplace_option verify' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand verify one' -a '(__numaplace_values profile-name)'

# revert
complete -c numaplace -n '__numaplace_option revert' -s f -l force -d 'restore even values that someone changed since the apply'
complete -c numaplace -n '__numaplace_option revert' -l dry-run -d 'print what would be restored and write nothing (no lock taken)'
complete -c numaplace -n '__numaplace_option revert' -l session -d 'revert every transaction of ID\'s hold session (default: the latest\'s), newest first'
complete -c numaplace -n '__numaplace_option revert' -l state-dir -x -a '(__numaplace_values dir)' -d 'where the transactions are (default /var/lib/numaplace, under --root)'
complete -c numaplace -n '__numaplace_option revert' -l no-wait -d 'fail at once when another apply or revert holds the lock'
complete -c numaplace -n '__numaplace_option revert' -s J -l json -d 'print JSON: {"reverted": true|false, "transaction": ID, "changes": [...]}'
complete -c numaplace -n '__numaplace_option revert' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option revert' -s h -l help -d 'show this help'

# enable
complete -c numaplace -n '__numaplace_option enable' -l profile-dir -x -a '(__numaplace_values dir)' -d 'look for profiles in DIR first (repeatable)'
complete -c numaplace -n '__numaplace_option enable' -s J -l json -d 'print JSON: {"enabled": true, "changed": true|false, "profile": NAME, ...}'
complete -c numaplace -n '__numaplace_option enable' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option enable' -l hold -d 'keep it applied too: numaplace-hold.service (\'numaplace hold --boot\') instead of numaplace.service'
complete -c numaplace -n '__numaplace_option enable' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand enable one' -a '(__numaplace_values profile-name)'

# disable
complete -c numaplace -n '__numaplace_option disable' -s J -l json -d 'print JSON: {"disabled": true|false, "file": PATH}'
complete -c numaplace -n '__numaplace_option disable' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option disable' -s h -l help -d 'show this help'

# history
complete -c numaplace -n '__numaplace_option history' -s J -l json -d 'print JSON instead of a table'
complete -c numaplace -n '__numaplace_option history' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option history' -l state-dir -x -a '(__numaplace_values dir)' -d 'where the transactions are (default /var/lib/numaplace, under --root)'
complete -c numaplace -n '__numaplace_option history' -s o -l output -x -a '(__numaplace_values columns)' -d 'the columns to show, comma-separated (\'-o help\' lists them; +COL,... adds them to the default ones); with --json, the keys'
complete -c numaplace -n '__numaplace_option history' -s n -l noheadings -d 'print no header line'
complete -c numaplace -n '__numaplace_option history' -s r -l raw -d 'columns separated by one space, nothing aligned or cut'
complete -c numaplace -n '__numaplace_option history' -s P -l pairs -d 'one line per row of NAME="value" pairs'
complete -c numaplace -n '__numaplace_option history' -s s -l sort -x -a '(__numaplace_values columns)' -d 'sort the rows by COLUMN (counts and shares largest first)'
complete -c numaplace -n '__numaplace_option history' -l prune -d 'remove the journals of old transactions that a revert no longer needs, and the outputs of old trials'
complete -c numaplace -n '__numaplace_option history' -l keep -x -d 'with --prune, keep the newest N transactions and N trials\' outputs (default 50)'
complete -c numaplace -n '__numaplace_option history' -s h -l help -d 'show this help'

# profile
complete -c numaplace -n '__numaplace_option profile' -l profile-dir -x -a '(__numaplace_values dir)' -d 'look for profiles in DIR first (repeatable)'
complete -c numaplace -n '__numaplace_option profile' -s J -l json -d 'print JSON instead of text'
complete -c numaplace -n '__numaplace_option profile' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option profile' -s o -l output -x -a '(__numaplace_values columns)' -d 'the columns to show, comma-separated (\'-o help\' lists them; +COL,... adds them to the default ones); with --json, the keys'
complete -c numaplace -n '__numaplace_option profile' -s n -l noheadings -d 'print no header line'
complete -c numaplace -n '__numaplace_option profile' -s r -l raw -d 'columns separated by one space, nothing aligned or cut'
complete -c numaplace -n '__numaplace_option profile' -s P -l pairs -d 'one line per row of NAME="value" pairs'
complete -c numaplace -n '__numaplace_option profile' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand profile many' -a '(__numaplace_values profile)'

# run
complete -c numaplace -n '__numaplace_option run' -l near -x -a '(__numaplace_values device)' -d 'run on the CPUs and memory of this device\'s node (an address, interface, block device, driver, matrix label, RDMA device or IRQ name)'
complete -c numaplace -n '__numaplace_option run' -l print -d 'print the binding (and the numactl equivalent) instead of running'
complete -c numaplace -n '__numaplace_option run' -s J -l json -d 'with --print, print JSON: {"device": ADDR, "cpus": LIST, "memory_nodes": LIST}'
complete -c numaplace -n '__numaplace_option run' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option run' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand run many' -a '(__numaplace_values exec)'

# move
complete -c numaplace -n '__numaplace_option move' -l node -x -d 'to node N\'s online CPUs (and memory)'
complete -c numaplace -n '__numaplace_option move' -l near -x -a '(__numaplace_values device)' -d 'to the CPUs and memory near this device, as run --near binds (an address, interface, block device, driver, matrix label, RDMA device or IRQ name)'
complete -c numaplace -n '__numaplace_option move' -l memory -d 'migrate its pages too (numa_migrate_pages); a revert does not move them back'
complete -c numaplace -n '__numaplace_option move' -l cgroup -d 'when a cgroup\'s cpuset owns its placement, change that cgroup\'s cpuset.cpus (and with --memory cpuset.mems) instead of refusing'
complete -c numaplace -n '__numaplace_option move' -l dry-run -d 'print the plan and write nothing'
complete -c numaplace -n '__numaplace_option move' -l state-dir -x -a '(__numaplace_values dir)' -d 'where the transactions are (default /var/lib/numaplace, under --root)'
complete -c numaplace -n '__numaplace_option move' -l no-wait -d 'fail at once when another apply or revert holds the lock'
complete -c numaplace -n '__numaplace_option move' -s J -l json -d 'print JSON: {"pid", "comm", "cpus", "changes": [...], ...}'
complete -c numaplace -n '__numaplace_option move' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option move' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand move one' -a '(__numaplace_values pid)'

# snapshot
complete -c numaplace -n '__numaplace_option snapshot' -s J -l json -d 'print JSON: {"output": OUT, "files": N, ...}'
complete -c numaplace -n '__numaplace_option snapshot' -l pretty -d 'indent the JSON (the default on a terminal)'
complete -c numaplace -n '__numaplace_option snapshot' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand snapshot many' -F

# completion
complete -c numaplace -n '__numaplace_option completion' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand completion one' -a '(__numaplace_values shell)'

# help
complete -c numaplace -n '__numaplace_option help' -s h -l help -d 'show this help'
complete -c numaplace -n '__numaplace_operand help one' -a '(__numaplace_values command)'
