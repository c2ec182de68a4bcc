# SPDX-License-Identifier: GPL-2.0-or-later
# The licence: stated once in COPYING (and ansible/COPYING), named by every
# source file in its first lines, and said the same way by debian/copyright
# and the Ansible collection.

# Every file of ours that is code, a page, a unit or a completion names its
# licence in an SPDX line within its first three lines (after a shebang, a
# '#compdef' or a Python coding line); the collection's is GPL-3.0-or-later,
# the rest GPL-2.0-or-later. Test data (fixtures, goldens, corpora,
# snapshots) and profiles (JSON, which has no comments) are not sources.
test_every_source_names_its_licence() {
	local f want missing=
	cd "$TOP"
	[ -s COPYING ] && grep -q 'GNU GENERAL PUBLIC LICENSE' COPYING && grep -q 'Version 2' COPYING ||
		die "COPYING does not hold the GPL version 2"
	grep -q 'Version 3' ansible/COPYING || die "ansible/COPYING does not hold the GPL version 3"
	while IFS= read -r f; do
		case $f in
		ansible/*) want=GPL-3.0-or-later ;;
		*) want=GPL-2.0-or-later ;;
		esac
		head -n 3 "$f" | grep -Eq "SPDX-License-Identifier: $want( \\*/)?\$" ||
			missing+="$f (wants $want)"$'\n'
	done < <(git ls-files -- '*.c' '*.h' '*.sh' '*.py' '*.in' '*.zsh' 'ansible/*.yml' \
		.ci/run Makefile debian/rules completions/ | grep -v '^tests/fixtures/\|^tests/cases/\|^tests/fuzz/corpus/')
	[ -z "$missing" ] || die "no SPDX line naming the licence in:"$'\n'"$missing"
}

# debian/copyright and the collection say what the sources say.
test_copyright_and_galaxy_state_the_licence() {
	cd "$TOP"
	grep -q '^License: GPL-2.0-or-later$' debian/copyright || die "debian/copyright: no GPL-2.0-or-later paragraph"
	grep -q '^License: GPL-3.0-or-later$' debian/copyright || die "debian/copyright: no GPL-3.0-or-later paragraph"
	! grep -qi 'unlicensed' debian/copyright || die "debian/copyright still says unlicensed"
	grep -A1 '^license:' ansible/galaxy.yml | grep -q -- '- GPL-3.0-or-later' || die "galaxy.yml: licence not GPL-3.0-or-later"
}
