#!/usr/bin/env bash
# Run every libFuzzer target in $BUILD/fuzz (or only the TARGETs named as
# arguments) for FUZZ_SECONDS each, from its seed
# corpus in tests/fuzz/corpus/<target>/ (new inputs go to a scratch copy, so the
# committed corpus only grows by hand).  Prints "ok - fuzz TARGET" or
# "not ok - fuzz TARGET" with the crash log and the failing input (kept
# under $FUZZ_KEEP, else $TMPDIR, and printed as base64).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${FUZZ_SECONDS:=20}"
[ $# -gt 0 ] && targets=("$@") || targets=("$BUILD"/fuzz/fuzz_*)
for bin in "${targets[@]}"; do
	case $bin in */*) ;; *) bin=$BUILD/fuzz/$bin ;; esac
	if [ ! -x "$bin" ]; then
		[ $# -gt 0 ] && echo "not ok - fuzz $(basename "$bin"): $bin is not built"
		continue
	fi
	t=$(basename "$bin")
	work=$(mktemp -d "${TMPDIR:-/tmp}/robotmail-fuzz.XXXXXX")
	mkdir -p "$work/corpus" "$work/artifacts"
	[ -d "tests/fuzz/corpus/$t" ] && cp -r "tests/fuzz/corpus/$t/." "$work/corpus/"
	if "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1; then
		echo "ok - fuzz $t ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/log" | awk '{print $2}') runs, ${FUZZ_SECONDS}s)"
		grep -h '^#[0-9]*.*DONE' "$work/log" | tail -1 | sed 's/^/    /'
	else
		echo "not ok - fuzz $t"
		tail -40 "$work/log" | sed 's/^/    /'
		# the input that failed, kept (the work directory goes) and shown
		# as base64, so a crash seen once can be replayed: base64 -d >F,
		# then $BUILD/fuzz/TARGET F
		keep=${FUZZ_KEEP:-${TMPDIR:-/tmp}}/robotmail-fuzz-$t.$$
		mkdir -p "$keep" && cp "$work"/artifacts/* "$keep"/ 2>/dev/null
		for a in "$work"/artifacts/*; do
			[ -f "$a" ] || continue
			echo "    artifact: $keep/$(basename "$a") ($(wc -c <"$a") bytes), base64:"
			head -c 4096 "$a" | base64 -w 76 | sed 's/^/      /'
		done
	fi
	rm -rf "$work"
done
