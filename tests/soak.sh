#!/usr/bin/env bash
# soak.sh (make soak): 10,000 generated archives through `robotmail run` in
# batches, as cron would run it, into an SMTP peer that stores only what it
# accepted, with faults on the way: the SMTP server down, a server answering
# 4xx, the git web API (here a local clone) gone, the state database locked
# by another process, archives still being written.  At the end every
# expected report must have arrived exactly once; peak RSS per batch must
# stay flat.  Prints the figures.  Not part of `make test`.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}"
N=${SOAK_ARCHIVES:-10000}
B=${SOAK_BATCH:-500}
PY=$(command -v /usr/bin/python3 || command -v python3)
RM=$PWD/$BUILD/robotmail
T=$(mktemp -d "${TMPDIR:-/tmp}/robotmail-soak.XXXXXX")
PEER_PID=
cleanup() {
	[ -n "$PEER_PID" ] && kill "$PEER_PID" 2>/dev/null && wait "$PEER_PID" 2>/dev/null
	umount "$T/full" 2>/dev/null
	tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
. tests/lib.sh >/dev/null
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
mkdir -p "$T/inbox" "$T/peer" "$T/sink"
peer_start() {
	/usr/bin/python3 tests/peers/smtp-peer.py --port "${1:-0}" --dir "$T/peer" >"$T/peer.out" 2>&1 &
	PEER_PID=$!
	for _ in $(seq 100); do grep -q listening "$T/peer.out" && break; sleep 0.1; done
	PORT=$(awk '/listening/ {print $2}' "$T/peer.out")
}
peer_stop() { kill "$PEER_PID" 2>/dev/null; wait "$PEER_PID" 2>/dev/null; PEER_PID=; }
peer_start
cfg() { # TRANSPORT SETTLE
	cat >"$T/cfg.yaml" <<CFG
paths:
  state_db: $T/state.db
  inbox: $T/inbox
  done: $T/done
  failed: $T/failed
$(linus_tree local-git "$T/repo")
delivery:
  transport: $1
  settle: ${2:-0}
  backoff: 0
  batch: 1000000
  max_age: 864000
CFG
}
cfg "smtp://127.0.0.1:$PORT"
gen() { # FIRST COUNT [EXAMPLE]
	"$PY" - "$T/inbox" "$1" "$2" "${3:-mincore}" <<'PYEOF'
import io, lzma, sys, tarfile
out, first, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/%s.tar.xz' % sys.argv[4], 'rb').read())))
members = [(m.name, src.extractfile(m).read()) for m in src.getmembers() if m.isfile()]
for i in range(first, first + n):
    tag = b'lkp-soak-%05d' % i
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w') as t:
        for name, data in members:
            info = tarfile.TarInfo(name.replace('lkp-emr-2sp1', tag.decode()))
            data = data.replace(b'lkp-emr-2sp1', tag)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    open('%s/a%05d.tar' % (out, i), 'wb').write(buf.getvalue())
PYEOF
}
run() { # LABEL
	local t0 t1 rc
	t0=$(date +%s.%N)
	/usr/bin/time -f '%M' -o "$T/rss" "$RM" run -c "$T/cfg.yaml" >>"$T/runs.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	printf '%-28s exit %-3s %6.2f s  peak RSS %6.1f MiB  inbox %4d  done %5d  sent %5d\n' "$1" "$rc" \
		"$(echo "$t1 - $t0" | bc -l)" "$(echo "$(tail -1 "$T/rss") / 1024" | bc -l)" \
		"$(ls "$T/inbox" | wc -l)" "$(ls "$T/done" 2>/dev/null | wc -l)" \
		"$(sqlite3 "$T/state.db" "select count(*) from messages where state = 'sent'" 2>/dev/null)"
	tail -1 "$T/rss" >>"$T/rss.all"
}
start=$(date +%s.%N)
batches=$((N / B))
for b in $(seq 0 $((batches - 1))); do
	# batch 9 tests commits the cache has not seen yet (the other example)
	gen $((b * B)) "$B" "$([ "$b" = 9 ] && echo mlockmany || echo mincore)"
	case $b in
	3)  peer_stop; run "batch $b: SMTP server down"; peer_start "$PORT" ;;
	6)  peer_stop
	    SINK=$(tests/peers/smtp-sink.sh start "$T/sink" -r RCPT)
	    cfg "smtp://127.0.0.1:$SINK"; run "batch $b: server answers 450"
	    tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null; peer_start "$PORT"; cfg "smtp://127.0.0.1:$PORT" ;;
	9)  mv "$T/repo" "$T/repo.away"; run "batch $b: git web API gone"; mv "$T/repo.away" "$T/repo" ;;
	12) "$PY" -c 'import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute("BEGIN EXCLUSIVE"); time.sleep(14)' "$T/state.db" &
	    locker=$!; sleep 1; run "batch $b: state db locked"; wait $locker ;;
	15) cfg "smtp://127.0.0.1:$PORT" 3600; run "batch $b: still being written"; cfg "smtp://127.0.0.1:$PORT" ;;
	17) # the disk of the state database is full: a small tmpfs, filled up
	    mkdir -p "$T/full"
	    if mount -t tmpfs -o size=64m tmpfs "$T/full" 2>/dev/null; then
		    cp "$T/state.db" "$T/full/state.db"
		    head -c 80m /dev/zero >"$T/full/filler" 2>/dev/null
		    sed -i "s|state_db: $T/state.db|state_db: $T/full/state.db|" "$T/cfg.yaml"
		    run "batch $b: state disk full"
		    rm -f "$T/full/filler"
		    "$RM" queue -c "$T/cfg.yaml" list >/dev/null 2>&1 # checkpoint the WAL into state.db
		    cp "$T/full/state.db" "$T/state.db"
		    rm -f "$T/state.db-wal" "$T/state.db-shm"
		    sed -i "s|state_db: $T/full/state.db|state_db: $T/state.db|" "$T/cfg.yaml"
		    umount "$T/full"
	    else
		    run "batch $b (no tmpfs: disk-full fault skipped)"
	    fi ;;
	*)  run "batch $b" ;;
	esac
done
run "final"
run "final (idempotent)"
end=$(date +%s.%N)
"$PY" tests/peers/smtp-check.py count-msgids "$T/peer" >"$T/ids"
arrived=$(wc -l <"$T/ids")
dups=$(awk '$2 > 1 {d += $2 - 1} END {print d + 0}' "$T/ids")
wall=$(echo "$end - $start" | bc -l)
first_rss=$(head -1 "$T/rss.all")
max_rss=$(sort -n "$T/rss.all" | tail -1)
echo "soak: $N archives in $batches batches of $B, $(printf '%.0f' "$wall") s:" \
	"$(printf '%.0f' "$(echo "$N / $wall" | bc -l)") archives/s, $(printf '%.0f' "$(echo "$arrived / $wall" | bc -l)") mails/s;" \
	"peak RSS first batch $((first_rss / 1024)) MiB, largest $((max_rss / 1024)) MiB; state db $(du -k "$T/state.db" | cut -f1) KiB"
echo "soak: $arrived distinct Message-IDs arrived (expected $N), $dups duplicates, inbox left: $(ls "$T/inbox" | wc -l), failed/: $(ls "$T/failed" 2>/dev/null | wc -l)"
[ "$arrived" = "$N" ] && [ "$dups" = 0 ] && [ -z "$(ls "$T/inbox")" ]
