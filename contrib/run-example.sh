#!/usr/bin/env bash
# The main job on the bundled example: make run calls this after building.
# 1. a small local git repository with the example commits (var/example/repo)
# 2. an inbox with the example archives (contrib/examples/*.tar.xz)
# 3. robotmail reports them with config/example.yaml into var/example/mail/
# 4. prints where the mails are and the first report.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ex=var/example
rm -rf "$ex"
mkdir -p "$ex/inbox" "$ex/mail"
tests/peers/make-test-repo.sh "$ex/repo" >/dev/null
cp contrib/examples/*.tar.xz "$ex/inbox/"
ROBOTMAIL_DATADIR=$PWD/config ROBOTMAIL_TEMPLATES=$PWD/templates \
	"$BUILD/robotmail" --dry-run -c config/example.yaml -o "$ex/mail" "$ex"/inbox/*.tar.xz
n=$(ls "$ex/mail" | wc -l)
echo "robotmail: $n report(s) from $(ls "$ex/inbox" | wc -l) archive(s) in $PWD/$ex/mail/"
first=$(ls "$ex/mail"/*.eml | head -1)
echo "==> $first"
cat "$first"
