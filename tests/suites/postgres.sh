#!/usr/bin/env bash
# postgres: the PostgreSQL store and several hosts on it.  Starts a throwaway
# PostgreSQL server (tests/peers/pg.sh: initdb in a temporary directory as the
# unprivileged user postgres, a free port of 127.0.0.1, a login whose password
# is only in a libpq password file) and stops it at the end.  If the server
# cannot start, the suite fails: nothing is skipped.
#   - the store unit tests over PostgreSQL (the store-postgresql cmocka group)
#   - `robotmail run` on store: postgresql://...; `store check`
#   - 4 runs at once (4 "hosts": own host_id, own state directory) on one
#     inbox and one database: every report delivered exactly once, counted at
#     the SMTP peer, every archive in done/
#   - kill -9 a run mid-delivery: a run started at once leaves its leased
#     messages alone, a run after the lease expired takes them over; every
#     report arrives, none twice except the one whose DATA was in flight
#   - 4 runs that queue the first report of one finding at the same moment
#     (held at one point by a table lock): one thread start, 3 replies to it
#   - the server stopped mid-run: the run exits 75, the next run finishes
#   - store migrate from SQLite, round trip; the password never shown
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
chmod 711 "$T" # the server runs as postgres and lives in $T/pg
PEER_PID=
cleanup() {
	[ -n "$PEER_PID" ] && kill "$PEER_PID" 2>/dev/null && wait "$PEER_PID" 2>/dev/null
	tests/peers/pg.sh stop "$T/pg" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT

if ! PGPORT=$(tests/peers/pg.sh start "$T/pg" 2>"$T/pg.err"); then
	not_ok "a PostgreSQL server starts (initdb, pg_ctl) on 127.0.0.1" "$(cat "$T/pg.err")"
	exit 1
fi
ok "a throwaway PostgreSQL server runs on 127.0.0.1:$PGPORT"
URL="postgresql://robot@127.0.0.1:$PGPORT/robotmail?passfile=$T/pg/pgpass&sslmode=disable&connect_timeout=3"
# empty the database: every table dropped (psql reads the password file too)
reset_db() { psql -X -q "$URL" -c 'SET client_min_messages = warning; DROP SCHEMA public CASCADE; CREATE SCHEMA public' >/dev/null; }
sql() { psql -X -qAt "$URL" -c "$1"; }

# ---- the store's unit tests over PostgreSQL: their store-postgresql group
# alone (the unit jobs run the others).  The ASan pass runs it with the
# sanitized unit tests: store_pg.c's every read and write under ASan+UBSan,
# which neither the plain pass nor unit-asan (no server) can check.
UNIT=$PWD/$BUILD/unit-tests
case $ROBOTMAIL in *-asan) UNIT=$PWD/$BUILD/unit-tests-asan ;; esac
if [ ! -x "$UNIT" ]; then
	not_ok "store unit tests over PostgreSQL" "$UNIT is not built (make ${UNIT#"$PWD/"})"
else
	reset_db
	ROBOTMAIL_TEST_PG=$URL ROBOTMAIL_TEST_PG_ONLY=1 "$UNIT" >"$T/unit.log" 2>&1
	urc=$?
	pgpart=$(sed -n '/Running [0-9]* test/,$p' "$T/unit.log")
	if [ $urc -eq 0 ] && [ "$(sed -n '/^\[ RUN      \] unit_pg_test_two_hosts_claim/,$p' "$T/unit.log" | grep -c '^\[       OK \]')" -ge 5 ] &&
		grep -q 'store-postgresql\|unit_pg_test_migrate_round_trip' "$T/unit.log" &&
		! grep -q 'store-postgresql: not run' "$T/unit.log"; then
		ok "store unit tests over PostgreSQL: $(awk '/^\[ RUN      \] test_enqueue_dedupe/ {n = 0; on = 1} on && /^\[       OK \]/ {n++} /^\[  PASSED  \]/ {on = 0} END {print n}' "$T/unit.log") cmocka tests passed in the store-postgresql group (12 shared with SQLite, 9 PostgreSQL-only, 2 of listen's findings, inbound mail and opt-outs)"
	else
		not_ok "store unit tests over PostgreSQL" "rc=$urc" "$(grep -B2 -A3 'FAILED\|ERROR' "$T/unit.log" | head -30)" "$pgpart"
	fi
fi

tests/peers/make-test-repo.sh "$T/repo" >/dev/null
smtp_peer_start "$T/peer" 0
[ -n "$PEER_PORT" ] || { not_ok "smtp-peer starts" "$(cat "$T/peer.out")"; exit 1; }
peer_restart() { # [smtp-peer options]: a fresh, empty peer on the same port
	kill "$PEER_PID" 2>/dev/null; wait "$PEER_PID" 2>/dev/null
	rm -rf "$T/peer"
	smtp_peer_start "$T/peer" "$PEER_PORT" "$@"
}
# cfg NAME [LEASE]: the configuration of host NAME (its own state directory)
cfg() {
	mkdir -p "$T/$1"
	cat >"$T/$1/cfg.yaml" <<CFG
include: $PROFILE_0DAY
store: $URL
host_id: $1
lease: ${2:-60s}
paths:
  inbox: $T/inbox
  done: $T/done
  failed: $T/failed
  emergency_stop: $T/$1/STOP
$(linus_tree local-git "$T/repo")
delivery:
  transport: smtp://127.0.0.1:$PEER_PORT
  settle: 0
  backoff: 1
  connect_timeout: 3
  timeout: 20
CFG
}
# gen COUNT: COUNT archives, each the mincore example on its own test machine
gen() {
	"$PY" - "$T/inbox" "$1" <<'PYEOF'
import io, lzma, sys, tarfile
out, n = sys.argv[1], int(sys.argv[2])
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/mincore.tar.xz', 'rb').read())))
members = [(m.name, src.extractfile(m).read()) for m in src.getmembers() if m.isfile()]
for i in range(n):
    tag = b'lkp-host-%04d' % i
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w') as t:
        for name, data in members:
            info = tarfile.TarInfo(name.replace('lkp-emr-2sp1', tag.decode()))
            data = data.replace(b'lkp-emr-2sp1', tag)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    open('%s/a%04d.tar' % (out, i), 'wb').write(buf.getvalue())
PYEOF
}
fresh() { rm -rf "$T/inbox" "$T/done" "$T/failed"; mkdir -p "$T/inbox"; reset_db; }
run_host() { "$ROBOTMAIL" run -v -c "$T/$1/cfg.yaml" >"$T/$1/out" 2>"$T/$1/err"; echo $? >"$T/$1/rc"; }
delivered() { [ -f "$T/peer/log" ] && wc -l <"$T/peer/log" || echo 0; }
distinct() { [ -f "$T/peer/log" ] && sed 's/.* msgid=\([^ ]*\).*/\1/' "$T/peer/log" | sort -u | wc -l || echo 0; }
sent_rows() { sql "SELECT count(*) FROM messages WHERE state = 'sent'"; }
# leases_expire: wait (at most 30 s by the clock) until no message is under a live lease,
# on the database's clock with the claim's own test (lease_until < now: a
# run started after this claims them); prints how long it waited
leases_expire() {
	local t0 end
	t0=$(date +%s.%N)
	end=$(($(date +%s) + 30))
	while [ "$(date +%s)" -lt $end ]; do
		[ "$(sql "SELECT count(*) FROM messages WHERE state = 'sending' AND coalesce(lease_until, 0) >= extract(epoch from clock_timestamp())::bigint")" = 0 ] && break
		sleep 0.1
	done
	printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc -l)"
}

# ---- one run on store: postgresql://
fresh
cp contrib/examples/*.tar.xz "$T/inbox/"
cfg host-a
run_host host-a
if [ "$(cat "$T/host-a/rc")" = 0 ] && [ "$(delivered)" = 2 ] && [ "$(sent_rows)" = 2 ] &&
	[ "$(ls "$T/done" | wc -l)" = 2 ] && grep -q ' 2 queued (0 held), 0 already reported, 0 deferred; 2 sent' "$T/host-a/err"; then
	ok "robotmail run on a postgresql:// store: 2 reports queued, sent (the peer accepted 2), archives in done/"
else
	not_ok "run on postgresql" "rc=$(cat "$T/host-a/rc") delivered=$(delivered)" "$(cat "$T/host-a/err")"
fi
cp contrib/examples/*.tar.xz "$T/inbox/"
run_host host-a
[ "$(cat "$T/host-a/rc")" = 0 ] && [ "$(delivered)" = 2 ] && grep -q ' 0 queued (0 held), 2 already reported' "$T/host-a/err" &&
	ok "... the same archives again: already reported, nothing sent" || not_ok "rerun" "$(cat "$T/host-a/err")"
"$ROBOTMAIL" store -c "$T/host-a/cfg.yaml" check >"$T/check" 2>&1
crc=$?
[ $crc = 0 ] && grep -q '^backend: postgresql$' "$T/check" && grep -q '^schema version: 11$' "$T/check" &&
	grep -q '^rows: 2 reports, 2 messages (0 held, 0 queued, 0 sending, 2 sent, 0 failed; 2 attempts)' "$T/check" &&
	grep -q '^rows: 2 threads (one first message per thread key)$' "$T/check" &&
	grep -q '^store check: consistent$' "$T/check" &&
	ok "store check: backend, schema version 11, counts (2 threads), consistent" || not_ok "store check" "rc=$crc" "$(cat "$T/check")"
if grep -rq "$(cut -d: -f5 "$T/pg/pgpass")" "$T/host-a" "$T/check"; then
	not_ok "the database password appears in no output"
else
	ok "the database password (in the libpq password file) appears in no output"
fi

# ---- 4 hosts at once on one inbox and one database
N=60
fresh
peer_restart
gen $N
for h in h1 h2 h3 h4; do cfg $h; done
t0=$(date +%s.%N)
pids=
for h in h1 h2 h3 h4; do run_host $h & pids="$pids $!"; done
wait $pids # not the peer
t1=$(date +%s.%N)
rcs=$(cat "$T"/h[1-4]/rc | tr '\n' ' ')
queued=$(cat "$T"/h[1-4]/err | sed -n 's/.* report(s): \([0-9]*\) queued.*/\1/p' | paste -sd+ | bc)
if [ "$rcs" = "0 0 0 0 " ] && [ "$(delivered)" = $N ] && [ "$(distinct)" = $N ] && [ "$queued" = $N ] &&
	[ "$(ls "$T/done" | wc -l)" = $N ] && [ -z "$(ls "$T/inbox")" ] && [ "$(sent_rows)" = $N ]; then
	ok "4 runs at once on one inbox and database: $N archives, $N reports, each queued by one host and accepted once by the peer ($(printf '%.1f' "$(echo "$t1 - $t0" | bc -l)") s)"
else
	not_ok "4 runs at once" "exit codes: $rcs; queued: $queued; peer accepted $(delivered) ($(distinct) distinct) of $N; done $(ls "$T/done" | wc -l); inbox $(ls "$T/inbox" | wc -l)" \
		"$(tail -n 3 "$T"/h[1-4]/err)"
fi
hosts_busy=0
for h in h1 h2 h3 h4; do grep -Eq ' [1-9][0-9]* queued' "$T/$h/err" && hosts_busy=$((hosts_busy + 1)); done
[ $hosts_busy -ge 2 ] && ok "... the work was shared: $hosts_busy of 4 runs queued reports" ||
	not_ok "work shared" "only $hosts_busy run(s) queued anything" "$(grep -h 'report(s)' "$T"/h[1-4]/err)"
[ "$(sql 'SELECT count(*) FROM archive_claims')" = 0 ] && ok "... every archive claim was released" ||
	not_ok "claims released" "$(sql 'SELECT * FROM archive_claims')"

# ---- 4 hosts start the first report of one finding at the same moment
# Four archives of one finding (the same head, test and metric; four bases:
# four reports, one thread key), one in each host's own inbox.  To make the
# race certain, a psql session holds an ACCESS EXCLUSIVE lock on `optouts`:
# every run reads the thread's first message (none yet), builds its mail as
# the thread's start, and then waits in its opt-out check (the next store
# read) until all four wait there; the lock is let go and all four queue at
# once.  The thread key is unique: one run stores the start, the others find
# the key taken and reply to it.  (The binary before the `threads` table
# sent four thread starts here.)
gen_bases() { # the mlockmany example with its base commit replaced, one archive per host
	"$PY" - "$T" "$@" <<'PYEOF'
import io, lzma, sys, tarfile
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/mlockmany.tar.xz', 'rb').read())))
members = [(m.name, src.extractfile(m).read()) for m in src.getmembers() if m.isfile()]
old = '8f756b95ffe4a7bb2037d8856596585c3235a6f3'
for i, new in enumerate(sys.argv[2:]):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w') as t:
        for name, data in members:
            data = data.replace(old.encode(), new.encode())
            info = tarfile.TarInfo(name.replace(old, new))
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    open('%s/t%d/inbox/base%d.tar' % (sys.argv[1], i + 1, i + 1), 'wb').write(buf.getvalue())
PYEOF
}
fresh
peer_restart
for h in t0 t1 t2 t3 t4; do
	cfg $h
	sed -i "s|^  inbox: .*|  inbox: $T/$h/inbox|" "$T/$h/cfg.yaml"
	mkdir -p "$T/$h/inbox"
done
run_host t0 # an empty inbox: the schema is made
gen_bases 8f756b95ffe4a7bb2037d8856596585c3235a6f3 84e39935160611a9a2d5791c335339ee6c6ce0c3 \
	3d47c79463956a7bbf8cfa997664e7dcd7acf8f1 73b35a7ca810591ceacc045a6219b93f82008fd8
waiters() { sql "SELECT count(*) FROM pg_locks WHERE relation = 'optouts'::regclass AND NOT granted"; }
rm -f "$T/lockfifo"
mkfifo "$T/lockfifo"
psql -X -q "$URL" <"$T/lockfifo" >"$T/lock.out" 2>&1 &
LOCK_PID=$!
exec 3>"$T/lockfifo"
echo "BEGIN; LOCK TABLE optouts IN ACCESS EXCLUSIVE MODE;" >&3
for _ in $(seq 100); do
	[ "$(sql "SELECT count(*) FROM pg_locks WHERE relation = 'optouts'::regclass AND granted AND mode = 'AccessExclusiveLock'")" = 1 ] && break
	sleep 0.1
done
pids=
for h in t1 t2 t3 t4; do run_host $h & pids="$pids $!"; done
for _ in $(seq 300); do [ "$(waiters)" = 4 ] && break; sleep 0.1; done
at_once=$(waiters)
echo "COMMIT;" >&3
exec 3>&-
wait $LOCK_PID
wait $pids
rcs=$(cat "$T"/t[1-4]/rc | tr '\n' ' ')
# the mails as the peer received them: one thread start, three replies to it
thread=$("$PY" - "$T/peer" <<'PYEOF'
import email, glob, sys
starts, replies = [], []
for f in sorted(glob.glob(sys.argv[1] + '/msg-*.eml')):
    m = email.message_from_binary_file(open(f, 'rb'))
    (replies if m['In-Reply-To'] else starts).append(m)
ids = [m['Message-ID'] for m in starts]
ok = len(starts) == 1 and all(r['In-Reply-To'] == ids[0] and ids[0] in r['References'] and
                              r['Subject'].startswith('Re: ') for r in replies)
print('%d start(s) %s, %d replies%s' % (len(starts), ' '.join(ids), len(replies),
      '' if ok else ' NOT all to it: ' + ' '.join(str(r['In-Reply-To']) for r in replies)))
PYEOF
)
rows=$(sql "SELECT count(*) FROM threads" 2>&1)
if [ "$at_once" = 4 ] && [ "$rcs" = "0 0 0 0 " ] && [ "$(delivered)" = 4 ] && [ "$(distinct)" = 4 ] &&
	echo "$thread" | grep -q '^1 start(s) <[^ ]*>, 3 replies$' && [ "$rows" = 1 ] &&
	[ "$(grep -l 'another run started the thread of this finding first' "$T"/t[1-4]/err | wc -l)" = 3 ]; then
	ok "4 hosts queue the first report of one finding at once: one thread start, the 3 others reply to it ($thread)"
else
	not_ok "one thread start among hosts racing" "runs waiting at once: $at_once; exit codes: $rcs; peer accepted $(delivered) ($(distinct) distinct); $thread; threads rows: $rows" \
		"$(cat "$T"/t[1-4]/err | grep -v '^robotmail: queued\|^robotmail: sent')"
fi
"$ROBOTMAIL" store -c "$T/t1/cfg.yaml" check >"$T/check" 2>&1
grep -q '^rows: 1 threads (one first message per thread key)$' "$T/check" && grep -q '^store check: consistent$' "$T/check" &&
	ok "... store check: 1 thread, consistent" || not_ok "store check after the race" "$(cat "$T/check")"

# ---- kill -9 a host mid-delivery; another takes over after its lease
N=12
fresh
peer_restart --data-delay 0.5
gen $N
cfg ka 6s; cfg kb 6s; cfg kc 6s
"$ROBOTMAIL" run -c "$T/ka/cfg.yaml" >"$T/ka/out" 2>"$T/ka/err" &
KPID=$!
for _ in $(seq 300); do [ "$(delivered)" -ge 3 ] && break; sleep 0.1; done
kill -9 $KPID; wait $KPID 2>/dev/null
at_kill=$(delivered)
leased=$(sql "SELECT count(*) FROM messages WHERE state = 'sending' AND lease_host = 'ka'")
# at once: the dead host's lease is live, its messages are left alone
run_host kb
after_b=$(delivered)
if [ "$at_kill" -ge 3 ] && [ "$at_kill" -lt $N ] && [ "$leased" -gt 0 ] && [ "$(cat "$T/kb/rc")" = 0 ] &&
	[ "$after_b" = "$at_kill" ]; then
	ok "kill -9 mid-delivery ($at_kill of $N accepted, $leased leased to the dead host): a run at once sends none of them"
else
	not_ok "run during a live lease" "at kill $at_kill, leased $leased, after b $after_b, rc $(cat "$T/kb/rc")" "$(cat "$T/kb/err")"
fi
waited=$(leases_expire) # the lease (6 s) expires
run_host kc
dups=$(($(delivered) - $(distinct)))
if [ "$(cat "$T/kc/rc")" = 0 ] && [ "$(distinct)" = $N ] && [ $dups -le 1 ] && [ "$(sent_rows)" = $N ] &&
	[ "$(ls "$T/done" | wc -l)" = $N ]; then
	ok "... after the lease expired (waited $waited s) another host took over: all $N reports arrived, $dups twice (at most the one whose DATA was in flight)"
else
	not_ok "takeover" "rc $(cat "$T/kc/rc"); accepted $(delivered), distinct $(distinct) of $N; sent rows $(sent_rows)" "$(cat "$T/kc/err")"
fi

# ---- the database goes away mid-run: exit 75, nothing lost, the next run finishes
N=8
fresh
peer_restart --data-delay 0.4
gen $N
cfg da 5s
"$ROBOTMAIL" run -c "$T/da/cfg.yaml" >"$T/da/out" 2>"$T/da/err" &
DPID=$!
for _ in $(seq 300); do [ "$(delivered)" -ge 2 ] && break; sleep 0.1; done
tests/peers/pg.sh kill "$T/pg"
wait $DPID
drc=$?
"$ROBOTMAIL" run -c "$T/da/cfg.yaml" >"$T/da/out2" 2>"$T/da/err2"
drc2=$?
if [ $drc = 75 ] && [ $drc2 = 75 ] && grep -q "state database 'postgresql://robot@127.0.0.1:$PGPORT/robotmail" "$T/da/err2"; then
	ok "the server stopped mid-run: the run exits 75, and so does a run while it is down (the store named, no password)"
else
	not_ok "server stopped" "rc $drc, then $drc2" "$(cat "$T/da/err" "$T/da/err2")"
fi
tests/peers/pg.sh restart "$T/pg" || not_ok "server restarts"
waited=$(leases_expire) # the leases (5 s) of the interrupted run
"$ROBOTMAIL" run -c "$T/da/cfg.yaml" >"$T/da/out3" 2>"$T/da/err3"
drc3=$?
dups=$(($(delivered) - $(distinct)))
if [ $drc3 = 0 ] && [ "$(distinct)" = $N ] && [ $dups -le 1 ] && [ "$(sent_rows)" = $N ]; then
	ok "... the server back, the leases expired (waited $waited s), the next run finishes: all $N reports arrived, $dups twice"
else
	not_ok "after restart" "rc $drc3; accepted $(delivered), distinct $(distinct) of $N; sent rows $(sent_rows)" "$(cat "$T/da/err3")"
fi

# ---- store migrate: SQLite -> PostgreSQL
fresh
peer_restart
cp contrib/examples/*.tar.xz "$T/inbox/"
mkdir -p "$T/sq"
sed -e "s|^store: .*|store: $T/sq/state.db|" "$T/host-a/cfg.yaml" >"$T/sq/cfg.yaml"
"$ROBOTMAIL" run -c "$T/sq/cfg.yaml" >/dev/null 2>&1
"$ROBOTMAIL" queue -c "$T/sq/cfg.yaml" list >"$T/sq/list"
"$ROBOTMAIL" store -c "$T/sq/cfg.yaml" migrate --to "$URL" >"$T/sq/migrate" 2>&1
mrc=$?
"$ROBOTMAIL" queue -c "$T/host-a/cfg.yaml" list >"$T/sq/list.pg"
if [ $mrc = 0 ] && grep -q '^store migrate: every count matches$' "$T/sq/migrate" &&
	grep -q '^target: 2 reports, 2 messages (0 held, 0 queued, 0 sending, 2 sent, 0 failed; 2 attempts), 11 recipient results, [0-9]* commit-cache rows$' "$T/sq/migrate" &&
	grep -q '^source: 2 threads (one first message per thread key)$' "$T/sq/migrate" &&
	grep -q '^target: 2 threads (one first message per thread key)$' "$T/sq/migrate" &&
	[ "$(sql "SELECT count(*) FROM threads t JOIN messages m ON m.message_id = t.message_id AND m.thread_key = t.key")" = 2 ] &&
	cmp -s "$T/sq/list" "$T/sq/list.pg"; then
	ok "store migrate --to postgresql://: every count matches (the 2 thread rows too), the queue lists the same"
else
	not_ok "store migrate" "rc $mrc" "$(cat "$T/sq/migrate")" "$(diff "$T/sq/list" "$T/sq/list.pg")"
fi
cp contrib/examples/*.tar.xz "$T/inbox/"
run_host host-a
[ "$(cat "$T/host-a/rc")" = 0 ] && grep -q ' 0 queued (0 held), 2 already reported' "$T/host-a/err" && [ "$(delivered)" = 2 ] &&
	ok "... a run on the migrated store knows the reports: nothing sent twice" || not_ok "after migrate" "$(cat "$T/host-a/err")"
"$ROBOTMAIL" store -c "$T/sq/cfg.yaml" migrate --to "$URL" >"$T/sq/migrate2" 2>&1
[ $? = 2 ] && grep -q 'is not empty' "$T/sq/migrate2" &&
	ok "... a second migration into the filled store is refused (exit 2)" || not_ok "second migrate" "$(cat "$T/sq/migrate2")"

# ---- credentials: sslmode is honoured, a password in the URL is never shown
sed "s|^store: .*|store: postgresql://robot:Sekr3tPw@127.0.0.1:$PGPORT/robotmail?sslmode=require|" "$T/host-a/cfg.yaml" >"$T/ssl.yaml"
"$ROBOTMAIL" store -c "$T/ssl.yaml" check >"$T/ssl" 2>&1
src=$?
[ $src != 0 ] && grep -qi 'ssl' "$T/ssl" && ! grep -q Sekr3tPw "$T/ssl" && grep -q 'robot:\*\*\*@' "$T/ssl" &&
	ok "sslmode=require against a server without TLS is refused; the URL's password shows as ***" ||
	not_ok "sslmode" "rc $src" "$(cat "$T/ssl")"
sed "s|^store: .*|store: postgresql://robot:Wr0ngPw@127.0.0.1:$PGPORT/robotmail?sslmode=disable|" "$T/host-a/cfg.yaml" >"$T/badpw.yaml"
"$ROBOTMAIL" store -c "$T/badpw.yaml" check >"$T/badpw" 2>&1
src=$?
[ $src = 2 ] && grep -q 'password authentication failed' "$T/badpw" && ! grep -q Wr0ngPw "$T/badpw" &&
	ok "a wrong password: exit 2 (the operator must fix it), the password not shown" ||
	not_ok "bad password" "rc $src" "$(cat "$T/badpw")"

# ---- entries that are no archive, on a shared inbox: one run sets each aside
fresh
peer_restart
mkfifo "$T/inbox/pipe"
ln -s "$T/nowhere" "$T/inbox/dangling"
cp contrib/examples/mincore.tar.xz "$T/inbox/"
cfg r1; cfg r2
pids=
for h in r1 r2; do run_host $h & pids="$pids $!"; done
wait $pids
named=$(cat "$T/r1/err" "$T/r2/err" | grep -c "^robotmail: error: '$T/inbox/\(pipe\|dangling\)'")
if [ "$(cat "$T/r1/rc") $(cat "$T/r2/rc")" != "0 0" ] && [ "$named" = 2 ] && [ -p "$T/failed/pipe" ] &&
	[ -L "$T/failed/dangling" ] && [ -z "$(ls "$T/inbox")" ] && [ "$(delivered)" = 1 ] && ! grep -q 'cannot move' "$T/r1/err" "$T/r2/err"; then
	ok "a FIFO and a dangling symlink in a shared inbox: set aside once (each named once, failed/), the archive reported once"
else
	not_ok "refused entries on a shared inbox" "exit codes $(cat "$T/r1/rc") $(cat "$T/r2/rc"), named $named, delivered $(delivered)" "$(ls -la "$T/inbox" "$T/failed" 2>&1)" "$(cat "$T/r1/err" "$T/r2/err")"
fi

# ---- listen and status on a PostgreSQL store: tests/suites/listen.sh again,
# its store this database (findings, inbound mail, opt-outs: schema step 5)
reset_db
LISTEN_STORE=$URL bash tests/suites/listen.sh >"$T/listen.log" 2>&1
lok=$(grep -c '^ok' "$T/listen.log")
lnot=$(grep -c '^not ok' "$T/listen.log")
if [ "$lnot" = 0 ] && [ "$lok" -ge 31 ] && [ "$(sql 'select count(*) from findings')" = 1 ]; then
	ok "listen and status on a postgresql:// store: the listen suite's $lok checks pass"
else
	not_ok "listen on a postgresql:// store" "$lok ok, $lnot not ok" "$(grep -A6 '^not ok' "$T/listen.log" | head -40)"
fi
