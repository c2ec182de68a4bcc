# SPDX-License-Identifier: GPL-2.0-or-later
# The Ansible collection in ansible/ (numaplace.numaplace) driving the built
# binary, connection local, against copies of the r715 fixture: every task
# passes root: and state_dir: under $WORK, so nothing here touches this
# machine. The playbooks in tests/ansible/ hold the assertions; each runs one
# scenario group. ansible-test sanity is not run: it wants the collection in
# a git checkout of its own under ansible_collections/ and downloads its
# linters; ansible-doc and py_compile cover what it would check offline.

# A collection path holding ansible_collections/numaplace/numaplace -> ansible/,
# and a fresh writable copy of r715 with irqbalance's configuration file.
ansible_setup() {
	command -v ansible-playbook >/dev/null || skip_test "ansible-playbook not installed (make check installs ansible-core)"
	A=$WORK/ansible
	rm -rf "$A" && mkdir -p "$A/coll/ansible_collections/numaplace" "$A/tmp"
	ln -s "$TOP/ansible" "$A/coll/ansible_collections/numaplace/numaplace"
	ROOT=$A/root
	cp -a "$FIXTURES/r715" "$ROOT"
	mkdir -p "$ROOT/etc/default"
	printf '%s\n' '# irqbalance settings' 'IRQBALANCE_ARGS="--hintpolicy=exact"' >"$ROOT/etc/default/irqbalance"
	export ANSIBLE_COLLECTIONS_PATH=$A/coll ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_NOCOLOR=1 \
		ANSIBLE_LOCAL_TEMP=$A/tmp ANSIBLE_REMOTE_TEMP=$A/tmp ANSIBLE_RETRY_FILES_ENABLED=false \
		ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 HOME=$A \
		LC_ALL=C.UTF-8
	# No ansible.cfg of the machine or the checkout.
	unset ANSIBLE_CONFIG
}

# Runs a playbook of tests/ansible/ against the root; extra arguments go to
# ansible-playbook. Output in $A/NAME.log.
play() {
	local name=$1
	shift
	ansible-playbook -i localhost, "$@" -e "np=$NUMAPLACE root=$ROOT fixtures=$FIXTURES" \
		"$TOP/tests/ansible/$name.yml" >"$A/$name.log" 2>&1 || {
		tail -n 40 "$A/$name.log"
		die "playbook $name failed"
	}
}

test_ansible_check_apply_revert() {
	ansible_setup
	play lifecycle --diff
	# Diff mode: one line per value, before and after (check mode and the apply).
	grep -qx -- '-0000:22:00.0 irq 34 megasas: 0-15' "$A/lifecycle.log" || die "no before line in the diff"
	grep -qx -- '+0000:22:00.0 irq 34 megasas: 4-7' "$A/lifecycle.log" || die "no after line in the diff"
	grep -qx -- '+eth0 rx-0 rps_cpus: 0100' "$A/lifecycle.log" || die "no rps_cpus line in the diff"
}

test_ansible_failures() {
	ansible_setup
	play failures
}

test_ansible_persist_and_irqbalance() {
	ansible_setup
	play persist
	# The role: the ban notified the restart handler (skipped: under a root the
	# irqbalance to restart is not this host's).
	grep -q 'RUNNING HANDLER \[numaplace.numaplace.numaplace : Restart irqbalance\]' "$A/persist.log" ||
		grep -q 'RUNNING HANDLER \[numaplace : Restart irqbalance\]' "$A/persist.log" ||
		die "the role did not notify the irqbalance restart"
}

test_ansible_trial() {
	ansible_setup
	play trial
}

test_ansible_facts() {
	ansible_setup
	play facts
}

test_ansible_doc_and_syntax() {
	ansible_setup
	local m out
	for m in profile facts; do
		out=$(ansible-doc numaplace.numaplace.$m 2>&1) || die "ansible-doc $m: $out"
		[[ $out == *"EXAMPLES"* && $out == *"RETURN VALUES"* ]] || die "ansible-doc $m lacks examples or returns: $out"
	done
	[[ $(ansible-doc numaplace.numaplace.profile) == *"irqbalance_restart_needed"* ]] || die "profile's returns not rendered"
	PYTHONPYCACHEPREFIX=$A/pyc python3 -m py_compile "$TOP"/ansible/plugins/modules/*.py "$TOP"/ansible/plugins/module_utils/*.py
	ansible-playbook --syntax-check -i localhost, "$TOP"/tests/ansible/*.yml >/dev/null
	# The collection builds as ansible-galaxy publishes it.
	ansible-galaxy collection build --output-path "$A" "$TOP/ansible" >/dev/null
	[ -f "$A/numaplace-numaplace-"*.tar.gz ] || die "no collection tarball"
}

# The examples a user copies: the playbook under "Use" in ansible/README.md and
# the modules' EXAMPLES (ansible-doc), run as written, pointed at the fixture
# copy only by hosts: localhost and module_defaults (root:, state_dir:, the
# binary, the checkout's profiles). Their irqbalance restart must be skipped:
# the fixture's irqbalance is not this host's.
test_ansible_readme_examples_run() {
	ansible_setup
	# No irqbalance in this copy: a restart the examples asked for would be this host's.
	local comm running
	for comm in "$ROOT"/proc/[0-9]*/comm; do
		[ "$(cat "$comm")" != irqbalance ] || rm -rf "${comm%/comm}"
	done
	running=$("$NUMAPLACE" --root "$ROOT" apply --dry-run --json "$TOP/profiles/network-local.json" | jq '.irqbalance.running')
	expect_eq false "$running" "irqbalance running in the fixture (the example would restart this host's)"
	ROOT=$ROOT STATE=$ROOT/var/lib/numaplace NP=$NUMAPLACE PROFILES=$TOP/profiles OUT=$A/examples.yml python3 - \
		"$TOP/ansible/README.md" "$TOP/ansible/plugins/modules/profile.py" "$TOP/ansible/plugins/modules/facts.py" <<'PY' ||
import os, re, sys, yaml
defaults = {
    'numaplace.numaplace.profile': {'root': os.environ['ROOT'], 'state_dir': os.environ['STATE'],
                                    'executable': os.environ['NP'], 'profile_dirs': [os.environ['PROFILES']]},
    'numaplace.numaplace.facts': {'root': os.environ['ROOT'], 'executable': os.environ['NP']},
}
def local(play):
    play.update(hosts='localhost', connection='local', gather_facts=False, become=False,
                module_defaults=defaults)
    return play
plays = []
readme = open(sys.argv[1]).read()
for block in re.findall(r'```yaml\n(.*?)```', readme, re.S):
    doc = yaml.safe_load(block)
    if isinstance(doc, list) and doc and 'hosts' in doc[0]:
        plays += [local(p) for p in doc]
if not plays:
    sys.exit('no playbook in ' + sys.argv[1])
for module in sys.argv[2:]:
    src = open(module).read()
    tasks = yaml.safe_load(re.search(r"EXAMPLES = r'''\n(.*?)'''", src, re.S).group(1))
    plays.append(local({'name': 'EXAMPLES of ' + os.path.basename(module), 'tasks': tasks}))
yaml.safe_dump(plays, open(os.environ['OUT'], 'w'), sort_keys=False)
PY
		die "cannot extract the examples"
	ansible-playbook -i localhost, "$A/examples.yml" >"$A/examples.log" 2>&1 || {
		tail -n 40 "$A/examples.log"
		die "the README and EXAMPLES playbooks failed"
	}
	grep -q '^PLAY RECAP' "$A/examples.log" || die "no recap"
	grep -Eq 'localhost +: ok=[0-9]+ +changed=[1-9][0-9]* +unreachable=0 +failed=0' "$A/examples.log" ||
		die "nothing changed or something failed: $(grep -A2 'PLAY RECAP' "$A/examples.log")"
	# The README's apply, made and persisted: a transaction of network-local, its boot profile.
	"$NUMAPLACE" --root "$ROOT" history --json --state-dir "$ROOT/var/lib/numaplace" |
		jq -e '[.transactions[].profile] | index("network-local")' >/dev/null || die "no network-local transaction"
	[ -f "$ROOT/etc/numaplace/boot.json" ] || die "persist: true made no boot profile"
	# Both irqbalance restarts skipped.
	expect_eq 2 "$(grep -A1 -E 'TASK \[(irqbalance reads its bans only when it starts|Restart irqbalance so that it reads the new bans)\]' "$A/examples.log" |
		grep -c '^skipping')" "irqbalance restarts skipped"
}

# The role in check mode on a fresh host (no profile directory, no state):
# it says what it would change, writes nothing, and no irqbalance note.
test_ansible_role_check_mode_on_a_fresh_root() {
	ansible_setup
	rm -rf "$ROOT/etc/numaplace" "$ROOT/var/lib/numaplace"
	local before
	before=$(cd "$ROOT" && find . -newer "$ROOT/proc/interrupts" -o -type f -print | sort | md5sum)
	play role-check --check
	grep -q 'Install the profiles' "$A/role-check.log" || die "the role did not run: $(tail -5 "$A/role-check.log")"
	[ ! -e "$ROOT/etc/numaplace" ] && [ ! -e "$ROOT/var/lib/numaplace" ] || die "check mode wrote under the root"
	expect_eq "$before" "$(cd "$ROOT" && find . -newer "$ROOT/proc/interrupts" -o -type f -print | sort | md5sum)" \
		"files under the root after check mode"
	! grep -qi 'state unknown' "$A/role-check.log" || die "irqbalance note in check mode: $(grep -i 'state unknown' "$A/role-check.log")"
}

test_ansible_role_state_absent() {
	ansible_setup
	play role-absent
}
