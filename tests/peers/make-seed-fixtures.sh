#!/usr/bin/env bash
# make-seed-fixtures.sh OUTDIR: GitHub-format commit records for the commits
# of the fixture archives (tests/gen-fixtures.py), whose SHAs come from the
# seed reports, so no real repository has them.  Subjects are taken from
# tests/data/golden/*.subjects.table; the author of every head commit is the
# worked example's recipient.  Serve OUTDIR with tests/peers/forge.py; the
# tree's api is http://127.0.0.1:PORT/repos/seed/linux.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$1
PY=${PY:-$(command -v /usr/bin/python3 || command -v python3)}
# RM_FIXTURE_CACHE (tests/run-tests.sh, one `make test`): made there once, copied
if [ -n "${RM_FIXTURE_CACHE:-}" ]; then
	C=$RM_FIXTURE_CACHE/seed-fixtures
	if [ ! -f "$C/done" ]; then
		mkdir -p "$RM_FIXTURE_CACHE"
		tmp=$(mktemp -d "$C.XXXXXX")
		RM_FIXTURE_CACHE= tests/peers/make-seed-fixtures.sh "$tmp/out" || { rm -rf "$tmp"; exit 1; }
		touch "$tmp/done"
		mv -T "$tmp" "$C" 2>/dev/null || rm -rf "$tmp" # another run made it first
	fi
	mkdir -p "$out"
	cp -a "$C/out/." "$out/"
	exit 0
fi
mkdir -p "$out/repos/seed/linux/commits"
for name in mlockmany mincore worked; do
	for line in 6 7; do
		sha=$(sed -n "${line}p" "tests/data/golden/$name.table" | tr -d ' ')
		subj=$(sed -n "${line}p" "tests/data/golden/$name.subjects.table" | sed 's/^  [0-9a-f]* ("//; s/")$//')
		SUBJ="$subj" SHA="$sha" "$PY" -c '
import json, os
msg = os.environ["SUBJ"] + "\n\nSigned-off-by: Shakeel Butt <shakeel.butt@linux.dev>\n"
who = {"name": "Shakeel Butt", "email": "shakeel.butt@linux.dev", "date": "2025-10-01T00:00:00Z"}
print(json.dumps({"sha": os.environ["SHA"], "commit": {"message": msg, "author": who, "committer": who},
                  "parents": [], "files": []}))' >"$out/repos/seed/linux/commits/$sha"
	done
done
