# SPDX-License-Identifier: GPL-2.0-or-later
# tests/install-deps.sh (make run/check's package step), with apt-get, dpkg-query
# and id replaced by stubs that log what they were asked: it names what it
# installs and waits for the dpkg lock instead of failing on it.

stub_path() {
	local bin="$WORK/deps-bin"
	rm -rf "$bin" && mkdir -p "$bin"
	printf '#!/bin/sh\necho 0\n' >"$bin/id"
	# Only "jq" is installed.
	printf '#!/bin/sh\n[ "$4" = jq ] && printf "install ok installed"\nexit 0\n' >"$bin/dpkg-query"
	printf '#!/bin/sh\necho "apt-get $*" >>"%s/apt.log"\n' "$WORK" >"$bin/apt-get"
	chmod +x "$bin"/*
	printf '%s' "$bin"
}

test_install_deps_waits_for_the_dpkg_lock() {
	local bin out
	bin=$(stub_path)
	rm -f "$WORK/apt.log"
	out=$(PATH="$bin:$PATH" sh tests/install-deps.sh jq tmux zsh)
	[[ $out == "installing with apt-get (waiting up to 600s for the dpkg lock): tmux zsh" ]] || die "does not say what it installs: $out"
	grep -qx 'apt-get -o DPkg::Lock::Timeout=600 update -qq' "$WORK/apt.log" || die "update without the lock timeout: $(cat "$WORK/apt.log")"
	grep -qx 'apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends tmux zsh' "$WORK/apt.log" ||
		die "install without the lock timeout: $(cat "$WORK/apt.log")"
	rm -f "$WORK/apt.log"
	out=$(PATH="$bin:$PATH" sh tests/install-deps.sh jq)
	[ -z "$out" ] && [ ! -e "$WORK/apt.log" ] || die "ran apt-get with nothing missing: $out"
}
