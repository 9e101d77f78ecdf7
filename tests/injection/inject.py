#!/usr/bin/env python3
"""tests/injection/inject.py - hostile commit facts against every provider.

usage: inject.py prepare OUT
       inject.py run OUT ROBOTMAIL CGIT_URL FORGE_URL

The cases are tests/injection/cases.jsonl, one JSON object a line:
  name    what the case is (the test name)
  field   author_name | author_email | subject | trailer (a whole trailer
          line) | link (the Message-ID of a Link: trailer) | patch_subject |
          patch_to | patch_cc (headers of the patch mail the report replies to)
  value   the hostile text; "repeat": N repeats it, "suffix_repeat":
          [TEXT, N] appends TEXT N times, then "suffix" is appended.
  git_reads  addresses that git itself reads out of the raw object (its
          ident parser takes the first <...>): allowed for cgit and local
          git only, where they are what the provider says the author is
  expect_exit  {provider: code} where the report cannot be made, with "why"

prepare: a git repository (OUT/repo) with a base commit and one commit per
case written as a raw object (git itself refuses most of these bytes in an
ident, a hostile forge or a hand-made object does not), a copy of the fixture
archive per case whose head is that commit, and the GitHub, Gitea and GitLab
records and patch mails of every case for tests/peers/forge.py (OUT/forge).

run: for each case and provider (cgit, github, gitea, gitlab, local-git;
patch mail cases: github with `patches: true` and the patch mail served by
the forge), `robotmail --dry-run -v` on the case's archive, then checks:
one report made (exit 0); every RCPT TO and every address in an address
header on the allow list (the robot, its lists and the fixture's honest
people: an extra recipient or a hostile address "repaired" into another is
caught), and a hostile author email is left out with a warning naming the
field and the commit (forges); no header but the report's own; every line at most 998 octets;
the message parses without a defect in Python's email (policy default),
its headers included.  Prints "ok - ..." / "not ok - ..." per case and
provider.
"""
import concurrent.futures
import email
import email.policy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OLD_BASE = "006943a9b437b2d4e98b4ae504f22a1562633058"
OLD_HEAD = "7625cb56733bfd470e9fae69a1b8b78aa8b1d3eb"
WHEN = 1760000000
ALLOWED = {
    "oliver.sang@intel.com", "oe-lkp@lists.linux.dev", "lkp@intel.com",  # the robot
    "ann@example.org", "rev@example.org",                                 # the commit's people
    "list@example.org", "patcher@example.org",                            # the patch mail's
}
HEADERS = {
    "from", "to", "cc", "subject", "date", "message-id", "in-reply-to", "references",
    "content-type", "content-disposition", "content-transfer-encoding", "mime-version",
    "auto-submitted", "x-auto-response-suppress", "precedence", "x-robotmail-report",
}
PROVIDERS = ("cgit", "github", "gitea", "gitlab", "local-git")
PATCH_FIELDS = ("patch_subject", "patch_to", "patch_cc")


def cases():
    out = []
    with open(os.path.join(HERE, "cases.jsonl"), encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            c = json.loads(line)
            v = c["value"] * c.get("repeat", 1)
            if "suffix_repeat" in c:
                v += c["suffix_repeat"][0] * c["suffix_repeat"][1]
            v += c.get("suffix", "")
            c["text"] = v
            out.append(c)
    return out


def facts(c, i):
    """The commit facts of case c: author name and email, full message."""
    author = ("Ann Author", "ann@example.org")
    subject = "mm: mincore: replace __get_free_page() with kmalloc()"
    trailers = ["Signed-off-by: Ann Author <ann@example.org>",
                "Reviewed-by: Rev Iewer <rev@example.org>"]
    link = None
    f = c["field"]
    if f == "author_name":
        author = (c["text"], author[1])
    elif f == "author_email":
        author = (author[0], c["text"])
    elif f == "subject":
        subject = c["text"]
    elif f == "trailer":
        trailers.append(c["text"])
    elif f == "link":
        link = c["text"]
    elif f in PATCH_FIELDS:
        link = "patch-%d@example.org" % i
    if link is not None:
        trailers.append("Link: https://lore.kernel.org/r/" + link)
    msg = subject + "\n\nThe body of the commit.\n\n" + "\n".join(trailers) + "\n"
    return author, msg


def git(repo, *args, data=None):
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=repo, GIT_AUTHOR_NAME="Base",
               GIT_AUTHOR_EMAIL="base@example.org", GIT_COMMITTER_NAME="Base",
               GIT_COMMITTER_EMAIL="base@example.org", GIT_AUTHOR_DATE="@%d +0000" % WHEN,
               GIT_COMMITTER_DATE="@%d +0000" % WHEN)
    r = subprocess.run(["git", "-C", repo] + list(args), input=data, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    return r.stdout.decode().strip()


def rewrite_archive(src, dst, base, head):
    """Copy the fixture archive with its two commits renamed."""
    def rename(s):
        return s.replace(OLD_BASE, base).replace(OLD_HEAD, head)
    for dirpath, dirnames, filenames in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        os.makedirs(os.path.join(dst, rename(rel)), exist_ok=True)
        for fn in filenames:
            with open(os.path.join(dirpath, fn), "rb") as f:
                data = f.read()
            data = data.replace(OLD_BASE.encode(), base.encode()).replace(OLD_HEAD.encode(), head.encode())
            with open(os.path.join(dst, rename(rel), rename(fn)), "wb") as f:
                f.write(data)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def forge_records(out, sha, parent, author, msg, subject):
    who = {"name": author[0], "email": author[1], "date": "2025-10-09T08:53:20Z"}
    rob = {"name": "Mm Maintainer", "email": "maint@example.org", "date": "2025-10-09T08:53:20Z"}
    gh = {"sha": sha, "commit": {"message": msg, "author": who, "committer": rob},
          "parents": [{"sha": parent}] if parent else [], "files": []}
    write(os.path.join(out, "repos/inj/linux/commits", sha), json.dumps(gh))
    write(os.path.join(out, "api/v1/repos/inj/linux/git/commits", sha), json.dumps(gh))
    gl = {"id": sha, "short_id": sha[:8], "parent_ids": [parent] if parent else [],
          "title": subject, "message": msg, "author_name": author[0], "author_email": author[1],
          "authored_date": "2025-10-09T08:53:20.000+00:00", "committer_name": rob["name"],
          "committer_email": rob["email"], "committed_date": "2025-10-09T08:53:20.000+00:00"}
    write(os.path.join(out, "api/v4/projects/7/repository/commits", sha, "index.json"), json.dumps(gl))
    write(os.path.join(out, "api/v4/projects/7/repository/commits", sha, "diff"), "[]")


def prepare(out):
    repo = os.path.join(out, "repo")
    forge = os.path.join(out, "forge")
    fx = os.path.join(out, "fx")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests/gen-fixtures.py"), fx],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "master")
    write(os.path.join(repo, "mm/mincore.c"), "/* mincore */\n")
    git(repo, "add", "mm/mincore.c")
    git(repo, "commit", "-q", "-m", "mm: the base commit")
    base = git(repo, "rev-parse", "HEAD")
    forge_records(forge, base, None, ("Base", "base@example.org"), "mm: the base commit\n",
                  "mm: the base commit")
    shas = {}
    for i, c in enumerate(cases()):
        author, msg = facts(c, i)
        # a change of its own (cgit makes no patch of an empty commit)
        blob = git(repo, "hash-object", "-w", "--stdin", data=b"/* mincore, case %d */\n" % i)
        mm = git(repo, "mktree", data=("100644 blob %s\tmincore.c\n" % blob).encode())
        tree = git(repo, "mktree", data=("040000 tree %s\tmm\n" % mm).encode())
        obj = ("tree %s\nparent %s\nauthor %s <%s> %d +0000\ncommitter Mm Maintainer "
               "<maint@example.org> %d +0000\n\n%s" % (tree, base, author[0], author[1], WHEN, WHEN,
                                                       msg)).encode("utf-8")
        sha = git(repo, "hash-object", "-t", "commit", "-w", "--literally", "--stdin", data=obj)
        git(repo, "update-ref", "refs/heads/case-%d" % i, sha)
        shas[i] = sha
        forge_records(forge, sha, base, author, msg, msg.split("\n", 1)[0])
        if c["field"] in PATCH_FIELDS:
            subj = "[PATCH] mm: mincore: replace __get_free_page() with kmalloc()"
            to = "Ann Author <ann@example.org>, list@example.org"
            cc = "Patch Er <patcher@example.org>"
            if c["field"] == "patch_subject":
                subj = c["text"]
            elif c["field"] == "patch_to":
                to = c["text"]
            else:
                cc = c["text"]
            mail = ("From: Ann Author <ann@example.org>\nTo: %s\nCc: %s\nSubject: %s\n"
                    "Date: Thu, 09 Oct 2025 08:53:20 +0000\nMessage-ID: <patch-%d@example.org>\n\n"
                    "the patch\n" % (to, cc, subj, i))
            write(os.path.join(forge, "lore", "patch-%d@example.org" % i, "raw"), mail)
        rewrite_archive(os.path.join(fx, "mincore"), os.path.join(out, "archives", str(i)), base, sha)
    with open(os.path.join(out, "shas.json"), "w") as f:
        json.dump(shas, f)


def config(path, state, provider, api, patches, forge_url):
    with open(path, "w") as f:
        # the 0-day profile: the robot's identity and the golden layout
        f.write("include: %s\n" % os.path.normpath(os.path.join(HERE, "..", "..", "config", "profiles", "0day.yaml")))
        f.write("paths:\n  state_db: %s\n" % state)
        f.write("gitweb:\n  connect_timeout: 5\n  timeout: 10\n  retries: 0\n")
        f.write("links:\n  patch_mail: %s/lore\n" % forge_url)
        f.write("trees:\n  - name: linus\n    branch: master\n"
                "    url: https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git\n")
        f.write("    provider: %s\n    api: %s\n" % (provider, api))
        if patches:
            f.write("    patches: true\n")


def check_message(raw, allowed):
    """Problems of one message in dry-run form (LF line ends)."""
    bad = []
    for n, line in enumerate(raw.split(b"\n"), 1):
        if len(line) > 998:
            bad.append("line %d is %d octets long" % (n, len(line)))
    wire = raw.replace(b"\n", b"\r\n")
    msg = email.message_from_bytes(wire, policy=email.policy.default)
    if msg.defects:
        bad.append("message defects: %r" % (msg.defects,))
    for name, value in msg.items():
        if name.lower() not in HEADERS:
            bad.append("unexpected header %r: %r" % (name, str(value)[:200]))
        if getattr(value, "defects", None):
            bad.append("%s defects: %r" % (name, value.defects))
        if any(ch in str(value) for ch in "\r\n\x00\x85\u2028\u2029"):
            bad.append("%s holds a line break or NUL once decoded: %r" % (name, str(value)[:200]))
        if name.lower() in ("from", "to", "cc", "reply-to", "sender", "bcc"):
            for a in value.addresses:
                if a.addr_spec.lower() not in allowed:
                    bad.append("%s has %r" % (name, a.addr_spec))
    for name in ("from", "to", "subject", "message-id", "date"):
        if len(msg.get_all(name) or []) > 1:
            bad.append("%s appears twice" % name)
    return bad


def verdict(c, prov, r):
    """(test name, problems, stderr) of one dry run."""
    bad = []
    if re.search(rb"AddressSanitizer|LeakSanitizer|runtime error", r.stderr):
        bad.append("a sanitizer report")
    want = c.get("expect_exit", {}).get(prov, 0)
    allowed = set(ALLOWED)
    if prov in ("cgit", "local-git"):
        allowed |= set(c.get("git_reads", []))
    if r.returncode != want:
        bad.append("exit %d (want %d%s)" % (r.returncode, want,
                                            ": the report is made" if not want else ""))
    text = r.stdout
    blocks = text.split(b"# robotmail dry-run: report ")[1:]
    if len(blocks) != 1:
        bad.append("%d reports (want 1)" % len(blocks))
    for b in blocks:
        if want:
            if b"\nDATA\n" in b or b"RCPT TO" in b:
                bad.append("a message for a report that cannot be made")
            continue
        head, sep, rest = b.partition(b"\nDATA\n")
        if not sep or not rest.endswith(b"\n.\n"):
            bad.append("no message: %r" % b[:300])
            continue
        for line in head.split(b"\n")[1:]:
            if line.startswith(b"RCPT TO:<"):
                a = line[9:-1].decode("utf-8", "replace")
                if a.lower() not in allowed:
                    bad.append("envelope recipient %r" % a)
            elif line.startswith(b"# robotmail dry-run: would reply to <"):
                pass  # the dry run's framing line: which mail this one answers
            elif line and not line.startswith(b"MAIL FROM:<oliver.sang@intel.com>"):
                bad.append("unexpected envelope line %r" % line[:200])
        bad += check_message(rest[:-2], allowed)
    if c["field"] == "author_email" and prov in ("github", "gitea", "gitlab") and not re.search(
            rb"recipient left out: .*\(from the commit author's email\) in commit [0-9a-f]{40}: ",
            r.stderr):
        bad.append("no warning naming the author's email and the commit")
    return "%s (%s)" % (c["name"], prov), bad, r.stderr


def run(out, robotmail, cgit, forge_url):
    repo = os.path.join(out, "repo")
    apis = {"cgit": cgit, "github": forge_url + "/repos/inj/linux",
            "gitea": forge_url + "/api/v1/repos/inj/linux",
            "gitlab": forge_url + "/api/v4/projects/7", "local-git": repo}
    jobs = []
    for i, c in enumerate(cases()):
        provs = ("patch mail",) if c["field"] in PATCH_FIELDS else PROVIDERS
        for prov in provs:
            jobs.append((i, c, prov))

    def one(job):
        i, c, prov = job
        real = "github" if prov == "patch mail" else prov
        cfg = os.path.join(out, "cfg-%d-%s.yaml" % (i, real))
        config(cfg, os.path.join(out, "state-%d-%s.db" % (i, real)), real, apis[real],
               prov == "patch mail", forge_url)
        r = subprocess.run([robotmail, "--dry-run", "-v", "-c", cfg, "--now", str(WHEN + 86400),
                            os.path.join(out, "archives", str(i))],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        return verdict(c, prov, r)

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for name, bad, stderr in pool.map(one, jobs):
            if bad:
                failed += 1
                print("not ok - " + name)
                for b in bad[:8]:
                    print("    " + b)
                for line in stderr.decode("utf-8", "replace").splitlines()[-5:]:
                    print("    stderr: " + line[:300])
            else:
                print("ok - " + name)
    return failed


def cached_prepare(out):
    """prepare(out), or in one `make test` (RM_FIXTURE_CACHE, set by
    tests/run-tests.sh) a copy of what it made there the first time:
    injection.sh and its ASan pass read the same inputs."""
    cache = os.environ.get("RM_FIXTURE_CACHE")
    if not cache:
        prepare(out)
        return
    made = os.path.join(cache, "injection")
    if not os.path.exists(os.path.join(made, "done")):
        os.makedirs(cache, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix="injection.", dir=cache)
        prepare(os.path.join(tmp, "w"))
        open(os.path.join(tmp, "done"), "w").close()
        try:
            os.rename(tmp, made)
        except OSError:  # another run made it first
            shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(os.path.join(made, "w"), out, symlinks=True)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "prepare":
        cached_prepare(sys.argv[2])
        return 0
    if len(sys.argv) == 6 and sys.argv[1] == "run":
        run(*sys.argv[2:])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
