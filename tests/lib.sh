# tests/lib.sh - shared helpers for the shell test suites (sourced).
#
# Each suite prints one line per check, TAP style: "ok - NAME" or
# "not ok - NAME" (followed by indented diagnostics).  tests/run-tests.sh
# counts them.  Suites must clean up what they start (trap cleanup EXIT).

: "${BUILD:=build}"
ROBOTMAIL=${ROBOTMAIL:-$PWD/$BUILD/robotmail}
export ROBOTMAIL_DATADIR=${ROBOTMAIL_DATADIR:-$PWD/config}

ok() { printf 'ok - %s\n' "$1"; }
not_ok() {
	printf 'not ok - %s\n' "$1"
	shift
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/    /'
	return 0
}

# check NAME COMMAND...: ok when the command succeeds
check() {
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$name"; else not_ok "$name" "command failed: $*"; fi
}

# same_file NAME EXPECTED ACTUAL: byte comparison with a diff on failure
same_file() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1" "$(diff -u "$2" "$3" | head -40 | cat -A)"
	fi
}

# a private temp dir removed at exit
mk_tmp() {
	TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/robotmail-test.XXXXXX")
	trap 'rm -rf "$TEST_TMP"' EXIT
}

# python3 that has the standard library (Debian's, or the one on PATH)
PY=${PY:-$(command -v /usr/bin/python3 || command -v python3)}

# linus_tree PROVIDER API: the `trees:` block of most suites' configurations
# (the mainline tree, looked up through PROVIDER at API)
linus_tree() {
	printf 'trees:\n  - name: linus\n    branch: master\n'
	printf '    url: https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git\n'
	printf '    provider: %s\n    api: %s\n' "$1" "$2"
}
