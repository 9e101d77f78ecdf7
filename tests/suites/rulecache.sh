#!/usr/bin/env bash
# rulecache: the parsed rule-file cache (bot/yamlcache.h) end to end, in the
# suite's own $XDG_CACHE_HOME (tests/lib.sh).  `compare` prints the same
# table with the cache off, cold, warm, after every cache file was damaged,
# truncated or replaced by another's, with an edited rule file, and with an
# unwritable cache place; a bad rule file gives the same error either way
# and is never cached.  (`--dry-run` writing nothing, the cache included, is
# report.sh's check.)
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
C=$XDG_CACHE_HOME/robotmail
"$PY" tests/gen-fixtures.py "$T/fx" >/dev/null 2>&1 || { not_ok "fixtures"; exit 0; }
A=$T/fx/worked
ncache() { find "$C" -maxdepth 1 -name 'yaml-*.bin' 2>/dev/null | wc -l; }

ROBOTMAIL_CACHE=off "$ROBOTMAIL" compare "$A" >"$T/off.out" 2>"$T/off.err"
rc=$?
[ $rc -eq 0 ] && [ -s "$T/off.out" ] && [ ! -e "$C" ] && ok "ROBOTMAIL_CACHE=off: compare works and writes no cache" ||
	not_ok "cache off" "rc=$rc" "$(cat "$T/off.err")" "$(ls -la "$C" 2>&1)"

"$ROBOTMAIL" compare "$A" >"$T/cold.out" 2>"$T/cold.err"
rc=$?
modes=$(stat -c '%a' "$C" "$C"/yaml-*.bin 2>/dev/null | sort -u | tr '\n' ' ')
[ $rc -eq 0 ] && [ ! -s "$T/cold.err" ] && [ "$(ncache)" -eq 3 ] && [ "$modes" = "600 700 " ] &&
	ok "a cold run writes one cache file per rule file (metrics, lkp-programs, eras): 0600 in a 0700 directory" ||
	not_ok "cold run" "rc=$rc files=$(ncache) modes=$modes" "$(cat "$T/cold.err")"
same_file "cold cache: the same table as without the cache" "$T/off.out" "$T/cold.out"
inodes=$(stat -c '%i %n' "$C"/yaml-*.bin)
"$ROBOTMAIL" compare "$A" >"$T/warm.out" 2>"$T/warm.err"
same_file "warm cache: the same table" "$T/off.out" "$T/warm.out"
[ "$inodes" = "$(stat -c '%i %n' "$C"/yaml-*.bin)" ] && ok "a warm run reads the cache files and writes none" ||
	not_ok "warm run rewrote the cache" "$inodes" "$(stat -c '%i %n' "$C"/yaml-*.bin)"

# damage each cache file: a byte flipped in the middle, cut short, another's content
for how in flip cut swap; do
	files=("$C"/yaml-*.bin)
	for f in "${files[@]}"; do
		case $how in
		flip) size=$(stat -c %s "$f"); printf '\377' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc status=none ;;
		cut) truncate -s $(($(stat -c %s "$f") - 100)) "$f" ;;
		swap) [ "$f" != "${files[0]}" ] && cp "${files[0]}" "$f" ;;
		esac
	done
	sums=$(md5sum "$C"/yaml-*.bin)
	"$ROBOTMAIL" compare "$A" >"$T/$how.out" 2>"$T/$how.err"
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$T/$how.err" ] && cmp -s "$T/off.out" "$T/$how.out" && [ "$sums" != "$(md5sum "$C"/yaml-*.bin)" ] &&
		ok "damaged cache files ($how): ignored, the same table, written again" ||
		not_ok "damaged cache ($how)" "rc=$rc" "$(cat "$T/$how.err")" "$(diff "$T/off.out" "$T/$how.out" | head -5)"
done
"$ROBOTMAIL" compare "$A" >"$T/again.out" 2>&1
same_file "after the damage, warm again" "$T/off.out" "$T/again.out"

# an edited rule file: read again, cached under its new content
mkdir -p "$T/data"
cp -r "$ROBOTMAIL_DATADIR"/. "$T/data/"
printf '\n# an operator edit\n' >>"$T/data/metrics.yaml"
ROBOTMAIL_DATADIR=$T/data "$ROBOTMAIL" compare "$A" >"$T/edit.out" 2>"$T/edit.err"
rc=$?
[ $rc -eq 0 ] && cmp -s "$T/off.out" "$T/edit.out" && [ "$(ncache)" -eq 4 ] &&
	ok "an edited rule file is read again and cached under its new content" ||
	not_ok "edited rule file" "rc=$rc files=$(ncache)" "$(cat "$T/edit.err")"

# a broken rule file: the same error (file, line, column) with and without the cache, never cached
printf 'broken: [\n' >>"$T/data/metrics.yaml"
ROBOTMAIL_DATADIR=$T/data ROBOTMAIL_CACHE=off "$ROBOTMAIL" compare "$A" >/dev/null 2>"$T/bad-off.err"
r1=$?
ROBOTMAIL_DATADIR=$T/data "$ROBOTMAIL" compare "$A" >/dev/null 2>"$T/bad-on.err"
r2=$?
ROBOTMAIL_DATADIR=$T/data "$ROBOTMAIL" compare "$A" >/dev/null 2>"$T/bad-on2.err"
r3=$?
[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && [ $r3 -eq 2 ] && grep -q "metrics.yaml' line [0-9]* column [0-9]*: invalid YAML" "$T/bad-on.err" &&
	cmp -s "$T/bad-off.err" "$T/bad-on.err" && cmp -s "$T/bad-off.err" "$T/bad-on2.err" && [ "$(ncache)" -eq 4 ] &&
	ok "a broken rule file: exit 2 with the same error, cache or not, and nothing cached" ||
	not_ok "broken rule file" "rc=$r1/$r2/$r3 files=$(ncache)" "$(cat "$T/bad-off.err" "$T/bad-on.err")"

# the cache's place is a file: no cache, no error, the same table
: >"$T/not-a-dir"
XDG_CACHE_HOME=$T/not-a-dir "$ROBOTMAIL" compare "$A" >"$T/nodir.out" 2>"$T/nodir.err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$T/nodir.err" ] && cmp -s "$T/off.out" "$T/nodir.out" &&
	ok "an unwritable cache place: the same table, no error" ||
	not_ok "unwritable cache" "rc=$rc" "$(cat "$T/nodir.err")"

# the compiled patterns of metrics.yaml beside them (bot/recache.h): pcre-<hash>.bin
P=$T/pcache
XDG_CACHE_HOME=$P "$ROBOTMAIL" compare "$A" >"$T/p-cold.out" 2>"$T/p-cold.err"
rc=$?
pfiles=$(find "$P/robotmail" -maxdepth 1 -name 'pcre-*.bin' 2>/dev/null)
[ $rc -eq 0 ] && [ ! -s "$T/p-cold.err" ] && [ "$(echo "$pfiles" | grep -c .)" -eq 1 ] &&
	[ "$(stat -c %a $pfiles)" = 600 ] && cmp -s "$T/off.out" "$T/p-cold.out" &&
	ok "a cold run writes one compiled-pattern file (metrics.yaml's), 0600, the same table" ||
	not_ok "compiled-pattern cache, cold" "rc=$rc files=$pfiles" "$(cat "$T/p-cold.err")"
inode=$(stat -c %i $pfiles)
XDG_CACHE_HOME=$P "$ROBOTMAIL" compare "$A" >"$T/p-warm.out" 2>&1
cmp -s "$T/off.out" "$T/p-warm.out" && [ "$inode" = "$(stat -c %i $pfiles)" ] &&
	ok "compiled patterns, warm: the same table, nothing written again" ||
	not_ok "compiled-pattern cache, warm" "$(diff "$T/off.out" "$T/p-warm.out" | head -5)"
for how in flip cut foreign; do
	case $how in
	flip) size=$(stat -c %s $pfiles); printf '\377' | dd of=$pfiles bs=1 seek=$((size / 2)) conv=notrunc status=none ;;
	cut) truncate -s $(($(stat -c %s $pfiles) - 100)) $pfiles ;;
	foreign) cp "$(ls "$C"/yaml-*.bin | head -1)" $pfiles ;; # another cache's file in its place
	esac
	sum=$(md5sum <$pfiles)
	XDG_CACHE_HOME=$P "$ROBOTMAIL" compare "$A" >"$T/p-$how.out" 2>"$T/p-$how.err"
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$T/p-$how.err" ] && cmp -s "$T/off.out" "$T/p-$how.out" && [ "$sum" != "$(md5sum <$pfiles)" ] &&
		ok "a damaged compiled-pattern file ($how): ignored, the same table, written again" ||
		not_ok "damaged compiled-pattern file ($how)" "rc=$rc" "$(cat "$T/p-$how.err")"
done
# a pattern that does not compile: the same error, cache or not, and no file for it
mkdir -p "$T/data2"
cp -r "$ROBOTMAIL_DATADIR"/. "$T/data2/"
sed -i "s/^    - 'dmesg\.\*'\$/    - 'dmesg(.*'/" "$T/data2/metrics.yaml"
ROBOTMAIL_DATADIR=$T/data2 ROBOTMAIL_CACHE=off "$ROBOTMAIL" compare "$A" >/dev/null 2>"$T/pbad-off.err"
r1=$?
XDG_CACHE_HOME=$P ROBOTMAIL_DATADIR=$T/data2 "$ROBOTMAIL" compare "$A" >/dev/null 2>"$T/pbad-on.err"
r2=$?
[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && grep -q "invalid pattern 'dmesg(\.\*'" "$T/pbad-on.err" &&
	cmp -s "$T/pbad-off.err" "$T/pbad-on.err" &&
	[ "$(find "$P/robotmail" -maxdepth 1 -name 'pcre-*.bin' | wc -l)" -eq 1 ] &&
	ok "a pattern that does not compile: exit 2 with the same error, cache or not, nothing cached" ||
	not_ok "bad pattern" "rc=$r1/$r2" "$(cat "$T/pbad-off.err" "$T/pbad-on.err")"
