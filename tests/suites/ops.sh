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
# check-config runs where the configurations' relative paths (var/inbox,
# var/state.db) exist: a site directory, never the checkout
R=$PWD
mkdir -p "$T/site/var/inbox"
site() { (cd "$T/site" && "$@"); }
site "$ROBOTMAIL" check-config -c "$R/config/robotmail.yaml" >"$T/out" 2>&1
[ $? -eq 0 ] && grep -q "all good" "$T/out" && ok "check-config accepts the documented configuration (offline)" || not_ok "check-config robotmail.yaml" "$(cat "$T/out")"
printf 'secret\n' >"$T/pw"
chmod 644 "$T/pw"
printf 'include: %s\ndelivery:\n  password_file: %s\n' "$PROFILE_0DAY" "$T/pw" >"$T/c1.yaml"
site "$ROBOTMAIL" check-config -c "$T/c1.yaml" >"$T/out" 2>&1
[ $? -eq 2 ] && grep -q "FAIL password file: readable by others" "$T/out" && ok "check-config refuses a password file others can read" || not_ok "password perms" "$(cat "$T/out")"
chmod 600 "$T/pw"
site "$ROBOTMAIL" check-config -c "$T/c1.yaml" >"$T/out" 2>&1
[ $? -eq 0 ] && ok "... and accepts it once it is private" || not_ok "password perms ok" "$(cat "$T/out")"
mkdir -p "$T/tpl"
cp templates/*.txt "$T/tpl/"
sed -i 's/{{machine}}/{{machin}}/' "$T/tpl/perf.txt"
printf 'include: %s\npaths:\n  templates: %s\n' "$PROFILE_0DAY" "$T/tpl" >"$T/c2.yaml"
site "$ROBOTMAIL" check-config -c "$T/c2.yaml" >"$T/out" 2>&1
[ $? -eq 2 ] && grep -q "FAIL template perf.txt: template '.*perf.txt' line [0-9]*: unknown variable 'machin'" "$T/out" &&
	ok "check-config names a template's unknown variable with file and line" || not_ok "template check" "$(cat "$T/out")"
smtp_peer_start "$T/peer"
P=$PEER_PORT
printf 'include: %s\ntrees:\n  - name: linus\n    branch: master\n    url: https://example.org/l.git\n    provider: local-git\n    api: %s\ndelivery:\n  transport: smtp://127.0.0.1:%s\n' "$PROFILE_0DAY" "$T/repo" "$P" >"$T/c3.yaml"
site "$ROBOTMAIL" check-config -c "$T/c3.yaml" --online >"$T/out" 2>&1
[ $? -eq 0 ] && grep -q "ok   SMTP server: smtp://127.0.0.1:$P: connected" "$T/out" && ok "check-config --online reaches the SMTP server" || not_ok "online smtp" "$(cat "$T/out")"
printf 'include: %s\ntrees:\n  - name: x\n    branch: master\n    url: u\n    provider: github\n    api: http://127.0.0.1:9/repos/a/b\ndelivery:\n  transport: smtp://127.0.0.1:9\n  connect_timeout: 2\n' "$PROFILE_0DAY" >"$T/c4.yaml"
site "$ROBOTMAIL" check-config -c "$T/c4.yaml" --online >"$T/out" 2>&1
[ $? -eq 2 ] && grep -q "FAIL tree x:master (github)" "$T/out" && grep -q "FAIL SMTP server" "$T/out" &&
	ok "check-config --online reports an unreachable git web API and SMTP server" || not_ok "online unreachable" "$(cat "$T/out")"
man -l contrib/robotmail.1 >"$T/man" 2>&1 && grep -q "robotmail - kernel test result archives" "$T/man" && ok "the man page renders" || not_ok "man page" "$(head -5 "$T/man")"

# ---- permanent configuration problems: exit 2 naming the key and where it
# was set, and check-config fails on each (issue 13, "Permanent is permanent")
mkdir -p "$T/p/inbox"
pcfg() { # FILE [extra top-level YAML lines...]
	local f=$1
	shift
	{
		printf 'include: %s\npaths:\n  state_db: %s/p/state.db\n  inbox: %s/p/inbox\n' "$PROFILE_0DAY" "$T" "$T"
		printf '  done: %s/p/done\n  failed: %s/p/failed\n' "$T" "$T"
		linus_tree local-git "$T/repo"
		printf 'delivery:\n  transport: maildir:%s/p/Maildir\n  settle: 0\n' "$T"
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"$f"
}
# permanent CASE FILE PATTERN: run exits 2 with PATTERN on stderr; check-config exits 2 with FAIL
permanent() {
	local name=$1 f=$2 pat=$3 rc crc
	"$ROBOTMAIL" run -c "$f" >"$T/p.out" 2>"$T/p.err"
	rc=$?
	site "$ROBOTMAIL" check-config -c "$f" >"$T/p.cc" 2>&1
	crc=$?
	if [ $rc -eq 2 ] && grep -Eq "$pat" "$T/p.err" && [ $crc -eq 2 ] && grep -q '^FAIL' "$T/p.cc"; then
		ok "$name: run exits 2 naming it, check-config fails"
	else
		not_ok "$name" "run rc=$rc check-config rc=$crc" "$(cat "$T/p.err")" "$(cat "$T/p.cc")"
	fi
}
pcfg "$T/good.yaml"
"$ROBOTMAIL" run -c "$T/good.yaml" >"$T/p.out" 2>"$T/p.err"
rc=$?
site "$ROBOTMAIL" check-config -c "$T/good.yaml" >"$T/p.cc" 2>&1
[ $rc -eq 0 ] && [ $? -eq 0 ] && ok "a complete configuration runs (exit 0) and passes check-config" ||
	not_ok "good config" "rc=$rc" "$(cat "$T/p.err" "$T/p.cc")"
touch "$T/p/afile"
pcfg "$T/nostate.yaml"
sed -i "s|state_db: .*|state_db: $T/p/afile/sub/state.db|" "$T/nostate.yaml"
permanent "a state directory that cannot be created" "$T/nostate.yaml" \
	"paths.state_db \('.*nostate.yaml' line 3\): cannot create the state directory '.*afile/sub'"
pcfg "$T/noinbox.yaml"
sed -i "s|inbox: .*|inbox: $T/p/no-such-inbox|" "$T/noinbox.yaml"
permanent "a missing inbox" "$T/noinbox.yaml" "paths.inbox \('.*noinbox.yaml' line 4\): '.*no-such-inbox': No such file"
pcfg "$T/badaddr.yaml" "robot:" "  address: kernel test robot"
permanent "an invalid robot.address" "$T/badaddr.yaml" "badaddr.yaml' line [0-9]+: 'robot.address': no '@'"
pcfg "$T/noprog.yaml"
sed -i "s|transport: .*|transport: sendmail:$T/p/no-such-sendmail -i -t|" "$T/noprog.yaml"
permanent "a transport program that does not exist" "$T/noprog.yaml" \
	"'.*noprog.yaml' line [0-9]+: delivery.transport: 'sendmail:.*': the program '.*no-such-sendmail' does not exist"
# public-inbox-mda runs spamc unless publicinboxmda.spamcheck is none
if ! command -v spamc >/dev/null; then
	mkdir -p "$T/pi"
	: >"$T/pi/config"
	pcfg "$T/spam.yaml"
	sed -i "s|transport: .*|transport: public-inbox:$T/pi/inbox\n  public_inbox_config: $T/pi/config\n  public_inbox_address: ci@lists.example.org|" "$T/spam.yaml"
	permanent "public-inbox-mda would run spamc, which is not installed" "$T/spam.yaml" \
		"publicinboxmda.spamcheck is 'spamc' in '.*pi/config'.*git config -f '.*pi/config' publicinboxmda.spamcheck none"
	git config -f "$T/pi/config" publicinboxmda.spamcheck none
	site "$ROBOTMAIL" check-config -c "$T/spam.yaml" >"$T/p.cc" 2>&1
	grep -q '^ok   transport: public-inbox:' "$T/p.cc" && ok "... and with publicinboxmda.spamcheck = none the transport passes" ||
		not_ok "spamcheck none" "$(cat "$T/p.cc")"
fi
printf 'paths:\n  state_db: %s/p/state.db\n  inbox: %s/p/inbox\n' "$T" "$T" >"$T/noname.yaml"
permanent "no robot identity (robot.name, robot.address have no default)" "$T/noname.yaml" \
	"'robot.name' is required.*no built-in identity"
mkdir -p "$T/tplbad"
cp templates/*.txt "$T/tplbad/"
sed -i 's/{{testcase}}/{{testcas}}/' "$T/tplbad/perf.txt"
pcfg "$T/badtpl.yaml"
sed -i "s|^paths:|paths:\n  templates: $T/tplbad|" "$T/badtpl.yaml"
cp contrib/examples/mincore.tar.xz "$T/p/inbox/"
permanent "a template that does not render" "$T/badtpl.yaml" "template '.*perf.txt' line [0-9]+: unknown variable 'testcas'"
[ -e "$T/p/inbox/mincore.tar.xz" ] && ok "... and the archive stays in the inbox for the fixed configuration" ||
	not_ok "archive kept after a template error" "$(ls -R "$T/p")"

# ---- neutral defaults: no built-in identity, and no production robot's
# names outside the 0-day profile the golden tests include
hits=$(grep -rlE 'intel\.com|01\.org|oliver\.sang|intel-lab-lkp' bot config templates | grep -v '^config/profiles/0day\.yaml$')
[ -z "$hits" ] && ok "no intel.com, 01.org or oliver.sang in bot/, config/, templates/ outside config/profiles/0day.yaml" ||
	not_ok "production identity outside the 0-day profile" "$hits"
printf 'robot:\n  name: Example CI robot\n  address: ci@example.org\npaths:\n  state_db: %s/n/state.db\n' "$T" >"$T/neutral.yaml"
linus_tree local-git "$T/repo" >>"$T/neutral.yaml"
"$ROBOTMAIL" --dry-run -c "$T/neutral.yaml" --now 1765347349 contrib/examples/mincore.tar.xz >"$T/n.out" 2>"$T/n.err"
rc=$?
if [ $rc -eq 0 ] && grep -q '^From: Example CI robot <ci@example.org>$' "$T/n.out" &&
	grep -Eq '^Message-ID: <[0-9]{12}\.[0-9a-f]{8}-robotmail@example\.org>$' "$T/n.out" &&
	! grep -qE 'intel\.com|01\.org|lkp@|Disclaimer|0-DAY|^\| Closes|materials to reproduce' "$T/n.out" &&
	grep -q '^Example CI robot noticed a ' "$T/n.out"; then
	ok "a minimal configuration sends as its own robot: no 0-day names, lists, links, disclaimer or signature"
else
	not_ok "neutral defaults" "rc=$rc" "$(head -40 "$T/n.out")" "$(cat "$T/n.err")"
fi

# ---- help, version, the man page (issue 13 item 6)
bad=
for c in compare --dry-run run queue commit check-config help; do
	"$ROBOTMAIL" $c --help >"$T/h1" 2>&1 || bad="$bad $c(--help rc=$?)"
	grep -q "^usage: robotmail ${c#--}\|^usage: robotmail --dry-run" "$T/h1" || bad="$bad $c(no usage line)"
	if [ "$c" != help ]; then
		"$ROBOTMAIL" help $c >"$T/h2" 2>&1 || bad="$bad $c(help CMD rc=$?)"
		cmp -s "$T/h1" "$T/h2" || bad="$bad $c(help CMD differs from CMD --help)"
	fi
done
[ -z "$bad" ] && ok "every command has --help and 'robotmail help CMD', the same text, exit 0" || not_ok "per-command help" "$bad"
"$ROBOTMAIL" help no-such-command >/dev/null 2>"$T/e"
[ $? -eq 2 ] && grep -q "no command 'no-such-command'" "$T/e" && ok "help for an unknown command: exit 2" || not_ok "help unknown" "$(cat "$T/e")"
"$ROBOTMAIL" --version >"$T/v" 2>&1
[ $? -eq 0 ] && grep -Eq '^robotmail [0-9]' "$T/v" && grep -q '^data: ' "$T/v" && ok "--version prints the version and the data directories" || not_ok "--version" "$(cat "$T/v")"
w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l contrib/robotmail.1 2>&1 >/dev/null)
[ -z "$w" ] && ok "the man page has no groff warnings (man --warnings, 80 columns)" || not_ok "man page warnings" "$w"
man -l contrib/robotmail.1 2>/dev/null | col -b >"$T/man.txt"
miss=
for c in compare dry-run run queue commit check-config help --version links.patch_mail api/repository/commits \
	api/git/commits api/commits/SHA api/patch/?id=SHA unknown_branch include; do
	grep -qF -- "$c" "$T/man.txt" || miss="$miss $c"
done
[ -z "$miss" ] && ok "the man page names every command, links.patch_mail and each provider's api: form" || not_ok "man page content" "missing:$miss"
"$PY" tests/check-config-docs.py bot/config.c config/robotmail.yaml contrib/robotmail.1
