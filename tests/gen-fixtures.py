#!/usr/bin/env python3
# gen-fixtures.py - deterministic LKP result-tree fixtures for robotmail's `compare`.
#
#   python3 tests/gen-fixtures.py OUTDIR
#       writes OUTDIR/{mlockmany,mincore,worked,multi}/result/... and then verifies every
#       tree with the Python model in tests/check-fixtures.py against tests/data/golden/<name>.table
#       (byte-exact) and numeric-robustness margins; exits 1 if anything differs.
#   python3 tests/gen-fixtures.py --bench OUTDIR [--runs 10] [--stats 20000]
#       writes OUTDIR/bench/result/... (2 commits x RUNS runs x STATS stats per base run; a
#       head run lacks the ~0.1% stats "missing in one head run"; 0.5% of the base stats are
#       gone in the head and as many new ones appear).  No golden; `python3
#       tests/check-fixtures.py --print OUTDIR/bench` prints what the model expects (for the
#       default 10 x 20000 that is a 534-line table, mostly perf-profile rows).
#
# Python 3 stdlib only, no clock, no unseeded randomness: the same bytes on every run and
# with every Python 3 (a private splitmix64 generator is used, not the random module).
# The golden tables (tests/data/golden/*.table, written by tests/extract-golden.py from the
# spec texts) are the input: each printed row is parsed and per-run values are designed so
# that the model selects exactly the golden rows, in the golden order, with the golden text.
#
# Tree layout: OUTDIR/<tree>/result/<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/
#   <compiler>/<commit40>/<run>/{job.yaml,job.sh,reproduce.sh,stats.json}, and
#   <commit40>/matrix.json.  (No avg.json/stddev.json, no __result_root matrix, no monitor
#   logs: nothing in 3.1-3.5 reads them.)
#
# Runs per commit (base/head): mlockmany 3/3 (the per-run values of archive-format.md 8 are
# used verbatim for the rows and distractors it lists), mincore 4/5, worked 4/3, multi =
# mincore + mlockmany copies, bench RUNS/RUNS.  Matrix columns are in "unite order", which is
# not run order for mincore head (0,1,3,2,4) and worked base (1,0,2,3); stats_source says which
# run each column is.
#
# SHAs: head = the 40-hex sha of the source's "commit:" line; base = the 16 hex digits of the
# table header + sha1("robotmail-fixture-base:" + base16).hexdigest()[:24] (same rule as
# tests/extract-golden.py).
#
# Interpretations of the spec (archive-format.md) made here and in check-fixtures.py:
#  1. Base/head: job.yaml carries head_commit/base_commit in every run; the group member whose
#     commit equals base_commit is column 0.  Groups print in byte order of their (base)
#     _result_root paths; multi = mincore group, then mlockmany group.
#  2. Header keys ordered by the "key=value" string (data-store load order, 1.7); axes =
#     tbox_group testcase rootfs kconfig compiler + program parameters (1.3): the test
#     program's declared options, cpufreq_governor (a setup program), wrapper options; keys
#     under monitor hashes are not parameters.  path_params per 1.3 (sorted by key, raw values).
#  3. Matrices are zero-filled with Integer 0 to len(stats_source) before anything else (3.1).
#     A stat missing from a middle run gets an explicit 0 in matrix.json, missing from the last
#     runs gives a shorter array, first appearing in a later run gives leading 0s (2.4).
#  4. Upper median = sorted[n/2] (3.2 step 3); no trimming below 32 runs.
#  5. Stats missing in the base: skipped, except perf-profile.* when the base has any
#     perf-profile stat (3.2 step 2).  The base side is then Integer zeros; the shown mean is
#     0.00 and the stddev is "none" (-1), so the base field is 6 blanks
#     (perf-profile.{children,self}.cycles-pp.mod_node_page_state in "worked").
#  6. Stats missing in the head (base-only) are added to the head as Integer zeros (3.2).
#  7. perf-profile Integer-vs-Float quirk (3.2 step 4): when the head's upper median is an
#     Integer (a zero-filled missing value; JSON "0", not "0.0"), the test is
#     head_median > 5 || base_median > 5 with Integer 5.  Distractors rely on it:
#     perf-profile.self.cycles-pp.rmqueue_bulk (head has it in one run only -> median Integer 0,
#     base median ~1.2 < 5 -> no row, although the ordinary separation test would fire) and
#     perf-profile.self.cycles-pp.vanished_helper (base only -> head all Integer 0 -> no row).
#     All perf-profile run values are written as JSON floats, so the quirk is never hit by a
#     present value.
#  8. Small-change filter (3.2 step 6) skipped for every perf-profile.* stat; ratio uses the
#     upper medians; thresholds: first anchored match in file order, Integer v -> delta < v/2
#     (integer division) rejects.
#  9. Means are arithmetic means over all zero-filled columns; stddev is population; the ±
#     field is shown when 100*sd/mean > 2 and truncated; value format per 3.5 (%d truncates).
# 10. Row order: [count (test programs reset to 0), sort key (perf-profile: first two dot
#     components; else full name), change]; ties broken by the stat name bytes.  The fixture
#     makes every perf-profile family strictly ascending in its unrounded change (steps of
#     >= 3e-4), so no tie-break is needed for the goldens.
# 11. Floats are written like Ruby Float#to_s (shortest round-trip digits; fixed notation for
#     decimal exponents -4 < e <= 16, else "1.0e+16"/"1.0e-05"); JSON like
#     JSON.pretty_generate (2-space indent, one array element per line, no final newline).
# 12. stats.json key order: stats grouped by stats_group (<monitor>, or <testcase>.time),
#     *.json groups sorted by name first, then *.json.gz groups (here: interrupts, perf-profile,
#     perf-stat, proc-vmstat, sched_debug, slabinfo, softirqs); matrix.json key order is
#     first-appearance over the runs in unite order, "stats_source" placed after the first
#     run's keys (unite_stats appends it to each run's stats hash).
# 13. The ±70% perf-stat.{overall,ps,total}.* head rows of "worked" come from the head run 1
#     having no such stats (zero-filled 0): head = [x, 0, y] with x,y = mean*(1.5 -+ e).
#     Hidden decimals: perf-profile values carry 4 decimals.
# 14. Arithmetic: the model sums like Ruby's Array#sum (exact Integer prefix, then
#     Kahan-Babuska) and computes the variance as (1/n) * naive sum of squares, like
#     lib/statistics.rb.  Every printed number of every fixture (and bench) row stays > 1e-9
#     (relative) away from a rounding/truncation boundary, so any summation order prints the
#     same text.  This also sidesteps a real difference: Ruby's sprintf rounds some near-tie
#     doubles unlike C printf ('%.2f' % 14.005 -> "14.00", '%.1f' % 0.15 -> "0.2" in Ruby
#     3.1; glibc prints 14.01 and 0.1).  The bench also keeps perf-profile changes of one
#     family > 1e-7 apart (Ruby's sort_by is unstable on ties).
# 15. Cross-check done once by hand (not part of this script): the four goldens and the
#     10 x 20000 bench table are reproduced byte for byte by lkp-tests' own sbin/ncompare
#     (commit bbbc29c4, Debian ruby 3.1 + ruby-activesupport 6.1 + ruby-git + ruby-tty-command,
#     trees copied to /lkp/result and registered with convert_mrt; multi via
#     `ncompare <mincore base> <mincore head> <mlockmany base> <mlockmany head>`).
#
# Distractors (no row may come from them; the generator asserts the model's reason):
#   overlapping runs (vmstat.system.cs/in, *.time.elapsed_time(.max), *.time.system_time,
#   maximum_resident_set_size, proc-vmstat.pgfault (stress-ng), perf-profile fillers,
#   will-it-scale.64.threads_idle ...); perf metric with ratio < 1.01 (perf-stat.i.ipc,
#   *.time.percent_of_cpu_this_job_got); non-perf-metric, allowed monitor with 1.01 < ratio
#   < 1.05 (meminfo.Shmem); deny-listed monitors with big changes (interrupts.*, softirqs.*,
#   slabinfo.*); stat only in head runs (<testcase>.<test>.head_only_counter /
#   proc-vmstat.pgpromote_candidate); threshold failures (*.time.major_page_faults or
#   involuntary_context_switches with max < 1000, *.time.minor_page_faults with delta < 500,
#   vmstat.cpu.sy max < 50, proc-vmstat.nr_dirty max < 100); function stats with equal max
#   (stress-ng.<test>.pass = 1, a lone .pass; kmsg.* = 1 in every run); the two perf-profile
#   Integer-median stats of item 7; all-Integer-zero stats (proc-vmstat.pgmajfault, dropped
#   from matrix.json); sched_debug per-CPU keys (dropped from matrix.json).

import difflib
import hashlib
import importlib.util
import json
import os
import re
import shutil
import tempfile
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, 'data', 'golden')


def _load_checker():
    spec = importlib.util.spec_from_file_location('check_fixtures', os.path.join(HERE, 'check-fixtures.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CK = _load_checker()


def synth_base_sha(base16):
    return base16 + hashlib.sha1(('robotmail-fixture-base:' + base16).encode()).hexdigest()[:24]


def hexof(*parts, n=40):
    return hashlib.sha1(':'.join(str(p) for p in parts).encode()).hexdigest()[:n]


class Rng:
    """splitmix64: deterministic across Python versions."""

    def __init__(self, seed):
        self.s = seed & 0xFFFFFFFFFFFFFFFF

    def u64(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def rand(self):
        return (self.u64() >> 11) / float(1 << 53)

    def below(self, n):
        return self.u64() % n

    def uniform(self, a, b):
        return a + (b - a) * self.rand()


# ------------------------------------------------------------------ Ruby-style JSON
def rb_float(x):
    if x != x:
        return 'NaN'
    if x in (float('inf'), float('-inf')):
        return 'Infinity' if x > 0 else '-Infinity'
    if x == 0:
        return '-0.0' if str(x).startswith('-') else '0.0'
    r = repr(x)
    sign = ''
    if r[0] == '-':
        sign, r = '-', r[1:]
    if 'e' in r:
        m, e = r.split('e')
        e = int(e)
    else:
        m, e = r, 0
    if '.' in m:
        ip, fp = m.split('.')
    else:
        ip, fp = m, ''
    digits = ip + fp
    decpt = len(ip) + e
    stripped = digits.lstrip('0')
    decpt -= len(digits) - len(stripped)
    digits = stripped.rstrip('0') or '0'
    if 0 < decpt <= 16:
        if len(digits) <= decpt:
            s = digits + '0' * (decpt - len(digits)) + '.0'
        else:
            s = digits[:decpt] + '.' + digits[decpt:]
    elif -4 < decpt <= 0:
        s = '0.' + '0' * (-decpt) + digits
    else:
        s = digits[0] + '.' + (digits[1:] or '0') + 'e' + ('%+03d' % (decpt - 1))
    return sign + s


def rb_scalar(v):
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return rb_float(v)
    if v is None:
        return 'null'
    return json.dumps(v, ensure_ascii=False)


def rb_pretty(obj, ind=''):
    if isinstance(obj, dict):
        if not obj:
            return '{}'
        inner = ind + '  '
        return '{\n' + ',\n'.join(inner + json.dumps(k, ensure_ascii=False) + ': ' + rb_pretty(v, inner)
                                  for k, v in obj.items()) + '\n' + ind + '}'
    if isinstance(obj, list):
        if not obj:
            return '[]'
        inner = ind + '  '
        return '[\n' + ',\n'.join(inner + rb_pretty(v, inner) for v in obj) + '\n' + ind + ']'
    return rb_scalar(obj)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data.encode('utf-8') if isinstance(data, str) else data)


# ------------------------------------------------------------------ trees
HOST_EMR = dict(model='Emerald Rapids', nr_node=4, nr_cpu=256, memory='256G',
                brand='INTEL(R) XEON(R) PLATINUM 8592+')
HOST_ICL = dict(model='Ice Lake', nr_node=2, nr_cpu=64, memory='256G',
                brand='Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz')

TREES = {
    'mlockmany': dict(
        testcase='stress-ng', test='mlockmany', job_origin='stress-ng-part2.yaml',
        params=[('nr_threads', '100%'), ('testtime', '60s'), ('stress-ng', {'test': 'mlockmany'}),
                ('cpufreq_governor', 'performance')],
        path_params='performance-100%-mlockmany-60s', tbox='lkp-emr-2sp1', host=HOST_EMR,
        head='8d596d8b81ef56bf61538d6b4761a7b0d6138280', base16='819bfbd47e49df89',
        nb=3, nh=3, base_order=None, head_order=None, t0=1760491300, seed=11),
    'mincore': dict(
        testcase='stress-ng', test='mincore', job_origin='stress-ng-part2.yaml',
        params=[('nr_threads', '100%'), ('testtime', '60s'), ('stress-ng', {'test': 'mincore'}),
                ('cpufreq_governor', 'performance')],
        path_params='performance-100%-mincore-60s', tbox='lkp-emr-2sp1', host=HOST_EMR,
        head='7625cb56733bfd470e9fae69a1b8b78aa8b1d3eb', base16='006943a9b437b2d4',
        nb=4, nh=5, base_order=None, head_order=[0, 1, 3, 2, 4], t0=1760489100, seed=23),
    'worked': dict(
        testcase='will-it-scale', test='page_fault2', job_origin='will-it-scale.yaml',
        params=[('nr_task', '100%'), ('will-it-scale', {'mode': 'thread', 'test': 'page_fault2'}),
                ('cpufreq_governor', 'performance')],
        path_params='performance-thread-100%-page_fault2', tbox='lkp-icl-2sp7', host=HOST_ICL,
        head='7e44d00a13ca5691caf4f7c46541ee60bf75b208', base16='3e700b715e1cef66',
        nb=4, nh=3, base_order=[1, 0, 2, 3], head_order=None, t0=1765265000, seed=37),
}
ROOTFS = 'debian-13-x86_64-20250902.cgz'
KCONFIG = 'x86_64-rhel-9.4'
COMPILER = 'gcc-14'
BRANCH = 'linus/master'

# archive-format.md section 8, verbatim per-run values (base A runs 0,1,2 / head B runs 0,1,2)
SEC8 = {
    'stress-ng.mlockmany.pass': ([1, 1, 1], [1, 1, 1]),
    'stress-ng.mlockmany.ops': ([1043210, 1051820, 1055324], [1126061, 1161061, 1196061]),
    'stress-ng.mlockmany.ops_per_sec': ([17400.5, 17541.0, 17681.5], [18900.0, 19384.0, 19868.0]),
    'stress-ng.time.elapsed_time': ([60.52, 60.49, 60.55], [60.51, 60.53, 60.48]),
    'stress-ng.time.elapsed_time.max': ([60.52, 60.49, 60.55], [60.51, 60.53, 60.48]),
    'stress-ng.time.involuntary_context_switches': ([2913233, 2933233, 2953233], [2704192, 2714192, 2724192]),
    'stress-ng.time.user_time': ([75.91, 76.26, 76.61], [94.9, 98.61, 102.32]),
    'vmstat.system.cs': ([3379.2, 3401.5, 3365.8], [3390.1, 3372.4, 3410.0]),
}


# ------------------------------------------------------------------ golden parsing
def parse_golden(name):
    path = name if os.sep in name else os.path.join(GOLDEN, name + '.table')
    with open(path, 'rb') as f:
        lines = f.read().decode('utf-8').split('\n')
    i = lines.index('             \\          |                \\  ')
    rows = []
    for ln in lines[i + 1:]:
        if ln == '':
            break
        rows.append(dict(line=ln, b=ln[0:10].strip(), bsd=_sd(ln[10:16]), ch=ln[16:26].strip(),
                         suffix=ln[26:28], h=ln[28:38].strip(), hsd=_sd(ln[38:44]), name=ln[46:]))
        assert ln[44:46] == '  '
    return rows


def _sd(s):
    s = s.strip()
    if not s:
        return None
    assert s.startswith('\u00b1') and s.endswith('%'), s
    return int(s[1:-1])


# ------------------------------------------------------------------ value design
DECIMALS = {}   # a case's own hidden decimals per stat (gen_case: SPEC "decimals")


def kind_of(name):
    """('int', 0) or ('float', decimals) for a stat name."""
    if name in DECIMALS:
        return ('float', DECIMALS[name])
    if name.startswith('perf-profile.'):
        return ('float', 4)
    if name.startswith(('proc-vmstat.', 'interrupts.', 'softirqs.', 'slabinfo.')):
        return ('int', 0)
    if name.endswith(('.ops', '_context_switches', '_page_faults', 'percent_of_cpu_this_job_got',
                      'maximum_resident_set_size')):
        return ('int', 0)
    if name.startswith('will-it-scale.') and '.time.' not in name and not name.endswith('_idle'):
        return ('int', 0)
    return ('float', 2)


def val_interval(s):
    v = float(s)
    if 'e' in s:
        exp = int(s.split('e')[1])
        half = 0.5 * 10 ** (exp - 3)
        return v - half, v + half
    if '.' in s:
        return v - 0.005, v + 0.005
    return v, v + 1.0


def shrink(lo, hi, frac=0.05):
    w = hi - lo
    return lo + w * frac, hi - w * frac


PATTERNS = {
    3: [[-1, 0, 1], [-3, 1, 2], [-2, -1, 3]],
    4: [[-3, -1, 1, 3], [-2, -1, 0, 3], [-3, 0, 1, 2]],
    5: [[-2, -1, 0, 1, 2], [-3, -1, 0, 1, 3], [-4, -1, 1, 2, 2]],
}
PERMS = {
    3: [[0, 1, 2], [2, 0, 1], [1, 2, 0], [0, 2, 1], [1, 0, 2]],
    4: [[0, 1, 2, 3], [2, 0, 3, 1], [1, 3, 0, 2], [3, 1, 2, 0]],
    5: [[0, 1, 2, 3, 4], [3, 0, 4, 1, 2], [1, 4, 2, 0, 3], [2, 3, 0, 4, 1]],
}


def zpat(p):
    n = len(p)
    m = sum(p) / float(n)
    sd = (sum((x - m) ** 2 for x in p) / n) ** 0.5
    return [(x - m) / sd for x in p]


def make_runs(mean_units_sum, n, unit_dec, kind, rel, pat, perm):
    """n values on the grid 10**-unit_dec (ints for kind int) summing exactly to mean_units_sum
    grid units, spread with relative population stddev ~rel (fraction) along pattern pat."""
    mu = mean_units_sum / float(n)
    z = zpat(pat)
    us = [int(round(mu + mu * rel * z[i])) for i in range(n - 1)]
    us.append(mean_units_sum - sum(us))
    us = [us[perm[i]] for i in range(n)]
    if kind == 'int':
        return us
    return [float('%de-%d' % (u, unit_dec)) if unit_dec else float(u) for u in us]


def name_hash(name):
    return int(hashlib.sha1(name.encode()).hexdigest()[:8], 16)


def design_row(row, nb, nh, c_target=None):
    """Return (base_runs or None, head_runs) reproducing the golden row text."""
    name = row['name']
    kind, dec = kind_of(name)
    absolute = CK.abs_change(name)
    absent_base = name.startswith('perf-profile.') and row['b'] == '0.00' and row['bsd'] is None
    hB = val_interval(row['b'])
    hH = val_interval(row['h'])
    bB, bH = shrink(*hB), shrink(*hH)
    d = float(row['ch'])
    cl, chh = shrink(d - 0.05, d + 0.05)
    scale = 10 ** dec

    def snap_sum(x, n):   # total of n runs, in grid units, for mean x
        return int(round(x * n * scale)) if kind == 'float' else int(round(x * n))

    cands = []
    if absent_base:
        lo, hi = max(bH[0], cl), min(bH[1], chh)
        cands.append((None, (lo + hi) / 2 if c_target is None else c_target))
    elif c_target is not None:
        lo, hi = max(bB[0], bH[0] - c_target), min(bB[1], bH[1] - c_target)
        assert lo <= hi, (name, c_target)
        B = round((lo + hi) / 2, dec)
        cands.append((B, B + c_target))
    else:
        steps = 40
        for j in [steps // 2] + [x for x in range(steps + 1) if x != steps // 2]:
            B = bB[0] + (bB[1] - bB[0]) * j / steps
            if absolute:
                lo, hi = max(bH[0], B + cl), min(bH[1], B + chh)
            else:
                lo, hi = max(bH[0], B * (1 + cl / 100)), min(bH[1], B * (1 + chh / 100))
            if lo <= hi:
                cands.append((B, (lo + hi) / 2))
    rels_b = [(row['bsd'] + 0.5) / 100] if row['bsd'] is not None else [0.004, 0.002, 0.001, 0.0005, 0.0002, 0.0001]
    zero_run = row['hsd'] is not None and row['hsd'] >= 50
    rels_h = [(row['hsd'] + 0.5) / 100] if row['hsd'] is not None else [0.004, 0.002, 0.001, 0.0005, 0.0002, 0.0001]
    if row['bsd'] is not None:
        rels_b += [(row['bsd'] + f) / 100 for f in (0.3, 0.7, 0.2, 0.8)]
    if row['hsd'] is not None and not zero_run:
        rels_h += [(row['hsd'] + f) / 100 for f in (0.3, 0.7, 0.2, 0.8)]
    h0 = name_hash(name)
    pb_list = [(PATTERNS[nb][(h0 + i) % len(PATTERNS[nb])], PERMS[nb][(h0 >> 4) % len(PERMS[nb])]) for i in range(len(PATTERNS[nb]))]
    ph_list = [(PATTERNS[nh][(h0 + 1 + i) % len(PATTERNS[nh])], PERMS[nh][(h0 >> 8) % len(PERMS[nh])]) for i in range(len(PATTERNS[nh]))]
    for B, H in cands:
        sb = snap_sum(B, nb) if B is not None else None
        sh = snap_sum(H, nh)
        for rb in rels_b:
            for rh in (rels_h if not zero_run else [0.01, 0.005, 0.02]):
                for pb, permb in pb_list:
                    for ph, permh in ph_list:
                        base = None
                        if sb is not None:
                            base = make_runs(sb, nb, dec, kind, rb, pb, permb)
                        if zero_run:
                            head = zero_run_head(sh, nh, dec, kind, rh)
                        else:
                            head = make_runs(sh, nh, dec, kind, rh, ph, permh)
                        if check_row(row, base, head, nb, nh):
                            return base, head
    raise SystemExit('cannot design values for row: ' + row['line'])


def zero_run_head(sh, nh, dec, kind, e):
    assert nh == 3
    x = int(round(sh * (0.5 - e / 3)))
    y = sh - x
    vals = [x, None, y]
    if kind == 'int':
        return vals
    return [None if u is None else float('%de-%d' % (u, dec)) for u in vals]


def zf(runs):
    return [0 if v is None else v for v in runs]


def check_row(row, base, head, nb, nh):
    k = row['name']
    b = {'stats_source': ['b'] * nb, 'perf-profile.dummy': [1.0] * nb}
    if base is not None:
        b[k] = zf(base)
    a = {'stats_source': ['a'] * nh, k: zf(head), 'perf-profile.dummy': [1.0] * nh}
    if k not in CK.detect(a, b):
        return False
    return CK.render_row(k, [b, a]) == row['line']


def design_table(rows, nb, nh):
    """Per-row designs; perf-profile families get strictly ascending absolute changes."""
    out = {}
    prev = {}
    for row in rows:
        name = row['name']
        fam = '.'.join(name.split('.')[:2]) if name.startswith('perf-profile.') else None
        if name in SEC8_ACTIVE:
            out[name] = SEC8_ACTIVE[name]
            continue
        c = None
        if fam:
            kind, dec = kind_of(name)
            absent = row['b'] == '0.00' and row['bsd'] is None
            bB = (0.0, 0.0) if absent else shrink(*val_interval(row['b']))
            bH = shrink(*val_interval(row['h']))
            d = float(row['ch'])
            cl, chh = shrink(d - 0.05, d + 0.05)
            lo, hi = max(cl, bH[0] - bB[1]), min(chh, bH[1] - bB[0])
            step = 3 * 10 ** -dec
            c = lo if fam not in prev else max(lo, prev[fam] + step)
            c = round(c + 0.5 * 10 ** -dec, dec)
            if c > hi:
                raise SystemExit('family %s: cannot keep changes ascending at %s' % (fam, name))
            prev[fam] = c
        out[name] = design_row(row, nb, nh, c_target=c)
    return out


SEC8_ACTIVE = {}


# ------------------------------------------------------------------ distractors
def spread(m, rel, n, idx, kind='float', dec=2, shift=0.0):
    """n values around m (times 1+shift) with relative spread rel, pattern idx."""
    p = zpat(PATTERNS[n][idx % len(PATTERNS[n])])
    perm = PERMS[n][idx % len(PERMS[n])]
    vals = [m * (1 + shift) * (1 + rel * p[perm[i]]) for i in range(n)]
    if kind == 'int':
        return [int(round(v)) for v in vals]
    return [round(v, dec) for v in vals]


def distractors(tree, cfg):
    """List of (name, base_runs, head_runs, expected-reason-prefix)."""
    T = cfg['testcase']
    t = cfg['test']
    nb, nh = cfg['nb'], cfg['nh']
    D = []

    def add(name, b, h, why):
        D.append((name, b, h, why))

    def ov(name, m, rel, kind='float', dec=2, i=0):
        add(name, spread(m, rel, nb, i, kind, dec), spread(m, rel, nh, i + 1, kind, dec, shift=rel * 0.1), 'nochange:overlap')

    def sep(name, m, ratio, rel, why, kind='float', dec=2, i=0):
        add(name, spread(m, rel, nb, i, kind, dec), spread(m * ratio, rel, nh, i + 1, kind, dec), why)

    if tree == 'mlockmany':   # archive-format.md section 8 values
        for k, why in (('stress-ng.mlockmany.pass', 'skip:lone-pass'),
                       ('stress-ng.time.elapsed_time', 'nochange:overlap'),
                       ('stress-ng.time.elapsed_time.max', 'nochange:overlap'),
                       ('vmstat.system.cs', 'nochange:overlap')):
            add(k, list(SEC8[k][0]), list(SEC8[k][1]), why)
    if T == 'stress-ng':
        if tree != 'mlockmany':
            add('%s.%s.pass' % (T, t), [1] * nb, [1] * nh, 'skip:lone-pass')
        add('%s.%s.head_only_counter' % (T, t), [None] * nb, spread(52311, 0.01, nh, 0, 'int'), 'skip:not-in-base')
        if tree != 'mlockmany':
            ov('%s.time.elapsed_time' % T, 60.5, 0.0004, i=1)
            add('%s.time.elapsed_time.max' % T, D[-1][1], D[-1][2], 'nochange:overlap')
        ov('%s.time.system_time' % T, 14876.3, 0.004, i=2)
        ov('%s.time.maximum_resident_set_size' % T, 18344, 0.003, 'int', i=0)
        sep('%s.time.percent_of_cpu_this_job_got' % T, 24950, 1.006, 0.0002, 'small:ratio<=1.01', 'int')
        sep('%s.time.minor_page_faults' % T, 5020, 1.08, 0.002, 'small:threshold', 'int', i=1)
        if tree == 'mlockmany':
            sep('%s.time.major_page_faults' % T, 312, 1.6, 0.01, 'small:threshold', 'int')
        else:
            sep('%s.time.involuntary_context_switches' % T, 318, 1.4, 0.01, 'small:threshold', 'int')
            sep('%s.time.voluntary_context_switches' % T, 4020, 1.09, 0.002, 'small:threshold', 'int', i=2)
        if tree != 'mlockmany':
            ov('vmstat.system.cs', 3380.5, 0.006, i=1)
        ov('proc-vmstat.pgfault', 98765432, 0.002, 'int', i=1)
    else:   # will-it-scale
        ov('%s.64.threads_idle' % T, 0.42, 0.02, i=0)
        ov('%s.time.elapsed_time' % T, 301.07, 0.0002, i=1)
        add('%s.time.elapsed_time.max' % T, D[-1][1], D[-1][2], 'nochange:overlap')
        ov('%s.time.system_time' % T, 13051.2, 0.003, i=2)
        ov('%s.time.user_time' % T, 5321.75, 0.004, i=0)
        sep('%s.time.percent_of_cpu_this_job_got' % T, 6137, 1.004, 0.0001, 'small:ratio<=1.01', 'int')
        sep('%s.time.involuntary_context_switches' % T, 412, 1.3, 0.01, 'small:threshold', 'int', i=1)
        sep('%s.time.voluntary_context_switches' % T, 3890, 1.07, 0.002, 'small:threshold', 'int', i=2)
        ov('%s.time.minor_page_faults' % T, 1.0449e9, 0.002, 'int', i=1)  # large, overlapping
        add('proc-vmstat.pgpromote_candidate', [None] * nb, spread(8123456, 0.01, nh, 0, 'int'), 'skip:not-in-base')
        ov('vmstat.system.cs', 4102.3, 0.008, i=2)
    # common monitors
    ov('vmstat.system.in', 271234.5, 0.002, i=0)
    sep('vmstat.cpu.sy', 31.0, 1.2, 0.005, 'small:threshold', 'int', i=1)
    sep('proc-vmstat.nr_dirty', 21, 2.0, 0.05, 'small:threshold', 'int', i=0)
    add('proc-vmstat.pgmajfault', [0] * nb, [0] * nh, 'dropped')
    sep('meminfo.Shmem', 271836.4, 1.03, 0.0005, 'small:ratio<=1.05-not-perf-metric', i=2)
    ov('meminfo.Active(anon)', 1893412.2, 0.004, i=1)
    sep('perf-stat.i.ipc', 0.45, 1.005, 0.0002, 'small:ratio<=1.01', dec=4, i=0)
    ov('perf-stat.i.context-switches', 3391.5, 0.006, i=2)
    ov('perf-stat.overall.cpi', 2.23, 0.003, dec=4, i=1)
    sep('interrupts.CPU0.LOC:Local_timer_interrupts', 61234, 3.0, 0.01, 'skip:denylist', 'int', i=0)
    sep('interrupts.CAL:Function_call_interrupts', 181234, 1.9, 0.01, 'skip:denylist', 'int', i=1)
    sep('softirqs.CPU1.SCHED', 40123, 2.5, 0.01, 'skip:denylist', 'int', i=2)
    sep('softirqs.RCU', 1234567, 1.5, 0.005, 'skip:denylist', 'int', i=0)
    sep('slabinfo.kmalloc-64.active_objs', 51234, 1.8, 0.01, 'skip:denylist', 'int', i=1)
    add('sched_debug.cpu.nr_switches.0', spread(1000, 0.1, nb, 0, 'int'), spread(3000, 0.1, nh, 1, 'int'), 'dropped')
    ov('sched_debug.cpu.nr_switches.avg', 8123.4, 0.004, i=2)
    ov('mpstat.cpu.all.sys%', 61.3, 0.003, i=1)
    add('kmsg.hpet_acpi_probe:bad_resource', [1] * nb, [1] * nh, 'nochange:function-equal-max')
    # perf-profile: fillers (overlapping) and the Integer-median quirk
    ov('perf-profile.calltrace.cycles-pp.clear_page_erms.prep_new_page.get_page_from_freelist', 11.03, 0.002, dec=4, i=0)
    ov('perf-profile.children.cycles-pp.clear_page_erms', 11.21, 0.002, dec=4, i=1)
    ov('perf-profile.children.cycles-pp.native_irq_return_iret', 2.61, 0.003, dec=4, i=2)
    ov('perf-profile.self.cycles-pp.clear_page_erms', 10.97, 0.002, dec=4, i=0)
    ov('perf-profile.self.cycles-pp.sync_regs', 1.87, 0.003, dec=4, i=1)
    head_rq = [None] * nh
    head_rq[0] = 1.1012
    add('perf-profile.self.cycles-pp.rmqueue_bulk', spread(1.2231, 0.01, nb, 0, dec=4), head_rq,
        'nochange:perf-profile-integer-median')
    add('perf-profile.self.cycles-pp.vanished_helper', spread(0.3217, 0.02, nb, 1, dec=4), [None] * nh,
        'nochange:perf-profile-integer-median')
    return D


# ------------------------------------------------------------------ stats layout
GZ_GROUPS = {'interrupts', 'perf-profile', 'perf-stat', 'proc-vmstat', 'sched_debug', 'slabinfo', 'softirqs'}


def stats_group(name, testcase):
    if name.startswith(testcase + '.time.'):
        return testcase + '.time'
    return name.partition('.')[0]


def order_stats(names, testcase):
    groups = {}
    order = []
    for n in names:
        g = stats_group(n, testcase)
        if g not in groups:
            groups[g] = []
            order.append(g)
        groups[g].append(n)
    plain = sorted((g for g in order if g not in GZ_GROUPS), key=lambda g: (g + '.json').encode())
    gz = sorted((g for g in order if g in GZ_GROUPS), key=lambda g: (g + '.json.gz').encode())
    out = []
    for g in plain + gz:
        out += groups[g]
    return out


def build_matrix(run_stats, unite_order, src_paths):
    """run_stats[i] = ordered dict of run i; returns the _result_root matrix (2.4)."""
    m = {}
    for r in unite_order:
        st = dict(run_stats[r])
        st['stats_source'] = src_paths[r]
        columns = max([len(v) for v in m.values()] or [0])
        for k, v in st.items():
            arr = m.setdefault(k, [])
            while len(arr) < columns:
                arr.append(0)
            arr.append(v)
    m = {k: v for k, v in m.items() if not re.match(r'^sched_debug.*\.[0-9]+$', k)}
    m = {k: v for k, v in m.items() if v and not all(type(x) is int and x == 0 for x in v)}
    return m


# ------------------------------------------------------------------ job files
def yaml_scalar(v):
    if isinstance(v, int):
        return str(v)
    return str(v)


def job_yaml(cfg, commit, run, rt, head, base, times):
    T = cfg['testcase']
    h = cfg['host']
    tb = cfg['tbox']
    L = ['---', '', '#! jobs/' + cfg['job_origin'], 'suite: ' + T, 'testcase: ' + T, 'category: benchmark']
    for k, v in cfg['params']:
        if k == 'cpufreq_governor':
            continue
        if isinstance(v, dict):
            L.append(k + ':')
            L += ['  %s: %s' % (k2, v2) for k2, v2 in v.items()]
        else:
            L.append('%s: %s' % (k, v))
    L.append('job_origin: ' + cfg['job_origin'])
    L += ['', '#! queue options', 'queue_cmdline_keys:', '- branch', '- commit', 'queue: bisect',
          'testbox: ' + tb, 'tbox_group: ' + tb, 'submit_id: ' + hexof('submit', commit, run, n=24),
          'job_file: "/lkp/jobs/scheduled/%s/%s-%s-%s-%s-%s-%d.yaml"' % (
              tb, T, cfg['path_params'], cfg.get('rootfs', ROOTFS), commit[:12], times['date'], run),
          'id: ' + hexof('id', commit, run)]
    L += ['', '#! hosts/' + tb, 'model: ' + h['model'], 'nr_node: %d' % h['nr_node'],
          'nr_cpu: %d' % h['nr_cpu'], 'memory: ' + h['memory'], 'brand: ' + h['brand']]
    L += ['', '#! include/category/benchmark', 'kmsg:', 'boot-time:', 'uptime:', 'iostat:', 'heartbeat:',
          'vmstat:', 'numa-numastat:', 'numa-vmstat:', 'numa-meminfo:', 'proc-vmstat:', 'proc-stat:',
          'meminfo:', 'slabinfo:', 'interrupts:', 'lock_stat:', 'perf-sched:', '  lite_mode: 1',
          'softirqs:', 'bdi_dev_mapping:', 'diskstats:', 'nfsstat:', 'cpuidle:', 'cpufreq-stats:',
          'sched_debug:', 'perf-stat:', 'mpstat:', 'perf-c2c:', 'perf-profile:', '  lite_mode: 1']
    L += ['', '#! include/category/ALL', 'cpufreq_governor: performance']
    L += ['', '#! include/queue/cyclic', 'commit: ' + commit, 'head_commit: ' + head, 'base_commit: ' + base,
          'rootfs: ' + cfg.get('rootfs', ROOTFS), 'kconfig: ' + cfg.get('kconfig', KCONFIG),
          'enqueue_time: %s' % times['enqueue'], '_rt: "%s"' % rt]
    kc, cc = cfg.get('kconfig', KCONFIG), cfg.get('compiler', COMPILER)
    L += ['', '#! schedule options', 'user: lkp', 'compiler: ' + cc, 'branch: ' + cfg.get('branch', BRANCH),
          'result_root: "%s/%d"' % (rt, run), 'arch: x86_64',
          'kernel: "/pkg/linux/%s/%s/%s/vmlinuz-%s"' % (kc, cc, commit, times['release']),
          'dequeue_time: %s' % times['dequeue']]
    L += ['', '#! runtime status', 'job_state: finished', 'loadavg: %s' % times['loadavg'],
          "start_time: '%d'" % times['start'], "end_time: '%d'" % times['end'], '']
    return '\n'.join(L)


def job_sh(cfg, commit, run, rt):
    T = cfg['testcase']
    env = []
    for k, v in cfg['params']:
        if isinstance(v, dict):
            env += ["%s='%s'" % (k2, v2) for k2, v2 in v.items()]
    envs = ' '.join(env)
    nr = cfg['host']['nr_cpu']
    top = ["\texport suite='%s'" % T, "\texport testcase='%s'" % T, "\texport category='benchmark'"]
    if T == 'stress-ng':
        top += ['\texport nr_threads=%d' % nr, '\texport testtime=60']
    else:
        top += ['\texport nr_task=%d' % nr]
    top += ["\texport job_origin='%s'" % cfg['job_origin'], "\texport testbox='%s'" % cfg['tbox'],
            "\texport tbox_group='%s'" % cfg['tbox'], "\texport commit='%s'" % commit,
            "\texport rootfs='%s'" % cfg.get('rootfs', ROOTFS), "\texport kconfig='%s'" % cfg.get('kconfig', KCONFIG),
            "\texport compiler='%s'" % cfg.get('compiler', COMPILER), "\texport result_root='%s/%d'" % (rt, run)]
    mons = ['kmsg', 'vmstat', 'proc-vmstat', 'meminfo', 'slabinfo', 'interrupts', 'softirqs',
            'sched_debug', 'perf-stat', 'mpstat']
    L = ['#!/bin/sh', '', 'export_top_env()', '{'] + top + [
        '', '\t[ -n "$LKP_SRC" ] ||', '\texport LKP_SRC=/lkp/${user:-lkp}/src', '}', '', '',
        'run_job()', '{', '\techo $$ > $TMP/run-job.pid', '', '\t. $LKP_SRC/lib/http.sh',
        '\t. $LKP_SRC/lib/job.sh', '\t. $LKP_SRC/lib/env.sh', '', '\texport_top_env', '',
        "\trun_setup $LKP_SRC/bin/run-setup cpufreq_governor 'performance'", '']
    L += ['\trun_monitor $LKP_SRC/bin/run-monitor %s' % m for m in mons]
    L += ['\trun_monitor lite_mode=1 $LKP_SRC/bin/run-no-stdout-monitor perf-profile', '',
          '\trun_test %s $LKP_SRC/bin/run-test %s' % (envs, T), '}', '', '', 'extract_stats()', '{',
          '\texport stats_part_begin=', '\texport stats_part_end=', '',
          '\tenv %s $LKP_SRC/bin/run-stats %s' % (envs, T)]
    L += ['\t$LKP_SRC/bin/run-stats %s' % m for m in mons]
    L += ['\tenv lite_mode=1 $LKP_SRC/bin/run-stats perf-profile', '',
          '\t$LKP_SRC/bin/run-stats time %s.time' % T, '\t$LKP_SRC/bin/run-stats dmesg',
          '\t$LKP_SRC/bin/run-stats kmsg', '\t$LKP_SRC/bin/run-stats last_state',
          '\t$LKP_SRC/bin/run-stats stderr', '\t$LKP_SRC/bin/run-stats time', '}', '', '', '"$@"', '']
    return '\n'.join(L)


def reproduce_sh(cfg):
    nr = cfg['host']['nr_cpu']
    L = ['', 'for cpu_dir in /sys/devices/system/cpu/cpu[0-9]*', 'do',
         '\tonline_file="$cpu_dir"/online',
         '\t[ -f "$online_file" ] && [ "$(cat "$online_file")" -eq 0 ] && continue', '',
         '\tfile="$cpu_dir"/cpufreq/scaling_governor', '\t[ -f "$file" ] && echo "performance" > "$file"',
         'done', '']
    if cfg['testcase'] == 'stress-ng':
        L += ['sysctl -w kernel.sched_autogroup_enabled=0',
              'stress-ng --timeout 60 --times --verify --metrics --no-rand-seed --pathological --%s %d'
              % (cfg['test'], nr)]
    else:
        L += ['python3 ./runtest.py %s 295 %s 0 0 %d' % (cfg['test'], cfg.get('mode', 'thread'), nr)]
    return '\n'.join(L) + '\n'


def fmt_time(epoch, frac_ns):
    # UTC+8 wall clock of an epoch, computed without the time module's local zone
    s = epoch + 8 * 3600
    days, rem = divmod(s, 86400)
    y, mo, d = civil_from_days(days)
    return '%04d-%02d-%02d %02d:%02d:%02d.%09d +08:00' % (y, mo, d, rem // 3600, rem % 3600 // 60, rem % 60, frac_ns)


def civil_from_days(z):
    z += 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + (m <= 2), m, d)


# ------------------------------------------------------------------ writer
def write_tree(outroot, cfg, runs_by_commit, orders, head, base):
    """runs_by_commit[commit] = list (per run index) of ordered dicts of stats."""
    T = cfg['testcase']
    rel = '/'.join([T, cfg['path_params'], cfg['tbox'], cfg.get('rootfs', ROOTFS), cfg.get('kconfig', KCONFIG),
                    cfg.get('compiler', COMPILER)])
    for ci, commit in enumerate([base, head]):
        rt = '/result/' + rel + '/' + commit
        d = os.path.join(outroot, 'result', *rel.split('/'), commit)
        runs = runs_by_commit[commit]
        order = orders[commit]
        t_base = cfg['t0'] + ci * 7200
        release = '6.18.0-rc1-%05d-g%s' % (41 + 17 * ci, commit[:12])
        for pos, r in enumerate(order):
            start = t_base + 600 * pos
            times = dict(start=start, end=start + 62 + (r % 3), release=release,
                         enqueue=fmt_time(t_base - 3600, 123456789), dequeue=fmt_time(start - 120, 987654321),
                         date=fmt_time(t_base - 3600, 0)[:10].replace('-', ''),
                         loadavg='%d.%02d %d.%02d %d.%02d 1/%d %d' % (
                             180 + r, (r * 37) % 100, 90 + r, (r * 53) % 100, 36, (r * 11) % 100, 2345 + r, 67890 + 1000 * pos))
            rd = os.path.join(d, str(r))
            write(os.path.join(rd, 'job.yaml'), job_yaml(cfg, commit, r, rt, head, base, times))
            write(os.path.join(rd, 'job.sh'), job_sh(cfg, commit, r, rt))
            write(os.path.join(rd, 'reproduce.sh'), reproduce_sh(cfg))
            write(os.path.join(rd, 'stats.json'), rb_pretty(runs[r]))
        src = ['%s/%d/stats.json' % (rt, r) for r in range(len(runs))]
        m = build_matrix(runs, order, src)
        write(os.path.join(d, 'matrix.json'), rb_pretty(m))


def runs_from_table(stat_runs, n, testcase):
    """stat_runs: {name: list of n values (None = absent)} -> per-run ordered dicts."""
    names = order_stats(list(stat_runs), testcase)
    out = []
    for r in range(n):
        st = {}
        for k in names:
            v = stat_runs[k][r]
            if v is not None:
                st[k] = v
        out.append(st)
    return out


def gen_tree(name, outroot):
    cfg = TREES[name]
    nb, nh = cfg['nb'], cfg['nh']
    head = cfg['head']
    base = synth_base_sha(cfg['base16'])
    rows = parse_golden(name)
    SEC8_ACTIVE.clear()
    if name == 'mlockmany':
        SEC8_ACTIVE.update({k: v for k, v in SEC8.items() if k in {r['name'] for r in rows}})
    design = design_table(rows, nb, nh)
    if cfg['testcase'] == 'will-it-scale':
        # keep the parser's relations where the golden allows it: workload == sum of the
        # 64.threads samples, per_thread_ops == threads / nr_task ("%d" of the average)
        rw = {r['name']: r for r in rows}
        thr = design.get('will-it-scale.64.threads')
        nt = cfg['host']['nr_cpu']
        for k, cand in (('will-it-scale.workload', thr),
                        ('will-it-scale.per_thread_ops',
                         thr and ([t // nt for t in thr[0]], [t // nt for t in thr[1]]))):
            if thr and k in rw and check_row(rw[k], cand[0], cand[1], nb, nh):
                design[k] = (list(cand[0]), list(cand[1]))
    b_stats, h_stats = {}, {}
    for row in rows:
        bv, hv = design[row['name']]
        b_stats[row['name']] = list(bv) if bv is not None else [None] * nb
        h_stats[row['name']] = list(hv)
    dis = distractors(name, cfg)
    row_names = {r['name'] for r in rows}
    for k, bv, hv, why in dis:
        assert k not in row_names and k not in b_stats, k
        b_stats[k], h_stats[k] = list(bv), list(hv)
    # leading-zero padding case: a deny-listed stat absent from the first united base run
    first = (cfg['base_order'] or list(range(nb)))[0]
    b_stats['softirqs.CPU1.SCHED'][first] = None
    b_runs = runs_from_table(b_stats, nb, cfg['testcase'])
    h_runs = runs_from_table(h_stats, nh, cfg['testcase'])
    orders = {base: cfg['base_order'] or list(range(nb)), head: cfg['head_order'] or list(range(nh))}
    write_tree(os.path.join(outroot, name), cfg, {base: b_runs, head: h_runs}, orders, head, base)
    return dis


def gen_case(spec_path, outroot):
    """A published report's archive (tests/data/24xx): the tree of SPEC (a JSON object with
    TREES' keys, plus rootfs/kconfig/compiler/branch/mode of the job and `table`, the
    published table's file next to SPEC, header through the last row), whose comparison
    reproduces that table byte for byte (checked with the model; exit 1 if not).  No
    distractors: the published table is the oracle."""
    cfg = json.load(open(spec_path))
    table = os.path.join(os.path.dirname(os.path.abspath(spec_path)), cfg['table'])
    nb, nh = cfg['nb'], cfg['nh']
    head = cfg['head']
    base = synth_base_sha(cfg['base16'])
    rows = parse_golden(table)
    SEC8_ACTIVE.clear()
    DECIMALS.clear()
    DECIMALS.update(cfg.get('decimals', {}))
    design = design_table(rows, nb, nh)
    b_stats, h_stats = {}, {}
    for row in rows:
        bv, hv = design[row['name']]
        b_stats[row['name']] = list(bv) if bv is not None else [None] * nb
        h_stats[row['name']] = list(hv)
    b_runs = runs_from_table(b_stats, nb, cfg['testcase'])
    h_runs = runs_from_table(h_stats, nh, cfg['testcase'])
    orders = {base: list(range(nb)), head: list(range(nh))}
    write_tree(outroot, cfg, {base: b_runs, head: h_runs}, orders, head, base)
    got = CK.compare_tree(outroot)
    with open(table, encoding='utf-8') as f:
        want = f.read()
    # the model prints the commit lines with full SHAs; compare from the header line on
    got = got[got.index(base[:16] + ' '):]
    if got != want:
        sys.stderr.write('FAIL %s: the comparison is not the published table\n' % outroot)
        for d in difflib.unified_diff(want.split('\n'), got.split('\n'), 'published', 'model', lineterm=''):
            sys.stderr.write(d + '\n')
        return 1
    return 0


def verify_distractors(tree_dir, dis):
    rts = sorted(CK.find_result_roots(tree_dir))
    problems = []
    ms = {}
    for rt in rts:
        first = sorted(CK.find_result_roots(tree_dir)[rt])[0]
        ax, d = CK.job_axes(CK.parse_job_yaml(os.path.join(first, 'job.yaml')))
        ms[ax['commit'] == d['base_commit']] = CK.load_matrix(os.path.join(rt, 'matrix.json'))
    trace = {}
    CK.detect(ms[False], ms[True], trace)
    for k, _, _, why in dis:
        got = trace.get(k, 'dropped' if k not in ms[True] and k not in ms[False] else 'absent')
        if not got.startswith(why):
            problems.append('distractor %s: expected %s, model says %s' % (k, why, got))
    return problems


# ------------------------------------------------------------------ bench
FUNCS = ('asm_exc_page_fault exc_page_fault do_user_addr_fault handle_mm_fault __handle_mm_fault '
         'do_fault do_anonymous_page finish_fault set_pte_range folio_add_lru __folio_batch_add_and_move '
         'folio_batch_move_lru lru_add lru_gen_add_folio lru_gen_del_folio __lruvec_stat_mod_folio '
         '__mod_lruvec_state __mod_memcg_lruvec_state mod_node_page_state alloc_pages_mpol '
         '__alloc_frozen_pages_noprof get_page_from_freelist rmqueue rmqueue_bulk clear_page_erms '
         'prep_new_page vma_alloc_folio_noprof __pte_offset_map_lock _raw_spin_lock '
         'native_queued_spin_lock_slowpath entry_SYSCALL_64_after_hwframe do_syscall_64 __x64_sys_munmap '
         '__vm_munmap do_vmi_munmap do_vmi_align_munmap vms_complete_munmap_vmas vms_clear_ptes unmap_vmas '
         'unmap_page_range zap_pmd_range zap_pte_range zap_present_ptes folio_remove_rmap_ptes tlb_flush_mmu '
         '__tlb_batch_free_encoded_pages free_pages_and_swap_cache folios_put_refs __page_cache_release '
         'free_unref_folios free_pcppages_bulk __free_one_page testcase sync_regs native_irq_return_iret '
         'error_entry irqentry_exit_to_user_mode lock_vma_under_rcu mas_walk up_read down_read_trylock '
         'percpu_counter_add_batch __count_memcg_events mem_cgroup_commit_charge charge_memcg '
         'try_charge_memcg page_counter_try_charge memcg_check_events cgroup_rstat_updated '
         'filemap_map_pages next_uptodate_folio set_pte_range.part.0 __do_fault shmem_fault '
         'shmem_get_folio_gfp filemap_get_entry xas_load kmem_cache_alloc_noprof kmem_cache_free '
         'asm_sysvec_apic_timer_interrupt sysvec_apic_timer_interrupt __sysvec_apic_timer_interrupt '
         'hrtimer_interrupt __hrtimer_run_queues tick_nohz_handler update_process_times sched_tick '
         'task_tick_fair update_curr cpuidle_idle_call cpuidle_enter cpuidle_enter_state '
         'intel_idle_ibrs do_idle cpu_startup_entry start_secondary common_startup_64 '
         'pv_native_safe_halt acpi_safe_halt acpi_idle_enter schedule __schedule pick_next_task_fair '
         'newidle_balance load_balance find_busiest_group update_sd_lb_stats').split()


NUMA_FIELDS = ('nr_free_pages nr_zone_inactive_anon nr_zone_active_anon nr_zone_inactive_file '
               'nr_zone_active_file nr_zone_unevictable nr_zone_write_pending nr_mlock nr_bounce '
               'nr_zspages nr_free_cma numa_hit numa_miss numa_foreign numa_interleave numa_local '
               'numa_other nr_inactive_anon nr_active_anon nr_inactive_file nr_active_file '
               'nr_unevictable nr_slab_reclaimable nr_slab_unreclaimable nr_isolated_anon '
               'nr_isolated_file workingset_nodes nr_anon_pages nr_mapped nr_file_pages nr_dirty '
               'nr_writeback nr_shmem nr_kernel_stack nr_page_table_pages').split()


def gen_bench(outdir, nruns, nstats):
    rng = Rng(0x5EED)
    cfg = dict(TREES['worked'])
    cfg.update(tbox='lkp-spr-2sp4', host=dict(model='Sapphire Rapids', nr_node=2, nr_cpu=224,
                                              memory='512G', brand='Intel(R) Xeon(R) Platinum 8480CTDX'),
               head=hexof('bench-head'), base16=hexof('bench-base', n=16), base_order=None, head_order=None,
               t0=1772000000)  # after lkp-tests 2409d6a4b (2026-02-12): the row order of today's ncompare
    head, base = cfg['head'], synth_base_sha(cfg['base16'])
    names = []
    seen = set()

    def addname(n):
        if n not in seen:
            seen.add(n)
            names.append(n)

    for n in ('will-it-scale.64.threads', 'will-it-scale.64.threads_idle', 'will-it-scale.per_thread_ops',
              'will-it-scale.workload', 'will-it-scale.time.user_time', 'will-it-scale.time.system_time',
              'will-it-scale.time.elapsed_time', 'will-it-scale.time.elapsed_time.max',
              'will-it-scale.time.voluntary_context_switches', 'will-it-scale.time.involuntary_context_switches'):
        addname(n)
    small = [('proc-vmstat.%s' % w) for w in ('numa_hit numa_local pgalloc_normal pgfault pgfree nr_anon_pages '
                                              'nr_free_pages nr_inactive_anon nr_active_anon nr_slab_unreclaimable '
                                              'pgactivate pgdeactivate pglazyfree thp_fault_alloc').split()]
    small += [('perf-stat.%s.%s' % (p, w)) for p in ('i', 'ps', 'overall') for w in (
        'branch-instructions branch-misses cache-misses cache-references cpu-cycles instructions ipc cpi '
        'context-switches cpu-migrations page-faults minor-faults dTLB-load-misses iTLB-load-misses').split()]
    small += [('meminfo.%s' % w) for w in 'Active Inactive AnonPages Shmem Slab KReclaimable Committed_AS'.split()]
    small += [('vmstat.%s' % w) for w in 'cpu.id cpu.sy cpu.us system.cs system.in memory.free procs.r'.split()]
    small += [('mpstat.cpu.all.%s%%' % w) for w in 'idle sys usr irq soft'.split()]
    for n in small:
        addname(n)
    i = 0
    while len(names) < nstats:
        r = rng.below(100)
        if r < 45:
            depth = 1 + rng.below(7)
            fs = [FUNCS[rng.below(len(FUNCS))] for _ in range(depth)]
            addname('perf-profile.calltrace.cycles-pp.' + '.'.join(fs))
        elif r < 55:
            addname('perf-profile.children.cycles-pp.' + FUNCS[rng.below(len(FUNCS))] + ('.%d' % rng.below(50) if rng.below(3) == 0 else ''))
        elif r < 62:
            addname('perf-profile.self.cycles-pp.' + FUNCS[rng.below(len(FUNCS))] + ('.cold.%d' % rng.below(50) if rng.below(3) == 0 else ''))
        elif r < 77:
            addname('interrupts.CPU%d.%s' % (rng.below(224), ('LOC:Local_timer_interrupts', 'RES:Rescheduling_interrupts',
                                                               'CAL:Function_call_interrupts', 'TLB:TLB_shootdowns',
                                                               'NMI:Non-maskable_interrupts')[rng.below(5)]))
        elif r < 85:
            addname('softirqs.CPU%d.%s' % (rng.below(224), ('SCHED', 'RCU', 'TIMER', 'NET_RX')[rng.below(4)]))
        elif r < 90:
            addname('sched_debug.cfs_rq:/.%s.%s' % (('load_avg', 'runnable_avg', 'util_avg', 'nr_running')[rng.below(4)],
                                                    ('avg', 'max', 'min', 'stddev')[rng.below(4)]) + ('.%d' % i if rng.below(2) else ''))
        elif r < 95:
            addname('slabinfo.%s.%s' % (('kmalloc-%d' % (8 << rng.below(10))), ('active_objs', 'num_objs', 'active_slabs')[rng.below(3)]))
        else:
            addname('numa-vmstat.node%d.%s' % (rng.below(2), NUMA_FIELDS[rng.below(len(NUMA_FIELDS))]))
        i += 1
    names = names[:nstats]
    b_stats, h_stats = {}, {}
    extra = []
    for n in names:
        kind, dec = kind_of(n)
        if n.startswith('perf-profile.'):
            m = 0.01 + 30 * rng.rand() ** 3
        elif n.startswith(('interrupts.', 'softirqs.', 'slabinfo.')):
            m = 100 + 1e6 * rng.rand() ** 2
        elif n.endswith('%') or n.startswith('vmstat.cpu'):
            m = 0.1 + 90 * rng.rand()
        else:
            m = 10 ** rng.uniform(1, 11)
        rel = 0.001 + 0.03 * rng.rand()
        r = rng.below(1000)
        if r < 15:
            shift = rng.uniform(0.05, 0.4) * (1 if rng.below(2) else -1)   # clearly changed
        elif r < 25:
            shift = rng.uniform(0.011, 0.05) * (1 if rng.below(2) else -1)  # borderline
        else:
            shift = 0.0
        bv = [m * (1 + rel * (2 * rng.rand() - 1)) for _ in range(nruns)]
        hv = [m * (1 + shift) * (1 + rel * (2 * rng.rand() - 1)) for _ in range(nruns)]
        if kind == 'int':
            bv = [int(round(v)) for v in bv]
            hv = [int(round(v)) for v in hv]
        else:
            bv = [round(v, dec) for v in bv]
            hv = [round(v, dec) for v in hv]
        q = rng.below(1000)
        if q < 5:
            hv = [None] * nruns            # gone in head
            extra.append(n)
        elif q < 15:
            hv[rng.below(nruns)] = None     # missing in one head run
        for attempt in range(20):      # keep every printable number away from rounding ties
            bm = {n: [0 if x is None else x for x in bv], 'stats_source': [''] * nruns}
            hm = {n: [0 if x is None else x for x in hv], 'stats_source': [''] * nruns}
            if all(x is None for x in hv):
                del hm[n]
            if not CK.unstable_numbers(n, [bm, hm]):
                break
            side = bv if attempt % 2 == 0 or all(x is None for x in hv) else hv
            j = rng.below(nruns)
            if side[j] is not None:
                side[j] = int(side[j]) + 1 if kind == 'int' else round(side[j] * 1.0003 + 10 ** -dec, dec)
        else:
            # rare at 200k stats: leave the stat out rather than fail (no tie may reach a
            # table, and one stat fewer changes no other row)
            if n in extra:
                extra.remove(n)
            continue
        b_stats[n], h_stats[n] = bv, hv
    # as many head-only stats as base-only ones: every base run has exactly nstats stats
    for j, n in enumerate(extra):
        new = n + '_new%d' % j if not n.startswith('perf-profile.') else n + '.new_callee_%d' % j
        b_stats[new] = [None] * nruns
        h_stats[new] = [v for v in b_stats[n]]
    # rows of one perf-profile family must not tie in their change (Ruby's sort_by is not
    # stable, so ties could print in any order): nudge until all changes differ by > 1e-7
    for _ in range(50):
        bm = {k: [0 if x is None else x for x in v] for k, v in b_stats.items() if any(x is not None for x in v)}
        hm = {k: [0 if x is None else x for x in v] for k, v in h_stats.items() if any(x is not None for x in v)}
        bm['stats_source'] = [''] * nruns
        hm['stats_source'] = [''] * nruns
        fam = {}
        for k in CK.detect(hm, bm):
            if k.startswith('perf-profile.'):
                fam.setdefault('.'.join(k.split('.')[:2]), []).append((CK.stat_numbers(k, [bm, hm])[2][0], k))
        clash = []
        for f, lst in sorted(fam.items()):
            lst.sort()
            clash += [y[1] for x, y in zip(lst, lst[1:]) if y[0] - x[0] < 1e-7]
        if not clash:
            break
        for k in clash:
            hv = h_stats[k]
            j = next(i for i in range(nruns) if hv[i] is not None)
            hv[j] = round(hv[j] + 0.0003, 4)
    else:
        raise SystemExit('bench: cannot separate perf-profile changes')
    b_runs = runs_from_table(b_stats, nruns, 'will-it-scale')
    h_runs = runs_from_table(h_stats, nruns, 'will-it-scale')
    cfg['path_params'] = 'performance-thread-100%-page_fault2'
    write_tree(os.path.join(outdir, 'bench'), cfg, {base: b_runs, head: h_runs},
               {base: list(range(nruns)), head: list(range(nruns))}, head, base)


# ------------------------------------------------------------------ main
def main(argv):
    if argv and argv[0] == '--bench':
        args = argv[1:]
        nruns, nstats = 10, 20000
        outdir = None
        i = 0
        while i < len(args):
            if args[i] == '--runs':
                nruns = int(args[i + 1]); i += 2
            elif args[i] == '--stats':
                nstats = int(args[i + 1]); i += 2
            else:
                outdir = args[i]; i += 1
        if not outdir:
            sys.stderr.write('usage: gen-fixtures.py --bench OUTDIR [--runs N] [--stats N]\n')
            return 2
        shutil.rmtree(os.path.join(outdir, 'bench'), ignore_errors=True)
        gen_bench(outdir, nruns, nstats)
        print('wrote %s/bench (2 commits x %d runs x %d stats)' % (outdir, nruns, nstats))
        return 0
    if len(argv) == 3 and argv[0] == '--case':
        return gen_case(argv[1], argv[2])
    if len(argv) != 1:
        sys.stderr.write('usage: gen-fixtures.py OUTDIR | --bench OUTDIR [--runs N] [--stats N] | --case SPEC OUTDIR\n')
        return 2
    outdir = argv[0]
    cache = os.environ.get('RM_FIXTURE_CACHE')
    if cache:
        # one `make test` (tests/run-tests.sh sets it): made and self-checked
        # once, in a directory of its own there, then copied
        made = os.path.join(cache, 'gen-fixtures')
        if not os.path.exists(os.path.join(made, 'done')):
            os.makedirs(cache, exist_ok=True)
            tmp = tempfile.mkdtemp(prefix='gen-fixtures.', dir=cache)
            os.environ['RM_FIXTURE_CACHE'] = ''
            rc = main([os.path.join(tmp, 'fx')])
            os.environ['RM_FIXTURE_CACHE'] = cache
            if rc:
                shutil.rmtree(tmp, ignore_errors=True)
                return rc
            open(os.path.join(tmp, 'done'), 'w').close()
            try:
                os.rename(tmp, made)
            except OSError:  # another run made it first
                shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(os.path.join(made, 'fx'), outdir, dirs_exist_ok=True, symlinks=True)
        print('copied %s from %s (made and self-checked in this make test)' % (outdir, made))
        return 0
    problems = []
    for name in ('mlockmany', 'mincore', 'worked', 'multi'):
        shutil.rmtree(os.path.join(outdir, name), ignore_errors=True)
    for name in ('mlockmany', 'mincore', 'worked'):
        dis = gen_tree(name, outdir)
        problems += ['%s: %s' % (name, p) for p in verify_distractors(os.path.join(outdir, name), dis)]
        print('wrote %s/%s (%d base runs, %d head runs, %d distractors)' % (
            outdir, name, TREES[name]['nb'], TREES[name]['nh'], len(dis)))
    # multi: byte-identical copies of the two stress-ng groups under one root
    for name in ('mlockmany', 'mincore'):
        shutil.copytree(os.path.join(outdir, name, 'result'), os.path.join(outdir, 'multi', 'result'),
                        dirs_exist_ok=True)
    print('wrote %s/multi (mincore + mlockmany groups)' % outdir)
    for p in problems:
        sys.stderr.write('FAIL ' + p + '\n')
    rc = CK.main([outdir])
    write_worked_next(outdir)
    print('wrote %s/worked-next (worked + the head re-tested on linux-next/master)' % outdir)
    return 1 if (problems or rc) else 0


# The worked example's bracket line "[still regression on linux-next/master 6987d58a...]":
# 0-day re-tests the regression on linux-next's head.  worked-next is the worked tree plus
# that run: a copy of the head's runs under the linux-next sha, with branch linux-next/master
# and head_commit naming itself (the pairing votes: base and head both name 7e44d00a13).
NEXT_SHA = '6987d58a9cbc5bd57c983baa514474a86c945d56'


def write_worked_next(outdir):
    src = os.path.join(outdir, 'worked')
    dst = os.path.join(outdir, 'worked-next')
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    head = TREES['worked']['head']
    for root, dirs, files in os.walk(dst):
        if os.path.basename(root) == head:
            nd = os.path.join(os.path.dirname(root), NEXT_SHA)
            shutil.copytree(root, nd)
            for r2, _, f2 in os.walk(nd):
                for f in f2:
                    fp = os.path.join(r2, f)
                    with open(fp, encoding='utf-8') as fh:
                        t = fh.read()
                    t = t.replace(head, NEXT_SHA)
                    if f == 'job.yaml':
                        t = t.replace('branch: linus/master', 'branch: linux-next/master')
                    with open(fp, 'w', encoding='utf-8', newline='') as fh:
                        fh.write(t)
            break


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
