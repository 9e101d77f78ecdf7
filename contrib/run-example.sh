#!/usr/bin/env bash
# The main job on the bundled example: make run calls this after building.
# 1. a small local git repository with the example commits (var/example/repo)
# 2. an inbox with the example archives (contrib/examples/*.tar.xz: two
#    performance reports; functional/boot-crash.tar.xz: a boot crash)
# 3. `robotmail run` with config/example.yaml: lock, scan, report, queue in the
#    state database, deliver into the Maildir var/example/Maildir
# 4. prints where the mails are and the first report.
# 5. `robotmail status` writes the findings pages (var/example/status/:
#    index.html, a page per finding and per tree, findings.json).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ex=var/example
rm -rf "$ex"
mkdir -p "$ex/inbox"
tests/peers/make-test-repo.sh "$ex/repo" >/dev/null
cp contrib/examples/*.tar.xz contrib/examples/functional/*.tar.xz "$ex/inbox/"
export ROBOTMAIL_DATADIR=$PWD/config ROBOTMAIL_TEMPLATES=$PWD/templates
"$BUILD/robotmail" run -c config/example.yaml -v --materials "$ex/materials"
echo
"$BUILD/robotmail" queue -c config/example.yaml list
n=$(ls "$ex/Maildir/new" | wc -l)
echo
echo "robotmail: $n message(s) delivered into $PWD/$ex/Maildir/new/; archives moved to $ex/done/"
first=$(ls "$ex/Maildir/new"/* | head -1)
echo "==> $first (shown decoded from the charset it declares)"
cs=$(sed -n 's/^Content-Type: text\/plain; charset="\{0,1\}\([A-Za-z0-9_-]*\).*/\1/p' "$first" | head -1)
iconv -f "${cs:-utf-8}" -t utf-8 "$first" 2>/dev/null || cat "$first"
func=$(grep -l '^[A-Za-z -]* noticed "' "$ex/Maildir/new"/* 2>/dev/null | head -1 || true)
if [ -n "$func" ] && [ "$func" != "$first" ]; then
	echo
	echo "==> $func (the functional report: boot/dmesg table and kernel-log excerpt)"
	cat "$func"
fi
echo
"$BUILD/robotmail" status -c config/example.yaml --html "$ex/status" --json "$ex/status"
echo "robotmail: status pages in $PWD/$ex/status/ (open file://$PWD/$ex/status/index.html)"
