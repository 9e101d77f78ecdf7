#!/usr/bin/env bash
# report-edge: reports built from archives at the edges of what the specs
# allow: a headline whose parent value is 0 (an enormous change), job times
# out of range, a job without testcase or kconfig.  The Subject, Message-ID
# and links must still follow the grammar of the spec's report-format.md
# (§2, §8), or the report must be refused with a reason.
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
cat >"$T/cfg.yaml" <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/state.db
$(linus_tree local-git "$T/repo")
CFG
HEAD=8807b68269657a8e419152e36c54046ec75247d3
BASE=b5ac70b750f93ba32446145be56472cf6e5c1e8c

# edit NAME PYTHON: the mincore example with PYTHON applied to every file
# (variables: path, data (bytes); assign data) -> $T/NAME.tar
edit() {
	"$PY" - "$T/$1.tar" "$2" <<'PYEOF'
import io, lzma, sys, tarfile
out, code = sys.argv[1], sys.argv[2]
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/mincore.tar.xz', 'rb').read())))
with tarfile.open(out, 'w') as t:
    for m in src.getmembers():
        if not m.isfile():
            continue
        path, data = m.name, src.extractfile(m).read()
        exec(code)
        info = tarfile.TarInfo(path)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
PYEOF
}
dry() { "$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" --now 1760500000 "$@" >"$T/out" 2>"$T/err"; rc=$?; }
header() { sed -n '/^DATA$/,/^$/p' "$T/out" | sed ':a;N;$!ba;s/\n[ \t]\+/ /g' | sed -n "s/^$1: //p"; }

# the parent's headline value is 0: the change is enormous, but it is a
# number with one decimal, every digit of it
edit zero "
import json, re
if '/$BASE/' in path and (path.endswith('/stats.json') or path.endswith('/matrix.json')):
    j = json.loads(data)
    k = 'stress-ng.mincore.ops_per_sec'
    j[k] = [0] * len(j[k]) if isinstance(j[k], list) else 0
    data = json.dumps(j).encode()
"
dry "$T/zero.tar"
subj=$(header Subject)
if [ $rc -eq 0 ] && printf '%s\n' "$subj" | grep -qE '^\[linus:master\] \[mm\] 8807b68269: stress-ng\.mincore\.ops_per_sec [0-9]{20,}\.[0-9]% improvement$' &&
	grep -qE '^kernel test robot noticed a [0-9]{20,}\.[0-9]% improvement of stress-ng\.mincore\.ops_per_sec on:$' "$T/out"; then
	ok "a parent value of 0: the Subject and headline carry the whole percentage with one decimal"
else
	not_ok "zero parent headline" "rc=$rc" "Subject: $subj" "$(grep 'noticed' "$T/out")" "$(cat "$T/err")"
fi

# end_time and start_time beyond what a time can be: the report's time is
# the run time robotmail has (now), never garbage
for v in "'99999999999999999999'" "'253402300800'" "'-5'" "'12abc'"; do
	edit "t$v" "
import re
if '/$HEAD/' in path and path.endswith('/job.yaml'):
    data = re.sub(rb\"(?m)^(end|start)_time: .*\$\", b\"\\\\1_time: \" + b\"$v\", data)
"
	dry "$T/t$v.tar"
	id=$(header Message-ID)
	dry "$T/t$v.tar"
	id2=$(header Message-ID)
	if [ $rc -eq 0 ] && printf '%s\n' "$id" | grep -qE '^<20251015[0-9]{4}\.[0-9a-f]{8}-lkp@intel\.com>$' && [ "$id" = "$id2" ] &&
		grep -qxF "https://download.01.org/0day-ci/archive/20251015/${id:1:-1}" "$T/out"; then
		ok "end_time $v: a well-formed, stable Message-ID dated by --now, and the archive link matches it"
	else
		not_ok "end_time $v" "rc=$rc id=$id id2=$id2" "$(grep -E 'Closes|archive/' "$T/out")" "$(cat "$T/err")"
	fi
done

# the charset LKP's mails declare (report-format.md §1 MIME): performance
# reports text/plain; charset="iso-8859-1" with 8bit ("±" is the byte B1),
# even when no row shows a "±"; functional ones us-ascii without a
# Content-Transfer-Encoding
mime() { sed -n '/^DATA$/,/^$/p' "$T/out" | grep -E '^Content-(Type|Transfer-Encoding):' | tr '\n' '|'; }
dry contrib/examples/mincore.tar.xz
[ "$(mime)" = 'Content-Type: text/plain; charset="iso-8859-1"|Content-Transfer-Encoding: 8bit|' ] &&
	ok "a performance report without any ± is still iso-8859-1, 8bit" || not_ok "perf charset" "$(mime)"
dry contrib/examples/mlockmany.tar.xz
body=$(sed -n '/^DATA$/,$p' "$T/out" | sed '1,/^$/d')
[ "$(mime)" = 'Content-Type: text/plain; charset="iso-8859-1"|Content-Transfer-Encoding: 8bit|' ] &&
	printf '%s' "$body" | LC_ALL=C grep -q $' \xb1  [0-9]' && ! printf '%s' "$body" | LC_ALL=C grep -q $'\xc2' &&
	ok "a performance report with ± rows: iso-8859-1 on the wire, ± as the byte B1" || not_ok "perf ±" "$(mime)"
edit func "
import json
if '/$HEAD/' in path and path.endswith('/matrix.json'):
    bm = json.loads(src.extractfile([m for m in src.getmembers() if '/$BASE/' in m.name and m.name.endswith('/matrix.json')][0]).read())
    j = json.loads(data)
    n = len(j['stats_source'])
    for k in list(j):
        if k.startswith('stress-ng.') and k in bm:
            j[k] = bm[k] + [bm[k][-1]] * (n - len(bm[k]))
    j['dmesg.BUG:kernel_NULL_pointer_dereference,address'] = [1] * n
    data = json.dumps(j).encode()
"
dry "$T/func.tar"
if grep -q '^kernel test robot noticed "BUG:kernel_NULL_pointer_dereference,address" on:$' "$T/out" &&
	[ "$(mime)" = 'Content-Type: text/plain; charset="us-ascii"|' ] && sed -n '/^DATA$/,/^$/p' "$T/out" | grep -q '^MIME-Version: 1.0$'; then
	ok "a functional report is text/plain; charset=\"us-ascii\" with no Content-Transfer-Encoding"
else
	not_ok "functional charset" "$(mime)" "$(grep noticed "$T/out")" "$(head -c 600 "$T/err")"
fi
printf 'delivery:\n  charset: iso-8859-1\n' >"$T/badcs.yaml"
"$ROBOTMAIL" --dry-run -c "$T/badcs.yaml" contrib/examples/mincore.tar.xz >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "delivery.charset" "$T/err" && ok "delivery.charset other than auto or utf-8 is a configuration error (exit 2): the body is UTF-8" ||
	not_ok "charset config" "$(cat "$T/err")"

# a job.yaml without testcase or kconfig cannot make the report's
# "testcase:" and "config:" lines: refused, naming the file and field
for f in testcase kconfig; do
	edit "no-$f" "
import re
if path.endswith('/job.yaml'):
    data = re.sub(rb'(?m)^$f: .*\n', b'', data)
"
	dry "$T/no-$f.tar"
	if [ $rc -eq 1 ] && grep -q "^# robotmail dry-run: report 1 from .*: REFUSED: '.*/$HEAD/[0-9]*/job.yaml': no '$f' field\$" "$T/out" &&
		grep -q "no '$f' field" "$T/err" && ! grep -q '^DATA$' "$T/out"; then
		ok "a job.yaml without $f: the report is refused naming the file and field, exit 1"
	else
		not_ok "no $f" "rc=$rc" "$(head -3 "$T/out")" "$(cat "$T/err")"
	fi
done

# a commit the git web API does not know: the archive is bad for good
# (failed/, exit 1, the commit named), not deferred run after run
edit unknown "
path = path.replace('$HEAD', 'f' * 40)
data = data.replace(b'$HEAD', b'f' * 40)
"
mkdir -p "$T/inbox"
cp "$T/unknown.tar" "$T/inbox/"
cat >"$T/run.yaml" <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/state.db
  inbox: $T/inbox
  done: $T/done
  failed: $T/failed
$(linus_tree local-git "$T/repo")
delivery:
  transport: maildir:$T/Maildir
  settle: 0
CFG
"$ROBOTMAIL" run -c "$T/run.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && [ -e "$T/failed/unknown.tar" ] && [ -z "$(ls "$T/inbox")" ] && [ ! -d "$T/Maildir/new" -o -z "$(ls "$T/Maildir/new" 2>/dev/null)" ] &&
	grep -q "error: '.*unknown.tar': commit ffffffffffffffffffffffffffffffffffffffff is unknown to the git web API of tree 'linus'" "$T/err" &&
	ok "an unknown commit: exit 1, the archive goes to failed/ with an error naming the commit" ||
	not_ok "unknown commit" "rc=$rc" "$(ls "$T/inbox" "$T/failed" 2>&1)" "$(cat "$T/err")"

# a member path with a newline in a refused archive: the error is one line
# (control characters become '?'), nothing can forge a log line
"$PY" - "$T/evil.tar" <<'PYEOF'
import io, sys, tarfile
with tarfile.open(sys.argv[1], 'w') as t:
    data = b'x'
    info = tarfile.TarInfo('result/a\nrobotmail: sent <forged@example.org>\n/../../etc/passwd')
    info.size = len(data)
    t.addfile(info, io.BytesIO(data))
PYEOF
"$ROBOTMAIL" compare "$T/evil.tar" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "a?robotmail: sent <forged@example.org>?/" "$T/err" && ! grep -q '^robotmail: sent' "$T/err" &&
	ok "a member path with newlines: one error line, control characters shown as '?'" || not_ok "newline in member path" "rc=$rc" "$(cat -A "$T/err")"
exit 0
