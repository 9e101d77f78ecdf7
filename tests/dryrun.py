"""dryrun.py - robotmail --dry-run output as text, for the test suites.

text(path): the whole output as a str, each message (from its "DATA" line
to the "." line) decoded from the charset its Content-Type declares
(iso-8859-1 for performance reports, us-ascii for functional ones, utf-8
when a body needs it), the rest (comments, the SMTP envelope) as UTF-8.
Importing: sys.path.insert(0, 'tests'); import dryrun (suites run from the
repository root).
"""
import re


def text(path):
    raw = open(path, 'rb').read()
    out, pos = [], 0
    for m in re.finditer(rb'(?m)^DATA\n(.*?\n)\.\n', raw, re.S):
        out.append(raw[pos:m.start(1)].decode('utf-8'))
        msg = m.group(1)
        cs = re.search(rb'(?mi)^Content-Type: text/plain; charset="?([A-Za-z0-9_-]+)', msg)
        out.append(msg.decode(cs.group(1).decode() if cs else 'us-ascii'))
        pos = m.end(1)
    out.append(raw[pos:].decode('utf-8'))
    return ''.join(out)
