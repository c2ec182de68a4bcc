# SPDX-License-Identifier: GPL-2.0-or-later
# Manual pages: both render without a warning, and numaplace(8) documents
# every command with the same usage line, summary, options, option help and
# epilog as its --help (cmd/main.c and the option tables in cmd/*.c), and
# documents no option that a command does not have.

# The pages as make check built them from man/*.in, with the configured paths.
MAN8=$TOP/build/man/numaplace.8
MAN5=$TOP/build/man/numaplace-profile.5

# The roff text of a page as plain words: the font escapes go, escaped
# hyphens and the other escapes these pages use become their characters.
roff_plain() {
	sed -E -e 's/\\f[BIRP]//g' -e 's/\\f\[[A-Z]*\]//g' -e 's/\\-/-/g' -e 's/\\&//g' \
		-e 's/\\\(aq/'"'"'/g' -e 's/\\\(dq/"/g' -e 's/\\\(em/--/g' -e 's/\\ / /g' -e 's/\\e/\\/g'
}

# The text of one section of a page: the .SH section named $2, or with $3 the
# .SS subsection $3 inside it. One line per paragraph (the text lines of a
# paragraph joined with spaces, as roff fills them), and the tag of a .TP
# item on a line of its own. The font macros (.B, .BR, ...) count as text;
# every other request ends a paragraph. With $4 "tags", only the .TP tags.
section_text() {
	local page=$1 sh=$2 ss=${3-} only=${4-}
	awk -v want_sh="$sh" -v want_ss="$ss" -v only="$only" -v sq="'" '
		# The arguments of a macro line, joined without spaces as the
		# alternating font macros join them ("" inside quotes is a quote).
		function args(line,    out, i, c, q) {
			out = ""; q = 0
			sub(/^\.[A-Za-z]+[ \t]*/, "", line)
			for (i = 1; i <= length(line); i++) {
				c = substr(line, i, 1)
				if (q && c == "\"" && substr(line, i + 1, 1) == "\"") { out = out "\""; i++ }
				else if (c == "\"") q = !q
				else if (!q && (c == " " || c == "\t")) continue
				else out = out c
			}
			return out
		}
		# The title of .SH or .SS: the rest of the line, unquoted.
		function title(line) {
			sub(/^\.S[HS][ \t]*/, "", line); gsub(/"/, "", line); return line
		}
		function flush() { if (para != "" && only != "tags") print para; para = "" }
		function text(t) {
			if (tag) { flush(); print t; tag = 0 }
			else para = para == "" ? t : para " " t
		}
		/^\.SH/ { flush(); cur_sh = title($0); cur_ss = ""; next }
		/^\.SS/ { flush(); cur_ss = title($0); next }
		cur_sh != want_sh || cur_ss != want_ss { next }
		/^\.TP/ { flush(); tag = 1; next }
		/^\.(B|I|SM|SB)[ \t]/ {
			t = $0; sub(/^\.[A-Z]+[ \t]+/, "", t); gsub(/"/, "", t); text(t); next
		}
		/^\.(BR|RB|IR|RI|BI|IB)[ \t]/ { text(args($0)); next }
		/^\./ || substr($0, 1, 1) == sq { flush(); tag = 0; next }
		{ text($0) }
		END { flush() }
	' "$page" | roff_plain
}

# The commands of 'numaplace help', in its order.
help_commands() {
	"$NUMAPLACE" help | awk '/^Commands:$/ { f = 1; next } f && /^$/ { exit } f { print $1 }'
}

# The .SS subsections of the COMMANDS section, in the page's order.
man_commands() {
	awk '/^\.SH/ { f = ($0 ~ /^\.SH[ \t]+"?COMMANDS"?[ \t]*$/); next }
		f && /^\.SS/ { sub(/^\.SS[ \t]+/, ""); gsub(/"/, ""); print }' "$MAN8"
}

# Checks that the paragraphs in $2 have a line equal to $1 ($3: what it is).
expect_line() {
	grep -qxF -- "$1" <<<"$2" || die "$3: no line '$1' in the man page's section"
}
# Checks that the paragraphs in $2 contain $1 ($3: what it is).
expect_text() {
	grep -qF -- "$1" <<<"$2" || die "$3: '$1' is not in the man page's section"
}

# Option lines of a --help ("  -j, --json   print JSON"): prints the tag
# ("-j, --json", "--state-dir DIR") and the help, separated by a tab. A help
# that goes on over indented lines (not starting with '-') is joined to its
# first line.
help_options() {
	local block=$1 re='^ +(-([^ ]| [^ ])*)  +([^ ].*)$' line tag='' text=''
	while IFS= read -r line; do
		if [[ $line =~ ^\ +[^-\ ] && -n $tag ]]; then
			text+=" ${line#"${line%%[! ]*}"}"
			continue
		fi
		[ -z "$tag" ] || printf '%s\t%s\n' "$tag" "$text"
		[[ $line =~ $re ]] || die "cannot read the option line '$line' (the help column overflows?)"
		tag=${BASH_REMATCH[1]} text=${BASH_REMATCH[3]}
	done <<<"$block"
	[ -z "$tag" ] || printf '%s\t%s\n' "$tag" "$text"
}

test_man_pages_render_without_warnings() {
	command -v groff >/dev/null || die "groff is not installed (Debian: groff-base; 'make check-deps')"
	local page dev out status
	for page in "$MAN8" "$MAN5"; do
		[ -f "$page" ] || die "missing $page"
		# The default device (typeset) and a terminal's, as man(1) shows it.
		for dev in "" -Tutf8; do
			status=0
			out=$(groff -man -ww ${dev:+"$dev"} -z "$page" 2>&1) || status=$?
			if [ "$status" -ne 0 ] || [ -n "$out" ]; then
				die "groff -man -ww ${dev:+$dev }-z ${page#"$TOP/"} (exit $status): $out"
			fi
		done
	done
	if command -v mandoc >/dev/null; then
		for page in "$MAN8" "$MAN5"; do
			status=0
			out=$(mandoc -Tlint "$page" 2>&1) || status=$?
			if [ "$status" -ne 0 ] || [ -n "$out" ]; then
				die "mandoc -Tlint ${page#"$TOP/"} (exit $status): $out"
			fi
		done
	else
		echo "mandoc is not installed: only groff checked the pages"
	fi
}

test_every_command_documented() {
	local in_help in_man
	in_help=$(help_commands)
	in_man=$(man_commands)
	[ -n "$in_help" ] || die "no commands in 'numaplace help'"
	local missing extra
	missing=$(comm -23 <(sort <<<"$in_help") <(sort <<<"$in_man"))
	extra=$(comm -13 <(sort <<<"$in_help") <(sort <<<"$in_man"))
	[ -z "$missing" ] ||
		die "commands without a subsection in COMMANDS of man/numaplace.8: $(paste -sd ' ' - <<<"$missing")"
	[ -z "$extra" ] ||
		die "subsections of COMMANDS in man/numaplace.8 that are no command: $(paste -sd ' ' - <<<"$extra")"
	expect_eq "$(paste -sd ' ' - <<<"$in_help")" "$(paste -sd ' ' - <<<"$in_man")" \
		"order of the commands (numaplace help, then man/numaplace.8)"
}

test_help_matches_man() {
	local cmd help text usage summary options parsed epilog tag opt_help exit_text n=0
	local exit_status
	exit_status=$(section_text "$MAN8" "EXIT STATUS")
	[ -n "$exit_status" ] || die "man/numaplace.8 has no EXIT STATUS section"

	# The global options and the general exit status.
	help=$("$NUMAPLACE" --help)
	text=$(section_text "$MAN8" SYNOPSIS)
	expect_line "$(sed -n '1s/^Usage: //p' <<<"$help")" "$text" "SYNOPSIS"
	text=$(section_text "$MAN8" "GLOBAL OPTIONS")
	options=$(awk '/^Global options:$/ { f = 1; next } f && /^$/ { exit } f' <<<"$help")
	[ -n "$options" ] || die "no global options in 'numaplace --help'"
	parsed=$(help_options "$options") || die "cannot read the global options of 'numaplace --help'"
	while IFS=$'\t' read -r tag opt_help; do
		expect_line "$tag" "$text" "GLOBAL OPTIONS, option $tag"
		expect_text "$opt_help" "$text" "GLOBAL OPTIONS, help of $tag"
	done <<<"$parsed"
	exit_text=$(sed -n 's/^Exit status: //p' <<<"$help")
	[ -n "$exit_text" ] || die "no exit status in 'numaplace --help'"
	expect_text "${exit_text%.}" "$exit_status" "EXIT STATUS"

	for cmd in $(help_commands); do
		help=$("$NUMAPLACE" "$cmd" --help) || die "numaplace $cmd --help failed"
		text=$(section_text "$MAN8" COMMANDS "$cmd")
		[ -n "$text" ] || die "man/numaplace.8 has no subsection '$cmd' in COMMANDS"
		usage=$(sed -n '1s/^Usage: //p' <<<"$help")
		[ -n "$usage" ] || die "numaplace $cmd --help has no Usage line"
		expect_line "$usage" "$text" "$cmd: usage"
		summary=$(sed -n 3p <<<"$help")
		expect_text "$summary" "$text" "$cmd: summary"

		options=$(awk '/^Options:$/ { f = 1; next } f && /^$/ { exit } f' <<<"$help")
		[ -n "$options" ] || die "numaplace $cmd --help has no options"
		parsed=$(help_options "$options") || die "cannot read the options of 'numaplace $cmd --help'"
		while IFS=$'\t' read -r tag opt_help; do
			[[ $tag =~ --[A-Za-z0-9-]+ ]] || die "$cmd: no long name in '$tag'"
			expect_text "${BASH_REMATCH[0]}" "$text" "$cmd: option ${BASH_REMATCH[0]}"
			expect_line "$tag" "$text" "$cmd: option $tag (name, short name, argument)"
			expect_text "$opt_help" "$text" "$cmd: help of $tag"
			n=$((n + 1))
		done <<<"$parsed"

		# And no option in the page that the command does not have.
		while IFS= read -r tag; do
			[[ $tag == -* ]] || continue
			grep -qxF -- "$tag" <<<"$(cut -f 1 <<<"$parsed")" ||
				die "$cmd: the man page documents '$tag', which 'numaplace $cmd --help' does not list"
		done < <(section_text "$MAN8" COMMANDS "$cmd" tags)

		# The epilog, after the options: in the section as --help has it, and
		# its exit status sentence also in EXIT STATUS.
		epilog=$(awk '/^Options:$/ { f = 1; next } f && /^$/ { e = 1; next } e' <<<"$help" | paste -sd ' ' -)
		if [ -n "$epilog" ]; then
			expect_text "$epilog" "$text" "$cmd: epilog"
			if [[ $epilog == *"Exit status: "* ]]; then
				# Its sentence: up to the first full stop that ends one.
				exit_text=${epilog#*Exit status: }
				exit_text=${exit_text%%. *}
				expect_text "${exit_text%.}" "$exit_status" "EXIT STATUS of $cmd"
			fi
		fi
	done
	[ "$n" -ge "$(help_commands | wc -l)" ] || die "expected an option line (at least --help) per command, found $n"
}

# Every key of every command's JSON is in the JSON OUTPUT section: the keys
# the commands print on the fixtures (object keys at any depth; per_node's
# node ids are values, not names).
test_json_keys_documented() {
	local text r715=$FIXTURES/r715 keys key missing=()
	text=$(section_text "$MAN8" "JSON OUTPUT"; for s in topo devices irqs report advise app apply verify revert enable disable history profile run snapshot; do
		section_text "$MAN8" "JSON OUTPUT" "$s"; done)
	[ -n "$text" ] || die "man/numaplace.8 has no JSON OUTPUT section"
	keys=$( {
		"$NUMAPLACE" --root "$r715" report --json
		"$NUMAPLACE" --root "$FIXTURES/amd16" advise --policy spread --json
		"$NUMAPLACE" --root "$FIXTURES/r715-app" app 3101 --json
		"$NUMAPLACE" --root "$r715" irqs --json --interval 0.01
		"$NUMAPLACE" --root "$r715" history --json
		"$NUMAPLACE" --root "$r715" profile list --json
		"$NUMAPLACE" --root "$r715" profile show network-local --json | jq 'del(.profile)'
		"$NUMAPLACE" --root "$r715" run --near eth4 --print --json
		"$NUMAPLACE" --root "$FIXTURES/gpu8" devices --matrix --json
		"$NUMAPLACE" --root "$FIXTURES/gpu8" devices --near 0000:18:00.0 --json
		"$NUMAPLACE" --root "$r715" disable --json
		"$NUMAPLACE" profile validate "$TOP/profiles/network-local.json" --json
		rm -rf "$WORK/man-snapshot"
		"$NUMAPLACE" --root "$FIXTURES/onenode" snapshot --json "$WORK/man-snapshot"
	} | jq -r '[paths | .[] | strings | select(test("^[0-9]+$") | not)] | unique[]' | sort -u)
	[ -n "$keys" ] || die "no JSON keys found"
	for key in $keys; do
		grep -qw -- "$key" <<<"$text" || missing+=("$key")
	done
	[ ${#missing[@]} -eq 0 ] || die "JSON keys not in the JSON OUTPUT section of man/numaplace.8: ${missing[*]}"
	# And every column of the table commands, which -o and --json take.
	for key in $("$NUMAPLACE" --root "$r715" irqs -o help | awk 'NR > 1 { print $1 }') \
		$("$NUMAPLACE" --root "$r715" history -o help | awk 'NR > 1 { print $1 }') \
		$("$NUMAPLACE" --root "$FIXTURES/gpu8" devices --near 0000:18:00.0 -o help | awk 'NR > 1 { print $1 }'); do
		grep -qw -- "$key" <<<"$text" || die "column '$key' is not in the JSON OUTPUT section"
	done
}

# The page's column lists are the commands' column tables: each "Its
# columns (-o help): ...; the default: ..." sentence names every column of
# the table it follows ('numaplace CMD -o help': under --near, devices
# --near's), in its order, and the default ones, and every command whose
# page documents -o COLUMNS has one.
test_man_column_lists_match_the_tables() {
	local cmd text line tag have inv help list dflt n=0
	# A sentence's names: its parenthesised words left out, ", "-separated.
	names_of() { sed -E -e 's/ \([^)]*\)//g' -e 's/, /,/g' <<<"$1"; }
	for cmd in $(help_commands); do
		text=$(section_text "$MAN8" COMMANDS "$cmd")
		tag='' have=0
		grep -qx -- '-o, --output COLUMNS' <<<"$text" || continue
		while IFS= read -r line; do
			[[ $line == -* ]] && { tag=$line; continue; }
			[[ $line == *"Its columns (-o help): "* ]] || continue
			list=${line#*Its columns (-o help): }
			[[ $list == *"; the default: "* ]] || die "$cmd: its column list says no default: $list"
			dflt=${list#*; the default: }
			dflt=${dflt%%.*}
			list=${list%%; the default: *}
			case $cmd/$tag in
			devices/--near*) inv=(--root "$FIXTURES/gpu8" devices --near 0000:18:00.0) ;;
			profile/*) inv=(profile list) ;;
			*) inv=("$cmd") ;;
			esac
			help=$("$NUMAPLACE" "${inv[@]}" -o help) || die "numaplace ${inv[*]} -o help failed"
			expect_eq "$(awk 'NR > 1 { print $1 }' <<<"$help" | paste -sd , -)" "$(names_of "$list")" \
				"$cmd: the columns the page lists (numaplace ${inv[*]} -o help, then the page)"
			expect_eq "$(sed -n '1s/.*the default: \([^)]*\)).*/\1/p' <<<"$help")" "$(names_of "$dflt")" \
				"$cmd: the default columns the page lists"
			have=$((have + 1)) n=$((n + 1))
		done <<<"$text"
		[ "$have" -gt 0 ] || die "$cmd: the page documents -o COLUMNS but lists no columns (Its columns (-o help): ...)"
	done
	[ "$n" -ge 5 ] || die "expected the column lists of devices, irqs, trial, history and profile, found $n"
}
