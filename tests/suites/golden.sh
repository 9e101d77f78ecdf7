#!/usr/bin/env bash
# golden: `robotmail compare` on generated fixture archives reproduces, byte
# for byte, the tables of both seed reports and of the worked example
# (tests/golden/*.table, derived from shared/spec by tests/extract-golden.py).
ASAN_TOO=1
. tests/lib.sh
mk_tmp
if ! "$PY" tests/gen-fixtures.py "$TEST_TMP/fx" >"$TEST_TMP/gen.log" 2>&1; then
	not_ok "fixture generator runs and self-checks" "$(tail -20 "$TEST_TMP/gen.log")"
	exit 0
fi
ok "fixture generator runs and self-checks"

for name in mlockmany mincore worked multi; do
	"$ROBOTMAIL" compare "$TEST_TMP/fx/$name" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$TEST_TMP/$name.err" ]; then
		not_ok "compare $name exits 0 quietly" "rc=$rc" "$(head -5 "$TEST_TMP/$name.err")"
	else
		ok "compare $name exits 0 quietly"
	fi
	same_file "compare $name matches tests/golden/$name.table byte for byte" \
		"tests/golden/$name.table" "$TEST_TMP/$name.out"
done

# the same archive as a tarball in every supported compression
for comp in tar tar.gz tar.xz tar.zst; do
	case $comp in
	tar) flag= ;;
	tar.gz) flag=-z ;;
	tar.xz) flag=-J ;;
	tar.zst) flag=--zstd ;;
	esac
	tar -C "$TEST_TMP/fx/worked" $flag -cf "$TEST_TMP/worked.$comp" result
	"$ROBOTMAIL" compare "$TEST_TMP/worked.$comp" >"$TEST_TMP/worked.$comp.out" 2>&1
	same_file "compare worked.$comp equals the directory result" \
		"tests/golden/worked.table" "$TEST_TMP/worked.$comp.out"
done

# BASE_DIR HEAD_DIR form
root=$(find "$TEST_TMP/fx/mlockmany" -mindepth 7 -maxdepth 7 -type d -name gcc-14 | head -1)
base=$(ls "$root" | head -1)
head=$(ls "$root" | tail -1)
# which one is the base: the golden's first commit line
first=$(sed -n '6p' tests/golden/mlockmany.table | tr -d ' ')
if [ "$first" = "$base" ]; then bdir=$root/$base hdir=$root/$head; else bdir=$root/$head hdir=$root/$base; fi
"$ROBOTMAIL" compare "$bdir" "$hdir" >"$TEST_TMP/pair.out" 2>&1
same_file "compare BASE_DIR HEAD_DIR matches the golden" tests/golden/mlockmany.table "$TEST_TMP/pair.out"

# --base/--head override: swapping them must swap the columns (change signs flip)
bsha=$(sed -n '6p' tests/golden/mlockmany.table | tr -d ' ')
hsha=$(sed -n '7p' tests/golden/mlockmany.table | tr -d ' ')
"$ROBOTMAIL" compare --base "${hsha:0:12}" --head "${bsha:0:12}" "$TEST_TMP/fx/mlockmany" >"$TEST_TMP/swap.out" 2>&1
if grep -q "^  $hsha\$" <(sed -n '6p' "$TEST_TMP/swap.out") && grep -q -- '-9.6%' "$TEST_TMP/swap.out"; then
	ok "--base/--head override the pairing from job.yaml"
else
	not_ok "--base/--head override the pairing from job.yaml" "$(head -20 "$TEST_TMP/swap.out")"
fi
