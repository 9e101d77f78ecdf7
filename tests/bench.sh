#!/usr/bin/env bash
# bench.sh - how fast and how big `robotmail compare` is on a large result tree.
#
# `make bench` runs it.  The tree comes from tests/gen-fixtures.py --bench
# (2 commits x BENCH_RUNS runs x BENCH_STATS stats per run, perf-profile heavy).
# Each input (the directory, then a .tar.gz of it) is compared 3 times; the best
# wall time and the best peak RSS are printed against the targets.
#
# A benchmark, not a test: the figures never make it fail.  It exits non-zero
# only when robotmail crashes or fails on the (valid) bench tree, or the tree
# cannot be generated.
#
# Environment: BUILD (build), ROBOTMAIL (binary), BENCH_RUNS (10),
# BENCH_STATS (20000), BENCH_REPEAT (3), BENCH_DIR (a temp dir, removed at
# exit; set it to keep the tree and reuse it on the next run).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${BENCH_RUNS:=10}" "${BENCH_STATS:=20000}" "${BENCH_REPEAT:=3}"
ROBOTMAIL=${ROBOTMAIL:-$PWD/$BUILD/robotmail}
export ROBOTMAIL_DATADIR=${ROBOTMAIL_DATADIR:-$PWD/config}
PY=${PY:-$(command -v /usr/bin/python3 || command -v python3)}
TARGET_WALL=0.5   # seconds
TARGET_RSS=64     # MiB

if [ ! -x "$ROBOTMAIL" ]; then
	echo "bench: $ROBOTMAIL not built (make build)" >&2
	exit 1
fi
if [ -n "${BENCH_DIR:-}" ]; then
	W=$BENCH_DIR
	mkdir -p "$W"
else
	W=$(mktemp -d "${TMPDIR:-/tmp}/robotmail-bench.XXXXXX")
	trap 'rm -rf "$W"' EXIT
fi
TREE=$W/bench
stamp=$W/.bench-${BENCH_RUNS}x${BENCH_STATS}

# ------------------------------------------------------------ input
if [ ! -e "$stamp" ]; then
	if [ ! -f tests/gen-fixtures.py ]; then
		echo "bench: tests/gen-fixtures.py is missing" >&2
		exit 1
	fi
	rm -f "$W"/.bench-* "$W/bench.tar.gz"
	t0=$(date +%s.%N)
	if ! "$PY" tests/gen-fixtures.py --bench "$W" --runs "$BENCH_RUNS" --stats "$BENCH_STATS" >/dev/null; then
		echo "bench: tests/gen-fixtures.py --bench failed" >&2
		exit 1
	fi
	(cd "$TREE" && tar -czf "$W/bench.tar.gz" .) || exit 1
	touch "$stamp"
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "generated the bench tree in %.1f s\n", b - a}'
fi
files=$(find "$TREE" -type f | wc -l)
bytes=$(find "$TREE" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
tgz=$(stat -c %s "$W/bench.tar.gz")
echo "robotmail bench: $BENCH_RUNS runs x $BENCH_STATS stats per commit, 2 commits"
printf 'input: directory %d files, %d bytes (%.1f MiB); .tar.gz %d bytes (%.1f MiB)\n' \
	"$files" "$bytes" "$(awk -v b="$bytes" 'BEGIN {print b / 1048576}')" \
	"$tgz" "$(awk -v b="$tgz" 'BEGIN {print b / 1048576}')"

# ------------------------------------------------------------ measure
# measure ARGS...: run robotmail once; sets RC, WALL (s), RSS (KiB)
if [ -x /usr/bin/time ]; then
	timer="/usr/bin/time -f"
	measure() {
		/usr/bin/time -f '%e %M' -o "$W/time" "$ROBOTMAIL" "$@" >"$W/out" 2>"$W/err"
		RC=$?
		read -r WALL RSS < <(tail -1 "$W/time")
	}
else
	timer="python os.wait4"
	measure() {
		local r
		r=$("$PY" - "$W/out" "$W/err" "$ROBOTMAIL" "$@" <<'EOF'
import os, sys, time
out, err, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(out, "wb") as o, open(err, "wb") as e:
    t = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.dup2(o.fileno(), 1)
        os.dup2(e.fileno(), 2)
        os.execv(argv[0], argv)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t
rc = os.waitstatus_to_exitcode(status)
print(rc if rc >= 0 else 128 - rc, "%.2f" % wall, ru.ru_maxrss)
EOF
)
		read -r RC WALL RSS <<<"$r"
	}
fi

status=0
report() { # LABEL ARGS...
	local label=$1 i best_wall="" best_rss="" lines
	shift
	for ((i = 0; i < BENCH_REPEAT; i++)); do
		measure "$@"
		if [ "$RC" -ne 0 ]; then
			if [ "$RC" -ge 128 ] || grep -q 'Sanitizer\|runtime error' "$W/err"; then
				echo "$label: robotmail CRASHED (exit code $RC)"
			else
				echo "$label: robotmail failed (exit code $RC)"
			fi
			sed 's/^/    /' "$W/err" | head -20
			status=1
			return
		fi
		if [ -z "$best_wall" ] || awk -v a="$WALL" -v b="$best_wall" 'BEGIN {exit !(a < b)}'; then
			best_wall=$WALL
		fi
		if [ -z "$best_rss" ] || [ "$RSS" -lt "$best_rss" ]; then
			best_rss=$RSS
		fi
	done
	lines=$(wc -l <"$W/out")
	cp "$W/out" "$W/out.$label"
	awk -v l="$label" -v w="$best_wall" -v r="$best_rss" -v tw="$TARGET_WALL" -v tr="$TARGET_RSS" \
		-v n="$BENCH_REPEAT" -v lines="$lines" 'BEGIN {
		m = r / 1024
		printf "%-10s wall %6.2f s (target <= %.1f s: %s)   peak RSS %6.1f MiB (target <= %d MiB: %s)   best of %d, %d table lines\n",
			l, w, tw, (w <= tw ? "ok" : "OVER"), m, tr, (m <= tr ? "ok" : "OVER"), n, lines
	}'
}

echo "robotmail: $ROBOTMAIL (timer: $timer)"
report "directory" compare "$TREE"
report ".tar.gz" compare "$W/bench.tar.gz"

# not a figure, but worth knowing: does the table match the Python model?
if [ "$status" -eq 0 ] && [ -f tests/check-fixtures.py ] &&
	"$PY" tests/check-fixtures.py --print "$TREE" >"$W/model" 2>/dev/null; then
	for label in directory .tar.gz; do
		if cmp -s "$W/model" "$W/out.$label"; then
			echo "$label: table matches tests/check-fixtures.py --print ($(wc -l <"$W/model") lines)"
		else
			echo "$label: table DIFFERS from tests/check-fixtures.py --print:"
			diff "$W/model" "$W/out.$label" | head -10 | sed 's/^/    /'
		fi
	done
fi
exit $status
