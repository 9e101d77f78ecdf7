#!/usr/bin/env bash
# threads: a report on a mailing-list patch replies to the patch, and a
# follow-up on the same finding replies to the first report, checked in a
# real public-inbox v2 inbox (one thread in its over.sqlite3) and byte for
# byte in the headers.
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
export HOME=$T/home PI_CONFIG=$T/pi-config
mkdir -p "$HOME"
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
ADDR=lkp@lists.robotmail.test
public-inbox-init -V2 -L basic test "$T/inbox" http://127.0.0.1:1/test "$ADDR" >/dev/null 2>&1 || { not_ok "public-inbox-init"; exit 0; }
git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
PATCH_ID=20251014093512.12345-1-author@example.org
cat >"$T/patch.eml" <<EOF2
From: Ann Author <ann@example.org>
To: $ADDR
Subject: [PATCH] mm: avoid unnecessary lru drain for wp_can_reuse_anon_folio()
Date: Tue, 14 Oct 2025 09:35:12 +0000
Cc: Mm Maint <maint@example.org>
Message-ID: <$PATCH_ID>

the patch

base-commit: B5AC70B750F93BA32446145BE56472CF6E5C1E8C
EOF2
ORIGINAL_RECIPIENT=$ADDR public-inbox-mda <"$T/patch.eml"
cat >"$T/cfg.yaml" <<CFG
include: $PROFILE_0DAY
robot:
  cc: [$ADDR]
  cc_self: false
paths:
  state_db: $T/state.db
  inbox: $T/in
  done: $T/done
  failed: $T/failed
$(linus_tree local-git "$T/repo")
    patches: true
delivery:
  transport: public-inbox:$T/inbox
  public_inbox_config: $PI_CONFIG
  public_inbox_address: $ADDR
  settle: 0
CFG
mkdir -p "$T/in"
cp contrib/examples/mlockmany.tar.xz "$T/in/"
"$ROBOTMAIL" run -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok "the report is imported into the public-inbox (checked in its index)" || not_ok "import" "rc=$rc" "$(cat "$T/err")"
# a follow-up: the same finding re-tested against another base
"$PY" - "$T/in/retest.tar" <<'PYEOF'
import io, lzma, sys, tarfile
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/mlockmany.tar.xz', 'rb').read())))
old, new = '8f756b95ffe4a7bb2037d8856596585c3235a6f3', '84e39935160611a9a2d5791c335339ee6c6ce0c3'
with tarfile.open(sys.argv[1], 'w') as t:
    for m in src.getmembers():
        if not m.isfile():
            continue
        data = src.extractfile(m).read().replace(old.encode(), new.encode())
        info = tarfile.TarInfo(m.name.replace(old, new))
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
PYEOF
"$ROBOTMAIL" run -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok "the follow-up is imported too" || not_ok "follow-up import" "rc=$rc" "$(cat "$T/err")"
first=$("$ROBOTMAIL" queue -c "$T/cfg.yaml" list | awk -F'\t' '$1 == 1 {print $4}' | tr -d '<>')
second=$("$ROBOTMAIL" queue -c "$T/cfg.yaml" list | awk -F'\t' '$1 == 2 {print $4}' | tr -d '<>')
sqlite3 "$T/inbox/xap15/over.sqlite3" "select m.mid, o.tid from over o join id2num i on i.num = o.num join msgid m on m.id = i.id" >"$T/over"
tids=$(cut -d'|' -f2 "$T/over" | sort -u | wc -l)
[ "$(wc -l <"$T/over")" -ge 3 ] && [ "$tids" = 1 ] && grep -q "^$PATCH_ID|" "$T/over" && grep -q "^$first|" "$T/over" && grep -q "^$second|" "$T/over" &&
	ok "public-inbox: the patch, the report and the follow-up are one thread" || not_ok "one thread" "$(cat "$T/over")" "first=$first second=$second"
# the stored headers, unfolded
"$ROBOTMAIL" queue -c "$T/cfg.yaml" show 1 | sed -n '/^Message-ID:/,/^$/p' | sed ':a;N;$!ba;s/\n / /g' >"$T/h1"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" show 2 | sed -n '/^Message-ID:/,/^$/p' | sed ':a;N;$!ba;s/\n / /g' >"$T/h2"
grep -qx "In-Reply-To: <$PATCH_ID>" "$T/h1" && ! grep -q "^References:" "$T/h1" &&
	grep -qx "Subject: Re: mm: avoid unnecessary lru drain for wp_can_reuse_anon_folio()" "$T/h1" &&
	ok "the report replies to the patch as LKP's do: In-Reply-To only (no References), Re: subject" || not_ok "reply headers" "$(cat "$T/h1")"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" show 1 | grep -qx "patch link: https://lore.kernel.org/all/$PATCH_ID/" &&
	ok "the body names the patch (patch link:, patch subject:)" || not_ok "patch lines"
# base: without the patch mail, the branch of the tree it was applied to
"$ROBOTMAIL" queue -c "$T/cfg.yaml" show 1 | grep -qx "base: https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git master" &&
	ok "base: names the tree and its branch when no patch mail gave a base-commit" || not_ok "base: tree and branch"
grep -qx "In-Reply-To: <$first>" "$T/h2" && grep -qx "References: <$PATCH_ID> <$first>" "$T/h2" &&
	grep -qx "Subject: Re: mm: avoid unnecessary lru drain for wp_can_reuse_anon_folio()" "$T/h2" &&
	ok "the follow-up replies to the first report with the whole References chain and a stable subject" ||
	not_ok "follow-up headers" "$(cat "$T/h2")"
# the mda drops a message whose To/Cc lack the inbox address, and exits 0: robotmail notices
sed -i "s/  cc: \[$ADDR\]/  cc: [someone@example.org]/" "$T/cfg.yaml"
rm -f "$T/state.db"*
cp contrib/examples/mincore.tar.xz "$T/in/"
"$ROBOTMAIL" run -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
"$ROBOTMAIL" queue -c "$T/cfg.yaml" list >"$T/q"
grep -q $'\tfailed\t1\t.*did not import' "$T/q" && ok "a message the mda silently drops is recorded as failed, not sent" || not_ok "dropped import" "$(cat "$T/q" "$T/err")"

# the same through smtp-sink: the threading headers byte for byte on the wire
SINK=$(tests/peers/smtp-sink.sh start "$T/sink") || { not_ok "smtp-sink starts"; exit 0; }
trap 'tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null 2>&1; rm -rf "$T"' EXIT
rm -rf "$T/state.db"* "$T/in" "$T/done"
mkdir -p "$T/in"
cp contrib/examples/mlockmany.tar.xz "$T/in/"
sed -i -e "s|transport: public-inbox:.*|transport: smtp://127.0.0.1:$SINK|" -e "s/  cc: \[someone@example.org\]/  cc: [$ADDR]/" "$T/cfg.yaml"
"$ROBOTMAIL" run -c "$T/cfg.yaml" >"$T/out" 2>"$T/err"
dump=$(ls "$T"/sink/dump/*/* 2>/dev/null | head -1)
first=$("$ROBOTMAIL" queue -c "$T/cfg.yaml" list | awk -F'\t' '$1 == 1 {print $4}')
if [ -n "$dump" ] && grep -qx "In-Reply-To: <$PATCH_ID>" "$dump" && ! grep -q "^References:" "$dump" &&
	grep -qx "Message-ID: $first" "$dump" && grep -qx "Subject: Re: mm: avoid unnecessary lru drain for" "$dump" &&
	grep -qx " wp_can_reuse_anon_folio()" "$dump"; then
	ok "smtp-sink: In-Reply-To (no References), Message-ID and the folded Re: subject, byte for byte"
else
	not_ok "smtp-sink threading headers" "$(sed -n '1,25p' "$dump" 2>/dev/null)" "$(cat "$T/err")"
fi
tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null 2>&1

# the patch's own mail from the archive (public-inbox-httpd): its [PATCH]
# subject for the reply, and its To/Cc among the recipients
HPORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
public-inbox-httpd -l "http://127.0.0.1:$HPORT" >"$T/httpd.log" 2>&1 &
HPID=$!
trap 'kill $HPID 2>/dev/null; wait $HPID 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$HPORT/test/$PATCH_ID/raw" && break; sleep 0.1; done
rm -rf "$T/state.db"* "$T/done" "$T/in"
mkdir -p "$T/in"
cp contrib/examples/mlockmany.tar.xz "$T/in/"
sed -i "s|^  emergency_stop:.*||" "$T/cfg.yaml"
printf 'links:\n  patch_mail: http://127.0.0.1:%s/test\n' "$HPORT" >>"$T/cfg.yaml"
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/in/mlockmany.tar.xz" >"$T/dry" 2>"$T/err"
sed -n '/^DATA$/,/^$/p' "$T/dry" | sed ':a;N;$!ba;s/\n / /g' >"$T/hd"
if grep -qx "Subject: Re: \[PATCH\] mm: avoid unnecessary lru drain for wp_can_reuse_anon_folio()" "$T/hd" &&
	grep -qx "RCPT TO:<maint@example.org>" "$T/dry" && grep -qxF "patch subject: [PATCH] mm: avoid unnecessary lru drain for wp_can_reuse_anon_folio()" "$T/dry"; then
	ok "the reply takes the patch mail's [PATCH] subject and copies its To/Cc (looked up in the archive)"
else
	not_ok "patch mail lookup" "$(cat "$T/hd" "$T/err")" "$(grep RCPT "$T/dry")"
fi
# the patch mail names its base (base-commit:, git format-patch --base): the
# robot's reports on such series print no base: line (tests/data 2421's
# README names four), and the patch lines stay in their place
if ! grep -q "^base:" "$T/dry" && grep -A1 "^commit: " "$T/dry" | grep -q "^url: " &&
	grep -A1 "^url: " "$T/dry" | grep -q "^patch link: "; then
	ok "no base: line when the patch mail gives a base-commit: (url: then patch link:)"
else
	not_ok "no base: with base-commit:" "$(grep -E '^(commit|url|base|patch [a-z]+):' "$T/dry")"
fi
# the same run without the 0-day profile's robot.patch_base: guessed: base:
# names the submitter's base-commit: (report-format.md 3 item 4)
sed "s/^  cc_self: false$/  cc_self: false\n  patch_base: always/" "$T/cfg.yaml" >"$T/cfg-always.yaml"
"$ROBOTMAIL" --dry-run -c "$T/cfg-always.yaml" "$T/in/mlockmany.tar.xz" >"$T/dry-always" 2>"$T/err"
if grep -qx "base: https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git b5ac70b750f93ba32446145be56472cf6e5c1e8c" "$T/dry-always" &&
	grep -A1 "^base: " "$T/dry-always" | grep -q "^patch link: "; then
	ok "robot.patch_base: always: base: names the patch mail's base-commit: (report-format.md 3 item 4)"
else
	not_ok "base: from base-commit: with patch_base: always" "$(grep -E '^(commit|url|base|patch [a-z]+):' "$T/dry-always")" "$(cat "$T/err")"
fi
grep -qE '^commit: [0-9a-f]{40} \("\[PATCH\] mm: avoid unnecessary lru drain for wp_can_reuse_anon_folio\(\)"\)$' "$T/dry" &&
	ok "the commit: line of a patch report quotes the raw mail subject, [PATCH] included" || not_ok "patch commit: line" "$(grep '^commit:' "$T/dry")"
# url: the robot's branch of the patch: author, subject slug, the commit
# (applied) time in the robot's zone (+0800)
when=$(TZ=Asia/Shanghai date -d "@$(git -C "$T/repo" show -s --format=%ct "$(awk '/^commit: / {print $2; exit}' "$T/dry")")" +%Y%m%d-%H%M%S)
sed -n '/^commit: /{n;p;n;p;q}' "$T/dry" >"$T/lines"
if [ "$(head -1 "$T/lines")" = "url: https://github.com/intel-lab-lkp/linux/commits/Ann-Author/mm-avoid-unnecessary-lru-drain-for-wp_can_reuse_anon_folio/$when" ] &&
	grep -q '^patch link: ' "$T/lines"; then
	ok "the url: line follows commit: (the robot's branch: Author-Name/subject-slug/applied time), then patch link: (the mail names its base-commit:)"
else
	not_ok "url: line" "expected time $when" "$(cat "$T/lines")"
fi
# a job of the robot's patch branch (branch: linux-review/...): url: is read
# from it, never rebuilt (report-format.md 3 item 4)
"$PY" - "$T/review.tar" <<'PYEOF'
import io, lzma, sys, tarfile
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/mlockmany.tar.xz', 'rb').read())))
with tarfile.open(sys.argv[1], 'w') as t:
    for m in src.getmembers():
        if not m.isfile():
            continue
        data = src.extractfile(m).read()
        if m.name.endswith('job.yaml'):
            data = data.replace(b'branch: linus/master', b'branch: linux-review/Ann-Author/mm-avoid-unnecessary-lru-drain/20251014-173512')
        info = tarfile.TarInfo(m.name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
PYEOF
sed 's/^  - name: linus$/  - name: linux-review/' "$T/cfg.yaml" >"$T/review.yaml"
"$ROBOTMAIL" --dry-run -c "$T/review.yaml" "$T/review.tar" >"$T/review.out" 2>"$T/review.err"
grep -qx "url: https://github.com/intel-lab-lkp/linux/commits/Ann-Author/mm-avoid-unnecessary-lru-drain/20251014-173512" "$T/review.out" &&
	ok "url: is the job's linux-review/ branch under links.patch_branches" ||
	not_ok "url: from the job's branch" "$(grep -E '^(url|commit|base):' "$T/review.out")" "$(cat "$T/review.err")"
kill $HPID 2>/dev/null
wait $HPID 2>/dev/null
