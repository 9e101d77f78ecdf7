#!/bin/sh
# tests/peers/postfix.sh - a private Postfix instance on 127.0.0.1 that relays
# everything to a test SMTP peer, for tests (the relay of README "Running on
# several hosts": robotmail hands mail to a local Postfix, which owns the
# queueing towards the internet).
#
#   postfix.sh start DIR RELAYPORT [REJECT_REGEXP]
#        writes DIR/main.cf and DIR/master.cf (config_directory DIR, queue
#        in DIR/spool, data in DIR/data, log in DIR/maillog), listens on a
#        free 127.0.0.1 port (smtpd, no chroot), relays every message to
#        [127.0.0.1]:RELAYPORT, delivers nothing locally, and prints the
#        port once it answers.  RCPT TO addresses matching REJECT_REGEXP
#        (a Postfix regexp, e.g. /^refused@/) get "550 5.1.1 refused by the
#        relay" from Postfix itself.  Exits 1 with the reason when a step
#        fails (a suite must fail then, never skip).
#   postfix.sh stop DIR     stops its master (SIGTERM, as postfix stop) and waits
#   postfix.sh flush DIR    postqueue -c DIR -f (try the deferred mail now)
#
# Messages also enter through Postfix's sendmail with `-C DIR` (postdrop, set-gid
# postdrop: as root, or with DIR listed in the default main.cf's
# alternate_config_directories).  Never touches the system's /etc/postfix, its
# queue or port 25.  As root (Postfix's master must be root; its daemons run as
# the user postfix, which must be able to reach DIR: chmod 711 the parents).
# Debian package: postfix (debconf "No configuration": the system instance
# stays unconfigured and stopped).
set -eu
PY=${PY:-$(command -v /usr/bin/python3 || command -v python3)}
die() { echo "postfix.sh: $*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: postfix.sh start DIR RELAYPORT [REJECT_REGEXP] | stop DIR | flush DIR"
command -v /usr/sbin/postfix >/dev/null || die "no /usr/sbin/postfix (Debian package postfix)"
cmd=$1
mkdir -p "$2"
DIR=$(cd "$2" && pwd)
case $cmd in
start)
	[ $# -ge 3 ] || die "start: RELAYPORT missing"
	[ "$(id -u)" = 0 ] || die "start: Postfix's master runs as root"
	relay=$3
	reject=${4:-}
	port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	mkdir -p "$DIR/spool"
	if [ -n "$reject" ]; then
		printf '%s 550 5.1.1 refused by the relay\n' "$reject" >"$DIR/rcpt_access"
	else
		: >"$DIR/rcpt_access"
	fi
	cat >"$DIR/main.cf" <<EOF
compatibility_level = 3.6
queue_directory = $DIR/spool
data_directory = $DIR/data
mail_owner = postfix
setgid_group = postdrop
myhostname = relay.example.org
mydomain = example.org
myorigin = example.org
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
mydestination =
local_recipient_maps =
local_transport = error:5.1.1 no local delivery here
alias_maps =
alias_database =
relay_domains =
relayhost = [127.0.0.1]:$relay
smtpd_relay_restrictions = permit_mynetworks, reject
smtpd_recipient_restrictions = check_recipient_access regexp:$DIR/rcpt_access, permit_mynetworks, reject
smtp_tls_security_level = none
smtpd_tls_security_level = none
smtp_host_lookup = native
disable_dns_lookups = yes
maillog_file_prefixes = $DIR
maillog_file = $DIR/maillog
biff = no
delay_warning_time = 0
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 2s
message_size_limit = 52428800
EOF
	cat >"$DIR/master.cf" <<EOF
127.0.0.1:$port inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
local     unix  -       n       n       -       -       local
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
EOF
	echo "$port" >"$DIR/port"
	# The queue's directories as postfix-files has them, and Postfix's master
	# started the way `postfix -c DIR start` ends (master -w: it returns once
	# the master runs).  postfix-script's own start first checks ownership
	# and permissions over the spool and the system's Postfix files: 10 to
	# 15 s on a loaded 2-core machine, for nothing a private test instance needs.
	for q in active bounce corrupt defer deferred flush hold incoming private saved trace; do
		install -d -o postfix -m 700 "$DIR/spool/$q"
	done
	install -d -o postfix -g postdrop -m 1730 "$DIR/spool/maildrop"
	install -d -o postfix -g postdrop -m 2710 "$DIR/spool/public"
	install -d -o root -m 755 "$DIR/spool/pid"
	install -d -o postfix -m 700 "$DIR/data"
	/usr/lib/postfix/sbin/master -c "$DIR" -w >"$DIR/start.log" 2>&1 ||
		die "postfix's master did not start: $(tail -5 "$DIR/start.log") $(tail -5 "$DIR/maillog" 2>/dev/null)"
	# ready once smtpd greets
	for _ in $(seq 100); do
		if "$PY" -c 'import smtplib, sys; s = smtplib.SMTP("127.0.0.1", int(sys.argv[1]), timeout=2); s.quit()' "$port" 2>/dev/null; then
			echo "$port"
			exit 0
		fi
		sleep 0.1
	done
	die "postfix does not answer on 127.0.0.1:$port: $(tail -5 "$DIR/maillog" 2>/dev/null)"
	;;
stop)
	# SIGTERM to the master (what `postfix stop` sends): it stops its
	# children and exits; wait for it
	pid=$(tr -d ' ' <"$DIR/spool/pid/master.pid" 2>/dev/null || true)
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || exit 0
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || exit 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	;;
flush) /usr/sbin/postqueue -c "$DIR" -f ;;
*) die "unknown command $cmd" ;;
esac
