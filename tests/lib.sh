# tests/lib.sh - shared helpers for the shell test suites (sourced).
#
# Each suite prints one line per check, TAP style: "ok - NAME" or
# "not ok - NAME" (followed by indented diagnostics).  tests/run-tests.sh
# counts them.  Suites must clean up what they start (trap cleanup EXIT).

: "${BUILD:=build}"
ROBOTMAIL=${ROBOTMAIL:-$PWD/$BUILD/robotmail}
export ROBOTMAIL_DATADIR=${ROBOTMAIL_DATADIR:-$PWD/config}
# the 0-day robot's names, links, disclaimer and signature: robotmail has no
# built-in identity, and the suites check the 0-day layout byte for byte, so
# their configurations start with `include: $PROFILE_0DAY`
PROFILE_0DAY=$PWD/config/profiles/0day.yaml

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

# the parsed-rules cache (bot/yamlcache.h) never touches the real home: off
# until mk_tmp gives it a place in the suite's own temp dir
if [ -z "${ROBOTMAIL_CACHE+set}" ]; then
	export ROBOTMAIL_CACHE=off
	RM_LIB_CACHE_OFF=1
fi

# a private temp dir removed at exit (with the suite's rule cache in it)
mk_tmp() {
	TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/robotmail-test.XXXXXX")
	trap 'rm -rf "$TEST_TMP"' EXIT
	export XDG_CACHE_HOME=$TEST_TMP/xdg-cache
	[ -n "${RM_LIB_CACHE_OFF:-}" ] && unset ROBOTMAIL_CACHE
	return 0
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

# smtp_peer_start DIR [PORT [smtp-peer.py options...]]: starts
# tests/peers/smtp-peer.py (Debian's python3, which has aiosmtpd) storing
# into DIR on PORT (0 or empty: a free one) and waits up to 60 s for it to
# listen (a cold first start on a busy machine takes seconds).  Sets
# PEER_PID and PEER_PORT; PEER_PORT is empty when it did not start, and
# DIR.out has what it printed.  The caller stops it: kill $PEER_PID; wait.
smtp_peer_start() {
	local dir=$1 port=${2:-0}
	shift $(($# < 2 ? $# : 2))
	mkdir -p "$dir"
	: >"$dir.out"
	/usr/bin/python3 tests/peers/smtp-peer.py --port "$port" --dir "$dir" "$@" >"$dir.out" 2>&1 &
	PEER_PID=$!
	for _ in $(seq 600); do
		grep -q listening "$dir.out" && break
		kill -0 "$PEER_PID" 2>/dev/null || break
		sleep 0.1
	done
	PEER_PORT=$(awk '/listening/ {print $2}' "$dir.out")
}
