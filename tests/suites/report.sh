#!/usr/bin/env bash
# report: robotmail --dry-run with hostile commit subjects and authors, and
# a dry run that changes nothing.  Commit facts come from a forge on
# 127.0.0.1.  The worked example and both seed reports byte for byte, -o and
# --to, held reports and template errors are data cases (tests/data/20xx,
# 22xx, run by tests/suites/data.sh).
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
FPID=
cleanup() { [ -n "$FPID" ] && kill "$FPID" 2>/dev/null && wait "$FPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT

"$PY" tests/gen-fixtures.py "$T/fx" >/dev/null 2>&1 || { not_ok "fixtures"; exit 0; }
tests/peers/make-seed-fixtures.sh "$T/ff"
# a hostile commit: CR/LF, control characters and 2,000 characters in its subject
HOSTILE_SHA=$(sed -n 7p tests/data/golden/mincore.table | tr -d ' ')
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

# ---- a dry run changes nothing
snap() { find "$T/fx" "$T" -maxdepth 1 -newer "$T/stamp" ! -name forge.log ! -name stamp ! -path "$T" 2>/dev/null | sort; }
touch "$T/stamp"
sleep 1
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/fx/worked" >/dev/null 2>&1
changed=$(snap; find "$T/fx" -newer "$T/stamp" | head -5)
[ ! -e "$T/state.db" ] && [ -z "$changed" ] && ok "dry-run creates no state database and writes nothing" ||
	not_ok "dry-run writes nothing" "$changed"
# ---- a branch no tree names: unknown_branch skip (default) and fail (hold: data case 2012)
printf 'include: %s\nunknown_branch: hold\ntrees:\n  - name: tip\n    branch: master\n    url: https://example.org/tip.git\n' "$PROFILE_0DAY" >"$T/cfg-notree.yaml"
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
