#!/usr/bin/env bash
# gitweb-trust: commit lookups against misbehaving servers and clones (issue
# 15): credentials never follow a redirect to another origin, Retry-After on
# 503, 401/403 as configuration errors, a local clone git refuses (dubious
# ownership) as a configuration error.  Two forge.py servers on free ports
# of 127.0.0.1 (the second is where the first redirects to), a local git
# repository; all stopped at exit.
. tests/lib.sh
mk_tmp
T=$TEST_TMP
FA_PID= FB_PID= FC_PID=
cleanup() {
	tests/peers/cgit.sh stop "$T/cg" >/dev/null 2>&1
	[ -n "$FC_PID" ] && kill "$FC_PID" 2>/dev/null && wait "$FC_PID" 2>/dev/null
	[ -n "$FA_PID" ] && kill "$FA_PID" 2>/dev/null && wait "$FA_PID" 2>/dev/null
	[ -n "$FB_PID" ] && kill "$FB_PID" 2>/dev/null && wait "$FB_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

tests/peers/make-test-repo.sh "$T/repo" >"$T/manifest" || { not_ok "test repository"; exit 0; }
sha() { grep -F " $1" "$T/manifest" | head -1 | cut -c1-40; }
LINK=$(sha "mm: avoid unnecessary lru drain")
IOMMU=$(sha "iommu: fix the thing")

forge() { # NAME [options]: starts forge.py, sets PORT
	local name=$1
	shift
	"$PY" tests/peers/forge.py --port 0 --fixtures tests/peers/forge-fixtures --log "$T/$name.log" \
		--auth-log "$T/$name.auth" "$@" >"$T/$name.out" 2>&1 &
	LAST_PID=$!
	for _ in $(seq 50); do grep -q listening "$T/$name.out" && break; sleep 0.1; done
	PORT=$(awk '/listening/ {print $2}' "$T/$name.out")
}
forge b
FB_PID=$LAST_PID
B=http://127.0.0.1:$PORT
forge a --redirect "$B"
FA_PID=$LAST_PID
A=http://127.0.0.1:$PORT
[ -n "$FA_PID" ] && [ -n "$FB_PID" ] && [ "$A" != "$B" ] && ok "two forges on 127.0.0.1 ($A, $B)" ||
	{ not_ok "forges start" "$(cat "$T/a.out" "$T/b.out")"; exit 0; }

tree() { # name provider api [token_env]
	printf '  - name: %s\n    branch: master\n    url: https://example.org/%s.git\n    provider: %s\n    api: %s\n' "$1" "$1" "$2" "$3"
	[ -n "${4:-}" ] && printf '    token_env: %s\n' "$4"
	return 0
}
{
	printf 'include: %s\n' "$PROFILE_0DAY"
	printf 'paths:\n  state_db: %s/state.db\n' "$T"
	printf 'gitweb:\n  connect_timeout: 2\n  timeout: 4\n  retries: 0\n  max_wait: 3\n'
	printf 'trees:\n'
	tree glmoved gitlab "$A/moved/api/v4/projects/42" RM_TEST_TOKEN
	tree ghmoved github "$A/moved/repos/test/linux" RM_TEST_TOKEN
	tree gtmoved gitea "$A/moved/api/v1/repos/test/linux" RM_TEST_TOKEN
	tree glrenamed gitlab "$A/renamed/api/v4/projects/42" RM_TEST_TOKEN
	tree ghloop github "$A/loop/repos/test/linux" RM_TEST_TOKEN
	tree ghbusy github "$A/busy/repos/test/linux"
	tree gh401 github "$A/401/repos/test/linux" RM_TEST_TOKEN
	tree gh401anon github "$A/401/repos/test/linux"
	tree lg local-git "$T/theirs"
} >"$T/cfg.yaml"
export RM_TEST_TOKEN=s3cret-test-token
rc=0
commit() { "$ROBOTMAIL" commit --no-cache -c "$T/cfg.yaml" "$@" >"$T/out" 2>"$T/err"; rc=$?; }

# ---- credentials and redirects
for t in glmoved ghmoved gtmoved; do
	: >"$T/a.auth"
	: >"$T/b.auth"
	commit "$t" "$LINK"
	if [ $rc -eq 0 ] && grep -qx "sha: $LINK" "$T/out" && grep -q "s3cret-test-token" "$T/a.auth" &&
		[ -s "$T/b.auth" ] && ! grep -q "s3cret" "$T/b.auth" && grep -q ' - -$' "$T/b.auth"; then
		ok "$t: the token goes to the configured origin, and not across a redirect to another port"
	else
		not_ok "$t: token across a redirect" "rc=$rc" "at $A: $(cat "$T/a.auth")" "at $B: $(cat "$T/b.auth")" "$(cat "$T/err")"
	fi
done
: >"$T/a.auth"
commit glrenamed "$LINK"
[ $rc -eq 0 ] && grep -qx "/renamed/api/v4/projects/42/repository/commits/$LINK - s3cret-test-token" "$T/a.auth" &&
	grep -qx "/api/v4/projects/42/repository/commits/$LINK - s3cret-test-token" "$T/a.auth" &&
	ok "a redirect within the same origin keeps the token" ||
	not_ok "same-origin redirect keeps the token" "rc=$rc" "$(cat "$T/a.auth")" "$(cat "$T/err")"
: >"$T/a.auth"
commit ghloop "$LINK"
[ $rc -eq 75 ] && grep -q "more than 3 redirects" "$T/err" &&
	[ "$(grep -c "^/loop.*/repos/test/linux/commits/$LINK " "$T/a.auth")" -eq 4 ] &&
	ok "a redirect loop stops after 3 redirects (4 requests), exit 75 naming it" ||
	not_ok "redirect limit" "rc=$rc" "$(cat "$T/a.auth")" "$(cat "$T/err")"

# ---- GitLab: changed files from the paginated diff endpoint
tree gl gitlab "$A/api/v4/projects/42" >>"$T/cfg.yaml"
commit gl "$LINK"
[ $rc -eq 0 ] && grep -qx "file: mm/memory.c" "$T/out" && grep -qx "file: mm/swap.c" "$T/out" &&
	grep -q "GET /api/v4/projects/42/repository/commits/$LINK/diff?per_page=50&page=1" "$T/a.log" &&
	ok "gitlab: changed files come from the diff endpoint, so path rules work" ||
	not_ok "gitlab: changed files" "rc=$rc" "$(cat "$T/out" "$T/err")"

# ---- an answer about another repository (moved, or a confused proxy)
GLF=tests/peers/forge-fixtures/api/v4/projects/42/repository/commits/$LINK
mkdir -p "$T/fx/repos/other/linux/commits" "$T/fx/api/v4/projects/test/linux/repository/commits/$LINK" \
	"$T/fx/api/v4/projects/other/linux/repository/commits/$LINK"
cp "tests/peers/forge-fixtures/repos/test/linux/commits/$LINK" "$T/fx/repos/other/linux/commits/"
# repos/test/linux here: IOMMU's path answers with LINK's commit (a confused
# proxy), and LINK's answer carries a committer date no form reads
mkdir -p "$T/fx/repos/test/linux/commits"
cp "tests/peers/forge-fixtures/repos/test/linux/commits/$LINK" "$T/fx/repos/test/linux/commits/$IOMMU"
"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["commit"]["committer"]["date"] = "Tue Oct 14 09:53:20 2025"; json.dump(d, open(sys.argv[2], "w"))' \
	"tests/peers/forge-fixtures/repos/test/linux/commits/$LINK" "$T/fx/repos/test/linux/commits/$LINK"
for d in test other; do cp "$GLF/index.json" "$GLF/diff" "$T/fx/api/v4/projects/$d/linux/repository/commits/$LINK/"; done
# a GitLab commit of 120 changed files: three pages of the diff endpoint
mkdir -p "$T/fx/api/v4/projects/77/repository/commits/$LINK"
cp "$GLF/index.json" "$T/fx/api/v4/projects/77/repository/commits/$LINK/"
"$PY" -c 'import json, sys; json.dump([{"new_path": "f/%03d" % i, "old_path": "f/%03d" % i, "diff": ""} for i in range(120)], sys.stdout)' \
	>"$T/fx/api/v4/projects/77/repository/commits/$LINK/diff"
"$PY" tests/peers/forge.py --port 0 --fixtures "$T/fx" --log "$T/c.log" >"$T/c.out" 2>&1 &
FC_PID=$!
for _ in $(seq 50); do grep -q listening "$T/c.out" && break; sleep 0.1; done
C=http://127.0.0.1:$(awk '/listening/ {print $2}' "$T/c.out")
{
	sed -n '/^paths:/,/^trees:/p' "$T/cfg.yaml"
	tree ghother github "$C/repos/other/linux"
	tree ghtest github "$C/repos/test/linux"
	tree glpath gitlab "$C/api/v4/projects/test%2Flinux"
	tree glother gitlab "$C/api/v4/projects/other%2Flinux"
	tree glmany gitlab "$C/api/v4/projects/77"
} >"$T/cfg-repo.yaml"
"$ROBOTMAIL" commit --no-cache -c "$T/cfg-repo.yaml" glmany "$LINK" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^file: f/' "$T/out")" -eq 120 ] && grep -qx "file: f/119" "$T/out" &&
	[ "$(grep -c "/projects/77/repository/commits/$LINK/diff?per_page=50&page=" "$T/c.log")" -eq 3 ] &&
	ok "gitlab: the diff endpoint is read page by page (120 files, 3 pages)" ||
	not_ok "gitlab: diff pages" "rc=$rc files=$(grep -c '^file: f/' "$T/out")" "$(cat "$T/c.log" "$T/err")"
"$ROBOTMAIL" commit --no-cache -c "$T/cfg-repo.yaml" ghother "$LINK" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "answered for repository '/repos/test/linux', not the one of tree 'ghother'" "$T/err" &&
	ok "github: an answer about another repository is refused, naming the server (exit 2)" ||
	not_ok "github: another repository" "rc=$rc" "$(cat "$T/out" "$T/err")"
"$ROBOTMAIL" commit --no-cache -c "$T/cfg-repo.yaml" glpath "$LINK" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -qx "sha: $LINK" "$T/out" && ok "gitlab: a project named by its path is checked and accepted" ||
	not_ok "gitlab: project path" "rc=$rc" "$(cat "$T/out" "$T/err")"
"$ROBOTMAIL" commit --no-cache -c "$T/cfg-repo.yaml" glother "$LINK" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "answered for repository '/test/linux'" "$T/err" &&
	ok "gitlab: an answer about another project is refused (exit 2)" || not_ok "gitlab: another project" "rc=$rc" "$(cat "$T/out" "$T/err")"
"$ROBOTMAIL" commit --no-cache -c "$T/cfg-repo.yaml" ghtest "$IOMMU" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 75 ] && grep -q "$C/repos/test/linux answered for commit $LINK, not $IOMMU" "$T/err" &&
	! grep -q '^subject:' "$T/out" &&
	ok "github: an answer for another commit is refused, naming the server (exit 75)" ||
	not_ok "github: another commit" "rc=$rc" "$(cat "$T/out" "$T/err")"
"$ROBOTMAIL" commit --no-cache -c "$T/cfg-repo.yaml" ghtest "$LINK" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 75 ] && grep -q "malformed response: $C/repos/test/linux/commits/$LINK: field 'commit.committer.date' holds 'Tue Oct 14 09:53:20 2025', a date robotmail cannot read" "$T/err" &&
	ok "github: a committer date no form reads is a malformed answer naming the field (exit 75), never a wrong date" ||
	not_ok "github: unreadable date" "rc=$rc" "$(cat "$T/out" "$T/err")"

# ---- Retry-After on 503 (no retries configured: only Retry-After makes it)
n0=$(wc -l <"$T/a.log")
start=$(date +%s)
commit ghbusy "$IOMMU"
el=$(($(date +%s) - start))
n1=$(wc -l <"$T/a.log")
[ $rc -eq 0 ] && grep -qx "sha: $IOMMU" "$T/out" && [ $((n1 - n0)) -eq 2 ] && [ $el -ge 1 ] &&
	ok "503 with Retry-After is waited out (${el}s, 2 requests), not failed" ||
	not_ok "503 Retry-After" "rc=$rc requests=$((n1 - n0)) elapsed=$el" "$(cat "$T/err")"

# ---- 401: the operator must fix the credentials (exit 2, named)
commit gh401 "$LINK"
[ $rc -eq 2 ] && grep -q "HTTP 401" "$T/err" && grep -q "token_env RM_TEST_TOKEN" "$T/err" && ! grep -q s3cret "$T/err" &&
	ok "401 with a token is a configuration error naming the token's source, not the token (exit 2)" ||
	not_ok "401 with a token" "rc=$rc" "$(cat "$T/err")"
commit gh401anon "$LINK"
[ $rc -eq 2 ] && grep -q "give tree 'gh401anon' a token_file or token_env" "$T/err" &&
	ok "401 without a token says to configure one (exit 2)" || not_ok "401 without a token" "rc=$rc" "$(cat "$T/err")"

# ---- odd commits under a real cgit: empty, "---" inside the message, a report's Link
mkdir -p "$T/odd"
git -C "$T/odd" init -q
gc() { GIT_AUTHOR_DATE="2025-10-17T09:53:20Z" GIT_COMMITTER_DATE="2025-10-17T10:00:00Z" git -C "$T/odd" \
	-c user.name="Ann Author" -c user.email=ann@example.org commit -q "$@"; }
echo a >"$T/odd/a" && git -C "$T/odd" add a && gc -m "a: first"
gc --allow-empty -F - <<'MSG'
mm: an empty commit that only records a decision

Some text.
---
More text after a line of dashes, still the message.

Reported-by: kernel test robot <lkp@example.org>
Link: https://lore.kernel.org/oe-lkp/202510170953.abc-lkp@example.org
Signed-off-by: Ann Author <ann@example.org>
Link: https://lore.kernel.org/all/20251010-discussion-1-x@example.org/
Link: https://patch.msgid.link/20251014-1-ann@example.org
MSG
EMPTY=$(git -C "$T/odd" rev-parse HEAD)
echo b >"$T/odd/b" && git -C "$T/odd" add b && gc -F - <<'MSG'
b: a change whose message holds a dashes line

Text.
---
After the dashes.

Signed-off-by: Ann Author <ann@example.org>
Acked-by: Rev Iewer <rev@example.org>
MSG
DASHES=$(git -C "$T/odd" rev-parse HEAD)
# a diff of about 24 MB, over the 16 MiB a response may keep
head -c 18000000 /dev/zero | tr '\0' 'x' | fold -w 100 >"$T/odd/big"
git -C "$T/odd" add big && gc -m "big: a huge generated file" -m "Signed-off-by: Ann Author <ann@example.org>"
BIG=$(git -C "$T/odd" rev-parse HEAD)
CG=$(tests/peers/cgit.sh start "$T/cg" "$T/odd") || not_ok "cgit starts" "$CG"
{
	sed -n '/^paths:/,/^trees:/p' "$T/cfg.yaml"
	tree odd cgit "$CG"
	tree oddlocal local-git "$T/odd"
} >"$T/cfg-odd.yaml"
for t in odd oddlocal; do
	"$ROBOTMAIL" commit --no-cache -c "$T/cfg-odd.yaml" $t "$EMPTY" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] && grep -qx "sha: $EMPTY" "$T/out" &&
		grep -qx "subject: mm: an empty commit that only records a decision" "$T/out" &&
		grep -qx "trailer: Signed-off-by: Ann Author <ann@example.org>" "$T/out" &&
		grep -qx "date: 2025-10-17T09:53:20+00:00" "$T/out" &&
		ok "$t: an empty commit is a valid commit (subject, trailers, author date)" ||
		not_ok "$t: empty commit" "rc=$rc" "$(cat "$T/out" "$T/err")"
	grep -qx "patch-message-id: <20251014-1-ann@example.org>" "$T/out" &&
		ok "$t: the patch link is the patch's own posting, not the report's Link or a discussion" ||
		not_ok "$t: patch link choice" "$(grep patch-message-id "$T/out")"
	"$ROBOTMAIL" commit --no-cache -c "$T/cfg-odd.yaml" $t "$DASHES" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] && grep -qx "trailer: Signed-off-by: Ann Author <ann@example.org>" "$T/out" &&
		grep -qx "trailer: Acked-by: Rev Iewer <rev@example.org>" "$T/out" && grep -qx "file: b" "$T/out" &&
		ok "$t: a '---' line inside the message does not cut the trailers" ||
		not_ok "$t: '---' in the message" "rc=$rc" "$(cat "$T/out" "$T/err")"
done

/usr/bin/time -f '%M' -o "$T/rss" "$ROBOTMAIL" commit --no-cache -c "$T/cfg-odd.yaml" odd "$DASHES" >/dev/null 2>&1
small=$(tail -1 "$T/rss")
/usr/bin/time -f '%M' -o "$T/rss" "$ROBOTMAIL" commit --no-cache -c "$T/cfg-odd.yaml" odd "$BIG" >"$T/out" 2>"$T/err"
rc=$?
rss=$(tail -1 "$T/rss")
[ $rc -eq 0 ] && grep -qx "sha: $BIG" "$T/out" && grep -qx "file: big" "$T/out" &&
	grep -qx "trailer: Signed-off-by: Ann Author <ann@example.org>" "$T/out" && [ "$rss" -le $((small + 4096)) ] &&
	ok "cgit: a commit whose patch is over 16 MiB is read in the memory of a small one (peak RSS ${rss} KiB, small ${small} KiB)" ||
	not_ok "cgit: huge commit" "rc=$rc rss=${rss} KiB small=${small} KiB" "$(cat "$T/out" "$T/err")"

# ---- a commit the clone has not fetched yet: the archive waits (exit 75) up to
# gitweb.lookup_horizon, and is reported once the commit arrives; past the
# horizon it fails naming the commit.  The mincore example's head commit is
# 8807b68 of the test repository; "behind" clones stop at its parent.
behind() { # DIR: a clone of the test repository without 8807b68
	git clone -q --no-local --single-branch "$T/repo" "$1" &&
		git -C "$1" remote remove origin && git -C "$1" reset -q --hard b5ac70b750f93ba32446145be56472cf6e5c1e8c &&
		git -C "$1" reflog expire --expire=now --all && git -C "$1" gc -q --prune=now
}
runcfg() { # NAME CLONE
	mkdir -p "$T/$1/inbox"
	cat <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/$1/state.db
  inbox: $T/$1/inbox
  done: $T/$1/done
  failed: $T/$1/failed
gitweb:
  miss_ttl: 0
  lookup_horizon: 3600
$(linus_tree local-git "$2")
delivery:
  transport: maildir:$T/$1/Maildir
  settle: 0
CFG
}
behind "$T/behind" && behind "$T/behind2" || not_ok "clones behind"
runcfg h1 "$T/behind" >"$T/h1.yaml"
cp contrib/examples/mincore.tar.xz "$T/h1/inbox/"
"$ROBOTMAIL" run -c "$T/h1.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 75 ] && [ -e "$T/h1/inbox/mincore.tar.xz" ] && grep -q "commit 8807b68269657a8e419152e36c54046ec75247d3 is not known to the git web API yet; the report waits until" "$T/err" &&
	ok "an unknown commit within gitweb.lookup_horizon: the archive waits in the inbox (exit 75)" ||
	not_ok "unknown commit within the horizon" "rc=$rc" "$(ls -R "$T/h1" | head)" "$(cat "$T/err")"
git -C "$T/behind" fetch -q "$T/repo" master
"$ROBOTMAIL" run -c "$T/h1.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && [ -e "$T/h1/done/mincore.tar.xz" ] && [ "$(ls "$T/h1/Maildir/new" 2>/dev/null | wc -l)" -eq 1 ] &&
	ok "once the clone has the commit, the waiting archive is reported (one mail)" ||
	not_ok "commit appears later" "rc=$rc" "$(ls -R "$T/h1" | head -20)" "$(cat "$T/err")"
runcfg h2 "$T/behind2" >"$T/h2.yaml"
cp contrib/examples/mincore.tar.xz "$T/h2/inbox/"
touch -d '2 hours ago' "$T/h2/inbox/mincore.tar.xz"
"$ROBOTMAIL" run -c "$T/h2.yaml" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && [ -e "$T/h2/failed/mincore.tar.xz" ] && grep -q "commit 8807b68269657a8e419152e36c54046ec75247d3 is unknown" "$T/err" &&
	ok "past gitweb.lookup_horizon the archive fails naming the commit (exit 1)" ||
	not_ok "unknown commit past the horizon" "rc=$rc" "$(ls -R "$T/h2" | head)" "$(cat "$T/err")"

# ---- a clone owned by another user: git refuses it (dubious ownership)
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	cp -a "$T/repo" "$T/theirs"
	chown -R nobody "$T/theirs"
	mkdir -p "$T/home"
	HOME=$T/home GIT_CONFIG_NOSYSTEM=1 "$ROBOTMAIL" commit --no-cache -c "$T/cfg.yaml" lg "$IOMMU" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "dubious ownership" "$T/err" && grep -q "safe.directory '$T/theirs'" "$T/err" &&
		ok "local-git: a clone git refuses (dubious ownership) is a configuration error naming safe.directory (exit 2)" ||
		not_ok "local-git: dubious ownership" "rc=$rc" "$(cat "$T/err")"
	printf '[safe]\n\tdirectory = %s\n' "$T/theirs" >"$T/home/.gitconfig"
	HOME=$T/home GIT_CONFIG_NOSYSTEM=1 "$ROBOTMAIL" commit --no-cache -c "$T/cfg.yaml" lg "$IOMMU" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] && grep -qx "sha: $IOMMU" "$T/out" &&
		ok "local-git: with the safe.directory fix the same clone answers" || not_ok "local-git: safe.directory fix" "rc=$rc" "$(cat "$T/err")"
else
	ok "local-git: dubious ownership # SKIP needs root to give a clone to another user"
	ok "local-git: safe.directory fix # SKIP needs root"
fi

# ---- unknown commits asked again with a growing wait (counted in the store),
# a fresh ask before giving up at the horizon, answers that never parse.
# forge D serves the fixtures without the mincore example's head commit
# until it is copied in; forge M serves a malformed answer for it.
HEAD_SHA=8807b68269657a8e419152e36c54046ec75247d3
FX=tests/peers/forge-fixtures/repos/test/linux/commits
mkdir -p "$T/fxd/repos/test/linux/commits" "$T/fxm/repos/test/linux/commits"
for f in "$FX"/*; do [ "${f##*/}" = "$HEAD_SHA" ] || cp "$f" "$T/fxd/repos/test/linux/commits/"; done
cp "$T/fxd/repos/test/linux/commits/"* "$T/fxm/repos/test/linux/commits/"
printf '{"sha": "%s", "commit": {"message": "cut' "$HEAD_SHA" >"$T/fxm/repos/test/linux/commits/$HEAD_SHA"
FD_PID= FM_PID=
"$PY" tests/peers/forge.py --port 0 --fixtures "$T/fxd" --log "$T/d.log" >"$T/d.out" 2>&1 &
FD_PID=$!
"$PY" tests/peers/forge.py --port 0 --fixtures "$T/fxm" --log "$T/m.log" >"$T/m.out" 2>&1 &
FM_PID=$!
for _ in $(seq 50); do grep -q listening "$T/d.out" && grep -q listening "$T/m.out" && break; sleep 0.1; done
D=http://127.0.0.1:$(awk '/listening/ {print $2}' "$T/d.out")
M=http://127.0.0.1:$(awk '/listening/ {print $2}' "$T/m.out")
trap 'kill $FD_PID $FM_PID 2>/dev/null; wait $FD_PID $FM_PID 2>/dev/null; cleanup' EXIT
bcfg() { # NAME API HORIZON: a run configuration over a GitHub API
	mkdir -p "$T/$1/inbox"
	cat <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/$1/state.db
  inbox: $T/$1/inbox
  done: $T/$1/done
  failed: $T/$1/failed
gitweb:
  connect_timeout: 2
  timeout: 4
  retries: 0
  miss_ttl: 3600
  lookup_horizon: $3
$(linus_tree github "$2/repos/test/linux")
delivery:
  transport: maildir:$T/$1/Maildir
  settle: 0
CFG
}
brun() { "$ROBOTMAIL" run -c "$T/$1.yaml" >"$T/out" 2>"$T/err"; rc=$?; }
row() { sqlite3 "$T/$1/state.db" "SELECT $2 FROM commit_cache WHERE sha = '$HEAD_SHA'" 2>&1; }
asks() { grep -c "GET /repos/test/linux/commits/$HEAD_SHA" "$1"; }
# time passes for the store: every time of the commit's record $2 s earlier
earlier() { sqlite3 "$T/$1/state.db" "UPDATE commit_cache SET fetched_at = fetched_at - $2,
	expires_at = expires_at - $2, first_failed_at = first_failed_at - $2 WHERE sha = '$HEAD_SHA'"; }

bcfg k1 "$D" 86400 >"$T/k1.yaml"
cp contrib/examples/mincore.tar.xz "$T/k1/inbox/"
brun k1
[ $rc -eq 75 ] && [ -e "$T/k1/inbox/mincore.tar.xz" ] && [ "$(asks "$T/d.log")" -eq 1 ] &&
	grep -q "commit $HEAD_SHA is not known to the git web API yet; the report waits until .*; 1 ask since .*, the next after" "$T/err" &&
	[ "$(row k1 'attempts, expires_at - fetched_at')" = "1|60" ] &&
	ok "an unknown commit: asked once, counted in the store (1 ask, the next in 60 s), the archive waits (exit 75)" ||
	not_ok "unknown commit, first ask" "rc=$rc asks=$(asks "$T/d.log") row=$(row k1 'attempts, expires_at - fetched_at')" "$(cat "$T/err")"
brun k1
[ $rc -eq 75 ] && [ "$(asks "$T/d.log")" -eq 1 ] && grep -q "; 1 ask since" "$T/err" &&
	ok "before its next ask is due the commit is not asked again (still exit 75)" ||
	not_ok "unknown commit, not due" "rc=$rc asks=$(asks "$T/d.log")" "$(cat "$T/err")"
earlier k1 61
"$ROBOTMAIL" --dry-run -c "$T/k1.yaml" "$T/k1/inbox/mincore.tar.xz" >"$T/out" 2>"$T/err"
drc=$?
[ "$(asks "$T/d.log")" -eq 2 ] && grep -q "; 2 asks since" "$T/err" && [ "$(row k1 attempts)" = 1 ] &&
	grep -q "HELD" "$T/out" &&
	ok "--dry-run asks when run would and shows the same wait (2 asks), but counts nothing in the store" ||
	not_ok "dry run of a due unknown commit" "rc=$drc asks=$(asks "$T/d.log") attempts=$(row k1 attempts)" "$(cat "$T/out" "$T/err")"
brun k1
[ $rc -eq 75 ] && [ "$(asks "$T/d.log")" -eq 3 ] && grep -q "; 2 asks since" "$T/err" &&
	[ "$(row k1 'attempts, expires_at - fetched_at')" = "2|120" ] &&
	ok "the second ask comes after the wait, and the next wait doubles (120 s)" ||
	not_ok "unknown commit, second ask" "rc=$rc asks=$(asks "$T/d.log") row=$(row k1 'attempts, expires_at - fetched_at')" "$(cat "$T/err")"

# past the horizon, still unknown: the archive fails, naming its asks
bcfg k3 "$D" 86400 >"$T/k3.yaml"
cp contrib/examples/mincore.tar.xz "$T/k3/inbox/"
touch -d '2 days ago' "$T/k3/inbox/mincore.tar.xz"
brun k3
[ $rc -eq 1 ] && [ -e "$T/k3/failed/mincore.tar.xz" ] &&
	grep -q "commit $HEAD_SHA is unknown to the git web API of tree 'linus' after 1 ask since .* (gitweb.lookup_horizon 86400s)" "$T/err" &&
	ok "past gitweb.lookup_horizon an unknown commit fails its archive, naming the asks (exit 1)" ||
	not_ok "unknown past the horizon" "rc=$rc" "$(ls -R "$T/k3" | head)" "$(cat "$T/err")"

# a dry run before any run (no store yet) says what run would: the next ask in 60 s
bcfg k0 "$D" 86400 >"$T/k0.yaml"
cp contrib/examples/mincore.tar.xz "$T/k0/inbox/"
"$ROBOTMAIL" --dry-run -c "$T/k0.yaml" "$T/k0/inbox/mincore.tar.xz" >"$T/out" 2>"$T/err"
since=$(sed -n 's/.*; 1 ask since \([^,]*\), the next after \(.*\)$/\1/p' "$T/err")
next=$(sed -n 's/.*; 1 ask since \([^,]*\), the next after \(.*\)$/\2/p' "$T/err")
[ -n "$since" ] && [ -n "$next" ] && [ $(($(date -d "$next" +%s) - $(date -d "$since" +%s))) -eq 60 ] &&
	[ ! -e "$T/k0/state.db" ] && grep -q "HELD" "$T/out" &&
	ok "--dry-run without a store yet shows run's wait (1 ask, the next 60 s later) and writes nothing" ||
	not_ok "dry run without a store" "since=$since next=$next" "$(ls "$T/k0")" "$(cat "$T/out" "$T/err")"

# the commit appears upstream
cp "$FX/$HEAD_SHA" "$T/fxd/repos/test/linux/commits/"
earlier k1 121
brun k1
[ $rc -eq 0 ] && [ -e "$T/k1/done/mincore.tar.xz" ] && [ "$(ls "$T/k1/Maildir/new" | wc -l)" -eq 1 ] &&
	[ "$(row k1 found)" = 1 ] &&
	ok "the commit appears: at its next ask the waiting archive is reported (one mail)" ||
	not_ok "unknown commit appears" "rc=$rc" "$(ls -R "$T/k1" | head -20)" "$(cat "$T/err")"
# an archive past its horizon whose commit's last ask came before the horizon
# ended, with a next ask not due yet: asked once more rather than failed on
# the old answer, so the report of a commit that appeared meanwhile is not lost
bcfg k2 "$D" 86400 >"$T/k2.yaml"
brun k2
now=$(date +%s)
sqlite3 "$T/k2/state.db" "INSERT INTO commit_cache (tree, sha, found, facts, fetched_at, expires_at)
	VALUES ('linus', '$HEAD_SHA', 0, NULL, $((now - 129600)), $((now + 3600)))" 2>"$T/err" ||
	not_ok "k2: seeding a miss record" "$(cat "$T/err")"
cp contrib/examples/mincore.tar.xz "$T/k2/inbox/"
touch -d '2 days ago' "$T/k2/inbox/mincore.tar.xz"
brun k2
[ $rc -eq 0 ] && [ -e "$T/k2/done/mincore.tar.xz" ] && [ "$(ls "$T/k2/Maildir/new" | wc -l)" -eq 1 ] &&
	ok "at the horizon a miss asked before it is asked again: the commit that appeared meanwhile is reported" ||
	not_ok "fresh ask at the horizon" "rc=$rc" "$(ls -R "$T/k2" | head -20)" "$(cat "$T/err")"

# an answer that never parses (a 200 application/json cut short): a
# temporary failure twice, the third time in a row the archive fails
bcfg k4 "$M" 86400 >"$T/k4.yaml"
cp contrib/examples/mincore.tar.xz "$T/k4/inbox/"
brun k4
r1=$rc
grep -q "malformed response: .*(1 of 3 before the commit fails; asked again after" "$T/err" && g1=1 || g1=0
earlier k4 61
brun k4
r2=$rc
earlier k4 121
brun k4
[ $r1 -eq 75 ] && [ $g1 -eq 1 ] && [ $r2 -eq 75 ] && [ $rc -eq 1 ] && [ -e "$T/k4/failed/mincore.tar.xz" ] &&
	grep -q "commit $HEAD_SHA: the git web API of tree 'linus' gave an answer that does not parse 3 times in a row since" "$T/err" &&
	grep -q "$M/repos/test/linux/commits/$HEAD_SHA" "$T/err" &&
	ok "an answer that never parses: deferred twice (exit 75), the third in a row fails the archive naming the server (exit 1)" ||
	not_ok "malformed answer" "rc=$r1,$r2,$rc grep1=$g1" "$(ls -R "$T/k4" | head)" "$(cat "$T/err")"
# the same bytes as text/html: no answer of the API (a proxy or a login page
# in the way), temporary and not counted toward the permanent failure
bcfg k6 "$M/html" 86400 >"$T/k6.yaml"
cp contrib/examples/mincore.tar.xz "$T/k6/inbox/"
brun k6
[ $rc -eq 75 ] && grep -q "$M/html/repos/test/linux/commits/$HEAD_SHA: HTTP 200 with Content-Type 'text/html; charset=utf-8', not JSON" "$T/err" &&
	[ -z "$(row k6 attempts)" ] &&
	ok "an unparsable 200 that is not JSON (text/html) is temporary and not counted as a malformed commit (exit 75)" ||
	not_ok "text/html answer" "rc=$rc" "$(cat "$T/err")"
# structurally wrong (valid JSON, no commit): the same rule
printf '[]' >"$T/fxm/repos/test/linux/commits/$HEAD_SHA"
bcfg k5 "$M" 86400 >"$T/k5.yaml"
brun k5 # (an empty inbox: the store made)
sqlite3 "$T/k5/state.db" "INSERT INTO commit_cache (tree, sha, found, fetched_at, expires_at, attempts,
	first_failed_at, failure) VALUES ('linus', '$HEAD_SHA', 0, 1, 2, 2, 1, 'an earlier answer that did not parse')"
cp contrib/examples/mincore.tar.xz "$T/k5/inbox/"
brun k5
[ $rc -eq 1 ] && [ -e "$T/k5/failed/mincore.tar.xz" ] && grep -q "does not parse 3 times in a row since .*expected a JSON object" "$T/err" &&
	ok "a structurally wrong answer (valid JSON, no commit) fails the archive on the same rule" ||
	not_ok "structurally wrong answer" "rc=$rc" "$(cat "$T/err")"

# ---- a JSON forge answer over 16 MiB: robotmail reads the headers and the
# file list, not the patches; when even those are over the cap it is a
# permanent failure, named, not a deferral
mkdir -p "$T/fxb/repos/test/linux/commits" "$T/fxb/api/v1/repos/test/linux/git/commits" "$T/fxb/repos/huge/linux/commits"
"$PY" - "$FX/$LINK" "$T/fxb" "$LINK" <<'PY'
import json, os, sys
src, out, sha = sys.argv[1:4]
c = json.load(open(src))
f0 = dict(c["files"][0])
# a 20 MB patch with escapes and a "files" look-alike inside it
f0["patch"] = "@@ -1 +1 @@\n-\"old\\\" \"files\": [\n+x\t" + "y" * (20 << 20) + "\n"
c["files"] = [f0] + c["files"] + [{"filename": "after/the-big-one.c", "status": "added", "patch": "+z\n" * 10}]
open(out + "/repos/test/linux/commits/" + sha, "w").write(json.dumps(c))
os.symlink(out + "/repos/test/linux/commits/" + sha, out + "/api/v1/repos/test/linux/git/commits/" + sha)
# a file list alone over 16 MiB (150,000 files)
c["url"] = c["url"].replace("/repos/test/", "/repos/huge/")
c["files"] = [{"filename": "dir/%0100d.c" % i, "status": "added"} for i in range(150000)]
open(out + "/repos/huge/linux/commits/" + sha, "w").write(json.dumps(c))
PY
"$PY" tests/peers/forge.py --port 0 --fixtures "$T/fxb" --log "$T/fb.log" >"$T/fb.out" 2>&1 &
FBIG_PID=$!
trap 'kill $FD_PID $FM_PID $FBIG_PID 2>/dev/null; wait $FD_PID $FM_PID $FBIG_PID 2>/dev/null; cleanup' EXIT
for _ in $(seq 50); do grep -q listening "$T/fb.out" && break; sleep 0.1; done
FB=http://127.0.0.1:$(awk '/listening/ {print $2}' "$T/fb.out")
{
	sed -n '/^paths:/,/^trees:/p' "$T/cfg.yaml"
	tree ghbig github "$FB/repos/test/linux"
	tree gtbig gitea "$FB/api/v1/repos/test/linux"
	tree ghhuge github "$FB/repos/huge/linux"
	tree ghsmall github "$A/repos/test/linux"
} >"$T/cfg-big.yaml"
/usr/bin/time -f '%M' -o "$T/rss" "$ROBOTMAIL" commit --no-cache -c "$T/cfg-big.yaml" ghsmall "$LINK" >/dev/null 2>&1
small=$(tail -1 "$T/rss")
for t in ghbig gtbig; do
	/usr/bin/time -f '%M' -o "$T/rss" "$ROBOTMAIL" commit --no-cache -c "$T/cfg-big.yaml" $t "$LINK" >"$T/out" 2>"$T/err"
	rc=$?
	rss=$(tail -1 "$T/rss")
	[ $rc -eq 0 ] && grep -qx "sha: $LINK" "$T/out" && grep -qx "file: after/the-big-one.c" "$T/out" &&
		grep -qx "file: mm/swap.c" "$T/out" && [ "$rss" -le $((small + 4096)) ] &&
		ok "$t: a commit answer of $(($(wc -c <"$T/fxb/repos/test/linux/commits/$LINK") >> 20)) MiB is read without its patches (peak RSS ${rss} KiB, small ${small} KiB)" ||
		not_ok "$t: huge JSON commit" "rc=$rc rss=$rss small=$small" "$(cat "$T/out" "$T/err")"
done
"$ROBOTMAIL" commit --no-cache -c "$T/cfg-big.yaml" ghhuge "$LINK" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && grep -q "$FB/repos/huge/linux/commits/$LINK: even the part robotmail reads of the answer is larger than 16777216 bytes" "$T/err" &&
	ok "a file list alone over 16 MiB is a permanent failure naming the URL (exit 1, not 75)" ||
	not_ok "file list over the cap" "rc=$rc" "$(cat "$T/err")"
