#!/usr/bin/env bash
# Run every test suite and end with one line: "N passed, N failed".
#
# Suites:
#   unit        cmocka unit tests (normal build)
#   unit-asan   the same under AddressSanitizer + UBSan
#   *.sh        shell suites in tests/suites/, each run twice: with the normal
#               binary and with the sanitized one (ROBOTMAIL=robotmail-asan)
#               when the suite sets ASAN_TOO=1 in its header
#   fuzz        every libFuzzer target for FUZZ_SECONDS (smoke run)
set -uo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${FUZZ_SECONDS:=20}"
export BUILD
passed=0 failed=0
logdir=$(mktemp -d "${TMPDIR:-/tmp}/robotmail-tests.XXXXXX")
trap 'rm -rf "$logdir"' EXIT

# count_tap SUITE LOG: add the ok/not ok lines of a TAP-ish log
count_tap() {
	local p f
	p=$(grep -c '^ok - ' "$2")
	f=$(grep -c '^not ok - ' "$2")
	# a checking script that crashed took its checks with it: one failure
	if grep -q '^Traceback (most recent call last):' "$2"; then
		f=$((f + 1))
		grep -A12 '^Traceback (most recent call last):' "$2" | head -14 | sed "s/^/[$1] crashed: /"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	grep '^not ok - ' -A20 "$2" | grep -v '^ok - ' | sed "s/^/[$1] /"
	echo "suite $1: $p passed, $f failed"
}

run_cmocka() {
	local name=$1 bin=$2 log="$logdir/$1.log" p f
	"$bin" >"$log" 2>&1
	local rc=$?
	p=$(grep -c '^\[       OK \]' "$log")
	f=$(grep -c '^\[  FAILED  \]' "$log")
	# the summary "[  FAILED  ] N test(s), listed below" is not a test
	f=$(grep '^\[  FAILED  \] ' "$log" | grep -vc 'test(s)')
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		tail -20 "$log" | sed "s/^/[$name] /"
	fi
	grep -B5 '^\[  FAILED  \]' "$log" | grep -v 'test(s)' | sed "s/^/[$name] /" | head -40
	passed=$((passed + p))
	failed=$((failed + f))
	echo "suite $name: $p passed, $f failed"
}

run_cmocka unit "$BUILD/unit-tests"
run_cmocka unit-asan "$BUILD/unit-tests-asan"

for suite in tests/suites/*.sh; do
	[ -e "$suite" ] || continue
	name=$(basename "$suite" .sh)
	log="$logdir/$name.log"
	ROBOTMAIL="$PWD/$BUILD/robotmail" bash "$suite" >"$log" 2>&1
	count_tap "$name" "$log"
	if grep -q '^ASAN_TOO=1' "$suite"; then
		log="$logdir/$name-asan.log"
		ROBOTMAIL="$PWD/$BUILD/robotmail-asan" bash "$suite" >"$log" 2>&1
		count_tap "$name-asan" "$log"
	fi
done

if [ "$FUZZ_SECONDS" -gt 0 ]; then
	log="$logdir/fuzz.log"
	BUILD=$BUILD FUZZ_SECONDS=$FUZZ_SECONDS tests/run-fuzz.sh >"$log" 2>&1
	count_tap fuzz "$log"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
