#!/usr/bin/env python3
# extract-golden.py - derive tests/data/golden/*.table from the spec texts.
#
# Usage: python3 tests/extract-golden.py [SEEDDIR [GOLDENDIR]]
#   SEEDDIR   default <dir of this script>/data/seed-reports (the spec texts,
#             vendored: see tests/data/README.md)
#   GOLDENDIR default <dir of this script>/data/golden
#
# Python 3 stdlib only; deterministic.  Sources:
#   mlockmany  SEEDDIR/stress-ng-mlockmany-improvement.txt
#   mincore    SEEDDIR/stress-ng-mincore-improvement.txt
#   worked     SEEDDIR/worked-example.txt (the ````text body of the "Worked
#              example" section of report-format.md)
#   multi      mincore table followed by mlockmany table (groups in byte order of
#              their result-root paths: ".../performance-100%-mincore-60s/..." sorts
#              before ".../performance-100%-mlockmany-60s/...")
#
# The table block is the text from the 89-'=' line to the first empty line after the
# rows.  The seed files were copied from a web archive that dropped some trailing
# blanks; every header line is rebuilt in its exact lkp-tests form (archive-format.md
# 3.5, report-format.md 6.1):
#   "commit: "                        (one trailing space)
#   "<base16> <head27> "              (one trailing space; missing in both seeds)
#   "---------------- --------------------------- "   (one trailing space)
#   "             \          |                \  "   (two trailing spaces)
# Data rows never end in blanks (they end with the stat name); trailing blanks on
# them are stripped.  The block ends with exactly one empty line.
#
# <name>.table           commit lines are "  <full 40-hex sha>" (base first), i.e.
#                        plain `ncompare` output without /lkp/repo/linux.
# <name>.subjects.table  commit lines are "  <sha10> (\"<subject>\")" copied verbatim
#                        from the source (0-day mail tooling form).
# Full SHAs: the head sha is the 40-hex sha of the source's "commit:" line.  The base
# sha is the 16 hex digits of the column header plus 24 synthesized hex digits:
#   sha1("robotmail-fixture-base:" + base16).hexdigest()[:24]
# (tests/gen-fixtures.py uses the same rule; tests/check-fixtures.py cross-checks).

import hashlib
import os
import re
import sys

EQ_LINE = '=' * 89


def synth_base_sha(base16):
    return base16 + hashlib.sha1(('robotmail-fixture-base:' + base16).encode()).hexdigest()[:24]


def extract_block(lines):
    """Return (table_lines, head_sha40) from the lines of a report text."""
    head = None
    for ln in lines:
        m = re.match(r'^commit: ([0-9a-f]{40}) \(', ln)
        if m:
            head = m.group(1)
            break
    if head is None:
        raise SystemExit('no "commit: <sha40> (" line found')
    start = lines.index(EQ_LINE)
    i = start
    block = []
    # header: '=', keys, values, blank, 'commit:', 2 commit lines, blank, shas, dashes,
    # %stddev, backslash line
    keys = lines[i + 1]
    vals = lines[i + 2]
    assert keys.endswith(':') and vals.startswith('  '), (keys, vals)
    assert lines[i + 3] == ''
    assert lines[i + 4].rstrip() == 'commit:', lines[i + 4]
    c0 = lines[i + 5]
    c1 = lines[i + 6]
    assert lines[i + 7] == ''
    shas = lines[i + 8].rstrip().split(' ')
    assert len(shas) == 2 and len(shas[0]) == 16 and len(shas[1]) == 27, shas
    assert lines[i + 9].rstrip() == '---------------- ---------------------------'
    assert lines[i + 10] == '         %stddev     %change         %stddev'
    assert lines[i + 11].rstrip() == '             \\          |                \\'
    rows = []
    j = i + 12
    while lines[j].strip() != '':
        rows.append(lines[j].rstrip(' '))
        j += 1
    base16, head27 = shas
    assert head.startswith(head27), (head, head27)
    base = synth_base_sha(base16)
    m0 = re.match(r'^  ([0-9a-f]{10}) \("(.*)"\)$', c0)
    m1 = re.match(r'^  ([0-9a-f]{10}) \("(.*)"\)$', c1)
    assert m0 and m1, (c0, c1)
    assert base.startswith(m0.group(1)) and head.startswith(m1.group(1))
    common = [EQ_LINE, keys, vals, '', 'commit: ']
    tail = ['', base16 + ' ' + head27 + ' ',
            '---------------- --------------------------- ',
            '         %stddev     %change         %stddev',
            '             \\          |                \\  ']
    tail += rows + ['']
    plain = common + ['  ' + base, '  ' + head] + tail
    subj = common + [c0.rstrip(' '), c1.rstrip(' ')] + tail
    return plain, subj, base, head


def to_text(lines):
    return '\n'.join(lines) + '\n'


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    spec = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, 'data', 'seed-reports')
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, 'data', 'golden')
    os.makedirs(out, exist_ok=True)

    def read_lines(path):
        with open(path, 'rb') as f:
            return f.read().decode('utf-8').split('\n')

    res = {}
    seeds = {
        'mlockmany': os.path.join(spec, 'stress-ng-mlockmany-improvement.txt'),
        'mincore': os.path.join(spec, 'stress-ng-mincore-improvement.txt'),
    }
    for name, path in seeds.items():
        res[name] = extract_block(read_lines(path))

    res['worked'] = extract_block(read_lines(os.path.join(spec, 'worked-example.txt')))

    written = []
    for name in ('mlockmany', 'mincore', 'worked'):
        plain, subj, _, _ = res[name]
        for fn, content in ((name + '.table', plain), (name + '.subjects.table', subj)):
            with open(os.path.join(out, fn), 'wb') as f:
                f.write(to_text(content).encode('utf-8'))
            written.append(fn)
    multi = to_text(res['mincore'][0]) + to_text(res['mlockmany'][0])
    with open(os.path.join(out, 'multi.table'), 'wb') as f:
        f.write(multi.encode('utf-8'))
    written.append('multi.table')
    for name in ('mlockmany', 'mincore', 'worked'):
        print('%-10s base %s head %s' % (name, res[name][2], res[name][3]))
    print('wrote', ' '.join(written), 'to', out)


if __name__ == '__main__':
    main()
