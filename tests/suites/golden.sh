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

# an incomplete run (last_state.is_incomplete_run = 1) is dropped from the
# numbers, and a gzipped matrix.json.gz reads like matrix.json
cp -r "$TEST_TMP/fx/mlockmany" "$TEST_TMP/inc"
"$PY" - "$TEST_TMP/inc" "$hsha" "$bsha" <<'PYEOF'
import glob, gzip, json, os, sys
root, head, base = sys.argv[1:4]
hm = glob.glob(root + '/**/' + head + '/matrix.json', recursive=True)[0]
m = json.load(open(hm))
n = len(m['stats_source'])
for k, v in m.items():
    if k != 'stats_source':
        v.extend([0] * (n - len(v)) + [v[0] * 7 + 1])
m['last_state.is_incomplete_run'] = [0] * n + [1]
m['stats_source'].append(m['stats_source'][0].replace('/0/stats.json', '/9/stats.json'))
json.dump(m, open(hm, 'w'), indent=2)
bm = glob.glob(root + '/**/' + base + '/matrix.json', recursive=True)[0]
with open(bm, 'rb') as f, gzip.open(bm + '.gz', 'wb') as g:
    g.write(f.read())
os.remove(bm)
PYEOF
"$ROBOTMAIL" compare "$TEST_TMP/inc" >"$TEST_TMP/inc.out" 2>&1
# the numbers are the golden ones; lkp-tests' first pass also reports the
# incomplete run itself as a fail:runs row (%reproduction divides by the
# base's 3 runs: 100 * 1/3)
{
	sed -n '1,10p' tests/golden/mlockmany.table
	printf '       fail:runs  %%reproduction    fail:runs\n'
	printf '           |             |             |    \n'
	printf '           :3           33%%           1:4     last_state.is_incomplete_run\n'
	sed -n '11,$p' tests/golden/mlockmany.table
} >"$TEST_TMP/inc.expected"
same_file "an incomplete run is left out of the numbers and shown as fail:runs; matrix.json.gz is read" \
	"$TEST_TMP/inc.expected" "$TEST_TMP/inc.out"
