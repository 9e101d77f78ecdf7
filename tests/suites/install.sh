#!/usr/bin/env bash
# install: `make install` from a copy of the sources into a private PREFIX,
# then the sources are removed and the installed binary renders a report
# byte for byte like the checkout's, reading its rule files, templates and
# the 0-day profile from PREFIX only; the units and the cron example name
# PREFIX and SYSCONFDIR; StateDirectory= creates the state directory.
. tests/lib.sh
mk_tmp
T=$TEST_TMP
# a copy of the tracked sources (what a release tarball holds), built and
# installed with its own build directory, so the checkout is not touched
mkdir -p "$T/src"
git ls-files -z | xargs -0 tar -cf - | tar -C "$T/src" -xf - 2>/dev/null
if [ ! -f "$T/src/Makefile" ]; then
	# not a git checkout (a tarball): copy what is there, minus build output
	tar --exclude=./build --exclude=./var -cf - . | tar -C "$T/src" -xf -
fi
P=$T/prefix
if ! (cd "$T/src" && nice make -j"$(nproc)" install PREFIX="$P" SYSCONFDIR="$P/etc" BUILD="$T/build") >"$T/install.log" 2>&1; then
	not_ok "make install PREFIX=... runs" "$(tail -20 "$T/install.log")"
	exit 0
fi
ok "make install PREFIX=... SYSCONFDIR=... runs"
miss=
for f in bin/robotmail share/robotmail/metrics.yaml share/robotmail/lkp-programs.yaml share/robotmail/robotmail.yaml \
	share/robotmail/templates/perf.txt share/robotmail/templates/functional.txt share/robotmail/templates/signature.txt \
	share/robotmail/profiles/0day.yaml share/man/man1/robotmail.1 lib/systemd/system/robotmail.service \
	lib/systemd/system/robotmail.timer share/doc/robotmail/robotmail.cron etc/robotmail/robotmail.yaml; do
	[ -s "$P/$f" ] || miss="$miss $f"
done
[ -z "$miss" ] && ok "installs the binary, rule files, templates, 0-day profile, configuration, man page, units, cron example" ||
	not_ok "installed files" "missing:$miss"
U=$P/lib/systemd/system/robotmail.service
grep -qx "ExecStart=$P/bin/robotmail run -c $P/etc/robotmail/robotmail.yaml" "$U" && grep -qx 'StateDirectory=robotmail' "$U" &&
	grep -qx 'SuccessExitStatus=75' "$U" && grep -q "^\*/5 .* $P/bin/robotmail run -c $P/etc/robotmail/robotmail.yaml$" "$P/share/doc/robotmail/robotmail.cron" &&
	ok "the service (StateDirectory=robotmail) and the cron line name the installed binary and configuration" ||
	not_ok "units" "$(grep -E 'ExecStart|StateDirectory' "$U")" "$(tail -1 "$P/share/doc/robotmail/robotmail.cron")"
# a second install keeps the operator's configuration
echo "# mine" >>"$P/etc/robotmail/robotmail.yaml"
(cd "$T/src" && make install PREFIX="$P" SYSCONFDIR="$P/etc" BUILD="$T/build") >/dev/null 2>&1
grep -q '^# mine$' "$P/etc/robotmail/robotmail.yaml" && ok "a second make install keeps an existing SYSCONFDIR/robotmail/robotmail.yaml" ||
	not_ok "config overwritten"
# DESTDIR stages the same tree under another root (a package build): every
# file of PREFIX, and the staged binary is the one built for PREFIX
(cd "$T/src" && make install DESTDIR="$T/stage" PREFIX="$P" SYSCONFDIR="$P/etc" BUILD="$T/build") >"$T/stage.log" 2>&1
miss=
for f in $(cd "$P" && find . -type f ! -name 'robotmail.yaml.*'); do
	[ -e "$T/stage$P/$f" ] || miss="$miss $f"
done
[ -z "$miss" ] && [ -x "$T/stage$P/bin/robotmail" ] && cmp -s "$T/stage$P/bin/robotmail" "$P/bin/robotmail" &&
	ok "make install DESTDIR=... stages every installed file under DESTDIR (the binary built for PREFIX)" ||
	not_ok "make install DESTDIR" "missing:$miss" "$(tail -5 "$T/stage.log")"
# the sources and the build are gone: the installed binary stands alone
rm -rf "$T/src" "$T/build"
"$P/bin/robotmail" --version >"$T/v" 2>&1
grep -qx "data: $P/share/robotmail" "$T/v" && grep -qx "templates: $P/share/robotmail/templates" "$T/v" &&
	ok "--version of the installed binary names PREFIX/share/robotmail" || not_ok "installed --version" "$(cat "$T/v")"
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
{
	printf 'include: %s/share/robotmail/profiles/0day.yaml\npaths:\n  state_db: %s/state.db\n  inbox: %s/inbox\n' "$P" "$T" "$T"
	linus_tree local-git "$T/repo"
} >"$T/cfg.yaml"
cp contrib/examples/mlockmany.tar.xz "$T/"
(cd "$T" && env -u ROBOTMAIL_DATADIR -u ROBOTMAIL_TEMPLATES "$P/bin/robotmail" --dry-run -c cfg.yaml --now 1765347349 mlockmany.tar.xz) >"$T/installed.out" 2>"$T/installed.err"
rc=$?
(cd "$T" && "$ROBOTMAIL" --dry-run -c cfg.yaml --now 1765347349 mlockmany.tar.xz) >"$T/checkout.out" 2>/dev/null
if [ $rc -eq 0 ] && grep -q '^Disclaimer:$' "$T/installed.out" && cmp -s "$T/installed.out" "$T/checkout.out"; then
	ok "with the sources removed, the installed binary renders the report byte for byte like the checkout's"
else
	not_ok "installed binary renders" "rc=$rc" "$(cat "$T/installed.err")" "$(diff "$T/checkout.out" "$T/installed.out" | head -10)"
fi
mkdir -p "$T/inbox"
env -u ROBOTMAIL_DATADIR -u ROBOTMAIL_TEMPLATES "$P/bin/robotmail" check-config -c "$T/cfg.yaml" >"$T/cc" 2>&1
grep -q "^ok   metric rules: $P/share/robotmail/metrics.yaml" "$T/cc" && grep -q "^ok   template perf.txt: $P/share/robotmail/templates" "$T/cc" &&
	ok "check-config of the installed binary reads PREFIX's rule files and templates" || not_ok "installed check-config" "$(cat "$T/cc")"
man -l "$P/share/man/man1/robotmail.1" 2>/dev/null | grep -q 'robotmail - kernel test result archives' &&
	ok "the installed man page renders" || not_ok "installed man page"
