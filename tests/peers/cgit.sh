#!/bin/sh
# tests/peers/cgit.sh - cgit under lighttpd on 127.0.0.1, for tests.
#
#   cgit.sh start DIR REPO_DIR   config, logs and pid file go in DIR; the repo
#                                is exposed as "linux"; prints the base URL
#                                (http://127.0.0.1:PORT/linux) once
#                                GET <base>/patch/?id=<HEAD> answers 200
#   cgit.sh stop DIR             kill lighttpd by its pid file and wait
#   cgit.sh count DIR            cgit requests served so far (not counting
#                                the readiness probes made by "start")
#   cgit.sh ratelimit DIR SECS   for the next SECS seconds every request is
#                                answered "429 Too Many Requests" with a
#                                Retry-After of the seconds left (0 ends it
#                                at once); the requests still count
#
# Counting: lighttpd runs cgit through DIR/cgit.cgi, which appends
# "METHOD URI" to DIR/requests.log before cgit answers, so the count is exact
# as soon as a client has its response.  lighttpd's own DIR/access.log is
# also written, but lighttpd buffers it (up to ~1 s): use it to diagnose only.
#
# Needs the Debian packages cgit, lighttpd, curl and python3 (free port).
set -eu

PROBE_UA=robotmail-cgit-sh-probe
PY=${PY:-$(command -v /usr/bin/python3 || command -v python3)}
CGI=${CGIT_CGI:-/usr/lib/cgit/cgit.cgi}
CGIT_DATA=${CGIT_DATA:-/usr/share/cgit}

die() {
	echo "cgit.sh: $*" >&2
	exit 1
}

usage() {
	echo "usage: $0 start DIR REPO_DIR | stop DIR | count DIR | ratelimit DIR SECONDS" >&2
	exit 2
}

# running = exists and is not a zombie (the daemon's parent is PID 1, which
# may reap it a second or so late) and is lighttpd (not a reused pid)
running() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = lighttpd ] || return 1
	case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) in Z* | X* | "") return 1 ;; esac
}

alive() {
	[ -s "$1/lighttpd.pid" ] && running "$(cat "$1/lighttpd.pid")"
}

free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

write_conf() { # DIR GITDIR PORT
	cat >"$1/cgit.cgi" <<EOF
#!/bin/sh
[ "\${HTTP_USER_AGENT:-}" = "$PROBE_UA" ] ||
	printf '%s %s\\n' "\$REQUEST_METHOD" "\$REQUEST_URI" >>"$1/requests.log"
if [ -s "$1/ratelimit" ]; then
	until=\$(cat "$1/ratelimit") now=\$(date +%s)
	if [ "\$now" -lt "\$until" ]; then
		printf 'Status: 429 Too Many Requests\\r\\nRetry-After: %s\\r\\nContent-Type: text/plain\\r\\n\\r\\nrate limited\\n' "\$((until - now))"
		exit 0
	fi
fi
CGIT_CONFIG="$1/cgitrc" exec "$CGI"
EOF
	chmod 755 "$1/cgit.cgi"
	cat >"$1/cgitrc" <<EOF
cache-size=0
virtual-root=/
css=/cgit.css
logo=/cgit.png
enable-http-clone=0
enable-commit-graph=0
remove-suffix=1
repo.url=linux
repo.path=$2
repo.desc=robotmail test repo
EOF
	cat >"$1/lighttpd.conf" <<EOF
server.document-root = "$CGIT_DATA"
server.bind          = "127.0.0.1"
server.port          = $3
server.errorlog      = "$1/error.log"
server.pid-file      = "$1/lighttpd.pid"
server.modules       = ( "mod_alias", "mod_cgi", "mod_rewrite", "mod_accesslog" )
accesslog.filename   = "$1/access.log"
accesslog.format     = "%h %t \"%r\" %>s %b \"%{User-Agent}i\""
mimetype.assign      = ( ".css" => "text/css", ".png" => "image/png", ".ico" => "image/x-icon" )
cgi.assign           = ( "cgit.cgi" => "" )
alias.url            = ( "/cgit.cgi" => "$1/cgit.cgi" )
url.rewrite-if-not-file = ( "^/(.*)$" => "/cgit.cgi/\$1" )
EOF
}

start() { # DIR REPO_DIR
	[ -x "$CGI" ] || die "$CGI not found (apt-get install cgit)"
	command -v lighttpd >/dev/null || die "lighttpd not found (apt-get install lighttpd)"
	mkdir -p "$1"
	dir=$(cd "$1" && pwd)
	gitdir=$(git -C "$2" rev-parse --absolute-git-dir) || die "$2 is not a git repository"
	head=$(git -C "$2" rev-parse HEAD) || die "$2 has no HEAD"
	alive "$dir" && die "already running in $dir (pid $(cat "$dir/lighttpd.pid"))"
	rm -f "$dir/lighttpd.pid"
	: >"$dir/requests.log"

	tries=0
	while :; do
		tries=$((tries + 1))
		port=$(free_port)
		write_conf "$dir" "$gitdir" "$port"
		lighttpd -tt -f "$dir/lighttpd.conf" >"$dir/config-test.log" 2>&1 ||
			die "bad lighttpd config: $(cat "$dir/config-test.log")"
		# daemonizes; exits non-zero when the bind fails (port taken meanwhile)
		if lighttpd -f "$dir/lighttpd.conf" >>"$dir/error.log" 2>&1; then
			break
		fi
		[ $tries -lt 5 ] || die "lighttpd did not start: $(tail -n 20 "$dir/error.log")"
	done

	base=http://127.0.0.1:$port/linux
	i=0
	while :; do
		code=$(curl -s -o /dev/null -w '%{http_code}' -A "$PROBE_UA" --max-time 2 \
			"$base/patch/?id=$head" 2>/dev/null) || code=000
		[ "$code" = 200 ] && break
		i=$((i + 1))
		if [ $i -ge 100 ]; then # 100 * 0.1 s = 10 s
			echo "cgit.sh: $base/patch/?id=$head answered $code after 10 s" >&2
			echo "--- $dir/error.log:" >&2
			tail -n 30 "$dir/error.log" >&2 2>/dev/null || true
			stop "$dir"
			exit 1
		fi
		sleep 0.1
	done
	echo "$base"
}

stop() { # DIR
	[ -s "$1/lighttpd.pid" ] || return 0
	pid=$(cat "$1/lighttpd.pid")
	if running "$pid" && kill "$pid" 2>/dev/null; then
		i=0
		while running "$pid"; do
			i=$((i + 1))
			if [ $i -ge 50 ]; then
				kill -9 "$pid" 2>/dev/null || true
			fi
			[ $i -lt 100 ] || die "lighttpd pid $pid would not die"
			sleep 0.1
		done
	fi
	rm -f "$1/lighttpd.pid"
}

ratelimit() { # DIR SECONDS
	case $2 in '' | *[!0-9]*) usage ;; esac
	echo $(($(date +%s) + $2)) >"$1/ratelimit.tmp" && mv "$1/ratelimit.tmp" "$1/ratelimit"
}

count() { # DIR
	if [ -f "$1/requests.log" ]; then
		wc -l <"$1/requests.log" | tr -d ' '
	else
		echo 0
	fi
}

[ $# -ge 2 ] || usage
case $1 in
start) [ $# -eq 3 ] || usage; start "$2" "$3" ;;
stop) [ $# -eq 2 ] || usage; stop "$2" ;;
count) [ $# -eq 2 ] || usage; count "$2" ;;
ratelimit) [ $# -eq 3 ] || usage; ratelimit "$2" "$3" ;;
*) usage ;;
esac
