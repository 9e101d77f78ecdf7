#!/usr/bin/env bash
# evidence: the functional-report data cases tests/data/23NN-* (kernel-log
# excerpts, boot tables, unreadable logs, materials), in the case format of
# tests/data/README.md (cmd, exit, expected, config.yaml, setup, check, needs:
# repo).  A small runner of that format for these cases; the general runner
# tests/suites/data.sh runs them as well once it is merged.
#   UPDATE=1 bash tests/suites/evidence.sh   writes exit and expected
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
trap 'rm -rf "$T"' EXIT
case $ROBOTMAIL in /*) ;; *) ROBOTMAIL=$PWD/$ROBOTMAIL ;; esac
export ROBOTMAIL PY
REPO=$T/repo
tests/peers/make-test-repo.sh "$REPO" >"$T/repo.log" 2>&1 || { not_ok "evidence: the test git repository is made" "$(cat "$T/repo.log")"; exit 0; }
export REPO
for c in tests/data/23[0-9][0-9]-*; do
	n=${c##*/}
	TMP=$T/$n
	mkdir -p "$TMP"
	export CASE=$c TMP CONFIG=
	if [ -f "$c/config.yaml" ]; then
		CONFIG=$TMP/config.yaml
		sed "s|@TMP@|$TMP|g; s|@REPO@|$REPO|g" "$c/config.yaml" >"$CONFIG"
	fi
	if [ -f "$c/setup" ] && ! bash -e "$c/setup" >"$TMP/setup.log" 2>&1; then
		not_ok "$n: setup" "$(tail -20 "$TMP/setup.log")"
		continue
	fi
	bash "$c/cmd" >"$TMP/out.raw" 2>"$TMP/err.raw"
	rc=$?
	for f in out err; do
		sed "s|$TMP|@TMP@|g; s|$REPO|@REPO@|g" "$TMP/$f.raw" >"$TMP/$f"
	done
	if [ -n "$UPDATE" ]; then
		echo $rc >"$c/exit"
		cp "$TMP/out" "$c/expected"
		[ -f "$c/stderr" ] && cp "$TMP/err" "$c/stderr"
	fi
	[ "$rc" = "$(cat "$c/exit")" ] && ok "$n: exit code $rc" ||
		not_ok "$n: exit code" "expected $(cat "$c/exit"), got $rc" "$(head -20 "$TMP/err")"
	if [ -f "$c/expected" ]; then
		cmp -s "$c/expected" "$TMP/out" && ok "$n: stdout byte for byte" ||
			not_ok "$n: stdout byte for byte" "$(diff -u "$c/expected" "$TMP/out" | head -40)"
	fi
	if [ -f "$c/stderr" ]; then
		cmp -s "$c/stderr" "$TMP/err" && ok "$n: stderr byte for byte" ||
			not_ok "$n: stderr byte for byte" "$(diff -u "$c/stderr" "$TMP/err" | head -20)"
	fi
	[ -f "$c/check" ] && OUT=$TMP/out ERR=$TMP/err bash "$c/check"
done
