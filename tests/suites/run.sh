#!/usr/bin/env bash
# run: `robotmail run` as cron runs it, with the file transports: inbox scan,
# queue, delivery into a Maildir and an mbox, never twice, the lock, the
# emergency stop, held trees, a sendmail that defers, unfinished and bad
# archives, and the queue commands.
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
cfg() { # FILE TRANSPORT [extra delivery lines]
	local f=$1 tr=$2
	shift 2
	cat >"$f" <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/state.db
  inbox: $T/inbox
  done: $T/done
  failed: $T/failed
  emergency_stop: $T/STOP
$(linus_tree local-git "$T/repo")
delivery:
  transport: $tr
  settle: 0
  backoff: 1
CFG
	for l in "$@"; do printf '  %s\n' "$l" >>"$f"; done
}
fill() { mkdir -p "$T/inbox"; cp contrib/examples/*.tar.xz "$T/inbox/"; }
reset() { rm -rf "$T/inbox" "$T/done" "$T/failed" "$T/state.db"* "$T/Maildir" "$T/mbox" "$T/STOP"; }
run() { "$ROBOTMAIL" run -c "$T/cfg.yaml" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
count_new() { ls "$T/Maildir/new" 2>/dev/null | wc -l; }

cfg "$T/cfg.yaml" "maildir:$T/Maildir"
fill
run
[ $rc -eq 0 ] && [ ! -s "$T/out" ] && ok "run exits 0 and is quiet on success" || not_ok "run exits 0 quietly" "rc=$rc" "$(cat "$T/out" "$T/err")"
[ "$(count_new)" = 2 ] && ok "two reports delivered into the Maildir" || not_ok "two reports in the Maildir" "$(ls -R "$T/Maildir" 2>&1)"
[ "$(ls "$T/done" | wc -l)" = 2 ] && [ -z "$(ls "$T/inbox")" ] && ok "reported archives are moved to done/" || not_ok "archives moved to done/" "$(ls "$T/inbox" "$T/done")"
grep -l '^Subject: \[linus:master\] \[mm\] 8807b68269: stress-ng.mincore.ops_per_sec' "$T/Maildir/new"/* >/dev/null &&
	ok "the Maildir message is the report" || not_ok "Maildir message content"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" list >"$T/q" 2>&1
[ "$(grep -c $'\tsent\t1\t' "$T/q")" = 2 ] && ok "queue list shows both sent after one attempt" || not_ok "queue list" "$(cat "$T/q")"

# never twice: the same archives again
fill
run -v
[ $rc -eq 0 ] && [ "$(count_new)" = 2 ] && grep -q "already reported" "$T/err" &&
	ok "the same archives again send nothing (dedupe in the state database)" || not_ok "never twice" "rc=$rc new=$(count_new)" "$(cat "$T/err")"

# the lock: a second run while one holds it exits 0 at once and does nothing
reset; fill
# held from before the run starts until it has ended (no fixed time)
rm -f "$T/held" "$T/release"
flock "$T/state.db.lock" sh -c 'touch "$1/held"; while [ ! -e "$1/release" ]; do sleep 0.05; done' sh "$T" &
lp=$!
for _ in $(seq 200); do [ -e "$T/held" ] && break; sleep 0.05; done
run
touch "$T/release"
wait $lp
[ $rc -eq 0 ] && grep -q "another run is active" "$T/err" && [ "$(count_new)" = 0 ] && [ "$(ls "$T/inbox" | wc -l)" = 2 ] &&
	ok "a second run exits 0 saying another run is active, and touches nothing" || not_ok "lock" "rc=$rc" "$(cat "$T/err")"

# the emergency stop: queued, nothing delivered, until the file is gone
touch "$T/STOP"
run
[ "$(count_new)" = 0 ] && grep -q "emergency stop" "$T/err" && ok "with the emergency-stop file nothing is delivered" || not_ok "emergency stop" "$(cat "$T/err")"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" list >"$T/q" 2>&1
[ "$(grep -c $'\tqueued\t0\t' "$T/q")" = 2 ] && ok "... and the reports wait in the queue" || not_ok "queued while stopped" "$(cat "$T/q")"
rm "$T/STOP"
run
[ "$(count_new)" = 2 ] && ok "once the stop file is gone the next run delivers them" || not_ok "delivered after stop" "$(cat "$T/err")"

# held trees wait for release
reset; fill
cfg "$T/cfg.yaml" "maildir:$T/Maildir" "hold: [linus]"
run
"$ROBOTMAIL" queue -c "$T/cfg.yaml" list >"$T/q" 2>&1
[ "$(count_new)" = 0 ] && [ "$(grep -c $'\theld\t' "$T/q")" = 2 ] && ok "reports of a held tree are queued as held" || not_ok "held tree" "$(cat "$T/q")"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" release 1 && run
[ "$(count_new)" = 1 ] && ok "queue release ID lets exactly that one go" || not_ok "release" "new=$(count_new)" "$(cat "$T/err")"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" show 2 >"$T/show" 2>&1
grep -q '^state: held$' "$T/show" && grep -q '^Message-ID: <' "$T/show" && ok "queue show prints the state and the stored message" || not_ok "queue show" "$(head "$T/show")"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" drop 2 && "$ROBOTMAIL" queue -c "$T/cfg.yaml" list | grep -q $'^2\tfailed\t' &&
	ok "queue drop ID fails a message for good" || not_ok "drop"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" release 99 >/dev/null 2>"$T/e2"
[ $? -eq 1 ] && grep -q "no message '99'" "$T/e2" && ok "queue on an unknown id exits 1 with a message" || not_ok "queue unknown id" "$(cat "$T/e2")"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" release 1 extra >/dev/null 2>"$T/e2"
r2=$?
"$ROBOTMAIL" queue -c "$T/cfg.yaml" list 1 >/dev/null 2>"$T/e3"
r3=$?
[ $r2 -eq 2 ] && grep -q "unexpected argument 'extra'" "$T/e2" && [ $r3 -eq 2 ] && grep -q "unexpected argument '1'" "$T/e3" &&
	ok "queue with an argument after the action and its ID exits 2 naming it" || not_ok "queue extra argument" "$(cat "$T/e2" "$T/e3")"
bad=
for v in abc -5 12x ''; do
	"$ROBOTMAIL" run -c "$T/cfg.yaml" --now "$v" >/dev/null 2>"$T/e2"
	r=$?
	[ $r -eq 2 ] && grep -q -- "--now: expected seconds since the epoch, not '$v'" "$T/e2" || bad="$bad [$v] rc=$r $(cat "$T/e2")"
done
[ -z "$bad" ] && ok "run --now with a non-number or a negative exits 2 naming the option and the value" || not_ok "run --now" "$bad"

# mbox transport
reset; fill
cfg "$T/cfg.yaml" "mbox:$T/mbox"
run
[ "$(grep -c '^From oliver.sang@intel.com ' "$T/mbox")" = 2 ] && ! grep -q $'\r' "$T/mbox" &&
	ok "mbox: two messages with From_ lines and LF line ends" || not_ok "mbox" "$(head -3 "$T/mbox")"
mkdir -p "$T/split"
n=$(git mailsplit --mboxrd -o"$T/split" "$T/mbox" 2>&1)
[ "$n" = 2 ] && grep -q '^Message-ID: <' "$T/split/0001" && ok "mbox: git mailsplit --mboxrd finds both messages" || not_ok "git mailsplit" "$n"
"$PY" -c 'import mailbox, sys; m = mailbox.mbox(sys.argv[1]); ids = [x["Message-ID"] for x in m]; sys.exit(0 if len(ids) == 2 and all(ids) else 1)' "$T/mbox" &&
	ok "mbox: a mail reader (Python mailbox) reads both with their Message-IDs" || not_ok "python mailbox"

# sendmail that defers (exit 75): queued again with a retry time
reset; fill
printf '#!/bin/sh\ncat >>"%s/sendmail.in"\nexit 75\n' "$T" >"$T/sendmail"
chmod +x "$T/sendmail"
cfg "$T/cfg.yaml" "sendmail:$T/sendmail -i -t"
run
"$ROBOTMAIL" queue -c "$T/cfg.yaml" list >"$T/q" 2>&1
[ $rc -eq 75 ] && [ "$(grep -c $'\tqueued\t1\t' "$T/q")" = 2 ] && grep -q "exited 75" "$T/q" &&
	ok "sendmail exiting 75: both queued again after one attempt, run exits 75" || not_ok "sendmail tempfail" "rc=$rc" "$(cat "$T/q" "$T/err")"
# (the run's last line is its summary, issue 13 item 7: checked below)
[ "$(grep -vc '^robotmail: archives ' "$T/err")" = 1 ] && grep -q "^robotmail: delivery via sendmail:.*: 2 message(s) deferred, next attempt in 1 s: .*exited 75" "$T/err" &&
	ok "... and without -v the run says so in one line (transport, count, next attempt, reason)" || not_ok "deferral log line" "$(cat "$T/err")"
[ "$(tail -n 1 "$T/err")" = "robotmail: archives 2 (new 2, failed 0, deferred 0); reports 2; mails queued 2, sent 0, failed 0, waiting 2" ] &&
	ok "... and its last line, even without -v, is the summary with true counts (2 queued, 0 sent, 2 waiting)" ||
	not_ok "summary line after a deferral" "$(cat "$T/err")"
printf '#!/bin/sh\ncat >>"%s/sendmail.in"\nexit 0\n' "$T" >"$T/sendmail"
# until the backoff (1 s) has passed: both due by the clock the run reads
for _ in $(seq 50); do
	[ "$(sqlite3 "$T/state.db" "SELECT count(*) FROM messages WHERE state = 'queued' AND next_attempt > CAST(strftime('%s', 'now') AS INTEGER)")" = 0 ] && break
	sleep 0.1
done
run
"$ROBOTMAIL" queue -c "$T/cfg.yaml" list >"$T/q" 2>&1
[ $rc -eq 0 ] && [ "$(grep -c $'\tsent\t2\t' "$T/q")" = 2 ] && ok "sendmail: the retry after the backoff sends them" || not_ok "sendmail retry" "rc=$rc" "$(cat "$T/q")"

# unfinished archives wait; a marker makes them finished; bad ones go to failed/
reset; fill
cfg "$T/cfg.yaml" "maildir:$T/Maildir" "settle: 3600"
run
[ "$(count_new)" = 0 ] && [ "$(ls "$T/inbox" | wc -l)" = 2 ] && ok "archives still being written (fresh, no marker) are left for later" || not_ok "settle" "$(cat "$T/err")"
touch "$T/inbox/mincore.tar.xz.done"
run
[ "$(count_new)" = 1 ] && [ -e "$T/done/mincore.tar.xz" ] && [ ! -e "$T/inbox/mincore.tar.xz.done" ] &&
	ok "a NAME.done marker makes an archive finished (and goes with it)" || not_ok "done marker" "$(ls "$T/inbox" "$T/done" 2>&1)"
# a directory archive settles on the newest mtime inside it: a writer
# still filling a file deep in the tree leaves the top directory's own
# mtime old
reset; mkdir -p "$T/inbox/mincore-dir"
tar -xJf contrib/examples/mincore.tar.xz -C "$T/inbox/mincore-dir"
deep=$(find "$T/inbox/mincore-dir" -name stats.json | head -1)
find "$T/inbox/mincore-dir" -exec touch -d '2 hours ago' {} +
touch "$deep"
run -v
[ "$(count_new)" = 0 ] && [ -d "$T/inbox/mincore-dir" ] && grep -q "mincore-dir' may still be written" "$T/err" &&
	ok "a directory archive with a file changed inside it (its top mtime old) waits for settle" ||
	not_ok "directory settle on the newest mtime" "$(cat "$T/err")"
touch -d '2 hours ago' "$deep"
run
[ "$(count_new)" = 1 ] && [ -d "$T/done/mincore-dir" ] && ok "... and is reported once everything inside settled" ||
	not_ok "directory settled" "rc=$rc" "$(cat "$T/err")"
reset; mkdir -p "$T/inbox"
head -c 3000 /dev/urandom >"$T/inbox/garbage.tar.gz"
cp contrib/examples/mincore.tar.xz "$T/inbox/"
cfg "$T/cfg.yaml" "maildir:$T/Maildir"
run
[ $rc -eq 1 ] && [ -e "$T/failed/garbage.tar.gz" ] && [ "$(count_new)" = 1 ] && grep -q "garbage.tar.gz" "$T/err" &&
	ok "a bad archive goes to failed/ with an error; the others are reported; exit 1" || not_ok "bad archive" "rc=$rc" "$(cat "$T/err")"
[ "$(tail -n 1 "$T/err")" = "robotmail: archives 2 (new 1, failed 1, deferred 0); reports 1; mails queued 1, sent 1, failed 0, waiting 0" ] &&
	ok "... and the quiet run's last line counts the failed archive and the sent mail" || not_ok "summary line with a failed archive" "$(cat "$T/err")"
# a stalled writer: an archive taken on its mtime (settle) that cannot be
# read and has no marker stays in the inbox until delivery.settle_max,
# then goes to failed/ (never failed while its writer may still finish it)
reset; mkdir -p "$T/inbox"
head -c 3000 /dev/urandom >"$T/inbox/stalled.tar.gz"
touch -d '5 minutes ago' "$T/inbox/stalled.tar.gz"
cfg "$T/cfg.yaml" "maildir:$T/Maildir" "settle: 60" "settle_max: 1800"
run
cp "$T/err" "$T/err1"
run
[ $rc -eq 0 ] && [ -e "$T/inbox/stalled.tar.gz" ] && [ ! -e "$T/failed/stalled.tar.gz" ] && ! grep -q stalled "$T/err" &&
	grep -q "^robotmail: warning: '$T/inbox/stalled.tar.gz' cannot be read yet (.*); left in the inbox: its writer may have stalled (delivery.settle_max 1800 s)" "$T/err1" &&
	[ "$(tail -n 1 "$T/err")" = "robotmail: archives 1 (new 0, failed 0, deferred 1); reports 0; mails queued 0, sent 0, failed 0, waiting 0" ] &&
	ok "an unreadable archive younger than settle_max without a marker stays in the inbox (a stalled writer), warned once, counted as deferred" ||
	not_ok "stalled writer waits" "rc=$rc" "$(cat "$T/err1" "$T/err")"
touch -d '1 hour ago' "$T/inbox/stalled.tar.gz"
run
[ $rc -eq 1 ] && [ -e "$T/failed/stalled.tar.gz" ] && grep -q "^robotmail: error: .*stalled.tar.gz" "$T/err" &&
	ok "... past settle_max it goes to failed/ with its error, once (exit 1)" || not_ok "stalled writer past settle_max" "rc=$rc" "$(cat "$T/err")"
head -c 3000 /dev/urandom >"$T/inbox/marked.tar.gz"
touch -d '5 minutes ago' "$T/inbox/marked.tar.gz"
touch "$T/inbox/marked.tar.gz.done"
run
[ $rc -eq 1 ] && [ -e "$T/failed/marked.tar.gz" ] && ok "... and at once when its NAME.done marker says the writer finished" ||
	not_ok "marked bad archive" "rc=$rc" "$(cat "$T/err")"

# commit facts missing: the report is deferred, the archive stays, exit 75
reset; fill
cfg "$T/cfg.yaml" "maildir:$T/Maildir"
sed -i "s|api: $T/repo|api: $T/no-such-repo|" "$T/cfg.yaml"
run
[ $rc -eq 75 ] && [ "$(ls "$T/inbox" | wc -l)" = 2 ] && [ "$(count_new)" = 0 ] &&
	grep -q "^robotmail: 2 reports deferred ('$T/inbox/mincore.tar.xz', '$T/inbox/mlockmany.tar.xz'): the tested commit's subject is unknown" "$T/err" &&
	ok "without commit facts reports are deferred, archives stay in the inbox, exit 75" || not_ok "deferred" "rc=$rc" "$(cat "$T/err")"
[ "$(tail -n 1 "$T/err")" = "robotmail: archives 2 (new 0, failed 0, deferred 2); reports 2; mails queued 0, sent 0, failed 0, waiting 0" ] &&
	ok "... and the summary line counts both archives deferred, nothing queued" || not_ok "summary line with deferred archives" "$(cat "$T/err")"
grep -q "^robotmail: 4 commit lookups failed (.*8807b68269657a8e419152e36c54046ec75247d3.*): .*no-such-repo" "$T/err" &&
	ok "... and without -v the failed lookups are named with their cause" || not_ok "lookup failure line" "$(cat "$T/err")"
[ "$(grep -c 'no-such-repo' "$T/err")" = 1 ] && [ "$(grep -c 'deferred (' "$T/err")" = 1 ] &&
	ok "... one line per cause with a count, not one per commit or archive" || not_ok "merged deferral lines" "$(cat "$T/err")"
run -v
[ $rc -eq 75 ] && grep -q "^robotmail: commit 8807b68269657a8e419152e36c54046ec75247d3: .*no-such-repo" "$T/err" &&
	[ "$(grep -c "': report deferred: the tested commit's subject is unknown" "$T/err")" = 2 ] &&
	ok "... with -v each commit and archive has its own line" || not_ok "deferral lines with -v" "$(cat "$T/err")"

# secrets never on the command line or in the config
printf 'delivery:\n  password: hunter2\n' >"$T/badpw.yaml"
"$ROBOTMAIL" run -c "$T/badpw.yaml" >/dev/null 2>"$T/e"
[ $? -eq 2 ] && grep -q "password_file or password_env" "$T/e" && ok "a password in the configuration is refused" || not_ok "password in config" "$(cat "$T/e")"

# per-list daily caps: the excess waits in the queue
reset; fill
cfg "$T/cfg.yaml" "maildir:$T/Maildir" "daily_caps: {lkp@intel.com: 1}"
run
"$ROBOTMAIL" queue -c "$T/cfg.yaml" list >"$T/q" 2>&1
[ "$(count_new)" = 1 ] && grep -q $'\tqueued\t0\t.*daily cap of lkp@intel.com reached' "$T/q" &&
	ok "a list's daily cap: one sent, the other waits in the queue" || not_ok "daily cap" "$(cat "$T/q" "$T/err")"
# hold by list address
reset; fill
cfg "$T/cfg.yaml" "maildir:$T/Maildir" "hold: [OE-LKP@lists.linux.dev]"
run
"$ROBOTMAIL" queue -c "$T/cfg.yaml" list >"$T/q" 2>&1
[ "$(count_new)" = 0 ] && [ "$(grep -c $'\theld\t' "$T/q")" = 2 ] && ok "reports to a held list (any case) wait as held" || not_ok "hold by list" "$(cat "$T/q")"
# --once ARCHIVE reports just that archive and leaves it where it is
reset; fill
cfg "$T/cfg.yaml" "maildir:$T/Maildir"
run --once "$T/inbox/mincore.tar.xz"
[ "$(count_new)" = 1 ] && [ -e "$T/inbox/mincore.tar.xz" ] && ok "--once ARCHIVE reports that archive only and does not move it" || not_ok "--once" "$(cat "$T/err")"
# the hourly cap
reset; fill
cfg "$T/cfg.yaml" "maildir:$T/Maildir" "hourly_cap: 1"
run
[ "$(count_new)" = 1 ] && ok "the hourly cap: one sent, the other waits" || not_ok "hourly cap" "new=$(count_new)"

# the reproduction materials: job.yaml, job-script, reproduce and the kernel config
reset; mkdir -p "$T/inbox" "$T/x"
tar -C "$T/x" -xJf contrib/examples/mincore.tar.xz
rd=$(dirname "$(find "$T/x" -path '*8807b68269657a8e419152e36c54046ec75247d3/0/job.yaml')")
printf 'CONFIG_X=y\n' >"$rd/config-6.18.0-rc1"
tar -C "$T/x" -cf "$T/inbox/mincore.tar" result
cfg "$T/cfg.yaml" "maildir:$T/Maildir"
run --materials "$T/mat"
d=$(ls -d "$T"/mat/*/*@* 2>/dev/null | head -1)
if [ -n "$d" ] && [ -s "$d/job.yaml" ] && [ -s "$d/job-script" ] && [ -s "$d/reproduce" ] && [ -s "$d/config-6.18.0-rc1" ] &&
	grep -q "$(basename "$d")" "$T"/Maildir/new/*; then
	ok "--materials writes job.yaml, job-script, reproduce and the kernel config under <YYYYMMDD>/<msgid>/"
else
	not_ok "--materials" "$(ls -R "$T/mat" 2>&1 | head)"
fi

# a run over more archives than it holds in memory at once (they go in
# chunks): every archive is reported once and moved
reset; mkdir -p "$T/inbox"
"$PY" - "$T/inbox" 150 <<'PYEOF'
import io, lzma, sys, tarfile
out, n = sys.argv[1], int(sys.argv[2])
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/mincore.tar.xz', 'rb').read())))
members = [(m.name, src.extractfile(m).read()) for m in src.getmembers() if m.isfile()]
for i in range(n):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w') as t:
        for name, data in members:
            info = tarfile.TarInfo(name.replace('lkp-emr-2sp1', 'lkp-run-%03d' % i))
            data = data.replace(b'lkp-emr-2sp1', b'lkp-run-%03d' % i)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    open('%s/a%03d.tar' % (out, i), 'wb').write(buf.getvalue())
PYEOF
cfg "$T/cfg.yaml" "maildir:$T/Maildir"
run -v
[ $rc -eq 0 ] && [ "$(count_new)" = 150 ] && [ "$(ls "$T/done" | wc -l)" = 150 ] && [ -z "$(ls "$T/inbox")" ] &&
	grep -q '^robotmail: 150 archive(s), 150 report(s): 150 queued' "$T/err" &&
	[ "$(grep -h '^Message-ID:' "$T"/Maildir/new/* | sort -u | wc -l)" = 150 ] &&
	ok "150 archives in one run (more than one chunk): 150 distinct reports, all archives moved" ||
	not_ok "chunked run" "rc=$rc new=$(count_new) done=$(ls "$T/done" | wc -l)" "$(tail -3 "$T/err")"

# unknown_branch: skip warns once per branch per day, not once per run
# (remembered beside the state database)
reset; fill
cfg "$T/cfg.yaml" "maildir:$T/Maildir"
sed -i 's/^  - name: linus$/  - name: tip/' "$T/cfg.yaml"
warned() { grep -c "warning: no report: .*'linus/master'" "$T/err"; }
run
w1=$(warned) r1=$rc
rm -rf "$T/done"; fill
run
w2=$(warned) r2=$rc
rm -rf "$T/done"; fill
run --now $(($(date +%s) + 86400 + 60))
w3=$(warned) r3=$rc
if [ "$r1$r2$r3" = 000 ] && [ "$w1$w2$w3" = 101 ] && [ "$(count_new)" = 0 ]; then
	ok "unknown_branch: skip: one warning per branch, then none for a day, then again (no report sent)"
else
	not_ok "unknown_branch once per day" "rc=$r1,$r2,$r3 warnings=$w1,$w2,$w3" "$(cat "$T/err")"
fi
