#!/usr/bin/env bash
# Run every test suite and end with one line: "N passed, N failed".
#
# Jobs:
#   unit         cmocka unit tests (normal build)
#   unit-asan    the same under AddressSanitizer + UBSan
#   NAME         each shell suite tests/suites/NAME.sh with the normal binary
#   NAME-asan    the same suite with the sanitized binary (ROBOTMAIL=robotmail-asan)
#                when the suite sets ASAN_TOO=1 in its header
#   fuzz-TARGET  each libFuzzer target for FUZZ_SECONDS (smoke run)
#
# The jobs run TEST_JOBS at a time (default: the number of cores), the
# slowest first: every suite keeps to its own temporary directory and takes
# free ports of 127.0.0.1, so suites do not share anything but the machine.
# Each job's summary line is printed in the order above once all are done,
# with its failures and how long it took; TEST_JOBS=1 runs them one by one.
# The job durations are kept in $BUILD/test-times for the next run's order.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${FUZZ_SECONDS:=20}" "${TEST_JOBS:=$(nproc)}"
export BUILD
# the suites' own make calls (tests/suites/install.sh) start afresh
unset MAKEFLAGS MFLAGS MAKELEVEL
logdir=$(mktemp -d "${TMPDIR:-/tmp}/robotmail-tests.XXXXXX")
trap 'rm -rf "$logdir"' EXIT
# the generated test inputs that are the same on every run (the test git
# repository, tests/gen-fixtures.py's trees, the forge's seed records): made
# once by the first job that needs them, copied by the others
export RM_FIXTURE_CACHE=$logdir/fixtures
# robotmail's parsed-rules cache: never the real home (tests/lib.sh gives each
# suite its own; the unit tests and fuzz targets turn it off or use their own)
export XDG_CACHE_HOME=$logdir/xdg-cache

# count_tap JOB LOG: the ok/not ok lines of a TAP-ish log, into JOB's files
count_tap() {
	local p f
	p=$(grep -c '^ok - ' "$2")
	f=$(grep -c '^not ok - ' "$2")
	{
		# a checking script that crashed took its checks with it: one failure
		if grep -q '^Traceback (most recent call last):' "$2"; then
			f=$((f + 1))
			grep -A12 '^Traceback (most recent call last):' "$2" | head -14 | sed "s/^/[$1] crashed: /"
		fi
		grep '^not ok - ' -A20 "$2" | grep -v '^ok - ' | sed "s/^/[$1] /"
	} >"$logdir/$1.report"
	echo "$p $f" >"$logdir/$1.count"
}

# run_cmocka JOB BINARY
run_cmocka() {
	local name=$1 bin=$2 log="$logdir/$1.log" p f rc
	"$bin" >"$log" 2>&1
	rc=$?
	p=$(grep -c '^\[       OK \]' "$log")
	# the summary "[  FAILED  ] N test(s), listed below" is not a test
	f=$(grep '^\[  FAILED  \] ' "$log" | grep -vc 'test(s)')
	{
		if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1
			tail -20 "$log" | sed "s/^/[$name] /"
		fi
		grep -B5 '^\[  FAILED  \]' "$log" | grep -v 'test(s)' | sed "s/^/[$name] /" | head -40
	} >"$logdir/$name.report"
	echo "$p $f" >"$logdir/$name.count"
}

# run_job JOB: one job, its result in $logdir/JOB.{count,report,secs}
run_job() {
	local job=$1 t0 log="$logdir/$1.log"
	t0=$(date +%s)
	case $job in
	unit) run_cmocka unit "$BUILD/unit-tests" ;;
	unit-asan) run_cmocka unit-asan "$BUILD/unit-tests-asan" ;;
	fuzz-*)
		BUILD=$BUILD FUZZ_SECONDS=$FUZZ_SECONDS tests/run-fuzz.sh "${job#fuzz-}" >"$log" 2>&1
		count_tap "$job" "$log" ;;
	*-asan)
		ROBOTMAIL="$PWD/$BUILD/robotmail-asan" bash "tests/suites/${job%-asan}.sh" >"$log" 2>&1
		count_tap "$job" "$log" ;;
	*)
		ROBOTMAIL="$PWD/$BUILD/robotmail" bash "tests/suites/$job.sh" >"$log" 2>&1
		count_tap "$job" "$log" ;;
	esac
	echo $(($(date +%s) - t0)) >"$logdir/$job.secs"
}

# the jobs, in the order their summaries are printed
jobs=(unit unit-asan)
for suite in tests/suites/*.sh; do
	[ -e "$suite" ] || continue
	name=$(basename "$suite" .sh)
	jobs+=("$name")
	grep -q '^ASAN_TOO=1' "$suite" && jobs+=("$name-asan")
done
if [ "$FUZZ_SECONDS" -gt 0 ]; then
	for bin in "$BUILD"/fuzz/fuzz_*; do
		[ -x "$bin" ] && jobs+=("fuzz-$(basename "$bin")")
	done
fi

# the order they start in: slowest first, by the last run's times, or on a
# fresh checkout by tests/test-times (a run's times on 2 cores, committed);
# a job timed in neither counts as 60 s, a fuzz target as FUZZ_SECONDS
times=$BUILD/test-times
known=$times
[ -s "$known" ] || known=tests/test-times
start=$(for j in "${jobs[@]}"; do
	s=$(awk -v j="$j" '$1 == j {print $2}' "$known" 2>/dev/null)
	case $j in fuzz-*) : "${s:=$FUZZ_SECONDS}" ;; *) : "${s:=60}" ;; esac
	echo "$s $j"
done | sort -k1,1nr -k2 | awk '{print $2}')

for j in $start; do
	while [ "$(jobs -rp | wc -l)" -ge "$TEST_JOBS" ]; do wait -n; done
	run_job "$j" &
done
wait

passed=0 failed=0
: >"$times.new"
for j in "${jobs[@]}"; do
	if [ -s "$logdir/$j.count" ]; then
		read -r p f <"$logdir/$j.count"
	else
		p=0 f=1
		echo "[$j] the job left no result"
	fi
	if [ "$p" = 0 ] && [ "$f" = 0 ]; then
		f=1
		echo "[$j] no check ran: $(tail -3 "$logdir/$j.log" 2>/dev/null | tr '\n' ' ')"
	fi
	cat "$logdir/$j.report" 2>/dev/null
	secs=$(cat "$logdir/$j.secs" 2>/dev/null || echo 0)
	echo "$j $secs" >>"$times.new"
	echo "suite $j: $p passed, $f failed (${secs} s)"
	passed=$((passed + p))
	failed=$((failed + f))
done
mv "$times.new" "$times" 2>/dev/null

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
