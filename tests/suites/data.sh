#!/usr/bin/env bash
# data: every case folder tests/data/NNNN-name/ (format: tests/data/README.md):
# run its `cmd`, compare the exit code with `exit`, stdout with `expected`,
# stderr with `stderr` and the files the command wrote into $TMP/out with
# the case's `out/` byte for byte (a diff on failure), then run its `check`
# (rule checks printing ok/not ok lines).
#
#   bash tests/suites/data.sh                 all cases
#   bash tests/suites/data.sh 1001 2003-foo   the cases whose folder name starts so
#   UPDATE=1 bash tests/suites/data.sh ...    write the actual exit code, stdout,
#                                             stderr (when the case has `stderr`) and
#                                             the files of $TMP/out (when it has out/)
#                                             into the case instead of comparing; never
#                                             through a symbolic link (an `expected`
#                                             that links to tests/data/golden/ is the
#                                             spec's, not ours to rewrite)
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
FPID= HPID=
cleanup() {
	[ -n "$FPID" ] && kill "$FPID" 2>/dev/null && wait "$FPID" 2>/dev/null
	[ -n "$HPID" ] && kill "$HPID" 2>/dev/null && wait "$HPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
DATA=tests/data
case $ROBOTMAIL in /*) ;; *) ROBOTMAIL=$PWD/$ROBOTMAIL ;; esac
export ROBOTMAIL PY

cases=()
for d in "$DATA"/[0-9][0-9][0-9][0-9]-*/; do
	d=${d%/}
	if [ $# -gt 0 ]; then
		want=
		for p in "$@"; do case ${d##*/} in "$p"*) want=1 ;; esac; done
		[ -n "$want" ] || continue
	fi
	cases+=("$d")
done
[ ${#cases[@]} -gt 0 ] || { not_ok "data: no case folder matches" "$*"; exit 0; }

# ---- what the cases need, made once: the words of their `needs` files
needs=$(cat "${cases[@]/%//needs}" 2>/dev/null | tr -s ' \n' '\n' | sort -u)
has_need() { grep -qx "$1" <<<"$needs"; }
FX= FORGE= REPO= KINDS=
if has_need fixtures || has_need forge; then
	if "$PY" tests/gen-fixtures.py "$T/fx" >"$T/gen.log" 2>&1; then
		ok "data: fixture generator (tests/gen-fixtures.py) runs and self-checks"
		FX=$T/fx
	else
		not_ok "data: fixture generator (tests/gen-fixtures.py) runs and self-checks" "$(tail -20 "$T/gen.log")"
	fi
fi
if has_need forge; then
	# commit records of the fixture commits (their SHAs are the seed reports')
	tests/peers/make-seed-fixtures.sh "$T/ff" >"$T/ff.log" 2>&1
	"$PY" tests/peers/forge.py --port 0 --fixtures "$T/ff" --log "$T/forge.log" >"$T/forge.out" 2>&1 &
	FPID=$!
	for _ in $(seq 100); do grep -q listening "$T/forge.out" && break; sleep 0.1; done
	if grep -q listening "$T/forge.out"; then
		FORGE=http://127.0.0.1:$(awk '/listening/ {print $2}' "$T/forge.out")
	else
		not_ok "data: the JSON forge peer starts" "$(cat "$T/ff.log" "$T/forge.out")"
	fi
fi
if has_need repo; then
	tests/peers/make-test-repo.sh "$T/repo" >"$T/repo.log" 2>&1 && REPO=$T/repo ||
		not_ok "data: the test git repository is made" "$(cat "$T/repo.log")"
fi
if has_need kinds; then
	"$PY" tests/gen-report-kinds.py "$T/kinds" >"$T/kinds.log" 2>&1 && KINDS=$T/kinds ||
		not_ok "data: tests/gen-report-kinds.py makes the report-kind archives" "$(cat "$T/kinds.log")"
fi
if has_need http; then
	# one static HTTP server for every case that needs it: the case's http/
	# folder is served as $HTTP (http://127.0.0.1:PORT/<case name>)
	mkdir -p "$T/www"
	(cd "$T/www" && exec "$PY" -u -m http.server --bind 127.0.0.1 0) >"$T/http.out" 2>"$T/http.log" &
	HPID=$!
	for _ in $(seq 100); do grep -q '^Serving HTTP' "$T/http.out" && break; sleep 0.1; done
	HTTP_BASE=$(sed -n 's/^Serving HTTP on 127\.0\.0\.1 port \([0-9][0-9]*\).*/http:\/\/127.0.0.1:\1/p' "$T/http.out")
	[ -n "$HTTP_BASE" ] || not_ok "data: the static HTTP server (python3 -m http.server) starts" "$(cat "$T/http.out" "$T/http.log")"
fi
export FX FORGE REPO KINDS

# subst FILE: FILE with @TMP@, @FX@, @FORGE@, @REPO@, @KINDS@ and
# @PROFILE_0DAY@ (the 0-day profile the golden cases include) replaced
# (the outputs get the reverse before they are compared)
subst() {
	local s
	s=$(<"$1")
	s=${s//@TMP@/$TMP}
	s=${s//@FX@/$FX}
	s=${s//@FORGE@/$FORGE}
	s=${s//@REPO@/$REPO}
	s=${s//@KINDS@/$KINDS}
	s=${s//@HTTP@/$HTTP}
	s=${s//@PROFILE_0DAY@/$PROFILE_0DAY}
	printf '%s\n' "$s"
}

for c in "${cases[@]}"; do
	name=${c##*/}
	TMP=$T/case/$name
	mkdir -p "$TMP/out"
	HTTP= HTTPDIR=
	if [ -n "${HTTP_BASE:-}" ] && grep -qw http "$c/needs" 2>/dev/null; then
		HTTP=$HTTP_BASE/$name HTTPDIR=$T/www/$name
		rm -rf "$HTTPDIR"
		if [ -d "$c/http" ]; then cp -r "$c/http" "$HTTPDIR"; else mkdir "$HTTPDIR"; fi
	fi
	export CASE=$c TMP HTTP HTTPDIR
	missing=
	for w in $(cat "$c/needs" 2>/dev/null); do
		case $w in
		fixtures) [ -n "$FX" ] || missing="$missing $w" ;;
		forge) [ -n "$FORGE" ] || missing="$missing $w" ;;
		repo) [ -n "$REPO" ] || missing="$missing $w" ;;
		kinds) [ -n "$KINDS" ] || missing="$missing $w" ;;
		http) [ -n "$HTTP" ] || missing="$missing $w" ;;
		*) missing="$missing $w(unknown)" ;;
		esac
	done
	if [ ! -f "$c/cmd" ] || [ ! -f "$c/exit" ] || [ -n "$missing" ]; then
		not_ok "$name: the case can run" "cmd: $([ -f "$c/cmd" ] && echo yes || echo missing)" \
			"exit: $([ -f "$c/exit" ] && echo yes || echo missing)" "missing needs:$missing"
		continue
	fi
	CONFIG=
	if [ -f "$c/config.yaml" ]; then
		CONFIG=$TMP/config.yaml
		subst "$c/config.yaml" >"$CONFIG"
	fi
	export CONFIG
	if [ -f "$c/setup" ] && ! bash -e "$c/setup" >"$TMP/setup.log" 2>&1; then
		not_ok "$name: setup runs" "$(tail -20 "$TMP/setup.log")"
		continue
	fi
	bash "$c/cmd" >"$TMP/stdout.raw" 2>"$TMP/stderr.raw" </dev/null
	rc=$?
	# the run's own paths and ports back to their @NAME@ (expected files hold those)
	"$PY" - "$TMP" "@TMP@=$TMP" "@FX@=$FX" "@FORGE@=$FORGE" "@REPO@=$REPO" "@KINDS@=$KINDS" "@HTTP@=$HTTP" <<'PYEOF'
import os, sys
tmp = sys.argv[1]
def norm(src, dst):
    data = open(src, 'rb').read()
    for pair in sys.argv[2:]:
        name, value = pair.split('=', 1)
        if value:
            data = data.replace(value.encode(), name.encode())
    open(dst, 'wb').write(data)
for f in ('stdout', 'stderr'):
    norm(tmp + '/' + f + '.raw', tmp + '/' + f)
# the files written into $TMP/out, normalised into $TMP/outn
for d, _, files in os.walk(tmp + '/out'):
    rel = os.path.relpath(d, tmp + '/out')
    os.makedirs(os.path.join(tmp, 'outn', rel), exist_ok=True)
    for f in files:
        norm(os.path.join(d, f), os.path.join(tmp, 'outn', rel, f))
PYEOF
	if [ -n "${UPDATE:-}" ]; then
		echo "$rc" >"$c/exit"
		for f in expected:stdout stderr:stderr; do
			dst=$c/${f%%:*}
			[ "${f%%:*}" = stderr ] && [ ! -f "$dst" ] && continue
			if [ -L "$dst" ]; then
				cmp -s "$dst" "$TMP/${f#*:}" || echo "# $name: ${f%%:*} links to $(readlink "$dst") and differs: not updated" >&2
			else
				cp "$TMP/${f#*:}" "$dst"
			fi
		done
		if [ -d "$c/out" ]; then
			rm -rf "$c/out"
			cp -r "$TMP/outn" "$c/out"
		fi
		echo "# $name: updated (exit $rc)" >&2
	fi
	want=$(tr -d ' \n' <"$c/exit")
	if [ "$rc" = "$want" ]; then
		ok "$name: exit code $want"
	else
		not_ok "$name: exit code $want" "got $rc" "$(head -20 "$TMP/stderr")"
	fi
	[ -e "$c/expected" ] && same_file "$name: stdout equals expected byte for byte" "$c/expected" "$TMP/stdout"
	if [ -d "$c/out" ]; then
		# the same file names, each with the same bytes
		want_files=$(cd "$c/out" && find . -type f | sort)
		got_files=$(cd "$TMP/outn" && find . -type f | sort)
		if [ "$want_files" = "$got_files" ]; then
			ok "$name: the files written are out/'s: $(echo $want_files | sed 's#\./##g')"
			for f in $want_files; do
				same_file "$name: out/${f#./} byte for byte" "$c/out/$f" "$TMP/outn/$f"
			done
		else
			not_ok "$name: the files written are out/'s" "$(diff <(echo "$want_files") <(echo "$got_files"))"
		fi
	fi
	if [ -e "$c/stderr" ]; then
		if [ -s "$c/stderr" ]; then
			same_file "$name: stderr equals the case's stderr byte for byte" "$c/stderr" "$TMP/stderr"
		else
			same_file "$name: nothing on stderr" "$c/stderr" "$TMP/stderr"
		fi
	fi
	if [ -f "$c/check" ]; then
		OUT=$TMP/stdout ERR=$TMP/stderr bash "$c/check" >"$TMP/check.out" 2>&1
		crc=$?
		sed -E "s/^(not )?ok - /&$name: /" "$TMP/check.out"
		if [ $crc -ne 0 ] || ! grep -q '^ok - \|^not ok - ' "$TMP/check.out"; then
			not_ok "$name: check runs to its end" "exit $crc" "$(tail -20 "$TMP/check.out")"
		fi
	fi
done
