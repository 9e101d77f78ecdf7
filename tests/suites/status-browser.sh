#!/usr/bin/env bash
# status-browser: the status pages (`robotmail status --html --json`) of a
# run with two performance reports, opened in a real headless browser
# (Debian's chromium, in the Makefile's DEB_PACKAGES: missing, the suite
# fails): the rendered DOM names each finding's subject and state, each
# finding's plot has exactly one point per run of findings.json's values,
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
cp contrib/examples/mlockmany.tar.xz contrib/examples/mincore.tar.xz "$T/in/"
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
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'svg':
            self.svgs += 1
            self.in_svg += 1
            self.labels.append(a.get('aria-label') or '')
        if tag == 'a' and 'href' in a:
            self.links.append(a['href'])
        if tag == 'circle' and self.in_svg and 'run' in (a.get('class') or '').split():
            self.circles += 1
    def handle_endtag(self, tag):
        if tag == 'svg':
            self.in_svg -= 1
    def handle_data(self, data):
        self.text += data

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
    # the finding page's links to its tree page resolve
    for h in page.links:
        u = urllib.parse.urlsplit(h)
        if not u.scheme and u.path.endswith('.html'):
            target = os.path.normpath(os.path.join(d, 'f', u.path))
            assert os.path.isfile(target), (h, target)
# every relative link of the index (the tree page, the finding pages) resolves
rel = [h for h in idx.links if not urllib.parse.urlsplit(h).scheme and h.endswith('.html')]
assert any(h.startswith('t/') for h in rel), idx.links
assert sum(h.startswith('f/') for h in rel) >= 2, idx.links
for h in rel:
    assert os.path.isfile(os.path.join(d, h)), h
print('checked', len(findings), 'findings,', len(rel), 'links')
PYEOF
[ $? -eq 0 ] && ok "the rendered pages show each finding's subject and state, a plot with one point per run of findings.json, and links that resolve" || not_ok "rendered content" "$(cat "$T/check")"
[ $shot_rc -eq 0 ] && [ -s "$T/shot.png" ] && [ "$(head -c 8 "$T/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
	&& ok "chromium takes a screenshot of the index (a non-empty PNG)" || not_ok "screenshot" "rc=$shot_rc" "$(tail -20 "$T/chrome.err")"

