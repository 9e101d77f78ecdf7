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
# Then the git web lookups: tests/peers/make-bench-repo.sh makes a repo of
# BENCH_COMMITS commits, tests/peers/cgit.sh serves it, and tests/bench-gitweb.c
# (built here like the Makefile builds robotmail) looks every commit up in one
# rm_lookup_run call with the state-database cache: cold (empty database)
# and warm (the same database again), with gitweb.concurrency 1 and 8.  The
# warm runs must make no request at all (counted at the server).  Each cold
# run is cut to the commits that fit in BENCH_GITWEB_BUDGET seconds,
# projected from its first 10 lookups; the figures say so when they are.
# Also timed: `robotmail commit`, one lookup per process, BENCH_CLI_CALLS times.
# Skipped (not failed) when cgit or lighttpd is not installed.
#
# Environment: BUILD (build), ROBOTMAIL (binary), BENCH_RUNS (10),
# BENCH_STATS (20000), BENCH_REPEAT (3), BENCH_DIR (a temp dir, removed at
# exit; set it to keep the tree and reuse it on the next run), BENCH_COMMITS
# (1000), BENCH_GITWEB_BUDGET (120), BENCH_CLI_CALLS (20), CC (cc), CFLAGS (-O2).
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
	REMOVE_W=1
fi
CGIT_DIR=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -n "$CGIT_DIR" ] && tests/peers/cgit.sh stop "$CGIT_DIR" >/dev/null 2>&1
	[ -n "${REMOVE_W:-}" ] && rm -rf "$W"
	return 0
}
trap cleanup EXIT
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

# ------------------------------------------------------------ gitweb lookups
: "${BENCH_COMMITS:=1000}" "${BENCH_GITWEB_BUDGET:=120}" "${BENCH_CLI_CALLS:=20}"
G=$W/gitweb

# a variable as the Makefile sets it (CFLAGS_COMMON, PKG_LIBS: -specs= stripped)
make_var() {
	# shellcheck disable=SC2016 # $(...) is make's, not the shell's
	printf 'rm-print-var:\n\t@echo $(%s)\n' "$1" | make --no-print-directory -s -f Makefile -f - rm-print-var
}

# gitweb_run LABEL CONFIG [LIMIT]: one bench-gitweb run; sets LINE (its figures)
gitweb_run() {
	local rc
	"$G/bench-gitweb" "$2" bench "$G/manifest" ${3:+"$3"} >"$G/out" 2>"$G/err"
	rc=$?
	LINE=$(head -1 "$G/out")
	if [ $rc -ge 128 ] || [ $rc -eq 2 ] || ! grep -q '^lookups ' "$G/out"; then
		echo "gitweb $1: bench-gitweb $([ $rc -ge 128 ] && echo CRASHED || echo failed) (exit code $rc)"
		sed 's/^/    /' "$G/out" "$G/err" | head -20
		status=1
		return 1
	fi
	[ $rc -eq 0 ] || sed -n '2,$s/^/    /p' "$G/out"
	return 0
}

# field NAME: the value after NAME in LINE
field() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) {print $(i + 1); exit}}' <<<"$LINE"; }

gitweb_figure() { # LABEL [NOTE]
	printf '%-28s %5d lookups in %7.2f s = %9.1f lookups/s  (%d found, %d HTTP requests, %d from the cache)%s\n' \
		"$1" "$(field lookups)" "$(field seconds)" "$(field rate)" "$(field found)" \
		"$(field requests)" "$(field cached)" "${2:+  $2}"
}

# cold CONC: cold run with CONC lookups in flight on an empty database, cut to
# the budget; then the warm run on the same database, counted at the server
gitweb_cold_warm() {
	local conc=$1 cfg=$G/cfg-$1.yaml limit=$BENCH_COMMITS note="" before after probe_s
	sed "s/@CONC@/$conc/; s|@DB@|$G/state-$conc.db|" "$G/cfg.in" >"$cfg"
	rm -f "$G/state-$conc.db"*
	# probe: the first 10 lookups, on a scratch database
	sed "s|$G/state-$conc.db|$G/probe-$conc.db|" "$cfg" >"$G/probe.yaml"
	rm -f "$G/probe-$conc.db"*
	gitweb_run "probe" "$G/probe.yaml" 10 || return
	probe_s=$(field seconds)
	limit=$(awk -v n="$BENCH_COMMITS" -v s="$probe_s" -v b="$BENCH_GITWEB_BUDGET" \
		'BEGIN {k = s > 0 ? int(b / (s / 10)) : n; if (k < 10) k = 10; print (k < n ? k : n)}')
	[ "$limit" -lt "$BENCH_COMMITS" ] &&
		note="(cut from $BENCH_COMMITS: the probe ran $(awk -v s="$probe_s" 'BEGIN {printf "%.2f", 10 / s}') lookups/s)"
	before=$(tests/peers/cgit.sh count "$CGIT_DIR")
	gitweb_run "cold, concurrency $conc" "$cfg" "$limit" || return
	after=$(tests/peers/cgit.sh count "$CGIT_DIR")
	gitweb_figure "cold, concurrency $conc:" "$note"
	[ "$((after - before))" -eq "$(field requests)" ] ||
		echo "    note: the server counted $((after - before)) requests, the lookups $(field requests)"
	before=$after
	gitweb_run "warm, concurrency $conc" "$cfg" "$limit" || return
	after=$(tests/peers/cgit.sh count "$CGIT_DIR")
	gitweb_figure "warm, concurrency $conc:"
	if [ "$after" -eq "$before" ] && [ "$(field cached)" -eq "$(field lookups)" ]; then
		echo "    warm: 0 requests at the server (ok)"
	else
		echo "    warm: $((after - before)) requests at the server, $(field cached) of $(field lookups) from the cache (EXPECTED 0 and all)"
	fi
}

gitweb_bench() {
	local cc=${CC:-cc} cflags libs base t0 t1 sha rc src srcs=()
	if [ ! -x "${CGIT_CGI:-/usr/lib/cgit/cgit.cgi}" ] || ! command -v lighttpd >/dev/null; then
		echo "gitweb: skipped (cgit or lighttpd is not installed: make deps)"
		return
	fi
	rm -rf "$G"
	mkdir -p "$G"
	# the driver, built like the Makefile builds robotmail
	if ! cflags=$(make_var CFLAGS_COMMON) || ! libs=$(make_var PKG_LIBS); then
		echo "gitweb: cannot read the Makefile's flags"
		status=1
		return
	fi
	for src in bot/*.c; do
		[ "$src" = bot/main.c ] || srcs+=("$src")
	done
	# shellcheck disable=SC2086 # the Makefile's flags are words
	if ! "$cc" $cflags ${CFLAGS:--O2} -iquote bot -o "$G/bench-gitweb" tests/bench-gitweb.c \
		"${srcs[@]}" $libs 2>"$G/cc.log"; then
		echo "gitweb: tests/bench-gitweb.c does not build:"
		sed 's/^/    /' "$G/cc.log" | head -20
		status=1
		return
	fi
	t0=$(date +%s.%N)
	if ! tests/peers/make-bench-repo.sh "$G/repo" "$BENCH_COMMITS" >"$G/manifest" 2>"$G/repo.log"; then
		echo "gitweb: tests/peers/make-bench-repo.sh failed:"
		sed 's/^/    /' "$G/repo.log" | head -20
		status=1
		return
	fi
	t1=$(date +%s.%N)
	CGIT_DIR=$G/cg
	if ! base=$(tests/peers/cgit.sh start "$CGIT_DIR" "$G/repo" 2>"$G/cgit.log"); then
		echo "gitweb: the cgit peer does not start:"
		sed 's/^/    /' "$G/cgit.log" | head -20
		status=1
		return
	fi
	echo
	awk -v n="$BENCH_COMMITS" -v a="$t0" -v b="$t1" -v u="$base" \
		'BEGIN {printf "gitweb bench: %d commits (repo made in %.1f s), cgit at %s\n", n, b - a, u}'
	{
		printf 'paths:\n  state_db: @DB@\n'
		printf 'gitweb:\n  concurrency: @CONC@\n  connect_timeout: 5\n  timeout: 30\n  retries: 2\n'
		printf 'trees:\n  - name: bench\n    branch: master\n    url: https://example.org/bench.git\n'
		printf '    provider: cgit\n    api: %s\n' "$base"
	} >"$G/cfg.in"
	gitweb_cold_warm 1
	gitweb_cold_warm 8

	# the CLI: one process and one lookup per call, cold then warm
	sed "s/@CONC@/1/; s|@DB@|$G/cli.db|" "$G/cfg.in" >"$G/cli.yaml"
	for pass in cold warm; do
		t0=$(date +%s.%N)
		rc=0
		for sha in $(head -n "$BENCH_CLI_CALLS" "$G/manifest" | cut -c1-40); do
			"$ROBOTMAIL" commit -c "$G/cli.yaml" bench "$sha" >"$G/out" 2>"$G/err"
			rc=$?
			[ $rc -eq 0 ] || break
		done
		t1=$(date +%s.%N)
		if [ $rc -ne 0 ]; then
			echo "gitweb: robotmail commit $([ $rc -ge 128 ] && echo CRASHED || echo failed) (exit code $rc)"
			sed 's/^/    /' "$G/err" | head -10
			[ $rc -ge 128 ] && status=1
			break
		fi
		awk -v n="$BENCH_CLI_CALLS" -v a="$t0" -v b="$t1" -v p="$pass" 'BEGIN {
			printf "%-28s %5d lookups in %7.2f s = %9.1f lookups/s  (robotmail commit, one process per lookup)\n",
				"cli, " p ":", n, b - a, n / (b - a)}'
	done
}
gitweb_bench
exit $status
