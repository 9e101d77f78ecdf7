#!/bin/sh
# tests/peers/make-bench-repo.sh DIR N
#
# Creates a deterministic git repository in DIR (which must not exist or be
# empty) holding N small linear commits on master, in one `git fast-import`
# run (1000 commits take well under a second).  Commit i changes one of 64
# small files under mm/ and carries a kernel-style message with trailers;
# names, e-mails and dates are fixed and no user or system git configuration
# is read, so the SHAs are the same on every run and machine.  On success
# prints only the manifest on stdout, one "<sha> <subject>" line per commit,
# oldest first (the format of make-test-repo.sh).  The repository is made
# world-readable (cgit's CGI may run as nobody).
set -eu

if [ $# -ne 2 ] || ! [ "$2" -ge 1 ] 2>/dev/null; then
	echo "usage: $0 DIR N   (N >= 1 commits)" >&2
	exit 2
fi
DIR=$1
N=$2
if [ -e "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then
	echo "$0: $DIR exists and is not empty" >&2
	exit 1
fi
mkdir -p "$DIR"

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE \
	GIT_TEMPLATE_DIR 2>/dev/null || true
export TZ=UTC LC_ALL=C

cd "$DIR"
g() {
	git -c user.name="Mm Maintainer" -c user.email=maint@example.org \
		-c commit.gpgsign=false -c core.autocrlf=false -c core.hooksPath=/dev/null \
		-c init.defaultBranch=master -c advice.detachedHead=false "$@"
}
g init -q --template= .

# the fast-import stream: every length is a byte count (LC_ALL=C)
awk -v n="$N" 'BEGIN {
	t = 1760000000
	split("Ann Author:ann|Bob Builder:bob|Carl Coder:carl|Dora Dev:dora|Eve Side:eve", who, "|")
	for (i = 1; i <= n; i++) {
		split(who[(i - 1) % 5 + 1], w, ":")
		f = sprintf("mm/bench%02d.c", (i - 1) % 64)
		subj = sprintf("mm/bench%02d: step %d of the bench series", (i - 1) % 64, i)
		msg = sprintf("%s\n\nBench commit %d: one small change in %s.\n\nLink: https://lore.kernel.org/r/2025%06d.%d-1-%s@example.org\nSigned-off-by: %s <%s@example.org>\n",
			subj, i, f, i, i, w[2], w[1], w[2])
		body = sprintf("/* %s */\nint bench_step_%d(void) { return %d; }\n", f, i, i)
		printf "commit refs/heads/master\nmark :%d\n", i
		printf "author %s <%s@example.org> %d +0200\n", w[1], w[2], t + i * 600
		printf "committer Mm Maintainer <maint@example.org> %d +0000\n", t + i * 600 + 60
		printf "data %d\n%s\n", length(msg), msg
		printf "M 100644 inline %s\ndata %d\n%s\n", f, length(body), body
	}
}' | g fast-import --quiet
g reset -q --hard master
g log --reverse --format='%H %s' master
chmod -R a+rX .
