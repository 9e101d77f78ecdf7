#!/usr/bin/env bash
# bench-evidence.sh - kernel-log excerpt extraction (bot/evidence.c): MiB/s of
# log and peak RSS, on a generated console log of EVIDENCE_MB MiB (1024) read
# through a pipe with the failure at its very end, and on EVIDENCE_XZ_MB MiB
# (256) xz-compressed on disk.  A benchmark: the figures never fail it; it
# fails when the driver does not build, crashes or misses the excerpt.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}" "${EVIDENCE_MB:=1024}" "${EVIDENCE_XZ_MB:=256}"
W=$(mktemp -d "${TMPDIR:-/tmp}/robotmail-bench-evidence.XXXXXX")
export XDG_CACHE_HOME=$W/xdg-cache # robotmail's rule cache: not the home
trap 'rm -rf "$W"' EXIT
make_var() {
	# shellcheck disable=SC2016 # $(...) is make's, not the shell's
	printf 'rm-print-var:\n\t@echo $(%s)\n' "$1" | make --no-print-directory -s -f Makefile -f - rm-print-var
}
cflags=$(make_var CFLAGS_COMMON) && libs=$(make_var PKG_LIBS) || { echo "evidence: cannot read the Makefile's flags"; exit 1; }
srcs=()
for src in bot/*.c; do [ "$src" = bot/main.c ] || srcs+=("$src"); done
# shellcheck disable=SC2086 # the Makefile's flags are words
if ! ${CC:-cc} $cflags ${CFLAGS:--O2} -iquote bot -o "$W/bench-evidence" tests/bench-evidence.c "${srcs[@]}" $libs 2>"$W/cc.log"; then
	echo "evidence: tests/bench-evidence.c does not build:"; sed 's/^/    /' "$W/cc.log" | head -20; exit 1
fi
status=0
figure() { # LABEL ARGS...
	local label=$1 line
	shift
	if ! line=$("$W/bench-evidence" "$@"); then
		echo "evidence $label: FAILED: $line"; status=1; return
	fi
	awk -v l="$label" '{for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
		printf "evidence %-22s %8.1f MiB of log in %7.2f s = %7.1f MiB/s   peak RSS %6.1f MiB   excerpt %d lines\n",
			l, v["bytes"] / 1048576, v["seconds"], v["mbps"], v["maxrss_kib"] / 1024, v["excerpt_lines"]}' <<<"$line"
}
figure "plain, through a pipe:" plain "$EVIDENCE_MB"
figure "xz file:" xz "$EVIDENCE_XZ_MB" "$W/dmesg.xz"
exit $status
