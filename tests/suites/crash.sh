#!/usr/bin/env bash
# crash: kill -9 `robotmail run` at random points while it reports 200
# archives and sends their messages to an SMTP peer that stores only what it
# accepted; run again until the queue is empty.  Every message must arrive;
# a Message-ID may arrive twice only when a kill fell between the server's
# 250 to DATA and the outbox recording it (at most one per kill).  Also: two
# runs started together never send the same message.
. tests/lib.sh
mk_tmp
T=$TEST_TMP
PEER_PID=
cleanup() { [ -n "$PEER_PID" ] && kill "$PEER_PID" 2>/dev/null && wait "$PEER_PID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
N=${CRASH_ARCHIVES:-200}
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
mkdir -p "$T/inbox" "$T/peer"
"$PY" - "$T/inbox" "$N" <<'PYEOF'
import io, lzma, sys, tarfile
out, n = sys.argv[1], int(sys.argv[2])
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/mincore.tar.xz', 'rb').read())))
members = [(m, src.extractfile(m).read()) for m in src.getmembers() if m.isfile()]
for i in range(n):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w') as t:
        for m, data in members:
            name = m.name.replace('lkp-emr-2sp1', 'lkp-emr-%03d' % i)
            data = data.replace(b'lkp-emr-2sp1', b'lkp-emr-%03d' % i)
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    open('%s/a%03d.tar' % (out, i), 'wb').write(buf.getvalue())
PYEOF
smtp_peer_start "$T/peer"
PORT=$PEER_PORT
[ -n "$PORT" ] || { not_ok "smtp-peer starts" "$(cat "$T/peer.out")"; exit 0; }
cat >"$T/cfg.yaml" <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/state.db
  inbox: $T/inbox
  done: $T/done
  failed: $T/failed
$(linus_tree local-git "$T/repo")
delivery:
  transport: smtp://127.0.0.1:$PORT
  settle: 0
  backoff: 0
CFG
kills=0
for round in $(seq 60); do
	"$ROBOTMAIL" run -c "$T/cfg.yaml" >>"$T/runs.log" 2>&1 &
	pid=$!
	sleep "$(printf "0.%03d" $(( (RANDOM % 390) + 10 )))" 2>/dev/null || sleep 0.05
	if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
	wait "$pid" 2>/dev/null
	left=$("$ROBOTMAIL" queue -c "$T/cfg.yaml" list 2>/dev/null | grep -vc $'\tsent\t')
	[ -z "$(ls "$T/inbox")" ] && [ "$left" = 0 ] && break
done
# a last run without a kill finishes whatever is left
"$ROBOTMAIL" run -c "$T/cfg.yaml" >>"$T/runs.log" 2>&1
sent=$("$ROBOTMAIL" queue -c "$T/cfg.yaml" list | grep -c $'\tsent\t')
"$PY" tests/peers/smtp-check.py count-msgids "$T/peer" >"$T/ids" 2>&1
unique=$(wc -l <"$T/ids")
dups=$(awk '$2 > 1 {d += $2 - 1} END {print d + 0}' "$T/ids")
echo "# crash test: $N archives, $kills kill -9, $unique distinct Message-IDs arrived, $dups duplicate deliveries"
[ "$sent" = "$N" ] && ok "after $kills kills every one of the $N messages is marked sent" || not_ok "all sent after kills" "sent=$sent" "$(tail -5 "$T/runs.log")"
[ "$unique" = "$N" ] && ok "every message arrived at the server ($unique distinct Message-IDs)" || not_ok "all arrived" "unique=$unique"
[ "$dups" -le "$kills" ] && ok "duplicates ($dups) only from kills between DATA's 250 and the record (at most one per kill: $kills)" ||
	not_ok "duplicates bounded by kills" "dups=$dups kills=$kills"

# two runs at once: the lock lets one work; nothing is sent twice
rm -rf "$T/state.db"* "$T/peer"/* "$T/done"
mkdir -p "$T/inbox2"
sed -i "s|inbox: $T/inbox|inbox: $T/inbox2|" "$T/cfg.yaml"
cp contrib/examples/*.tar.xz "$T/inbox2/"
"$ROBOTMAIL" run -c "$T/cfg.yaml" >"$T/r1" 2>&1 &
p1=$!
"$ROBOTMAIL" run -c "$T/cfg.yaml" >"$T/r2" 2>&1 &
p2=$!
wait $p1
wait $p2
"$ROBOTMAIL" run -c "$T/cfg.yaml" >/dev/null 2>&1
"$PY" tests/peers/smtp-check.py count-msgids "$T/peer" >"$T/ids2"
[ "$(wc -l <"$T/ids2")" = 2 ] && [ "$(awk '$2 > 1' "$T/ids2" | wc -l)" = 0 ] &&
	ok "two concurrent runs: each message sent exactly once" || not_ok "concurrent runs" "$(cat "$T/ids2" "$T/r1" "$T/r2")"
