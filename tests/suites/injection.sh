#!/usr/bin/env bash
# injection: hostile commit facts (CR, LF, NEL, U+2028, encoded words,
# commas, angle brackets, quotes, 2,000-character values in the author name
# and email, the subject, trailers, Link: and the patch mail's Subject, To
# and Cc; the cases are tests/injection/cases.jsonl) against every provider:
# cgit under lighttpd, the GitHub, Gitea and GitLab records of the JSON
# forge, a local git repository and a patch mail.  Each report must be made
# with no extra recipient in the envelope or any header, no line over 998
# octets, and parse without defects in Python's email (policy default).
# tests/injection/inject.py does the work and prints the checks.
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
FPID=
cleanup() {
	tests/peers/cgit.sh stop "$T/cg" >/dev/null 2>&1
	[ -n "$FPID" ] && kill "$FPID" 2>/dev/null && wait "$FPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

"$PY" tests/injection/inject.py prepare "$T/w" >"$T/prep.out" 2>&1 ||
	{ not_ok "the injection fixtures are made" "$(tail -20 "$T/prep.out")"; exit 0; }
CGIT=$(tests/peers/cgit.sh start "$T/cg" "$T/w/repo") || { not_ok "cgit starts" "$CGIT"; exit 0; }
"$PY" tests/peers/forge.py --port 0 --fixtures "$T/w/forge" >"$T/forge.out" 2>&1 &
FPID=$!
for _ in $(seq 100); do grep -q listening "$T/forge.out" && break; sleep 0.1; done
FPORT=$(awk '/listening/ {print $2}' "$T/forge.out")
[ -n "$FPORT" ] || { not_ok "forge starts" "$(cat "$T/forge.out")"; exit 0; }
"$PY" tests/injection/inject.py run "$T/w" "$ROBOTMAIL" "$CGIT" "http://127.0.0.1:$FPORT"
