#!/usr/bin/env bash
# relay: robotmail hands its mail to a local Postfix, which relays it to the
# next hop (README "Running on several hosts": Postfix owns the queueing
# towards the internet; the outbox stays the record of what the relay
# accepted).  A private Postfix instance (tests/peers/postfix.sh: its own
# config_directory, queue and log under this test's directory, smtpd on a free
# port of 127.0.0.1, relayhost the SMTP peer) is started and stopped here;
# the system's Postfix is never used.  If it cannot start, the suite fails.
#   - smtp://127.0.0.1:PORT: every report accepted by Postfix is `sent` in the
#     outbox with Postfix's own reply ("queued as ..."); a recipient Postfix
#     refuses (550) is kept as refused, with Postfix's text; the peer behind
#     Postfix receives exactly the messages the outbox marked sent, once each,
#     through Postfix (its Received: line), without the refused recipient
#   - sendmail: (Postfix's sendmail -C DIR -t): accepted when it exits 0,
#     relayed the same way
. tests/lib.sh
mk_tmp
T=$TEST_TMP
chmod 711 "$T" # Postfix's daemons run as the user postfix and live in $T/pf
PEER_PID= REPO_PID=
cleanup() {
	[ -n "$REPO_PID" ] && kill "$REPO_PID" 2>/dev/null && wait "$REPO_PID" 2>/dev/null
	tests/peers/postfix.sh stop "$T/pf" >/dev/null 2>&1
	[ -n "$PEER_PID" ] && kill "$PEER_PID" 2>/dev/null && wait "$PEER_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# the git repository of the commit facts, made while the servers start
tests/peers/make-test-repo.sh "$T/repo" >/dev/null &
REPO_PID=$!
smtp_peer_start "$T/peer" 0
[ -n "$PEER_PORT" ] || { not_ok "smtp-peer starts" "$(cat "$T/peer.out")"; exit 1; }
if ! PF_PORT=$(tests/peers/postfix.sh start "$T/pf" "$PEER_PORT" '/^refused@/' 2>"$T/pf.err"); then
	not_ok "a private Postfix starts on 127.0.0.1 (its master with -c DIR)" "$(cat "$T/pf.err")" "$(tail -20 "$T/pf/maillog" 2>/dev/null)"
	exit 1
fi
ok "a private Postfix (config, queue and log in the test's directory) listens on 127.0.0.1:$PF_PORT and relays to the SMTP peer on :$PEER_PORT"

wait $REPO_PID || { REPO_PID=; not_ok "the test repository is made (tests/peers/make-test-repo.sh)"; exit 1; }
REPO_PID=
# cfg NAME TRANSPORT MSGID_LOCAL: a configuration with its own state and inbox
cfg() {
	mkdir -p "$T/$1/inbox"
	cat >"$T/$1/cfg.yaml" <<CFG
include: $PROFILE_0DAY
robot:
  address: robot@example.org
  msgid_local: $3
  msgid_domain: example.org
  cc: [list@example.org, refused@example.org]
paths:
  state_db: $T/$1/state.db
  inbox: $T/$1/inbox
  done: $T/$1/done
  failed: $T/$1/failed
$(linus_tree local-git "$T/repo")
delivery:
  transport: $2
  settle: 0
  connect_timeout: 5
  timeout: 30
CFG
	cp contrib/examples/*.tar.xz "$T/$1/inbox/"
}
# the peer's log lines of Message-IDs with LOCAL before the @
peer_lines() { [ -f "$T/peer/log" ] && grep -- "msgid=<[^@>]*-$1@example.org>" "$T/peer/log" || true; }
# wait (up to 30 s) until the peer has N messages of LOCAL: Postfix relays on its own time
wait_peer() {
	for _ in $(seq 300); do
		[ "$(peer_lines "$1" | wc -l)" -ge "$2" ] && return 0
		tests/peers/postfix.sh flush "$T/pf" >/dev/null 2>&1
		sleep 0.1
	done
	return 1
}
# Message-IDs of the outbox's sent messages, sorted
sent_ids() { "$ROBOTMAIL" queue -c "$T/$1/cfg.yaml" list | awk -F'\t' '$2 == "sent" {print $4}' | sort; }

# ---- smtp://127.0.0.1:PORT
cfg smtp "smtp://127.0.0.1:$PF_PORT" relay-smtp
"$ROBOTMAIL" run -v -c "$T/smtp/cfg.yaml" >"$T/smtp/out" 2>"$T/smtp/err"
rc=$?
"$ROBOTMAIL" queue -c "$T/smtp/cfg.yaml" list >"$T/smtp/list"
# each recipient's result as the outbox keeps it
results() { sqlite3 -separator ' ' "$T/$1/state.db" "SELECT m.message_id, r.rcpt, r.code, r.text FROM rcpt_results r JOIN messages m ON m.id = r.message ORDER BY m.id, r.rcpt"; }
results smtp >"$T/smtp/results"
if [ $rc = 0 ] && [ "$(sent_ids smtp | wc -l)" = 2 ] && [ "$(wc -l <"$T/smtp/list")" = 2 ] &&
	[ "$(grep -c ' refused@example.org 550 .*refused by the relay' "$T/smtp/results")" = 2 ] &&
	[ "$(grep -c ' list@example.org 250 .*queued as' "$T/smtp/results")" = 2 ] &&
	[ "$(grep -vc ' 250 \| refused@example.org 550 ' "$T/smtp/results")" = 0 ] &&
	grep -q "refused@example.org> refused: 550 5.1.1 <refused@example.org>: Recipient address rejected: refused by the relay" "$T/smtp/err"; then
	ok "run through Postfix on smtp://127.0.0.1:$PF_PORT: 2 reports sent; the outbox keeps Postfix's replies per recipient (250 queued as ...; 550 with its text for the address it refuses, warned)"
else
	not_ok "run through Postfix (smtp)" "rc=$rc" "$(cat "$T/smtp/list")" "$(cat "$T/smtp/results")" "$(cat "$T/smtp/err")" "$(tail -20 "$T/pf/maillog")"
fi
wait_peer relay-smtp 2
ids=$(peer_lines relay-smtp | sed 's/.* msgid=\([^ ]*\).*/\1/' | sort)
if [ -n "$ids" ] && [ "$ids" = "$(sent_ids smtp)" ] && [ "$(peer_lines relay-smtp | wc -l)" = 2 ] &&
	! peer_lines relay-smtp | grep -q 'refused@' && peer_lines relay-smtp | grep -q 'to=.*list@example.org' &&
	grep -q 'by relay.example.org (Postfix)' "$T"/peer/msg-*.eml; then
	ok "... Postfix relayed them to the peer: exactly the outbox's 2 sent Message-IDs, once each, through Postfix (Received: by relay.example.org), without the refused recipient"
else
	not_ok "Postfix relayed what the outbox says it accepted" "outbox sent: $(sent_ids smtp | tr '\n' ' ')" "peer: $(peer_lines relay-smtp)" "$(tail -20 "$T/pf/maillog")"
fi

# ---- sendmail: Postfix's sendmail with the private configuration
cfg sm "sendmail:/usr/sbin/sendmail -C $T/pf -i -t -f robot@example.org" relay-sendmail
"$ROBOTMAIL" run -v -c "$T/sm/cfg.yaml" >"$T/sm/out" 2>"$T/sm/err"
rc=$?
results sm >"$T/sm/results"
if [ $rc = 0 ] && [ "$(sent_ids sm | wc -l)" = 2 ] && [ "$(grep -c ' 250 accepted by sendmail$' "$T/sm/results")" -ge 2 ] &&
	[ "$(grep -vc ' 250 accepted by sendmail$' "$T/sm/results")" = 0 ]; then
	ok "run through Postfix's sendmail (-C DIR -t): 2 reports sent in the outbox (sendmail exited 0)"
else
	not_ok "run through Postfix's sendmail" "rc=$rc" "$("$ROBOTMAIL" queue -c "$T/sm/cfg.yaml" list)" "$(cat "$T/sm/results")" "$(cat "$T/sm/err")" "$(tail -20 "$T/pf/maillog")"
fi
wait_peer relay-sendmail 2
ids=$(peer_lines relay-sendmail | sed 's/.* msgid=\([^ ]*\).*/\1/' | sort)
if [ -n "$ids" ] && [ "$ids" = "$(sent_ids sm)" ] && [ "$(peer_lines relay-sendmail | wc -l)" = 2 ] &&
	peer_lines relay-sendmail | grep -q 'from=robot@example.org '; then
	ok "... Postfix relayed them to the peer: the outbox's 2 sent Message-IDs, once each, from robot@example.org"
else
	not_ok "Postfix relayed the sendmail messages" "outbox sent: $(sent_ids sm | tr '\n' ' ')" "peer: $(peer_lines relay-sendmail)" "$(tail -20 "$T/pf/maillog")"
fi
