#!/usr/bin/env python3
# check-fixtures.py - an independent Python model of the 0-day comparison table
# (archive-format.md sections 1.7, 2.4, 3.1-3.5; lkp-tests lib/compare.rb + lib/stats.rb +
# lib/changed_stat.rb at bbbc29c495d9617f28dbc8b799cf0dac9a1ca54e), used to verify the
# fixture trees written by tests/gen-fixtures.py against tests/data/golden/*.table.
#
# Usage:
#   python3 tests/check-fixtures.py OUTDIR         verify OUTDIR/{mlockmany,mincore,worked,multi}
#                                                  against tests/data/golden/<name>.table (byte-exact),
#                                                  plus numeric-robustness margins; exit 1 on error
#   python3 tests/check-fixtures.py --print TREE   print the model's table for any tree (e.g. the
#                                                  --bench tree) on stdout
#
# Python 3 stdlib only.  The interpretations of the spec made here are listed in the top
# comment of tests/gen-fixtures.py (they are the same for both scripts).  Model scope:
#  * tree walk: every <root>/**/<digits>/job.yaml; the parent of the run dir is a _result_root
#    and its matrix.json is read and zero-filled (Integer 0) to len(stats_source).
#  * axes from the first run's job.yaml: tbox_group testcase rootfs kconfig compiler (commit)
#    plus the parameter keys of PARAM_KEYS met in job order outside monitor hashes; header keys
#    are ordered by their "key=value" string (data-store order, spec 1.7).
#  * groups = axes minus commit; member 0 is the _result_root whose commit equals the job's
#    base_commit, the others follow in path byte order; groups print in byte order of the
#    base member's _result_root path.
#  * rule lists (failure, pass, deny/allow lists, perf-metric prefixes/patterns, thresholds)
#    are embedded below, copied from lkp-tests etc/ (the dmesg/kmsg lines of etc/stat-denylist
#    are omitted: no fixture stat is a dmesg.* stat and the kmsg.* fixture stat matches none).
#  * TEST_PROGRAMS (programs with run and parse, not in linux/other-test-cases) = the test
#    programs used by the fixtures; monitors are never test programs.

import json
import math
import os
import re
import sys

# ---------------------------------------------------------------- rule data (lkp-tests etc/)
FAILURE = [r'.+killed_by.*', r'.+\.(error|warn|fail)[^_]*$', r'dmesg.*',
           r'kmemleak\..+unreferenced_object\..+', r'kmsg.*', r'last_state.*',
           r'locktoture\..+lock_hotplug', r'rcutoture\..+rcu_hotplug', r'stderr.*',
           r'xfstests\..+fail$']
PASS = [r'.+\.pass$']
DENYLIST = [  # etc/stat-denylist without its ^dmesg / ^kmsg lines (unanchored search)
    r'Modules_linked_in', r'Spectre_v2_mitigation', r'^aim7\.cpu', r'^aim7\.jobs-per-min-per-task',
    r'^aim7\.jti', r'^aim7\.real', r'^boot-meminfo\.', r'^boot-slabinfo\.', r'^boot-time\.',
    r'^buddyinfo\.', r'^cpuidle\.', r'^diskstats\.', r'^ebizzy\.throughput\.per_thread\.stddev_percent',
    r'^interrupts\.', r'^iostat\.', r'^last_state\..+\.exit_code', r'^last_state\.exit_fail',
    r'^last_state\.OOM', r'^last_state\.soft_timeout', r'^lock_stat\.', r'^max_iostat\.',
    r'^meminfo\.', r'^mpstat\.', r'^numa-meminfo\.', r'^numa-numastat\.', r'^numa-vmstat\.',
    r'^pagetypeinfo\.', r'^perf-profile.', r'^perf-stat\.', r'^pmeter\.fail', r'^proc-vmstat\.',
    r'^sched_debug\.', r'^slabinfo\.', r'^softirqs\.', r'^tcrypt\.', r'^time\.', r'^turbostat\.',
    r'^upgrade-trinity\.fail', r'^uptime\.', r'^vmstat\.', r'^zoneinfo\.', r'\{#:#\}', r'\},at']
STAT_ALLOWLIST = [r'^stress-ng\..+\.fail', r'^kmsg\.sanitizer', r'^stderr\.xinit:giving_up']
REPORT_ALLOWLIST = [r'^boot-meminfo.', r'^boot-slabinfo.', r'^boot-time.', r'^cpuidle.', r'^iostat.',
                    r'^lock_stat.', r'^meminfo.', r'^mpstat.', r'^numa-meminfo.', r'^numa-numastat.',
                    r'^numa-vmstat.', r'^perf-profile.', r'^perf-stat.', r'^proc-vmstat.',
                    r'^sched_debug.', r'^time.', r'^turbostat.', r'^uptime.', r'^vmstat.']
PERF_PATTERNS = [r'^(.*\.)?time..*', r'^lock_stat..*..contentions']
PERF_PREFIXES = """boot-meminfo.DirectMap1G boot-meminfo.DirectMap2M boot-meminfo.DirectMap4k
boot-meminfo.KernelStack boot-meminfo.MemFree boot-meminfo.MemTotal boot-meminfo.PageTables
boot-meminfo.Slab boot-meminfo.VmallocUsed boot-memory.bootmem boot-memory.code boot-memory.init
boot-slabinfo. boot-time. energy. interrupts.CAL:Function_call_interrupts iostat.
perf-c2c.HITM.total perf-profile.children.cycles-pp.native_queued_spin_lock_slowpath perf-stat.
pmeter. proc-vmstat. turbostat.%Busy turbostat.Bzy_MHz turbostat.C1% turbostat.C1E%
turbostat.CorWatt turbostat.Pk%pc10 turbostat.Pkg%pc2 turbostat.Pkg%pc3 turbostat.Pkg%pc6
turbostat.Pkg%pc7 turbostat.Pkg%pc8 turbostat.Pkg%pc9 turbostat.PkgTmp turbostat.PkgWatt
turbostat.POLL% turbostat.RAMWatt turbostat.SYS%LPI vmstat.cpu. vmstat.io. vmstat.swap.
vmstat.system.""".split()
TEST_PROGRAMS = {'stress-ng', 'will-it-scale'}
# lib/compare.rb resets a test program's row count only for programs its all_tests_set
# knows; until lkp-tests 2409d6a4b (2026-02-12) that was lib/tests.rb's set (tests/ and
# daemon/), which lost stress-ng (014f23eb4) and will-it-scale (9287a307e) when they
# moved to programs/ (config/eras.yaml; epoch seconds)
TESTS_SET_UNTIL = 1770827458
MOVED_TO_PROGRAMS = {'stress-ng': 1682579841, 'will-it-scale': 1685076941}
PERF_PREFIXES += [t + '.' for t in sorted(TEST_PROGRAMS)]
THRESHOLDS = [  # etc/perf-metrics-threshold.yaml, file order; int vs float as YAML loads them
    ('.*.time.elapsed_time.*', 10), ('.*.time.file_system_inputs', 10000),
    ('.*.time.file_system_outputs', 10000), ('.*.time.involuntary_context_switches', 1000),
    ('.*.time.major_page_faults', 1000), ('.*.time.minor_page_faults', 1000),
    ('.*.time.socket_messages_received', 10000), ('.*.time.socket_messages_sent', 10000),
    ('.*.time.swaps', 1000), ('.*.time.system_time', 10), ('.*.time.user_time', 10),
    ('.*.time.voluntary_context_switches', 1000), ('.*vmstat.*nr_.*', 100),
    ('dd.kill_time', 10), ('dd.startup_time', 10), ('interrupts.*', 100),
    ('iostat.*.avgrq-sz', 200), ('iostat.*.await', 50), ('iostat.*.util', 10),
    ('iostat.*.[rw]/s', 50), ('iostat.*.[rw]kB/s', 100), ('iostat.*.[rw]_await', 50),
    ('perf-c2c.HITM.total', 3000), ('perf-profile.*', 1),
    ('perf-profile.children.cycles-pp.native_queued_spin_lock_slowpath', 2.0),
    ('proc-vmstat.allocstall', 100), ('proc-vmstat.compact_fail', 100),
    ('proc-vmstat.compact_stall', 100), ('proc-vmstat.htlb_buddy_alloc_fail', 100),
    ('proc-vmstat.kswapd_high_wmark_hit_quickly', 100), ('proc-vmstat.kswapd_low_wmark_hit_quickly', 100),
    ('proc-vmstat.nr_vmscan_immediate_reclaim', 100), ('proc-vmstat.nr_vmscan_write', 100),
    ('proc-vmstat.pgmigrate_fail', 100), ('sysbench-fileio.latency_95th_ms', 10),
    ('vmstat.cpu.id', 10), ('vmstat.cpu.st', 10), ('vmstat.cpu.sy', 50), ('vmstat.cpu.us', 10),
    ('vmstat.cpu.wa', 10), ('vmstat.io.bi', 100), ('vmstat.io.bo', 100), ('vmstat.system.cs', 100),
    ('vmstat.system.in', 100), ('xfstests.*.seconds', 10)]
PERF_PROFILE_THRESHOLD = 5          # Integer, as in lib/compare.rb (the class matters, 3.2 step 4)
PARAM_KEYS = {  # program options (bin/program-options) of the programs the fixture jobs use
    'stress-ng': ['testtime', 'class', 'nr_threads', 'test', 'method', 'mode', 'type', 'sched',
                  'advise', 'hdd_opts'],
    'will-it-scale': ['runtime', 'test', 'mode', 'nr_task', 'no_affinity', 'smt'],
}
SETUP_PROGRAMS = {'cpufreq_governor'}
WRAPPER_OPTIONS = {'nr_instances', 'cpu_node_bind', 'mem_node_bind'}
MONITORS = {'kmsg', 'boot-time', 'vmstat', 'proc-vmstat', 'perf-stat', 'mpstat', 'perf-profile',
            'interrupts', 'softirqs', 'slabinfo', 'meminfo', 'sched_debug', 'numa-meminfo', 'cpuidle'}
MAXIS = ['tbox_group', 'testcase', 'rootfs', 'kconfig', 'compiler', 'commit']

_re = {}


def rx(p):
    r = _re.get(p)
    if r is None:
        r = _re[p] = re.compile(p)
    return r


_cache = {}


def cached(kind, name, fn):
    key = (kind, name)
    v = _cache.get(key)
    if v is None:
        v = _cache[key] = fn(name)
    return v


def function_stat(k):
    def f(k):
        if '.time.' in k or '.timestamp:' in k or '.bootstage:' in k:
            return False
        return any(rx('^(?:' + p + ')').search(k) for p in FAILURE + PASS)
    return cached('func', k, f)


def perf_metric(k):
    def f(k):
        return any(rx(p).search(k) for p in PERF_PATTERNS) or any(k.startswith(p) for p in PERF_PREFIXES)
    return cached('perf', k, f)


def bisectable(k):
    def f(k):
        if any(rx(p).search(k) for p in STAT_ALLOWLIST):
            return True
        return not any(rx(p).search(k) for p in DENYLIST)
    return cached('bis', k, f)


def report_allowed(k):
    return cached('rep', k, lambda k: any(rx(p).search(k) for p in REPORT_ALLOWLIST))


def reasonable_perf_change(name, delta, mx):
    for k, v in THRESHOLDS:
        if rx('^' + k + '$').search(name):
            if mx < v:
                return False
            if isinstance(v, int) and delta < v // 2:
                return False
            return True
    if name.startswith('iostat'):
        return mx > 1
    if name.startswith(('pagetypeinfo', 'buddyinfo', 'slabinfo')):
        return delta > 100
    if name.startswith('proc-vmstat') or 'meminfo' in name:
        return mx > 1000
    if name.startswith('lock_stat'):
        if name == 'waittime-total':
            return delta > 10000
        if name == 'holdtime-total':
            return delta > 100000
        if 'time' in name:
            return delta > 1000
        return delta > 10000
    if name.startswith(('interrupts', 'softirqs')):
        return mx > 10000
    return True


def base_of(k):
    return k.partition('.')[0]


# ---------------------------------------------------------------- detection (3.2)
class Summary:
    def __init__(self, arr, max_margin):
        s = sorted(arr)                       # Python sorts int/float mixes like Ruby
        while s and s[0] == -1:
            s.pop(0)
        margin = min(len(s) >> 5, max_margin)
        if margin:
            s = s[margin:len(s) - margin]
        self.sorted = s
        if s:
            self.min, self.mean, self.max = s[0], s[len(s) // 2], s[-1]
        else:
            self.min = self.mean = self.max = 0


def cols(m):
    if 'stats_source' in m:
        return len(m['stats_source'])
    if not m:
        return 0
    vals = list(m.values())
    return max(len(vals[0]), len(vals[-1]))


def detect(a, b, trace=None):
    """Changed keys of new matrix a against base matrix b (both zero-filled dicts)."""
    a = {k: list(v) for k, v in a.items()}
    cols_a, cols_b = cols(a), cols(b)
    for k in b:
        if k not in a:
            a[k] = [0] * cols_a
    bases_b = {base_of(k) for k in b}
    changed = []
    for k, a_k in a.items():
        why = _detect_one(k, a_k, a, b, cols_a, cols_b, bases_b)
        if trace is not None:
            trace[k] = why
        if why == 'row':
            changed.append(k)
    return changed


def _detect_one(k, a_k, a, b, cols_a, cols_b, bases_b):
    if a_k and isinstance(a_k[-1], str):
        return 'skip:string'
    if not bisectable(k) and not report_allowed(k):
        return 'skip:denylist'
    func = function_stat(k)
    if func:
        if not re.match(r'^(dmesg|kmsg|last_state|stderr)\.', k):
            stat_base = re.sub(r'\.[^.]*$', '', k)
            if re.search(r'\.(error|warn|fail)$', k) and (stat_base + '.pass') not in b:
                return 'skip:function'
            if k.endswith('.pass') and not any(
                    re.match('^' + re.escape(stat_base) + r'\.(error|warn|fail)$', s) for s in b):
                return 'skip:lone-pass'
    elif cols_a < 3 and cols_b < 3:
        return 'skip:few-runs'
    if not (k in b or func or (re.match(r'^(lock_stat|perf-profile)\.', k) and base_of(k) in bases_b)):
        return 'skip:not-in-base'
    max_margin = 0 if func else 3
    b_k = list(b.get(k) or [0] * cols_b)
    while len(b_k) < cols_b:
        b_k.append(0)
    a_k = list(a_k)
    while len(a_k) < cols_a:
        a_k.append(0)
    sb = Summary(b_k, max_margin)
    if not sb.sorted:
        return 'skip:empty'
    if len(b_k) <= 3 and max_margin > 1:
        max_margin = 1
    sa = Summary(a_k, max_margin)
    if not sa.sorted:
        return 'skip:empty'
    # 3.2 step 4
    if k.startswith('perf-profile.') and type(sa.mean) is type(PERF_PROFILE_THRESHOLD):
        ch = sa.mean > PERF_PROFILE_THRESHOLD or sb.mean > PERF_PROFILE_THRESHOLD
        if not ch:
            return 'nochange:perf-profile-integer-median'
    elif func:
        if sa.max == sb.max:
            return 'nochange:function-equal-max'
    else:
        if not ((sb.min > sa.mean and sb.mean > sa.max) or (sa.min > sb.mean and sa.mean > sb.max)):
            return 'nochange:overlap'
    # 3.2 step 5
    mx = max(sb.max, sa.max)
    high, low = (sa, sb) if sa.mean > sb.mean else (sb, sa)
    delta = high.mean - low.mean
    ratio = 5
    if low.mean > 0:
        ratio = float(high.mean) / low.mean
    if ratio > 5:
        ratio = 5
    # 3.2 step 6
    if not k.startswith('perf-profile.'):
        if not ratio > 1.01:
            return 'small:ratio<=1.01'
        if not (ratio > 1.05 or perf_metric(k)):
            return 'small:ratio<=1.05-not-perf-metric'
        if not reasonable_perf_change(k, delta, mx):
            return 'small:threshold'
    return 'row'


# ---------------------------------------------------------------- numbers (3.3) and rendering (3.5)
def ruby_sum(v):
    """Ruby 3.x Array#sum: exact Integer sum of the leading Integers, then Kahan-Babuska
    compensated summation in doubles once the first Float is met."""
    i, n = 0, 0
    while i < len(v) and type(v[i]) is int:
        n += v[i]
        i += 1
    if i == len(v):
        return n
    f, c = float(n), 0.0
    for x in v[i:]:
        x = float(x)
        t = f + x
        if abs(f) >= abs(x):
            c += (f - t) + x
        else:
            c += (x - t) + f
        f = t
    return f + c


def average(v):
    return ruby_sum(v) / float(len(v))          # Enumerable#average: sum / length.to_f


def pstddev(v):
    avg = average(v)
    acc = 0                                      # inject(0) { |acc, i| acc + (i - avg)**2 }
    for x in v:
        acc = acc + (x - avg) ** 2
    return math.sqrt(1 / float(len(v)) * acc)    # 1 / length.to_f * sum


def fmt_value(avg):
    if abs(avg) < 1000:
        return '%10.2f' % avg
    if abs(avg) > 100000000:
        return '%10.4g' % avg
    return '%10d' % int(avg)            # truncation toward zero


def fmt_stddev(avg, sd):
    s = 100 * sd / avg if avg != 0 else sd
    if s > 2:
        return ' \u00b1%3d%%' % int(s)
    return ' ' * 6


def abs_change(k):
    return k.startswith('perf-profile') or k.endswith('%')


def fmt_change(p, absolute):
    f = '%+10.1f' if abs(p) < 100000 else '%+10.2g'
    return (f % p) + ('  ' if absolute else '% ')


def stat_numbers(k, ms):
    vals = [m.get(k) for m in ms]
    avgs = [average(v) if v else 0 for v in vals]
    sds = [pstddev(v) if v and len(v) > 1 else -1 for v in vals]
    if abs_change(k):
        changes = [avg - avgs[0] for avg in avgs[1:]]
    else:
        a0 = avgs[0] if avgs[0] != 0 else 1e-100
        changes = [100.0 * (avg - a0) / a0 for avg in avgs[1:]]
    return avgs, sds, changes


def render_row(k, ms):
    avgs, sds, changes = stat_numbers(k, ms)
    out = fmt_value(avgs[0]) + fmt_stddev(avgs[0], sds[0])
    for i in range(1, len(avgs)):
        out += fmt_change(changes[i - 1], abs_change(k)) + fmt_value(avgs[i]) + fmt_stddev(avgs[i], sds[i])
    return out + '  ' + k


def render_failure_row(k, ms):
    runs = [cols(m) for m in ms]
    fails = [sum(m.get(k) or []) for m in ms]
    rep0 = float(fails[0]) / runs[0]
    out = ''
    for i, f in enumerate(fails):
        if i:
            ch = 100 * (float(f) / runs[i - 1] - rep0)   # off-by-one quirk (3.3)
            out += '%10.0f%% ' % ch
        out += (' ' * 11) if f == 0 else ('%11d' % f)
        out += ':%-4d' % runs[i]
    return out + '  ' + k


def sort_rows(keys, ms, when=0):
    count = {}
    for k in keys:
        b = base_of(k)
        if b not in count:
            count[b] = -10000 if function_stat(k) else 0
        count[b] += 1
    for t in TEST_PROGRAMS:
        if when and when < TESTS_SET_UNTIL and when >= MOVED_TO_PROGRAMS.get(t, when + 1):
            continue
        if count.get(t, 0) > 0:
            count[t] = 0

    def key(k):
        b = base_of(k)
        sk = '.'.join(k.split('.')[:2]) if b == 'perf-profile' else k
        if function_stat(k):
            ch = [0.0]
        else:
            ch = stat_numbers(k, ms)[2]
        return (count[b], sk.encode(), ch, k.encode())
    return sorted(keys, key=key)


# ---------------------------------------------------------------- tree loading
def parse_job_yaml(path):
    """Tiny reader for the fixture job.yaml: top-level scalars and one-level hashes, in order."""
    top = []          # list of (key, value-or-dict)
    cur = None
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#') or line == '---':
                continue
            if line.startswith('- '):
                continue
            if line.startswith('  '):
                if cur is not None and ':' in line:
                    k, _, v = line.strip().partition(':')
                    cur[k] = _scalar(v)
                continue
            k, _, v = line.partition(':')
            v = v.strip()
            if v == '':
                cur = {}
                top.append((k, cur))
            else:
                cur = None
                top.append((k, _scalar(v)))
    return top


def _scalar(v):
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in '"\'':
        return v[1:-1]
    return v


def job_axes(top):
    d = dict(top)
    ax = {}
    for k in MAXIS:
        if k in d:
            ax[k] = d[k]
    programs = {d.get('testcase')} | SETUP_PROGRAMS
    opts = set(WRAPPER_OPTIONS) | {'cluster'}
    for p in programs:
        opts |= set(PARAM_KEYS.get(p, []))
    for k, v in top:
        if isinstance(v, dict):
            if k in MONITORS:
                continue
            for k2, v2 in v.items():
                if not isinstance(v2, dict) and (k2 in opts or k2 in programs) and v2 != '':
                    ax[k2] = v2
        elif (k in opts or k in programs) and k not in MAXIS and v != '':
            ax[k] = v
    return ax, d


def load_matrix(path):
    with open(path, encoding='utf-8') as f:
        m = json.load(f)
    n = len(m.get('stats_source', []))
    for k, v in m.items():
        while len(v) < n:
            v.append(0)
    return m


def complete(m):
    inc = m.get('last_state.is_incomplete_run')
    if not inc:
        return m
    drop = [i for i, x in enumerate(inc) if x == 1]
    m2 = {k: [x for i, x in enumerate(v) if i not in drop] for k, v in m.items()}
    del m2['last_state.is_incomplete_run']
    return m2


def find_result_roots(root):
    rts = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if 'job.yaml' in filenames and re.match(r'^[0-9]+$', os.path.basename(dirpath)):
            rt = os.path.dirname(dirpath)
            rts.setdefault(rt, []).append(dirpath)
    return rts


def compare_tree(root):
    rts = find_result_roots(root)
    groups = {}
    for rt in sorted(rts):
        first = sorted(rts[rt], key=lambda p: int(os.path.basename(p)))[0]
        top = parse_job_yaml(os.path.join(first, 'job.yaml'))
        ax, d = job_axes(top)
        gkey = tuple(sorted((k, v) for k, v in ax.items() if k != 'commit'))
        groups.setdefault(gkey, []).append((rt, ax, d))
    out = []
    ordered = []
    for gkey, members in groups.items():
        if len(members) < 2:
            continue
        base_sha = members[0][2].get('base_commit')
        members.sort(key=lambda m: (m[1].get('commit') != base_sha, m[0].encode()))
        ordered.append((members[0][0].encode(), members))
    ordered.sort(key=lambda x: x[0])
    for _, members in ordered:
        out.append(render_group(members))
    return ''.join(out)


def end_time(rt):
    """The end_time of the head's first run (0: none): the era of the row order."""
    runs = sorted(int(d) for d in os.listdir(rt) if d.isdigit())
    top = dict(parse_job_yaml(os.path.join(rt, str(runs[0]), 'job.yaml'))) if runs else {}
    v = str(top.get('end_time', '')).strip('\'"')
    return int(v) if v.isdigit() else 0


def render_group(members):
    ms = [load_matrix(os.path.join(rt, 'matrix.json')) for rt, _, _ in members]
    cms = [complete(m) for m in ms]
    keys = []
    for m in ms[1:]:
        for k in detect(m, ms[0]):
            if k not in keys:
                keys.append(k)
    keys = sort_rows(keys, cms, end_time(members[-1][0]))
    failure = [k for k in keys if function_stat(k)]
    perf = [k for k in keys if not function_stat(k)]
    if not failure and not perf:
        return ''
    ax0 = members[0][1]
    common = {k: v for k, v in ax0.items() if k != 'commit'}
    hk = sorted(common, key=lambda k: (k + '=' + common[k]).encode())
    n = len(members) - 1
    L = ['=' * 89, '/'.join(hk) + ':', '  ' + '/'.join(common[k] for k in hk), '', 'commit: ']
    L += ['  ' + m[1]['commit'] for m in members]
    L.append('')
    L.append('%16s ' % members[0][1]['commit'][:16] + ''.join('%27s ' % m[1]['commit'][:27] for m in members[1:]))
    L.append('-' * 16 + ' ' + ('-' * 27 + ' ') * n)
    if failure:
        L.append('       fail:runs' + '  %reproduction    fail:runs' * n)
        L.append('           |    ' + '         |             |    ' * n)
        L += [render_failure_row(k, ms) for k in failure]
    if perf:
        L.append('         %stddev' + '     %change         %stddev' * n)
        L.append('             \\  ' + '        |                \\  ' * n)
        L += [render_row(k, cms) for k in perf]
    L.append('')
    return '\n'.join(L) + '\n'


# ---------------------------------------------------------------- robustness margins
def unstable_numbers(k, ms):
    """Problems if a printed number of stat k could print differently under a 1e-9 relative
    perturbation (another summation order in C, or Ruby's sprintf, which rounds some
    near-tie doubles differently from C printf: Ruby prints '%.2f' % 14.005 as 14.00 and
    '%.1f' % 0.15 as 0.2, glibc as 14.01 and 0.1)."""
    probs = []
    avgs, sds, changes = stat_numbers(k, ms)
    for eps in (1 + 1e-9, 1 - 1e-9):
        for i, avg in enumerate(avgs):
            v = ms[i].get(k) or []
            if 1000 <= abs(avg) <= 100000000 and avg.is_integer() and v and sum(v) == math.fsum(v):
                pass   # exact integral mean of an exactly summed column: %d is safe
            elif fmt_value(avg * eps) != fmt_value(avg):
                probs.append('%s: mean %r too close to a rounding boundary' % (k, avg))
            if sds[i] >= 0 and fmt_stddev(avg, sds[i] * eps) != fmt_stddev(avg, sds[i]):
                probs.append('%s: stddev %r too close to a boundary' % (k, sds[i]))
        for c in changes:
            if fmt_change(c * eps, False) != fmt_change(c, False):
                probs.append('%s: change %r too close to a boundary' % (k, c))
    return probs


def robustness_problems(root):
    """Numbers of every printed row must keep their printed form under a relative
    perturbation of 1e-9 (so a C implementation with another summation order prints the
    same); perf-profile changes inside a family must differ by > 1e-9; detection inputs
    (ratios) must not sit within 1e-9 of 1.01 / 1.05."""
    probs = []
    rts = find_result_roots(root)
    by_group = {}
    for rt in rts:
        first = sorted(rts[rt])[0]
        ax, d = job_axes(parse_job_yaml(os.path.join(first, 'job.yaml')))
        gkey = tuple(sorted((k, v) for k, v in ax.items() if k != 'commit'))
        by_group.setdefault(gkey, []).append((ax.get('commit') != d.get('base_commit'), rt))
    for gkey, mem in by_group.items():
        mem.sort()
        ms = [complete(load_matrix(os.path.join(rt, 'matrix.json'))) for _, rt in mem]
        keys = detect(ms[1], ms[0])
        for k in keys:
            for p in unstable_numbers(k, ms):
                probs.append(p)
        fam = {}
        for k in keys:
            if k.startswith('perf-profile.'):
                fam.setdefault('.'.join(k.split('.')[:2]), []).append(stat_numbers(k, ms)[2][0])
        for f, chs in fam.items():
            chs.sort()
            for x, y in zip(chs, chs[1:]):
                if y - x < 1e-9:
                    probs.append('%s: two changes within 1e-9 (%r, %r)' % (f, x, y))
        # ratio margins of every stat that reached the small-change filter
        a, b = ms[1], ms[0]
        for k in set(a) | set(b):
            if k == 'stats_source' or k.startswith('perf-profile.'):
                continue
            av, bv = a.get(k), b.get(k)
            if not av or not bv or isinstance(av[-1], str):
                continue
            sa, sb = Summary(av, 3), Summary(bv, 3)
            hi, lo = max(sa.mean, sb.mean), min(sa.mean, sb.mean)
            if lo > 0:
                r = float(hi) / lo
                for t in (1.01, 1.05):
                    if abs(r - t) < 1e-9:
                        probs.append('%s: ratio %r too close to %r' % (k, r, t))
    return probs


def main(argv):
    if len(argv) >= 2 and argv[0] == '--print':
        sys.stdout.buffer.write(compare_tree(argv[1]).encode('utf-8'))
        return 0
    if len(argv) != 1:
        sys.stderr.write(__doc__ or 'usage: check-fixtures.py OUTDIR | --print TREE\n')
        return 2
    outdir = argv[0]
    golden = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'golden')
    bad = 0
    for name in ('mlockmany', 'mincore', 'worked', 'multi'):
        tree = os.path.join(outdir, name)
        got = compare_tree(tree).encode('utf-8')
        with open(os.path.join(golden, name + '.table'), 'rb') as f:
            want = f.read()
        if got != want:
            bad += 1
            sys.stderr.write('FAIL %s: model output differs from golden\n' % name)
            gl, wl = got.decode().split('\n'), want.decode().split('\n')
            for i in range(max(len(gl), len(wl))):
                g = gl[i] if i < len(gl) else '<EOF>'
                w = wl[i] if i < len(wl) else '<EOF>'
                if g != w:
                    sys.stderr.write('  line %d\n    want %r\n    got  %r\n' % (i + 1, w, g))
        else:
            print('ok   %s (%d bytes)' % (name, len(got)))
        for p in robustness_problems(tree):
            bad += 1
            sys.stderr.write('FAIL %s: %s\n' % (name, p))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
