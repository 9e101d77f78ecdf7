#!/usr/bin/env bash
# badinput: hostile and broken archives.  Each must end with exit code 1 (bad
# archive) or 2 (usage), exactly one "robotmail: error:" line naming the file or
# member at fault and what was expected, no crash (exit code < 128), no hang,
# and no sanitizer report when run with the ASan+UBSan binary.
ASAN_TOO=1
. tests/lib.sh
mk_tmp
T=$TEST_TMP
: "${BADINPUT_TIMEOUT:=60}"

A=819bfbd47e49df890123456789abcdef01234567
B=8d596d8b81ef56bf61538d6b4760123456789abc
RR=result/stress-ng/performance-100%-mlockmany-60s/lkp-emr-2sp1/debian-13-x86_64-20250902.cgz/x86_64-rhel-9.4/gcc-14

# The valid tree: archive-format.md section 8 (base A, head B, 3 runs each,
# per-run job.yaml and stats.json, commit-level matrix.json).
"$PY" - "$T/valid" <<'EOF'
import json, os, sys
out = sys.argv[1]
A = "819bfbd47e49df890123456789abcdef01234567"
B = "8d596d8b81ef56bf61538d6b4760123456789abc"
rr = ("result/stress-ng/performance-100%-mlockmany-60s/lkp-emr-2sp1/"
      "debian-13-x86_64-20250902.cgz/x86_64-rhel-9.4/gcc-14")
vals = {
    "stress-ng.mlockmany.pass": ([1, 1, 1], [1, 1, 1]),
    "stress-ng.mlockmany.ops": ([1043210, 1051820, 1055324], [1126061, 1161061, 1196061]),
    "stress-ng.mlockmany.ops_per_sec": ([17400.5, 17541.0, 17681.5], [18900.0, 19384.0, 19868.0]),
    "stress-ng.time.elapsed_time": ([60.52, 60.49, 60.55], [60.51, 60.53, 60.48]),
    "stress-ng.time.involuntary_context_switches": ([2913233, 2933233, 2953233],
                                                    [2704192, 2714192, 2724192]),
    "stress-ng.time.user_time": ([75.91, 76.26, 76.61], [94.9, 98.61, 102.32]),
    "vmstat.system.cs": ([3379.2, 3401.5, 3365.8], [3390.1, 3372.4, 3410.0]),
}
job = """---

#! jobs/stress-ng-part2.yaml
suite: stress-ng
testcase: stress-ng
category: benchmark
nr_threads: 100%
testtime: 60s
stress-ng:
  test: mlockmany
tbox_group: lkp-emr-2sp1
cpufreq_governor: performance
commit: {c}
head_commit: {h}
rootfs: debian-13-x86_64-20250902.cgz
kconfig: x86_64-rhel-9.4
compiler: gcc-14
"""
for side, c in enumerate((A, B)):
    d = os.path.join(out, rr, c)
    for r in range(3):
        os.makedirs(os.path.join(d, str(r)))
        with open(os.path.join(d, str(r), "job.yaml"), "w") as f:
            f.write(job.format(c=c, h=B))
        with open(os.path.join(d, str(r), "stats.json"), "w") as f:
            json.dump({k: v[side][r] for k, v in vals.items()}, f, indent=2)
    m = {k: v[side] for k, v in vals.items()}
    m["stats_source"] = ["/%s/%s/%d/stats.json" % (rr, c, r) for r in range(3)]
    with open(os.path.join(d, "matrix.json"), "w") as f:
        json.dump(m, f, indent=2)
EOF
VA=$T/valid/$RR/$A
VB=$T/valid/$RR/$B

# run ARGS...: run robotmail with a timeout; sets RC, OUT (stdout file), ERR (stderr file)
n=0
run() {
	n=$((n + 1))
	OUT=$T/out.$n ERR=$T/err.$n
	timeout -k 5 "${RUN_TIMEOUT:-$BADINPUT_TIMEOUT}" "$ROBOTMAIL" "$@" >"$OUT" 2>"$ERR"
	RC=$?
}

# sanitizer_clean: no ASan/UBSan/LSan report in $ERR
sanitizer_clean() {
	! grep -q 'AddressSanitizer\|runtime error\|LeakSanitizer' "$ERR"
}

# expect_error NAME RC REGEX ARGS...: exit code RC, exactly one error line,
# matching the extended regex REGEX (the file/member and what was expected)
expect_error() {
	local name=$1 want=$2 re=$3 lines line why=""
	shift 3
	run "$@"
	lines=$(grep -c '^robotmail: error: ' "$ERR")
	line=$(grep -m1 '^robotmail: error: ' "$ERR")
	if [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then
		why="timed out after ${BADINPUT_TIMEOUT}s"
	elif [ "$RC" -ge 128 ]; then
		why="crashed: exit code $RC"
	elif ! sanitizer_clean; then
		why="sanitizer report"
	elif [ "$RC" -ne "$want" ]; then
		why="exit code $RC, expected $want"
	elif [ "$lines" -ne 1 ]; then
		why="$lines 'robotmail: error:' lines on stderr, expected exactly 1"
	elif ! grep -Eq -- "$re" <<<"$line"; then
		why="error line does not match /$re/"
	elif grep -q '(null)' <<<"$line"; then
		why="error line prints a NULL string as '(null)'"
	fi
	if [ -z "$why" ]; then
		ok "$name"
	else
		not_ok "$name" "$why" "command: robotmail $*" "stderr:" "$(head -c 3000 "$ERR")"
	fi
}

# expect_ok NAME ARGS...: exit 0, no error line, no sanitizer report
expect_ok() {
	local name=$1 why=""
	shift
	run "$@"
	if [ "$RC" -ne 0 ]; then
		why="exit code $RC, expected 0"
	elif grep -q '^robotmail: error: ' "$ERR"; then
		why="an error line on stderr"
	elif ! sanitizer_clean; then
		why="sanitizer report"
	fi
	if [ -z "$why" ]; then
		ok "$name"
		return 0
	fi
	not_ok "$name" "$why" "command: robotmail $*" "stderr:" "$(head -c 3000 "$ERR")"
	return 1
}

# copy NAME: a fresh copy of the valid tree at $T/NAME; sets C, CA, CB
copy() {
	C=$T/$1
	cp -a "$T/valid" "$C"
	CA=$C/$RR/$A
	CB=$C/$RR/$B
}

# tarball OUT [tarfile-spec ...]: the valid tree as a tar plus extra members
# written by python's tarfile (which writes what GNU tar refuses to).  Each
# spec is KIND:NAME[:ARG] with KIND file (ARG = content), symlink/hardlink
# (ARG = target), fifo, chardev, or dup (a second copy of NAME).
tarball() {
	"$PY" - "$T/valid" "$@" <<'EOF'
import io, os, sys, tarfile
src, out, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
with tarfile.open(out, "w", format=tarfile.GNU_FORMAT) as t:
    t.add(os.path.join(src, "result"), arcname="result")
    for spec in specs:
        kind, name, arg = (spec.split(":", 2) + [""])[:3]
        ti = tarfile.TarInfo(name)
        ti.mtime = 1760491300
        if kind in ("file", "dup"):
            data = arg.encode() if kind == "file" else open(os.path.join(src, name), "rb").read()
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
            continue
        ti.type = {"symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE,
                   "fifo": tarfile.FIFOTYPE, "chardev": tarfile.CHRTYPE}[kind]
        ti.linkname = arg
        t.addfile(ti)
EOF
}

# ------------------------------------------------------------ the valid tree itself
if expect_ok "valid section-8 tree compares (exit 0, no error)" compare "$T/valid"; then
	cp "$OUT" "$T/valid.out"
	if grep -q 'stress-ng.mlockmany.ops_per_sec' "$T/valid.out" &&
		[ "$(grep -c 'stress-ng\.' "$T/valid.out")" -eq 4 ]; then
		ok "valid tree prints the four changed stats of the spec example"
	else
		not_ok "valid tree prints the four changed stats of the spec example" "$(cat "$T/valid.out")"
	fi
else
	: >"$T/valid.out"
fi

# ------------------------------------------------------------ command line
run
if [ "$RC" -eq 2 ] && grep -q '^usage: ' "$ERR" && [ ! -s "$OUT" ] && sanitizer_clean; then
	ok "no arguments: exit 2, usage on stderr, nothing on stdout"
else
	not_ok "no arguments: exit 2, usage on stderr, nothing on stdout" "exit $RC" "$(cat "$ERR")"
fi
expect_error "compare without an archive: exit 2, says an ARCHIVE is expected" 2 \
	"compare: expected an ARCHIVE" compare
expect_error "unknown option: exit 2, names the option" 2 "bogus-option" compare --bogus-option "$T/valid"
expect_error "unknown command: exit 2, names the command" 2 "unknown command 'frobnicate'" frobnicate
expect_error "nonexistent path: exit 1, names the path" 1 "'$T/no/such/archive.tar.gz'.*No such file" \
	compare "$T/no/such/archive.tar.gz"
expect_error "missing --metrics file: exit 2, names the file" 2 "$T/no-metrics.yaml" \
	compare --metrics "$T/no-metrics.yaml" "$T/valid"

# --base/--head (README: they override the pairing; an unknown commit exits 1)
expect_error "--head naming no commit of the archive: exit 1, names the value and the commits" 1 \
	"'$T/valid': --head 'zzzz' names no commit compared in '$RR' \\(819bfbd47e49, 8d596d8b81ef\\)" \
	compare --head zzzz "$T/valid"
expect_error "--base naming no commit of the archive: exit 1, names the value" 1 \
	"'$T/valid': --base '0123abc' names no commit compared in '$RR'" compare --base 0123abc "$T/valid"
expect_error "--base naming the head from job.yaml: exit 1, names the head commit" 1 \
	"'$T/valid': --base '${B:0:8}' names the head commit $B of '$RR'" compare --base "${B:0:8}" "$T/valid"
expect_error "--base and --head naming the same commit: exit 1" 1 \
	"--base '${A:0:8}' names the head commit $A .*--head" compare --base "${A:0:8}" --head "$A" "$T/valid"
if expect_ok "--base/--head naming the default pairing: exit 0" compare --base "${A:0:12}" --head "$B" "$T/valid"; then
	same_file "--base/--head naming the default pairing: the same table" "$T/valid.out" "$OUT"
fi
expect_error "--head naming no commit of BASE_DIR HEAD_DIR: exit 1, names the value" 1 \
	"^robotmail: error: --head 'zzzz' names no commit compared" compare --head zzzz "$VA" "$VB"
expect_error "--base naming HEAD_DIR's commit: exit 1" 1 \
	"--base '${B:0:12}' names the head commit $B" compare --base "${B:0:12}" "$VA" "$VB"
if expect_ok "--head naming BASE_DIR's commit: exit 0" compare --head "${A:0:12}" "$VA" "$VB"; then
	if [ "$(sed -n '6,7p' "$OUT" | tr -d ' ' | tr '\n' ' ')" = "$B $A " ]; then
		ok "--head naming BASE_DIR's commit: BASE_DIR becomes the head column"
	else
		not_ok "--head naming BASE_DIR's commit: BASE_DIR becomes the head column" "$(head -8 "$OUT")"
	fi
fi
copy ambiguous
C3=$C/$RR/8d596d8b00000000000000000000000000000000
cp -a "$CA" "$C3"
sed -i "s/^commit: .*/commit: 8d596d8b00000000000000000000000000000000/" "$C3"/*/job.yaml
expect_error "--head prefix that starts two commits: exit 1, says ambiguous" 1 \
	"--head '8d596d8b' is ambiguous: it starts more than one commit compared in '$RR'" \
	compare --head 8d596d8b "$C"

# ------------------------------------------------------------ job.yaml
copy badyaml
printf 'testcase: [stress-ng\ncommit: {a: b\n' >"$CB/0/job.yaml"
expect_error "corrupt job.yaml (bad YAML): names the file, line and 'invalid YAML'" 1 \
	"$B/0/job\\.yaml' line [0-9]+ .*invalid YAML" compare "$C"

copy yamllist
printf -- '- testcase: stress-ng\n- commit: %s\n' "$B" >"$CB/0/job.yaml"
expect_error "job.yaml that is a list: names the file, expects a mapping" 1 \
	"$B/0/job\\.yaml' line 1: expected a mapping" compare "$C"

copy yamlempty
: >"$CB/0/job.yaml"
expect_error "empty job.yaml: names the file, expects a mapping" 1 \
	"$B/0/job\\.yaml'.*expected a mapping" compare "$C"

copy yamlnul
sed -i 's/^testcase: stress-ng/testcase: "stress\\0ng"/' "$CB/0/job.yaml"
expect_error "job.yaml with a NUL byte in a value: names the file and the key" 1 \
	"$B/0/job\\.yaml' line [0-9]+: NUL byte in 'testcase'" compare "$C"

copy badcommit
sed -i 's|^commit: .*|commit: ../../etc/passwd|' "$CB/0/job.yaml"
expect_error "job.yaml with a commit that is a path: refused as not a commit id" 1 \
	"$B/0/job\\.yaml': commit '\\.\\./\\.\\./etc/passwd' is not a commit id" compare "$C"

copy uppercommit
UB=$(tr a-f A-F <<<"$B")
mv "$CB" "$C/$RR/$UB"
sed -i "s/$B/$UB/" "$C/$RR/$UB"/*/job.yaml "$CA"/*/job.yaml
expect_error "uppercase commit SHA: refused, names the file and the commit (40 lowercase hex expected)" 1 \
	"$UB/0/job\\.yaml': commit '$UB' is not a commit id: uppercase hex digits; expected 40 lowercase hex digits" \
	compare "$C"

copy uppercommitdir
UB=$(tr a-f A-F <<<"$B")
mv "$CB" "$C/$RR/$UB"
sed -i "/^commit:/d" "$C/$RR/$UB"/*/job.yaml
expect_error "uppercase commit directory (job.yaml without commit): refused" 1 \
	"commit '$UB' is not a commit id: uppercase hex digits" compare "$C"

copy shortcommit
sed -i "s/^commit: .*/commit: ${B:0:12}/" "$CB"/*/job.yaml
expect_error "12-digit commit: refused (a commit is exactly 40 lowercase hex digits)" 1 \
	"$B/0/job\\.yaml': commit '${B:0:12}' is not a commit id: 12 hex digits; expected 40" compare "$C"

copy tagcommit
sed -i "s/^commit: .*/commit: v6.17-rc1/" "$CB"/*/job.yaml
sed -i "s/^head_commit: .*/head_commit: v6.17-rc1/" "$CA"/*/job.yaml "$CB"/*/job.yaml
if expect_ok "a tag as the commit (a local run) is still accepted" compare "$C"; then
	if grep -qx '  v6.17-rc1' "$OUT"; then
		ok "a tag as the commit: shown in the commit: lines"
	else
		not_ok "a tag as the commit: shown in the commit: lines" "$(head -10 "$OUT")"
	fi
fi

copy aliasbomb
"$PY" - "$CB/0/job.yaml" <<'EOF'
import sys
p = sys.argv[1]
lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
lines += ["a%d: &a%d [%s]" % (i, i, ", ".join(["*a%d" % (i - 1)] * 10)) for i in range(1, 12)]
s = open(p).read().replace("nr_threads: 100%", "\n".join(lines) + "\nnr_threads: *a11")
open(p, "w").write(s)
EOF
# 10^12 scalars through aliases: refuse or cap, but never expand
RUN_TIMEOUT=20 run compare "$C"
if [ "$RC" -lt 2 ] && sanitizer_clean && [ "$(grep -c '^robotmail: error: ' "$ERR")" -eq "$RC" ]; then
	ok "job.yaml alias bomb (billion laughs in a parameter) ends within 20 s, no crash"
else
	not_ok "job.yaml alias bomb (billion laughs in a parameter) ends within 20 s, no crash" \
		"exit code $RC (124 = timed out)" "$(head -c 2000 "$ERR")"
fi

# ------------------------------------------------------------ matrix.json, stats.json
copy truncjson
head -c 300 "$VA/matrix.json" >"$CA/matrix.json"
expect_error "truncated matrix.json: names the file, line and 'invalid JSON'" 1 \
	"$A/matrix\\.json' line [0-9]+ column [0-9]+: invalid JSON" compare "$C"

copy stringstat
sed -i 's/"stress-ng.mlockmany.ops": \[/"stress-ng.mlockmany.ops": "1043210", "x": [/' "$CA/matrix.json"
expect_error "matrix.json with a string where an array is expected: names file and stat" 1 \
	"$A/matrix\\.json': stat 'stress-ng\\.mlockmany\\.ops': expected an array" compare "$C"

copy stringsource
"$PY" - "$CA/matrix.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["stats_source"] = "/result/0/stats.json"
json.dump(m, open(sys.argv[1], "w"))
EOF
expect_error "matrix.json with a string stats_source: names file and key" 1 \
	"$A/matrix\\.json': 'stats_source': expected an array" compare "$C"

copy arraymatrix
echo '[1, 2, 3]' >"$CA/matrix.json"
expect_error "matrix.json that is an array: expects an object" 1 \
	"$A/matrix\\.json': expected a JSON object" compare "$C"

copy badstats
rm "$CA/matrix.json"
echo '["not", "an", "object"]' >"$CA/1/stats.json"
expect_error "stats.json that is not an object (no matrix.json): names the run's file" 1 \
	"$A/1/stats\\.json': expected a JSON object" compare "$C"

copy dupkeys
sed -i 's/"vmstat.system.cs": \[/"vmstat.system.cs": [1], "vmstat.system.cs": [/' "$CA/matrix.json"
expect_error "matrix.json with a duplicated key: names the file" 1 \
	"$A/matrix\\.json' line [0-9]+ .*invalid JSON.*duplicate" compare "$C"

# the same refusals from a .tar.gz: its matrix.json is streamed while the
# tarball is read, and what the stream cannot settle is read again whole, so
# the error line is the directory's (the tarball named for the directory)
for t in truncjson stringstat stringsource dupkeys; do
	run compare "$T/$t"
	want=$(grep -m1 '^robotmail: error: ' "$ERR")
	want=${want//"$T/$t/"/@}
	(cd "$T/$t" && tar -czf "$T/$t.tar.gz" result)
	run compare "$T/$t.tar.gz"
	got=$(grep -m1 '^robotmail: error: ' "$ERR")
	got=${got//"$T/$t.tar.gz/"/@}
	if [ "$RC" -eq 1 ] && sanitizer_clean && [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "$t as a .tar.gz: the directory's error line"
	else
		not_ok "$t as a .tar.gz: the directory's error line" "exit code $RC" "want: $want" \
			"got:  $got"
	fi
done

# a ".pass" stat whose stem is regex syntax makes every matrix be read again
# with no row dropped (matrix.h): from a .tar.gz that reads the tarball again
copy regexstem
for m in "$CA/matrix.json" "$CB/matrix.json"; do
	sed -i 's/"vmstat.system.cs": \[/"foo.a+b.pass": [1, 1, 1], "interrupts.CPU0.LOC:Local_timer_interrupts": [5, 5, 5], "vmstat.system.cs": [/' "$m"
done
run compare "$C"
cp "$OUT" "$T/regexstem.dir"
dir_rc=$RC
(cd "$C" && tar -czf "$T/regexstem.tar.gz" result)
run compare "$T/regexstem.tar.gz"
if [ "$dir_rc" -eq 0 ] && [ "$RC" -eq 0 ] && sanitizer_clean && [ -s "$OUT" ] &&
	cmp -s "$OUT" "$T/regexstem.dir"; then
	ok "a regex-stem .pass stat in a .tar.gz: the directory's table (the tarball read again)"
else
	not_ok "a regex-stem .pass stat in a .tar.gz: the directory's table (the tarball read again)" \
		"exit codes $dir_rc, $RC" "$(diff "$T/regexstem.dir" "$OUT" | head -10)" "$(head -5 "$ERR")"
fi

copy gzbomb
"$PY" - "$CB/matrix.json.gz" <<'EOF'
import sys, zlib
# 300 MiB of spaces, gzip-compressed in chunks (~300 KiB on disk)
c = zlib.compressobj(9, zlib.DEFLATED, 31)
chunk = b" " * (1 << 20)
with open(sys.argv[1], "wb") as f:
    f.write(c.compress(b'{"a": ['))
    for _ in range(300):
        f.write(c.compress(chunk))
    f.write(c.compress(b"1]}") + c.flush())
EOF
expect_error "matrix.json.gz that inflates past the member limit: refused, names the file" 1 \
	"$B/matrix\\.json\\.gz'.*(more than|larger than|limit)" compare "$C"

copy nan
"$PY" - "$CA/matrix.json" "$CB/matrix.json" <<'EOF'
import json, sys
for p, stat in ((sys.argv[1], "vmstat.system.cs"), (sys.argv[2], "stress-ng.mlockmany.ops_per_sec")):
    m = json.load(open(p))
    m[stat][1] = float("nan")
    m["vmstat.system.cs"][0] = float("inf") if p == sys.argv[1] else float("-inf")
    json.dump(m, open(p, "w"), indent=2)  # Python writes NaN/Infinity like Ruby's allow_nan
EOF
if grep -q 'NaN' "$CB/matrix.json" && expect_ok "matrix.json with NaN/Infinity tokens is accepted (exit 0)" compare "$C"; then
	if grep -q 'stress-ng.mlockmany.ops_per_sec' "$OUT"; then
		not_ok "the stat holding NaN is left out of the table" "$(cat "$OUT")"
	else
		ok "the stat holding NaN is left out of the table"
	fi
	if grep -q 'stress-ng.mlockmany.ops$' "$OUT" && grep -q 'stress-ng.time.user_time$' "$OUT"; then
		ok "the other stats of a matrix with NaN are still compared"
	else
		not_ok "the other stats of a matrix with NaN are still compared" "$(cat "$OUT")"
	fi
	if grep -q '^robotmail: warning: .*NaN' "$ERR"; then
		ok "NaN/Infinity left out: a warning on stderr"
	else
		not_ok "NaN/Infinity left out: a warning on stderr" "$(cat "$ERR")"
	fi
fi

# ------------------------------------------------------------ matrix rules (archive-format.md 2.4)
copy nosource
"$PY" - "$CB/matrix.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
del m["stats_source"]
# after the first stat, one array longer than the others: without
# stats_source the run count is max(len(first), len(last)) = 3, not 5
out = {}
for i, k in enumerate(m):
    out[k] = m[k]
    if i == 0:
        out["interrupts.CPU0.LOC"] = [1, 2, 3, 4, 5]
json.dump(out, open(sys.argv[1], "w"), indent=2)
EOF
if expect_ok "matrix.json without stats_source: exit 0" compare "$C"; then
	same_file "matrix.json without stats_source: runs = max(len(first array), len(last array)), not the longest" \
		"$T/valid.out" "$OUT"
fi

copy unitecleanup
rm "$CA/matrix.json" "$CB/matrix.json"
"$PY" - "$CA" "$CB" <<'EOF'
import json, sys
# stats.json only: the united matrix gets unite_to's clean-up, so the base
# loses its all-Integer-0 stat and the per-CPU sched_debug key; a Float 0.0
# stat is not Integer 0 and stays
for side, d in enumerate(sys.argv[1:3]):
    for r in range(3):
        p = "%s/%d/stats.json" % (d, r)
        s = json.load(open(p))
        s["stress-ng.mlockmany.zero"] = 50000 if side else 0
        s["stress-ng.mlockmany.fzero"] = 50000 if side else 0.0
        s["sched_debug.cpu.nr_running.3"] = 5.0 + r / 10 if side else 1.0 + r / 10
        json.dump(s, open(p, "w"), indent=2)
EOF
if expect_ok "stats.json only, with zero and per-CPU keys: exit 0" compare "$C"; then
	if grep -q 'stress-ng\.mlockmany\.zero$\|sched_debug\.cpu\.nr_running\.3$' "$OUT"; then
		not_ok "stats.json only: keys all Integer 0 and ^sched_debug.*\\.[0-9]+\$ keys are dropped" "$(cat "$OUT")"
	else
		ok "stats.json only: keys all Integer 0 and ^sched_debug.*\\.[0-9]+\$ keys are dropped"
	fi
	if grep -q '^      0\.00  .*50000        stress-ng\.mlockmany\.fzero$' "$OUT"; then
		ok "stats.json only: a stat of Float 0.0 values is kept"
	else
		not_ok "stats.json only: a stat of Float 0.0 values is kept" "$(cat "$OUT")"
	fi
	grep -v 'stress-ng\.mlockmany\.fzero$' "$OUT" >"$OUT.rest"
	same_file "stats.json only, with zero and per-CPU keys: the other rows as in the valid tree" \
		"$T/valid.out" "$OUT.rest"
fi

copy statsarray
rm "$CB/matrix.json"
"$PY" - "$CB/0/stats.json" <<'EOF'
import json, sys
# one run's stat holds an array instead of one number
s = json.load(open(sys.argv[1]))
s["stress-ng.mlockmany.ops"] = [1126061] * 5
json.dump(s, open(sys.argv[1], "w"), indent=2)
EOF
if expect_ok "stats.json with an array value: exit 0" compare -v "$C"; then
	grep -v 'stress-ng\.mlockmany\.ops$' "$T/valid.out" >"$T/statsarray.expected"
	same_file "stats.json with an array value: that stat is left out, the other runs keep their columns" \
		"$T/statsarray.expected" "$OUT"
	if grep -q "^robotmail: warning: '.*$B/0/stats\\.json': stat 'stress-ng\\.mlockmany\\.ops': expected one number, found an array" "$ERR"; then
		ok "stats.json with an array value: a warning names the file and the stat"
	else
		not_ok "stats.json with an array value: a warning names the file and the stat" "$(cat "$ERR")"
	fi
fi

# ------------------------------------------------------------ control characters and white space
copy ctrlstat
"$PY" - "$CA/matrix.json" "$CB/matrix.json" <<'EOF'
import json, sys
for p in sys.argv[1:]:
    m = json.load(open(p))
    m["stress-ng.x\ny\u001b[31m.ops"] = m["stress-ng.mlockmany.ops"]
    json.dump(m, open(p, "w"), indent=2)
EOF
expect_error "matrix.json stat name with LF and ESC: refused, names file and stat (escaped)" 1 \
	"$A/matrix\\.json': stat 'stress-ng\\.x\\\\ny\\\\x1b\\[31m\\.ops': expected a stat name without white space or control characters" \
	compare "$C"
if ! grep -q $'\x1b' "$ERR" && [ "$(wc -l <"$ERR")" -eq 1 ]; then
	ok "the error about a stat name carries no control character itself"
else
	not_ok "the error about a stat name carries no control character itself" "$(cat -A "$ERR")"
fi

copy tabstat
rm "$CA/matrix.json"
"$PY" - "$CA/1/stats.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["vmstat.a\tb"] = 1
json.dump(s, open(sys.argv[1], "w"), indent=2)
EOF
expect_error "stats.json stat name with a TAB (no matrix.json): refused, names the run's file" 1 \
	"$A/1/stats\\.json': stat 'vmstat\\.a\\\\tb': expected a stat name without white space" compare "$C"

copy spacestat
"$PY" - "$CB/matrix.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["stress-ng.mlockmany.ops per sec"] = [1, 2, 3]
json.dump(m, open(sys.argv[1], "w"), indent=2)
EOF
expect_error "matrix.json stat name with a space: refused (stat names never contain white space)" 1 \
	"$B/matrix\\.json': stat 'stress-ng\\.mlockmany\\.ops per sec': expected a stat name without white space.*U\\+0020" \
	compare "$C"

copy ctrlparam
sed -i 's/^  test: mlockmany$/  test: "mlock\\nmany\\a"/' "$CB"/*/job.yaml
expect_error "job.yaml parameter value with LF and BEL: refused, names file, line and key" 1 \
	"$B/0/job\\.yaml' line [0-9]+: control character U\\+000A in the value of 'test'" compare "$C"

copy ctrlfield
sed -i 's/^kconfig: x86_64-rhel-9.4$/kconfig: "x86_64\\e[2Jrhel"/' "$CA"/*/job.yaml
expect_error "job.yaml top-level value with ESC: refused, names file, line and key" 1 \
	"$A/0/job\\.yaml' line [0-9]+: control character U\\+001B in the value of 'kconfig'" compare "$C"

copy ctrlkey
printf '"cpu\\tfreq": x\n' >>"$CB/0/job.yaml"
expect_error "job.yaml key with a TAB: refused, names the key escaped" 1 \
	"$B/0/job\\.yaml' line [0-9]+: control character U\\+0009 in the key 'cpu\\\\tfreq'" compare "$C"

copy c1param
sed -i 's/^  test: mlockmany$/  test: "mlock\\u0085many"/' "$CA"/*/job.yaml "$CB"/*/job.yaml
expect_error "job.yaml value with a C1 control (U+0085): refused" 1 \
	"$A/0/job\\.yaml' line [0-9]+: control character U\\+0085 in the value of 'test'" compare "$C"

copy utf8param
sed -i 's/^  test: mlockmany$/  test: "mlöck—many µ"/' "$CA"/*/job.yaml "$CB"/*/job.yaml
if expect_ok "job.yaml with UTF-8 text in a value: exit 0" compare "$C"; then
	if grep -qx '  gcc-14/performance/x86_64-rhel-9\.4/100%/debian-13-x86_64-20250902\.cgz/lkp-emr-2sp1/mlöck—many µ/stress-ng/60s' "$OUT"; then
		ok "job.yaml with UTF-8 text in a value: the value reaches the table header unchanged"
	else
		not_ok "job.yaml with UTF-8 text in a value: the value reaches the table header unchanged" "$(head -5 "$OUT")"
	fi
fi

# ------------------------------------------------------------ directory trees
mkdir "$T/empty"
expect_error "empty directory: no result roots, names the directory" 1 \
	"'$T/empty': no LKP result roots found" compare "$T/empty"

copy onecommit
rm -r "$CB"
expect_error "directory with only one commit: nothing to compare" 1 \
	"'$C': no two commits with the same test axes to compare" compare "$C"

copy threecommits
C3=$C/$RR/0123456789abcdef0123456789abcdef01234567
cp -a "$CA" "$C3"
sed -i "s/^commit: .*/commit: 0123456789abcdef0123456789abcdef01234567/" "$C3"/*/job.yaml
sed -i '/^head_commit:/d' "$C"/$RR/*/*/job.yaml
expect_error "three commits and no head_commit: cannot tell base from head" 1 \
	"cannot tell base from head.*--base and --head" compare "$C"

copy symlinkjob
ln -sf /etc/passwd "$CB/0/job.yaml"
if expect_ok "job.yaml that is a symlink to /etc/passwd is not read (exit 0)" compare "$C"; then
	if cmp -s "$T/valid.out" "$OUT" && ! grep -q 'root:' "$OUT" "$ERR"; then
		ok "job.yaml symlink treated as absent: same table as without that run's job.yaml"
	else
		not_ok "job.yaml symlink treated as absent: same table as without that run's job.yaml" \
			"$(diff "$T/valid.out" "$OUT" | head -20)"
	fi
fi

copy symlinkdir
mkdir -p "$T/elsewhere"
cp -a "$CA" "$T/elsewhere/$A"
rm -r "$CA"
ln -s "$T/elsewhere/$A" "$CA"
expect_error "commit directory that is a symlink is not followed (then one commit only)" 1 \
	"no two commits with the same test axes" compare "$C"

copy fifo
rm "$CA/matrix.json"
mkfifo "$CA/matrix.json"
if expect_ok "a FIFO named matrix.json is skipped, not opened (no hang)" compare "$C"; then
	same_file "a FIFO matrix.json falls back to the runs' stats.json: same table" "$T/valid.out" "$OUT"
fi

# a run's reproduction materials: compare sizes them without reading them
# (rm_archive_opts.no_materials), with the limit and message of a read
copy bigmaterial
truncate -s 257M "$CB/0/reproduce.sh"
expect_error "a run's reproduce.sh above 256 MiB (sparse): compare refuses it unread, naming the file and the limit" 1 \
	"cannot read '.*/0/reproduce\\.sh': '.*/0/reproduce\\.sh': file too large \\(269484032 bytes, limit 268435456\\)" \
	compare "$C"

copy bigjob
truncate -s 257M "$CB/0/job.yaml"
expect_error "a run's job.yaml above 256 MiB (sparse): refused, naming the file and the limit" 1 \
	"cannot read '.*/0/job\\.yaml': '.*/0/job\\.yaml': file too large \\(269484032 bytes, limit 268435456\\)" \
	compare "$C"

copy materialtypes
mkfifo "$CB/0/job.sh"
ln -s /etc/passwd "$CB/1/reproduce.sh"
printf 'CONFIG_X=y\n' > "$CB/2/config-6.18.0"
if expect_ok "a run's job.sh that is a FIFO and reproduce.sh that is a symlink are skipped (no hang)" compare "$C"; then
	same_file "FIFO, symlink and config materials change nothing in compare's table" "$T/valid.out" "$OUT"
fi

# ------------------------------------------------------------ tarballs
tarball "$T/dotdot.tar" "file:result/../../evil/0/job.yaml:testcase: x"
expect_error "tarball with a '../' member: refused, names the member" 1 \
	"dotdot\\.tar': member 'result/\\.\\./\\.\\./evil/0/job\\.yaml' leaves the archive" \
	compare "$T/dotdot.tar"

tarball "$T/absolute.tar" "file:/etc/robotmail-evil/0/job.yaml:testcase: x"
expect_error "tarball with an absolute path member: refused, names the member" 1 \
	"absolute\\.tar': member '/etc/robotmail-evil/0/job\\.yaml' has an absolute path" \
	compare "$T/absolute.tar"

tarball "$T/symlink.tar" "symlink:result/x/$A/0/job.yaml:/etc/passwd"
expect_error "tarball with a symlink member: refused, names the member" 1 \
	"symlink\\.tar': member 'result/x/$A/0/job\\.yaml' is a link" compare "$T/symlink.tar"

tarball "$T/hardlink.tar" "hardlink:result/x/$A/0/job.yaml:$RR/$A/0/job.yaml"
expect_error "tarball with a hardlink member: refused, names the member" 1 \
	"hardlink\\.tar': member 'result/x/$A/0/job\\.yaml' is a link" compare "$T/hardlink.tar"

tarball "$T/fifo.tar" "fifo:result/x/$A/0/stats.json"
expect_error "tarball with a FIFO member: refused, names the member" 1 \
	"fifo\\.tar': member 'result/x/$A/0/stats\\.json' is a device, FIFO or socket" compare "$T/fifo.tar"

tarball "$T/chardev.tar" "chardev:result/dev/zero"
expect_error "tarball with a character device member: refused, names the member" 1 \
	"chardev\\.tar': member 'result/dev/zero' is a device" compare "$T/chardev.tar"

tarball "$T/dup.tar" "dup:$RR/$B/matrix.json"
expect_error "tarball with the same member twice: refused, names the member" 1 \
	"dup\\.tar': member '$RR/$B/matrix\\.json' appears twice" compare "$T/dup.tar"

# 10 GB sparse member: the tar holds a sparse map, a few KB on disk; robotmail
# must refuse from the header without inflating the holes.
mkdir -p "$T/sparse/result/x/$A/0"
if truncate -s 10G "$T/sparse/result/x/$A/0/stats.json" &&
	tar -C "$T/sparse" -cSf "$T/sparse.tar" result &&
	[ "$(stat -c %s "$T/sparse.tar")" -lt 1048576 ]; then
	rm -rf "$T/sparse"
	start=$(date +%s)
	expect_error "10 GB sparse tar member: refused from its header, names member and size" 1 \
		"sparse\\.tar': member 'result/x/$A/0/stats\\.json' declares 10737418240 bytes" \
		compare "$T/sparse.tar"
	if [ $(($(date +%s) - start)) -le 10 ]; then
		ok "10 GB sparse tar member: refused within seconds (the data is not read)"
	else
		not_ok "10 GB sparse tar member: refused within seconds (the data is not read)" \
			"took $(($(date +%s) - start)) s"
	fi
else
	rm -rf "$T/sparse"
	not_ok "10 GB sparse tar member: test setup (truncate + tar -cSf)" "could not build a small sparse tar"
fi

# a run's stats.json that comes before its commit's matrix.json is skipped
# while the tarball is read; read in a second pass when no matrix.json came
copy tarnomatrix
rm "$CA/matrix.json"
run compare "$C"
cp "$OUT" "$T/tarnomatrix.dir.out"
(cd "$C" && find result -name stats.json | sort && find result -name job.yaml | sort &&
	find result -name matrix.json) >"$T/tarnomatrix.list"
tar -C "$C" -cf "$T/tarnomatrix.tar" --no-recursion -T "$T/tarnomatrix.list"
if expect_ok "tarball whose runs' stats.json come first and one commit has no matrix.json" \
	compare "$T/tarnomatrix.tar"; then
	same_file "runs' stats.json read in a second pass: same table as the directory" \
		"$T/tarnomatrix.dir.out" "$OUT"
fi
first=$(head -1 "$T/tarnomatrix.list")
tar -C "$C" -cf "$T/tarskip.tar" --no-recursion -T "$T/tarnomatrix.list"
cut=$("$PY" -c 'import sys, tarfile
m = tarfile.open(sys.argv[1]).getmembers()[0]
print(m.offset_data + m.size // 2)' "$T/tarskip.tar")
head -c "$cut" "$T/tarskip.tar" >"$T/tarskip2.tar"
expect_error "tar cut inside a run's stats.json that is skipped, not read: names the member, says truncated" 1 \
	"tarskip2\\.tar': member '$first': corrupt or truncated" compare "$T/tarskip2.tar"

tar -C "$T/valid" -czf "$T/trunc.tar.gz" result
head -c $(($(stat -c %s "$T/trunc.tar.gz") * 2 / 3)) "$T/trunc.tar.gz" >"$T/trunc2.tar.gz"
expect_error "truncated .tar.gz: names the archive, says truncated" 1 \
	"trunc2\\.tar\\.gz'.*truncated" compare "$T/trunc2.tar.gz"

tar -C "$T/valid" -cf "$T/trunc.tar" result
head -c 9000 "$T/trunc.tar" >"$T/trunc2.tar"
expect_error "truncated .tar (cut inside a member): names the archive, says truncated" 1 \
	"trunc2\\.tar'.*truncated" compare "$T/trunc2.tar"

# cut right after a GNU long-name header block: libarchive fails without an
# error string, which must not reach the message as "(null)"
"$PY" - "$T/longname.tar" <<'EOF'
import io, sys, tarfile
b = io.BytesIO()
with tarfile.open(fileobj=b, mode="w", format=tarfile.GNU_FORMAT) as t:
    ti = tarfile.TarInfo("result/" + "x" * 150 + "/0/job.yaml")
    data = b"testcase: x\n"
    ti.size = len(data)
    t.addfile(ti, io.BytesIO(data))
open(sys.argv[1], "wb").write(b.getvalue()[:512])
EOF
expect_error "tar truncated inside a GNU long-name header: names the archive, no '(null)'" 1 \
	"longname\\.tar'" compare "$T/longname.tar"

"$PY" -c 'import random, sys; r = random.Random(42); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(8192)))' \
	>"$T/random.tar.gz"
expect_error "random bytes named .tar.gz: not an archive, names the file" 1 \
	"random\\.tar\\.gz': not a result directory or tar archive" compare "$T/random.tar.gz"

printf 'This is a text file, not a result archive.\nSecond line.\n' >"$T/notes.txt"
expect_error "text file: not an archive, names the file" 1 \
	"notes\\.txt': not a result directory or tar archive" compare "$T/notes.txt"

: >"$T/empty.tar"
expect_error "empty file: not an archive or no result roots, names the file" 1 \
	"empty\\.tar': (not a result directory or tar archive|no LKP result roots)" compare "$T/empty.tar"

# ------------------------------------------------------------ compressions
# every compression of the valid tree prints the same tables as the directory
check_compressions() { # LABEL DIR EXPECTED_OUT
	local label=$1 dir=$2 want=$3 ext flag
	for ext in tar tar.gz tar.xz tar.zst; do
		case $ext in
		tar) flag= ;;
		tar.gz) flag=--gzip ;;
		tar.xz) flag=--xz ;;
		tar.zst) flag=--zstd ;;
		esac
		if [ "$ext" = tar.zst ] && ! command -v zstd >/dev/null; then
			ok "$label .$ext: same stdout as the directory # SKIP zstd not installed"
			continue
		fi
		rm -f "$T/c.$ext"
		if ! (cd "$dir" && tar $flag -cf "$T/c.$ext" .); then
			not_ok "$label .$ext: same stdout as the directory" "tar $flag failed"
			continue
		fi
		if expect_ok "$label .$ext: exit 0" compare "$T/c.$ext"; then
			same_file "$label .$ext: same stdout as the directory" "$want" "$OUT"
		fi
	done
}
check_compressions "valid tree as" "$T/valid" "$T/valid.out"

# the shared fixtures too, when their generator is there
if [ -f tests/gen-fixtures.py ] && "$PY" tests/gen-fixtures.py "$T/fixtures" >/dev/null 2>&1; then
	for d in "$T"/fixtures/*/; do
		d=${d%/}
		f=$(basename "$d")
		[ "$f" = bench ] && continue
		if expect_ok "fixture $f: directory compares" compare "$d"; then
			cp "$OUT" "$T/fixture-$f.out"
			check_compressions "fixture $f as" "$d" "$T/fixture-$f.out"
		fi
	done
fi
