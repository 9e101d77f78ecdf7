#!/usr/bin/env bash
# listen-imap: replies delivered into a real IMAP server (Debian's Dovecot,
# started here on a free 127.0.0.1 port with TLS and a config in a temp
# dir) are read by `robotmail listen` from imaps://: the command applied,
# the loop case ignored, each UID read once, the certificate verified, a
# wrong password a configuration error.
. tests/lib.sh
mk_tmp
T=$TEST_TMP
DOVECOT=$(command -v dovecot || echo /usr/sbin/dovecot)
[ -x "$DOVECOT" ] || { not_ok "dovecot is installed (dovecot-imapd, in the Makefile's DEB_PACKAGES)"; exit 0; }
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 \
	-subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost >/dev/null 2>&1
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
chmod 755 "$T"
mkdir -p "$T/run" "$T/home"
if [ "$(id -u)" = 0 ]; then
	IUSER=dovecot LUSER=dovenull IGROUP=dovecot MUID=$(id -u dovecot) MGID=$(id -g dovecot)
	chown "$MUID:$MGID" "$T/home"
else
	IUSER=$(id -un) LUSER=$(id -un) IGROUP=$(id -gn) MUID=$(id -u) MGID=$(id -g)
fi
echo "robot:{PLAIN}s3cret" >"$T/passwd"
printf 's3cret\n' >"$T/pw"
cat >"$T/dovecot.conf" <<EOF
base_dir = $T/run
state_dir = $T/run
log_path = $T/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = required
ssl_cert = <$T/cert.pem
ssl_key = <$T/key.pem
mail_location = maildir:$T/home/%u/Maildir
default_internal_user = $IUSER
default_login_user = $LUSER
default_internal_group = $IGROUP
disable_plaintext_auth = yes
auth_mechanisms = plain
first_valid_uid = 0
passdb {
  driver = passwd-file
  args = $T/passwd
}
userdb {
  driver = static
  args = uid=$MUID gid=$MGID home=$T/home/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    port = 0
  }
  inet_listener imaps {
    port = $PORT
    ssl = yes
  }
}
service anvil {
  chroot =
}
EOF
"$DOVECOT" -c "$T/dovecot.conf" 2>"$T/dovecot.err"
trap '[ -f "$T/run/master.pid" ] && kill "$(cat "$T/run/master.pid")" 2>/dev/null; sleep 0.5; rm -rf "$T"' EXIT
IMAP="imaps://127.0.0.1:$PORT/INBOX"
up=
for _ in $(seq 1 40); do
	curl -sS --cacert "$T/cert.pem" -u robot:s3cret "$IMAP" -X 'UID SEARCH ALL' >/dev/null 2>&1 && { up=1; break; }
	sleep 0.5
done
[ -n "$up" ] && ok "Dovecot answers imaps:// on 127.0.0.1:$PORT" || { not_ok "dovecot start" "$(cat "$T/dovecot.err" "$T/dovecot.log" 2>/dev/null | tail -5)"; exit 0; }

mkdir -p "$T/in"
cat >"$T/cfg.yaml" <<CFG
robot:
  name: kernel test robot
  address: lkp@example.org
  cc_self: false
paths:
  state_db: $T/state.db
  inbox: $T/in
  done: $T/done
  failed: $T/failed
$(linus_tree local-git "$T/repo")
delivery:
  transport: maildir:$T/sent
  settle: 0
listen:
  source: $IMAP
  user: robot
  password_file: $T/pw
  ca_file: $T/cert.pem
CFG
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
cp contrib/examples/mlockmany.tar.xz "$T/in/"
"$ROBOTMAIL" run -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
REPORT=$(sed -n 's/^Message-ID: <\(.*\)>.*/\1/p' "$(find "$T/sent" -type f | head -1)" | head -1)
[ -n "$REPORT" ] && ok "run delivers the report" || not_ok "run" "$(cat "$T/err")"

# append FROM MSGID EXTRA BODY: a mail into the IMAP mailbox (IMAP APPEND)
append() {
	{
		printf 'From: %s\r\nTo: lkp@example.org\r\nSubject: Re: the report\r\n' "$1"
		printf 'Message-ID: <%s>\r\nIn-Reply-To: <%s>\r\n' "$2" "$REPORT"
		[ -n "$3" ] && printf '%s\r\n' "$3"
		printf '\r\n%s\r\n' "$4"
	} >"$T/mail.eml"
	curl -sS --cacert "$T/cert.pem" -u robot:s3cret "$IMAP" -T "$T/mail.eml"
}
append 'Rev Iewer <rev@example.org>' i1@example.org '' '#robotmail invalid'
append 'Ann Author <ann@example.org>' i2@example.org 'Auto-Submitted: auto-replied' '#robotmail frobnicate'

"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^robotmail: listen: 2 read, 1 ignored, 0 refused, 1 command(s) applied, 0 answer(s) queued$' "$T/err" &&
	ok "listen reads the IMAP mailbox: one command applied, the auto-reply ignored" || not_ok "imap listen" "rc=$rc" "$(cat "$T/err")"
[ "$(sqlite3 "$T/state.db" "select state from findings")" = invalid ] && ok "the finding is invalid" || not_ok "state"
[ "$(sqlite3 "$T/state.db" "select count(*) from inbound where id like 'uid:%'")" = 2 ] && ok "both UIDs are remembered in the store" || not_ok "uids" "$(sqlite3 "$T/state.db" "select * from inbound")"
"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
grep -q '^robotmail: listen: 0 read,' "$T/err" && ok "a second pass reads nothing twice" || not_ok "second pass" "$(cat "$T/err")"
append 'Ann Author <ann@example.org>' i3@example.org '' '#robotmail undo'
"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
grep -q '^robotmail: listen: 1 read, 0 ignored, 0 refused, 1 command(s) applied' "$T/err" && [ "$(sqlite3 "$T/state.db" "select state from findings")" = open ] &&
	ok "a new mail is read on the next pass (undo: open again)" || not_ok "third pass" "$(cat "$T/err")"

# a mail over robotmail's cap of one mail (4 MiB): the FETCH stops at the
# cap, the mail is skipped unparsed (its command is not applied), warned
# about with the size the server gives (RFC822.SIZE), its UID remembered;
# the mail after it is read and applied, and the next pass is silent
{
	printf 'From: Rev Iewer <rev@example.org>\r\nTo: lkp@example.org\r\nSubject: Re: the report\r\n'
	printf 'Message-ID: <ibig@example.org>\r\nIn-Reply-To: <%s>\r\n\r\n#robotmail fixed: 0123456789ab\r\n\r\n' "$REPORT"
	"$PY" -c 'import sys; sys.stdout.write(("x" * 76 + "\r\n") * 70000)'
} >"$T/big.eml"
BIGSIZE=$(wc -c <"$T/big.eml")
curl -sS --cacert "$T/cert.pem" -u robot:s3cret "$IMAP" -T "$T/big.eml"
append 'Rev Iewer <rev@example.org>' i5@example.org '' '#robotmail invalid'
"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^robotmail: listen: 1 read, 0 ignored, 0 refused, 1 command(s) applied, 0 answer(s) queued, 1 skipped (over the 4 MiB cap of one mail)$' "$T/err" &&
	grep -q "^robotmail: listen: warning: '$IMAP': <ibig@example.org> (IMAP UID [0-9]*): skipped: $BIGSIZE bytes, over the 4 MiB cap of one mail (not parsed)$" "$T/err" &&
	[ "$(sqlite3 "$T/state.db" "select state from findings")" = invalid ] &&
	[ "$(sqlite3 "$T/state.db" "select count(*) from finding_events where message_id = 'ibig@example.org'")" = 0 ] &&
	[ "$(sqlite3 "$T/state.db" "select count(*) from inbound where id like 'uid:%'")" = 5 ] &&
	ok "a mail over the 4 MiB cap ($BIGSIZE bytes) is skipped unparsed with a warning, its UID remembered; the mail after it is applied" ||
	not_ok "imap over the cap" "rc=$rc" "$(cat "$T/err")" "$(sqlite3 "$T/state.db" "select id, verdict from inbound")"
"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^robotmail: listen: 0 read, 0 ignored, 0 refused, 0 command(s) applied, 0 answer(s) queued$' "$T/err" && ! grep -q warning "$T/err" &&
	ok "the next pass neither fetches nor warns about the mail over the cap again" || not_ok "imap over the cap, again" "rc=$rc" "$(cat "$T/err")"

# --follow waits with IMAP IDLE: a reply appended while it waits (interval
# 60 s) is read a moment later (about a second here; the check allows 20 s
# for a loaded machine and an ASan build: polling would take 60)
"$ROBOTMAIL" listen -c "$T/cfg.yaml" --follow --interval 60 >"$T/fout" 2>"$T/ferr" &
FPID=$!
for _ in $(seq 1 100); do grep -q 'with IMAP IDLE' "$T/ferr" && break; sleep 0.1; done
sleep 0.3 # from the line to the IDLE command
append 'Rev Iewer <rev@example.org>' i4@example.org '' '#robotmail fixed: 0123456789ab'
t0=$(date +%s.%N)
for _ in $(seq 1 150); do
	[ "$(sqlite3 "$T/state.db" "select count(*) from finding_events where message_id = 'i4@example.org'")" = 1 ] && break
	sleep 0.1
done
t1=$(date +%s.%N)
took=$(echo "$t1 - $t0" | bc)
kill $FPID 2>/dev/null
wait $FPID 2>/dev/null
grep -q "waiting on '$IMAP' with IMAP IDLE" "$T/ferr" && [ "$(sqlite3 "$T/state.db" "select state from findings")" = fixed ] &&
	[ "$(echo "$took < 20" | bc)" = 1 ] &&
	ok "listen --follow waits with IMAP IDLE: a reply appended while it waits is applied in $(printf %.1f "$took") s (interval 60 s)" ||
	not_ok "IDLE" "took=$took" "$(cat "$T/ferr")" "$(tail -20 "$T/dovecot.log")"

# the certificate is verified: without ca_file the self-signed server is refused
sed '/ca_file:/d' "$T/cfg.yaml" >"$T/noca.yaml"
"$ROBOTMAIL" listen -c "$T/noca.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 75 ] && grep -q 'certificate' "$T/err" && ok "an unverified certificate is refused (exit 75)" || not_ok "no ca" "rc=$rc" "$(cat "$T/err")"
printf 'wrong\n' >"$T/pw"
"$ROBOTMAIL" listen -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "listen.source '$IMAP'" "$T/err" && ok "a wrong password is a configuration error (exit 2)" || not_ok "wrong password" "rc=$rc" "$(cat "$T/err")"


# an IMAP server that floods the IDLE connection (a line without end): what
# one wait reads is capped (16 MiB, RM_LISTEN_MAX_IMAP_ANSWER), the
# connection dropped with a warning, and listen --follow goes on (a fake
# server here: Dovecot answers as it should)
printf 's3cret\n' >"$T/pw"
cat >"$T/flood.py" <<'PYEOF'
import socket, ssl, sys, threading
cert, key, portfile = sys.argv[1:4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(('127.0.0.1', 0))
srv.listen(8)
open(portfile, 'w').write(str(srv.getsockname()[1]))
def serve(raw):
    try:
        c = ctx.wrap_socket(raw, server_side=True)
        f = c.makefile('rb')
        c.sendall(b'* OK ready\r\n')
        for line in f:
            w = line.split()
            if len(w) < 2:
                continue
            tag, cmd = w[0], w[1].upper()
            if cmd == b'CAPABILITY':
                c.sendall(b'* CAPABILITY IMAP4rev1 IDLE\r\n' + tag + b' OK done\r\n')
            elif cmd == b'STATUS':
                c.sendall(b'* STATUS INBOX (UIDVALIDITY 7)\r\n' + tag + b' OK done\r\n')
            elif cmd in (b'SELECT', b'EXAMINE'):
                c.sendall(b'* 0 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n' + tag + b' OK [READ-WRITE] done\r\n')
            elif cmd == b'UID':
                c.sendall(b'* SEARCH\r\n' + tag + b' OK done\r\n')
            elif cmd == b'IDLE':
                c.sendall(b'+ idling\r\n* 1 EXISTS\r\n* FLOOD ')
                chunk = b'x' * 65536
                while True:  # until the client hangs up
                    c.sendall(chunk)
            elif cmd == b'LOGOUT':
                c.sendall(b'* BYE\r\n' + tag + b' OK done\r\n')
                break
            else:
                c.sendall(tag + b' OK done\r\n')
    except (OSError, ssl.SSLError):
        pass
    finally:
        raw.close()
while True:
    conn, _ = srv.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
PYEOF
"$PY" "$T/flood.py" "$T/cert.pem" "$T/key.pem" "$T/flood.port" 2>"$T/flood.err" &
FLOODPID=$!
for _ in $(seq 1 50); do [ -s "$T/flood.port" ] && break; sleep 0.1; done
FIMAP="imaps://127.0.0.1:$(cat "$T/flood.port")/INBOX"
# peak RSS: 39 MiB measured (plain build); ASan's quarantine keeps freed
# memory (~430 MiB measured)
RSS_MAX=262144
ldd "$ROBOTMAIL" 2>/dev/null | grep -q libasan && RSS_MAX=1048576
sed -e "s|source: .*|source: $FIMAP|" -e "s|state_db: .*|state_db: $T/flood.db|" "$T/cfg.yaml" >"$T/flood.yaml"
"$ROBOTMAIL" listen -c "$T/flood.yaml" --follow --interval 1 >"$T/fout" 2>"$T/ferr" &
FPID=$!
for _ in $(seq 1 150); do [ "$(grep -c 'in one IMAP IDLE wait' "$T/ferr")" -ge 2 ] && break; sleep 0.1; done
alive=no
kill -0 $FPID 2>/dev/null && alive=yes
rss=$(awk '/^VmHWM/ {print $2}' "/proc/$FPID/status" 2>/dev/null)
kill $FPID 2>/dev/null
wait $FPID 2>/dev/null
kill $FLOODPID 2>/dev/null
wait $FLOODPID 2>/dev/null
[ "$alive" = yes ] && [ "$(grep -c "^robotmail: listen: warning: '$FIMAP': the server sent over 16 MiB in one IMAP IDLE wait: connection dropped$" "$T/ferr")" -ge 2 ] &&
	[ -n "$rss" ] && [ "$rss" -lt "$RSS_MAX" ] &&
	ok "a server flooding the IDLE connection: capped at 16 MiB a wait, dropped with a warning, opened again; listen --follow goes on (peak RSS $((rss / 1024)) MiB)" ||
	not_ok "IDLE flood" "alive=$alive rss=$rss" "$(head -c 2000 "$T/ferr")" "$(cat "$T/flood.err")"
