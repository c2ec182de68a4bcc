#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: profile
short_description: Apply or revert a numaplace NUMA/IRQ placement profile
description:
  - Applies a numaplace profile (IRQ affinities, RPS/XPS CPUs, block queue settings, irqbalance
    bans) as one transaction with C(numaplace apply), or reverts the transaction that applied it
    with C(numaplace revert).
  - Runs only the numaplace command and reads its JSON output; numaplace must be installed on
    the host.
  - Idempotent. A profile already in place changes nothing and records no transaction.
author:
  - numaplace developers
version_added: 0.1.0
options:
  profile:
    description:
      - A profile name (looked up in I(profile_dirs), then numaplace's profile directories) or
        the path of a profile file on the host.
      - Exactly one of I(profile) and I(content) is needed for I(state=present), and for
        I(state=absent) unless I(transaction) is given.
    type: str
  content:
    description:
      - The profile itself, as a dictionary in the numaplace-profile/1 format (numaplace-profile(5)).
      - Written to a temporary file only the remote user can read (mode 0600), removed afterwards.
    type: dict
  state:
    description:
      - C(present) applies the profile, C(absent) reverts the transaction that applied it.
    type: str
    choices: [present, absent]
    default: present
  transaction:
    description:
      - For I(state=absent), the transaction to revert.
      - By default, the latest transaction of this profile still applied (C(numaplace history)).
      - An id as C(numaplace history) shows it (letters, digits, C(-) and C(_), not starting with C(-));
        anything else fails before numaplace runs.
    type: str
  persist:
    description:
      - With I(state=present), also make the profile the boot profile (C(numaplace enable)),
        applied at every boot by numaplace.service.
      - With I(state=absent), also remove the boot profile (C(numaplace disable)).
    type: bool
    default: false
  irqbalance:
    description:
      - What to do about a running or installed irqbalance, which would move the placed IRQs.
      - C(ban) adds the placed IRQs to C(IRQBALANCE_ARGS) in /etc/default/irqbalance, in the same
        transaction; C(warn) leaves the file alone and warns; C(ignore) does neither.
      - By default numaplace bans when irqbalance runs or is installed.
    type: str
    choices: [ban, warn, ignore]
  force:
    description:
      - For I(state=absent), restore even values that someone changed since the apply.
      - Without it such drift fails the task with numaplace's message.
    type: bool
    default: false
  trial:
    description:
      - With I(state=present), prove the profile on the host's own workload before keeping it
        (C(numaplace trial)) instead of applying it outright; the profile stays applied only
        when the verdict is C(keep), so a fleet keeps it only where it wins.
      - A host that matches the profile already is left alone (no trial runs).
      - In check mode the trial does not run; the changes a keep would make are reported.
    type: dict
    suboptions:
      command:
        description:
          - The benchmark, as a list of arguments (no shell; use C([sh, -c, "..."]) for one).
        type: list
        elements: str
        required: true
      runs:
        description:
          - Runs in each state, in pairs (C(--runs); numaplace's default 10, at least 6).
        type: int
      metric:
        description:
          - A regular expression whose first group captures the metric on the command's last
            matching output line (C(--metric)). Without it, the command's wall time is measured.
        type: str
      lower_is_better:
        description:
          - A lower I(metric) is better (a latency).
        type: bool
        default: false
      min_gain:
        description:
          - Keep only when the whole interval is above this gain, in percent (C(--min-gain)).
        type: float
  root:
    description:
      - Read and write under this directory instead of / (numaplace C(--root)), a copy of a
        machine or the host's /sys, /proc and /etc mounted into a container.
    type: path
  state_dir:
    description:
      - Where numaplace keeps its transactions (default /var/lib/numaplace, under I(root)).
    type: path
  profile_dirs:
    description:
      - Directories to look for I(profile) in first.
    type: list
    elements: path
    default: []
  wait:
    description:
      - Wait for another apply or revert holding numaplace's lock. C(false) fails at once
        (C(--no-wait)).
    type: bool
    default: true
  executable:
    description:
      - The numaplace command. By default the one found in PATH.
    type: path
notes:
  - Check mode runs C(numaplace apply --dry-run) or C(numaplace revert --dry-run); nothing is
    written, no lock is taken, no state directory is created.
  - Diff mode shows one line per value that changes, C(subject) and value, before and after.
  - An invalid profile, or one that does not fit this host (a device it names is missing, a CPU
    is offline), fails the task and changes nothing.
seealso:
  - module: numaplace.numaplace.facts
'''

EXAMPLES = r'''
- name: Place each NIC's IRQs and queues on its own node, at every boot too
  numaplace.numaplace.profile:
    profile: network-local
    persist: true
  register: placed

- name: Restart irqbalance so that it reads the new bans
  ansible.builtin.service:
    name: irqbalance
    state: restarted
  when: placed.irqbalance_restart_needed

- name: A profile written in the playbook
  numaplace.numaplace.profile:
    content:
      format: numaplace-profile/1
      name: megasas-node1
      settings:
        - kind: irq_affinity
          device: "0000:22:00.0"
          vector: megasas
          cpus: "4-7"
    irqbalance: ban

- name: Keep the storage profile only where it makes this host's workload faster
  numaplace.numaplace.profile:
    profile: storage-forced-completion
    trial:
      # A stand-in: put your benchmark here. Without metric, its wall time is measured;
      # with metric (a regular expression), the number in its first group on the last
      # matching line of the output, such as 'iops=([0-9.]+)'.
      command: [dd, if=/dev/zero, of=/dev/null, bs=64k, count=20000]
      runs: 6
  register: tried

- name: Undo it (reverts the latest transaction of megasas-node1)
  numaplace.numaplace.profile:
    profile: megasas-node1
    state: absent
'''

RETURN = r'''
changed:
  description: Whether a value changed (in check mode, would change).
  type: bool
  returned: always
transaction:
  description: The transaction applied or reverted, or null when nothing changed.
  type: str
  returned: always
  sample: 20261130-031500-1234
changes:
  description: The values changed (in check mode, that would change).
  type: list
  elements: dict
  returned: always
  contains:
    path:
      description: The file written, as the kernel names it (not under I(root)).
      type: str
      sample: /proc/irq/34/smp_affinity_list
    subject:
      description: What the value is, as numaplace names it.
      type: str
      sample: 0000:22:00.0 irq 34 megasas
    before:
      description: The value before.
      type: str
      sample: 0-15
    after:
      description: The value after.
      type: str
      sample: 4-7
drift:
  description:
    - Values changed by someone else since the profile was applied (C(numaplace verify)), which
      the revert refuses to overwrite unless I(force).
    - Each has path, subject, current and expected.
  type: list
  elements: dict
  returned: when I(state=absent) finds a transaction of a profile
boot_enabled:
  description: Whether the profile is now the boot profile (null when I(persist) is false, or in check mode).
  type: bool
  returned: always
irqbalance:
  description: numaplace's irqbalance object (running, action, irqs, added, restart).
  type: dict
  returned: when I(state=present)
irqbalance_restart_needed:
  description: irqbalance's configuration changed (or would change) while it runs; restart it.
  type: bool
  returned: always
trial:
  description:
    - With I(trial), what C(numaplace trial --json) printed - verdict (keep, revert or
      inconclusive), estimate and interval (ratios profile/baseline minus 1), level, seed,
      medians, runs - or null when no trial ran (the profile was in place, or check mode).
  type: dict
  returned: always
verdict:
  description: The trial's verdict, or null when no trial ran.
  type: str
  returned: always
  sample: keep
warnings:
  description: numaplace's notes and warnings.
  type: list
  elements: str
  returned: always
'''

import json
import os
import re
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.numaplace.numaplace.plugins.module_utils.cli import (
    COMMON_ARGS, EXIT_OK, EXIT_FAILURE, Numaplace, NumaplaceError, fail)

# A transaction id as numaplace names them (lib/txn: letters, digits, '-' and
# '_', at most 96, not starting with '-').
TRANSACTION_ID = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_-]{0,95}\Z')


def profile_file(module):
    """The profile argument for numaplace: the path or name given, or content in a 0600 file."""
    p = module.params
    if p['content'] is None:
        return p['profile']
    # mkstemp creates the file 0600: a profile may say more about the host than others should read.
    fd, path = tempfile.mkstemp(prefix='numaplace-', suffix='.json', dir=module.tmpdir)
    with os.fdopen(fd, 'w') as f:
        json.dump(p['content'], f, indent=2)
    module.add_cleanup_file(path)
    return path


def txn_args(p):
    args = []
    if p['state_dir']:
        args += ['--state-dir', p['state_dir']]
    if not p['wait']:
        args.append('--no-wait')
    return args


def diff_of(changes):
    line = lambda c, k: '%s: %s\n' % (c['subject'], c[k])
    return dict(before=''.join(line(c, 'before') for c in changes),
                after=''.join(line(c, 'after') for c in changes))


def restart_needed(ib, check):
    if not ib:
        return False
    if check:
        return bool(ib.get('running') and ib.get('action') == 'ban' and ib.get('added'))
    return bool(ib.get('restart'))


def trial_args(t):
    args = []
    if t.get('runs') is not None:
        args += ['--runs', str(t['runs'])]
    if t.get('metric'):
        args += ['--metric', t['metric']]
    if t.get('lower_is_better'):
        args.append('--lower-is-better')
    if t.get('min_gain') is not None:
        args += ['--min-gain', repr(float(t['min_gain']))]
    return args


def tried(module, np, result, args, prof):
    """state=present with trial: the changes a keep makes (from a dry run, before), then the
    trial itself; the profile stays only when its verdict is keep. Returns whether the
    profile is in place now."""
    p = module.params
    sd = ['--state-dir', p['state_dir']] if p['state_dir'] else []
    rc, doc, notes = np.json('apply', ['--dry-run'] + args + sd + [prof])
    changes = [dict(path=c['path'], subject=c['subject'], before=c['current'], after=c['new'])
               for c in doc.get('changes', []) if c.get('change')]
    result['warnings'] += notes
    if not changes or module.check_mode:
        # In place already (a trial would have no baseline), or check mode: no trial runs.
        result['changes'] = changes
        result['changed'] = bool(changes)
        return not changes
    trial = p['trial']
    rc, doc, notes = np.json('trial', trial_args(trial) + args + sd + [prof, '--'] + list(trial['command']))
    result['warnings'] += notes
    result['trial'] = doc
    result['verdict'] = doc.get('verdict')
    if doc.get('verdict') == 'keep':
        result['transaction'] = doc.get('transaction')
        result['changes'] = changes
        result['changed'] = True
    return result['changed']


def present(module, np, result):
    p = module.params
    prof = profile_file(module)
    args = []
    for d in p['profile_dirs']:
        args += ['--profile-dir', d]
    if p['irqbalance']:
        args.append('--irqbalance=' + p['irqbalance'])
    if p['trial'] is not None:
        kept = tried(module, np, result, args, prof)
        if p['persist'] and kept and not module.check_mode:
            dirs = []
            for d in p['profile_dirs']:
                dirs += ['--profile-dir', d]
            rc, doc, notes = np.json('enable', dirs + [prof])
            result['boot_enabled'] = True
            result['warnings'] += notes
        if module._diff:
            result['diff'] = diff_of(result['changes'])
        return
    if module.check_mode:
        # --dry-run takes no lock and creates no state directory: no --no-wait needed.
        sd = ['--state-dir', p['state_dir']] if p['state_dir'] else []
        rc, doc, notes = np.json('apply', ['--dry-run'] + args + sd + ['--', prof])
        changes = [dict(path=c['path'], subject=c['subject'], before=c['current'], after=c['new'])
                   for c in doc.get('changes', []) if c.get('change')]
    else:
        rc, doc, notes = np.json('apply', args + txn_args(p) + ['--', prof])
        changes = [dict(path=c['path'], subject=c['subject'], before=c['old'], after=c['new'])
                   for c in doc.get('changes', [])]
        result['transaction'] = doc.get('transaction')
    result['changes'] = changes
    result['changed'] = bool(changes)
    result['irqbalance'] = doc.get('irqbalance')
    result['irqbalance_restart_needed'] = restart_needed(doc.get('irqbalance'), module.check_mode)
    result['warnings'] += notes
    if p['persist'] and not module.check_mode:
        dirs = []
        for d in p['profile_dirs']:
            dirs += ['--profile-dir', d]
        rc, doc, notes = np.json('enable', dirs + ['--', prof])
        result['boot_enabled'] = True
        result['changed'] |= bool(doc.get('changed', True))
        result['warnings'] += notes
    if module._diff:
        result['diff'] = diff_of(changes)


def profile_name(module, np):
    p = module.params
    if p['content'] is not None:
        return p['content'].get('name')
    dirs = []
    for d in p['profile_dirs']:
        dirs += ['--profile-dir', d]
    # 'profile show' prints the profile's canonical text, which is JSON.
    # A profile applied from content: has no file; history knows it by name.
    by_name = p['state'] == 'absent' and '/' not in p['profile'] and not p['profile'].endswith('.json')
    rc, out, err = np.run('profile', ['show'] + dirs + ['--', p['profile']], ok=(0, 2) if by_name else (0,))
    if rc != 0:
        return p['profile']
    try:
        return json.loads(out).get('name')
    except ValueError:
        module.fail_json(msg='numaplace profile show %s printed no JSON' % p['profile'])


def latest_applied(module, np, name):
    sd = ['--state-dir', module.params['state_dir']] if module.params['state_dir'] else []
    rc, doc, notes = np.json('history', sd)
    mine = [t for t in doc.get('transactions', []) if t.get('profile') == name and t.get('state') == 'applied']
    return mine[-1]['id'] if mine else None


def drift_of(module, np):
    """The values that no longer match the profile since it was applied (numaplace verify):
    someone else's changes, which a revert refuses to overwrite without force."""
    p = module.params
    if p['profile'] is None and p['content'] is None:
        return []
    args = []
    for d in p['profile_dirs']:
        args += ['--profile-dir', d]
    try:
        rc, doc, notes = np.json('verify', args + ['--', profile_file(module)], ok=(EXIT_OK, EXIT_FAILURE))
    except NumaplaceError:
        # A profile that no longer fits this host can still be reverted by its journal.
        return []
    return doc.get('drift', [])


def absent(module, np, result):
    p = module.params
    txn = p['transaction'] or latest_applied(module, np, profile_name(module, np))
    if txn:
        result['drift'] = drift_of(module, np)
        args = txn_args(p) + (['--force'] if p['force'] else [])
        if module.check_mode:
            args = ['--dry-run'] + [a for a in args if a != '--no-wait']
        try:
            rc, doc, notes = np.json('revert', args + ['--', txn])
        except NumaplaceError as e:
            fail(module, e, transaction=txn, drift=result['drift'])
        result['warnings'] += notes
        if doc.get('reverted') or doc.get('dry_run'):
            # A dry run says what each value is now and what it would restore;
            # a revert what the apply had written (new) and restored (old).
            before, after = ('current', 'restore') if doc.get('dry_run') else ('new', 'old')
            result['changes'] = [dict(path=c['path'], subject=c['subject'], before=c[before], after=c[after])
                                 for c in doc.get('changes', [])]
            result['transaction'] = txn
            result['changed'] = bool(result['changes'])
        result['irqbalance_restart_needed'] = bool(doc.get('restart_irqbalance'))
    if p['persist']:
        if module.check_mode:
            result['boot_enabled'] = None
        else:
            rc, doc, notes = np.json('disable', [])
            result['boot_enabled'] = False
            result['changed'] |= bool(doc.get('disabled', False))
    if module._diff:
        result['diff'] = diff_of(result['changes'])


def main():
    args = dict(
        profile=dict(type='str'),
        content=dict(type='dict'),
        state=dict(type='str', choices=['present', 'absent'], default='present'),
        transaction=dict(type='str'),
        persist=dict(type='bool', default=False),
        irqbalance=dict(type='str', choices=['ban', 'warn', 'ignore']),
        force=dict(type='bool', default=False),
        state_dir=dict(type='path'),
        profile_dirs=dict(type='list', elements='path', default=[]),
        wait=dict(type='bool', default=True),
        trial=dict(type='dict', options=dict(
            command=dict(type='list', elements='str', required=True),
            runs=dict(type='int'),
            metric=dict(type='str'),
            lower_is_better=dict(type='bool', default=False),
            min_gain=dict(type='float'),
        )),
        **COMMON_ARGS
    )
    module = AnsibleModule(
        argument_spec=args,
        mutually_exclusive=[('profile', 'content')],
        required_if=[('state', 'present', ('profile', 'content'), True)],
        supports_check_mode=True,
    )
    p = module.params
    if p['state'] == 'absent' and not (p['transaction'] or p['profile'] or p['content'] or p['persist']):
        module.fail_json(msg='state=absent needs profile, content or transaction')
    # Operands follow '--' on every command line; the id is checked too, so
    # that a value such as '--force' is refused rather than taken for one.
    if p['transaction'] is not None and not TRANSACTION_ID.match(p['transaction']):
        module.fail_json(msg="transaction %r is not a transaction id (letters, digits, '-' and '_', "
                             "not starting with '-'; see numaplace history)" % p['transaction'])
    result = dict(changed=False, transaction=None, changes=[], boot_enabled=None,
                  irqbalance_restart_needed=False, warnings=[], trial=None, verdict=None)
    np = Numaplace(module)
    try:
        if p['state'] == 'present':
            present(module, np, result)
        else:
            absent(module, np, result)
    except NumaplaceError as e:
        fail(module, e, **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
