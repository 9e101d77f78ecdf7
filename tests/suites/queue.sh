#!/usr/bin/env bash
# queue: the operator's queue actions on many messages at once (issue 13
# item 8): filters (--state, --tree, --commit, --to, --older-than) and
# --all, a --dry-run preview that changes nothing, a count of what changed,
# `queue resend ID` (the same bytes and Message-ID again, to the same
# recipients), and `queue show` naming each recipient's result with the
# server's code; and the metrics file (paths.metrics_file, a Prometheus
# textfile) against what each run really did, also one that stops early.  A sendmail: program stands
# in for the server (fast).
. tests/lib.sh
mk_tmp
T=$TEST_TMP
trap 'rm -rf "$T"' EXIT
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
cat >"$T/cfg.yaml" <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/state/state.db
  metrics_file: $T/metrics/robotmail.prom
  inbox: $T/inbox
  done: $T/done
  failed: $T/failed
$(linus_tree local-git "$T/repo")
delivery:
  transport: sendmail:$T/sendmail -i -t
  settle: 0
  backoff: 1
CFG
sendmail_exits() { printf '#!/bin/sh\ncat >>"%s/sendmail.in"\nexit %s\n' "$T" "$1" >"$T/sendmail"; chmod +x "$T/sendmail"; }
run() { "$ROBOTMAIL" run -c "$T/cfg.yaml" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
queue() { "$ROBOTMAIL" queue -c "$T/cfg.yaml" "$@" 2>"$T/qerr"; }
states() { "$ROBOTMAIL" queue -c "$T/cfg.yaml" list | cut -f1,2 | tr '\t\n' ': '; }
mkdir -p "$T/inbox" "$T/state" "$T/metrics"
metric() { grep "^robotmail_$1 " "$T/metrics/robotmail.prom" | cut -d' ' -f2; }
cp contrib/examples/*.tar.xz "$T/inbox/"
sendmail_exits 1
run
[ $rc -eq 1 ] && [ "$(states)" = "1:failed 2:failed " ] || not_ok "setup: both messages failed" "rc=$rc" "$(states)" "$(cat "$T/err")"
if [ "$(metric last_run_exit_code)" = 1 ] && [ "$(metric 'last_run_archives{fate="done"}')" = 2 ] &&
	[ "$(metric 'last_run_mails{outcome="queued"}')" = 2 ] && [ "$(metric 'last_run_mails{outcome="failed"}')" = 2 ] &&
	[ "$(metric 'last_run_mails{outcome="sent"}')" = 0 ] && [ "$(metric 'outbox_messages{state="failed"}')" = 2 ] &&
	[ "$(metric outbox_oldest_waiting_age_seconds)" = 0 ]; then
	ok "metrics file after a run whose mails all failed: exit 1, 2 archives done, 2 queued, 2 failed, 0 sent"
else
	not_ok "metrics after failures" "$(cat "$T/metrics/robotmail.prom" 2>&1)"
fi

# the preview changes nothing and says what would change
queue retry --state failed --dry-run >"$T/o"
qrc=$?
if [ $qrc -eq 0 ] && [ "$(states)" = "1:failed 2:failed " ] && [ "$(grep -c '^would retry [12] <' "$T/o")" = 2 ] &&
	grep -qx 'queue retry --dry-run: 2 of 2 matching message(s) would change' "$T/o"; then
	ok "queue retry --state failed --dry-run: names both, counts them, changes nothing"
else
	not_ok "retry --dry-run" "rc=$qrc" "$(states)" "$(cat "$T/o" "$T/qerr")"
fi
# --to: a recipient only the first message has (mincore's author)
queue list --to DORA@example.org >"$T/o"
[ "$(cut -f1 "$T/o" | tr '\n' ' ')" = "1 " ] && ok "queue list --to ADDR lists the messages to that recipient (any case)" ||
	not_ok "list --to" "$(cat "$T/o" "$T/qerr")"
queue list --older-than 1h >"$T/o"
queue list --older-than 0 >"$T/o2"
[ ! -s "$T/o" ] && [ "$(wc -l <"$T/o2")" = 2 ] && ok "queue list --older-than: none an hour old, both at 0" ||
	not_ok "list --older-than" "$(cat "$T/o" "$T/o2" "$T/qerr")"
# drop by commit prefix: only the report on that commit
queue drop --commit e5e1a8d3 >"$T/o"
qrc=$?
[ $qrc -eq 0 ] && [ "$(states)" = "1:failed 2:failed " ] && grep -q '^drop 2 <' "$T/o" &&
	grep -qx 'queue drop: 1 of 1 matching message(s) changed' "$T/o" &&
	[ "$(sqlite3 "$T/state/state.db" 'select id, last_error from messages order by id' | grep -c 'dropped by the operator')" = 1 ] &&
	grep -q '^2|dropped by the operator$' <(sqlite3 "$T/state/state.db" 'select id, last_error from messages order by id') &&
	ok "queue drop --commit SHA drops the one report on that commit and says so" ||
	not_ok "drop --commit" "rc=$qrc" "$(cat "$T/o" "$T/qerr")"
# retry --all: the failed one, never the one the operator dropped
sendmail_exits 0
: >"$T/sendmail.in"
queue retry --all >"$T/o"
qrc=$?
if [ $qrc -eq 0 ] && [ "$(states)" = "1:queued 2:failed " ] &&
	grep -qx 'queue retry: 1 of 2 matching message(s) changed; 1 dropped by the operator left alone (retry ID takes one back)' "$T/o"; then
	ok "queue retry --all queues the failed message again, leaves the dropped one, counts both"
else
	not_ok "retry --all" "rc=$qrc" "$(states)" "$(cat "$T/o" "$T/qerr")"
fi
run
[ $rc -eq 0 ] && [ "$(states)" = "1:sent 2:failed " ] && [ "$(grep -c '^Message-ID:' "$T/sendmail.in")" = 1 ] &&
	ok "... and the next run delivers it" || not_ok "run after retry --all" "rc=$rc" "$(states)" "$(cat "$T/err")"
[ "$(metric last_run_exit_code)" = 0 ] && [ "$(metric 'last_run_mails{outcome="sent"}')" = 1 ] &&
	[ "$(metric 'last_run_mails{outcome="queued"}')" = 0 ] && [ "$(metric 'outbox_messages{state="sent"}')" = 1 ] &&
	[ "$(metric 'outbox_messages{state="failed"}')" = 1 ] && [ "$(ls "$T/metrics")" = robotmail.prom ] &&
	ok "... the metrics file says so (exit 0, 1 sent; outbox 1 sent, 1 failed), replaced atomically" ||
	not_ok "metrics after retry" "$(ls "$T/metrics"; cat "$T/metrics/robotmail.prom")"
first=$(grep '^Message-ID:' "$T/sendmail.in")
# resend a sent message: the same Message-ID, the same recipients
queue resend 1 >"$T/o"
qrc=$?
[ $qrc -eq 0 ] && [ "$(states)" = "1:queued 2:failed " ] && ok "queue resend ID queues a sent message again" ||
	not_ok "resend" "rc=$qrc" "$(states)" "$(cat "$T/qerr")"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" show 1 >"$T/show"
[ "$(grep -c '^pending: ' "$T/show")" = 4 ] && grep -qx 'pending: dora@example.org' "$T/show" &&
	grep -qx 'last-error: resent by the operator' "$T/show" &&
	ok "... to every recipient it was sent to (queue show: pending, resent by the operator)" || not_ok "resend recipients" "$(head -14 "$T/show")"
: >"$T/sendmail.in"
run
if [ $rc -eq 0 ] && [ "$(states)" = "1:sent 2:failed " ] && [ "$(grep '^Message-ID:' "$T/sendmail.in")" = "$first" ] &&
	grep -q $'^1\tsent\t3\t' <("$ROBOTMAIL" queue -c "$T/cfg.yaml" list); then
	ok "... the next run sends it again with the same Message-ID (attempts 3)"
else
	not_ok "resend delivery" "rc=$rc" "$(cat "$T/sendmail.in" | grep '^Message-ID:')" "$first" "$(cat "$T/err")"
fi
queue resend 2 >/dev/null
qrc=$?
[ $qrc -eq 1 ] && grep -q "queue resend: no message '2' in a state that allows it" "$T/qerr" &&
	ok "queue resend refuses a message that was never sent (exit 1)" || not_ok "resend failed one" "rc=$qrc" "$(cat "$T/qerr")"
# queue show names each recipient's result with the code
"$ROBOTMAIL" queue -c "$T/cfg.yaml" show 2 >"$T/show"
grep -qx "refused: ann@example.org 554 sendmail: '$T/sendmail -i -t' exited 1" "$T/show" &&
	[ "$(grep -c '^refused: ' "$T/show")" = 7 ] &&
	ok "queue show names each refused recipient with its code and the reason" || not_ok "show refused" "$(head -20 "$T/show")"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" show 1 >"$T/show"
[ "$(grep -c '^accepted: .* 250' "$T/show")" = 4 ] && ok "... and each accepted one" || not_ok "show accepted" "$(head -14 "$T/show")"
# prune: a sent message's bytes go, its row (dedupe, threads, results) stays
queue prune --sent-older-than 1h >"$T/o"
queue prune --sent-older-than 0 --dry-run >"$T/o2"
[ "$(tail -n 1 "$T/o")" = 'queue prune: 0 of 0 matching message(s) changed' ] &&
	grep -qx 'queue prune --dry-run: 1 of 1 matching message(s) would change' "$T/o2" &&
	[ "$(sqlite3 "$T/state/state.db" 'select length(bytes) > 0 from messages where id = 1')" = 1 ] &&
	ok "queue prune --sent-older-than: nothing sent an hour ago; the preview names the one sent now, changes nothing" ||
	not_ok "prune preview" "$(cat "$T/o" "$T/o2" "$T/qerr")"
queue prune --sent-older-than 0 >"$T/o"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" show 1 >"$T/show"
queue resend 1 >/dev/null
qrc=$?
if grep -qx 'queue prune: 1 of 1 matching message(s) changed' "$T/o" && grep -qx 'bytes: pruned (queue prune)' "$T/show" &&
	[ "$(sqlite3 "$T/state/state.db" 'select length(bytes), count(*) from messages m join reports r using (dedupe_key) where m.id = 1')" = '0|1' ] &&
	[ "$(grep -c '^accepted: ' "$T/show")" = 4 ] && [ $qrc -eq 1 ] && [ "$(states)" = "1:sent 2:failed " ]; then
	ok "queue prune drops the bytes of sent messages only; the row, its report key and results stay; a pruned one cannot be resent"
else
	not_ok "prune" "rc=$qrc" "$(cat "$T/o" "$T/qerr")" "$(head -12 "$T/show")"
fi
# a header row on a terminal only (scripts count rows)
script -qec "\"$ROBOTMAIL\" queue -c \"$T/cfg.yaml\" list" /dev/null 2>/dev/null | tr -d '\r' >"$T/tty"
[ "$(head -n 1 "$T/tty")" = "$(printf 'ID\tSTATE\tATTEMPTS\tMESSAGE-ID\tSUBJECT\tLAST-ERROR')" ] && [ "$(wc -l <"$T/tty")" = 3 ] &&
	! "$ROBOTMAIL" queue -c "$T/cfg.yaml" list | grep -q '^ID' &&
	ok "queue list has a header row on a terminal, none in a pipe" || not_ok "queue list header" "$(cat -A "$T/tty")"
# usage: no ID and no filter, a bad value, an ID and a filter
bad=
for args in "retry" "prune" "prune --sent-older-than x" "retry --older-than 5x" "drop --commit xyz" "hold 1 --all" "list --state nope" "show --all" "retry 1 --dry-run" "release --tree"; do
	# shellcheck disable=SC2086
	"$ROBOTMAIL" queue -c "$T/cfg.yaml" $args >/dev/null 2>"$T/e"
	r=$?
	{ [ $r -eq 2 ] && grep -q '^robotmail: error: queue' "$T/e"; } || bad="$bad [$args: rc=$r $(head -1 "$T/e")]"
done
[ -z "$bad" ] && [ "$(states)" = "1:sent 2:failed " ] && ok "queue usage errors (no ID or filter, bad values, ID with a filter) exit 2 and change nothing" ||
	not_ok "usage errors" "$bad"
# a temporary failure: the message waits, and the metrics file says how long
sendmail_exits 75
queue retry 2 >/dev/null
run --now $(($(date +%s) + 1000))
age=$(metric outbox_oldest_waiting_age_seconds)
if [ $rc -eq 75 ] && [ "$(metric last_run_exit_code)" = 75 ] && [ "$(metric 'last_run_mails{outcome="retry"}')" = 1 ] &&
	[ "$(metric 'outbox_messages{state="queued"}')" = 1 ] && [ "${age:-0}" -ge 1000 ] && [ "$age" -lt 1100 ]; then
	ok "metrics after a deferral: exit 75, 1 to retry, 1 queued, the oldest waiting $age s"
else
	not_ok "metrics after a deferral" "rc=$rc" "$(cat "$T/metrics/robotmail.prom" "$T/err")"
fi
# progress on a terminal only (issue 13 item 7): archives read and mails
# sent, redrawn in place; the summary line stays; none in a pipe (cron)
sendmail_exits 0
mkdir -p "$T/inbox2" "$T/inbox3"
cp contrib/examples/*.tar.xz "$T/inbox2/"
cp contrib/examples/*.tar.xz "$T/inbox3/"
sed -e "s|inbox: $T/inbox|inbox: $T/inbox2|" -e "s|state_db: $T/state/state.db|state_db: $T/state/tty.db|" \
	-e "s|metrics_file: .*|metrics_file: $T/metrics/tty.prom|" "$T/cfg.yaml" >"$T/tty.yaml"
sed -e "s|inbox: $T/inbox|inbox: $T/inbox3|" -e "s|state_db: $T/state/state.db|state_db: $T/state/pipe.db|" \
	-e "s|metrics_file: .*|metrics_file: $T/metrics/pipe.prom|" "$T/cfg.yaml" >"$T/pipe.yaml"
script -qec "\"$ROBOTMAIL\" run -c \"$T/tty.yaml\"" /dev/null </dev/null 2>/dev/null | tr '\r' '\n' | sed 's/\x1b\[K//g' >"$T/tty"
"$ROBOTMAIL" run -c "$T/pipe.yaml" >/dev/null 2>"$T/pipe"
if grep -q '^robotmail: archives 2/2 read, reports 0, [0-9.]*/s' "$T/tty" && grep -q '^robotmail: mails 1/2 (sent 1, failed 0, to retry 0), [0-9.]*/s' "$T/tty" &&
	grep -q '^robotmail: archives 2 (new 2, failed 0, deferred 0); reports 2; mails queued 2, sent 2, failed 0, waiting 0$' "$T/tty" &&
	! grep -q 'read, reports\|^robotmail: mails [0-9]*/' "$T/pipe" && ! grep -q $'\r' "$T/pipe" && grep -q '^robotmail: archives 2 (new 2' "$T/pipe"; then
	ok "progress on a terminal (archives read, mails sent, with a rate), none in a pipe; the summary line in both"
else
	not_ok "progress" "$(cat -A "$T/tty")" "$(cat -A "$T/pipe")"
fi

# a run that stops early still writes the metrics file: its exit code, not
# complete, and no stale outbox (the store was never asked)
[ "$(metric last_run_complete)" = 1 ] || not_ok "a finished run is complete" "$(cat "$T/metrics/robotmail.prom")"
sed "s|inbox: $T/inbox|inbox: $T/no-such-inbox|" "$T/cfg.yaml" >"$T/noinbox.yaml"
"$ROBOTMAIL" run -c "$T/noinbox.yaml" >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(metric last_run_exit_code)" = 2 ] && [ "$(metric last_run_complete)" = 0 ] &&
	[ "$(metric 'last_run_mails{outcome="sent"}')" = 0 ] && ! grep -q '^robotmail_outbox_messages' "$T/metrics/robotmail.prom"; then
	ok "metrics after a run stopped by a missing inbox: exit 2, complete 0, nothing sent, no stale outbox"
else
	not_ok "metrics after exit 2" "rc=$rc" "$(cat "$T/metrics/robotmail.prom" "$T/err")"
fi
# a store that is no database: the run stops at the store
printf 'not a database, no header here %.0s' $(seq 200) >"$T/state/broken.db"
sed "s|state_db: $T/state/state.db|state_db: $T/state/broken.db|" "$T/cfg.yaml" >"$T/broken.yaml"
"$ROBOTMAIL" run -c "$T/broken.yaml" >/dev/null 2>"$T/err"
rc=$?
if [ $rc -ne 0 ] && [ "$(metric last_run_exit_code)" = $rc ] && [ "$(metric last_run_complete)" = 0 ] &&
	! grep -q '^robotmail_outbox_messages' "$T/metrics/robotmail.prom"; then
	ok "metrics after a run stopped by a store error: exit $rc, complete 0, the outbox left out"
else
	not_ok "metrics after a store error" "rc=$rc" "$(cat "$T/metrics/robotmail.prom" "$T/err")"
fi
