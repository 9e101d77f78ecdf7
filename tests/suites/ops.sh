#!/usr/bin/env bash
# ops: the operator's kit: check-config (configuration, rules, templates,
# secret file permissions, reachability with --online), the man page.
. tests/lib.sh
mk_tmp
T=$TEST_TMP
PEER_PID=
cleanup() { [ -n "$PEER_PID" ] && kill "$PEER_PID" 2>/dev/null && wait "$PEER_PID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
"$ROBOTMAIL" check-config -c config/robotmail.yaml >"$T/out" 2>&1
[ $? -eq 0 ] && grep -q "all good" "$T/out" && ok "check-config accepts the documented configuration (offline)" || not_ok "check-config robotmail.yaml" "$(cat "$T/out")"
printf 'secret\n' >"$T/pw"
chmod 644 "$T/pw"
printf 'include: %s\ndelivery:\n  password_file: %s\n' "$PROFILE_0DAY" "$T/pw" >"$T/c1.yaml"
"$ROBOTMAIL" check-config -c "$T/c1.yaml" >"$T/out" 2>&1
[ $? -eq 2 ] && grep -q "FAIL password file: readable by others" "$T/out" && ok "check-config refuses a password file others can read" || not_ok "password perms" "$(cat "$T/out")"
chmod 600 "$T/pw"
"$ROBOTMAIL" check-config -c "$T/c1.yaml" >"$T/out" 2>&1
[ $? -eq 0 ] && ok "... and accepts it once it is private" || not_ok "password perms ok" "$(cat "$T/out")"
mkdir -p "$T/tpl"
cp templates/*.txt "$T/tpl/"
sed -i 's/{{machine}}/{{machin}}/' "$T/tpl/perf.txt"
printf 'include: %s\npaths:\n  templates: %s\n' "$PROFILE_0DAY" "$T/tpl" >"$T/c2.yaml"
"$ROBOTMAIL" check-config -c "$T/c2.yaml" >"$T/out" 2>&1
[ $? -eq 2 ] && grep -q "FAIL template perf.txt: template '.*perf.txt' line [0-9]*: unknown variable 'machin'" "$T/out" &&
	ok "check-config names a template's unknown variable with file and line" || not_ok "template check" "$(cat "$T/out")"
smtp_peer_start "$T/peer"
P=$PEER_PORT
printf 'include: %s\ntrees:\n  - name: linus\n    branch: master\n    url: https://example.org/l.git\n    provider: local-git\n    api: %s\ndelivery:\n  transport: smtp://127.0.0.1:%s\n' "$PROFILE_0DAY" "$T/repo" "$P" >"$T/c3.yaml"
"$ROBOTMAIL" check-config -c "$T/c3.yaml" --online >"$T/out" 2>&1
[ $? -eq 0 ] && grep -q "ok   SMTP server: smtp://127.0.0.1:$P: connected" "$T/out" && ok "check-config --online reaches the SMTP server" || not_ok "online smtp" "$(cat "$T/out")"
printf 'include: %s\ntrees:\n  - name: x\n    branch: master\n    url: u\n    provider: github\n    api: http://127.0.0.1:9/repos/a/b\ndelivery:\n  transport: smtp://127.0.0.1:9\n  connect_timeout: 2\n' "$PROFILE_0DAY" >"$T/c4.yaml"
"$ROBOTMAIL" check-config -c "$T/c4.yaml" --online >"$T/out" 2>&1
[ $? -eq 2 ] && grep -q "FAIL tree x:master (github)" "$T/out" && grep -q "FAIL SMTP server" "$T/out" &&
	ok "check-config --online reports an unreachable git web API and SMTP server" || not_ok "online unreachable" "$(cat "$T/out")"
man -l contrib/robotmail.1 >"$T/man" 2>&1 && grep -q "robotmail - kernel test result archives" "$T/man" && ok "the man page renders" || not_ok "man page" "$(head -5 "$T/man")"
