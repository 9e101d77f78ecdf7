#!/bin/sh
# tests/peers/pg.sh - a throwaway PostgreSQL cluster on 127.0.0.1, for tests.
#
#   pg.sh start DIR    initdb into DIR/data (as the unprivileged user
#                      `postgres` when run as root: PostgreSQL refuses root),
#                      start it on a free 127.0.0.1 port (socket in DIR),
#                      create the database `robotmail` owned by the login
#                      `robot`, whose random password goes only into DIR/pgpass
#                      (a libpq password file, mode 600), and print the port.
#                      Exits 1 with the reason when a step fails (a suite must
#                      fail then, never skip).  DIR's parents must be
#                      traversable by `postgres` (chmod 711).
#   pg.sh stop DIR     fast shutdown, waits
#   pg.sh kill DIR     immediate shutdown (clients see the server vanish)
#   pg.sh restart DIR  start it again on the same port
#   pg.sh psql DIR SQL run SQL as the superuser over the socket (trust)
# initdb skips its fsync (-N): a throwaway cluster, run with fsync=off.
#
# The server binaries are Debian's (package postgresql): /usr/lib/postgresql/*/bin.
set -eu
PY=${PY:-$(command -v /usr/bin/python3 || command -v python3)}
die() { echo "pg.sh: $*" >&2; exit 1; }
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$BIN" ] && [ -x "$BIN/initdb" ] || die "no PostgreSQL server under /usr/lib/postgresql/*/bin (Debian package postgresql)"
[ $# -ge 2 ] || die "usage: pg.sh start|stop|kill|restart|psql DIR [SQL]"
cmd=$1
mkdir -p "$2"
DIR=$(cd "$2" && pwd)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
launch() {
	as_pg "$BIN/pg_ctl" -D "$DIR/data" -w -t 60 -l "$DIR/server.log" \
		-o "-p $(cat "$DIR/port") -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100" \
		start >/dev/null 2>&1 || die "the server did not start: $(tail -5 "$DIR/server.log" 2>/dev/null)"
}
sql() { as_pg "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$(cat "$DIR/port")" -U postgres -d "${2:-postgres}" -c "$1"; }
case $cmd in
start)
	[ "$(id -u)" = 0 ] && chown postgres "$DIR"
	chmod 700 "$DIR"
	as_pg "$BIN/initdb" -N -D "$DIR/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
		>"$DIR/initdb.log" 2>&1 || die "initdb failed: $(tail -5 "$DIR/initdb.log")"
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >"$DIR/port.new"
	mv "$DIR/port.new" "$DIR/port"
	launch
	pw=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	sql "CREATE ROLE robot LOGIN PASSWORD '$pw'" >/dev/null || die "cannot create the login"
	sql "CREATE DATABASE robotmail OWNER robot" >/dev/null || die "cannot create the database"
	(umask 077 && printf '127.0.0.1:%s:*:robot:%s\n' "$(cat "$DIR/port")" "$pw" >"$DIR/pgpass")
	cat "$DIR/port"
	;;
stop) as_pg "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true ;;
kill) as_pg "$BIN/pg_ctl" -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1 || true ;;
restart) launch ;;
psql) sql "$3" robotmail ;;
*) die "unknown command $cmd" ;;
esac
