#!/usr/bin/env bash
# soak.sh (make soak): 10,000 generated archives through `robotmail run` in
# batches, as cron would run it, into an SMTP peer that stores only what it
# accepted, with commit facts from a real cgit under lighttpd, and faults on
# the way: the SMTP server down for a run, stopped in the middle of a run,
# answering 450 to RCPT, 421 at the greeting, 450 after DATA; the git web API
# down, rate-limited (429) briefly and for longer than robotmail waits; the
# state database locked by another process, its disk full at the start and
# filling up during a run; archives still
# being written.  At the end every expected report must have arrived once
# (at most one duplicate: the message whose 250 the stopped server never
# sent); peak RSS per batch must stay flat.  Prints the figures.  Not part of
# `make test`.
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
	tests/peers/cgit.sh stop "$T/cg" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
. tests/lib.sh >/dev/null
tests/peers/make-test-repo.sh "$T/repo" >"$T/manifest"
mkdir -p "$T/inbox" "$T/peer" "$T/sink"
CGIT=$(tests/peers/cgit.sh start "$T/cg" "$T/repo") || { echo "soak: cgit did not start: $CGIT" >&2; exit 1; }
sha() { sed -n "${1}p" "$T/manifest" | cut -d' ' -f1; } # Nth commit of the test repository
peer_start() {
	smtp_peer_start "$T/peer" "${1:-0}"
	PORT=$PEER_PORT
	[ -n "$PORT" ] || { echo "soak: smtp-peer did not start: $(cat "$T/peer.out")" >&2; exit 1; }
}
peer_stop() { kill "$PEER_PID" 2>/dev/null; wait "$PEER_PID" 2>/dev/null; PEER_PID=; }
peer_start
cfg() { # TRANSPORT SETTLE
	cat >"$T/cfg.yaml" <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/state.db
  inbox: $T/inbox
  done: $T/done
  failed: $T/failed
gitweb:
  retries: 1
  max_wait: 10
$(linus_tree cgit "$CGIT")
delivery:
  transport: $1
  settle: ${2:-0}
  backoff: 0
  batch: 1000000
  max_age: 864000
CFG
}
cfg "smtp://127.0.0.1:$PORT"
gen() { # FIRST COUNT [EXAMPLE [OLD_SHA NEW_SHA]...]: the example's commits renamed
	"$PY" - "$T/inbox" "$1" "$2" "${3:-mincore}" "${@:4}" <<'PYEOF'
import io, lzma, sys, tarfile
out, first, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/%s.tar.xz' % sys.argv[4], 'rb').read())))
ren = [(sys.argv[k].encode(), sys.argv[k + 1].encode()) for k in range(5, len(sys.argv), 2)]
members = []
for m in src.getmembers():
    if m.isfile():
        name, data = m.name.encode(), src.extractfile(m).read()
        for old, new in ren:
            name, data = name.replace(old, new), data.replace(old, new)
        members.append((name.decode(), data))
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
state_db() { sed -n 's/^  state_db: //p' "$T/cfg.yaml"; }
run() { # LABEL
	local t0 t1 rc
	t0=$(date +%s.%N)
	/usr/bin/time -f '%M' -o "$T/rss" "$RM" run -c "$T/cfg.yaml" >"$T/run.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	printf '%-34s exit %-3s %6.2f s  peak RSS %6.1f MiB  inbox %4d  done %5d  queued %4d  sent %5d\n' "$1" "$rc" \
		"$(echo "$t1 - $t0" | bc -l)" "$(echo "$(tail -1 "$T/rss") / 1024" | bc -l)" \
		"$(ls "$T/inbox" | wc -l)" "$(ls "$T/done" 2>/dev/null | wc -l)" \
		"$(sqlite3 "$(state_db)" "select count(*) from messages where state = 'queued'" 2>/dev/null)" \
		"$(sqlite3 "$(state_db)" "select count(*) from messages where state = 'sent'" 2>/dev/null)"
	# what the run said (cron would mail it): its first line and how many
	[ -s "$T/run.log" ] && printf '    log: %d line(s), first: %.150s\n' "$(wc -l <"$T/run.log")" "$(head -1 "$T/run.log")"
	cat "$T/run.log" >>"$T/runs.log"
	tail -1 "$T/rss" >>"$T/rss.all"
}
sink_run() { # LABEL SMTP-SINK-OPTIONS...: a run against a server that refuses
	local label=$1
	shift
	peer_stop
	SINK=$(tests/peers/smtp-sink.sh start "$T/sink" "$@")
	cfg "smtp://127.0.0.1:$SINK"; run "$label"
	tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null; peer_start "$PORT"; cfg "smtp://127.0.0.1:$PORT"
}
delivered() { [ -f "$T/peer/log" ] && wc -l <"$T/peer/log" || echo 0; }
start=$(date +%s.%N)
batches=$((N / B))
for b in $(seq 0 $((batches - 1))); do
	# batches 9-11 test commits the cache has not seen yet (the other
	# example, the first one renamed onto other commits of the repository)
	case $b in
	9)  gen $((b * B)) "$B" mlockmany ;;
	10) gen $((b * B)) "$B" mincore "$(sha 8)" "$(sha 5)" "$(sha 9)" "$(sha 6)" ;;
	11) gen $((b * B)) "$B" mincore "$(sha 8)" "$(sha 7)" "$(sha 9)" "$(sha 10)" ;;
	*)  gen $((b * B)) "$B" mincore ;;
	esac
	case $b in
	3)  peer_stop; run "batch $b: SMTP server down"; peer_start "$PORT" ;;
	4)  # the server stops after 100 more messages, and is back for the next run
	    n0=$(delivered)
	    (while [ "$(delivered)" -lt $((n0 + 100)) ]; do sleep 0.02; done; kill "$PEER_PID") &
	    stopper=$!
	    run "batch $b: SMTP stops mid-run"; kill "$stopper" 2>/dev/null; wait "$stopper" 2>/dev/null
	    peer_stop; peer_start "$PORT" ;;
	6)  sink_run "batch $b: 450 to every RCPT" -r RCPT ;;
	7)  sink_run "batch $b: 421 at the greeting" -Q CONNECT ;;
	8)  sink_run "batch $b: 450 after DATA" -r . ;;
	9)  CG0=$(tests/peers/cgit.sh count "$T/cg"); tests/peers/cgit.sh stop "$T/cg"; run "batch $b: git web API down"
	    CGIT=$(tests/peers/cgit.sh start "$T/cg" "$T/repo") || exit 1; cfg "smtp://127.0.0.1:$PORT" ;;
	10) tests/peers/cgit.sh ratelimit "$T/cg" 3; run "batch $b: git web 429 for 3 s" ;;
	11) tests/peers/cgit.sh ratelimit "$T/cg" 120; run "batch $b: git web 429 for 120 s"
	    tests/peers/cgit.sh ratelimit "$T/cg" 0 ;;
	12) "$PY" -c 'import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute("BEGIN EXCLUSIVE"); time.sleep(14)' "$T/state.db" &
	    locker=$!; sleep 1; run "batch $b: state db locked"; wait $locker ;;
	15) cfg "smtp://127.0.0.1:$PORT" 3600; run "batch $b: still being written"; cfg "smtp://127.0.0.1:$PORT" ;;
	17) # the disk of the state database: full when the run starts, then
	    # filling up while it queues (a tmpfs with 512 KiB left)
	    mkdir -p "$T/full"
	    if mount -t tmpfs -o size=$(($(du -m "$T/state.db" | cut -f1) + 64))m tmpfs "$T/full" 2>/dev/null; then
		    cp "$T/state.db" "$T/full/state.db"
		    sed -i "s|state_db: $T/state.db|state_db: $T/full/state.db|" "$T/cfg.yaml"
		    head -c 200m /dev/zero >"$T/full/filler" 2>/dev/null
		    run "batch $b: state disk full"
		    rm -f "$T/full/filler"
		    head -c $((($(df -k --output=avail "$T/full" | tail -1) - 512) * 1024)) /dev/zero >"$T/full/filler"
		    run "batch $b: state disk fills up"
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
echo "soak: requests at cgit: $((${CG0:-0} + $(tests/peers/cgit.sh count "$T/cg"))) (the commit cache answers the rest)"
[ "$arrived" = "$N" ] && [ "$dups" -le 1 ] && [ -z "$(ls "$T/inbox")" ] && [ -z "$(ls "$T/failed" 2>/dev/null)" ]
