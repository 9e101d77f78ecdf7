#!/usr/bin/env bash
# report-kinds: a commit that changes several tests (one report, the "In
# addition to that" table and a details section per test), and a functional
# failure report (fail:runs table, tags, no Disclaimer).
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
cat >"$T/cfg.yaml" <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/state.db
$(linus_tree local-git "$T/repo")
CFG
"$PY" - "$T" <<'PYEOF'
import io, json, lzma, sys, tarfile
T = sys.argv[1]
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
PYEOF
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/multi.tar" >"$T/multi.out" 2>"$T/multi.err"
[ "$(grep -c '^DATA$' "$T/multi.out")" = 1 ] && ok "two tests changed by one commit make one report" || not_ok "one report" "$(grep -c '^DATA$' "$T/multi.out")" "$(cat "$T/multi.err")"
"$PY" - "$T/multi.out" <<'PYEOF'
import re, sys
sys.path.insert(0, 'tests'); import dryrun; t = dryrun.text(sys.argv[1])
def out(ok, name, d=''):
    print(('ok - ' if ok else 'not ok - ') + name + (('\n    ' + d.replace('\n', '\n    ')) if d and not ok else ''))
m = re.search(r'\n\tcpufreq_governor: performance\n\n\nIn addition to that, the commit also has significant impact on the following tests:\n\n((?:[+|].*\n)+)\n\nDetails are as below:\n', t)
out(bool(m), 'the "In addition to that" table sits between the parameters and the details, two blanks after it (report-format.md 3 item 9)', t[t.find('parameters:'):t.find('Details')+30])
out(re.search(r'[^\n]\n\n\n\n\n\nDisclaimer:\n', t) is not None, 'five blank lines before the Disclaimer in a report with additional tests (report-format.md 3 item 13)', t[t.find('Disclaimer:')-200:t.find('Disclaimer:')])
if m:
    rows = m.group(1).rstrip('\n').split('\n')
    w = len(rows[0])
    out(all(len(r) == w for r in rows), 'every line of the table has the same width (right column padded to the longest)')
    out(rows[0] == rows[-1] and re.fullmatch(r'\+-{18}\+-+\+', rows[0]) is not None, 'rules of 18 dashes, then the value column')
    want = ['| testcase: change | stress-ng: stress-ng.mlockmany.ops_per_sec 10.5% improvement',
            '| test machine     | 64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz (Ice Lake) with 256G memory',
            '| test parameters  | cpufreq_governor=performance',
            '|                  | nr_threads=100%',
            '|                  | test=mlockmany',
            '|                  | testtime=60s']
    got = [r.rstrip(' |') for r in rows[1:-1]]
    out(got == want, 'rows: testcase: change, test machine, sorted test parameters', '\n'.join(got))
stars = '*' * 99
out(('\n\n' + stars + '\nlkp-icl-2sp9: 64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz (Ice Lake) with 256G memory\n=====') in t,
    'the second test has its own details section after 99 stars naming its machine')
out(t.count('\n=========================================================================================\n') == 2, 'two comparison tables')
PYEOF

"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/fail.tar" >"$T/fail.out" 2>"$T/fail.err"
"$PY" - "$T/fail.out" <<'PYEOF'
import re, sys
sys.path.insert(0, 'tests'); import dryrun; t = dryrun.text(sys.argv[1])
def out(ok, name, d=''):
    print(('ok - ' if ok else 'not ok - ') + name + (('\n    ' + d.replace('\n', '\n    ')) if d and not ok else ''))
subj = re.search(r'^Subject: (.*(?:\n .*)*)', t, re.M)
subj = re.sub(r'\n ', ' ', subj.group(1)) if subj else ''
out(subj == '[linus:master] [mm] 8807b68269: BUG:kernel_NULL_pointer_dereference,address', 'functional: the subject names the failure without "dmesg."', subj)
out('\n\n\nHello,\n\nkernel test robot noticed "BUG:kernel_NULL_pointer_dereference,address" on:\n\ncommit: 8807b68269657a8e419152e36c54046ec75247d3 ("mm: mincore: replace __get_free_page() with kmalloc()")\n' in t,
    'functional: the headline quotes the failure and the commit follows after one blank line')
out('\nhttps://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git master\n\nin testcase: stress-ng\n' in t,
    'functional: without bracket lines one blank line between the tree URL and "in testcase:"', t[t.find('\nhttps://'):t.find('in testcase:') + 30])
out('\nin testcase: stress-ng\nversion: \nwith following parameters:\n\n\tnr_threads: 100%\n' in t,
    'functional: "version: " (empty, trailing blank) between "in testcase:" and the parameters when the job names none',
    t[t.find('in testcase:'):t.find('config:')])
out('\tcpufreq_governor: performance\n\n\n\nconfig: x86_64-rhel-9.4\ncompiler: gcc-14\n'
    'test machine: 256 threads 4 sockets INTEL(R) XEON(R) PLATINUM 8592+ (Emerald Rapids) with 256G memory\n\n'
    '(please refer to attached dmesg/kmsg for entire log/backtrace)\n' in t,
    'functional: three blanks after the parameters, config:/compiler:/test machine:, blank, the "(please refer ...)" line',
    t[t.find('with following'):t.find('If you fix')])
mid = re.search(r'^Message-ID: <([^>]+)>', t, re.M)
mat = t.find('\nThe kernel config and materials to reproduce are available at:\nhttps://download.01.org/0day-ci/archive/%s/%s\n' % (mid.group(1)[:8], mid.group(1))) if mid else -1
refer = t.find('\n(please refer to attached dmesg/kmsg for entire log/backtrace)\n')
out(0 < refer < t.find('\n+-----') < t.find('| Closes:') < t.find('\n(no kernel log excerpt: ') < mat and t.find('\n-- \n0-DAY CI Kernel Test Service\n') > mat,
    'functional: the log reference line, the result table, the tags, then the evidence, then the materials link (dated by the Message-ID), then the signature',
    t[refer:])
out('| Reported-by: kernel test robot <oliver.sang@intel.com>\n| Closes: https://lore.kernel.org/oe-lkp/' in t, 'functional: the tags block is always there')
table = ('(please refer to attached dmesg/kmsg for entire log/backtrace)\n\n\n'
         '+---------------------------------------------+------------+------------+\n'
         '|                                             | b5ac70b750 | 8807b68269 |\n'
         '+---------------------------------------------+------------+------------+\n'
         '| BUG:kernel_NULL_pointer_dereference,address | 0          | 5          |\n'
         '| Oops                                        | 0          | 5          |\n'
         '+---------------------------------------------+------------+------------+\n\n\n'
         'If you fix the issue')
out(table in t, 'functional: a kernel-log failure has the boot/dmesg table (report-format.md 6.2): the id, then its secondary ids, cells of width 12, two blanks around it', t[refer:t.find('| Closes')])
out('| Closes: https://lore.kernel.org/oe-lkp/%s\n\n\n(no kernel log excerpt: the archive records no dmesg.timestamp:BUG:kernel_NULL_pointer_dereference,address: the excerpt cannot be located)\n' % (mid.group(1) if mid else '') in t,
    'functional: an archive without the time of the failure says why there is no log excerpt', t[t.find('| Closes'):])
out('Disclaimer:' not in t and t.rstrip('.\n').endswith('https://github.com/intel/lkp-tests/wiki'), 'functional: no Disclaimer, the signature last')
PYEOF

"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/failtest.tar" >"$T/failtest.out" 2>"$T/failtest.err"
"$PY" - "$T/failtest.out" <<'PYEOF'
import re, sys
sys.path.insert(0, 'tests'); import dryrun; t = dryrun.text(sys.argv[1])
def out(ok, name, d=''):
    print(('ok - ' if ok else 'not ok - ') + name + (('\n    ' + d.replace('\n', '\n    ')) if d and not ok else ''))
out('kernel test robot noticed "stress-ng.mincore.fail" on:' in t, 'functional: without a kernel-log id the test\'s own id is the failure')
out('       fail:runs  %reproduction    fail:runs\n' in t and
    re.search(r'\n {11}:4 +125% +5:5 +stress-ng\.mincore\.fail\n', t) is not None,
    'functional: the fail:runs table, 0:4 -> 5:5, %reproduction 125 (lkp divides by the base runs)', t)
m = re.search(r'\n(b5ac70b750f93ba3 8807b68269657a8e419152e36c5 *\n-+ -+ *\n +fail:runs  %reproduction    fail:runs *\n[ |]+\n)', t)
out(m is not None and ' \n' not in m.group(1),
    'functional: the fail:runs table header lines end without blanks (report-format.md 6.4)', m.group(1).replace(' \n', '<trailing blank>\n') if m else t)
refer = t.find('\n(please refer to attached dmesg/kmsg for entire log/backtrace)\n')
out(0 < refer < t.find('fail:runs') < t.find('| Closes:') < t.find('\n(no test output excerpt: no output of stress-ng in the runs that failed it') < t.find('\nThe kernel config and materials'),
    'functional: the fail:runs table between the log reference line and the tags; a test\'s own failure looks for the test\'s output, and says it has none', t[refer:])
PYEOF
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/boot.tar" >"$T/boot.out" 2>"$T/boot.err"
"$PY" - "$T/boot.out" "$T/boot.err" <<'PYEOF'
import sys
sys.path.insert(0, 'tests'); import dryrun; t = dryrun.text(sys.argv[1])
def out(ok, name, d=''):
    print(('ok - ' if ok else 'not ok - ') + name + (('\n    ' + d.replace('\n', '\n    ')) if d and not ok else ''))
want = ('\nhttps://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git master\n\nin testcase: boot\n\n'
        'config: x86_64-rhel-9.4\ncompiler: gcc-14\ntest machine: qemu-system-x86_64 -enable-kvm -cpu SandyBridge -smp 2 -m 16G\n\n'
        '(please refer to attached dmesg/kmsg for entire log/backtrace)\n')
out(want in t and 'with following parameters' not in t and '\nversion:' not in t,
    'functional boot report: no version or parameters block, one blank between "in testcase: boot" and config:',
    t[t.find('\nhttps://'):t.find('(please')] + open(sys.argv[2]).read())
PYEOF
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/failnext.tar" >"$T/failnext.out" 2>"$T/failnext.err"
"$PY" - "$T/failnext.out" "$T/failnext.err" <<'PYEOF'
import re, sys
sys.path.insert(0, 'tests'); import dryrun; t = dryrun.text(sys.argv[1])
def out(ok, name, d=''):
    print(('ok - ' if ok else 'not ok - ') + name + (('\n    ' + d.replace('\n', '\n    ')) if d and not ok else ''))
m = re.search(r'\nhttps://git\.kernel\.org/cgit/linux/kernel/git/torvalds/linux\.git master\n\n((?:\[.*\]\n)+)\nin testcase: stress-ng\n', t)
got = sorted(m.group(1).rstrip('\n').split('\n')) if m else []
want = ['[test failed on linux-next/master d742a4c3fa217dd53796cd1b8d219297e41de3c9]',
        '[test failed on tip/sched/core    0123456789abcdef0123456789abcdef01234567]']
out(got == want, 'functional: "[test failed on <tree>/<branch> <sha40>]" per other head with the failure, names padded so the shas line up',
    t[t.find('\nhttps://'):t.find('in testcase:')] + open(sys.argv[2]).read())
out(m is not None, 'functional: tree URL, blank, the bracket lines, blank, "in testcase:"')
PYEOF
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/mixed.tar" >"$T/mixed.out" 2>"$T/mixed.err"
"$PY" - "$T/mixed.out" "$T/mixed.err" <<'PYEOF'
import re, sys
sys.path.insert(0, 'tests'); import dryrun; t = dryrun.text(sys.argv[1])
def out(ok, name, d=''):
    print(('ok - ' if ok else 'not ok - ') + name + (('\n    ' + d.replace('\n', '\n    ')) if d and not ok else ''))
subjects = sorted(re.sub(r'\n ', ' ', s) for s in re.findall(r'^Subject: (.*(?:\n .*)*)', t, re.M))
want = ['[linus:master] [mm] 8807b68269: BUG:kernel_NULL_pointer_dereference,address',
        '[linus:master] [mm] 8807b68269: stress-ng.mincore.ops_per_sec 28.1% improvement']
out(subjects == want and t.count('\n' + '*' * 99 + '\n') == 0,
    'a functional failure and a performance change of one commit make two reports (no functional report carries a perf test)',
    '\n'.join(subjects) + '\n' + open(sys.argv[2]).read())
out('\n\tcpufreq_governor: performance\n\n\nDetails are as below:\n' in t and '\n\n\n\nDetails are as below:' not in t,
    'an improvement report has two blank lines, not three, between its last parameter and "Details are as below:" (report-format.md 3 item 9)',
    t[t.find('\tcpufreq_governor'):t.find('Details are')+25])
PYEOF
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/failver.tar" >"$T/failver.out" 2>"$T/failver.err"
grep -qxF 'version: lkp-x86_64-0123abcd-1_20251001' "$T/failver.out" &&
	[ "$(grep -B1 -A1 '^version: ' "$T/failver.out" | tr '\n' '|')" = 'in testcase: stress-ng|version: lkp-x86_64-0123abcd-1_20251001|with following parameters:|' ] &&
	ok "functional: the version line names the job's version field" ||
	not_ok "functional: version line" "$(sed -n '/^in testcase:/,/^config:/p' "$T/failver.out")" "$(cat "$T/failver.err")"
