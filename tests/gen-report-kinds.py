#!/usr/bin/env python3
"""gen-report-kinds.py OUTDIR: the archives of the report-kind data cases
(tests/data/21xx-kinds-*, `needs: kinds`), made from the bundled examples
(contrib/examples/{mlockmany,mincore}.tar.xz); run from the repository root.

  multi.tar     one commit, two tests (the second on another machine, 20% less
                improvement): one report with the "In addition to that" table
  fail.tar      a functional failure: no KPI moves, a kernel BUG in every head run
  failtest.tar  the same failure as a failure of the test itself (no kernel-log id)
  failver.tar   the same with the job's version field
  failnext.tar  the failure re-tested on three other trees' heads (two fail)
  mixed.tar     one commit: the functional failure and the mincore improvement
  boot.tar      a boot failure on a VM
"""
import io, json, lzma, os, sys, tarfile
T = sys.argv[1]
os.makedirs(T, exist_ok=True)
def load(name):
    src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/%s.tar.xz' % name, 'rb').read())))
    return [(m.name, src.extractfile(m).read()) for m in src.getmembers() if m.isfile()]
def write(path, members):
    with tarfile.open(path, 'w') as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
# two tests of the same commit: the second on another machine, 20% less improvement
base = load('mlockmany')
other = []
for name, data in base:
    name2 = name.replace('lkp-emr-2sp1', 'lkp-icl-2sp9')
    d = data.replace(b'lkp-emr-2sp1', b'lkp-icl-2sp9')
    if name.endswith('job.yaml'):
        d = d.replace(b'nr_cpu: 256', b'nr_cpu: 64').replace(b'nr_node: 4', b'nr_node: 2') \
             .replace(b'brand: INTEL(R) XEON(R) PLATINUM 8592+', b'brand: Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz') \
             .replace(b'model: Emerald Rapids', b'model: Ice Lake')
    other.append((name2, d))
write(T + '/multi.tar', base + other)
# a functional failure: no KPI moves, a kernel BUG appears in every head run
fail = []
head = '8807b68269657a8e419152e36c54046ec75247d3'
mats = {}
for name, data in load('mincore'):
    if name.endswith('/matrix.json'):
        mats[name] = json.loads(data)
bname = [n for n in mats if head not in n][0]
hname = [n for n in mats if head in n][0]
b, h = mats[bname], mats[hname]
for k in list(h):
    if k.startswith('stress-ng.') and k in b:
        h[k] = b[k] + [b[k][-1]] * (len(h['stats_source']) - len(b[k]))
h['dmesg.BUG:kernel_NULL_pointer_dereference,address'] = [1] * len(h['stats_source'])
h['dmesg.Oops'] = [1] * len(h['stats_source'])
for name, data in load('mincore'):
    if name in mats:
        data = json.dumps(mats[name], indent=2).encode()
    fail.append((name, data))
write(T + '/fail.tar', fail)
# a failure of the test itself (no kernel-log id): the fail:runs table
ftest = []
for name, data in fail:
    if name.endswith('/matrix.json'):
        m = json.loads(data)
        for k in [k for k in m if k.startswith('dmesg.')]:
            m['stress-ng.mincore.fail'] = m.pop(k)
        data = json.dumps(m, indent=2).encode()
    ftest.append((name, data))
write(T + '/failtest.tar', ftest)
# the same failure with the job's version field (bin/run-lkp appends it)
write(T + '/failver.tar', [(n, d + b"version: lkp-x86_64-0123abcd-1_20251001\n" if n.endswith('/job.yaml') else d)
                           for n, d in fail])
# the failure re-tested on other trees' heads: it shows on two of them (their
# names differ in length), not on the third (whose longer name must not pad)
others = [('d742a4c3fa217dd53796cd1b8d219297e41de3c9', 'linux-next/master', True),
          ('0123456789abcdef0123456789abcdef01234567', 'tip/sched/core', True),
          ('89abcdef0123456789abcdef0123456789abcdef', 'kvm/queue-with-a-long-name', False)]
nxt = list(fail)
for sha, br, fails in others:
    for name, data in fail:
        if head not in name:
            continue
        if name.endswith('/matrix.json') and not fails:
            m = json.loads(data)
            for k in [k for k in m if k.startswith('dmesg.')]:
                del m[k]
            data = json.dumps(m, indent=2).encode()
        data = data.replace(head.encode(), sha.encode())
        if name.endswith('/job.yaml'):
            data = data.replace(b'branch: linus/master', b'branch: ' + br.encode())
        nxt.append((name.replace(head, sha), data))
write(T + '/failnext.tar', nxt)
# one commit, two tests: the functional failure above on lkp-emr-2sp1, the
# mincore improvement (the seed report's) on a second machine
write(T + '/mixed.tar', fail + [(n.replace('lkp-emr-2sp1', 'lkp-icl-2sp9'), d.replace(b'lkp-emr-2sp1', b'lkp-icl-2sp9'))
                               for n, d in load('mincore')])
# a boot failure on a VM: every head boot hits the BUG, no base boot does
base_sha, boot = 'b5ac70b750f93ba32446145be56472cf6e5c1e8c', []
for c in (base_sha, head):
    root = 'result/boot/10m/vm-snb/debian-13-x86_64-20250902.cgz/x86_64-rhel-9.4/gcc-14/' + c
    runs = 3
    for i in range(runs):
        boot.append(('%s/%d/job.yaml' % (root, i), ('''suite: boot
testcase: boot
category: functional
timeout: 10m
job_origin: boot.yaml
tbox_group: vm-snb
testbox: vm-snb-12
model: qemu-system-x86_64 -enable-kvm -cpu SandyBridge
nr_cpu: 2
memory: 16G
kconfig: x86_64-rhel-9.4
compiler: gcc-14
rootfs: debian-13-x86_64-20250902.cgz
branch: linus/master
commit: %s
head_commit: %s
base_commit: %s
end_time: '1760490962'
''' % (c, head, base_sha)).encode()))
    m = {'dmesg.boot_failures': [0 if c == base_sha else 1] * runs,
         'stats_source': ['/%s/%d/stats.json' % (root, i) for i in range(runs)]}
    if c == head:
        m['dmesg.BUG:kernel_NULL_pointer_dereference,address'] = [1] * runs
    boot.append((root + '/matrix.json', json.dumps(m).encode()))
write(T + '/boot.tar', boot)
