#!/usr/bin/env bash
# bench-smtp.sh: 1,000 report-sized messages from robotmail's outbox to
# Postfix's smtp-sink, side by side with Postfix's own smtp-source sending as
# many messages of the same size to the same sink.  Prints both throughputs
# and their ratio (target >= 0.8).  A benchmark: it never fails on figures.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}"
N=${SMTP_BENCH_MESSAGES:-1000}
T=$(mktemp -d "${TMPDIR:-/tmp}/robotmail-bench-smtp.XXXXXX")
export XDG_CACHE_HOME=$T/xdg-cache # robotmail's rule cache: not the home
trap 'tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null 2>&1; rm -rf "$T"' EXIT
RM=$PWD/$BUILD/robotmail
tests/peers/make-test-repo.sh "$T/repo" >/dev/null
mkdir -p "$T/inbox"
cp contrib/examples/mincore.tar.xz "$T/inbox/"
PORT=$(tests/peers/smtp-sink.sh start "$T/sink")
cat >"$T/cfg.yaml" <<CFG
include: $PWD/config/profiles/0day.yaml
paths:
  state_db: $T/state.db
  inbox: $T/inbox
  done: $T/done
  failed: $T/failed
  emergency_stop: $T/STOP
trees:
  - name: linus
    branch: master
    url: https://git.kernel.org/cgit/linux/kernel/git/torvalds/linux.git
    provider: local-git
    api: $T/repo
delivery:
  transport: smtp://127.0.0.1:$PORT
  settle: 0
  batch: 100000
CFG
# one real report, queued (the emergency stop keeps it from being sent) ...
touch "$T/STOP"
"$RM" run -c "$T/cfg.yaml" >/dev/null 2>&1
rm "$T/STOP"
# ... copied to N messages with distinct Message-IDs
sqlite3 "$T/state.db" "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < $N)
  INSERT INTO messages (message_id, dedupe_key, tree, subject, mail_from, rcpts, bytes, state, attempts,
                        next_attempt, created_at, updated_at)
  SELECT 'bench-' || i || '@example.org', NULL, tree, subject, mail_from, rcpts, bytes, 'queued', 0, 0,
         created_at, updated_at FROM messages, n WHERE messages.id = 1;"
size=$(sqlite3 "$T/state.db" "SELECT length(bytes) FROM messages WHERE id = 1")
rcpts=$(sqlite3 "$T/state.db" "SELECT rcpts FROM messages WHERE id = 1" | grep -c .)
start=$(date +%s.%N)
"$RM" run -c "$T/cfg.yaml" >/dev/null 2>"$T/err"
end=$(date +%s.%N)
sent=$(sqlite3 "$T/state.db" "SELECT count(*) FROM messages WHERE state = 'sent'")
ours=$(echo "$sent / ($end - $start)" | bc -l)
tests/peers/smtp-sink.sh stop "$T/sink" >/dev/null
PORT=$(tests/peers/smtp-sink.sh start "$T/sink")
start=$(date +%s.%N)
/usr/sbin/smtp-source -m "$N" -l "$size" -r "$rcpts" -s 1 "127.0.0.1:$PORT" >/dev/null 2>&1
end=$(date +%s.%N)
theirs=$(echo "$N / ($end - $start)" | bc -l)
printf 'smtp bench: %d messages of %d bytes, %d recipients each, one connection, to smtp-sink\n' "$N" "$size" "$rcpts"
printf 'robotmail run:  %8.0f messages/s (%d sent)\n' "$ours" "$sent"
printf 'smtp-source:    %8.0f messages/s\n' "$theirs"
printf 'ratio:          %8.2f (target >= 0.8)\n' "$(echo "$ours / $theirs" | bc -l)"
