#!/usr/bin/env bash
# dynlib: libcurl, libpq, libetpan, libarchive, GnuTLS and SQLite are loaded
# only by the commands that use them (bot/dynlib.h).  The dynamic loader's own
# account (LD_DEBUG=libs: one "calling init: FILE" line per library it
# starts) says which libraries a run loaded; a library that cannot be loaded
# (the test hook ROBOTMAIL_DYNLIB_<LIB> naming a missing file) is one clear
# error line and exit 2.
. tests/lib.sh
mk_tmp
T=$TEST_TMP
DYN='libcurl|libpq|libetpan|libarchive|libgnutls|libsqlite3'

# loaded CMD...: sets $got to the basenames of the six libraries the run
# loaded, sorted, space-separated (empty: none), and $rc to its exit code
loaded() {
	LD_DEBUG=libs "$ROBOTMAIL" "$@" >"$T/out" 2>"$T/ld"
	rc=$?
	got=$(awk '/calling init:/ {n = split($NF, p, "/"); print p[n]}' "$T/ld" | grep -E "^($DYN)" | sort |
		tr '\n' ' ' | sed 's/ $//')
}

# expect NAME WANT GOT: WANT is an extended regexp for the whole list
expect() {
	if [[ $3 =~ ^($2)$ ]]; then ok "$1"; else not_ok "$1" "loaded: '$3'" "expected: '$2'"; fi
}

# the link itself: only the three libraries robotmail always needs
if ldd "$ROBOTMAIL" >"$T/ldd" 2>&1 && ! grep -Eq "$DYN" "$T/ldd" && grep -q libpcre2 "$T/ldd"; then
	ok "robotmail is not linked against libcurl, libpq, libetpan, libarchive, GnuTLS or SQLite"
else
	not_ok "robotmail is not linked against libcurl, libpq, libetpan, libarchive, GnuTLS or SQLite" "$(cat "$T/ldd")"
fi

# a small tree: one base and one head commit, 3 runs each (a table of changes)
"$PY" tests/gen-fixtures.py --bench "$T/tree" --runs 3 --stats 200 >/dev/null 2>"$T/gen.err" ||
	{ not_ok "gen-fixtures.py makes a tree" "$(cat "$T/gen.err")"; exit 0; }
tar -C "$T" -czf "$T/tree.tar.gz" tree

loaded --version
expect "--version loads none of them (exit $rc)" "" "$got"
loaded help
expect "help loads none of them (exit $rc)" "" "$got"
loaded help compare
expect "help compare loads none of them (exit $rc)" "" "$got"
loaded compare "$T/tree/bench"
cp "$T/out" "$T/dir.out"
[ "$rc" = 0 ] && [ -s "$T/dir.out" ] && expect "compare DIR loads none of them" "" "$got" ||
	not_ok "compare DIR loads none of them" "exit $rc" "$(head -5 "$T/ld" | grep -v 'calling init')"
loaded compare "$T/tree.tar.gz"
if [ "$rc" = 0 ]; then
	expect "compare TARBALL loads libarchive (and nothing else of the six)" "libarchive\.so\.[0-9]+" "$got"
	same_file "compare TARBALL prints what compare DIR prints" "$T/dir.out" "$T/out"
else
	not_ok "compare TARBALL loads libarchive" "exit $rc" "$(grep -v 'calling init' "$T/ld" | head -5)"
fi

# a commit lookup: the API's port is closed (loading is what is checked)
port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
{
	printf 'paths:\n  state_db: %s/state.db\n' "$T"
	printf 'gitweb:\n  connect_timeout: 2\n  timeout: 2\n  retries: 0\n'
	printf 'trees:\n  - name: t\n    branch: master\n    url: https://example.org/t.git\n'
	printf '    provider: github\n    api: http://127.0.0.1:%s/repos/test/linux\n' "$port"
} >"$T/cfg.yaml"
SHA=0123456789abcdef0123456789abcdef01234567
loaded commit -c "$T/cfg.yaml" --no-cache t $SHA
# libcurl-gnutls loads GnuTLS itself; libetpan, libpq, libarchive and
# SQLite (--no-cache: no store) stay out
expect "commit loads libcurl (exit $rc: the API is down)" "(libcurl[-a-z]*\.so\.[0-9]+)( libgnutls\.so\.[0-9]+)?" "$got"
[ "$rc" = 75 ] && ok "commit: an API that is down is a temporary failure (exit 75)" ||
	not_ok "commit: an API that is down is a temporary failure (exit 75)" "exit $rc" "$(grep -v 'calling init' "$T/ld" | tail -3)"

# the store: SQLite, and nothing else of the six
loaded queue -c "$T/cfg.yaml" list
expect "queue list (the SQLite store) loads libsqlite3 only (exit $rc)" "libsqlite3\.so\.[0-9]+" "$got"
[ "$rc" = 0 ] && [ -s "$T/state.db" ] && ok "queue list opens (creates) the SQLite store" ||
	not_ok "queue list opens (creates) the SQLite store" "exit $rc" "$(grep -v 'calling init' "$T/ld" | tail -3)"
# the commit cache is in the store: libcurl and SQLite
loaded commit -c "$T/cfg.yaml" t $SHA
expect "commit with its cache loads libcurl and libsqlite3 (exit $rc)" \
	"(libcurl[-a-z]*\.so\.[0-9]+)( libgnutls\.so\.[0-9]+)? libsqlite3\.so\.[0-9]+" "$got"

# fail_load NAME VAR CMD...: VAR (ROBOTMAIL_DYNLIB_X) names a missing file:
# exit 2, one error line naming the file and dlopen's words
fail_load() {
	local name=$1 var=$2
	shift 2
	env "$var=$T/missing/lib.so.1" "$ROBOTMAIL" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
		grep -q "^robotmail: error: cannot load $T/missing/lib.so.1: cannot open shared object file" "$T/err"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc" "$(cat "$T/err")"
	fi
}
fail_load "libarchive missing: compare TARBALL exits 2 naming the file" ROBOTMAIL_DYNLIB_ARCHIVE \
	compare "$T/tree.tar.gz"
fail_load "libcurl missing: commit exits 2 naming the file" ROBOTMAIL_DYNLIB_CURL \
	commit -c "$T/cfg.yaml" --no-cache t $SHA
fail_load "SQLite missing: queue list exits 2 naming the file" ROBOTMAIL_DYNLIB_SQLITE \
	queue -c "$T/cfg.yaml" list
fail_load "SQLite missing: commit (its cache is in the store) exits 2 naming the file" ROBOTMAIL_DYNLIB_SQLITE \
	commit -c "$T/cfg.yaml" t $SHA
# and a library that is not needed is never opened: compare DIR still works
if ROBOTMAIL_DYNLIB_ARCHIVE=$T/missing/lib.so.1 ROBOTMAIL_DYNLIB_CURL=$T/missing/lib.so.1 \
	ROBOTMAIL_DYNLIB_PQ=$T/missing/lib.so.1 ROBOTMAIL_DYNLIB_ETPAN=$T/missing/lib.so.1 \
	ROBOTMAIL_DYNLIB_GNUTLS=$T/missing/lib.so.1 ROBOTMAIL_DYNLIB_SQLITE=$T/missing/lib.so.1 \
	"$ROBOTMAIL" compare "$T/tree/bench" >"$T/out" 2>"$T/err"; then
	same_file "compare DIR needs none of the six (all of them missing)" "$T/dir.out" "$T/out"
else
	not_ok "compare DIR needs none of the six (all of them missing)" "$(cat "$T/err")"
fi
