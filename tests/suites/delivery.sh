#!/usr/bin/env bash
# delivery: `robotmail run` over SMTP to real peers on 127.0.0.1: Postfix's
# smtp-sink (byte checks, 4xx on RCPT, 5xx after DATA, 421 and disconnect)
# and aiosmtpd (per-recipient 550/451, STARTTLS and implicit TLS with a
# certificate the test makes, a wrong CA refused, AUTH from a password file).
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
SINK=
PEER_PID=
cleanup() {
	[ -n "$SINK" ] && tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null 2>&1
	[ -n "$PEER_PID" ] && kill "$PEER_PID" 2>/dev/null && wait "$PEER_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
SYSPY=/usr/bin/python3
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
tests/peers/make-cert.sh "$T/cert"

cfg() { # TRANSPORT [delivery lines...]
	local tr=$1
	shift
	cat >"$T/cfg.yaml" <<CFG
include: $PROFILE_0DAY
robot:
  cc: [oe-lkp@lists.linux.dev, lkp@intel.com]
paths:
  state_db: $T/state.db
  inbox: $T/inbox
  done: $T/done
  failed: $T/failed
$(linus_tree local-git "$T/repo")
delivery:
  transport: $tr
  settle: 0
  backoff: 1
  connect_timeout: 3
  timeout: 10
CFG
	for l in "$@"; do printf '  %s\n' "$l" >>"$T/cfg.yaml"; done
}
fresh() { rm -rf "$T/inbox" "$T/done" "$T/failed" "$T/state.db"*; mkdir -p "$T/inbox"; cp contrib/examples/${1:-*}.tar.xz "$T/inbox/"; }
run() { "$ROBOTMAIL" run -c "$T/cfg.yaml" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
queue() { "$ROBOTMAIL" queue -c "$T/cfg.yaml" "$@" 2>&1; }
# until the backoff (1 s) has passed: every message due by the clock a run reads
due_wait() {
	for _ in $(seq 50); do
		[ "$(sqlite3 "$T/state.db" "SELECT count(*) FROM messages WHERE state = 'queued' AND next_attempt > CAST(strftime('%s', 'now') AS INTEGER)")" = 0 ] && return
		sleep 0.1
	done
}
sink() { tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null 2>&1; SINK=$(tests/peers/smtp-sink.sh start "$T/sink" "$@") || { not_ok "smtp-sink starts" "$SINK"; exit 0; }; }

# ---- smtp-sink: delivered, byte-checked
sink
cfg "smtp://127.0.0.1:$SINK"
fresh
run
n=$(tests/peers/smtp-sink.sh count "$T/sink")
[ $rc -eq 0 ] && [ "$n" = 2 ] && ok "smtp-sink: two reports delivered over one run, exit 0" || not_ok "smtp-sink delivery" "rc=$rc n=$n" "$(cat "$T/err")"
queue list >"$T/q"
[ "$(grep -c $'\tsent\t1\t' "$T/q")" = 2 ] && ok "smtp-sink: both marked sent after the server's 250" || not_ok "marked sent" "$(cat "$T/q")"
dump=$(grep -l 'stress-ng.mincore.ops_per_sec' -r "$T/sink/dump" | head -1)
queue show 1 | sed '1,/^$/d' >"$T/stored"
# the dump: smtp-sink's own X-* and Received: lines, then the message, then a blank line
sed '1,/^Received:/d' "$dump" | sed '/^\t/{1,3d}' >"$T/dumped.raw"
"$SYSPY" - "$dump" "$T/stored" <<'PYEOF'
import sys
dump = open(sys.argv[1], 'rb').read().decode('utf-8')
stored = open(sys.argv[2], 'rb').read().decode('utf-8')
# drop smtp-sink's own header block (X-* lines and its Received: header with continuations)
lines = dump.split('\n')
i = 0
while i < len(lines) and (lines[i].startswith('X-') or lines[i].startswith('Received:') or lines[i].startswith('\t') or lines[i].startswith(' ')):
    i += 1
got = '\n'.join(lines[i:])
ok = got.rstrip('\n') == stored.rstrip('\n')
print(('ok - ' if ok else 'not ok - ') + 'smtp-sink: the message arrived byte for byte as stored in the outbox')
if not ok:
    import difflib
    for l in list(difflib.unified_diff(stored.splitlines(), got.splitlines(), lineterm=''))[:20]:
        print('    ' + l)
rcpts = [l for l in lines if l.startswith('X-Rcpt-Args:')]
want = ['dora@example.org', 'oe-lkp@lists.linux.dev', 'lkp@intel.com', 'oliver.sang@intel.com']
okr = all(any(w in r for r in rcpts) for w in want) and len(rcpts) == 4
print(('ok - ' if okr else 'not ok - ') + 'smtp-sink: envelope RCPT TO the author, the lists and the robot')
if not okr:
    print('    ' + repr(rcpts))
mail = [l for l in lines if l.startswith('X-Mail-Args:')]
okm = bool(mail) and 'oliver.sang@intel.com' in mail[0]
print(('ok - ' if okm else 'not ok - ') + 'smtp-sink: MAIL FROM is the robot')
PYEOF

# ---- 4xx on every RCPT: retried later
sink -r RCPT
cfg "smtp://127.0.0.1:$SINK"
fresh mincore
run
queue list >"$T/q"
[ $rc -eq 75 ] && grep -q $'\tqueued\t1\t' "$T/q" && ok "4xx on RCPT: queued again after one attempt, exit 75" || not_ok "4xx on RCPT" "rc=$rc" "$(cat "$T/q" "$T/err")"
due_wait
sink
cfg "smtp://127.0.0.1:$SINK"
run
queue list >"$T/q"
[ $rc -eq 0 ] && grep -q $'\tsent\t2\t' "$T/q" && ok "4xx on RCPT: the retry after the backoff delivers it" || not_ok "retry after 4xx" "rc=$rc" "$(cat "$T/q" "$T/err")"

# ---- 5xx after DATA: failed for good, recorded
sink -f . -B "554 5.7.1 rejected by test"
cfg "smtp://127.0.0.1:$SINK"
fresh mincore
run
queue list >"$T/q"
grep -q $'\tfailed\t1\t' "$T/q" && ok "5xx after DATA: the message fails for good after one attempt" || not_ok "5xx after DATA" "$(cat "$T/q" "$T/err")"
# the server's own words, never the client library's paraphrase
grep -q '554 5.7.1 rejected by test' "$T/q" && grep -q '554 5.7.1 rejected by test' "$T/err" &&
	! grep -qi 'weird server reply' "$T/q" "$T/err" &&
	ok "5xx after DATA: the server's reply text is kept (queue list) and shown on stderr in a quiet run" ||
	not_ok "server reply text after DATA" "$(cat "$T/q" "$T/err")"

# ---- 421 and disconnect on MAIL: retried
sink -Q MAIL
cfg "smtp://127.0.0.1:$SINK"
fresh mincore
run
queue list >"$T/q"
[ $rc -eq 75 ] && grep -q $'\tqueued\t1\t' "$T/q" && ok "421 and a dropped connection: queued again, exit 75" || not_ok "421 disconnect" "rc=$rc" "$(cat "$T/q" "$T/err")"
tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null 2>&1
SINK=

# ---- nothing listening: retried
cfg "smtp://127.0.0.1:9"
fresh
run
queue list >"$T/q"
[ $rc -eq 75 ] && [ "$(grep -c $'\tqueued\t1\t' "$T/q")" = 2 ] && grep -qi "connect" "$T/q" && ok "no server: the message waits in the queue with the error" || not_ok "no server" "rc=$rc" "$(cat "$T/q")"

# ---- aiosmtpd: per-recipient results, TLS, AUTH
peer() { # args...
	[ -n "$PEER_PID" ] && kill "$PEER_PID" 2>/dev/null && wait "$PEER_PID" 2>/dev/null
	rm -rf "$T/peer"
	smtp_peer_start "$T/peer" 0 "$@"
	PEER=$PEER_PORT
	[ -n "$PEER" ] || { not_ok "smtp-peer starts" "$(cat "$T/peer.out")"; exit 0; }
}
peer
cfg "smtp://127.0.0.1:$PEER"
sed -i 's/cc: \[oe-lkp@lists.linux.dev, lkp@intel.com\]/cc: [reject@example.org, tempfail@example.org, list@example.org]/' "$T/cfg.yaml"
fresh mincore
run
queue list >"$T/q"
delivered=$(grep -c DELIVERED "$T/peer/log" 2>/dev/null)
if [ $rc -eq 75 ] && [ "$delivered" = 1 ] && grep -q 'to=dora@example.org,list@example.org,oliver.sang@intel.com' "$T/peer/log" &&
	grep -q $'\tqueued\t1\t' "$T/q"; then
	ok "per recipient: accepted ones get it, the 550 one is refused for good, the 451 one stays pending"
else
	not_ok "per-recipient results" "rc=$rc delivered=$delivered" "$(cat "$T/q" "$T/peer/log" "$T/err" 2>&1 | head -20)"
fi
grep -q "warning: .*<reject@example.org> refused: 550 5.1.1 <reject@example.org>: Recipient address rejected: user unknown" "$T/err" &&
	ok "per recipient: the refused Cc is a warning on stderr with the server's code and text, even in a quiet run" ||
	not_ok "refused recipient warning" "$(cat "$T/err")"
queue show 1 >"$T/show"
[ "$(grep -c '^pending:' "$T/show")" = 1 ] && grep -qx 'pending: tempfail@example.org' "$T/show" &&
	ok "per recipient: only the deferred recipient is pending" || not_ok "pending recipient" "$(head -8 "$T/show")"
grep -qx 'refused: reject@example.org 550 5.1.1 <reject@example.org>: Recipient address rejected: user unknown' "$T/show" &&
	grep -q '^deferred: tempfail@example.org 451' "$T/show" && grep -q '^accepted: dora@example.org 250' "$T/show" &&
	ok "per recipient: queue show names the refused Cc with the server's code and text (and the deferred and accepted ones)" ||
	not_ok "queue show results" "$(head -14 "$T/show")"
sqlite3 "$T/state.db" "select rcpt, code from rcpt_results order by rcpt" >"$T/rr" 2>&1
grep -qx 'reject@example.org|550' "$T/rr" && grep -qx 'tempfail@example.org|451' "$T/rr" && grep -qx 'dora@example.org|250' "$T/rr" &&
	ok "per recipient: each reply code is recorded" || not_ok "rcpt_results" "$(cat "$T/rr")"
sed -i 's/  backoff: 1/  backoff: 1\n  max_age: 0/' "$T/cfg.yaml"
due_wait
run
queue list >"$T/q"
grep -q $'\tsent\t2\t' "$T/q" && [ "$(grep -c DELIVERED "$T/peer/log")" = 1 ] &&
	ok "per recipient: past max_age the deferred recipient is given up; the message counts as sent" || not_ok "max_age give-up" "$(cat "$T/q")"

# STARTTLS with the test's CA; a wrong CA is refused
peer --tls-cert "$T/cert/server.pem" --tls-key "$T/cert/server.key"
cfg "smtp://localhost:$PEER" "starttls: true" "ca_file: $T/cert/ca.pem"
fresh mincore
run
grep -q 'tls=1' "$T/peer/log" 2>/dev/null && [ $rc -eq 0 ] && ok "STARTTLS with a verified certificate delivers" || not_ok "STARTTLS" "rc=$rc" "$(cat "$T/err" "$T/peer/log" 2>&1)"
cfg "smtp://localhost:$PEER" "starttls: true" "ca_file: $T/cert/wrong-ca.pem"
fresh mincore
rm -f "$T/peer/log"
run
queue list >"$T/q"
[ $rc -eq 75 ] && [ ! -s "$T/peer/log" ] && grep -q $'\tqueued\t1\t' "$T/q" && grep -qi "certificate\|SSL\|TLS" "$T/q" &&
	ok "STARTTLS with a certificate from another CA is refused; nothing is sent" || not_ok "wrong CA" "rc=$rc" "$(cat "$T/q")"
peer --tls-cert "$T/cert/server.pem" --tls-key "$T/cert/server.key" --implicit-tls
cfg "smtps://localhost:$PEER" "ca_file: $T/cert/ca.pem"
fresh mincore
run
grep -q 'tls=1' "$T/peer/log" 2>/dev/null && [ $rc -eq 0 ] && ok "implicit TLS (smtps://) delivers" || not_ok "smtps" "rc=$rc" "$(cat "$T/err")"

# AUTH with the password from a file; a wrong one is not accepted
peer --auth robot:s3cret --require-auth
printf 's3cret\n' >"$T/pw"
chmod 600 "$T/pw"
cfg "smtp://127.0.0.1:$PEER" "user: robot" "password_file: $T/pw"
fresh mincore
run -v
grep -q 'auth=robot' "$T/peer/log" 2>/dev/null && [ $rc -eq 0 ] && ! grep -q s3cret "$T/err" "$T/out" &&
	ok "AUTH with the password from a file; the password is never printed" || not_ok "AUTH" "rc=$rc" "$(cat "$T/err")"
printf 'wrong\n' >"$T/pw"
fresh mincore
rm -f "$T/peer/log"
run
queue list >"$T/q"
[ ! -s "$T/peer/log" ] && [ $rc -ne 0 ] && ! grep -q wrong "$T/q" && ok "a wrong password delivers nothing and is not logged" || not_ok "wrong password" "rc=$rc" "$(cat "$T/q")"

# ---- 8-bit bodies (RFC 6152): BODY=8BITMIME when the server offers
# 8BITMIME, a quoted-printable downgrade when it does not; either way the
# decoded body is the stored one, byte for byte
eightbit() { # NAME PEER-ARGS...
	local name=$1
	shift
	peer "$@"
	cfg "smtp://127.0.0.1:$PEER"
	fresh mlockmany
	run
	queue show 1 | sed '1,/^$/d' >"$T/stored8"
	"$SYSPY" - "$T/peer/msg-1.eml" "$T/stored8" "$name" <<'PYEOF'
import email, email.policy, sys
got = email.message_from_bytes(open(sys.argv[1], 'rb').read(), policy=email.policy.compat32)
want = email.message_from_bytes(open(sys.argv[2], 'rb').read(), policy=email.policy.compat32)
gb = got.get_payload(decode=True).replace(b'\r\n', b'\n')
wb = want.get_payload(decode=True)
cte = got.get('Content-Transfer-Encoding')
exp = 'quoted-printable' if sys.argv[3] == 'downgrade' else '8bit'
ok = gb == wb and b'\xb1' in wb and cte == exp
if sys.argv[3] == 'downgrade':
    raw = open(sys.argv[1], 'rb').read()
    ok = ok and all(c < 0x80 for c in raw) and all(len(l) <= 78 for l in raw.split(b'\r\n'))
print(('ok - ' if ok else 'not ok - ') + '8-bit body (%s): Content-Transfer-Encoding %s, the decoded body byte-identical to the stored one' % (sys.argv[3], exp))
if not ok:
    print('    cte=%r same=%r len got=%d want=%d' % (cte, gb == wb, len(gb), len(wb)))
PYEOF
}
eightbit 8bitmime
grep -q 'mail=BODY=8BITMIME$' "$T/peer/log" && [ $rc -eq 0 ] &&
	ok "8BITMIME offered: MAIL FROM carries BODY=8BITMIME" || not_ok "BODY=8BITMIME" "rc=$rc" "$(cat "$T/peer/log" "$T/err")"
eightbit downgrade --no-8bitmime
grep -q 'mail=-$' "$T/peer/log" && [ $rc -eq 0 ] &&
	ok "8BITMIME not offered: no BODY parameter, the body goes out quoted-printable" || not_ok "downgrade" "rc=$rc" "$(cat "$T/peer/log" "$T/err")"
kill "$PEER_PID" 2>/dev/null && wait "$PEER_PID" 2>/dev/null
PEER_PID=
# Postfix's smtp-sink with and without 8BITMIME (its -8 switch): the MAIL FROM line as received
for mode in with without; do
	if [ $mode = with ]; then sink; else sink -8; fi
	cfg "smtp://127.0.0.1:$SINK"
	fresh mlockmany
	run
	dump=$(grep -l 'stress-ng.mlockmany' -r "$T/sink/dump" | head -1)
	args=$(grep '^X-Mail-Args:' "$dump" 2>/dev/null)
	if [ $mode = with ]; then
		[ $rc -eq 0 ] && echo "$args" | grep -q 'BODY=8BITMIME' && grep -q '^Content-Transfer-Encoding: 8bit' "$dump" &&
			ok "smtp-sink with 8BITMIME: MAIL FROM ... BODY=8BITMIME, the body sent 8bit" || not_ok "smtp-sink 8BITMIME" "rc=$rc" "$args" "$(cat "$T/err")"
	else
		[ $rc -eq 0 ] && ! echo "$args" | grep -q 'BODY=' && grep -q '^Content-Transfer-Encoding: quoted-printable' "$dump" &&
			! LC_ALL=C grep -q $'[\x80-\xff]' "$dump" &&
			ok "smtp-sink -8 (no 8BITMIME): no BODY parameter, quoted-printable, no 8-bit byte on the wire" || not_ok "smtp-sink -8" "rc=$rc" "$args" "$(cat "$T/err")"
	fi
done
