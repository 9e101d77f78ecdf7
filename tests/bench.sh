#!/usr/bin/env bash
# bench.sh - how fast and how big `robotmail compare` is on large result trees.
#
# `make bench` runs it.  The trees come from tests/gen-fixtures.py --bench
# (2 commits x RUNS runs x STATS stats per run, perf-profile heavy), one per
# size in BENCH_SIZES (RUNSxSTATS: 10x2000 10x20000 50x20000 10x200000).  On
# each, `robotmail compare` runs BENCH_REPEAT times (best wall, cpu = user +
# sys, and peak RSS printed; times to the microsecond, from wait4 through
# tests/bench-rusage.c: /usr/bin/time's 10 ms grain was most of a ratio),
# beside the floor of its own work: the tiny
# tests/bench-rawscan.c, which only turns the numbers of the same two
# matrix.json files into doubles; the ratio is printed.  Each size is also
# run with ROBOTMAIL_HEAP=plain (bot/heap.h's policy off) for its effect.  With LKP_SRC (a clone
# of intel/lkp-tests) and ruby, lkp-tests' sbin/ncompare runs on the same tree
# (NCOMPARE_REPEAT times, 1: it is slow; it finds result roots under
# /lkp/result, so the bench points a symlink there and registers the tree as
# lkp-tests' bin/proc-local does) and the ratios and a byte comparison of the
# tables are printed; without them the line says it is skipped.  The 10x20000 tree is also compared as a .tar.gz
# and against the Python model.  Last, cpu per stat at each size of 10 runs
# (2k, 20k, 200k; add 10x50000 10x100000 to BENCH_SIZES for more points),
# what each stat added between two sizes, and cpu per stat net of the fixed
# cost: `robotmail compare` of an empty directory (starting, loading the
# rules, finding no result root) and the raw scan of no file, measured in
# the same run.
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
# Environment: BUILD (build), ROBOTMAIL (binary), BENCH_SIZES, BENCH_RUNS and
# BENCH_STATS (one size), LKP_SRC, NCOMPARE_REPEAT (1), NCOMPARE_TIMEOUT
# (1800 s), BENCH_REPEAT (5), BENCH_DIR (a temp dir, removed at
# exit; set it to keep the tree and reuse it on the next run), BENCH_COMMITS
# (1000), BENCH_GITWEB (0: skip the git web part), BENCH_GITWEB_BUDGET (120), BENCH_CLI_CALLS (20), CC (cc), CFLAGS (-O2).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${BENCH_REPEAT:=5}"
# BENCH_RUNS/BENCH_STATS (the old single tree) still pick one size
if [ -n "${BENCH_RUNS:-}${BENCH_STATS:-}" ]; then
	: "${BENCH_SIZES:=${BENCH_RUNS:-10}x${BENCH_STATS:-20000}}"
fi
: "${BENCH_SIZES:=10x2000 10x20000 50x20000 10x200000}"
ROBOTMAIL=${ROBOTMAIL:-$PWD/$BUILD/robotmail}
export ROBOTMAIL_DATADIR=${ROBOTMAIL_DATADIR:-$PWD/config}
PY=${PY:-$(command -v /usr/bin/python3 || command -v python3)}

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
# robotmail's rule cache (bot/yamlcache.h) in the bench's own directory, not
# the home: the first run fills it, so the best of the runs is a warm one, as
# every run after the first is in production
export XDG_CACHE_HOME=$W/xdg-cache
CGIT_DIR=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -n "${LKP_LINKED:-}" ] && [ -L /lkp/result ] && rm -f /lkp/result
	[ -n "$CGIT_DIR" ] && tests/peers/cgit.sh stop "$CGIT_DIR" >/dev/null 2>&1
	[ -n "${REMOVE_W:-}" ] && rm -rf "$W"
	return 0
}
trap cleanup EXIT
# ------------------------------------------------------------ compare
# One tree per size RUNSxSTATS (2 commits), made once per BENCH_DIR.
gen_tree() { # SIZE -> sets TREE
	local size=$1 runs=${1%x*} stats=${1#*x} t0
	TREE=$W/t$size/bench
	[ -e "$W/.bench-$size" ] && return 0
	rm -rf "$W/t$size"
	t0=$(date +%s.%N)
	if ! "$PY" tests/gen-fixtures.py --bench "$W/t$size" --runs "$runs" --stats "$stats" >/dev/null; then
		echo "bench: tests/gen-fixtures.py --bench --runs $runs --stats $stats failed" >&2
		return 1
	fi
	touch "$W/.bench-$size"
	awk -v a="$t0" -v b="$(date +%s.%N)" -v s="$size" 'BEGIN {printf "generated the %s tree in %.1f s\n", s, b - a}'
}

# the launcher of every timed run (built as bench-rawscan.c is below)
RUSAGE=$W/bench-rusage
# shellcheck disable=SC2086 # CFLAGS are words
if ! ${CC:-cc} ${CFLAGS:--O2} -o "$RUSAGE" tests/bench-rusage.c 2>"$W/cc.log"; then
	echo "bench: tests/bench-rusage.c does not build: no figures" >&2
	sed 's/^/    /' "$W/cc.log" | head >&2
	exit 1
fi
# best CMD...: run it BENCH_REPEAT times; sets RC, WALL and CPU (s, best of
# the runs: the machine may be shared), RSS (KiB, best), output in $W/out
best() {
	local i wall usr sys rss cpu
	WALL="" CPU="" RSS=""
	for ((i = 0; i < BENCH_REPEAT; i++)); do
		"$RUSAGE" "$W/time" "$@" >"$W/out" 2>"$W/err"
		RC=$?
		[ "$RC" -eq "${BEST_RC:-0}" ] || return
		read -r wall usr sys rss < <(tail -1 "$W/time")
		cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN {printf "%.6f", u + s}')
		if [ -z "$WALL" ] || awk -v a="$wall" -v b="$WALL" 'BEGIN {exit !(a < b)}'; then WALL=$wall; fi
		if [ -z "$CPU" ] || awk -v a="$cpu" -v b="$CPU" 'BEGIN {exit !(a < b)}'; then CPU=$cpu; fi
		if [ -z "$RSS" ] || [ "$rss" -lt "$RSS" ]; then RSS=$rss; fi
	done
}
failed() { # LABEL
	if [ "$RC" -ge 128 ] || grep -q 'Sanitizer\|runtime error' "$W/err"; then
		echo "$1: CRASHED (exit code $RC)"
	else
		echo "$1: failed (exit code $RC)"
	fi
	sed 's/^/    /' "$W/err" | head -20
	status=1
}
figures() { # LABEL: the last best() as one line
	awk -v l="$1" -v w="$WALL" -v c="$CPU" -v r="$RSS" \
		'BEGIN {printf "  %-22s wall %7.3f s   cpu %7.3f s   peak RSS %7.1f MiB\n", l, w, c, r / 1024}'
}
ratio() { # A B: A / B with 2 decimals, or "-" when B is 0
	awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else printf "-"}'
}

status=0
RAWSCAN=$W/rawscan
# shellcheck disable=SC2086 # CFLAGS are words
if ! ${CC:-cc} ${CFLAGS:--O2} -o "$RAWSCAN" tests/bench-rawscan.c 2>"$W/cc.log"; then
	echo "bench: tests/bench-rawscan.c does not build:"
	sed 's/^/    /' "$W/cc.log" | head
	RAWSCAN=
fi
NCOMPARE=
if [ -z "${LKP_SRC:-}" ]; then
	ncompare_skip="LKP_SRC is not set (a clone of intel/lkp-tests)"
elif [ ! -f "$LKP_SRC/sbin/ncompare" ]; then
	ncompare_skip="no sbin/ncompare in LKP_SRC=$LKP_SRC"
elif ! command -v ruby >/dev/null; then
	ncompare_skip="ruby is not installed"
elif [ -e /lkp/result ] && [ ! -L /lkp/result ]; then
	ncompare_skip="/lkp/result is a real directory here (the bench points a symlink there)"
else
	NCOMPARE=$LKP_SRC/sbin/ncompare
fi
# lkp-tests finds result roots by their axes under /lkp/result, registered in
# /lkp/data/mresult_root (its own convert_mrt, as bin/proc-local does): the
# bench points /lkp/result at the tree (a symlink, removed at exit) and
# registers both commits; then `ncompare BASE HEAD` compares them.
lkp_register() { # TREE
	mkdir -p /lkp && ln -sfn "$1/result" /lkp/result && LKP_LINKED=1 || return 1
	mapfile -t roots < <(find -L /lkp/result -name matrix.json -not -regex '.*/[0-9]+/matrix\.json' -printf '%h\n' | sort)
	LKP_SRC=$LKP_SRC ruby -e 'require "#{ENV["LKP_SRC"]}/lib/result_root"
		require "#{ENV["LKP_SRC"]}/lib/nresult_root"
		MResultRootTableSet.create_tables_layout
		ARGV.each { |p| convert_mrt(p) }' "${roots[@]}" >"$W/lkp.log" 2>&1
}
echo "robotmail compare bench: $ROBOTMAIL; best of $BENCH_REPEAT runs; cpu = user + sys"
[ -n "$NCOMPARE" ] || echo "ncompare: skipped, $ncompare_skip"

declare -A PER_STAT RAW_PER_STAT CPU_AT RAW_CPU_AT
# fixed_cost: the best cpu of `robotmail compare` on an empty directory (it
# exits 1: no result root, after the rules are loaded) and of the raw scan
# of no file, kept in FIXED and RAW_FIXED; run before the sizes and after
# them, the lower figure kept (the machine's speed drifts over a run)
FIXED="" RAW_FIXED=""
fixed_cost() {
	mkdir -p "$W/empty"
	if BEST_RC=1 best "$ROBOTMAIL" compare "$W/empty" && [ -n "$CPU" ] &&
		{ [ -z "$FIXED" ] || awk -v a="$CPU" -v b="$FIXED" 'BEGIN {exit !(a < b)}'; }; then
		FIXED=$CPU
	fi
	if [ -n "$RAWSCAN" ] && best "$RAWSCAN" && [ -n "$CPU" ] &&
		{ [ -z "$RAW_FIXED" ] || awk -v a="$CPU" -v b="$RAW_FIXED" 'BEGIN {exit !(a < b)}'; }; then
		RAW_FIXED=$CPU
	fi
}
fixed_cost
for size in $BENCH_SIZES; do
	gen_tree "$size" || exit 1
	runs=${size%x*} stats=${size#*x}
	files=$(find "$TREE" -type f | wc -l)
	bytes=$(find "$TREE" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
	mapfile -t matrices < <(find "$TREE" -name matrix.json -not -regex '.*/[0-9]+/matrix\.json' | sort)
	echo
	printf '%d runs x %d stats per commit, 2 commits: %d files, %.1f MiB (matrix.json: %s)\n' \
		"$runs" "$stats" "$files" "$(awk -v b="$bytes" 'BEGIN {print b / 1048576}')" \
		"$(du -ch "${matrices[@]}" | tail -1 | cut -f1)"
	best "$ROBOTMAIL" compare "$TREE"
	if [ "$RC" -ne 0 ]; then
		failed "robotmail compare"
		continue
	fi
	rm_wall=$WALL rm_cpu=$CPU rm_rss=$RSS
	cp "$W/out" "$W/out.$size"
	figures "robotmail compare"
	echo "    $(wc -l <"$W/out.$size") table lines; $(awk -v c="$CPU" -v n="$stats" 'BEGIN {printf "%.2f", 1e6 * c / n}') us cpu per stat"
	PER_STAT[$size]=$(awk -v c="$CPU" -v n="$stats" 'BEGIN {printf "%.2f", 1e6 * c / n}')
	CPU_AT[$size]=$CPU
	# the heap policy (bot/heap.h) off: malloc's and the kernel's defaults
	best env ROBOTMAIL_HEAP=plain "$ROBOTMAIL" compare "$TREE"
	if [ "$RC" -ne 0 ]; then
		failed "robotmail, ROBOTMAIL_HEAP=plain"
	else
		figures "  ROBOTMAIL_HEAP=plain"
		echo "    heap policy: cpu $(ratio "$rm_cpu" "$CPU")x, peak RSS $(ratio "$rm_rss" "$RSS")x of malloc's defaults"
		cmp -s "$W/out" "$W/out.$size" || echo "    ROBOTMAIL_HEAP=plain: table DIFFERS"
	fi
	if [ -n "$RAWSCAN" ]; then
		best "$RAWSCAN" "${matrices[@]}"
		if [ "$RC" -ne 0 ]; then
			failed "raw scan"
		else
			RAW_PER_STAT[$size]=$(awk -v c="$CPU" -v n="$stats" 'BEGIN {printf "%.2f", 1e6 * c / n}')
			RAW_CPU_AT[$size]=$CPU
			figures "raw scan (strtod)"
			echo "    robotmail / raw scan: wall $(ratio "$rm_wall" "$WALL")x, cpu $(ratio "$rm_cpu" "$CPU")x, RSS $(ratio "$rm_rss" "$RSS")x (goal: time within 2x)"
		fi
	fi
	if [ -n "$NCOMPARE" ]; then
		base=$(sed -n 's/^base_commit: //p' "$(dirname "${matrices[0]}")/0/job.yaml")
		head=$(sed -n 's/^head_commit: //p' "$(dirname "${matrices[0]}")/0/job.yaml")
		rep=$BENCH_REPEAT
		BENCH_REPEAT=${NCOMPARE_REPEAT:-1}
		RC=1
		if lkp_register "$TREE"; then
			best timeout "${NCOMPARE_TIMEOUT:-1800}" env LKP_SRC="$LKP_SRC" ruby "$NCOMPARE" "$base" "$head"
		else
			sed 's/^/    /' "$W/lkp.log" | tail -5 >"$W/err"
		fi
		BENCH_REPEAT=$rep
		if [ "$RC" -ne 0 ]; then
			failed "ncompare"
		else
			figures "lkp-tests ncompare"
			echo "    ncompare / robotmail: wall $(ratio "$WALL" "$rm_wall")x faster, cpu $(ratio "$CPU" "$rm_cpu")x; robotmail RSS $(ratio "$rm_rss" "$RSS")x of ncompare's (goals: >= 40x at 10x20000, >= 25x at 50x20000, RSS <= 0.4x)"
			if cmp -s "$W/out" "$W/out.$size"; then
				echo "    tables: byte-identical"
			else
				echo "    tables DIFFER:"
				diff "$W/out" "$W/out.$size" | head -10 | sed 's/^/      /'
			fi
		fi
	fi
	if [ "$size" = 10x20000 ]; then
		# the .tar.gz of the same tree, and the table against the Python model
		(cd "$TREE" && tar -czf "$W/bench.tar.gz" .) || exit 1
		best "$ROBOTMAIL" compare "$W/bench.tar.gz"
		if [ "$RC" -ne 0 ]; then
			failed "robotmail compare .tar.gz"
		else
			figures "robotmail, .tar.gz"
			cmp -s "$W/out" "$W/out.$size" || echo "    .tar.gz: table DIFFERS from the directory's"
		fi
		if [ -f tests/check-fixtures.py ] &&
			"$PY" tests/check-fixtures.py --print "$TREE" >"$W/model" 2>/dev/null; then
			if cmp -s "$W/model" "$W/out.$size"; then
				echo "    table matches tests/check-fixtures.py --print ($(wc -l <"$W/model") lines)"
			else
				echo "    table DIFFERS from tests/check-fixtures.py --print:"
				diff "$W/model" "$W/out.$size" | head -10 | sed 's/^/      /'
			fi
		fi
	fi
done
echo
# scaling NAME ARRAY: cpu per stat at each size of 10 runs, and what each
# stat added between two sizes (the fixed cost of a process drops out)
scaling() {
	local -n per=$2
	local line="$1 (cpu per stat, 10 runs):" marg="  each stat added (cpu of the larger tree minus the smaller, per stat):" prev="" size
	for size in $BENCH_SIZES; do
		if [ "${size%x*}" != 10 ] || [ -z "${per[$size]:-}" ]; then
			continue
		fi
		line+=" ${size#*x} stats ${per[$size]} us;"
		if [ -n "$prev" ]; then
			marg+=" $(awk -v a="${per[$prev]}" -v na="${prev#*x}" -v b="${per[$size]}" -v nb="${size#*x}" \
				'BEGIN {printf "%d..%d: %.2f us;", na, nb, (b * nb - a * na) / (nb - na)}')"
		fi
		prev=$size
	done
	echo "$line"
	echo "$marg"
}
scaling "scaling, robotmail compare" PER_STAT
echo "  (goal: flat)"
[ -n "$RAWSCAN" ] && scaling "the raw scan" RAW_PER_STAT
# net NAME FIXED ARRAY: cpu per stat once the fixed cost is taken off
net() {
	local -n at=$3
	local line="  net of the fixed cost ($(awk -v f="$2" 'BEGIN {printf "%.1f ms", 1e3 * f}')):" size
	for size in $BENCH_SIZES; do
		[ "${size%x*}" = 10 ] && [ -n "${at[$size]:-}" ] || continue
		line+=" ${size#*x} stats $(awk -v c="${at[$size]}" -v f="$2" -v n="${size#*x}" 'BEGIN {printf "%.2f", 1e6 * (c - f) / n}') us;"
	done
	echo "$1$line"
}
fixed_cost
if [ -n "$FIXED" ]; then
	net "robotmail compare" "$FIXED" CPU_AT
else
	echo "robotmail compare of an empty directory: exit code $RC (expected 1): no net figures"
fi
[ -n "$RAW_FIXED" ] && net "the raw scan" "$RAW_FIXED" RAW_CPU_AT

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
if [ "${BENCH_GITWEB:-1}" = 0 ]; then
	echo "gitweb: skipped (BENCH_GITWEB=0)"
else
	gitweb_bench
fi
exit $status
