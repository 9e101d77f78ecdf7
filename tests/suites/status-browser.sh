#!/usr/bin/env bash
# status-browser: the status pages (`robotmail status --html --json`) of a
# run with two performance reports, opened in a real headless browser
# (Debian's chromium, in the Makefile's DEB_PACKAGES: missing, the suite
# fails): the rendered DOM names each finding's subject and state, each
# finding's plot has a group per head (the report's base and commit, and
# linux-next's head where one finding was seen too) with exactly one point
# per run of findings.json's values and a legend line naming it,
# the index's links to the tree and finding pages resolve to files status
# wrote, the pages are valid HTML5 (tidy -errors), and a screenshot is a
# non-empty PNG.  Plain binary only (chromium dominates the time).
. tests/lib.sh
mk_tmp
T=$TEST_TMP
CHROME_PGIDS=""
cleanup_chrome() {
	# each chromium ran as the leader of its own process group (setsid):
	# end what is left of those groups, and only those
	for g in $CHROME_PGIDS; do kill -KILL -- "-$g" 2>/dev/null; done
	rm -rf "$TEST_TMP"
}
trap cleanup_chrome EXIT

tests/peers/make-test-repo.sh "$T/repo" >/dev/null
mkdir -p "$T/in"
cat >"$T/cfg.yaml" <<CFG
robot:
  name: Example CI robot
  address: robot@example.org
links:
  status: https://status.example.org/robotmail
paths:
  state_db: $T/state.db
  inbox: $T/in
  done: $T/done
  failed: $T/failed
$(linus_tree local-git "$T/repo")
delivery:
  transport: maildir:$T/sent
  settle: 0
CFG
cp contrib/examples/mincore.tar.xz "$T/in/"
# mlockmany with its head re-tested on linux-next/master (a third result
# root, each run's value 3% lower): the report's "[still regression on ...]"
# head, a third group of the finding's plot
"$PY" - "$T/in/mlockmany-next.tar" <<'PYEOF'
import io, json, lzma, sys, tarfile
head, nxt = 'e5e1a8d3a28c98ac2743ad22197185fd9c4fc440', 'd742a4c3fa217dd53796cd1b8d219297e41de3c9'
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/mlockmany.tar.xz', 'rb').read())))
out = tarfile.open(sys.argv[1], 'w')
def add(name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    out.addfile(info, io.BytesIO(data))
for m in src.getmembers():
    if not m.isfile():
        continue
    data = src.extractfile(m).read()
    add(m.name, data)
    if '/' + head + '/' not in m.name:
        continue
    if m.name.endswith('/matrix.json'):
        mx = json.loads(data)
        mx['stress-ng.mlockmany.ops_per_sec'] = [v * 0.97 for v in mx['stress-ng.mlockmany.ops_per_sec']]
        data = json.dumps(mx).encode()
    data = data.replace(head.encode(), nxt.encode()).replace(b'branch: linus/master', b'branch: linux-next/master')
    add(m.name.replace(head, nxt), data)
out.close()
PYEOF
"$ROBOTMAIL" run -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
rc=$?
n=$(find "$T/sent" -type f 2>/dev/null | wc -l)
[ $rc -eq 0 ] && [ "$n" = 2 ] && ok "run delivers the two reports" || not_ok "run" "rc=$rc n=$n" "$(cat "$T/err")"
"$ROBOTMAIL" status -c "$T/cfg.yaml" --html "$T/html" --json "$T/html" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -qx "robotmail: status: 2 finding(s) written to $T/html" "$T/out" && ok "status writes the pages of the two findings" || not_ok "status" "rc=$rc" "$(cat "$T/out" "$T/err")"
tidy -errors -quiet "$T/html/index.html" "$T/html/f/"*.html "$T/html/t/"*.html >"$T/tidy" 2>&1 && ok "the pages are valid HTML5 (tidy -errors)" || not_ok "tidy" "$(cat "$T/tidy")"

# the demo of `make run` (contrib/run-example.sh, in a copy of the files it
# uses so the checkout's var/example stays as it is): it prints where the
# status pages are, and they validate
mkdir -p "$T/demo/tests/peers"
cp -r contrib config templates "$T/demo/"
cp tests/peers/make-test-repo.sh "$T/demo/tests/peers/"
BUILD=$(cd "$(dirname "$ROBOTMAIL")" && pwd) "$T/demo/contrib/run-example.sh" >"$T/demo.out" 2>"$T/demo.err"
rc=$?
[ $rc -eq 0 ] && grep -q "^robotmail: status pages in $T/demo/var/example/status/" "$T/demo.out" \
	&& tidy -errors -quiet "$T/demo/var/example/status/index.html" "$T/demo/var/example/status/f/"*.html >"$T/tidy" 2>&1 \
	&& ok "make run's demo writes its status pages into var/example/status/, says where, and they are valid HTML5" \
	|| not_ok "demo status" "rc=$rc" "$(tail -5 "$T/demo.out" "$T/demo.err" "$T/tidy")"

CHROME=$(command -v chromium || command -v chromium-browser || true)
# chrome URL OUT ARGS...: headless chromium (root needs --no-sandbox), no
# network, a private profile, at most 60 s; stdout into OUT
chrome() {
	local url=$1 out=$2
	shift 2
	setsid timeout -k 5 60 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage --user-data-dir="$T/chrome" "$@" "$url" >"$out" 2>>"$T/chrome.err" </dev/null &
	local pid=$!
	CHROME_PGIDS="$CHROME_PGIDS $pid"
	wait $pid
}
if [ -z "$CHROME" ]; then
	not_ok "chromium is installed (Makefile DEB_PACKAGES; apt-get install chromium)"
	exit 0
fi
# the index: its DOM and (the same launch, chromium takes ~4 s to start)
# a screenshot
chrome "file://$T/html/index.html" "$T/index.dom" --dump-dom --screenshot="$T/shot.png" --window-size=1000,800
rc=$?
shot_rc=$rc
for id in $("$PY" -c 'import json,sys; print(" ".join(f["id"] for f in json.load(open(sys.argv[1]))))' "$T/html/findings.json"); do
	chrome "file://$T/html/f/$id.html" "$T/f-$id.dom" --dump-dom || rc=$?
done
[ $rc -eq 0 ] && [ -s "$T/index.dom" ] && ok "chromium renders the index and each finding's page (--dump-dom)" || not_ok "chromium dump-dom" "rc=$rc" "$(tail -20 "$T/chrome.err")"
"$PY" - "$T" <<'PYEOF' >"$T/check" 2>&1
import json, os, sys, html.parser, urllib.parse
T = sys.argv[1]
d = os.path.join(T, 'html')
findings = json.load(open(os.path.join(d, 'findings.json')))
assert len(findings) == 2, findings

class DOM(html.parser.HTMLParser):
    """the rendered text, the links, and the SVG circles of class run"""
    def __init__(self):
        super().__init__()
        self.text, self.links, self.circles, self.svgs, self.in_svg = '', [], 0, 0, 0
        self.labels = []
        # the plot's groups (one per head): [title text, circles of class run]
        self.groups, self.in_group, self.in_title = [], False, False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'g' and 'commit' in (a.get('class') or '').split():
            self.groups.append(['', 0])
            self.in_group = True
        if tag == 'title' and self.in_group:
            self.in_title = True
        if tag == 'svg':
            self.svgs += 1
            self.in_svg += 1
            self.labels.append(a.get('aria-label') or '')
        if tag == 'a' and 'href' in a:
            self.links.append(a['href'])
        if tag == 'circle' and self.in_svg and 'run' in (a.get('class') or '').split():
            self.circles += 1
            if self.in_group:
                self.groups[-1][1] += 1
    def handle_endtag(self, tag):
        if tag == 'svg':
            self.in_svg -= 1
        if tag == 'g':
            self.in_group = False
        if tag == 'title':
            self.in_title = False
    def handle_data(self, data):
        self.text += data
        if self.in_title:
            self.groups[-1][0] += data

def dom(path):
    p = DOM()
    p.feed(open(path, encoding='utf-8').read())
    assert p.text.strip(), 'empty DOM: ' + path
    return p

def norm(s):
    return ' '.join(s.split())

idx = dom(os.path.join(T, 'index.dom'))
itext = norm(idx.text)
assert '2 finding(s)' in itext, itext
for f in findings:
    # the index names every finding's subject and state
    assert norm(f['subject']) in itext, (f['subject'], itext)
    assert f['state'] in itext, (f['state'], itext)
    page = dom(os.path.join(T, 'f-%s.dom' % f['id']))
    ptext = norm(page.text)
    assert norm(f['subject']) in ptext and f['state'] in ptext and f['message_id'] in ptext, ptext
    # the plot: one point per run of findings.json's values (both commits)
    runs = sum(len(v['values']) for v in f['values'])
    assert runs >= 2, f['values']
    assert page.svgs == 1 and page.circles == runs, (f['id'], runs, page.circles, page.svgs)
    assert page.labels[0].endswith(': %d runs on %d commits' % (runs, len(f['values']))), page.labels
    for v in f['values']:
        # the legend: each commit with its role and its count of runs
        legend = '%s (%s): ' % (v['commit'], v['role'])
        assert legend in ptext, (legend, ptext)
        after = ptext.split(legend, 1)[1].split(' runs', 1)[0]
        assert after.endswith(', %d' % len(v['values'])), (legend, after)
        # one group per head, its circles one per run of that head
        g = [c for t, c in page.groups if t.startswith(v['commit'] + ' (')]
        assert g == [len(v['values'])], (v['commit'], g, page.groups)
        # the legend as text: sha10, tree/branch, role, mean +- stddev, runs
        key = '%s %s (%s): mean ' % (v['commit'][:10], v['label'], v['role'])
        assert key in ptext and (' runs' if len(v['values']) > 1 else ' run') in ptext.split(key, 1)[1], (key, ptext)
    assert len(page.groups) == len(f['values']), (page.groups, f['values'])
    # the finding page's links to its tree page resolve
    for h in page.links:
        u = urllib.parse.urlsplit(h)
        if not u.scheme and u.path.endswith('.html'):
            target = os.path.normpath(os.path.join(d, 'f', u.path))
            assert os.path.isfile(target), (h, target)
# the mlockmany finding was seen on linux-next/master's head too (a third group)
seen = [v for f in findings for v in f['values'] if v['role'] == 'seen']
assert [(v['commit'], v['label'], len(v['values'])) for v in seen] == \
    [('d742a4c3fa217dd53796cd1b8d219297e41de3c9', 'linux-next/master', 3)], seen
# every relative link of the index (the tree page, the finding pages) resolves
rel = [h for h in idx.links if not urllib.parse.urlsplit(h).scheme and h.endswith('.html')]
assert any(h.startswith('t/') for h in rel), idx.links
assert sum(h.startswith('f/') for h in rel) >= 2, idx.links
for h in rel:
    assert os.path.isfile(os.path.join(d, h)), h
print('checked', len(findings), 'findings,', len(rel), 'links')
PYEOF
[ $? -eq 0 ] && ok "the rendered pages show each finding's subject and state, a plot with a group per head (linux-next's too) and one point per run of findings.json, a legend line per head, and links that resolve" || not_ok "rendered content" "$(cat "$T/check")"
[ $shot_rc -eq 0 ] && [ -s "$T/shot.png" ] && [ "$(head -c 8 "$T/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
	&& ok "chromium takes a screenshot of the index (a non-empty PNG)" || not_ok "screenshot" "rc=$shot_rc" "$(tail -20 "$T/chrome.err")"

