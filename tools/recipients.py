#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Usage: tools/recipients.py [--help] TREE MAINTAINERS SERIES CC-FILE COVER PATCH...

Give every patch of one series its own To: and Cc:, the way
'b4 prep --auto-to-cc' and 'git send-email --cc-cmd' would: what the
kernel's scripts/get_maintainer.pl (run in TREE, no git history, with
the MAINTAINERS file given, the series' own) says of that patch, plus the lines of CC-FILE that match it.  Maintainers and the
subsystem lists go to To:, except LKML, which goes to Cc: with reviewers
and everybody CC-FILE adds.  The cover letter gets the union, Andrew
Morton and linux-mm first.  Edits the
files in place; headers are inserted after Subject:.

CC-FILE lines: SERIES  PATH-REGEX  ADDRESS  ('*' for any series; the
regex is searched in every path the patch touches, '.' matches any).
"""
import os
import re
import subprocess
import sys
sys.dont_write_bytecode = True  # nothing left in tools/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli import operands, usage_error  # noqa: E402

LKML = 'linux-kernel@vger.kernel.org'


def get_maintainer(tree, mfile, patch):
    env = dict(os.environ, PERL_HASH_SEED='0', PERL_PERTURB_KEYS='0')
    out = subprocess.run(
        ['perl', 'scripts/get_maintainer.pl', '--no-git', '--no-git-fallback',
         '--rolestats', '--mpath', mfile, patch],
        cwd=tree, env=env, capture_output=True, text=True, check=True).stdout
    to, cc = [], []
    for line in out.splitlines():
        m = re.match(r'^(.*?)\s*\((.*)\)$', line.strip())
        who, role = (m.group(1), m.group(2)) if m else (line.strip(), '')
        if not who:
            continue
        if 'reviewer' in role or LKML in who:
            cc.append(who)
        elif role.startswith(('maintainer', 'supporter', 'odd fixer', 'open list',
                              'moderated list', 'subscriber list', 'list')) or '<' not in who:
            to.append(who)
        else:
            cc.append(who)
    return to, cc


def touched(patch):
    paths = []
    for line in open(patch, encoding='utf-8'):
        m = re.match(r'^diff --git a/(\S+) b/(\S+)', line)
        if m:
            paths += [m.group(1), m.group(2)]
    return paths


def extra(ccfile, series, paths):
    add = []
    for line in open(ccfile, encoding='utf-8'):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        parts = line.split(None, 2)
        if len(parts) != 3:
            raise ValueError('%s: bad line: %s' % (ccfile, line))
        s, rx, who = parts
        if s != '*' and series not in s.split(','):
            continue
        if any(re.search(rx, p) for p in paths):
            add.append(who)
    return add


def addr(who):
    m = re.search(r'<([^>]+)>', who)
    return (m.group(1) if m else who).lower()


def uniq(seq, drop=()):
    seen, out = {addr(x) for x in drop}, []
    for x in seq:
        if addr(x) not in seen:
            seen.add(addr(x))
            out.append(x)
    return out


def insert(path, to, cc):
    """PATH's text with To: and Cc: after its Subject: header."""
    text = open(path, encoding='utf-8').read()
    head, sep, body = text.partition('\n\n')
    lines = head.split('\n')
    i = next((n for n, l in enumerate(lines) if l.startswith('Subject:')), None)
    if i is None:
        raise ValueError('%s: no Subject: header' % path)
    i += 1
    while i < len(lines) and lines[i][:1] in (' ', '\t'):
        i += 1
    new = []
    for name, who in (('To', to), ('Cc', cc)):
        if who:
            new.append('%s: %s' % (name, ',\n    '.join(who)))
    lines[i:i] = new
    return '\n'.join(lines) + sep + body


def main(argv):
    args = operands(argv, __doc__)
    if isinstance(args, int):
        return args
    if len(args) < 6:
        return usage_error('need TREE MAINTAINERS SERIES CC-FILE COVER and at '
                           'least one PATCH, got %d arguments' % len(args))
    tree, mfile, series, ccfile, cover = args[:5]
    patches = args[5:]
    if not os.path.isfile(os.path.join(tree, 'scripts', 'get_maintainer.pl')):
        return usage_error('%s is not a kernel tree (no scripts/get_maintainer.pl)' % tree)
    for f in [mfile, ccfile, cover] + patches:
        if not os.path.isfile(f):
            return usage_error('%s: no such file' % f)
    # Every patch's recipients first, then the edits: a failing
    # get_maintainer.pl leaves no file half-done.
    edits, all_to, all_cc = [], [], []
    for p in patches:
        to, cc = get_maintainer(tree, os.path.abspath(mfile), os.path.abspath(p))
        cc += extra(ccfile, series, touched(p))
        to = uniq(to)
        cc = uniq(cc, drop=to)
        edits.append((p, to, cc))
        all_to += to
        all_cc += cc
    # The cover letter leads with the mm tree, where these series go.
    all_to = uniq(all_to)
    all_to.sort(key=lambda w: 0 if addr(w) in ('akpm@linux-foundation.org', 'linux-mm@kvack.org') else 1)
    edits.append((cover, all_to, uniq(all_cc, drop=all_to)))
    texts = [(p, insert(p, to, cc)) for p, to, cc in edits]
    for p, text in texts:
        with open(p + '.tmp', 'w', encoding='utf-8') as f:
            f.write(text)
        os.replace(p + '.tmp', p)
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        sys.stderr.write('recipients.py: %s\n' % e)
        sys.exit(1)
