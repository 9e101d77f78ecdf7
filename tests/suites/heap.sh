#!/usr/bin/env bash
# heap: the heap policy of bot/heap.h, seen from outside a real robotmail
# process.  Its memory map at exit (tests/smaps-at-exit.c, preloaded) shows
# a heap that starts on a 2 MiB boundary and carries MADV_HUGEPAGE ("hg"),
# backed by a huge page where the kernel has transparent huge pages; with
# ROBOTMAIL_HEAP=plain none of it.  The policy changes no result: compare
# prints the same table either way.
. tests/lib.sh
mk_tmp
T=$TEST_TMP

if ! ${CC:-cc} -O2 -shared -fPIC -o "$T/smaps.so" tests/smaps-at-exit.c 2>"$T/cc.err"; then
	not_ok "tests/smaps-at-exit.c builds" "$(cat "$T/cc.err")"
	exit 0
fi
"$PY" tests/gen-fixtures.py --bench "$T/tree" --runs 3 --stats 200 >/dev/null 2>"$T/gen.err" ||
	{ not_ok "gen-fixtures.py makes a tree" "$(cat "$T/gen.err")"; exit 0; }

# heap_maps SMAPS: one line per [heap] mapping: "START FLAGS... huge=KB"
heap_maps() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { if (h) print s, f, "huge=" a; h = ($NF == "[heap]"); split($1, r, "-");
				      s = r[1]; f = ""; a = 0 }
	     /^AnonHugePages:/ { a = $2 }
	     /^VmFlags:/ { $1 = ""; f = $0 }
	     END { if (h) print s, f, "huge=" a }' "$1"
}

RM_SMAPS_OUT=$T/default.smaps LD_PRELOAD=$T/smaps.so "$ROBOTMAIL" compare "$T/tree/bench" >"$T/default.out" 2>"$T/err"
rc=$?
ROBOTMAIL_HEAP=plain RM_SMAPS_OUT=$T/plain.smaps LD_PRELOAD=$T/smaps.so "$ROBOTMAIL" compare "$T/tree/bench" \
	>"$T/plain.out" 2>>"$T/err"
if [ "$rc" = 0 ] && [ -s "$T/default.out" ] && [ -s "$T/default.smaps" ] && [ -s "$T/plain.smaps" ]; then
	ok "compare runs with the map preloaded"
else
	not_ok "compare runs with the map preloaded" "exit $rc" "$(head -5 "$T/err")"
	exit 0
fi
same_file "ROBOTMAIL_HEAP=plain prints the same table" "$T/default.out" "$T/plain.out"

heap_maps "$T/default.smaps" >"$T/default.heap"
# the advised heap: a [heap] mapping on a 2 MiB boundary with "hg"
adv=$("$PY" -c 'import sys
for l in open(sys.argv[1]):
    if " hg " in l and int(l.split()[0], 16) % 2097152 == 0:
        print(l.strip()); break' "$T/default.heap")
check "the heap starts on a 2 MiB boundary and carries MADV_HUGEPAGE" test -n "$adv"
[ -n "$adv" ] || sed 's/^/# /' "$T/default.heap"
thp=/sys/kernel/mm/transparent_hugepage/enabled
if [ -r "$thp" ] && grep -Eq '\[(always|madvise)\]' "$thp"; then
	huge=${adv##*huge=}
	check "its first 2 MiB is a huge page (THP: $(grep -o '\[[a-z]*\]' "$thp"))" test "${huge:-0}" -ge 2048
else
	ok "huge page not checked: transparent huge pages are off here # SKIP"
fi
heap_maps "$T/plain.smaps" >"$T/plain.heap"
check "ROBOTMAIL_HEAP=plain: no [heap] mapping advised" test -z "$(grep ' hg ' "$T/plain.heap")"

# a data limit (ulimit -d) counts the address space the policy reserves
# ahead: under one, robotmail leaves malloc at its defaults and runs where
# those run (16 MiB: plain malloc needs ~5 here, the policy's 18 MiB ahead
# would not fit)
(ulimit -d 16384 && RM_SMAPS_OUT=$T/limit.smaps LD_PRELOAD=$T/smaps.so "$ROBOTMAIL" compare "$T/tree/bench") \
	>"$T/limit.out" 2>"$T/limit.err"
rc=$?
if [ "$rc" = 0 ]; then
	same_file "under ulimit -d 16384: compare runs and prints the same table" "$T/default.out" "$T/limit.out"
	heap_maps "$T/limit.smaps" >"$T/limit.heap"
	check "under ulimit -d: no [heap] mapping advised" test -z "$(grep ' hg ' "$T/limit.heap")"
else
	not_ok "under ulimit -d 16384: compare runs" "exit $rc" "$(head -3 "$T/limit.err")"
fi
