#!/usr/bin/env bash
# listen: `robotmail run` delivers a report into a Maildir; replies written
# into another Maildir (good commands, bad commands, auto-replies, bulk and
# list mail, strangers, the robot's own mail, mail that is no reply) are
# read by `robotmail listen`; the store's findings and opt-outs, the answer
# queued for a command not understood, nothing read twice, and the next run
# (and --dry-run) respecting an invalid finding and an opt-out.
. tests/lib.sh
mk_tmp
T=$TEST_TMP
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
mkdir -p "$T/in" "$T/replies/new" "$T/replies/cur" "$T/replies/tmp"
# LISTEN_STORE=postgresql://... (set by tests/suites/postgres.sh, which runs
# this suite again over its throwaway server): the same checks on that store
# (paths.state_db and store: are one setting)
if [ -n "${LISTEN_STORE:-}" ]; then
	STATE_DB=$LISTEN_STORE
	db() { psql -X -qAt "$LISTEN_STORE" -c "$1"; }
else
	STATE_DB=$T/state.db
	db() { sqlite3 "$T/state.db" "$1"; }
fi
cat >"$T/cfg.yaml" <<CFG
robot:
  name: kernel test robot
  address: lkp@example.org
  cc_self: false
links:
  status: https://status.example.org/robotmail
paths:
  state_db: $STATE_DB
  inbox: $T/in
  done: $T/done
  failed: $T/failed
$(linus_tree local-git "$T/repo")
delivery:
  transport: maildir:$T/sent
  settle: 0
listen:
  source: maildir:$T/replies
  maintainers: [boss@example.org]
  lists: [lkp.lists.example.org]
  rate_limit: 5
  footer: true
CFG
cp contrib/examples/mlockmany.tar.xz "$T/in/"
"$ROBOTMAIL" run -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
rc=$?
sent=$(find "$T/sent" -type f | head -1)
REPORT=$(sed -n 's/^Message-ID: <\(.*\)>.*/\1/p' "$sent" | head -1)
[ $rc -eq 0 ] && [ -n "$REPORT" ] && ok "run delivers the report into the Maildir" || not_ok "run" "rc=$rc" "$(cat "$T/err")"
"$PY" - "$sent" <<'PYEOF' >"$T/lu" 2>&1
import email, email.policy, sys, urllib.parse
m = email.message_from_binary_file(open(sys.argv[1], 'rb'), policy=email.policy.default)
v = m['List-Unsubscribe']
assert v == '<mailto:lkp@example.org?subject=unsubscribe>', v
u = urllib.parse.urlsplit(v.strip('<>'))
assert u.scheme == 'mailto' and u.path == 'lkp@example.org', u
assert urllib.parse.parse_qs(u.query) == {'subject': ['unsubscribe']}, u.query
body = m.get_content().rstrip('\n').split('\n')
assert body[-3] == '-- ', body[-3:]
import re
assert re.fullmatch(r'This finding: https://status\.example\.org/robotmail/f/[0-9a-f]{16}\.html', body[-2]), body[-2]
assert body[-1] == "Reply with '#robotmail invalid', '#robotmail fixed: <commit>' or '#robotmail unsubscribe' on a line of its own.", body[-1]
PYEOF
[ $? -eq 0 ] && ok "List-Unsubscribe is a valid mailto: (Python's email parser); the footer links the finding's page and says how to answer" || not_ok "List-Unsubscribe" "$(cat "$T/lu")"

# mutt shows the same header: a private muttrc (-n -F), read-only, in a
# pseudo-terminal (script); pushed keys pipe the message with only
# List-Unsubscribe unignored (pipe_decode weeds as the pager does), then open
# mutt's own list menu (<list-action>, mutt >= 2.2), which lists the mailto:
# it parsed, or "--"; the two "q" typed on the terminal close menu and mutt.
# The same mail without the header, and with the URL's <> removed, must fail.
mkdir -p "$T/mutt"
cat >"$T/mutt/muttrc" <<MUTTRC
set folder="$T/mutt" spoolfile="$T/mutt/ok" mbox="$T/mutt/mbox" record="" postponed="$T/mutt/postponed"
set pipe_decode=yes weed=yes wait_key=no
ignore *
unignore list-unsubscribe
MUTTRC
# mutt_shows MAILFILE NAME: 0 when mutt showed List-Unsubscribe and its list
# menu the mailto: intact; the pipe and the screen are left in $T/mutt/NAME.*
mutt_shows() {
	local d=$T/mutt/$2
	mkdir -p "$d/new" "$d/cur" "$d/tmp"
	cp "$1" "$d/new/1.robotmail"
	# the terminal's input: "qq", then kept open (an early end of input
	# would hang up the terminal) until mutt is done
	exec 9< <(printf qq; exec sleep 20 2>/dev/null)
	local keys=$!
	HOME=$T/mutt TERM=vt100 timeout 20 script -qec "mutt -n -F '$T/mutt/muttrc' -R -f '$d' -e 'push \"<pipe-message>cat >\\\"$d.shown\\\"<enter><list-action>\"'" /dev/null \
		<&9 >"$d.tty" 2>&1
	exec 9<&-
	kill "$keys" 2>/dev/null
	sed 's/\x1b\[[0-9;?]*[A-Za-z]/\n/g' "$d.tty" | tr -d '\r' >"$d.screen"
	grep -qx 'List-Unsubscribe: <mailto:lkp@example.org?subject=unsubscribe>' "$d.shown" 2>/dev/null &&
		grep -qx ' *Unsubscribe: mailto:lkp@example.org?subject=unsubscribe' "$d.screen"
}
sed '/^List-Unsubscribe:/d' "$sent" >"$T/mutt/no-header.eml"
sed 's/^\(List-Unsubscribe: \)<\(.*\)>$/\1\2/' "$sent" >"$T/mutt/no-brackets.eml"
if ! command -v mutt >/dev/null; then
	not_ok "mutt shows List-Unsubscribe" "mutt is not installed (DEB_PACKAGES)"
elif mutt_shows "$sent" ok && ! mutt_shows "$T/mutt/no-header.eml" no-header &&
	! mutt_shows "$T/mutt/no-brackets.eml" no-brackets && grep -q '^List-Unsubscribe: mailto:' "$T/mutt/no-brackets.shown" &&
	grep -qx ' *Unsubscribe: --' "$T/mutt/no-brackets.screen"; then
	ok "mutt shows List-Unsubscribe and lists its mailto: for unsubscribe (<list-action>); not when it is missing or has no <>"
else
	not_ok "mutt List-Unsubscribe" "$(cat "$T/mutt/ok.shown" "$T/mutt/ok.screen" 2>&1 | grep -a -i unsub)"
fi
PAGE=$(sed -n 's|^This finding: https://status.example.org/robotmail/\(f/[0-9a-f]*\.html\)$|\1|p' "$sent")

# the retest of the same finding (another base), for the next run
"$PY" - "$T/retest.tar" <<'PYEOF'
import io, lzma, sys, tarfile
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/mlockmany.tar.xz', 'rb').read())))
old, new = '8f756b95ffe4a7bb2037d8856596585c3235a6f3', '84e39935160611a9a2d5791c335339ee6c6ce0c3'
with tarfile.open(sys.argv[1], 'w') as t:
    for m in src.getmembers():
        if not m.isfile():
            continue
        data = src.extractfile(m).read().replace(old.encode(), new.encode())
        info = tarfile.TarInfo(m.name.replace(old, new))
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
PYEOF

n=0
# reply FROM MSGID EXTRA-HEADERS BODY: a mail into the replies Maildir,
# in the order written (names sort by a counter)
reply() {
	n=$((n + 1))
	{
		printf 'From: %s\nTo: lkp@example.org\nSubject: Re: the report\n' "$1"
		printf 'Message-ID: <%s>\nIn-Reply-To: <%s>\nReferences: <%s>\n' "$2" "$REPORT" "$REPORT"
		[ -n "$3" ] && printf '%s\n' "$3"
		printf '\n%s\n' "$4"
	} >"$T/replies/new/17000000$(printf %02d $n).M1P1.test"
}
reply 'Rev Iewer <rev@example.org>' r1@example.org '' "$(printf '> #robotmail fixed: quoted, not a command\nThis is a false positive.\n#robotmail invalid')"
reply 'Mallory <mallory@example.net>' r2@example.net '' '#robotmail fixed: 1234abcd'
reply 'Ann Author <ann@example.org>' r3@example.org 'Auto-Submitted: auto-replied' '#robotmail frobnicate'
reply 'Ann Author <ann@example.org>' r4@example.org 'Precedence: bulk' '#robotmail frobnicate'
reply 'kernel test robot <lkp@example.org>' r5@example.org '' '#robotmail frobnicate'
reply 'Ann Author <ann@example.org>' r6@example.org 'List-Id: Other list <other.lists.example.org>' '#robotmail frobnicate'
reply 'Ack Er <ack@example.org>' r7@example.org '' "$(printf '#robotmail unsubscribe\n#robotmail frobnicate now\n#robotmail dup: not-an-id')"
reply 'Ann Author <ann@example.org>' r8@example.org 'List-Id: LKP <lkp.lists.example.org>' 'Thanks, nothing to do.'
# no reply to any report
n=$((n + 1))
printf 'From: ann@example.org\nSubject: hello\nMessage-ID: <r9@example.org>\n\n#robotmail invalid\n' >"$T/replies/new/17000000$(printf %02d $n).M1P1.test"
# what a mail program sends for the List-Unsubscribe mailto:
n=$((n + 1))
printf 'From: list@vger.example.org\nTo: lkp@example.org\nSubject: unsubscribe\nMessage-ID: <r12@example.org>\n\n' >"$T/replies/new/17000000$(printf %02d $n).M1P1.test"

"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok "listen reads the Maildir (exit 0)" || not_ok "listen" "rc=$rc" "$(cat "$T/err")"
grep -q '^robotmail: listen: 10 read, 6 ignored, 1 refused, 3 command(s) applied, 1 answer(s) queued$' "$T/err" &&
	ok "listen's summary counts what happened" || not_ok "summary" "$(cat "$T/err")"
state=$(db "select state from findings")
[ "$state" = invalid ] && ok "#robotmail invalid from a recipient marks the finding invalid" || not_ok "invalid" "$state"
ev=$(db "select command || '|' || by_addr || '|' || message_id from finding_events")
[ "$ev" = "#robotmail invalid|rev@example.org|r1@example.org" ] && ok "the quoted line is no command; the event names who and which mail" || not_ok "events" "$ev"
grep -q '<r2@example.net>: refused: mallory@example.net did not receive the report' "$T/err" &&
	ok "a stranger's command is refused and logged" || not_ok "stranger" "$(cat "$T/err")"
for k in "r3@example.org>: ignored: an automatic mail" "r4@example.org>: ignored: a bulk mail" \
	"r5@example.org>: ignored: a mail from the robot itself" "r6@example.org>: ignored: a mail of a list not in listen.lists" \
	"r8@example.org>: ignored: no #robotmail command" "r9@example.org>: ignored: not a reply to a report"; do
	grep -qF "<$k" "$T/err" && ok "loop rule: <$k" || not_ok "loop rule: <$k" "$(cat "$T/err")"
done
opt=$(db "select addr || '|' || scope from optouts order by addr" | tr '\n' ' ')
[ "$opt" = "ack@example.org|linus list@vger.example.org|* " ] && ok "#robotmail unsubscribe opts the sender out of this tree, the List-Unsubscribe mail out of all" || not_ok "opt-out" "$opt"
"$ROBOTMAIL" check-config -c "$T/cfg.yaml" >"$T/cc" 2>&1
grep -qx 'ok   opt-outs by mail: 2 address(es) opted out' "$T/cc" && ok "check-config shows how many addresses opted out" || not_ok "check-config" "$(cat "$T/cc")"
ans=$(db "select id from messages where dedupe_key = 'answer:r7@example.org'")
"$ROBOTMAIL" queue -c "$T/cfg.yaml" show "$ans" >"$T/answer" 2>&1
grep -qx 'To: ack@example.org' "$T/answer" && grep -qx 'In-Reply-To: <r7@example.org>' "$T/answer" &&
	grep -qx 'Auto-Submitted: auto-replied' "$T/answer" && grep -q "^References: <$REPORT>" "$T/answer" &&
	grep -qx '  #robotmail frobnicate now' "$T/answer" && grep -qx "    unknown command 'frobnicate'" "$T/answer" &&
	grep -qx '  #robotmail dup: not-an-id' "$T/answer" && grep -qx "    'not-an-id' is not a Message-ID" "$T/answer" &&
	ok "the commands not understood get one answer in the thread (Auto-Submitted: auto-replied)" || not_ok "answer" "$(cat "$T/answer")"
[ "$(db "select count(*) from messages where dedupe_key like 'answer:%'")" = 1 ] &&
	ok "no answer to the loop cases or the stranger" || not_ok "answers" "$(db "select dedupe_key from messages")"

"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err2"
grep -q '^robotmail: listen: 0 read, 0 ignored, 0 refused, 0 command(s) applied, 0 answer(s) queued$' "$T/err2" &&
	ok "a second pass reads nothing twice" || not_ok "second pass" "$(cat "$T/err2")"

# the same finding again: not sent
cp "$T/retest.tar" "$T/in/retest.tar"
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/in/retest.tar" >"$T/dry" 2>&1
grep -q '^# robotmail dry-run: report 1 from .*retest.tar: not sent: its finding is marked invalid (listen)$' "$T/dry" &&
	ok "--dry-run says the report of an invalid finding is not sent" || not_ok "dry-run closed" "$(head -5 "$T/dry")"
before=$(find "$T/sent" -type f | wc -l)
"$ROBOTMAIL" run -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
rc=$?
after=$(find "$T/sent" -type f -exec grep -l '^X-Robotmail-Report' {} + | wc -l)
[ $rc -eq 0 ] && [ "$after" = 1 ] && [ -e "$T/done/retest.tar" ] && grep -q 'not sent: its finding is marked invalid' "$T/err" &&
	ok "a report sent, #robotmail invalid, the same finding again: no second report" || not_ok "second report" "rc=$rc after=$after" "$(cat "$T/err")"
[ $((before + 1)) -eq "$(find "$T/sent" -type f | wc -l)" ] && ok "the run delivered the queued answer" || not_ok "answer delivered" "before=$before"

# undo (by a maintainer), then the finding is open again and the opt-out holds
n=$((n + 1))
printf 'From: boss@example.org\nSubject: Re: x\nMessage-ID: <r10@example.org>\nReferences: <other@example.org> <%s>\n\n#robotmail undo\n' "$REPORT" \
	>"$T/replies/new/17000000$(printf %02d $n).M1P1.test"
"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
state=$(db "select state from findings")
[ "$state" = open ] && ok "#robotmail undo from a maintainer (matched by References) reopens the finding" || not_ok "undo" "$state" "$(cat "$T/err")"
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/done/retest.tar" >"$T/dry" 2>&1
grep -q '^RCPT TO:<ann@example.org>$' "$T/dry" && ! grep -q 'ack@example.org' "$T/dry" && ! grep -q 'list@vger.example.org' "$T/dry" &&
	ok "the open finding is reported again, without the address that opted out" || not_ok "opt-out honoured" "$(grep -E '^(#|RCPT|To:|Cc:)' "$T/dry")"

# kill -9 mid-pass: nothing applied twice
n=$((n + 1))
printf 'From: boss@example.org\nSubject: Re: x\nMessage-ID: <r11@example.org>\nIn-Reply-To: <%s>\n\n#robotmail fixed: abcdef012345\n' "$REPORT" \
	>"$T/replies/new/17000000$(printf %02d $n).M1P1.test"
"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
db "delete from inbound where id = 'r11@example.org'" # as if killed before it remembered the mail
"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
c=$(db "select count(*) from finding_events where message_id = 'r11@example.org'")
st=$(db "select state || ' ' || arg from findings")
[ "$c" = 1 ] && [ "$st" = "fixed abcdef012345" ] && ok "a mail read again after a crash is not applied twice" || not_ok "twice" "c=$c st=$st"

# a reply without a Message-ID (found while writing fuzz_listen_mail):
# named by its id in the Maildir, answered outside the thread; it had a
# "(null)" dedupe key and References, so no answer was ever queued
n=$((n + 1))
nomid=17000000$(printf %02d $n).M1P1.test
printf 'From: boss@example.org\nSubject: Re: x\nIn-Reply-To: <%s>\n\n#robotmail frobnicate\n' "$REPORT" >"$T/replies/new/$nomid"
"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
ans=$(db "select id from messages where dedupe_key = 'answer:$nomid'")
"$ROBOTMAIL" queue -c "$T/cfg.yaml" show "${ans:-0}" >"$T/answer" 2>&1
grep -q '^robotmail: listen: 1 read, 0 ignored, 0 refused, 0 command(s) applied, 1 answer(s) queued$' "$T/err" &&
	grep -qF "<$nomid>: not understood: #robotmail frobnicate" "$T/err" && ! grep -q null "$T/err" &&
	grep -qx 'To: boss@example.org' "$T/answer" && ! grep -q '^In-Reply-To:' "$T/answer" &&
	[ "$(db "select count(*) from messages where dedupe_key like '%null%'")" = 0 ] &&
	ok "a reply without a Message-ID is named by its Maildir id and its command not understood is answered" ||
	not_ok "no Message-ID" "$(cat "$T/err" "$T/answer")"

# 8-bit bytes in a Message-ID and a display name (not UTF-8): the store
# keeps them repaired ('?'); PostgreSQL refused them, failing every pass
n=$((n + 1))
printf 'From: J\xf6rg <boss@example.org>\nSubject: Re: x\nMessage-ID: <caf\xe9@example.org>\nIn-Reply-To: <%s>\n\nthanks\n' "$REPORT" \
	>"$T/replies/new/17000000$(printf %02d $n).M1P1.test"
"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^robotmail: listen: 1 read, 1 ignored,' "$T/err" &&
	[ "$(db "select count(*) from inbound where id = 'caf?@example.org'")" = 1 ] &&
	ok "a mail with 8-bit bytes in its Message-ID is read and remembered (as UTF-8)" ||
	not_ok "8-bit Message-ID" "rc=$rc" "$(cat "$T/err")"

# the per-sender limit (5 an hour, counted in the store)
for k in 1 2 3 4 5 6; do
	n=$((n + 1))
	printf 'From: rev@example.org\nSubject: Re: x\nMessage-ID: <flood%s@example.org>\nIn-Reply-To: <%s>\n\nno command\n' "$k" "$REPORT" \
		>"$T/replies/new/17000000$(printf %02d $n).M1P1.test"
done
"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
[ "$(grep -c 'over the per-sender limit' "$T/err")" = 2 ] && ok "the per-sender limit: with 5 an hour, rev@ (1 mail before) gets its 5th and 6th new mails ignored" || not_ok "rate" "$(cat "$T/err")"

# configuration errors
printf 'listen:\n  source: imap://x\n' >"$T/bad.yaml"
"$ROBOTMAIL" listen -c "$T/bad.yaml" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "line 2: 'listen.source': expected maildir:DIR" "$T/err" && ok "a bad listen.source is a configuration error naming the line (exit 2)" || not_ok "bad source" "rc=$rc" "$(cat "$T/err")"

# the findings page
"$ROBOTMAIL" status -c "$T/cfg.yaml" --html "$T/www" --json "$T/www" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -qx 'robotmail: status: 1 finding(s) written to '"$T/www" "$T/out" && ok "status writes the findings page" || not_ok "status" "rc=$rc" "$(cat "$T/out" "$T/err")"
"$PY" - "$T/www" "$REPORT" <<'PYEOF' >"$T/js" 2>&1
import json, os, sys, html.parser
d, report = sys.argv[1], sys.argv[2]
f = json.load(open(os.path.join(d, 'findings.json')))
assert len(f) == 1, f
f = f[0]
assert f['state'] == 'fixed' and f['arg'] == 'abcdef012345', f
assert f['message_id'] == report and f['tree'] == 'linus' and f['reports'] == 1, f
cmds = [(c['command'], c['by'], c['undone']) for c in f['commands']]
assert cmds == [('#robotmail invalid', 'rev@example.org', True), ('#robotmail undo', 'boss@example.org', False),
                ('#robotmail fixed: abcdef012345', 'boss@example.org', False)], cmds
page = open(os.path.join(d, 'f', f['id'] + '.html')).read()
class P(html.parser.HTMLParser):
    text = ''
    def handle_data(self, data): self.text += data
p = P(); p.feed(page)
assert 'fixed: abcdef012345' in p.text and '#robotmail undo' in p.text and report in p.text, p.text
# the plot: the headline metric's runs on the report's parent and commit
# (kept by run from the archive's matrix), one circle per run
vals = f['values']
assert [v['role'] for v in vals] == ['base', 'head'], vals
assert vals[0]['commit'] == '8f756b95ffe4a7bb2037d8856596585c3235a6f3', vals
assert all(len(v['values']) >= 1 for v in vals), vals
runs = sum(len(v['values']) for v in vals)
assert page.count('<svg ') == 1 and page.count('<circle class="run"') == runs, (runs, page.count('<circle class="run"'))
assert '%d runs on 2 commits' % runs in page, page
idx = P(); idx.feed(open(os.path.join(d, 'index.html')).read())
assert '1 finding(s)' in idx.text and 'fixed' in idx.text, idx.text
# the per-tree page: linked from the index and from the finding's page,
# listing the tree's findings with their states
import re
index = open(os.path.join(d, 'index.html')).read()
assert 'href="t/linus.html"' in index, index
assert 'href="../t/linus.html"' in page, page
tree = open(os.path.join(d, 't', 'linus.html')).read()
assert 'href="../f/%s.html"' % f['id'] in tree, tree
t = P(); t.feed(tree)
assert 'robotmail findings on linus' in t.text and '1 fixed' in t.text, t.text
assert f['subject'] in t.text, t.text
PYEOF
[ $? -eq 0 ] && ok "findings.json and the pages show the state, the thread, the commands received and an SVG plot with a circle per run; a page per tree lists its findings" || not_ok "status content" "$(cat "$T/js")"
[ -n "$PAGE" ] && [ -f "$T/www/$PAGE" ] && ok "the report's link names the finding's page status wrote ($PAGE)" || not_ok "page link" "PAGE=$PAGE" "$(ls -R "$T/www")"
# tidy is in the Makefile's DEB_PACKAGES: missing, this check fails
tidy -errors -quiet "$T/www/index.html" "$T/www/f/"*.html "$T/www/t/"*.html >"$T/tidy" 2>&1 && ok "the pages are valid HTML5 (tidy -errors)" || not_ok "tidy" "$(cat "$T/tidy")"

# --follow, killed with -9 after it read a mail: the next pass reads nothing twice
"$ROBOTMAIL" listen -c "$T/cfg.yaml" --follow --interval 1 >"$T/fout" 2>"$T/ferr" &
FPID=$!
n=$((n + 1))
printf 'From: boss@example.org\nSubject: Re: x\nMessage-ID: <r20@example.org>\nIn-Reply-To: <%s>\n\n#robotmail dup: <other@example.org>\n' "$REPORT" \
	>"$T/replies/new/17000000$(printf %02d $n).M1P1.test"
for _ in $(seq 1 60); do
	[ "$(db "select count(*) from inbound where id = 'r20@example.org'" 2>/dev/null)" = 1 ] && break
	sleep 0.5
done
kill -9 $FPID 2>/dev/null
wait $FPID 2>/dev/null
"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
c=$(db "select count(*) from finding_events where message_id = 'r20@example.org'")
st=$(db "select state || ' ' || arg from findings")
grep -q '^robotmail: listen: 0 read,' "$T/err" && [ "$c" = 1 ] && [ "$st" = "dup other@example.org" ] &&
	ok "listen --follow picks up a new mail; after a kill -9 nothing is read or applied twice" || not_ok "follow" "c=$c st=$st" "$(cat "$T/ferr" "$T/err")"

# ---- a public-inbox list (public-inbox:URL): a real v2 inbox served by
# public-inbox-httpd on a free port; the report and the replies are
# delivered into it by public-inbox-mda, as the list would.  The httpd reads
# its search index as it was when it opened it (it sees new mail some
# seconds later), so mail is delivered while it is stopped.
export HOME=$T/pihome PI_CONFIG=$T/pi-config
mkdir -p "$HOME"
LIST=lkp@lists.example.org
HPORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
HPID=
pi_start() {
	public-inbox-httpd -l "http://127.0.0.1:$HPORT" >>"$T/httpd.log" 2>&1 &
	HPID=$!
	for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$HPORT/test/new.atom" && break; sleep 0.1; done
}
pi_stop() {
	kill $HPID 2>/dev/null
	wait $HPID 2>/dev/null
	HPID=
}
trap '[ -n "$HPID" ] && pi_stop; rm -rf "$T"' EXIT
public-inbox-init -V2 test "$T/pi" http://127.0.0.1:1/test "$LIST" >"$T/pi.err" 2>&1 || not_ok "public-inbox-init" "$(cat "$T/pi.err")"
git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
# the report as the list got it: addressed to the list too (mda checks),
# with the list's Received: (public-inbox's received time, what rt: searches)
{ printf 'Received: by lists.example.org; %s\n' "$(date -R)"; sed "0,/^To: /s//To: $LIST, /" "$sent"; } |
	ORIGINAL_RECIPIENT=$LIST public-inbox-mda
# pimail FROM MSGID EXTRA BODY: a reply to the report posted to the list
pimail() {
	{
		printf 'Received: by lists.example.org; %s\nDate: %s\n' "$(date -R)" "$(date -R)"
		printf 'From: %s\nTo: %s\nCc: lkp@example.org\nSubject: Re: the report\n' "$1" "$LIST"
		printf 'Message-ID: <%s>\nIn-Reply-To: <%s>\nReferences: <%s>\n' "$2" "$REPORT" "$REPORT"
		[ -n "$3" ] && printf '%s\n' "$3"
		printf '\n%s\n' "$4"
	} | ORIGINAL_RECIPIENT=$LIST public-inbox-mda
	[ -n "$(ls "$HOME/.public-inbox/emergency/new" 2>/dev/null)" ] && not_ok "public-inbox-mda took <$2>" "$(ls "$HOME/.public-inbox/emergency/new")"
}
# vger marks what it distributes Precedence: bulk; a From_ line in the body
# (mboxrd-quoted in the download) before the command
pimail 'Big Boss <boss@example.org>' p1@example.org 'Precedence: bulk' "$(printf 'From the list:\n#robotmail invalid')"
pimail 'Rev Iewer <rev@example.org>' p2@example.org '' '#robotmail frobnicate'
pi_start
sed -e "s|source: maildir:.*|source: public-inbox:http://127.0.0.1:$HPORT/test|" -e "s|rate_limit: 5|rate_limit: 100|" "$T/cfg.yaml" >"$T/pi.yaml"
"$ROBOTMAIL" listen -c "$T/pi.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^robotmail: listen: 3 read, 1 ignored, 0 refused, 1 command(s) applied, 1 answer(s) queued$' "$T/err" &&
	ok "listen reads the public-inbox list over HTTP: the report (Auto-Submitted) ignored, a command applied, one answered" ||
	not_ok "public-inbox listen" "rc=$rc" "$(cat "$T/err" "$T/pi.err")"
st=$(db "select state from findings")
[ "$st" = invalid ] && grep -q "<$REPORT>: ignored: an automatic mail" "$T/err" &&
	ok "the list's Precedence: bulk with its List-Id in listen.lists is no bulk mail: #robotmail invalid applied" ||
	not_ok "pi invalid" "$st" "$(cat "$T/err")"
[ "$(db "select count(*) from messages where dedupe_key = 'answer:p2@example.org'")" = 1 ] &&
	ok "the command not understood on the list is answered in the thread" || not_ok "pi answer" "$(db "select dedupe_key from messages")"
"$ROBOTMAIL" listen -c "$T/pi.yaml" >"$T/out" 2>"$T/err"
grep -q '^robotmail: listen: 0 read, 0 ignored,' "$T/err" && ok "public-inbox: a second pass reads nothing twice (Message-IDs in the store)" || not_ok "pi second" "$(cat "$T/err")"
pi_stop
pimail 'Big Boss <boss@example.org>' p3@example.org '' '#robotmail undo'
pi_start
"$ROBOTMAIL" listen -c "$T/pi.yaml" >"$T/out" 2>"$T/err"
grep -q '^robotmail: listen: 1 read, 0 ignored, 0 refused, 1 command(s) applied' "$T/err" && [ "$(db "select state from findings")" = dup ] &&
	ok "public-inbox: only the new mail is read on the next pass (undo: dup again)" || not_ok "pi third" "$(cat "$T/err")" "$(db "select state from findings")"
# a mail over robotmail's cap of one mail (4 MiB), taken into the inbox by
# public-inbox's own writer (its mda refuses mail over 500 KiB): skipped
# unparsed (its command is not applied), warned about once with its size,
# remembered; the mail after it is read and applied
pi_stop
{
	printf 'Received: by lists.example.org; %s\nDate: %s\n' "$(date -R)" "$(date -R)"
	printf 'From: Big Boss <boss@example.org>\nTo: %s\nSubject: Re: the report\n' "$LIST"
	printf 'Message-ID: <big@example.org>\nIn-Reply-To: <%s>\nReferences: <%s>\n\n' "$REPORT" "$REPORT"
	printf '#robotmail fixed: 0123456789ab\n\n'
	"$PY" -c 'import sys; sys.stdout.write(("x" * 76 + "\n") * 70000)'
} >"$T/big.eml"
BIGSIZE=$(wc -c <"$T/big.eml")
perl -MPublicInbox::Config -MPublicInbox::InboxWritable -MPublicInbox::Eml -e '
	my $ibx = PublicInbox::Config->new->lookup_name("test") or die "no inbox test\n";
	$ibx = PublicInbox::InboxWritable->new($ibx);
	my $im = $ibx->importer(0);
	$im->add(PublicInbox::Eml->new(do { local $/; my $s = <STDIN>; \$s })) or die "not added\n";
	$im->done;' <"$T/big.eml" >"$T/pi-big.err" 2>&1 || not_ok "public-inbox import of a large mail" "$(cat "$T/pi-big.err")"
pimail 'Big Boss <boss@example.org>' p4@example.org '' '#robotmail invalid'
pi_start
"$ROBOTMAIL" listen -c "$T/pi.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^robotmail: listen: 1 read, 0 ignored, 0 refused, 1 command(s) applied, 0 answer(s) queued, 1 skipped (over the 4 MiB cap of one mail)$' "$T/err" &&
	grep -q "^robotmail: listen: warning: 'public-inbox:http://127.0.0.1:$HPORT/test': <big@example.org> (the download's mail at byte [0-9]*): skipped: [0-9]* bytes, over the 4 MiB cap of one mail (not parsed)$" "$T/err" &&
	[ "$(db "select state from findings")" = invalid ] && [ "$(db "select count(*) from finding_events where message_id = 'big@example.org'")" = 0 ] &&
	[ "$(db "select verdict from inbound where id = 'big@example.org'")" = "$(sed -n "s/.*<big@example.org> ([^)]*): //p" "$T/err")" ] &&
	ok "public-inbox: a mail over the 4 MiB cap ($BIGSIZE bytes) is skipped unparsed with a warning and remembered; the mail after it is applied" ||
	not_ok "pi over the cap" "rc=$rc" "$(cat "$T/err")" "$(db "select state from findings")" "$(db "select id, verdict from inbound")"
"$ROBOTMAIL" listen -c "$T/pi.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^robotmail: listen: 0 read, 0 ignored, 0 refused, 0 command(s) applied, 0 answer(s) queued$' "$T/err" && ! grep -q warning "$T/err" &&
	ok "public-inbox: the next pass neither reads nor warns about the mail over the cap again" || not_ok "pi over the cap, again" "rc=$rc" "$(cat "$T/err")"
sed -e "s|/test|/nosuch|" "$T/pi.yaml" >"$T/pi-bad.yaml"
"$ROBOTMAIL" listen -c "$T/pi-bad.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'HTTP 404' "$T/err" && ok "public-inbox: an inbox that is not there is a configuration error (exit 2)" || not_ok "pi 404" "rc=$rc" "$(cat "$T/err")"
pi_stop
"$ROBOTMAIL" listen -c "$T/pi.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 75 ] && ok "public-inbox: the server down is temporary (exit 75)" || not_ok "pi down" "rc=$rc" "$(cat "$T/err")"

# ---- "no longer seen since <sha>": a fresh store (SQLite whatever the
# suite's store: the operations are checked on both by the unit tests); a
# regression reported (the example's commits swapped: 8f75 tested on e5e1),
# then a later test whose parent is the reported commit 8f75 and whose
# commit 84e3 shows the metric back at the parent's level
G=$T/gone
mkdir -p "$G/in"
sed -e "s|state_db: .*|state_db: $G/state.db|" -e "s|inbox: .*|inbox: $G/in|" -e "s|done: .*|done: $G/done|" \
	-e "s|failed: .*|failed: $G/failed|" -e "s|transport: maildir:.*|transport: maildir:$G/sent|" "$T/cfg.yaml" >"$G/cfg.yaml"
# remix OUT HEAD BASE ROOT=SRC...: the example archive with its result roots
# renamed (ROOT takes SRC's runs; two roots may take the same SRC's) and
# job.yaml's head_commit/base_commit set
cat >"$G/remix.py" <<'PYEOF'
import io, lzma, sys, tarfile
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/mlockmany.tar.xz', 'rb').read())))
out, head, base = sys.argv[1:4]
roots = dict(a.split('=') for a in sys.argv[4:])
with tarfile.open(out, 'w') as t:
    for m in src.getmembers():
        if not m.isfile():
            continue
        for new, old in roots.items():
            data, name = src.extractfile(m).read(), m.name
            if '/' + old + '/' not in name:
                continue
            name = name.replace(old, new)
            data = data.replace(old.encode(), new.encode())
            if name.endswith('job.yaml'):
                data = b'\n'.join(b'head_commit: ' + head.encode() if l.startswith(b'head_commit:') else
                                  b'base_commit: ' + base.encode() if l.startswith(b'base_commit:') else l
                                  for l in data.split(b'\n'))
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
PYEOF
A=8f756b95ffe4a7bb2037d8856596585c3235a6f3 B=e5e1a8d3a28c98ac2743ad22197185fd9c4fc440 C=84e39935160611a9a2d5791c335339ee6c6ce0c3
# the report: e5e1 the parent (the higher ops_per_sec), 8f75 the commit
"$PY" "$G/remix.py" "$G/in/report.tar" $A $B $A=$A $B=$B
"$ROBOTMAIL" run -c "$G/cfg.yaml" >"$G/out" 2>"$G/err"
GREPORT=$(sqlite3 "$G/state.db" "select message_id from messages where dedupe_key like 'linus:%'")
grep -q 'regression' <<<"$(sqlite3 "$G/state.db" "select subject from messages")" && [ -n "$GREPORT" ] &&
	ok "a regression reported (8f75 on its parent e5e1)" || not_ok "gone report" "$(cat "$G/err")"
# the fix: 84e3 on the reported 8f75, with the parent's (e5e1's) runs
"$PY" "$G/remix.py" "$G/fix.tar" $C $A $A=$A $C=$B
cp "$G/fix.tar" "$G/in/fix.tar"
"$ROBOTMAIL" --dry-run -c "$G/cfg.yaml" "$G/in/fix.tar" >"$G/dry" 2>&1
grep -qx "# robotmail dry-run: would reply to <$GREPORT>: no longer seen since 84e39935160611a9a2d5791c335339ee6c6ce0c3" "$G/dry" &&
	[ "$(sqlite3 "$G/state.db" "select count(*) from findings")" = 0 ] &&
	ok "--dry-run shows the 'no longer seen since <sha>' reply (and changes nothing)" || not_ok "gone dry-run" "$GREPORT" "$(grep -v '^[A-Z ]' "$G/dry" | head -20)"
"$ROBOTMAIL" run -c "$G/cfg.yaml" >"$G/out" 2>"$G/err"
rc=$?
st=$(sqlite3 "$G/state.db" "select state || ' ' || arg from findings where key like '%|$A|%'")
ev=$(sqlite3 "$G/state.db" "select command || '|' || by_addr from finding_events")
[ $rc -eq 0 ] && [ "$st" = "fixed 84e39935160611a9a2d5791c335339ee6c6ce0c3" ] &&
	[ "$ev" = "no longer seen since 84e39935160611a9a2d5791c335339ee6c6ce0c3|lkp@example.org" ] &&
	grep -q "<$GREPORT>: no longer seen since 84e39935160611a9a2d5791c335339ee6c6ce0c3: reply queued" "$G/err" &&
	ok "run: the finding no longer seen is marked fixed by the commit" || not_ok "gone run" "rc=$rc st=$st ev=$ev" "$(cat "$G/err")"
gone=$(find "$G/sent" -type f -exec grep -l "^In-Reply-To: <$GREPORT>" {} + | head -1)
[ -n "$gone" ] && grep -q "^References: <$GREPORT>" "$gone" && grep -qx 'To: ann@example.org' "$gone" &&
	grep -q '^Subject: Re: \[linus:master\]' "$gone" && grep -q '^commit 84e39935160611a9a2d5791c335339ee6c6ce0c3, tested with the reported commit as its parent:$' "$gone" &&
	ok "the reply is delivered in the thread to the report's recipients" || not_ok "gone mail" "$(cat "$gone" 2>/dev/null)" "$(ls "$G/sent"/*)"
cp "$G/fix.tar" "$G/in/fix-again.tar"
"$ROBOTMAIL" run -c "$G/cfg.yaml" >"$G/out" 2>"$G/err"
[ "$(sqlite3 "$G/state.db" "select count(*) from messages where dedupe_key like 'gone:%'")" = 1 ] && ! grep -q 'no longer seen' "$G/err" &&
	ok "the same later test again: no second reply" || not_ok "gone once" "$(cat "$G/err")"

# ---- "no longer seen" by a named fix and by git ancestry (the test
# repository's history: 84e3 -> 8f75 -> e5e1 -> 3d47 "iommu: fix the
# thing" -> 73b3 -> ... -> b5ac -> 8807); the report as above, 8f75 on e5e1
F=3d47c79463956a7bbf8cfa997664e7dcd7acf8f1 D=8807b68269657a8e419152e36c54046ec75247d3 E=b5ac70b750f93ba32446145be56472cf6e5c1e8c
# gone_store DIR: a fresh store and inbox for the report; sets GR to its Message-ID
gone_store() {
	mkdir -p "$1/in" "$1/replies/new" "$1/replies/cur" "$1/replies/tmp"
	sed -e "s|$G/|$1/|g" -e "s|source: maildir:.*|source: maildir:$1/replies|" "$G/cfg.yaml" >"$1/cfg.yaml"
	"$PY" "$G/remix.py" "$1/in/report.tar" $A $B $A=$A $B=$B
	"$ROBOTMAIL" run -c "$1/cfg.yaml" >"$1/out" 2>"$1/err"
	GR=$(sqlite3 "$1/state.db" "select message_id from messages where dedupe_key like 'linus:%'")
}
G2=$T/gone-fix
gone_store "$G2"
printf 'From: Ann Author <ann@example.org>\nTo: lkp@example.org\nSubject: Re: the report\nMessage-ID: <fix1@example.org>\nIn-Reply-To: <%s>\nReferences: <%s>\n\n#robotmail fixed: 3d47c794\n' \
	"$GR" "$GR" >"$G2/replies/new/1700000001.M1P1.test"
"$ROBOTMAIL" listen -c "$G2/cfg.yaml" >"$G2/out" 2>"$G2/err"
st=$(sqlite3 "$G2/state.db" "select state || ' ' || arg from findings")
[ -n "$GR" ] && [ "$st" = "fixed 3d47c794" ] && ok "named fix: the report's finding is marked fixed by 3d47c794" || not_ok "named fix" "st=$st" "$(cat "$G2/err")"
# e5e1 (before the fix; its parent in the archive is the reported commit)
# shows the metric back: it does not contain the fix, so no claim
"$PY" "$G/remix.py" "$G2/in/before.tar" $B $A $B=$B $A=$A
"$ROBOTMAIL" run -c "$G2/cfg.yaml" >"$G2/out" 2>"$G2/err"
[ "$(sqlite3 "$G2/state.db" "select count(*) from messages where dedupe_key like 'gone:%'")" = 0 ] && ! grep -q 'no longer seen' "$G2/err" &&
	ok "named fix: back to normal on a commit without the fix (even the reported commit's child): no reply" || not_ok "named fix before" "$(cat "$G2/err")"
# 8807 (a descendant of the fix, on b5ac) back to normal
"$PY" "$G/remix.py" "$G2/later.tar" $D $E $D=$B $E=$B
cp "$G2/later.tar" "$G2/in/later.tar"
"$ROBOTMAIL" --dry-run -c "$G2/cfg.yaml" "$G2/in/later.tar" >"$G2/dry" 2>&1
grep -qx "# robotmail dry-run: would reply to <$GR>: no longer seen since $D (it contains the fix 3d47c794)" "$G2/dry" &&
	grep -qx "commit $D, which contains the fix 3d47c794 named in this thread:" "$G2/dry" &&
	ok "named fix: --dry-run shows the reply for a commit that contains the fix (git ancestry)" || not_ok "named fix dry-run" "$(grep -v '^[A-Z ]' "$G2/dry" | head -20)"
"$ROBOTMAIL" run -c "$G2/cfg.yaml" >"$G2/out" 2>"$G2/err"
rc=$?
st=$(sqlite3 "$G2/state.db" "select state || ' ' || arg from findings")
ev=$(sqlite3 "$G2/state.db" "select command from finding_events order by id desc limit 1")
gone=$(find "$G2/sent" -type f -exec grep -l "^In-Reply-To: <$GR>" {} + | head -1)
[ $rc -eq 0 ] && [ "$st" = "fixed 3d47c794" ] && [ "$ev" = "no longer seen since $D (it contains the fix 3d47c794)" ] &&
	[ -n "$gone" ] && grep -q '^The finding stays marked fixed by 3d47c794\.' "$gone" &&
	ok "named fix: run replies once in the thread; the finding stays fixed by the named fix" || not_ok "named fix run" "rc=$rc st=$st ev=$ev" "$(cat "$G2/err")"

# an open finding: a descendant of the reported commit back to normal
G3=$T/gone-anc
gone_store "$G3"
# 84e3 (an ancestor of the reported commit: a bisection's) back to normal: no reply
"$PY" "$G/remix.py" "$G3/in/old.tar" 84e39935160611a9a2d5791c335339ee6c6ce0c3 $F 84e39935160611a9a2d5791c335339ee6c6ce0c3=$B $F=$B
"$ROBOTMAIL" run -c "$G3/cfg.yaml" >"$G3/out" 2>"$G3/err"
[ -n "$GR" ] && [ "$(sqlite3 "$G3/state.db" "select count(*) from messages where dedupe_key like 'gone:%'")" = 0 ] && ! grep -q 'no longer seen' "$G3/err" &&
	ok "ancestry: an older commit (a bisection's) back to normal: no reply" || not_ok "ancestry old" "$(cat "$G3/err")"
"$PY" "$G/remix.py" "$G3/in/later.tar" $D $E $D=$B $E=$B
# a provider that tells no ancestry: said, nothing claimed
sed -e 's|provider: local-git|provider: cgit|' -e "s|api: $T/repo|api: http://127.0.0.1:9/cgit/linux.git|" "$G3/cfg.yaml" >"$G3/cgit.yaml"
"$ROBOTMAIL" --dry-run -c "$G3/cgit.yaml" "$G3/in/later.tar" >"$G3/dry" 2>&1
grep -q "looks back to normal on $D, but whether that commit contains the reported commit $A cannot be known (tree linus's provider cgit tells no ancestry): no 'no longer seen' reply" "$G3/dry" &&
	! grep -q 'would reply' "$G3/dry" &&
	ok "ancestry unknown (cgit): said, and no reply claimed" || not_ok "ancestry unknown" "$(grep -v '^[A-Z ]' "$G3/dry" | head -20)"
# GitHub's compare (a forge.py serving the answers as fixtures): "diverged"
# is no claim, "ahead" is
mkdir -p "$G3/ff/repos/o/r/compare"
echo '{"status": "diverged"}' >"$G3/ff/repos/o/r/compare/$A...$D"
"$PY" tests/peers/forge.py --port 0 --fixtures "$G3/ff" --log "$G3/forge.log" >"$G3/forge.out" 2>&1 &
FPID=$!
for _ in $(seq 100); do grep -q listening "$G3/forge.out" && break; sleep 0.1; done
sed -e 's|provider: local-git|provider: github|' -e "s|api: $T/repo|api: http://127.0.0.1:$(awk '/listening/ {print $2}' "$G3/forge.out")/repos/o/r|" "$G3/cfg.yaml" >"$G3/github.yaml"
"$ROBOTMAIL" --dry-run -c "$G3/github.yaml" "$G3/in/later.tar" >"$G3/dry" 2>&1
! grep -q 'would reply\|cannot be known' "$G3/dry" && grep -q "GET /repos/o/r/compare/$A...$D" "$G3/forge.log" &&
	ok "ancestry by GitHub's compare: 'diverged' is no descendant, no reply" || not_ok "github diverged" "$(grep -v '^[A-Z ]' "$G3/dry" | head -20)"
echo '{"status": "ahead", "ahead_by": 7}' >"$G3/ff/repos/o/r/compare/$A...$D"
"$ROBOTMAIL" --dry-run -c "$G3/github.yaml" "$G3/in/later.tar" >"$G3/dry" 2>&1
grep -qx "# robotmail dry-run: would reply to <$GR>: no longer seen since $D" "$G3/dry" &&
	ok "ancestry by GitHub's compare: 'ahead' is a descendant, the reply" || not_ok "github ahead" "$(grep -v '^[A-Z ]' "$G3/dry" | head -20)"
# Gitea's compare (same server): asked the other way round, D...A lists the
# commits A has and D has not; some: no descendant, none: a descendant; a
# Gitea that cannot compare commits (1.22: 404) tells nothing
sed -e 's|provider: github|provider: gitea|' -e 's|/repos/o/r|/repos/o/g|' "$G3/github.yaml" >"$G3/gitea.yaml"
mkdir -p "$G3/ff/repos/o/g/compare"
echo '{"commits": [{"sha": "'$A'"}], "total_commits": 1}' >"$G3/ff/repos/o/g/compare/$D...$A"
"$ROBOTMAIL" --dry-run -c "$G3/gitea.yaml" "$G3/in/later.tar" >"$G3/dry" 2>&1
! grep -q 'would reply\|cannot be known' "$G3/dry" && grep -q "GET /repos/o/g/compare/$D...$A" "$G3/forge.log" &&
	ok "ancestry by Gitea's compare: commits of the reported one missing, no descendant, no reply" || not_ok "gitea missing" "$(grep -v '^[A-Z ]' "$G3/dry" | head -20)"
echo '{"commits": [], "total_commits": 0}' >"$G3/ff/repos/o/g/compare/$D...$A"
"$ROBOTMAIL" --dry-run -c "$G3/gitea.yaml" "$G3/in/later.tar" >"$G3/dry" 2>&1
grep -qx "# robotmail dry-run: would reply to <$GR>: no longer seen since $D" "$G3/dry" &&
	ok "ancestry by Gitea's compare: none missing is a descendant, the reply" || not_ok "gitea none missing" "$(grep -v '^[A-Z ]' "$G3/dry" | head -20)"
rm "$G3/ff/repos/o/g/compare/$D...$A"
"$ROBOTMAIL" --dry-run -c "$G3/gitea.yaml" "$G3/in/later.tar" >"$G3/dry" 2>&1
grep -q "looks back to normal on $D, but whether that commit contains the reported commit $A cannot be known (.*HTTP 404.*): no 'no longer seen' reply" "$G3/dry" &&
	! grep -q 'would reply' "$G3/dry" &&
	ok "ancestry by Gitea's compare: a 404 (Gitea 1.22 compares no commits) is said, nothing claimed" || not_ok "gitea 404" "$(grep -v '^[A-Z ]' "$G3/dry" | head -20)"
kill "$FPID" 2>/dev/null
wait "$FPID" 2>/dev/null
"$ROBOTMAIL" --dry-run -c "$G3/cfg.yaml" "$G3/in/later.tar" >"$G3/dry" 2>&1
grep -qx "# robotmail dry-run: would reply to <$GR>: no longer seen since $D" "$G3/dry" &&
	grep -qx "commit $D, which contains the reported commit (git ancestry):" "$G3/dry" &&
	ok "ancestry: --dry-run shows the reply for a descendant of the reported commit" || not_ok "ancestry dry-run" "$(grep -v '^[A-Z ]' "$G3/dry" | head -20)"
"$ROBOTMAIL" run -c "$G3/cfg.yaml" >"$G3/out" 2>"$G3/err"
rc=$?
st=$(sqlite3 "$G3/state.db" "select state || ' ' || arg from findings")
[ $rc -eq 0 ] && [ "$st" = "fixed $D" ] && grep -q "<$GR>: no longer seen since $D: reply queued" "$G3/err" &&
	ok "ancestry: run replies and marks the finding fixed by the descendant" || not_ok "ancestry run" "rc=$rc st=$st" "$(cat "$G3/err")"

# a later head still showing the regression without a report of its own
# (8807 on b5ac, both with the reported commit's runs: no change, no report)
# is added to the finding's plot as seen; a dry run keeps nothing
G4=$T/seen-again
gone_store "$G4"
"$PY" "$G/remix.py" "$G4/in/again.tar" $D $E $D=$A $E=$A
"$ROBOTMAIL" --dry-run -c "$G4/cfg.yaml" "$G4/in/again.tar" >"$G4/dry" 2>&1
dry=$(sqlite3 "$G4/state.db" "select count(*) from finding_points where role = 'seen'")
"$ROBOTMAIL" run -c "$G4/cfg.yaml" >"$G4/out" 2>"$G4/err"
rc=$?
seen=$(sqlite3 "$G4/state.db" "select commit_sha || ' ' || label from finding_points where role = 'seen'")
[ -n "$GR" ] && [ $rc -eq 0 ] && [ "$dry" = 0 ] && [ "$seen" = "$D linus/master" ] &&
	[ "$(sqlite3 "$G4/state.db" "select count(*) from messages")" = 1 ] && ! grep -q 'no longer seen' "$G4/err" &&
	ok "a later head still regressed without its own report: kept on the finding's plot as seen (not by a dry run)" || not_ok "seen again" "rc=$rc dry=$dry seen=$seen" "$(cat "$G4/err")"
