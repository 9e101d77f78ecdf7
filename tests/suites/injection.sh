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

# the configuration's addresses go through the same rule: an error naming
# the file, line and key (exit 2), never a recipient
cfgbad() { # NAME YAML KEY
	printf '%b' "$2" >"$T/bad.yaml"
	"$ROBOTMAIL" check-config -c "$T/bad.yaml" >"$T/bad.out" 2>&1
	rc=$?
	if [ $rc -eq 2 ] && grep -q "bad.yaml' line [0-9]*: '$3'" "$T/bad.out"; then
		ok "configuration: $1 is refused naming the line and key"
	else
		not_ok "configuration: $1 is refused naming the line and key" "rc=$rc" "$(cat "$T/bad.out")"
	fi
}
cfgbad "robot.address with a comma" 'robot:\n  address: "a@example.org, victim@example.org"\n' robot.address
cfgbad "robot.cc with two bracketed addresses" 'robot:\n  cc: [ok@example.org, "Evil <a@example.org> <victim@example.org>"]\n' robot.cc
cfgbad "a tree's mail_cc with two addresses in one item" 'trees:\n  - name: x\n    branch: master\n    url: https://example.org/x.git\n    mail_cc: "a@example.org, victim@example.org"\n' trees.mail_cc
cfgbad "a tree's mail_to with a U+2028" 'trees:\n  - name: x\n    branch: master\n    url: https://example.org/x.git\n    mail_to: ["A\xe2\x80\xa8 <victim@example.org>"]\n' trees.mail_to
cfgbad "a rule's cc with a relay route" 'recipients:\n  rules:\n    - {on: path, pattern: x, cc: ["v%evil.example.org@example.org"]}\n' 'recipients.rules\[\].cc'
