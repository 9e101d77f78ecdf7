#!/usr/bin/env python3
"""tests/peers/forge.py - fake GitHub/Gitea/GitLab REST server for tests.

usage: forge.py [--port 0] --fixtures DIR [--log FILE] [--slow SECONDS]
                [--auth-log FILE] [--redirect BASE]

Binds 127.0.0.1 only, prints "listening PORT" (flushed) and serves until
killed (SIGTERM is fine).  Python 3 standard library only.

GET /<path>[?query] serves DIR/<path> (DIR/<path>/index.json when <path> is a
directory) as application/json (e.g. GitHub's repos/O/R/compare/A...B
{"status": "ahead"}, Gitea's {"commits": [], "total_commits": 0}).  No fixture: 404 {"message":"Not Found"}.
Every request except GET /__count is appended to FILE as "METHOD TARGET"
(TARGET with its query string), before it is answered; GET /__count answers
the number of such requests as text.

Failure injection.  "Token" = the last path segment (for /search/commits:
the q parameter, quotes and qualifiers removed):
  token starts with 404 -> 404 {"message":"Not Found"}
                    422 -> 422 {"message":"No commit found for SHA: ..."}
                    403 -> 403 rate limit: X-RateLimit-Remaining: 0,
                           X-RateLimit-Reset: now+2
                    429 -> 429 with Retry-After: 1
                    500 -> 500 (always)
                    401 -> 401 {"message":"Bad credentials"}
A path segment exactly 403/404/422/429/500 does the same for every request
below it (a base URL http://127.0.0.1:P/403 is rate-limited throughout).
(The test repo's SHAs start with none of these.)  A path segment (anywhere,
e.g. a base URL http://127.0.0.1:P/flaky) equal to or containing:
  flaky -> 500 for the first two requests of that path, then the fixture
  slow  -> sleep --slow seconds (default 10) before answering
  trunc -> Content-Length of the whole fixture, first half sent, then close
  busy  -> 503 with Retry-After: 1 for the first request of that path, then
           the fixture
  moved -> 301 to --redirect BASE + the path without "moved" (+ query): another
           server, e.g. a second forge.py on another port
  renamed -> 301 to the same path without "renamed" on this server (relative
           Location), so the same origin
  html  -> the fixture served as text/html (a proxy's or a login page)
  loop  -> 302 to the same path with one more "loop" segment on this server,
           for ever (a redirect loop)
--auth-log FILE: every request appends "TARGET <Authorization> <PRIVATE-TOKEN>"
(each "-" when absent), so a test sees which credentials arrived where.
Fixture lookup tries DIR/<path> first, then <path> without the marker
segments (flaky, slow, trunc, 404...), so /flaky/repos/o/r/commits/<sha>
serves DIR/repos/o/r/commits/<sha> after two 500s.

Lists: a fixture holding a JSON array is paged with page= (1-based) and
per_page= (GitHub) or limit= (Gitea/GitLab), default 30; X-Total-Count is set.
GET /search/commits?q=... (GitHub) is computed from DIR/repos/*/*/commits/<sha>:
every word of q (minus repo:/sort qualifiers) must occur in the message;
repo:OWNER/NAME restricts the repository.
"""
import argparse
import json
import os
import re
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MARKERS = ("flaky", "slow", "trunc", "busy", "moved", "renamed", "html")
CODES = ("401", "403", "404", "422", "429", "500")
DOC = "https://docs.github.com/rest"


class State:
    def __init__(self, fixtures, log, slow, auth_log=None, redirect=None):
        self.fixtures = os.path.realpath(fixtures)
        self.log = log
        self.slow = slow
        self.auth_log = auth_log
        self.redirect = redirect
        self.busy = set()
        self.lock = threading.Lock()
        self.count = 0
        self.flaky = {}

    def record(self, line):
        with self.lock:
            self.count += 1
            if self.log:
                with open(self.log, "a", encoding="utf-8") as f:
                    f.write(line + "\n")

    def record_auth(self, line):
        if self.auth_log:
            with self.lock:
                with open(self.auth_log, "a", encoding="utf-8") as f:
                    f.write(line + "\n")

    def busy_hit(self, path):
        with self.lock:
            first = path not in self.busy
            self.busy.add(path)
            return first

    def flaky_hit(self, path):
        with self.lock:
            n = self.flaky.get(path, 0)
            self.flaky[path] = n + 1
            return n < 2


def words(text):
    return set(w for w in re.split(r"[^\w]+", text.lower()) if w)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def version_string(self):
        return "forge.py"

    def log_message(self, fmt, *args):  # quiet
        pass

    # -- responses ----------------------------------------------------
    def send(self, code, body, ctype="application/json; charset=utf-8", headers=(),
             truncate=False):
        if isinstance(body, (dict, list)):
            body = json.dumps(body, ensure_ascii=False).encode("utf-8")
        elif isinstance(body, str):
            body = body.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        if truncate:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command == "HEAD":
            return
        if truncate:
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)

    def error_json(self, code, token):
        now = int(time.time())
        if code == 404:
            return self.send(404, {"message": "Not Found", "documentation_url": DOC, "status": "404"})
        if code == 422:
            return self.send(422, {"message": "No commit found for SHA: %s" % token,
                                   "documentation_url": DOC + "/commits/commits#get-a-commit",
                                   "status": "422"})
        if code == 403:
            return self.send(403, {"message": "API rate limit exceeded for 127.0.0.1. (But here's the "
                                   "good news: Authenticated requests get a higher rate limit.)",
                                   "documentation_url": DOC + "/overview/rate-limits-for-the-rest-api"},
                             headers=[("X-RateLimit-Limit", "60"), ("X-RateLimit-Remaining", "0"),
                                      ("X-RateLimit-Reset", str(now + 2)), ("X-RateLimit-Used", "60"),
                                      ("X-RateLimit-Resource", "core")])
        if code == 401:
            return self.send(401, {"message": "Bad credentials", "documentation_url": DOC})
        if code == 429:
            return self.send(429, {"message": "You have exceeded a secondary rate limit. Please wait "
                                   "a few minutes before you try again.",
                                   "documentation_url": DOC + "/overview/rate-limits-for-the-rest-api"},
                             headers=[("Retry-After", "1")])
        return self.send(500, {"message": "Server Error"})

    # -- request handling ---------------------------------------------
    def do_GET(self):
        st = self.server.state
        url = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(url.path)
        query = urllib.parse.parse_qs(url.query)
        if path == "/__count":
            with st.lock:
                n = st.count
            return self.send(200, "%d\n" % n, "text/plain; charset=utf-8")
        st.record("%s %s" % (self.command, self.path))
        st.record_auth("%s %s %s" % (self.path, self.headers.get("Authorization") or "-",
                                     self.headers.get("PRIVATE-TOKEN") or "-"))

        segs = [s for s in path.split("/") if s]
        is_search = len(segs) >= 2 and segs[-2:] == ["search", "commits"]
        if is_search:
            token = " ".join(w for w in query.get("q", [""])[0].replace('"', " ").split()
                             if ":" not in w or w.endswith(":"))
        else:
            token = segs[-1] if segs else ""
        marked = lambda m: any(m in s for s in segs)

        if marked("slow"):
            time.sleep(st.slow)
        for m, base in (("moved", st.redirect), ("renamed", "")):
            if m in segs and base is not None:
                rest = "/" + "/".join(s for s in segs if s != m)
                if url.query:
                    rest += "?" + url.query
                return self.send(301, {"message": "Moved Permanently"},
                                 headers=[("Location", base.rstrip("/") + rest)])
        if "loop" in segs:
            return self.send(302, {"message": "Found"},
                             headers=[("Location", "/loop" + url.path + ("?" + url.query if url.query else ""))])
        if marked("busy") and st.busy_hit(url.path):
            return self.send(503, {"message": "Service Unavailable"}, headers=[("Retry-After", "1")])
        for code in CODES:
            if token.startswith(code) or code in segs:
                return self.error_json(int(code), token)
        if marked("flaky") and st.flaky_hit(url.path):
            return self.send(500, {"message": "Server Error"})

        if is_search:
            body = self.search(query, [s for s in segs if s not in MARKERS][:-2])
        else:
            body = self.fixture(segs)
        if body is None:
            return self.error_json(404, token)
        if body.lstrip().startswith(b"["):
            return self.page(body, query, marked("trunc"))
        if marked("html"):
            return self.send(200, body, "text/html; charset=utf-8", truncate=marked("trunc"))
        return self.send(200, body, truncate=marked("trunc"))

    def fixture(self, segs):
        root = self.server.state.fixtures
        plain = [s for s in segs if not (s in MARKERS or s in CODES)]
        for cand in (segs, plain):
            if not cand or any(s in (".", "..") for s in cand):
                continue
            p = os.path.realpath(os.path.join(root, *cand))
            if not p.startswith(root + os.sep):
                continue
            if os.path.isdir(p):
                p = os.path.join(p, "index.json")
            if os.path.isfile(p):
                with open(p, "rb") as f:
                    return f.read()
        return None

    def page(self, body, query, truncate):
        items = json.loads(body)
        try:
            page = max(1, int(query.get("page", ["1"])[0]))
            per = int(query.get("per_page", query.get("limit", ["30"]))[0])
            per = max(1, min(per, 100))
        except ValueError:
            return self.send(422, {"message": "Validation Failed"})
        out = items[(page - 1) * per: page * per]
        return self.send(200, out, headers=[("X-Total-Count", str(len(items)))], truncate=truncate)

    def search(self, query, prefix):
        q = query.get("q", [""])[0]
        repo = None
        want = set()
        for w in q.replace('"', " ").split():
            if w.startswith("repo:"):
                repo = w[5:]
            elif re.match(r"^[a-z-]+:\S", w):  # other qualifiers: ignored
                continue
            else:
                want |= words(w)
        root = os.path.join(self.server.state.fixtures, *prefix, "repos")
        items = []
        if os.path.isdir(root):
            for owner in sorted(os.listdir(root)):
                for name in sorted(os.listdir(os.path.join(root, owner))):
                    if repo and repo != "%s/%s" % (owner, name):
                        continue
                    d = os.path.join(root, owner, name, "commits")
                    if not os.path.isdir(d):
                        continue
                    for sha in sorted(os.listdir(d)):
                        if not re.fullmatch(r"[0-9a-f]{40}", sha):
                            continue
                        with open(os.path.join(d, sha), encoding="utf-8") as f:
                            c = json.load(f)
                        if not want or not want <= words(c["commit"]["message"]):
                            continue
                        c.pop("files", None)
                        c.pop("stats", None)
                        c["commit"].pop("verification", None)
                        c["repository"] = {
                            "id": 1, "name": name, "full_name": "%s/%s" % (owner, name),
                            "owner": {"login": owner}, "private": False,
                            "html_url": "https://github.com/%s/%s" % (owner, name),
                            "url": "https://api.github.com/repos/%s/%s" % (owner, name)}
                        c["score"] = 1.0
                        items.append(c)
        items.sort(key=lambda c: c["commit"]["committer"]["date"], reverse=True)
        return json.dumps({"total_count": len(items), "incomplete_results": False,
                           "items": items}, ensure_ascii=False).encode("utf-8")

    def do_HEAD(self):
        self.do_GET()

    def not_allowed(self):
        self.server.state.record("%s %s" % (self.command, self.path))
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        self.send(405, {"message": "Method Not Allowed"})

    do_POST = do_PUT = do_PATCH = do_DELETE = not_allowed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--log")
    ap.add_argument("--slow", type=float, default=10.0)
    ap.add_argument("--auth-log")
    ap.add_argument("--redirect")
    a = ap.parse_args()
    if not os.path.isdir(a.fixtures):
        ap.error("--fixtures %s: not a directory" % a.fixtures)
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    srv.state = State(a.fixtures, a.log, a.slow, a.auth_log, a.redirect)
    if a.log:
        open(a.log, "a").close()
    print("listening %d" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    srv.server_close()


if __name__ == "__main__":
    main()
