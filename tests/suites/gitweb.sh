#!/usr/bin/env bash
# gitweb: commit facts from a real cgit under lighttpd, a JSON forge with
# recorded GitHub/Gitea/GitLab responses and failure modes, and a local
# clone; the cache.  127.0.0.1 only; every server is
# started here on a free port and stopped at exit.
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
FORGE_PID=
cleanup() {
	tests/peers/cgit.sh stop "$T/cg" >/dev/null 2>&1
	[ -n "$FORGE_PID" ] && kill "$FORGE_PID" 2>/dev/null && wait "$FORGE_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

tests/peers/make-test-repo.sh "$T/repo" >"$T/manifest" || { not_ok "test repository"; exit 0; }
sha() { grep -F " $1" "$T/manifest" | head -1 | cut -c1-40; }
LINK=$(sha "mm: avoid unnecessary lru drain")
LINKT=$(date -u -d "@$(git -C "$T/repo" show -s --format=%ct "$LINK")" +%Y-%m-%dT%H:%M:%SZ) # its committer date
IOMMU=$(sha "iommu: fix the thing")
MSGIDLINK=$(sha "mm/vmscan: simplify")
MERGE=$(sha "Merge branch 'side'")
MEMCG=$(sha "memcg: use mod_node_page_state")
PAGEALLOC=$(sha "mm/page_alloc: remove")

CGIT=$(tests/peers/cgit.sh start "$T/cg" "$T/repo") || { not_ok "cgit starts" "$CGIT"; exit 0; }
ok "cgit starts under lighttpd on 127.0.0.1"
"$PY" tests/peers/forge.py --port 0 --fixtures tests/peers/forge-fixtures --log "$T/forge.log" \
	--slow 10 >"$T/forge.out" 2>&1 &
FORGE_PID=$!
for _ in $(seq 50); do grep -q listening "$T/forge.out" && break; sleep 0.1; done
FPORT=$(awk '/listening/ {print $2}' "$T/forge.out")
[ -n "$FPORT" ] && ok "forge starts on 127.0.0.1" || { not_ok "forge starts" "$(cat "$T/forge.out")"; exit 0; }
F=http://127.0.0.1:$FPORT

tree() { # name provider api
	printf '  - name: %s\n    branch: master\n    url: https://example.org/%s.git\n    provider: %s\n    api: %s\n' "$1" "$1" "$2" "$3"
}
{
	printf 'include: %s\n' "$PROFILE_0DAY"
	printf 'paths:\n  state_db: %s/state.db\n' "$T"
	printf 'gitweb:\n  connect_timeout: 2\n  timeout: 2\n  retries: 2\n  max_wait: 3\n  miss_ttl: 3600\n'
	printf 'trees:\n'
	tree linus cgit "$CGIT"
	tree gh github "$F/repos/test/linux"
	tree gt gitea "$F/api/v1/repos/test/linux"
	tree gl gitlab "$F/api/v4/projects/42"
	tree ghflaky github "$F/flaky/repos/test/linux"
	tree ghtrunc github "$F/trunc/repos/test/linux"
	tree gh429 github "$F/429/repos/test/linux"
	tree gh500 github "$F/500/repos/test/linux"
	tree lg local-git "$T/repo"
} >"$T/cfg.yaml"
# no retries and a short timeout for the slow server; a short max_wait
sed -e 's/retries: 2/retries: 0/' -e 's/max_wait: 3/max_wait: 1/' -e "s|/state\.db|/state2.db|" "$T/cfg.yaml" >"$T/cfg-fast.yaml"
printf '  - name: ghslow\n    branch: master\n    url: https://example.org/s.git\n    provider: github\n    api: %s/slow/repos/test/linux\n' "$F" >>"$T/cfg-fast.yaml"
printf '  - name: gh403\n    branch: master\n    url: https://example.org/r.git\n    provider: github\n    api: %s/403/repos/test/linux\n' "$F" >>"$T/cfg-fast.yaml"

rc=0
commit() { "$ROBOTMAIL" commit -c "$T/cfg.yaml" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
has() { # NAME LINE...: every LINE is in $T/out
	local name=$1 l missing=
	shift
	for l in "$@"; do grep -qxF -- "$l" "$T/out" || missing="$missing\n  missing: $l"; done
	if [ -z "$missing" ] && [ $rc -eq 0 ]; then ok "$name"; else not_ok "$name" "rc=$rc" "$(printf "$missing")" "$(cat "$T/out" "$T/err")"; fi
}

# ---- cgit
commit linus "${LINK:0:10}"
has "cgit: every fact of a commit with trailers, from an abbreviated sha" \
	"sha: $LINK" \
	"subject: mm: avoid unnecessary lru drain for wp_can_reuse_anon_folio()" \
	"author: Ann Author <ann@example.org>" \
	"committer: Mm Maintainer <maint@example.org>" \
	"parent: $PAGEALLOC" \
	"patch-message-id: <20251014093512.12345-1-author@example.org>" \
	"trailer: Signed-off-by: Ann Author <ann@example.org>" \
	"trailer: Reviewed-by: Rev Iewer <rev@example.org>" \
	"trailer: Cc: list@vger.example.org" \
	"file: mm/memory.c" "committed: $LINKT" "source: network (2 requests)"
grep -q '^date: 2025-' "$T/out" && ok "cgit: author date" || not_ok "cgit: author date" "$(cat "$T/out")"
commit linus "$IOMMU"
has "cgit: raw UTF-8 author name decoded" "author: Jörg Rödel <joro@example.org>" "subject: iommu: fix the thing"
commit linus "$MSGIDLINK"
has "cgit: patch.msgid.link trailer gives the patch Message-ID" "patch-message-id: <20251101-x-v2-1-abc@example.org>"
commit linus "$MERGE"
has "cgit: a merge is described from its commit page" "sha: $MERGE" "subject: Merge branch 'side'"
commit linus deadbeef
[ $rc -eq 1 ] && grep -q "unknown to linus" "$T/err" && ok "cgit: unknown commit exits 1, not a failure" || not_ok "cgit: unknown commit exits 1" "rc=$rc" "$(cat "$T/err")"
commit --subject "memcg: use mod_node_page_state to update stats" linus 1234567890123456789012345678901234567890
has "cgit: an unknown sha is matched by its subject" "matched-by-subject: $MEMCG" "sha: $MEMCG"
commit --subject "mm: (evil [regex) subject" linus 1234567890123456789012345678901234567891
[ $rc -eq 1 ] && ok "cgit: a subject with regex characters is searched safely" || not_ok "cgit: regex characters in subject search" "rc=$rc" "$(cat "$T/err")"

# ---- the cache: a second lookup makes no request
before=$(tests/peers/cgit.sh count "$T/cg")
commit linus "${LINK:0:10}"
after=$(tests/peers/cgit.sh count "$T/cg")
if [ "$before" = "$after" ] && grep -qx "source: cache (0 requests)" "$T/out"; then
	ok "cache: a found commit is not fetched again ($after requests at the server)"
else
	not_ok "cache: a found commit is not fetched again" "before=$before after=$after" "$(cat "$T/out")"
fi
commit linus "$LINK"
grep -qx "source: cache (0 requests)" "$T/out" && grep -qx "committed: $LINKT" "$T/out" &&
	ok "cache: the full sha shares the abbreviated lookup's entry (committer date kept)" || not_ok "cache: full sha entry" "$(cat "$T/out")"
before=$(tests/peers/cgit.sh count "$T/cg")
commit linus deadbeef
after=$(tests/peers/cgit.sh count "$T/cg")
[ "$before" = "$after" ] && [ $rc -eq 1 ] && ok "cache: a miss is cached too" || not_ok "cache: a miss is cached" "before=$before after=$after rc=$rc"
commit --no-cache linus "$LINK"
grep -q "source: network" "$T/out" && ok "--no-cache goes to the network" || not_ok "--no-cache goes to the network" "$(cat "$T/out")"

# ---- JSON forges
commit gh "$LINK"
has "github: facts from a recorded REST response" "sha: $LINK" \
	"subject: mm: avoid unnecessary lru drain for wp_can_reuse_anon_folio()" \
	"committer: Mm Maintainer <maint@example.org>" "parent: $PAGEALLOC" \
	"patch-message-id: <20251014093512.12345-1-author@example.org>" "file: mm/memory.c" "committed: $LINKT"
commit gt "$IOMMU"
has "gitea: facts with a non-ASCII author" "author: Jörg Rödel <joro@example.org>" "subject: iommu: fix the thing" "file: drivers/iommu/x.c"
commit gl "$LINK"
has "gitlab: facts from a recorded response" "sha: $LINK" "author: Ann Author <ann@example.org>" "parent: $PAGEALLOC" "committed: $LINKT"
commit gh 404aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
[ $rc -eq 1 ] && ok "github: 404 is an unknown commit" || not_ok "github: 404 is an unknown commit" "rc=$rc" "$(cat "$T/err")"
commit gh 422aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
[ $rc -eq 1 ] && ok "github: 422 (no commit for sha) is an unknown commit" || not_ok "github: 422" "rc=$rc" "$(cat "$T/err")"
commit --subject "memcg: use mod_node_page_state to update stats" gh 422bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
has "github: an unknown sha is matched through the search API" "matched-by-subject: $MEMCG"

n0=$(wc -l <"$T/forge.log")
commit ghflaky "$MEMCG"
n1=$(wc -l <"$T/forge.log")
has "forge: two 500s then success, retried with backoff" "sha: $MEMCG"
[ $((n1 - n0)) -eq 3 ] && ok "forge: flaky lookup took exactly 3 requests" || not_ok "forge: flaky lookup took 3 requests" "$((n1 - n0))"
n0=$(wc -l <"$T/forge.log")
commit gh500 "$MEMCG"
n1=$(wc -l <"$T/forge.log")
[ $rc -eq 75 ] && grep -q "HTTP 500 (after 3 attempts)" "$T/err" && [ $((n1 - n0)) -eq 3 ] &&
	ok "forge: persistent 500 gives up after 1+2 attempts, exit 75" ||
	not_ok "forge: persistent 500" "rc=$rc requests=$((n1 - n0))" "$(cat "$T/err")"
start=$(date +%s)
commit gh429 "$MEMCG"
el=$(($(date +%s) - start))
[ $rc -eq 75 ] && grep -q "rate limited" "$T/err" && [ $el -ge 3 ] && [ $el -le 12 ] &&
	ok "forge: 429 Retry-After is honoured (waited ${el}s), then deferred with exit 75" ||
	not_ok "forge: 429 Retry-After" "rc=$rc elapsed=$el" "$(cat "$T/err")"
commit ghtrunc "$MEMCG"
[ $rc -eq 75 ] && ok "forge: a truncated response is a temporary failure" || not_ok "forge: truncated response" "rc=$rc" "$(cat "$T/err")"

"$ROBOTMAIL" commit -c "$T/cfg-fast.yaml" gh403 "$MEMCG" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 75 ] && grep -q "rate limited (HTTP 403)" "$T/err" &&
	ok "forge: 403 with a reset beyond max_wait defers at once" || not_ok "forge: 403 rate limit" "rc=$rc" "$(cat "$T/err")"
start=$(date +%s)
"$ROBOTMAIL" commit -c "$T/cfg-fast.yaml" ghslow "$MEMCG" >"$T/out" 2>"$T/err"
rc=$?
el=$(($(date +%s) - start))
[ $rc -eq 75 ] && [ $el -le 6 ] && grep -qi "timeout\|timed out" "$T/err" &&
	ok "forge: a slow server hits the timeout (${el}s), exit 75" || not_ok "forge: slow server" "rc=$rc elapsed=$el" "$(cat "$T/err")"

# ---- local clone
commit lg "${IOMMU:0:12}"
has "local-git: facts from git show" "sha: $IOMMU" "author: Jörg Rödel <joro@example.org>" \
	"committer: Mm Maintainer <maint@example.org>" "file: drivers/iommu/x.c"
commit lg 0123456789abcdef
[ $rc -eq 1 ] && ok "local-git: unknown commit exits 1" || not_ok "local-git: unknown commit" "rc=$rc" "$(cat "$T/err")"
mv "$T/repo" "$T/repo.away"
commit --no-cache lg "${IOMMU:0:12}"
mv "$T/repo.away" "$T/repo"
[ $rc -eq 75 ] && grep -q "missing or not a git repository" "$T/err" && ok "local-git: a missing clone is a temporary failure, not an unknown commit" ||
	not_ok "local-git: missing clone" "rc=$rc" "$(cat "$T/err")"

# ---- bad configuration and input
printf 'trees:\n  - name: x\n    branch: master\n    url: u\n    provider: svn\n    api: a\n' >"$T/bad.yaml"
"$ROBOTMAIL" commit -c "$T/bad.yaml" x abcdef >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "bad.yaml' line 5: 'trees.provider'" "$T/err" && ok "config: a bad provider names file, line and key (exit 2)" || not_ok "config: bad provider" "rc=$rc" "$(cat "$T/err")"
printf 'gitweb:\n  timeuot: 5\n' >"$T/bad2.yaml"
"$ROBOTMAIL" commit -c "$T/bad2.yaml" x abcdef >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "unknown key 'gitweb.timeuot'" "$T/err" && ok "config: a misspelt key is an error" || not_ok "config: misspelt key" "rc=$rc" "$(cat "$T/err")"
commit linus 'abc;rm -rf /'
[ $rc -eq 2 ] && grep -q "is not a commit sha" "$T/err" && ok "a sha with shell characters is refused before any URL (exit 2)" || not_ok "hostile sha" "rc=$rc" "$(cat "$T/err")"

# compare -c printing the commit subjects of the seed reports is the data
# cases tests/data/1021-1023 (tests/suites/data.sh)
