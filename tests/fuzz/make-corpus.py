#!/usr/bin/env python3
"""Write the seed corpora of the libFuzzer targets: tests/fuzz/corpus/<target>/.

Deterministic (fixed mtimes, no owner names), small (the whole corpus stays
well under 200 KB; each target's under 60 KB).  The fuzz_cgit_patch seeds
include real cgit /patch/ answers: the test repository of
tests/peers/make-test-repo.sh served by tests/peers/cgit.sh (Debian packages
cgit and lighttpd); without them the previous real seeds are kept.  Run it again after changing it:
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
    if mode == "w:gz":  # tarfile would stamp the gzip header with the time
        return gzip.compress(tar_bytes(members), compresslevel=9, mtime=0)
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


# ------------------------------------------------------------ git web seeds
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
PEERS = os.path.join(TOP, "tests", "peers")
FIXTURES = os.path.join(PEERS, "forge-fixtures")

# make-test-repo.sh's commits (its SHAs are the same on every machine)
S_LINK = "e5e1a8d3a28c98ac2743ad22197185fd9c4fc440"    # trailers, lore Link:
S_IOMMU = "3d47c79463956a7bbf8cfa997664e7dcd7acf8f1"   # raw UTF-8 author
S_MSGID = "73b35a7ca810591ceacc045a6219b93f82008fd8"   # patch.msgid.link
S_MERGE = "3f6cfe9cfd438da7481cc3ab9f08a99188490fb8"   # the merge
S_INIT = "84e39935160611a9a2d5791c335339ee6c6ce0c3"    # root commit, 9 files
CGIT_SEEDS = [("cgit-link-trailers.patch", S_LINK), ("cgit-non-ascii-author.patch", S_IOMMU),
              ("cgit-msgid-link.patch", S_MSGID), ("cgit-merge.patch", S_MERGE),
              ("cgit-root-commit.patch", S_INIT)]


def cgit_patches():
    """Real cgit /patch/ answers: the test repo under tests/peers/cgit.sh.
    Returns {name: bytes}, or None when cgit or lighttpd is not installed."""
    import tempfile
    import urllib.request
    tmp = tempfile.mkdtemp(prefix="robotmail-corpus.")
    cg = os.path.join(tmp, "cg")
    try:
        r = subprocess.run([os.path.join(PEERS, "make-test-repo.sh"), os.path.join(tmp, "repo")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode:
            sys.stderr.write("make-corpus: make-test-repo.sh failed: %s\n" % r.stderr.decode())
            return None
        r = subprocess.run([os.path.join(PEERS, "cgit.sh"), "start", cg, os.path.join(tmp, "repo")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode:
            sys.stderr.write("make-corpus: cgit.sh start failed: %s\n" % r.stderr.decode())
            return None
        base = r.stdout.decode().strip()
        out = {}
        for name, sha in CGIT_SEEDS:
            with urllib.request.urlopen("%s/patch/?id=%s" % (base, sha), timeout=10) as resp:
                out[name] = resp.read()
        return out
    finally:
        subprocess.run([os.path.join(PEERS, "cgit.sh"), "stop", cg],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)


# hand-written cgit-style patches: RFC 2047 words folded over lines, CRLF
PATCH_FOLDED = (
    "From " + S_LINK + " Mon Sep 17 00:00:00 2001\n"
    "From: =?UTF-8?q?J=C3=B6rg=20R=C3=B6del?= <joro@example.org>\n"
    "Date: Sat, 11 Oct 2025 10:53:20 +0200\n"
    "Subject: [PATCH] =?UTF-8?q?mm:=20avoid=20unnecessary=20lru=20drain=20for=20?=\n"
    " =?UTF-8?q?wp=5Fcan=5Freuse=5Fanon=5Ffolio()=20=E2=80=94=20a=20long?=\n"
    "\t=?ISO-8859-1?B?IHN1YmplY3Qg5GJlciB6d2VpIFplaWxlbg==?=\n"
    "MIME-Version: 1.0\n"
    "Content-Type: text/plain; charset=UTF-8\n"
    "Content-Transfer-Encoding: 8bit\n"
    "\n"
    "Folded subject, encoded words in two charsets.\n"
    "\n"
    "Link: https://lore.kernel.org/all/20251014093512.12345-1-author%40example.org/\n"
    "Signed-off-by: =?UTF-8?q?J=C3=B6rg?= <joro@example.org>\n"
    "  continued trailer line\n"
    "---\n"
    " mm/memory.c | 1 +\n"
    "\n"
    "diff --git a/mm/memory.c b/mm/memory.c\n"
    "--- a/mm/memory.c\n"
    "+++ b/mm/memory.c\n"
    "@@ -1 +1,2 @@\n"
    "+x\n"
    "diff --git a/old name b/new b/name\n"
    "-- \n"
    "cgit v1.2.3\n").encode()
PATCH_CRLF = PATCH_FOLDED.replace(b"\n", b"\r\n")
PATCH_ODD = (
    b"From " + S_MERGE.upper().encode() + b"ffffffffffffffffffffffff Mon Sep 17 00:00:00 2001\n"
    b"From: \"Weird, Name\" <a@b>, second@example.org\n"
    b"Subject: =?utf-8?b?AAEC?= =?bogus?q?x?= =?utf-8?q?=FF=FE?= \xff\xfe raw\n"
    b"Date: Mon, 31 Feb 1999 25:61:61 -9999\n"
    b"\n"
    b"Subject: not a header\n"
    b"---\r\n"
    b"diff --git a/x b/\n")


def forge_seeds():
    """(name, provider byte, path under forge-fixtures/)"""
    return [("github-trailers", 0, "repos/test/linux/commits/" + S_LINK),
            ("github-non-ascii", 0, "repos/test/linux/commits/" + S_IOMMU),
            ("gitea-trailers", 1, "api/v1/repos/test/linux/git/commits/" + S_LINK),
            ("gitea-merge", 1, "api/v1/repos/test/linux/git/commits/" + S_MERGE),
            ("gitlab-trailers", 2, "api/v4/projects/42/repository/commits/" + S_LINK + "/index.json"),
            ("gitlab-non-ascii", 2, "api/v4/projects/42/repository/commits/" + S_IOMMU + "/index.json")]


# templates: the real ones lose their partials (rendered with no directory)
TEMPLATE_TRICKY = {
    "unclosed-section.txt": "{{#params}}\n\t{{key}}: {{value}}\n",
    "brace-at-eof.txt": "commit: {{commit_sha}} {{",
    "unclosed-tag.txt": "a {{commit_subject\n}",
    "wrong-close.txt": "{{#details}}\n{{#rows}}\n{{/details}}\n{{/rows}}\n",
    "close-nothing.txt": "x\n{{/params}}\n",
    "nested-lists.txt": ("{{#details}}\n{{tbox_group}}:\n{{#rows}}\n  {{machine}} {{tbox_group}}"
                         "{{#cells}}[{{value}}|{{machine}}]{{/cells}}\n{{/rows}}\n"
                         "{{^rows}}  (no rows){{/rows}}\n{{/details}}\n{{^none}}none is empty{{/none}}\n"
                         "{{#none}}never{{/none}}{{#empty}}never{{/empty}}{{^empty}}empty{{/empty}}\n"),
    "standalone-crlf.txt": "a\r\n  {{#brackets}}  \r\n{{line}}\r\n\t{{/brackets}}\t\r\n{{! c }}\nend",
    "comments-and-odd-tags.txt": ("{{! {{ nested }} }}\n{{!}}\n{{ commit_sha }}{{{commit_sha}}}\n"
                                  "{{#}}{{/}}{{&x}}{{=<% %>=}}\n"),
    "list-as-string.txt": "{{params}}\n",
    "unknown-name.txt": "{{#params}}{{nosuch}}{{/params}}\n",
    "partial.txt": "before\n{{> signature.txt}}\n{{>../etc/passwd}}\n",
    "value-separator.txt": "[{{input}}]\n{{#params}}{{key}}={{value}};{{/params}}\n====\n{{#x}}{{input}}{{/x}}}}{{",
    "deep.txt": "".join("{{#details}}{{#rows}}" for _ in range(20)) +
                "{{machine}}" + "".join("{{/rows}}{{/details}}" for _ in range(20)) + "\n",
}

# configuration: every key config.c knows
CONFIG_FULL = """# every key of config.c
robot:
  name: kernel test robot
  address: oliver.sang@intel.com
  cc: [oe-lkp@lists.linux.dev, lkp@intel.com]
  cc_self: true
  msgid_local: lkp
  msgid_domain: intel.com
  timezone: "+0800"
links:
  lore: https://lore.kernel.org/oe-lkp
  archive: https://download.01.org/0day-ci/archive
  patch_link: https://lore.kernel.org/all
paths:
  state_db: var/state.db
  metrics: config/metrics.yaml
  programs: config/lkp-programs.yaml
  templates: templates
  inbox: var/inbox
  done: var/done
  failed: var/failed
  emergency_stop: var/STOP
gitweb:
  connect_timeout: 5
  timeout: 20
  retries: 2
  concurrency: 4
  miss_ttl: 3600
  max_wait: 60
  on_failure: defer
delivery:
  transport: smtp://mail.example.org:587
  starttls: true
  verify: yes
  ca_file: /etc/ssl/certs/ca-certificates.crt
  user: robot
  password_file: /etc/robotmail/smtp-password
  password_env: ROBOTMAIL_SMTP_PASSWORD
  helo: robot.example.org
  connect_timeout: 10
  timeout: 60
  max_age: 604800
  backoff: 300
  batch: 100
  hourly_cap: 500
  settle: 600
  hold: [linux-kernel@vger.kernel.org]
  charset: utf-8
  public_inbox_config: /srv/public-inbox/config
  public_inbox_address: robot@inbox.example.org
  daily_caps: {linux-kernel@vger.kernel.org: 50, oe-lkp@lists.linux.dev: 1000}
recipients:
  trailers: [Signed-off-by, Reviewed-by, Acked-by, Tested-by]
  maintainers: /srv/linux/MAINTAINERS
  maintainers_cap: 5
  opt_out: /etc/robotmail/opt-out
  max: 30
  rules:
    - {on: path, pattern: '^mm/', cc: [linux-mm@kvack.org]}
    - on: subject
      pattern: '^iommu(/[a-z]+)?:'
      cc: iommu@lists.linux.dev
    - {on: testcase, pattern: 'stress-ng', cc: [a@example.org, b@example.org]}
trees:
  - name: linus
    branch: master
    url: https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git
    provider: cgit
    api: https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git
    aliases: [linux-devel/devel-hourly, mainline]
    mail_to: [torvalds@example.org]
    mail_cc:
      - linux-mm@kvack.org
    patches: false
  - name: gh
    branch: main
    url: https://github.com/o/r
    provider: github
    api: https://api.github.com/repos/o/r
    token_file: /run/secrets/github-token
    patches: true
  - name: gt
    branch: main
    url: https://gitea.example/o/r
    provider: gitea
    api: https://gitea.example/api/v1/repos/o/r
    token_env: GITEA_TOKEN
  - name: gl
    branch: main
    url: https://gitlab.example/o/r
    provider: gitlab
    api: https://gitlab.example/api/v4/projects/42
    mail_to: one@example.org
  - name: local
    branch: master
    url: https://example.org/local.git
    provider: local-git
    api: /srv/git/linux
  - name: noapi
    branch: next
    url: https://example.org/next.git
"""

CONFIG_BROKEN = {
    "unknown-key.yaml": "gitweb:\n  timeuot: 5\n",
    "bad-provider.yaml": "trees:\n  - name: x\n    branch: master\n    url: u\n    provider: svn\n    api: a\n",
    "out-of-range.yaml": "gitweb:\n  concurrency: 65\n  retries: -1\n  timeout: 99999999999999999999\n",
    "wrong-types.yaml": ("robot:\n  name: [a, b]\n  cc: {a: b}\n  cc_self: maybe\n  timezone: +08:00\n"
                         "links: [x]\ngitweb: 5\n"),
    "multi-line.yaml": 'robot:\n  name: "two\\nlines"\n  address: "nul\\0byte"\n',
    "tree-missing-fields.yaml": "trees:\n  - name: x\n    provider: cgit\n  - ~\n",
    "tree-duplicate.yaml": ("trees:\n  - {name: a, branch: m, url: u}\n  - {name: a, branch: m, url: v}\n"
                            "  - {name: 'a/b', branch: 'x y', url: w}\n"),
    "aliases-anchors.yaml": ("robot: {cc: &l [a@example.org, b@example.org]}\n"
                             "delivery: {hold: *l}\n"
                             "trees: &t\n  - &d {name: a, branch: m, url: u, mail_to: *l}\n"
                             "  - *d\n  - *t\n"),
    "not-a-mapping.yaml": "- robot\n- trees\n",
    "bad-yaml.yaml": "robot: {name: [unclosed\n\ttab: x\n",
    "empty.yaml": "",
    "password-in-config.yaml": "delivery:\n  transport: smtps://m.example.org\n  password: hunter2\n",
    "bad-delivery.yaml": ("delivery:\n  charset: 'utf 8'\n  daily_caps: [a, b]\n  batch: 0\n"
                          "  hold: {a: b}\n  starttls: 1\n"),
    "bad-rules.yaml": ("recipients:\n  rules:\n    - {on: path, pattern: '(unclosed', cc: [a@b]}\n"
                       "    - {on: body, pattern: x, cc: []}\n    - {pattern: x}\n    - ~\n"),
    "bad-recipients.yaml": ("recipients:\n  rules: {on: path}\n  max: 0\n  trailers: [[x]]\n"
                            "  daily_caps:\n    a: -1\n"),
    "two-documents.yaml": "robot: {}\n---\nrobot: {}\n",
    "flow-and-bools.yaml": ("robot: {cc_self: off, cc: ~, timezone: '-0000'}\n"
                            "gitweb: {on_failure: send, miss_ttl: 0x10, max_wait: 0, retries: '3'}\n"),
}


# inputs that once crashed, leaked or ran out of memory (found by fuzzing)
REGRESSIONS = {
    # jansson dropped a NUL byte after a number; matrix.c's scanner refused it
    ("fuzz_json", "nul-after-number"): b'{"\\n": 2\x00}',
    # stats_source twice: the streaming reader's duplicate check read a
    # series that was never made (its slot named the next series)
    ("fuzz_json", "stats-source-twice"): b'{"stats_source": ["x"], "k.a": [1], "stats_source": ["y"]}',
    # libetpan's quoted-printable decoder read two bytes past a part ending in '=' and a byte
    ("fuzz_listen_mail", "qp-equals-at-end"): (
        "From: a@example.org\nMessage-ID: <q@example.org>\n"
        "Content-Transfer-Encoding: quoted-printable\n\n#robotmail invalid\nJ=S"),
    # '#robotmail dup:' took a Message-ID with a CR inside
    ("fuzz_listen_mail", "dup-id-with-cr"): (
        "From: a@example.org\nMessage-ID: <d@example.org>\n\n"
        "#robotmail dup: <x@example.org\r>\n"),
    # 8-bit bytes in a Message-ID and From (PostgreSQL refuses what is not UTF-8)
    ("fuzz_listen_mail", "8bit-ids"): (
        b"From: j\xf6rg@example.org\nMessage-ID: <caf\xe9@example.org>\n"
        b"In-Reply-To: <r\xff@example.org>\nSubject: =?UTF-8?Q?Re:_caf=C3?=\n\n"
        b"#robotmail fixed: caf\xe9\n"),
    ("fuzz_cgit_patch", "two-from-leak"): (
        "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
        "From: A <a@b.c>\nFrom: B <b@c.d>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n"
        "Subject: x: y\n\nbody\n---\n"),
    # a subject libetpan cannot decode kept its raw bytes: the cache JSON dropped it
    ("fuzz_cgit_patch", "invalid-utf8-subject"): (
        b"From e5e1a8d3a28c98ac2743ad22197185fd9c4fc440 Mon Sep 17 00:00:00 2001\n"
        b"From: A <a@x>\nSubject: =?x?= \xff\n\nbody\n"),
    # the body's last line, a prefix of "diff --git ", was compared past its end
    ("fuzz_cgit_patch", "diff-prefix-at-eof"): (
        b"From e5e1a8d3a28c98ac2743ad22197185fd9c4fc440 Mon Sep 17 00:00:00 2001\n"
        b"From: A <a@x>\nSubject: s\n\ndiff"),
    ("fuzz_template", "nested-lists-oom"): TEMPLATE_TRICKY["deep.txt"],
}


def depth_seeds(out):
    """YAML and JSON at, just over and far over the depth limit (64,
    yamldoc.h and jsonload.h): flow and block nesting, brackets inside
    strings that must not count, an unclosed bracket run."""
    for target in ("fuzz_job_yaml", "fuzz_config"):
        put(out, target, "depth-64-flow.yaml", "testcase: x\nunused: " + "[" * 63 + "]" * 63 + "\n")
        put(out, target, "depth-65-flow.yaml", "testcase: x\nunused: " + "[" * 64 + "]" * 64 + "\n")
        put(out, target, "depth-2000-flow.yaml", "testcase: x\nunused: " + "[{a: " * 1000 + "1" + "}]" * 1000 + "\n")
        put(out, target, "depth-70-block.yaml",
            "testcase: x\n" + "".join(" " * i + "k%d:\n" % i for i in range(70)) + " " * 70 + "v: 1\n")
        put(out, target, "depth-unclosed.yaml", "testcase: x\nunused: " + "[" * 3000 + "\n")
        put(out, target, "depth-brackets-in-strings.yaml",
            "testcase: x\nq: '" + "[" * 200 + "'\nd: \"" + "{" * 200 + "\"\n# " + "[" * 200 + "\n")
    for target in ("fuzz_json", "fuzz_matrix"):
        put(out, target, "depth-64.json", '{"a.b": ' + "[" * 63 + "1" + "]" * 63 + "}")
        put(out, target, "depth-65.json", '{"a.b": ' + "[" * 64 + "1" + "]" * 64 + "}")
        put(out, target, "depth-5000.json", '{"a.b": [1], "x": ' + "[{\"y\": " * 2500 + "1" + "}]" * 2500 + "}")
        put(out, target, "depth-unclosed.json", "[" * 5000)
        put(out, target, "depth-brackets-in-strings.json",
            '{"a.b": [1, 2], "s": "' + "[" * 300 + '\\" ' + "{" * 300 + '"}')


def address_seeds(out):
    """Mailbox specs for fuzz_address: honest forms and injections."""
    for name, data in (
            ("name-addr", "J\u00f6rg R\u00f6del <joro@example.org>"),
            ("quoted-name", '"Doe, John" <john@example.org>'),
            ("comment", "rev@example.org (Rev Iewer)"),
            ("crlf-injection", "author@example.org>\r\nBcc: <victim@example.org"),
            ("quoted-local", '"a b"@example.org'),
            ("u2028", "Evil\u2028 <victim@example.org>"),
            ("encoded-word", "=?UTF-8?Q?victim=40example.org?= <a@example.org>")):
        put(out, "fuzz_address", name, data.encode("utf-8"))


def strip_partials(text):
    return "".join(l for l in text.splitlines(True) if "{{>" not in l)


# GitHub's compare (status), Gitea's compare the other way round
# (total_commits), GitLab's merge base (id): rm_forge_ancestry's answers
ANCESTRY_SEEDS = {
    "github-ahead.json": b'\x00{"status": "ahead", "ahead_by": 7, "behind_by": 0}',
    "github-diverged.json": b'\x00{"status": "diverged"}',
    "github-not-found.json": b'\x00{"message": "Not Found"}',
    "gitea-none-missing.json": b'\x01{"commits": [], "total_commits": 0}',
    "gitea-missing.json": b'\x01{"commits": [{"sha": "3d47c79463956a7bbf8cfa997664e7dcd7acf8f1"}], '
                          b'"total_commits": 1}',
    "gitea-negative.json": b'\x01{"total_commits": -3}',
    "gitlab-ancestor.json": b'\x02{"id": "3d47c79463956a7bbf8cfa997664e7dcd7acf8f1", "short_id": "3d47c794"}',
    "gitlab-other.json": b'\x02{"id": "84e39935160611a9a2d5791c335339ee6c6ce0c3"}',
    "gitlab-broken.json": b'\x02[1, 2',
}


def yamlcache_seeds(out):
    """fuzz_yamlcache's YAML mode (first byte even): documents of every
    shape the cache must round-trip (anchors, aliases, tags, styles, an
    empty one, several documents) and directives it must leave out."""
    for name, text in (
            ("job-odd", JOB_ODD), ("job-min", JOB_MIN.format(commit=B, head=B)),
            ("empty", ""), ("null", "--- ~\n"), ("anchors", "a: &x [1, 2]\nb: *x\nc: &r [*r]\n"),
            ("tags", "!!str a: !foo b\nc: ! d\n! e: !<tag:x> f\n"),
            ("styles", "a: 'x'\nb: \"\\x41\\0z\"\nc: |\n  lit\nd: >-\n  f\ne: [1, {f: g}]\n"),
            ("two-documents", "a: 1\n---\nb: 2\n"),
            ("directives", "%YAML 1.1\n%TAG !e! tag:example.org,2002:\n--- !e!x\na: 1\n")):
        put(out, "fuzz_yamlcache", "yaml-" + name, b"\x00" + text.encode("utf-8"))


# inbound mail for `robotmail listen`: replies to a report, with commands
LISTEN_HDR = ("Return-Path: <dev@example.org>\n"
              "From: Dev Eloper <Dev@Example.org>\n"
              "To: kernel test robot <robot@example.org>\n"
              "Cc: lkp@lists.example.org, \"Other, Person\" <other@example.org>\n"
              "Date: Tue, 14 Oct 2025 10:00:00 +0200\n"
              "Message-ID: <reply-1@example.org>\n"
              "In-Reply-To: <202510141234.abcdef-lkp@example.org>\n"
              "References: <patch-1@example.org>\n"
              " <202510141234.abcdef-lkp@example.org>\n")
LISTEN_SEEDS = {
    "plain-commands": LISTEN_HDR + "Subject: Re: [linux-next:master] [mm] 819bfbd47e: "
        "stress-ng.mlockmany.ops_per_sec 8.1% improvement\n\n"
        "> kernel test robot noticed a 8.1% improvement of\n"
        "> #robotmail invalid\n\n"
        "#robotmail fixed: 8d596d8b81ef (\"mm: fix the fix\")\n"
        "#robotmail dup: <202510011111.xyz-lkp@example.org>\n"
        "#robotmail unsubscribe\n#robotmail unsubscribe: all\n#robotmail undo\n"
        "#robotmail: invalid\n#ROBOTMAIL Invalid\n",
    "bad-commands": LISTEN_HDR + "Subject: Re: report\n\n"
        "#robotmail\n#robotmail frobnicate now\n#robotmail fixed\n#robotmail dup: not-an-id\n"
        "#robotmail dup: <a b@c>\n#robotmail unsubscribe: everything\n#robotmail invalid please\n"
        "#robotmailx invalid\n  #robotmail invalid\n",
    "crlf": (LISTEN_HDR + "Subject: Re: report\n\n#robotmail invalid\n#robotmail fixed:  abc \n")
        .replace("\n", "\r\n"),
    "many-commands": LISTEN_HDR + "Subject: Re: x\n\n" + "#robotmail undo\n" * 22,
    "multipart-qp": LISTEN_HDR + "Subject: =?UTF-8?Q?Re:_J=C3=B6rg=27s_report?=\n"
        "MIME-Version: 1.0\n"
        "Content-Type: multipart/alternative; boundary=\"b1\"\n\n"
        "preamble\n--b1\nContent-Type: text/html; charset=utf-8\n\n<p>#robotmail invalid</p>\n"
        "--b1\nContent-Type: text/plain; charset=iso-8859-1\n"
        "Content-Transfer-Encoding: quoted-printable\n\n"
        "J=F6rg says:\n#robotmail fixed: mm: d=C3=A9j=C3=A0 vu =\nsoft break\n"
        "#robotmail dup: <x=40y@example.org>\n--b1--\nepilogue\n",
    "multipart-base64": LISTEN_HDR + "Subject: =?ISO-8859-1?B?UmU6IHLkcG9ydA==?=\n"
        "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=outer\n\n"
        "--outer\nContent-Type: multipart/alternative; boundary=inner\n\n"
        "--inner\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
        "I3JvYm90bWFpbCBpbnZhbGlkCiNyb2JvdG1haWwgdW5kbwo=\n--inner--\n"
        "--outer\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n"
        "AAECAw==\n--outer--\n",
    "message-rfc822": LISTEN_HDR + "Subject: Fwd: report\nMIME-Version: 1.0\n"
        "Content-Type: message/rfc822\n\n"
        "From: a@example.org\nSubject: inner\nMessage-ID: <inner@example.org>\n\n"
        "#robotmail invalid\n",
    "loop-headers": LISTEN_HDR + "Subject: Automatic reply: report\n"
        "Auto-Submitted: auto-replied\nPrecedence:\tbulk \n"
        "List-Id: LKP list\n <lkp.lists.example.org>\n\n#robotmail invalid\n",
    "list-known": LISTEN_HDR + "Subject: Re: report\nPrecedence: list\n"
        "List-Id: <linux-mm.example.org>\nAuto-Submitted: no\n\n#robotmail invalid\n",
    "unsubscribe-subject": "From: someone@example.org\nTo: robot@example.org\n"
        "Subject: unsubscribe\nMessage-ID: <u@example.org>\n\n",
    "from-robot": "From: Robot <ROBOT@example.org>\nTo: robot@example.org\n"
        "Subject: Re: x\nMessage-ID: <r@example.org>\nIn-Reply-To: <a@example.org>\n\n"
        "#robotmail invalid\n",
    "no-message-id": "From: dev@example.org\nTo: robot@example.org\nSubject: Re: x\n"
        "In-Reply-To: <202510141234.abcdef-lkp@example.org>\n\n#robotmail frobnicate\n",
    "group-and-odd-addresses": "From: \"Dev (x)\" <\"dev x\"@example.org>\n"
        "To: undisclosed-recipients:;\nCc: team: A <a@example.org>, b@EXAMPLE.org;\n"
        "Subject: Re: x\nMessage-ID: <odd@example.org>\nReferences: junk <a@b> <c@d>\n\n"
        "#robotmail invalid\n",
    "broken-headers": "From dev@example.org\nSubject: =?utf-8?B?broken\n"
        "Content-Type: multipart/mixed; boundary=\n"
        "Content-Transfer-Encoding: base64\n\n--\n@@@\n",
    "no-body": "From: dev@example.org\nSubject: Re: x",
    "latin1-8bit": (b"From: J\xf6rg <joerg@example.org>\nTo: robot@example.org\n"
                    b"Subject: Re: r\xe4port \xff\nMessage-ID: <l1@example.org>\n"
                    b"In-Reply-To: <a@example.org>\nContent-Type: text/plain; charset=latin1\n"
                    b"Content-Transfer-Encoding: 8bit\n\n#robotmail fixed: caf\xe9\n"
                    b"#robotmail fixed: a\rb\n"),
}

def mboxrd(mails):
    """mails: (from_line, text); the text quoted as mboxrd does."""
    out = []
    for frm, text in mails:
        out.append("From " + frm + "\n")
        for line in text.splitlines(True):
            if line.lstrip(">").startswith("From "):
                line = ">" + line
            out.append(line)
    return "".join(out)

def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    # the real cgit seeds survive a run on a machine without the cgit peer
    keep_cgit = {}
    old = os.path.join(out, "fuzz_cgit_patch")
    for name, _ in CGIT_SEEDS:
        if os.path.isfile(os.path.join(old, name)):
            with open(os.path.join(old, name), "rb") as f:
                keep_cgit[name] = f.read()
    # fuzz_yamlcache's cache images are written by robotmail's own encoder
    # (rm_yamlcache_encode, tests/fuzz/fuzz_yamlcache.c says how): kept as they are
    keep_images = {}
    old = os.path.join(out, "fuzz_yamlcache")
    if os.path.isdir(old):
        for name in os.listdir(old):
            if name.startswith("image-"):
                with open(os.path.join(old, name), "rb") as f:
                    keep_images[name] = f.read()
    if os.path.isdir(out):
        shutil.rmtree(out)
    for name, data in keep_images.items():
        put(out, "fuzz_yamlcache", name, data)
    yamlcache_seeds(out)

    # job.yaml
    put(out, "fuzz_job_yaml", "spec-section8.yaml", JOB_FULL.format(commit=A, head=B))
    put(out, "fuzz_job_yaml", "minimal.yaml", JOB_MIN.format(commit=B, head=B))
    put(out, "fuzz_job_yaml", "anchors-scalars.yaml", JOB_ODD)
    put(out, "fuzz_job_yaml", "list-not-mapping.yaml", JOB_LIST)
    put(out, "fuzz_job_yaml", "bad-yaml.yaml", "testcase: [stress-ng\ncommit: {a: b\n")
    put(out, "fuzz_job_yaml", "nested.yaml",
        "testcase: x\n" + "".join("  " * i + "k%d:\n" % i for i in range(20)) + "  " * 20 + "v: 1\n")

    depth_seeds(out)
    address_seeds(out)

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

    # cgit /patch/ answers: real ones from the cgit peer, and hand-written ones
    cg = os.path.join(out, "fuzz_cgit_patch")
    real = cgit_patches()
    if real is None:
        sys.stderr.write("make-corpus: no cgit peer; keeping the previous real cgit seeds\n")
        real = keep_cgit
    for name, data in sorted(real.items()):
        put(out, "fuzz_cgit_patch", name, data)
    put(out, "fuzz_cgit_patch", "folded-rfc2047-subject.patch", PATCH_FOLDED)
    put(out, "fuzz_cgit_patch", "crlf.patch", PATCH_CRLF)
    put(out, "fuzz_cgit_patch", "odd-headers.patch", PATCH_ODD)

    # forge JSON: the first byte picks the provider (0 GitHub, 1 Gitea, 2 GitLab)
    for name, prov, path in forge_seeds():
        with open(os.path.join(FIXTURES, path), "rb") as f:
            put(out, "fuzz_forge_json", name + ".json", bytes([prov]) + f.read())
    put(out, "fuzz_forge_json", "github-odd-types.json",
        b'\x00{"sha": "' + S_LINK.encode() + b'", "commit": {"message": "s\\u0000ub\\n\\nLink: '
        b'https://patch.msgid.link/%3Cx%40y%3E\\n", "author": [], "committer": {"name": 5}}, '
        b'"parents": [{"sha": null}, "x"], "files": [{"filename": "a"}, {"filename": "a"}, 7]}')
    put(out, "fuzz_forge_json", "gitlab-short-sha.json",
        b'\x02{"id": "e5e1a8d3", "message": "x", "parent_ids": [1, "y"], "author_name": "a\\tb"}')
    put(out, "fuzz_forge_json", "gitea-not-object.json", b'\x01["sha", "commit"]')

    # ancestry answers: the first byte picks the provider as above
    for name, data in sorted(ANCESTRY_SEEDS.items()):
        put(out, "fuzz_forge_ancestry", name, data)

    # templates
    tdir = os.path.join(TOP, "templates")
    for name in sorted(os.listdir(tdir)):
        if name.endswith(".txt"):
            with open(os.path.join(tdir, name), encoding="utf-8") as f:
                put(out, "fuzz_template", name, strip_partials(f.read()))
    for name, text in sorted(TEMPLATE_TRICKY.items()):
        put(out, "fuzz_template", "tricky-" + name, text)

    for (target, name), data in sorted(REGRESSIONS.items()):
        put(out, target, name, data)

    # listen: inbound mail, and the mboxrd of a public-inbox download
    for name, data in sorted(LISTEN_SEEDS.items()):
        put(out, "fuzz_listen_mail", name, data)
    body = "Hi,\n\nFrom the report:\n>From here\n>>From there\n\n#robotmail invalid\n"
    put(out, "fuzz_listen_mbox", "two-mails.mbox", mboxrd([
        ("mailer@example.org Thu Jan  1 00:00:00 1970", LISTEN_SEEDS["plain-commands"]),
        ("mailer@example.org Thu Jan  1 00:00:00 1970",
         LISTEN_HDR.replace("reply-1", "reply-2") + "Subject: Re: x\n\n" + body)]))
    put(out, "fuzz_listen_mbox", "no-trailing-newline.mbox",
        "From x\nFrom: a@example.org\nSubject: s\n\n>From a\nlast")
    put(out, "fuzz_listen_mbox", "from-line-last.mbox", "junk before\nFrom x\nbody\nFrom y")
    put(out, "fuzz_listen_mbox", "empty-mails.mbox", "From a\nFrom b\n\nFrom c\n")
    put(out, "fuzz_listen_mbox", "crlf.mbox",
        mboxrd([("a@example.org Mon Oct 13 00:00:00 2025",
                 LISTEN_SEEDS["crlf"] + "\r\nFrom the\r\n")]))

    # configuration
    put(out, "fuzz_config", "full.yaml", CONFIG_FULL)
    for name, text in sorted(CONFIG_BROKEN.items()):
        put(out, "fuzz_config", name, text)

    for t in sorted(os.listdir(out)):
        size = sum(os.path.getsize(os.path.join(out, t, f)) for f in os.listdir(os.path.join(out, t)))
        if size >= 60 * 1024:
            sys.exit("make-corpus: %s is %d bytes (limit 60 KB)" % (t, size))

    total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(out) for f in fs)
    print("corpus: %d bytes in %s" % (total, out))


if __name__ == "__main__":
    main()
