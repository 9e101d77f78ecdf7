#!/usr/bin/env bash
# recipients: who gets a report.  The commit of the example archive (the test
# repository's "mm: avoid unnecessary lru drain ...") has Signed-off-by,
# Reviewed-by, Acked-by and Cc trailers and touches mm/memory.c and mm/swap.c.
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
FPID=
cleanup() { [ -n "$FPID" ] && kill "$FPID" 2>/dev/null && wait "$FPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
A=contrib/examples/mlockmany.tar.xz
cfg() { # extra top-level YAML lines...
	cat >"$T/cfg.yaml" <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/state.db
$(linus_tree local-git "$T/repo")
CFG
	for l in "$@"; do printf '%s\n' "$l" >>"$T/cfg.yaml"; done
}
rcpts() { "$ROBOTMAIL" --dry-run -v -c "$T/cfg.yaml" "${1:-$A}" 2>"$T/err" | sed -n 's/^RCPT TO:<\(.*\)>$/\1/p' | tr '\n' ' '; }
expect() { # NAME GOT WANT
	[ "$2" = "$3" ] && ok "$1" || not_ok "$1" "got:  $2" "want: $3" "$(cat "$T/err")"
}

cfg
expect "default: author, robot lists, trailer people, the robot last" "$(rcpts)" \
	"ann@example.org oe-lkp@lists.linux.dev lkp@intel.com rev@example.org ack@example.org list@vger.example.org oliver.sang@intel.com "
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$A" | grep -q '^To: Ann Author <ann@example.org>$' && ok "To: the commit author with the name" || not_ok "To header"

cfg "recipients:" "  trailers: [Signed-off-by]"
expect "recipients.trailers chooses which trailers are copied" "$(rcpts)" \
	"ann@example.org oe-lkp@lists.linux.dev lkp@intel.com oliver.sang@intel.com "

cfg "recipients:" "  trailers: []" "  rules:" \
	"    - {on: path, pattern: '^mm/', cc: [linux-mm@kvack.org]}" \
	"    - {on: subject, pattern: '^mm: ', cc: ['MM Subject <mm-subject@example.org>']}" \
	"    - {on: testcase, pattern: '^stress-ng\$', cc: [stress@example.org]}" \
	"    - {on: path, pattern: '^drivers/', cc: [drivers@example.org]}"
expect "subsystem rules match the paths, the subject prefix and the testcase (PCRE2)" "$(rcpts)" \
	"ann@example.org oe-lkp@lists.linux.dev lkp@intel.com linux-mm@kvack.org mm-subject@example.org stress@example.org oliver.sang@intel.com "

cat >"$T/MAINTAINERS" <<'M'
MEMORY MANAGEMENT
M:	Mm Maint <mm@example.org>
R:	Rev Iewer <REV@example.org>
L:	linux-mm@kvack.org
S:	Maintained
F:	mm/
X:	mm/percpu.c

SWAP
M:	Swap Person <swap@example.org>
F:	mm/swap.c

IOMMU
M:	Io Mmu <iommu@example.org>
F:	drivers/iommu/
N:	iommu
M
cfg "recipients:" "  trailers: [Reviewed-by]" "  maintainers: $T/MAINTAINERS" "  maintainers_cap: 3"
expect "MAINTAINERS: F: patterns of the changed paths to M:/R:/L:, deduplicated, capped at 3" "$(rcpts)" \
	"ann@example.org oe-lkp@lists.linux.dev lkp@intel.com mm@example.org REV@example.org linux-mm@kvack.org oliver.sang@intel.com "

printf '# people who asked to be left out\nrev@example.org\n/@vger\\.example\\.org$/\n' >"$T/optout"
cfg "recipients:" "  opt_out: $T/optout"
got=$(rcpts)
expect "the opt-out file removes addresses and /regex/ matches from every source" "$got" \
	"ann@example.org oe-lkp@lists.linux.dev lkp@intel.com ack@example.org oliver.sang@intel.com "
grep -q "recipient left out: rev@example.org: opted out (on the opt-out list; from Reviewed-by)" "$T/err" &&
	grep -q "list@vger.example.org: opted out" "$T/err" && ok "each opted-out address is logged with its reason" || not_ok "opt-out reasons" "$(cat "$T/err")"

cfg "recipients:" "  max: 5"
expect "the recipient cap drops from the end of Cc and keeps the robot's copy" "$(rcpts)" \
	"ann@example.org oe-lkp@lists.linux.dev lkp@intel.com rev@example.org oliver.sang@intel.com "
grep -q "over the recipient cap" "$T/err" && ok "capped addresses are logged" || not_ok "cap logged"

cfg
got=$("$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" --to tester@example.org "$A" | sed -n 's/^RCPT TO:<\(.*\)>$/\1/p' | tr '\n' ' ')
expect "--to diverts everything to one address" "$got" "tester@example.org "

# malformed and tricky trailer addresses: a forge record for a fixture commit
"$PY" tests/gen-fixtures.py "$T/fx" >/dev/null 2>&1
tests/peers/make-seed-fixtures.sh "$T/ff"
H=$(sed -n 7p tests/data/golden/mincore.table | tr -d ' ')
"$PY" - "$T/ff/repos/seed/linux/commits/$H" <<'PYEOF'
import json, sys
msg = ("mm: mincore: replace __get_free_page() with kmalloc()\n\nbody\n\n"
       "Signed-off-by: J\u00f6rg R\u00f6del <joro@example.org>\n"
       "Cc: \"Name\" <bad@>\n"
       "Cc: missing.brackets@example.org Name\n"
       "Cc: <bracket@example.org\n"
       "Cc: DUP@Example.org\n"
       "Cc: dup@example.org\n"
       "Cc: Quoted \"Nick\" Person <quoted@example.org>\n"
       "Reviewed-by: rev@example.org (Rev Iewer)\n")
who = {"name": "J\u00f6rg R\u00f6del", "email": "joro@example.org", "date": "2025-10-01T00:00:00Z"}
json.dump({"sha": sys.argv[1].rsplit('/', 1)[1], "commit": {"message": msg, "author": who, "committer": who},
           "parents": [], "files": [{"filename": "mm/mincore.c"}]}, open(sys.argv[1], "w"))
PYEOF
"$PY" tests/peers/forge.py --port 0 --fixtures "$T/ff" >"$T/f.out" 2>&1 &
FPID=$!
for _ in $(seq 50); do grep -q listening "$T/f.out" && break; sleep 0.1; done
cat >"$T/cfg.yaml" <<CFG
include: $PROFILE_0DAY
paths:
  state_db: $T/state.db
trees:
  - name: linus
    branch: master
    url: https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git
    provider: github
    api: http://127.0.0.1:$(awk '/listening/ {print $2}' "$T/f.out")/repos/seed/linux
CFG
expect "malformed trailer addresses are left out; duplicates in other case collapse" "$(rcpts "$T/fx/mincore")" \
	"joro@example.org oe-lkp@lists.linux.dev lkp@intel.com DUP@Example.org quoted@example.org rev@example.org oliver.sang@intel.com "
grep -q 'bad@: not a valid address (from Cc)' "$T/err" && grep -q 'missing.brackets@example.org Name: malformed (from Cc)' "$T/err" &&
	grep -q '<bracket@example.org: malformed (from Cc)' "$T/err" && ok "each malformed address is logged with its source" || not_ok "malformed logged" "$(cat "$T/err")"
"$ROBOTMAIL" --dry-run -c "$T/cfg.yaml" "$T/fx/mincore" 2>/dev/null | grep -q '^To: =?UTF-8?Q?J=C3=B6rg_R=C3=B6del?= <joro@example.org>$' &&
	ok "a non-ASCII author name is RFC 2047 encoded in To:" || not_ok "non-ASCII To"
