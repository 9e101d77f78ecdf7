#!/usr/bin/env bash
# pipeline: `run` and `--dry-run` are one pipeline with two sinks.  On the
# same archives the dry run prints, byte for byte, the messages `run`
# queues (modulo the framing lines "# robotmail dry-run: ..."), says
# "already reported as <ID> on DATE, nothing sent" once `run` has reported
# them (the mail only with --force) and "would reply to <ID>" for a
# follow-up.  Follow-ups thread only under the same finding (tree, test,
# metric, direction).  `run --to` consumes nothing.  Inbox entries that are
# not archives (symlinks, FIFOs) are never skipped silently.
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
NOW=$(($(date +%s) + 86400)) # after every file of the test: all settled
cfg() { # [extra delivery lines...]
	cat >"$T/cfg.yaml" <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/state.db
  inbox: $T/inbox
  done: $T/done
  failed: $T/failed
  emergency_stop: $T/STOP
$(linus_tree local-git "$T/repo")
  - name: mm
    branch: main
    url: https://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git
    provider: local-git
    api: $T/repo
delivery:
  transport: maildir:$T/Maildir
  settle: 0
CFG
	for l in "$@"; do printf '  %s\n' "$l" >>"$T/cfg.yaml"; done
}
reset() { rm -rf "$T/inbox" "$T/done" "$T/failed" "$T/state.db"* "$T/Maildir" "$T/STOP"; mkdir -p "$T/inbox"; }
run() { "$ROBOTMAIL" run -c "$T/cfg.yaml" --now $NOW "$@" >"$T/out" 2>"$T/err"; rc=$?; }
dry() { "$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" --now $NOW "$@" >"$T/dry" 2>"$T/dry.err"; drc=$?; }
count_new() { ls "$T/Maildir/new" 2>/dev/null | wc -l; }
# variant SRC OUT [base=SHA] [branch=B] [swap]: a copy of an example archive
# re-tested against another base, on another branch, or with the base's and
# the head's numbers swapped (an improvement becomes a regression)
variant() {
	"$PY" - "$@" <<'PYEOF'
import io, lzma, sys, tarfile
src, out, opts = sys.argv[1], sys.argv[2], dict(a.split('=', 1) if '=' in a else (a, '1') for a in sys.argv[3:])
t = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open(src, 'rb').read())))
files = {m.name: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}
job = next(v for k, v in files.items() if k.endswith('/job.yaml')).decode()
head = next(l.split()[1] for l in job.splitlines() if l.startswith('head_commit:'))
base = next(l.split()[1] for l in job.splitlines() if l.startswith('base_commit:'))
out_files = {}
for name, data in files.items():
    if 'swap' in opts and name.endswith(('stats.json', 'matrix.json')):
        other = name.replace('/%s/' % head, '/@@/').replace('/%s/' % base, '/%s/' % head).replace('/@@/', '/%s/' % base)
        data = files.get(other, data)
    if 'branch' in opts:
        data = data.replace(b'branch: linus/master', b'branch: ' + opts['branch'].encode())
    if 'base' in opts:
        data = data.replace(base.encode(), opts['base'].encode())
        name = name.replace(base, opts['base'])
    out_files[name] = data
with tarfile.open(out, 'w') as o:
    for name, data in sorted(out_files.items()):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        o.addfile(info, io.BytesIO(data))
PYEOF
}
# msgs FILE DIR: the messages of a dry run, one file per Message-ID in DIR
# (framing lines, envelope, DATA and the final "." left out), and
# DIR/<id>.rcpt with its envelope recipients
msgs() {
	"$PY" - "$1" "$2" <<'PYEOF'
import os, re, sys
lines = open(sys.argv[1], 'rb').read().split(b'\n')
os.makedirs(sys.argv[2], exist_ok=True)
i = 0
while i < len(lines):
    if lines[i].startswith(b'MAIL FROM:'):
        rcpts = []
        i += 1
        while lines[i].startswith(b'RCPT TO:'):
            rcpts.append(lines[i][9:-1])
            i += 1
        assert lines[i] == b'DATA'
        i += 1
        start = i
        while not (lines[i] == b'.' and (i + 1 >= len(lines) - 1 or lines[i + 1].startswith(b'# robotmail dry-run:'))):
            i += 1
        body = b'\n'.join(lines[start:i]) + b'\n'
        mid = re.search(rb'^Message-ID: <([^>]*)>', body, re.M).group(1).decode()
        open(os.path.join(sys.argv[2], mid), 'wb').write(body)
        open(os.path.join(sys.argv[2], mid + '.rcpt'), 'wb').write(b'\n'.join(rcpts) + b'\n')
    i += 1
PYEOF
}
# stored ID DIR: the message `run` queued, as `queue show` prints it
stored() {
	"$ROBOTMAIL" queue -c "$T/cfg.yaml" show "$1" >"$T/show" 2>&1 || return 1
	sed '1,/^$/d' "$T/show" >"$2/$1.stored"
	sed -n 's/^pending: //p' "$T/show" >"$2/$1.stored.rcpt"
}
# same_as_queued DIR: every message of the dry run equals what run queued
same_as_queued() {
	local d=$1 f bad="" n=0
	for f in "$d"/*; do
		case $f in *.rcpt | *.stored) continue ;; esac
		n=$((n + 1))
		id=$(basename "$f")
		stored "$id" "$d" || { bad="$bad $id(not queued)"; continue; }
		cmp -s "$f" "$d/$id.stored" || bad="$bad $id(bytes: $(diff "$f" "$d/$id.stored" | head -5 | tr '\n' ' '))"
		cmp -s "$f.rcpt" "$d/$id.stored.rcpt" || bad="$bad $id(envelope)"
	done
	[ $n -gt 0 ] && [ -z "$bad" ] && return 0
	echo "n=$n$bad"
	return 1
}

MINCORE=contrib/examples/mincore.tar.xz
MLOCK=contrib/examples/mlockmany.tar.xz
# ---- dry run == run, byte for byte (messages kept queued by the stop file)
cfg
reset
cp $MINCORE $MLOCK "$T/inbox/"
dry "$T/inbox/mincore.tar.xz" "$T/inbox/mlockmany.tar.xz"
msgs "$T/dry" "$T/d1"
touch "$T/STOP"
run
why=$(same_as_queued "$T/d1")
[ $drc -eq 0 ] && [ $rc -eq 0 ] && [ -z "$why" ] && [ "$(ls "$T/d1" | grep -vc -e '\.rcpt$' -e '\.stored$')" = 2 ] &&
	ok "dry run and run agree: both messages and envelopes byte for byte" || not_ok "dry run == run" "$why" "$(cat "$T/dry.err" "$T/err")"

# ---- already reported: said, nothing printed; --force prints the same bytes
dry "$T/done/mincore.tar.xz"
id=$(basename "$(grep -l '^Subject: .*mincore' "$T"/d1/*.com | head -1)")
[ $drc -eq 0 ] && grep -Eq "^# robotmail dry-run: report 1 from .*mincore.tar.xz: already reported as <$id> on [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} UTC, nothing sent\$" "$T/dry" &&
	! grep -q '^DATA' "$T/dry" && ok "dry run of a reported archive: 'already reported as <ID> on DATE, nothing sent', no mail" ||
	not_ok "already reported" "rc=$drc id=$id" "$(cat "$T/dry" "$T/dry.err" | head -5)"
dry --force "$T/done/mincore.tar.xz"
msgs "$T/dry" "$T/d2"
why=$(same_as_queued "$T/d2")
grep -q 'already reported as' "$T/dry" && [ -z "$why" ] && [ -e "$T/d2/$id" ] &&
	ok "--force prints the mail of a reported archive too, equal to what run queued" || not_ok "--force" "$why"

# ---- --to reflects: consumes nothing; the following run reports for real
reset
cp $MLOCK "$T/inbox/"
run --to tester@example.org
n1=$(count_new)
grep -q '^To: tester@example.org' "$T"/Maildir/new/* 2>/dev/null && [ "$n1" = 1 ] && [ -e "$T/inbox/mlockmany.tar.xz" ] &&
	ok "run --to: the copy goes to the address only, the archive stays in the inbox" || not_ok "run --to" "rc=$rc n=$n1" "$(cat "$T/err")"
run
real=$(grep -L '^To: tester@example.org' "$T"/Maildir/new/* | head -1)
[ $rc -eq 0 ] && [ "$(count_new)" = 2 ] && [ -n "$real" ] && grep -q '^Cc: .*lkp@intel.com' "$real" && [ -e "$T/done/mlockmany.tar.xz" ] &&
	ok "run --to then run: the real recipients get the report" || not_ok "--to then run" "rc=$rc n=$(count_new)" "$(cat "$T/err")"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" list >"$T/q"
rid=$(awk -F'\t' '$1 == 1 {print $4}' "$T/q" | tr -d '<>')
sid=$(awk -F'\t' '$1 == 2 {print $4}' "$T/q" | tr -d '<>')
case $rid in *-reflect-*) r_ok=1 ;; *) r_ok= ;; esac
[ -n "$r_ok" ] && [ "$rid" != "$sid" ] && ! grep -q "In-Reply-To: <$rid>" "$real" &&
	ok "the reflected copy has its own Message-ID and starts no thread" || not_ok "reflect id" "$(cat "$T/q")"

# ---- threading: the same finding re-tested replies; another tree or direction does not
reset
cp $MLOCK "$T/inbox/"
run
first=$("$ROBOTMAIL" queue -c "$T/cfg.yaml" list | awk -F'\t' '$1 == 1 {print $4}' | tr -d '<>')
variant $MLOCK "$T/inbox/retest.tar" base=84e39935160611a9a2d5791c335339ee6c6ce0c3
variant $MLOCK "$T/inbox/other-tree.tar" base=84e39935160611a9a2d5791c335339ee6c6ce0c3 branch=mm/main
variant $MLOCK "$T/inbox/regression.tar" base=3d47c79463956a7bbf8cfa997664e7dcd7acf8f1 swap
dry "$T/inbox/regression.tar" "$T/inbox/retest.tar" "$T/inbox/other-tree.tar"
msgs "$T/dry" "$T/d3"
grep -q "^# robotmail dry-run: would reply to <$first>\$" "$T/dry" && [ "$(grep -c 'would reply to' "$T/dry")" = 1 ] &&
	ok "dry run: 'would reply to <ID>' for the follow-up only" || not_ok "would reply to" "$(grep '^# robotmail' "$T/dry")" "$(cat "$T/dry.err")"
touch "$T/STOP"
run
why=$(same_as_queued "$T/d3")
[ $rc -eq 0 ] && [ -z "$why" ] && ok "dry run and run agree on follow-ups too (threading headers included)" || not_ok "follow-up dry == run" "rc=$rc" "$why" "$(cat "$T/err")"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" list >"$T/q"
hdr() { "$ROBOTMAIL" queue -c "$T/cfg.yaml" show "$1" | sed -n '/^Message-ID:/,/^$/p' | sed ':a;N;$!ba;s/\n / /g'; }
for i in 2 3 4; do
	h=$(hdr $i)
	case $h in
	*"Subject: [mm:main]"*) tree_h=$h ;;
	*"regression"*) reg_h=$h ;;
	*) re_h=$h ;;
	esac
done
echo "$re_h" | grep -qx "In-Reply-To: <$first>" && echo "$re_h" | grep -qx "References: <$first>" &&
	echo "$re_h" | grep -q '^Subject: Re: \[linus:master\] .* 10.5% improvement$' &&
	ok "the same finding re-tested replies to the first report (In-Reply-To, References, Re:)" || not_ok "follow-up" "$re_h"
echo "$reg_h" | grep -q '^Subject: \[linus:master\] \[mm\] e5e1a8d3a2: stress-ng.mlockmany.ops_per_sec .*% regression$' &&
	! echo "$reg_h" | grep -q '^In-Reply-To:' && ! echo "$reg_h" | grep -q '^References:' &&
	ok "a regression on the commit of an earlier improvement is a new thread with its own subject" || not_ok "regression threads apart" "$reg_h"
echo "$tree_h" | grep -q '^Subject: \[mm:main\] \[mm\] e5e1a8d3a2: .* improvement$' && ! echo "$tree_h" | grep -q '^In-Reply-To:' &&
	ok "the same change found on another tree is a new thread, not Re: of the other tree's report" || not_ok "tree threads apart" "$tree_h"

# ---- two archives of one finding in one run: the second replies to the first
reset
cp $MLOCK "$T/inbox/"
variant $MLOCK "$T/inbox/retest.tar" base=84e39935160611a9a2d5791c335339ee6c6ce0c3
run
one=$("$ROBOTMAIL" queue -c "$T/cfg.yaml" list | awk -F'\t' '$1 == 1 {print $4}')
hdr 2 | grep -qx "In-Reply-To: $one" && ok "two archives of one finding in one run: the second replies to the first" ||
	not_ok "same-run follow-up" "$(hdr 2)" "$(cat "$T/err")"

# ---- the inbox: symlinks, FIFOs
reset
mkdir -p "$T/elsewhere" "$T/allowed"
cp $MINCORE "$T/elsewhere/"
cp $MLOCK "$T/allowed/"
ln -s "$T/elsewhere/mincore.tar.xz" "$T/inbox/link.tar.xz"
ln -s "$T/nowhere.tar.xz" "$T/inbox/dangling.tar.xz"
touch "$T/inbox/link.tar.xz.done" "$T/inbox/dangling.tar.xz.done"
cfg
run
[ $rc -eq 1 ] && [ -L "$T/failed/link.tar.xz" ] && [ -L "$T/failed/dangling.tar.xz" ] && [ -e "$T/elsewhere/mincore.tar.xz" ] &&
	[ ! -e "$T/inbox/link.tar.xz.done" ] && [ ! -e "$T/inbox/dangling.tar.xz.done" ] &&
	grep -q "error: '$T/inbox/link.tar.xz': a symlink (to '$T/elsewhere/mincore.tar.xz'), and paths.inbox_links allows none" "$T/err" &&
	grep -q "error: '$T/inbox/dangling.tar.xz': a symlink" "$T/err" && [ "$(count_new)" = 0 ] &&
	ok "symlinks in the inbox (to an archive, dangling) are refused by default: failed/, named with the reason, exit 1" ||
	not_ok "symlinks refused" "rc=$rc" "$(cat "$T/err")" "$(ls -l "$T/inbox" "$T/failed" 2>&1)"
reset
ln -s "$T/allowed/mlockmany.tar.xz" "$T/inbox/ok.tar.xz"
ln -s "$T/elsewhere/mincore.tar.xz" "$T/inbox/out.tar.xz"
cfg
sed -i "s|^  emergency_stop: .*|&\n  inbox_links: [$T/allowed]|" "$T/cfg.yaml"
run
[ $rc -eq 1 ] && [ "$(count_new)" = 1 ] && [ -L "$T/done/ok.tar.xz" ] && [ -e "$T/allowed/mlockmany.tar.xz" ] &&
	[ -L "$T/failed/out.tar.xz" ] && grep -q "error: '$T/inbox/out.tar.xz': a symlink to .*outside every directory of paths.inbox_links" "$T/err" &&
	ok "paths.inbox_links: a link into an allowed directory is reported (the link moves, the target stays), one outside is refused" ||
	not_ok "inbox_links" "rc=$rc new=$(count_new)" "$(cat "$T/err")" "$(ls -l "$T/done" "$T/failed" 2>&1)"
reset
mkfifo "$T/inbox/pipe"
run
[ $rc -eq 1 ] && [ -p "$T/failed/pipe" ] && grep -q "error: '$T/inbox/pipe': a FIFO, not an archive" "$T/err" &&
	ok "a FIFO in the inbox goes to failed/ with its reason, exit 1" || not_ok "fifo" "rc=$rc" "$(cat "$T/err")"
reset
cp $MINCORE "$T/inbox/.hidden.tar.xz"
touch "$T/inbox/orphan.tar.xz.done"
run -v
grep -q "'$T/inbox/.hidden.tar.xz': a hidden name, ignored" "$T/err" && grep -q "'$T/inbox/orphan.tar.xz.done': a marker without its archive, ignored" "$T/err" &&
	[ $rc -eq 0 ] && ok "-v names every inbox entry it leaves alone (hidden names, orphan markers)" || not_ok "ignored entries named" "$(cat "$T/err")"

# NAME.part and NAME.tmp (an archive still being copied in, by convention): never taken,
# file or directory, and named with -v
reset
cp $MINCORE "$T/inbox/copying.tar.xz.part"
mkdir -p "$T/inbox/tree.part"
cp $MINCORE "$T/inbox/copying.tar.xz.tmp"
mkdir -p "$T/inbox/tree.tmp"
run -v
[ $rc -eq 0 ] && [ "$(count_new)" = 0 ] && [ -e "$T/inbox/copying.tar.xz.part" ] && [ -d "$T/inbox/tree.part" ] &&
	[ -e "$T/inbox/copying.tar.xz.tmp" ] && [ -d "$T/inbox/tree.tmp" ] &&
	[ ! -e "$T/failed" -o -z "$(ls "$T/failed" 2>/dev/null)" ] &&
	grep -q "'$T/inbox/copying.tar.xz.part' is still being written (.part)" "$T/err" &&
	grep -q "'$T/inbox/tree.part' is still being written" "$T/err" &&
	grep -q "'$T/inbox/copying.tar.xz.tmp' is still being written (.tmp)" "$T/err" &&
	grep -q "'$T/inbox/tree.tmp' is still being written" "$T/err" &&
	ok "an inbox NAME.part or NAME.tmp file or directory is left alone and named as still being written" ||
	not_ok "NAME.part left alone" "rc=$rc new=$(count_new)" "$(ls "$T/inbox" "$T/failed" 2>&1)" "$(cat "$T/err")"

# done/ and failed/ never overwrite an earlier archive of the same name
# (issue 13 item 8): NAME.1, NAME.2 ..., the evidence kept byte for byte
reset
mkdir -p "$T/done" "$T/failed"
echo earlier >"$T/done/mincore.tar.xz"
echo earlier-1 >"$T/done/mincore.tar.xz.1"
echo earlier >"$T/failed/junk.tar.xz"
cp $MINCORE "$T/inbox/mincore.tar.xz"
echo 'no archive' >"$T/inbox/junk.tar.xz"
run
if [ $rc -eq 1 ] && [ "$(cat "$T/done/mincore.tar.xz")" = earlier ] && [ "$(cat "$T/done/mincore.tar.xz.1")" = earlier-1 ] &&
	cmp -s $MINCORE "$T/done/mincore.tar.xz.2" && [ "$(cat "$T/failed/junk.tar.xz")" = earlier ] &&
	[ "$(cat "$T/failed/junk.tar.xz.1")" = 'no archive' ] && [ -z "$(ls "$T/inbox")" ]; then
	ok "done/ and failed/ never overwrite an earlier archive of the same name (NAME.1, NAME.2, ...)"
else
	not_ok "done/ failed/ suffix" "rc=$rc" "$(ls -l "$T/done" "$T/failed" "$T/inbox" 2>&1)" "$(cat "$T/err")"
fi

# --dry-run -o DIR creates DIR (and its parents); an error naming DIR when it cannot
reset
rm -rf "$T/eml"
dry -o "$T/eml/a/b" $MINCORE
[ $drc -eq 0 ] && [ "$(ls "$T/eml/a/b" | grep -c '\.eml$')" = 1 ] &&
	ok "--dry-run -o DIR creates a missing DIR with its parents" || not_ok "-o creates DIR" "rc=$drc" "$(ls -R "$T/eml" 2>&1)" "$(cat "$T/dry.err")"
touch "$T/eml/file"
dry -o "$T/eml/file/sub" $MINCORE
[ $drc -eq 2 ] && grep -q "cannot create directory '$T/eml/file/sub'" "$T/dry.err" && [ ! -s "$T/dry" ] &&
	ok "--dry-run -o DIR that cannot be created exits 2 naming DIR" || not_ok "-o uncreatable DIR" "rc=$drc" "$(cat "$T/dry.err")"
