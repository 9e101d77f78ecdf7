#!/usr/bin/env python3
"""Write the seed corpora of the libFuzzer targets: tests/fuzz/corpus/<target>/.

Deterministic (fixed mtimes, no owner names), small (the whole corpus stays
well under 200 KB).  Run it again after changing it:
    python3 tests/fuzz/make-corpus.py [OUTDIR]     (default tests/fuzz/corpus)
"""
import gzip
import io
import json
import lzma
import os
import shutil
import subprocess
import sys
import tarfile

A = "819bfbd47e49df890123456789abcdef01234567"
B = "8d596d8b81ef56bf61538d6b4760123456789abc"
RR = ("stress-ng/performance-100%-mlockmany-60s/lkp-emr-2sp1/"
      "debian-13-x86_64-20250902.cgz/x86_64-rhel-9.4/gcc-14")

# archive-format.md section 8, trimmed a little
JOB_FULL = """---

#! jobs/stress-ng-part2.yaml
suite: stress-ng
testcase: stress-ng
category: benchmark
nr_threads: 100%
testtime: 60s
stress-ng:
  test: mlockmany
job_origin: stress-ng-part2.yaml

#! queue options
queue_cmdline_keys:
- branch
- commit
queue: bisect
testbox: lkp-emr-2sp1
tbox_group: lkp-emr-2sp1
submit_id: 68e0c1f2a3b4c5d6e7f80912
id: 3f6c2a9e0d1b4c5a8e7f6d5c4b3a29180716f5e4

#! hosts/lkp-emr-2sp1
model: Emerald Rapids
nr_node: 4
nr_cpu: 256
memory: 256G
brand: INTEL(R) XEON(R) PLATINUM 8592+

#! include/category/benchmark
kmsg:
boot-time:
vmstat:
proc-vmstat:
perf-stat:
mpstat:
perf-profile:
  lite_mode: 1

#! include/category/ALL
cpufreq_governor: performance

#! include/queue/cyclic
commit: {commit}
head_commit: {head}
rootfs: debian-13-x86_64-20250902.cgz
kconfig: x86_64-rhel-9.4
enqueue_time: 2025-10-15 09:01:02.123456789 +08:00

#! schedule options
user: lkp
compiler: gcc-14
branch: linux-devel/devel-hourly-20251014-050000
arch: x86_64

#! runtime status
job_state: finished
loadavg: 180.12 90.33 36.01 1/2345 67890
start_time: '1760491300'
end_time: '1760491362'
"""

JOB_MIN = """testcase: stress-ng
tbox_group: lkp-emr-2sp1
rootfs: debian-13-x86_64-20250902.cgz
kconfig: x86_64-rhel-9.4
compiler: gcc-14
commit: {commit}
head_commit: {head}
nr_threads: 100%
stress-ng:
  test: mlockmany
"""

JOB_ODD = """# anchors, aliases, YAML 1.1 scalars, duplicate keys, flow style
defaults: &d {nr_threads: 0x10, testtime: 1_000, runtime: 2.50}
testcase: &tc stress-ng
testcase: stress-ng
tbox_group: "lkp-emr-2sp1"
rootfs: /osimage/debian/debian-13-x86_64-20250902.cgz
kconfig: x86_64-rhel-9.4
compiler: ~
commit: v6.17
nr_threads: [1, 2, yes, null, *tc]
cluster: cs-localhost
fio-setup-basic:
  rw: randread
  bs: 4k
  ioengine: sync
perf-profile:
  delay: off
cpufreq_governor: 'performance'
"""

JOB_LIST = """- testcase: stress-ng
- commit: 819bfbd47e49df890123456789abcdef01234567
"""

VALS = {
    "stress-ng.mlockmany.pass": ([1, 1, 1], [1, 1, 1]),
    "stress-ng.mlockmany.ops": ([1043210, 1051820, 1055324], [1126061, 1161061, 1196061]),
    "stress-ng.mlockmany.ops_per_sec": ([17400.5, 17541.0, 17681.5], [18900.0, 19384.0, 19868.0]),
    "stress-ng.time.elapsed_time": ([60.52, 60.49, 60.55], [60.51, 60.53, 60.48]),
    "stress-ng.time.involuntary_context_switches": ([2913233, 2933233, 2953233],
                                                    [2704192, 2714192, 2724192]),
    "stress-ng.time.user_time": ([75.91, 76.26, 76.61], [94.9, 98.61, 102.32]),
    "vmstat.system.cs": ([3379.2, 3401.5, 3365.8], [3390.1, 3372.4, 3410.0]),
}


def matrix(side, runs=3, commit=A):
    m = {k: v[side][:runs] for k, v in VALS.items()}
    m["stats_source"] = ["/result/%s/%s/%d/stats.json" % (RR, commit, r) for r in range(runs)]
    return m


def dump(obj):
    return json.dumps(obj, indent=2).encode() + b"\n"


def put(outdir, target, name, data):
    d = os.path.join(outdir, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def tar_bytes(members, mode="w"):
    """members: (name, data, kind) with kind file (data: bytes), symlink or
    hardlink (data: the link target)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode, format=tarfile.GNU_FORMAT) as t:
        for name, data, kind in members:
            ti = tarfile.TarInfo(name)
            ti.mtime = 1760491300
            ti.mode = 0o644
            if kind == "file":
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
            elif kind == "symlink":
                ti.type = tarfile.SYMTYPE
                ti.linkname = data
                t.addfile(ti)
            elif kind == "hardlink":
                ti.type = tarfile.LNKTYPE
                ti.linkname = data
                t.addfile(ti)
    return buf.getvalue()


def compact_json(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def valid_tree(runs=1):
    mem = []
    for side, c in enumerate((A, B)):
        for r in range(runs):
            mem.append(("result/%s/%s/%d/job.yaml" % (RR, c, r),
                        JOB_MIN.format(commit=c, head=B).encode(), "file"))
        mem.append(("result/%s/%s/matrix.json" % (RR, c),
                    compact_json(matrix(side, 3, c)), "file"))
    return mem


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    if os.path.isdir(out):
        shutil.rmtree(out)

    # job.yaml
    put(out, "fuzz_job_yaml", "spec-section8.yaml", JOB_FULL.format(commit=A, head=B))
    put(out, "fuzz_job_yaml", "minimal.yaml", JOB_MIN.format(commit=B, head=B))
    put(out, "fuzz_job_yaml", "anchors-scalars.yaml", JOB_ODD)
    put(out, "fuzz_job_yaml", "list-not-mapping.yaml", JOB_LIST)
    put(out, "fuzz_job_yaml", "bad-yaml.yaml", "testcase: [stress-ng\ncommit: {a: b\n")
    put(out, "fuzz_job_yaml", "nested.yaml",
        "testcase: x\n" + "".join("  " * i + "k%d:\n" % i for i in range(20)) + "  " * 20 + "v: 1\n")

    # JSON
    stats = {k: v[0][0] for k, v in VALS.items()}
    put(out, "fuzz_json", "stats.json", dump(stats))
    put(out, "fuzz_json", "matrix.json", dump(matrix(0)))
    put(out, "fuzz_json", "stats-nan.json",
        b'{"a.ok": 1, "a.nan": NaN, "a.inf": Infinity, "a.ninf": -Infinity,\n'
        b' "s": "NaN inside a string \\" Infinity", "arr": [NaN, 1.5e308, -0.0, 1e-320]}\n')
    put(out, "fuzz_json", "strings.json",
        b'{"k\\u00e9\\n": "\\ud83d\\ude00", "nul": "a\\u0000b", "deep": [[[[{"x": [true, false, null]}]]]]}')
    put(out, "fuzz_json", "duplicate-keys.json", b'{"a": 1, "a": 2}')

    # matrix.json for the tree-level target
    put(out, "fuzz_matrix", "matrix.json", dump(matrix(0)))
    m = matrix(0)
    m["stress-ng.mlockmany.ops_per_sec"] = [17400.5, float("nan"), 17681.5]
    put(out, "fuzz_matrix", "matrix-nan.json",
        json.dumps(m, indent=1).encode())  # Python writes NaN like Ruby's allow_nan
    m = matrix(0)
    m["last_state.is_incomplete_run"] = [0, 1, 0]
    m["dmesg.BUG:kernel_NULL_pointer_dereference"] = [0, 1, 1]
    m["stress-ng.mlockmany.fail"] = [0, 0, 1]
    m["perf-profile.calltrace.cycles-pp.do_syscall_64"] = [12.5, 13, 12.0]
    m["perf-profile.self.cycles-pp.memset%"] = [3, 3, 4]
    put(out, "fuzz_matrix", "matrix-incomplete-failures.json", dump(m))
    m = matrix(0)
    m["stats_source"] = m["stats_source"][:1]
    m["vmstat.system.cs"] = [1]
    m["stress-ng.time.user_time"] = "76.26"
    put(out, "fuzz_matrix", "matrix-ragged.json", dump(m))
    put(out, "fuzz_matrix", "stats.json", dump({k: v[1][0] for k, v in VALS.items()}))
    put(out, "fuzz_matrix", "stats-mixed.json",
        b'{"a.b": [1, 2, 3], "a.c": "str", "a.d": null, "a.e": {"x": 1}, "a.f": true, '
        b'"stress-ng.mlockmany.ops": 1e300, "vmstat.system.cs": -1}')

    # tarballs
    put(out, "fuzz_tarball", "valid.tar", tar_bytes(valid_tree()))
    put(out, "fuzz_tarball", "valid.tar.gz", tar_bytes(valid_tree(), "w:gz"))
    put(out, "fuzz_tarball", "valid.tar.xz", tar_bytes(valid_tree(), "w:xz"))
    zstd = shutil.which("zstd")
    if zstd:
        z = subprocess.run([zstd, "-q", "-19", "-c"], input=tar_bytes(valid_tree()),
                           stdout=subprocess.PIPE, check=True).stdout
        put(out, "fuzz_tarball", "valid.tar.zst", z)
    put(out, "fuzz_tarball", "dotdot.tar",
        tar_bytes([("result/../../etc/job.yaml", b"testcase: x\n", "file")]))
    put(out, "fuzz_tarball", "absolute.tar",
        tar_bytes([("/tmp/result/x/0/job.yaml", b"testcase: x\n", "file")]))
    put(out, "fuzz_tarball", "links.tar.gz",
        tar_bytes(valid_tree()[:1] + [("result/x/" + A + "/0/job.yaml", "/etc/passwd", "symlink"),
                                       ("result/y/" + A + "/0/job.yaml",
                                        valid_tree()[0][0], "hardlink")], "w:gz"))
    # a tree without matrix.json: the runs' stats.json are united
    mem = []
    for side, c in enumerate((A, B)):
        for r in range(2):
            mem.append(("r/%s/%d/job.yaml" % (c, r), JOB_MIN.format(commit=c, head=B).encode(), "file"))
            st = {k: v[side][r] for k, v in VALS.items()}
            if r == 1:
                st["last_state.is_incomplete_run"] = 1
            data = compact_json(st)
            if r == 0:
                mem.append(("r/%s/%d/stats.json.gz" % (c, r), gzip.compress(data, mtime=0), "file"))
            else:
                mem.append(("r/%s/%d/stats.json" % (c, r), data, "file"))
    put(out, "fuzz_tarball", "stats-only.tar.gz", tar_bytes(mem, "w:gz"))

    total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(out) for f in fs)
    print("corpus: %d bytes in %s" % (total, out))


if __name__ == "__main__":
    main()
