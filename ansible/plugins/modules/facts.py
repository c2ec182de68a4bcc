#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: facts
short_description: numaplace's report of a host as facts
description:
  - Runs C(numaplace report --json) and returns it as C(ansible_facts.numaplace) (topology,
    devices, IRQ placement, irqbalance and findings), so that a play can branch on findings and
    compare hosts (hostname, kernel release and boot id are part of the report).
  - Reads only; never changes the host.
author:
  - numaplace developers
version_added: 0.1.0
options:
  interval:
    description:
      - Sample /proc/interrupts over this many seconds, so that the report says where IRQs run
        now rather than since boot (numaplace C(--interval)).
    type: int
  root:
    description:
      - Read under this directory instead of / (numaplace C(--root)).
    type: path
  executable:
    description:
      - The numaplace command. By default the one found in PATH.
    type: path
seealso:
  - module: numaplace.numaplace.profile
'''

EXAMPLES = r'''
- name: Gather numaplace facts
  numaplace.numaplace.facts:
    interval: 5

- name: Report hosts with IRQs far from their devices
  ansible.builtin.debug:
    msg: "{{ item.message }}"
  loop: "{{ ansible_facts.numaplace.findings }}"
  when: item.severity == 'warning'
'''

RETURN = r'''
ansible_facts:
  description: Facts added.
  returned: always
  type: dict
  contains:
    numaplace:
      description: The output of C(numaplace report --json) (numaplace(8), JSON OUTPUT).
      type: dict
      returned: always
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.numaplace.numaplace.plugins.module_utils.cli import (
    COMMON_ARGS, Numaplace, NumaplaceError, fail)


def main():
    module = AnsibleModule(
        argument_spec=dict(interval=dict(type='int'), **COMMON_ARGS),
        supports_check_mode=True,
    )
    args = []
    if module.params['interval'] is not None:
        args += ['--interval', str(module.params['interval'])]
    np = Numaplace(module)
    try:
        rc, doc, notes = np.json('report', args)
    except NumaplaceError as e:
        fail(module, e)
    module.exit_json(changed=False, ansible_facts=dict(numaplace=doc), warnings=notes)


if __name__ == '__main__':
    main()
