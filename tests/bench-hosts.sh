#!/usr/bin/env bash
# bench-hosts.sh - several `robotmail run` processes ("hosts": each its own
# host_id and state directory) on one PostgreSQL store and one inbox.
#
# `make bench` runs it.  A throwaway PostgreSQL server (tests/peers/pg.sh)
# and an SMTP peer (tests/peers/smtp-peer.py, which logs each accepted
# message with its Message-ID) on 127.0.0.1.  The inbox holds
# BENCH_HOST_ARCHIVES archives (the mincore example on that many test
# machines: one report each).
#   1. throughput: 1, 2 and 4 processes started together on the full inbox,
#      timed until the inbox is empty and every message is sent; archives/s
#      and the scaling against 1 process.
#   2. kill trial: 4 hosts, each running `robotmail run` in a loop; every
#      BENCH_KILL_EVERY seconds a random running robotmail gets SIGKILL
#      (BENCH_KILLS times), lease 5 s, so leases expire and are taken over.
#      Printed: reports delivered, duplicates (a message accepted more than
#      once: allowed only for one whose DATA was in flight at a kill, so at
#      most one per kill), lost (reports never delivered: must be 0), and
#      archives left outside done/ and failed/ (must be 0).
# A benchmark: it exits non-zero only when a server cannot start, or the
# kill trial lost a report, left an archive behind, or delivered more
# duplicates than kills.
#
# Environment: BUILD (build), ROBOTMAIL, BENCH_HOST_ARCHIVES (2000),
# BENCH_KILLS (8), BENCH_KILL_EVERY (1.5).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${BENCH_HOST_ARCHIVES:=2000}" "${BENCH_KILLS:=8}" "${BENCH_KILL_EVERY:=1.5}"
. tests/lib.sh >/dev/null
RM=${ROBOTMAIL:-$PWD/$BUILD/robotmail}
N=$BENCH_HOST_ARCHIVES
T=$(mktemp -d "${TMPDIR:-/tmp}/robotmail-bench-hosts.XXXXXX")
export XDG_CACHE_HOME=$T/xdg-cache # robotmail's rule cache: not the home
chmod 711 "$T"
PEER_PID=
LOOPS=
cleanup() {
	for p in $LOOPS; do kill "$p" 2>/dev/null; done
	[ -n "$PEER_PID" ] && kill "$PEER_PID" 2>/dev/null && wait "$PEER_PID" 2>/dev/null
	tests/peers/pg.sh stop "$T/pg" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
PGPORT=$(tests/peers/pg.sh start "$T/pg") || { echo "bench-hosts: PostgreSQL did not start" >&2; exit 1; }
URL="postgresql://robot@127.0.0.1:$PGPORT/robotmail?passfile=$T/pg/pgpass&sslmode=disable"
sql() { psql -X -qAt "$URL" -c "$1"; }
reset_db() { psql -X -q "$URL" -c 'SET client_min_messages = warning; DROP SCHEMA public CASCADE; CREATE SCHEMA public' >/dev/null; }
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
mkdir -p "$T/archives"
"$PY" - "$T/archives" "$N" <<'PYEOF'
import io, lzma, sys, tarfile
out, n = sys.argv[1], int(sys.argv[2])
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/mincore.tar.xz', 'rb').read())))
members = [(m.name, src.extractfile(m).read()) for m in src.getmembers() if m.isfile()]
for i in range(n):
    tag = b'lkp-host-%05d' % i
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w') as t:
        for name, data in members:
            info = tarfile.TarInfo(name.replace('lkp-emr-2sp1', tag.decode()))
            data = data.replace(b'lkp-emr-2sp1', tag)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    open('%s/a%05d.tar' % (out, i), 'wb').write(buf.getvalue())
PYEOF
peer() {
	[ -n "$PEER_PID" ] && kill "$PEER_PID" 2>/dev/null && wait "$PEER_PID" 2>/dev/null
	rm -rf "$T/peer"
	smtp_peer_start "$T/peer" 0 "$@"
	[ -n "$PEER_PORT" ] || { echo "bench-hosts: smtp-peer did not start" >&2; exit 1; }
}
cfg() { # HOST LEASE
	mkdir -p "$T/$1"
	cat >"$T/$1/cfg.yaml" <<CFG
include: $PROFILE_0DAY
store: $URL
host_id: $1
lease: $2
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
  batch: 1000000
  timeout: 20
CFG
}
fresh() { rm -rf "$T/inbox" "$T/done" "$T/failed"; mkdir -p "$T/inbox"; cp -l "$T"/archives/*.tar "$T/inbox/"; reset_db; }
accepted() { [ -f "$T/peer/log" ] && wc -l <"$T/peer/log" || echo 0; }
distinct() { [ -f "$T/peer/log" ] && sed 's/.* msgid=\([^ ]*\).*/\1/' "$T/peer/log" | sort -u | wc -l || echo 0; }
left() { ls "$T/inbox" | grep -vc '\.done$'; }
unsent() { sql "SELECT count(*) FROM messages WHERE state <> 'sent'"; }

echo "bench-hosts: $N archives, PostgreSQL on 127.0.0.1:$PGPORT"
declare -A rate
for P in 1 2 4; do
	fresh
	peer
	pids=
	t0=$(date +%s.%N)
	for h in $(seq "$P"); do
		cfg "h$h" 60s
		"$RM" run -c "$T/h$h/cfg.yaml" >"$T/h$h/log" 2>&1 &
		pids="$pids $!"
	done
	wait $pids
	t1=$(date +%s.%N)
	wall=$(echo "$t1 - $t0" | bc -l)
	rate[$P]=$(echo "$N / $wall" | bc -l)
	printf '  %d process(es): %6.1f s, %6.1f archives/s; accepted %d (%d distinct), inbox left %d, unsent %s\n' \
		"$P" "$wall" "${rate[$P]}" "$(accepted)" "$(distinct)" "$(left)" "$(unsent)"
done
printf '  scaling: 2 processes %.2fx, 4 processes %.2fx of 1 (2 CPU cores shared with the peer and the server)\n' \
	"$(echo "${rate[2]} / ${rate[1]}" | bc -l)" "$(echo "${rate[4]} / ${rate[1]}" | bc -l)"

# ---- the kill trial
fresh
peer --data-delay 0.05
for h in k1 k2 k3 k4; do
	cfg "$h" 5s
	(
		# a host: run again until the work is done (the cron of a real host)
		while :; do
			"$RM" run -c "$T/$h/cfg.yaml" >>"$T/$h/log" 2>&1
			[ -f "$T/finished" ] && exit 0
			sleep 0.2
		done
	) 2>/dev/null & # no "Killed" lines from the loop's shell
	LOOPS="$LOOPS $!"
done
kills=0
t0=$(date +%s.%N)
while [ $kills -lt "$BENCH_KILLS" ]; do
	sleep "$BENCH_KILL_EVERY"
	victims=$(pgrep -f "^$RM run -c $T/k" || true)
	[ -z "$victims" ] && continue
	v=$(echo "$victims" | shuf -n1)
	kill -9 "$v" 2>/dev/null && kills=$((kills + 1))
done
# let the hosts finish: inbox empty, every message sent (leases of the killed runs expire)
for _ in $(seq 600); do
	[ "$(left)" = 0 ] && [ "$(unsent)" = 0 ] && [ "$(sql 'SELECT count(*) FROM messages')" -gt 0 ] && break
	sleep 0.5
done
touch "$T/finished"
wait $LOOPS 2>/dev/null
LOOPS=
t1=$(date +%s.%N)
reports=$(sql "SELECT count(*) FROM reports")
dups=$(($(accepted) - $(distinct)))
lost=$((reports - $(distinct)))
outside=$((N - $(ls "$T/done" 2>/dev/null | wc -l) - $(ls "$T/failed" 2>/dev/null | wc -l)))
printf '  kill trial: 4 hosts, %d SIGKILLs, %.1f s: %d reports, %d accepted, %d duplicates, %d lost, %d archives outside done/ and failed/ (%d failed)\n' \
	"$kills" "$(echo "$t1 - $t0" | bc -l)" "$reports" "$(accepted)" "$dups" "$lost" "$outside" "$(ls "$T/failed" 2>/dev/null | wc -l)"
[ "$lost" = 0 ] && [ "$outside" = 0 ] && [ "$dups" -le "$kills" ] && [ "$reports" = "$N" ]
