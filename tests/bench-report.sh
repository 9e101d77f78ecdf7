#!/usr/bin/env bash
# bench-report.sh: robotmail --dry-run over 1,000 archives with a warm commit
# cache: reports per second and peak RSS.  A benchmark: never fails on figures.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}"
N=${REPORT_BENCH_ARCHIVES:-1000}
PY=$(command -v /usr/bin/python3 || command -v python3)
T=$(mktemp -d "${TMPDIR:-/tmp}/robotmail-bench-report.XXXXXX")
export XDG_CACHE_HOME=$T/xdg-cache # robotmail's rule cache: not the home
trap 'rm -rf "$T"' EXIT
RM=$PWD/$BUILD/robotmail
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
mkdir -p "$T/in"
"$PY" - "$T/in" "$N" <<'PYEOF'
import io, lzma, sys, tarfile
out, n = sys.argv[1], int(sys.argv[2])
src = tarfile.open(fileobj=io.BytesIO(lzma.decompress(open('contrib/examples/mincore.tar.xz', 'rb').read())))
members = [(m, src.extractfile(m).read()) for m in src.getmembers() if m.isfile()]
for i in range(n):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w') as t:
        for m, data in members:
            info = tarfile.TarInfo(m.name.replace('lkp-emr-2sp1', 'lkp-emr-%04d' % i))
            data = data.replace(b'lkp-emr-2sp1', b'lkp-emr-%04d' % i)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    open('%s/a%04d.tar' % (out, i), 'wb').write(buf.getvalue())
PYEOF
cat >"$T/cfg.yaml" <<CFG
include: $PWD/config/profiles/0day.yaml
paths:
  state_db: $T/state.db
trees:
  - name: linus
    branch: master
    url: https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git
    provider: local-git
    api: $T/repo
CFG
# warm the cache: both commits of the archives
"$RM" commit -c "$T/cfg.yaml" linus b5ac70b750f93ba32446145be56472cf6e5c1e8c >/dev/null
"$RM" commit -c "$T/cfg.yaml" linus 8807b68269657a8e419152e36c54046ec75247d3 >/dev/null
bytes=$(du -sb "$T/in" | cut -f1)
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%e %M' -o "$T/time" "$RM" --dry-run -c "$T/cfg.yaml" "$T"/in/*.tar >"$T/out" 2>"$T/err"
	read -r wall rss <"$T/time"
else
	start=$(date +%s.%N)
	"$RM" --dry-run -c "$T/cfg.yaml" "$T"/in/*.tar >"$T/out" 2>"$T/err"
	wall=$(echo "$(date +%s.%N) - $start" | bc -l)
	rss=0
fi
reports=$(grep -c '^DATA$' "$T/out")
printf 'report bench: %d archives (%d bytes), warm commit cache\n' "$N" "$bytes"
printf 'dry-run: %d reports in %.2f s = %.0f reports/s, peak RSS %.1f MiB\n' "$reports" "$wall" \
	"$(echo "$reports / $wall" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
