#!/usr/bin/env python3
"""tests/peers/smtp-check.py - look at what the SMTP test peers received.

usage: smtp-check.py count-msgids DIR   "<Message-ID> <count>" per Message-ID,
                                        sorted by Message-ID ("-" = message
                                        without one); prints nothing when
                                        there are no messages
       smtp-check.py show DIR N         headers of message N (1-based), LF
                                        line endings, folded lines kept

DIR is one of:
  - an smtp-peer.py --dir: its messages are msg-<N>.eml (N = "queued as N");
  - an smtp-sink.sh DIR (its dump/ subdirectory is used) or a dump directory
    itself: every file below it is one message, numbered 1, 2, ... by file
    modification time (then name).  Their headers begin with smtp-sink's
    X-Client-Addr/X-Mail-Args/X-Rcpt-Args/Received lines; the dump holds
    messages smtp-sink refused after DATA as well.
Exit status 0; 1 with a message on stderr when DIR or message N is missing.
Python 3 standard library only (any python3).
"""
import email.parser
import email.policy
import os
import re
import sys


def messages(d):
    """Paths of the messages in d, in message-number order (index 0 = N 1)."""
    if not os.path.isdir(d):
        sys.exit('smtp-check.py: %s: not a directory' % d)
    peer = {}
    for f in os.listdir(d):
        m = re.fullmatch(r'msg-(\d+)\.eml', f)
        if m:
            peer[int(m.group(1))] = os.path.join(d, f)
    if peer:
        return [peer[n] for n in sorted(peer)], {n: peer[n] for n in peer}
    if os.path.isdir(os.path.join(d, 'dump')):
        d = os.path.join(d, 'dump')
    elif os.path.exists(os.path.join(d, 'log')):      # an smtp-peer dir, nothing accepted
        return [], {}
    files = []
    for root, _, names in os.walk(d):
        for f in names:
            p = os.path.join(root, f)
            files.append((os.stat(p).st_mtime_ns, os.path.relpath(p, d), p))
    files.sort()
    paths = [p for _, _, p in files]
    return paths, {i + 1: p for i, p in enumerate(paths)}


def header_bytes(path):
    with open(path, 'rb') as f:
        raw = f.read()
    m = re.search(rb'\r?\n\r?\n', raw)
    return raw[:m.start()] + b'\n' if m else raw


def msgid(path):
    h = email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(header_bytes(path))
    v = h.get('Message-ID')
    return re.sub(r'\s+', ' ', str(v)).strip() if v is not None else '-'


def main(argv):
    if len(argv) == 3 and argv[1] == 'count-msgids':
        counts = {}
        for p in messages(argv[2])[0]:
            i = msgid(p)
            counts[i] = counts.get(i, 0) + 1
        for i in sorted(counts):
            print(i, counts[i])
        return 0
    if len(argv) == 4 and argv[1] == 'show' and argv[3].isdigit():
        byn = messages(argv[2])[1]
        n = int(argv[3])
        if n not in byn:
            sys.exit('smtp-check.py: %s has no message %d (%d messages)' % (argv[2], n, len(byn)))
        sys.stdout.buffer.write(header_bytes(byn[n]).replace(b'\r\n', b'\n'))
        return 0
    sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
