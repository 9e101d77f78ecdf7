#!/usr/bin/env bash
# store: what the state store records is what happened.  A message no server
# accepted (a sendmail: program that exits 1, an SMTP server that answers 554
# after DATA) is failed: logged as an error, counted as failed, never "sent",
# the run exits 1, and `queue retry ID` delivers it once the peer recovers.
# A dry run after a run changes nothing on disk: the state directory is
# byte-identical (no state.db-wal or -shm appears), also while another
# process holds the database open with data only in its -wal.
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
SINK=
cleanup() {
	[ -n "$SINK" ] && tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
cfg() { # TRANSPORT
	cat >"$T/cfg.yaml" <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/state/state.db
  inbox: $T/inbox
  done: $T/done
  failed: $T/failed
$(linus_tree local-git "$T/repo")
delivery:
  transport: $1
  settle: 0
  backoff: 1
  connect_timeout: 3
  timeout: 10
CFG
}
fresh() { rm -rf "$T/inbox" "$T/done" "$T/failed" "$T/state"; mkdir -p "$T/inbox" "$T/state"; cp contrib/examples/${1:-*}.tar.xz "$T/inbox/"; }
run() { "$ROBOTMAIL" run -c "$T/cfg.yaml" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
queue() { "$ROBOTMAIL" queue -c "$T/cfg.yaml" "$@" 2>&1; }
sendmail_exits() { printf '#!/bin/sh\ncat >>"%s/sendmail.in"\nexit %s\n' "$T" "$1" >"$T/sendmail"; chmod +x "$T/sendmail"; }

# ---- a sendmail: program that exits 1: failed, not sent, exit 1
sendmail_exits 1
cfg "sendmail:$T/sendmail -i -t"
fresh
run -v
queue list >"$T/q"
if [ $rc -eq 1 ] && [ "$(grep -c $'\tfailed\t1\t' "$T/q")" = 2 ] && ! grep -q 'robotmail: sent ' "$T/err" &&
	grep -q ' 0 sent, 0 to retry, 2 failed$' "$T/err"; then
	ok "sendmail exiting 1: both failed after one attempt, counted as failed (0 sent), run exits 1"
else
	not_ok "sendmail exit 1" "rc=$rc" "$(cat "$T/q" "$T/err")"
fi
[ "$(grep -c '^robotmail: error: .*: failed: no recipient was accepted via sendmail:.*exited 1' "$T/err")" = 2 ] &&
	ok "... each failed message is logged as an error with the program's exit status" || not_ok "failed log line" "$(cat "$T/err")"
fresh
run
[ $rc -eq 1 ] && [ "$(grep -c '^robotmail: error: ' "$T/err")" = 2 ] &&
	ok "... and a quiet run says so too (nothing failed goes unmentioned)" || not_ok "quiet failed" "rc=$rc" "$(cat "$T/err")"
queue show 1 >"$T/show"
[ "$(grep -c '^not-accepted: ' "$T/show")" = 4 ] && grep -q '^state: failed$' "$T/show" &&
	ok "queue show keeps every recipient of a failed message" || not_ok "queue show failed" "$(head -10 "$T/show")"
queue retry 1 >"$T/r"
rrc=$?
sendmail_exits 0
: >"$T/sendmail.in"
run
queue list >"$T/q"
if [ $rrc -eq 0 ] && [ $rc -eq 0 ] && grep -q $'^1\tsent\t2\t' "$T/q" && grep -q $'^2\tfailed\t1\t' "$T/q" &&
	[ "$(grep -c '^Message-ID:' "$T/sendmail.in")" = 1 ]; then
	ok "queue retry ID on a failed message: the next run delivers it and exits 0 (the other stays failed)"
else
	not_ok "retry failed" "retry rc=$rrc rc=$rc" "$(cat "$T/r" "$T/q" "$T/err")"
fi
queue retry 2 >/dev/null
run
[ $rc -eq 0 ] && [ "$(grep -c $'\tsent\t2\t' <(queue list))" = 2 ] && ok "... and the other one too" || not_ok "exit 0 after retries" "rc=$rc" "$(cat "$T/err")"

# ---- an SMTP server answering 554 after DATA: failed, exit 1; retry after it recovers
SINK=$(tests/peers/smtp-sink.sh start "$T/sink" -f . -B "554 5.7.1 rejected by test") || { not_ok "smtp-sink starts" "$SINK"; exit 0; }
cfg "smtp://127.0.0.1:$SINK"
fresh mincore
run
queue list >"$T/q"
[ $rc -eq 1 ] && grep -q $'^1\tfailed\t1\t' "$T/q" && grep -q '^robotmail: error: .*: failed: .*554' "$T/err" &&
	ok "554 after DATA: failed, logged as an error with the reply code, run exits 1" || not_ok "554 failed" "rc=$rc" "$(cat "$T/q" "$T/err")"
tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null 2>&1
SINK=$(tests/peers/smtp-sink.sh start "$T/sink") || { not_ok "smtp-sink restarts" "$SINK"; exit 0; }
cfg "smtp://127.0.0.1:$SINK"
queue retry 1 >/dev/null
run
[ $rc -eq 0 ] && grep -q $'^1\tsent\t2\t' <(queue list) && [ "$(tests/peers/smtp-sink.sh count "$T/sink")" = 1 ] &&
	ok "... queue retry after the server recovers: sent on the next run, exit 0" || not_ok "554 retry" "rc=$rc" "$(queue list; cat "$T/err")"
tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null 2>&1
SINK=

# ---- a dry run changes nothing on disk
# the state directory: its own mtime (a file made and removed changes it), each entry, each file's bytes
snapshot() { (cd "$T/state" && stat -c '%n %y' . && ls -lA --time-style=full-iso . && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
cfg "maildir:$T/Maildir"
fresh
run
[ $rc -eq 0 ] || not_ok "run before the dry run" "rc=$rc" "$(cat "$T/err")"
snapshot >"$T/before"
"$ROBOTMAIL" --dry-run --force --now 1760000000 -c "$T/cfg.yaml" contrib/examples/*.tar.xz >"$T/dry" 2>"$T/dryerr"
drc=$?
snapshot >"$T/after"
if [ $drc -eq 0 ] && grep -q '^DATA$' "$T/dry" && cmp -s "$T/before" "$T/after" && ! ls "$T/state" | grep -q -- '-wal\|-shm'; then
	ok "a dry run after a run leaves the state directory byte-identical (no -wal or -shm)"
else
	not_ok "dry run writes" "rc=$drc" "$(diff "$T/before" "$T/after"; cat "$T/dryerr")"
fi
# another process holds the database open with a write only in the -wal
"$PY" - "$T/state/state.db" "$T/held" <<'PYEOF' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("INSERT INTO commit_cache (tree, sha, found, facts, fetched_at) VALUES ('x', 'y', 0, NULL, 0)")
open(sys.argv[2], 'w').close()
time.sleep(30)
PYEOF
holder=$!
for _ in $(seq 100); do [ -e "$T/held" ] && break; sleep 0.1; done
snapshot >"$T/before"
snaps_before=$(ls -d "${TMPDIR:-/tmp}"/robotmail-snapshot.* 2>/dev/null)
"$ROBOTMAIL" --dry-run --force --now 1760000000 -c "$T/cfg.yaml" contrib/examples/*.tar.xz >"$T/dry2" 2>"$T/dryerr"
drc=$?
snapshot >"$T/after"
kill $holder 2>/dev/null
wait $holder 2>/dev/null
if [ $drc -eq 0 ] && grep -q "state.db-wal$" "$T/before" && cmp -s "$T/before" "$T/after" && cmp -s "$T/dry" "$T/dry2"; then
	ok "... also while another process has data in the -wal (read from a private snapshot)"
else
	not_ok "dry run with a live -wal" "rc=$drc" "$(diff "$T/before" "$T/after"; cat "$T/dryerr")"
fi
snaps_after=$(ls -d "${TMPDIR:-/tmp}"/robotmail-snapshot.* 2>/dev/null)
[ "$snaps_before" = "$snaps_after" ] && ok "... and its snapshot directory is removed afterwards" ||
	not_ok "snapshot directory left behind" "$snaps_after"
