#!/usr/bin/env bash
# report: robotmail --dry-run, from fixture archives to the exact messages:
# the worked example byte for byte, both seed reports in the real layout,
# held reports, template errors, hostile commit subjects, and a dry run that
# changes nothing.  Commit facts come from a forge on 127.0.0.1.
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
FPID=
cleanup() { [ -n "$FPID" ] && kill "$FPID" 2>/dev/null && wait "$FPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
SPEC=${SPEC:-../shared/spec}
[ -d "$SPEC" ] || SPEC=/work/shared/spec

"$PY" tests/gen-fixtures.py "$T/fx" >/dev/null 2>&1 || { not_ok "fixtures"; exit 0; }
tests/peers/make-seed-fixtures.sh "$T/ff"
# a hostile commit: CR/LF, control characters and 2,000 characters in its subject
HOSTILE_SHA=$(sed -n 7p tests/golden/mincore.table | tr -d ' ')
"$PY" - "$T/ff/repos/seed/linux/commits/$HOSTILE_SHA" <<'PYEOF'
import json, sys
subj = "mm: evil\r\nBcc: victim@example.org\x1b[31m " + "x" * 2000 + "\x00tail"
who = {"name": "Evil\r\nBcc: a@b.c \u00e9\u00e8", "email": "evil@example.org", "date": "2025-10-01T00:00:00Z"}
rec = {"sha": sys.argv[1].rsplit('/', 1)[1], "commit": {"message": subj + "\n\nbody\n", "author": who, "committer": who},
       "parents": [], "files": []}
open(sys.argv[1] + "-hostile", "w").write(json.dumps(rec))
PYEOF
"$PY" tests/peers/forge.py --port 0 --fixtures "$T/ff" --log "$T/forge.log" >"$T/forge.out" 2>&1 &
FPID=$!
for _ in $(seq 50); do grep -q listening "$T/forge.out" && break; sleep 0.1; done
F=http://127.0.0.1:$(awk '/listening/ {print $2}' "$T/forge.out")
cfg() { # FILE API STATE_DB
	printf 'include: %s\npaths:\n  state_db: %s\ntrees:\n  - name: linus\n    branch: master\n    url: https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git\n    provider: github\n    api: %s\n' "$PROFILE_0DAY" "$3" "$2" >"$1"
}
cfg "$T/cfg.yaml" "$F/repos/seed/linux" "$T/state.db"

# ---- the worked example, byte for byte
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" --now 1765347349 "$T/fx/worked-next" >"$T/worked.out" 2>"$T/worked.err"
[ $? -eq 0 ] && ok "dry-run of the worked example exits 0" || not_ok "dry-run of the worked example exits 0" "$(cat "$T/worked.err")"
"$PY" tests/report-check.py worked "$T/worked.out" "$SPEC/report-format.md" | sed 's/^ok - /ok - worked example: /; s/^not ok - /not ok - worked example: /'
grep -q '^Date: Wed, 10 Dec 2025 14:15:49 +0800$' "$T/worked.out" &&
	ok "Date header in the robot's zone (+0800) at --now" || not_ok "Date header" "$(grep ^Date "$T/worked.out")"

# ---- the seed reports
for s in mlockmany mincore; do
	"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/fx/$s" >"$T/$s.out" 2>"$T/$s.err"
	"$PY" tests/report-check.py seed "$T/$s.out" "$SPEC/seed-reports/stress-ng-$s-improvement.txt" |
		sed "s/^ok - /ok - $s: /; s/^not ok - /not ok - $s: /"
done
grep -q '^If you fix the issue' "$T/mincore.out" && not_ok "improvements carry no tags block" || ok "improvements carry no tags block"
grep -q '^Disclaimer:$' "$T/mincore.out" && ok "performance reports end with the Disclaimer" || not_ok "Disclaimer present"

# envelope: the author, the lists, the robot itself
for r in shakeel.butt@linux.dev oe-lkp@lists.linux.dev lkp@intel.com oliver.sang@intel.com; do
	grep -qx "RCPT TO:<$r>" "$T/worked.out" || miss="$miss $r"
done
[ -z "$miss" ] && ok "envelope: author, robot lists and the robot" || not_ok "envelope recipients" "missing:$miss"
grep -qx 'MAIL FROM:<oliver.sang@intel.com>' "$T/worked.out" && ok "envelope: MAIL FROM is the robot" || not_ok "MAIL FROM"

# ---- a dry run changes nothing
snap() { find "$T/fx" "$T" -maxdepth 1 -newer "$T/stamp" ! -name forge.log ! -name stamp ! -path "$T" 2>/dev/null | sort; }
touch "$T/stamp"
sleep 1
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/fx/worked" >/dev/null 2>&1
changed=$(snap; find "$T/fx" -newer "$T/stamp" | head -5)
[ ! -e "$T/state.db" ] && [ -z "$changed" ] && ok "dry-run creates no state database and writes nothing" ||
	not_ok "dry-run writes nothing" "$changed"
mkdir -p "$T/eml"
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" -o "$T/eml" "$T/fx/mincore" >"$T/o.out" 2>&1
n=$(ls "$T/eml" | grep -c '\.eml$')
[ "$n" = 1 ] && [ ! -s "$T/o.out" ] && grep -q '^Subject: \[linus:master\]' "$T/eml"/*.eml &&
	ok "-o DIR writes one .eml file per report instead of printing" || not_ok "-o DIR" "n=$n" "$(cat "$T/o.out")"
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" --to tester@example.org "$T/fx/mincore" >"$T/to.out" 2>&1
[ "$(grep -c '^RCPT TO:' "$T/to.out")" = 1 ] && grep -qx 'RCPT TO:<tester@example.org>' "$T/to.out" &&
	ok "--to diverts every recipient" || not_ok "--to" "$(grep RCPT "$T/to.out")"

# ---- held: required data missing
cfg "$T/cfg-down.yaml" "http://127.0.0.1:9/repos/seed/linux" "$T/state2.db"
sed -i 's/^paths:/gitweb:\n  retries: 0\n  connect_timeout: 1\n  timeout: 2\npaths:/' "$T/cfg-down.yaml"
"$ROBOTMAIL" --dry-run -c "$T/cfg-down.yaml" "$T/fx/mincore" >"$T/held.out" 2>&1
rc=$?
[ $rc -eq 75 ] && grep -q "HELD: the tested commit's subject is unknown" "$T/held.out" && ! grep -q '^DATA' "$T/held.out" &&
	ok "a report without commit subjects is held, not printed as sendable; exit 75 as run would" || not_ok "held without subjects" "rc=$rc" "$(cat "$T/held.out")"
printf 'include: %s\nunknown_branch: hold\ntrees:\n  - name: tip\n    branch: master\n    url: https://example.org/tip.git\n' "$PROFILE_0DAY" >"$T/cfg-notree.yaml"
"$ROBOTMAIL" --dry-run -c "$T/cfg-notree.yaml" "$T/fx/mincore" >"$T/held2.out" 2>&1
grep -q "HELD: no tree in the configuration names the job's branch 'linus/master' (unknown_branch: hold)" "$T/held2.out" &&
	ok "unknown_branch: hold: a report for an unconfigured tree is held, naming the branch" || not_ok "held without tree" "$(cat "$T/held2.out")"
# the default (skip): no report, one warning naming the branch, exit 0
sed '/^unknown_branch:/d' "$T/cfg-notree.yaml" >"$T/cfg-skip.yaml"
"$ROBOTMAIL" --dry-run -c "$T/cfg-skip.yaml" "$T/fx/mincore" "$T/fx/mincore" >"$T/skip.out" 2>"$T/skip.err"
rc=$?
[ $rc -eq 0 ] && grep -q "SKIPPED: no tree in the configuration names the job's branch 'linus/master' (unknown_branch: skip)" "$T/skip.out" &&
	[ "$(grep -c "warning: no report: .*'linus/master'" "$T/skip.err")" = 1 ] && ! grep -q '^DATA' "$T/skip.out" &&
	ok "unknown_branch: skip (default): no report, one warning per branch naming it, exit 0" ||
	not_ok "unknown_branch skip" "rc=$rc" "$(cat "$T/skip.out" "$T/skip.err")"
sed 's/^unknown_branch: hold/unknown_branch: fail/' "$T/cfg-notree.yaml" >"$T/cfg-fail.yaml"
"$ROBOTMAIL" --dry-run -c "$T/cfg-fail.yaml" "$T/fx/mincore" >"$T/fail.out" 2>"$T/fail.err"
rc=$?
[ $rc -eq 1 ] && grep -q "REFUSED: no tree in the configuration names the job's branch 'linus/master' (unknown_branch: fail)" "$T/fail.out" &&
	ok "unknown_branch: fail: the report is refused naming the branch, exit 1" || not_ok "unknown_branch fail" "rc=$rc" "$(cat "$T/fail.out" "$T/fail.err")"

# ---- template errors name the file and line, and nothing is printed
mkdir -p "$T/tpl"
cp templates/*.txt "$T/tpl/"
sed -i 's/{{testcase}}/{{testcaes}}/' "$T/tpl/perf.txt"
ROBOTMAIL_TEMPLATES="$T/tpl" "$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/fx/mincore" >"$T/tpl.out" 2>"$T/tpl.err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$T/tpl.out" ] && grep -q "template '.*perf.txt' line [0-9]*: unknown variable 'testcaes'" "$T/tpl.err" &&
	ok "an unknown template variable fails the run (exit 2), naming file and line, printing nothing" ||
	not_ok "unknown template variable" "rc=$rc" "$(cat "$T/tpl.err" "$T/tpl.out" | head -5)"
cp templates/*.txt "$T/tpl/"
printf '{{#params}}\nno close\n' >"$T/tpl/perf.txt"
ROBOTMAIL_TEMPLATES="$T/tpl" "$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/fx/mincore" >"$T/tpl.out" 2>"$T/tpl.err"
[ $? -eq 2 ] && grep -q "line 1: section 'params' is not closed" "$T/tpl.err" && ok "an unclosed section is a template error" ||
	not_ok "unclosed section" "$(cat "$T/tpl.err")"
cp templates/*.txt "$T/tpl/"
printf '{{> nonexistent.txt}}\n' >"$T/tpl/perf.txt"
ROBOTMAIL_TEMPLATES="$T/tpl" "$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/fx/mincore" >"$T/tpl.out" 2>"$T/tpl.err"
[ $? -eq 2 ] && grep -q "nonexistent.txt" "$T/tpl.err" && ok "a missing partial is a template error" || not_ok "missing partial" "$(cat "$T/tpl.err")"
printf '{{> perf.txt}}\n' >"$T/tpl/perf.txt"
ROBOTMAIL_TEMPLATES="$T/tpl" "$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/fx/mincore" >"$T/tpl.out" 2>"$T/tpl.err"
[ $? -eq 2 ] && grep -q "nested deeper" "$T/tpl.err" && ok "a partial including itself is stopped" || not_ok "partial loop" "$(cat "$T/tpl.err")"

# ---- a hostile commit subject and author never break the layout
mv "$T/ff/repos/seed/linux/commits/$HOSTILE_SHA-hostile" "$T/ff/repos/seed/linux/commits/$HOSTILE_SHA"
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/fx/mincore" >"$T/evil.out" 2>"$T/evil.err"
rc=$?
"$PY" - "$T/evil.out" <<'PYEOF'
import re, sys
t = open(sys.argv[1], 'rb').read()
def out(ok, name, d=''):
    print(('ok - ' if ok else 'not ok - ') + name + (('\n    ' + d) if (d and not ok) else ''))
msg = t.split(b'\nDATA\n', 1)[1] if b'\nDATA\n' in t else b''
hdr = msg.split(b'\n\n', 1)[0]
out(b'\r' not in t and b'\x00' not in t and b'\x1b' not in t, 'hostile subject: no CR, NUL or ESC reaches the output')
out(not re.search(rb'^Bcc:', hdr, re.M), 'hostile subject: no injected header')
out(all(len(l) <= 998 for l in msg.split(b'\n')), 'hostile subject: every line within 998 octets')
out(all(len(l) <= 78 for l in hdr.split(b'\n')), 'hostile subject: headers folded under 78 columns')
out(bool(re.search(rb'^To: =\?UTF-8\?Q\?Evil', hdr, re.M)), 'hostile author: display name RFC 2047 encoded', hdr.decode('latin-1')[:400])
body = msg.split(b'\n\n', 1)[1] if b'\n\n' in msg else b''
out(b'\nparameters:\n\n\tnr_threads: 100%\n' in body and b'Details are as below:' in body, 'hostile subject: the body layout is intact')
PYEOF
[ $rc -eq 0 ] && ok "hostile subject: dry-run exits 0" || not_ok "hostile subject exit" "rc=$rc" "$(head -3 "$T/evil.err")"
