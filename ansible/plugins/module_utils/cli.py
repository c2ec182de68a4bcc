# SPDX-License-Identifier: GPL-3.0-or-later
# -*- coding: utf-8 -*-
# The one place the collection runs numaplace: the modules call its CLI and
# read its JSON, never its internals, so a host's numaplace and the collection
# can be upgraded apart.
from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json

# numaplace's exit statuses (numaplace(8), EXIT STATUS).
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2

# Options every module that runs numaplace takes.
COMMON_ARGS = dict(
    executable=dict(type='path'),
    root=dict(type='path'),
)


class NumaplaceError(Exception):
    def __init__(self, msg, rc, stderr):
        Exception.__init__(self, msg)
        self.rc = rc
        self.stderr = stderr


def _message(stderr, stdout):
    """numaplace's own one-line error: the last line it wrote to stderr."""
    lines = [l for l in (stderr or '').splitlines() if l.strip()]
    if not lines:
        lines = [l for l in (stdout or '').splitlines() if l.strip()]
    return lines[-1] if lines else 'no message'


class Numaplace(object):
    def __init__(self, module):
        self.module = module
        exe = module.params.get('executable')
        self.exe = exe or module.get_bin_path('numaplace', required=True)
        self.root = module.params.get('root')

    def argv(self, command, args):
        argv = [self.exe]
        if self.root:
            argv += ['--root', self.root]
        return argv + [command] + list(args)

    def run(self, command, args, ok=(EXIT_OK,)):
        """Runs a command; returns (rc, stdout, stderr) or raises on a status not in ok."""
        # No locale tricks: numaplace's messages are what the user reads.
        rc, out, err = self.module.run_command(self.argv(command, args), environ_update={'LC_ALL': 'C'})
        if rc not in ok:
            raise NumaplaceError(_message(err, out), rc, err)
        return rc, out, err

    def json(self, command, args, ok=(EXIT_OK,)):
        """Runs a command with --json; returns (rc, document, notes)."""
        rc, out, err = self.run(command, ['--json'] + list(args), ok)
        try:
            doc = json.loads(out)
        except ValueError as e:
            raise NumaplaceError('numaplace %s --json printed no JSON (%s): %s'
                                 % (command, e, out[:200]), rc, err)
        return rc, doc, notes_of(doc, err)


def notes_of(doc, stderr):
    """numaplace's notes and warnings: from its JSON when it carries them,
    else from stderr (numaplace before JSON carried them)."""
    if isinstance(doc, dict) and ('notes' in doc or 'warnings' in doc):
        return [str(n) for n in (doc.get('notes') or []) + (doc.get('warnings') or [])]
    return [l for l in (stderr or '').splitlines() if l.strip()]


def fail(module, e, **result):
    if e.rc == EXIT_USAGE:
        msg = 'invalid profile, or one that does not fit this host: %s' % e
    else:
        msg = str(e)
    module.fail_json(msg=msg, rc=e.rc, stderr=e.stderr, **result)
