#!/bin/sh
# tests/peers/smtp-sink.sh - Postfix's smtp-sink on 127.0.0.1, for tests.
#
#   smtp-sink.sh start DIR [OPTION...]   start /usr/sbin/smtp-sink on a free
#                                        127.0.0.1 port; print the port once it
#                                        accepts connections (waits up to 10 s)
#   smtp-sink.sh stop DIR                kill it by its pid file and wait
#   smtp-sink.sh count DIR               number of dump files (messages)
#
# Every mail transaction is dumped to its own file under DIR/dump/ (emptied by
# "start"): smtp-sink's X-Client-Addr, X-Client-Proto, X-Helo-Args,
# X-Mail-Args, X-Rcpt-Args (one per RCPT) and Received: lines, then the
# message as received (LF line endings, dot-unstuffed), then an empty line.
# smtp-sink's own output goes to DIR/smtp-sink.log, its pid to DIR/smtp-sink.pid.
#
# Always passed: -a (no AUTH: smtp-sink answers AUTH with 250, not 235, so
# clients fail), -u root when run as root (required), -d DIR/dump/...
# OPTIONs are passed through to smtp-sink (see man smtp-sink); they apply to
# EVERY instance of the command, for every recipient and session:
#   -r RCPT               450 4.3.0 on each RCPT (also -r MAIL, -r DATA, -r .)
#   -f . -B "554 5.7.1 rejected"   5xx after DATA with that text (-b: 4xx text)
#   -Q MAIL               421 and disconnect on MAIL (-q CMD: no reply at all)
#   -w 3 / -W RCPT:3      slow replies to DATA / to the named command
# Pitfalls: the dump file is written even for a message refused after DATA
# (-f ., -r .), so "count" does not prove acceptance; use smtp-peer.py for
# that.  -M/-n (exit after N messages/sessions) do not make it exit: "stop".
# smtp-sink cannot reject single recipients and has no STARTTLS.
#
# Needs the Debian packages postfix (install with debconf "No configuration")
# and python3 (free port).  Reads /proc.
set -eu

SINK=${SMTP_SINK:-/usr/sbin/smtp-sink}
PY=${PY:-$(command -v /usr/bin/python3 || command -v python3)}

die() {
	echo "smtp-sink.sh: $*" >&2
	exit 1
}

usage() {
	echo "usage: $0 start DIR [smtp-sink option...] | stop DIR | count DIR" >&2
	exit 2
}

# running = exists, is smtp-sink (not a reused pid) and is not a zombie (once
# orphaned, its parent is PID 1, which may reap it a second or so late)
running() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = smtp-sink ] || return 1
	case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) in Z* | X* | "") return 1 ;; esac
}

alive() {
	[ -s "$1/smtp-sink.pid" ] && running "$(cat "$1/smtp-sink.pid")"
}

free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ready PID PORT: 0 when PID listens on 127.0.0.1:PORT and a TCP connection
# to it is accepted; 1 when not yet; 2 when some other process has the port
ready() {
	"$PY" - "$1" "$2" <<'EOF'
import os, socket, sys
pid, port = sys.argv[1], int(sys.argv[2])
want = '0100007F:%04X' % port
try:
    mine = {os.readlink('/proc/%s/fd/%s' % (pid, fd)) for fd in os.listdir('/proc/%s/fd' % pid)}
except OSError:
    sys.exit(1)
owner = None
for line in open('/proc/net/tcp').read().splitlines()[1:]:
    f = line.split()
    if f[1] == want and f[3] == '0A':          # LISTEN
        owner = 'socket:[%s]' % f[9] in mine
if owner is None:
    sys.exit(1)
if not owner:
    sys.exit(2)
try:
    socket.create_connection(('127.0.0.1', port), timeout=2).close()
except OSError:
    sys.exit(1)
EOF
}

start() { # DIR OPTION...
	d=$1
	shift
	[ -x "$SINK" ] || die "$SINK not found (apt-get install postfix, debconf 'No configuration')"
	mkdir -p "$d"
	dir=$(cd "$d" && pwd)
	alive "$dir" && die "already running in $dir (pid $(cat "$dir/smtp-sink.pid"))"
	rm -rf "$dir/dump" "$dir/smtp-sink.pid"
	mkdir -p "$dir/dump"
	: >"$dir/smtp-sink.log"
	user=
	[ "$(id -u)" != 0 ] || user="-u root"

	tries=0
	while :; do
		tries=$((tries + 1))
		port=$(free_port)
		# shellcheck disable=SC2086 # $user is "" or "-u root"
		"$SINK" $user -a -d "$dir/dump/%Y%m%d%H/%M%S." "$@" "127.0.0.1:$port" 64 \
			</dev/null >>"$dir/smtp-sink.log" 2>&1 &
		pid=$!
		echo "$pid" >"$dir/smtp-sink.pid"
		# st: 0 ready, 1 not yet / timed out, 2 another process has the
		# port, 3 smtp-sink exited
		i=0
		while :; do
			if ! running "$pid"; then
				# just forked, not yet exec'd (comm is still the shell's): wait
				case $(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) in
				Z* | X* | "") st=3; break ;;
				esac
				i=$((i + 1))
				[ $i -lt 100 ] || { st=3; break; }
				sleep 0.1
				continue
			fi
			st=0
			ready "$pid" "$port" || st=$?
			[ "$st" -eq 1 ] || break
			i=$((i + 1))
			[ $i -lt 100 ] || break # 100 * 0.1 s = 10 s
			sleep 0.1
		done
		[ "$st" -eq 0 ] && break
		stop "$dir"
		if [ $tries -lt 5 ]; then
			# lost a race for the port: try another one
			[ "$st" -eq 2 ] && continue
			[ "$st" -eq 3 ] && grep -qi 'in use' "$dir/smtp-sink.log" && continue
		fi
		die "smtp-sink did not start on 127.0.0.1:$port: $(tail -n 20 "$dir/smtp-sink.log")"
	done
	echo "$port"
}

stop() { # DIR
	[ -s "$1/smtp-sink.pid" ] || return 0
	pid=$(cat "$1/smtp-sink.pid")
	if running "$pid" && kill "$pid" 2>/dev/null; then
		i=0
		while running "$pid"; do
			i=$((i + 1))
			if [ $i -ge 50 ]; then
				kill -9 "$pid" 2>/dev/null || true
			fi
			[ $i -lt 100 ] || die "smtp-sink pid $pid would not die"
			sleep 0.1
		done
	fi
	# reap it when it is still our child (start's failure path)
	wait "$pid" 2>/dev/null || true
	rm -f "$1/smtp-sink.pid"
}

count() { # DIR
	if [ -d "$1/dump" ]; then
		find "$1/dump" -type f | wc -l | tr -d ' '
	else
		echo 0
	fi
}

[ $# -ge 2 ] || usage
cmd=$1
shift
case $cmd in
start) start "$@" ;;
stop) [ $# -eq 1 ] || usage; stop "$1" ;;
count) [ $# -eq 1 ] || usage; count "$1" ;;
*) usage ;;
esac
