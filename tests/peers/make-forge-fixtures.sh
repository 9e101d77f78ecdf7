#!/bin/sh
# tests/peers/make-forge-fixtures.sh REPO_DIR OUT_DIR
#
# Writes recorded-format API responses for every commit of REPO_DIR (made by
# make-test-repo.sh, so the SHAs match) into OUT_DIR, laid out by request
# path for forge.py (a directory path is served from DIR/<path>/index.json):
#
#   GitHub  repos/test/linux/commits/<sha>                 Get a commit
#           repos/test/linux/commits/index.json            List commits
#           (GET /search/commits is computed by forge.py from the above)
#   Gitea   api/v1/repos/test/linux/git/commits/<sha>      GetSingleCommit
#           api/v1/repos/test/linux/commits                List commits
#   GitLab  api/v4/projects/42/repository/commits/<sha>/index.json
#           api/v4/projects/42/repository/commits/<sha>/diff
#           api/v4/projects/42/repository/commits/index.json
#
# Field layouts follow the real APIs: GitHub gives dates in UTC ("Z") and
# raw UTF-8; Gitea keeps the commit's UTC offset and, like Go's encoding/json,
# writes <, > and & as \u003c, \u003e, \u0026; GitLab gives title, message,
# parent_ids, *_date with offset and parsed trailers.  Output is deterministic.
set -eu
if [ $# -ne 2 ]; then
	echo "usage: $0 REPO_DIR OUT_DIR" >&2
	exit 2
fi
PY=${PY:-$(command -v /usr/bin/python3 || command -v python3)}
exec "$PY" - "$1" "$2" <<'PYEOF'
import datetime, json, os, subprocess, sys

repo, out = sys.argv[1], sys.argv[2]
OWNER, NAME, GITLAB_ID = "test", "linux", 42
GH_API, GH_WEB = "https://api.github.com", "https://github.com"
GT_WEB = "https://gitea.example.org"
GL_WEB = "https://gitlab.example.org"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1", LC_ALL="C")


def git(*args):
    return subprocess.run(("git", "-C", repo) + args, check=True, env=env,
                          stdout=subprocess.PIPE).stdout.decode("utf-8")


def write(rel, obj, gitea=False):
    path = os.path.join(out, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = json.dumps(obj, ensure_ascii=False, indent=2) + "\n"
    if gitea:  # Go's json.Marshal escapes HTML characters
        text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def when(epoch, tz):
    sign = -1 if tz[0] == "-" else 1
    off = datetime.timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])) * sign
    return datetime.datetime.fromtimestamp(int(epoch), datetime.timezone(off))


def iso_z(d):
    return d.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_off(d, millis=False, go=False):
    s = d.isoformat(timespec="milliseconds" if millis else "seconds")
    if go and s.endswith("+00:00"):  # Go's RFC 3339 writes a zero offset as Z
        s = s[:-6] + "Z"
    return s


def parse_ident(line):
    # "Name <email> 1760000000 +0200"
    name, rest = line.split(" <", 1)
    email, rest = rest.split("> ", 1)
    epoch, tz = rest.split()
    return name, email, when(epoch, tz)


def trailers(message):
    out = []
    for line in message.rstrip("\n").split("\n\n")[-1].split("\n"):
        if ": " in line and not line.startswith(" "):
            k, v = line.split(": ", 1)
            if k.replace("-", "").isalnum():
                out.append((k, v))
    return out


commits = []
for sha in git("rev-list", "--reverse", "--topo-order", "HEAD").split():
    raw = git("cat-file", "commit", sha)
    head, message = raw.split("\n\n", 1)
    c = {"sha": sha, "message": message.rstrip("\n"), "parents": []}
    for line in head.split("\n"):
        key, val = line.split(" ", 1)
        if key == "tree":
            c["tree"] = val
        elif key == "parent":
            c["parents"].append(val)
        elif key in ("author", "committer"):
            c[key] = parse_ident(val)
    base = c["parents"][0] if c["parents"] else EMPTY_TREE
    files = []
    numstat = git("diff", "--numstat", base, sha).splitlines()
    status = git("diff", "--name-status", base, sha).splitlines()
    for ns, st in zip(numstat, status):
        add, dele, path = ns.split("\t", 2)
        code = st.split("\t", 1)[0]
        diff = git("diff", base, sha, "--", path)
        hunks = diff[diff.index("@@"):] if "@@" in diff else ""
        files.append({"path": path, "status": code, "add": int(add), "del": int(dele),
                      "blob": git("rev-parse", "%s:%s" % (sha, path)).strip() if code != "D" else "0" * 40,
                      "patch": hunks.rstrip("\n"), "diff": diff})
    c["files"] = files
    commits.append(c)

GH_STATUS = {"A": "added", "M": "modified", "D": "removed"}
GT_STATUS = {"A": "added", "M": "modified", "D": "removed"}


def gh_ident(i):
    return {"name": i[0], "email": i[1], "date": iso_z(i[2])}


def github(c):
    api = "%s/repos/%s/%s" % (GH_API, OWNER, NAME)
    adds = sum(f["add"] for f in c["files"])
    dels = sum(f["del"] for f in c["files"])
    return {
        "sha": c["sha"],
        "node_id": "C_kwDOTEST" + c["sha"][:12],
        "commit": {
            "author": gh_ident(c["author"]),
            "committer": gh_ident(c["committer"]),
            "message": c["message"],
            "tree": {"sha": c["tree"], "url": "%s/git/trees/%s" % (api, c["tree"])},
            "url": "%s/git/commits/%s" % (api, c["sha"]),
            "comment_count": 0,
            "verification": {"verified": False, "reason": "unsigned", "signature": None,
                             "payload": None, "verified_at": None},
        },
        "url": "%s/commits/%s" % (api, c["sha"]),
        "html_url": "%s/%s/%s/commit/%s" % (GH_WEB, OWNER, NAME, c["sha"]),
        "comments_url": "%s/commits/%s/comments" % (api, c["sha"]),
        "author": None,
        "committer": None,
        "parents": [{"sha": p, "url": "%s/commits/%s" % (api, p),
                     "html_url": "%s/%s/%s/commit/%s" % (GH_WEB, OWNER, NAME, p)}
                    for p in c["parents"]],
        "stats": {"total": adds + dels, "additions": adds, "deletions": dels},
        "files": [{
            "sha": f["blob"], "filename": f["path"], "status": GH_STATUS.get(f["status"], "modified"),
            "additions": f["add"], "deletions": f["del"], "changes": f["add"] + f["del"],
            "blob_url": "%s/%s/%s/blob/%s/%s" % (GH_WEB, OWNER, NAME, c["sha"], f["path"]),
            "raw_url": "%s/%s/%s/raw/%s/%s" % (GH_WEB, OWNER, NAME, c["sha"], f["path"]),
            "contents_url": "%s/contents/%s?ref=%s" % (api, f["path"], c["sha"]),
            "patch": f["patch"],
        } for f in c["files"]],
    }


def gt_ident(i):
    return {"name": i[0], "email": i[1], "date": iso_off(i[2], go=True)}


def gitea(c):
    api = "%s/api/v1/repos/%s/%s" % (GT_WEB, OWNER, NAME)
    created = iso_off(c["committer"][2], go=True)
    adds = sum(f["add"] for f in c["files"])
    dels = sum(f["del"] for f in c["files"])
    return {
        "url": "%s/git/commits/%s" % (api, c["sha"]),
        "sha": c["sha"],
        "created": created,
        "html_url": "%s/%s/%s/commit/%s" % (GT_WEB, OWNER, NAME, c["sha"]),
        "commit": {
            "url": "%s/git/commits/%s" % (api, c["sha"]),
            "author": gt_ident(c["author"]),
            "committer": gt_ident(c["committer"]),
            "message": c["message"] + "\n",
            "tree": {"url": "%s/git/trees/%s" % (api, c["tree"]), "sha": c["tree"], "created": created},
            "verification": {"verified": False, "reason": "gpg.error.not_signed_commit",
                             "signature": "", "signer": None, "payload": ""},
        },
        "author": None,
        "committer": None,
        "parents": [{"url": "%s/git/commits/%s" % (api, p), "sha": p, "created": created}
                    for p in c["parents"]],
        "files": [{"filename": f["path"], "status": GT_STATUS.get(f["status"], "modified")}
                  for f in c["files"]],
        "stats": {"total": adds + dels, "additions": adds, "deletions": dels},
    }


def gitlab(c):
    subject = c["message"].split("\n", 1)[0]
    tr, ext = {}, {}
    for k, v in trailers(c["message"]):
        tr[k] = v
        ext.setdefault(k, []).append(v)
    adds = sum(f["add"] for f in c["files"])
    dels = sum(f["del"] for f in c["files"])
    return {
        "id": c["sha"],
        "short_id": c["sha"][:8],
        "created_at": iso_off(c["committer"][2], True),
        "parent_ids": c["parents"],
        "title": subject,
        "message": c["message"] + "\n",
        "author_name": c["author"][0],
        "author_email": c["author"][1],
        "authored_date": iso_off(c["author"][2], True),
        "committer_name": c["committer"][0],
        "committer_email": c["committer"][1],
        "committed_date": iso_off(c["committer"][2], True),
        "trailers": tr,
        "extended_trailers": ext,
        "web_url": "%s/%s/%s/-/commit/%s" % (GL_WEB, OWNER, NAME, c["sha"]),
        "stats": {"additions": adds, "deletions": dels, "total": adds + dels},
        "status": None,
        "project_id": GITLAB_ID,
        "last_pipeline": None,
    }


def gitlab_diff(c):
    return [{
        "diff": f["patch"] + "\n" if f["patch"] else "",
        "new_path": f["path"], "old_path": f["path"],
        "a_mode": "0" if f["status"] == "A" else "100644",
        "b_mode": "0" if f["status"] == "D" else "100644",
        "new_file": f["status"] == "A", "renamed_file": False, "deleted_file": f["status"] == "D",
    } for f in c["files"]]


newest_first = list(reversed(commits))
gh_base = "repos/%s/%s/commits" % (OWNER, NAME)
gt_base = "api/v1/repos/%s/%s" % (OWNER, NAME)
gl_base = "api/v4/projects/%d/repository/commits" % GITLAB_ID
for c in commits:
    write("%s/%s" % (gh_base, c["sha"]), github(c))
    write("%s/git/commits/%s" % (gt_base, c["sha"]), gitea(c), gitea=True)
    write("%s/%s/index.json" % (gl_base, c["sha"]), gitlab(c))
    write("%s/%s/diff" % (gl_base, c["sha"]), gitlab_diff(c))
# list endpoints: newest first, like git log; no "files" in GitHub's list
lst = []
for c in newest_first:
    g = github(c)
    del g["files"], g["stats"]
    lst.append(g)
write("%s/index.json" % gh_base, lst)
write("%s/commits" % gt_base, [gitea(c) for c in newest_first], gitea=True)
write("%s/index.json" % gl_base, [gitlab(c) for c in newest_first])
PYEOF
