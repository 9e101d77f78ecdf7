#!/usr/bin/env python3
"""gen-functional.py - a functional-test result archive from a case's spec.

    python3 tests/gen-functional.py SPEC.json OUTDIR [--tar FILE]

SPEC.json (paths in it are relative to the spec's folder):

    {"testcase": "boot", "tbox_group": "vm-snb", "job": {...extra job.yaml fields...},
     "params": [["key", "value"], ...],            # the test's parameters, in order
     "program": "locktorture",                       # (opt) params under this key, as
                                                     # lkp-tests writes a program's options
     "axes": {"timeout": "10m"},                     # path axes before the machine
     "branch": "linus/master", "base": SHA40, "head": SHA40,
     "runs": {"base": 3, "head": 3},
     "stats": {"base": {"dmesg.boot_failures": 0}, "head": {"dmesg.X": 1, "dmesg.timestamp:X": 7.4}},
     "logs": {"head": {"dmesg.xz": "dmesg.txt"}},   # run files, compressed by suffix (.xz, .gz)
     "truncate": {"dmesg.xz": 0.5}}                  # keep this part of a compressed file

Every run of a side gets the same stats (numbers, or a list with one value per
run) and the same log files.  The commit-level matrix.json holds each stat per
run, as lkp-tests' merged matrix does, with stats_source naming the runs.
Writes OUTDIR/result/<testcase>/...; with --tar also a tarball of it.
"""
import gzip
import json
import lzma
import os
import sys
import tarfile


def job_yaml(spec, commit, rt):
    lines = ['suite: %s' % spec['testcase'], 'testcase: %s' % spec['testcase'],
             'category: %s' % spec.get('job', {}).get('category', 'functional')]
    if spec.get('program'):
        lines.append('%s:' % spec['program'])
    for k, v in spec.get('params', []):
        lines.append('%s%s: %s' % ('  ' if spec.get('program') else '', k, v))
    for k, v in spec.get('job', {}).items():
        if k == 'category':
            continue
        lines.append('%s: %s' % (k, v))
    lines += ['tbox_group: %s' % spec['tbox_group'],
              'branch: %s' % spec['branch'],
              'commit: %s' % commit,
              'head_commit: %s' % spec['head'],
              'base_commit: %s' % spec['base'],
              '_rt: "%s"' % rt]
    return '\n'.join(lines) + '\n'


def compress(name, data):
    if name.endswith('.xz'):
        return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64)
    if name.endswith('.gz'):
        return gzip.compress(data, mtime=0)
    return data


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != '--tar'):
        sys.stderr.write(__doc__)
        return 2
    spec_path, out = argv[1], argv[2]
    here = os.path.dirname(os.path.abspath(spec_path))
    spec = json.load(open(spec_path))
    axes = '/'.join([v for v in spec.get('axes', {}).values()] or ['default'])
    group = 'result/%s/%s/%s/%s/%s/%s' % (
        spec['testcase'], axes, spec['tbox_group'], spec['job'].get('rootfs', 'rootfs'),
        spec['job'].get('kconfig', 'kconfig'), spec['job'].get('compiler', 'compiler'))
    for side in ('base', 'head'):
        commit = spec[side]
        rt = '/' + group + '/' + commit
        n = spec['runs'][side]
        stats = spec.get('stats', {}).get(side, {})
        matrix = {}
        for k, v in stats.items():
            matrix[k] = v if isinstance(v, list) else [v] * n
        matrix['stats_source'] = ['%s/%d/stats.json' % (rt, i) for i in range(n)]
        for i in range(n):
            d = os.path.join(out, group, commit, str(i))
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, 'job.yaml'), 'w') as f:
                f.write(job_yaml(spec, commit, rt))
            with open(os.path.join(d, 'stats.json'), 'w') as f:
                json.dump({k: v[i] for k, v in matrix.items() if k != 'stats_source'}, f, indent=2)
            for name, src in spec.get('logs', {}).get(side, {}).items():
                data = compress(name, open(os.path.join(here, src), 'rb').read())
                cut = spec.get('truncate', {}).get(name)
                if cut:
                    data = data[:int(len(data) * cut)]
                with open(os.path.join(d, name), 'wb') as f:
                    f.write(data)
        with open(os.path.join(out, group, commit, 'matrix.json'), 'w') as f:
            json.dump(matrix, f, indent=2)
    if len(argv) == 5:
        with tarfile.open(argv[4], 'w:xz' if argv[4].endswith('.xz') else 'w') as t:
            t.add(os.path.join(out, 'result'), arcname='result')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
