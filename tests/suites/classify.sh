#!/usr/bin/env bash
# classify: every known kind of archive error is either bad input (the
# archive goes to failed/, the run exits 1, the error names the file, field
# or commit) or temporary (the archive stays in the inbox, exit 75), and
# nothing that no later run can fix is called temporary.  One `robotmail run`
# per case, on an inbox holding the one archive, against the JSON forge.
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
FPID=
cleanup() { [ -n "$FPID" ] && kill "$FPID" 2>/dev/null && wait "$FPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT

"$PY" tests/gen-fixtures.py "$T/fx" >/dev/null 2>&1 || { not_ok "fixtures"; exit 0; }
tests/peers/make-seed-fixtures.sh "$T/ff"
H=$(sed -n 7p tests/data/golden/mincore.table | tr -d ' ')
RECS=$T/ff/repos/seed/linux/commits
"$PY" tests/peers/forge.py --port 0 --fixtures "$T/ff" >"$T/forge.out" 2>&1 &
FPID=$!
for _ in $(seq 100); do grep -q listening "$T/forge.out" && break; sleep 0.1; done
F=http://127.0.0.1:$(awk '/listening/ {print $2}' "$T/forge.out")

# case NAME API: a fresh configuration, state and inbox; the archive is
# then put in $T/inbox/a (a directory) by the caller
case_setup() {
	rm -rf "$T/inbox" "$T/done" "$T/failed" "$T/state.db"*
	mkdir -p "$T/inbox"
	cat >"$T/cfg.yaml" <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/state.db
  inbox: $T/inbox
  done: $T/done
  failed: $T/failed
gitweb:
  connect_timeout: 2
  timeout: 5
  retries: 0
  max_wait: 1
$(linus_tree github "$1")
delivery:
  transport: mbox:$T/mbox
  settle: 0
CFG
	cp -r "$T/fx/mincore" "$T/inbox/a"
}
run() {
	"$ROBOTMAIL" run -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
	rc=$?
	grep -q 'AddressSanitizer\|LeakSanitizer\|runtime error' "$T/err" && rc="$rc (sanitizer report)"
}
# bad NAME PATTERN: exit 1, the archive in failed/, one error matching PATTERN
bad() {
	run
	if [ $rc -eq 1 ] && [ -e "$T/failed/a" ] && [ ! -e "$T/inbox/a" ] && grep -Eq "robotmail: error: .*$2" "$T/err"; then
		ok "$1: bad input (failed/, exit 1, named)"
	else
		not_ok "$1: bad input (failed/, exit 1, named)" "rc=$rc" "$(ls "$T/inbox" "$T/failed" 2>&1)" "$(cat "$T/err")"
	fi
}
# temporary NAME PATTERN: exit 75, the archive still in the inbox
temporary() {
	run
	if [ $rc -eq 75 ] && [ -e "$T/inbox/a" ] && [ ! -e "$T/failed/a" ] && grep -Eq "$2" "$T/err"; then
		ok "$1: temporary (stays in the inbox, exit 75)"
	else
		not_ok "$1: temporary (stays in the inbox, exit 75)" "rc=$rc" "$(ls "$T/inbox" "$T/failed" 2>&1)" "$(cat "$T/err")"
	fi
}
# record MESSAGE: the forge's record of the head commit with that message
record() {
	MSG=$1 SHA=$H "$PY" -c '
import json, os
who = {"name": "Ann Author", "email": "ann@example.org", "date": "2025-10-01T00:00:00Z"}
print(json.dumps({"sha": os.environ["SHA"], "commit": {"message": os.environ["MSG"].replace("NUL", "\0"),
                  "author": who, "committer": who}, "parents": [], "files": []}))' >"$RECS/$H"
}
cp "$RECS/$H" "$T/head.orig"

case_setup "$F/repos/seed/linux"
run
[ $rc -eq 0 ] && [ -e "$T/done/a" ] && ok "the valid archive is reported (done/, exit 0)" || not_ok "valid archive" "rc=$rc" "$(cat "$T/err")"

# ---- bad input
case_setup "$F/repos/seed/linux"
G=gggggggggggggggggggggggggggggggggggggggg
"$PY" - "$T/inbox/a" "$H" "$G" <<'PYEOF'
import os, sys
root, old, new = sys.argv[1:]
for d, dirs, files in os.walk(root, topdown=False):
    for f in files:
        p = os.path.join(d, f)
        b = open(p, "rb").read()
        open(p, "wb").write(b.replace(old.encode(), new.encode()))
    for x in dirs:
        if x == old:
            os.rename(os.path.join(d, x), os.path.join(d, new))
PYEOF
bad "commit: of 40 characters that are not hex" "job\\.yaml': commit '$G' is not a sha"

case_setup "$F/repos/seed/linux"
record "NULmm: a subject after a NUL byte

body"
bad "a commit subject that begins with NUL" "commit $H has no subject"
case_setup "$F/repos/seed/linux"
record ""
bad "a commit with an empty message" "commit $H has no subject"
cp "$T/head.orig" "$RECS/$H"

case_setup "$F/repos/seed/linux"
mv "$RECS/$H" "$T/head.moved"
bad "a commit the forge does not know (404)" "commit $H is unknown"
mv "$T/head.moved" "$RECS/$H"

case_setup "$F/repos/seed/linux"
for f in $(find "$T/inbox/a" -name job.yaml); do printf 'unused: %s%s\n' "$(head -c 100000 /dev/zero | tr '\0' '[')" "$(head -c 100000 /dev/zero | tr '\0' ']')" >>"$f"; done
bad "a job.yaml nested 100,000 deep" "job\\.yaml' line [0-9]+ column [0-9]+: nested deeper than 64 levels"

case_setup "$F/repos/seed/linux"
for f in $(find "$T/inbox/a" -name matrix.json); do
	"$PY" -c 'import sys; p = sys.argv[1]; s = open(p).read().rstrip(); open(p, "w").write(s[:-1] + ", \"x\": " + "[" * 5000 + "]" * 5000 + "}")' "$f"
done
bad "a matrix.json nested 5,000 deep" "matrix\\.json' line [0-9]+ column [0-9]+: nested deeper than 64 levels"

case_setup "$F/repos/seed/linux"
for f in $(find "$T/inbox/a" -name job.yaml); do sed -i '/^testcase:/d' "$f"; done
bad "a job.yaml without testcase" "job\\.yaml': no 'testcase' field"

case_setup "$F/repos/seed/linux"
rm -rf "$T/inbox/a"
tar -C "$T/fx/mincore" -czf "$T/a.tar.gz" result
head -c $(($(stat -c %s "$T/a.tar.gz") / 2)) "$T/a.tar.gz" >"$T/inbox/a"
bad "a truncated tarball" "'$T/inbox/a'.*(truncated|corrupt)"

# an answer that never parses (a 200 application/json cut short): temporary
# twice, the third in a row is bad input (time passes: the next ask made due)
case_setup "$F/repos/seed/linux"
printf '{"sha": "%s", "commit": {"message": "cut' "$H" >"$RECS/$H"
temporary "a malformed forge answer, the first time" "malformed response: .*\\(1 of 3 before the commit fails"
sqlite3 "$T/state.db" "UPDATE commit_cache SET expires_at = 0"
temporary "a malformed forge answer, the second time" "\\(2 of 3 before the commit fails"
sqlite3 "$T/state.db" "UPDATE commit_cache SET expires_at = 0"
bad "a malformed forge answer, the third time in a row" "commit $H: the git web API of tree 'linus' gave an answer that does not parse 3 times in a row"
cp "$T/head.orig" "$RECS/$H"

# ---- not an archive error: a hostile author email is left out, the report made
case_setup "$F/repos/seed/linux"
"$PY" - "$RECS/$H" "$H" <<'PYEOF'
import json, sys
who = {"name": "Evil", "email": "author@example.org>\r\nBcc: <victim@example.org", "date": "2025-10-01T00:00:00Z"}
json.dump({"sha": sys.argv[2], "commit": {"message": "mm: a subject\n\nbody\n", "author": who, "committer": who},
           "parents": [], "files": []}, open(sys.argv[1], "w"))
PYEOF
run
if [ "$rc" = 0 ] && [ -e "$T/done/a" ] && grep -q "^Subject: " "$T/mbox" && ! grep -q victim "$T/mbox" &&
	grep -q "warning: '$T/inbox/a': recipient left out: .*(from the commit author's email) in commit $H: " "$T/err"; then
	ok "a hostile author email: the report is made without it (done/, exit 0), with a warning naming the field and commit"
else
	not_ok "a hostile author email: the report is made without it (done/, exit 0), with a warning naming the field and commit" \
		"rc=$rc" "$(cat "$T/err")" "$(grep -i '^\(to\|cc\):' "$T/mbox" 2>&1)"
fi
cp "$T/head.orig" "$RECS/$H"

# ---- temporary
case_setup "$F/500/repos/seed/linux"
temporary "the forge answers 500" "HTTP 500"
case_setup "$F/429/repos/seed/linux"
temporary "the forge is rate-limited (429)" "rate limited|429"
case_setup "http://127.0.0.1:9/repos/seed/linux"
temporary "the forge is unreachable" "connect"
