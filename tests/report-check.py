#!/usr/bin/env python3
"""report-check.py - checks robotmail --dry-run output against the specs.

usage: report-check.py worked DRYRUN_OUTPUT WORKED_EXAMPLE_TXT
       report-check.py seed   DRYRUN_OUTPUT SEED_REPORT_TXT
       report-check.py headers DRYRUN_OUTPUT

Prints "ok - ..." / "not ok - ..." lines (TAP style, see tests/lib.sh).

worked: the message body must equal, byte for byte, the body of the worked
  example in report-format.md (vendored as
  tests/data/seed-reports/worked-example.txt); only the Message-ID differs (ours is derived
  from our dedupe key), so the example's id is put in place of ours first
  (in the Closes and reproduction links).  The headers are checked by rule.
seed: the seed reports are web-archive copies: the lines above "Hello," are
  the archive's, the tree URL was joined onto the commit line, blank-line runs
  were collapsed, trailing blanks dropped and an address masked.  Our body is
  put through the same steps and must then equal the seed from "Hello," on;
  the seed's first line must equal our Subject.
"""
import re
import sys


def message(path):
    """The headers (ASCII) and the body decoded from the charset its
    Content-Type declares, as a mail reader shows it."""
    raw = open(path, 'rb').read()
    text = raw.decode('utf-8', 'replace')
    if b'\nDATA\n' not in raw:
        return None, None, text
    msg = raw.split(b'\nDATA\n', 1)[1]
    if not msg.endswith(b'\n.\n'):
        return None, None, text
    msg = msg[:-2]
    hdr, body = msg.split(b'\n\n', 1)
    hdr = hdr.decode('ascii', 'replace')
    cs = re.search(r'(?mi)^Content-Type: text/plain; charset="?([A-Za-z0-9_-]+)', hdr)
    try:
        body = body.decode(cs.group(1) if cs else 'us-ascii')
    except (LookupError, UnicodeDecodeError) as e:
        return None, None, 'the body does not decode as its charset: %s\n%s' % (e, hdr)
    return hdr, body, text


def unfold(hdr):
    fields = {}
    for m in re.finditer(r'^([A-Za-z-]+): (.*(?:\n[ \t].*)*)', hdr, re.M):
        fields[m.group(1).lower()] = re.sub(r'\n[ \t]', ' ', m.group(2))
    return fields


def out(ok, name, detail=''):
    print(('ok - ' if ok else 'not ok - ') + name)
    if not ok and detail:
        for line in detail.splitlines()[:40]:
            print('    ' + line)


def diff(a, b):
    import difflib
    return ''.join(difflib.unified_diff(a.splitlines(True), b.splitlines(True), 'expected', 'actual'))


def check_headers(hdr, body, what):
    f = unfold(hdr)
    mid = f.get('message-id', '')
    m = re.fullmatch(r'<(\d{12})\.[0-9a-f]{8}-lkp@intel\.com>', mid)
    out(bool(m), what + ': Message-ID is <YYYYMMDDhhmm.8hex-lkp@intel.com>', mid)
    if not m:
        return
    ident = mid[1:-1]
    closes = re.search(r'^\| Closes: (\S+)$', body, re.M)
    if closes:
        out(closes.group(1) == 'https://lore.kernel.org/oe-lkp/' + ident, what + ': Closes links to the Message-ID')
    arch = re.search(r'^https://download\.01\.org/0day-ci/archive/(\d{8})/(\S+)$', body, re.M)
    out(bool(arch) and arch.group(1) == m.group(1)[:8] and arch.group(2) == ident,
        what + ': reproduction link date and id come from the Message-ID')
    subj = f.get('subject', '')
    out(bool(re.fullmatch(r'\[[^\]:]+:[^\] ]+\] \[[^\]]+\] [0-9a-f]{10}: \S+ -?\d+\.\d% (regression|improvement)', subj)),
        what + ': Subject follows the LKP grammar', subj)
    out(f.get('from') == 'kernel test robot <oliver.sang@intel.com>', what + ': From is the robot', f.get('from', ''))
    out(f.get('content-type') == 'text/plain; charset="iso-8859-1"' and
        f.get('content-transfer-encoding') == '8bit' and f.get('mime-version') == '1.0',
        what + ': MIME 1.0, text/plain; charset="iso-8859-1", 8bit (as LKP\'s perf reports)',
        '%s / %s' % (f.get('content-type'), f.get('content-transfer-encoding')))
    out(f.get('auto-submitted') == 'auto-generated', what + ': Auto-Submitted: auto-generated')
    out(bool(re.fullmatch(r'[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4}', f.get('date', ''))),
        what + ': Date is RFC 5322', f.get('date', ''))
    long_lines = [l for l in hdr.split('\n') if len(l) > 78]
    out(not long_lines, what + ': header lines are folded under 78 columns', '\n'.join(long_lines))


def main(argv):
    mode, path = argv[0], argv[1]
    hdr, body, text = message(path)
    if hdr is None:
        out(False, 'dry-run printed one complete message', text[:2000])
        return 0
    out(True, 'dry-run printed one complete message')
    if mode == 'headers':
        check_headers(hdr, body, 'headers')
        return 0
    ident = unfold(hdr)['message-id'][1:-1]
    if mode == 'worked':
        exp = open(argv[2], encoding='utf-8').read()
        their = re.search(r'oe-lkp/(\S+)', exp).group(1)
        got = body.replace(ident, their).replace('/archive/%s/' % ident[:8], '/archive/%s/' % their[:8])
        out(got == exp, 'worked: the body equals the worked example byte for byte', diff(exp, got))
        raw = open(path, 'rb').read().split(b'\nDATA\n', 1)[1]
        out(b' \xb1 ' in raw and b'\xc2' not in raw,
            'worked: on the wire "\u00b1" is the single ISO-8859-1 byte B1, as in LKP\'s mails')
        check_headers(hdr, body, 'worked')
        subj = unfold(hdr)['subject']
        out(subj == '[linus:master] [memcg] 7e44d00a13: will-it-scale.per_thread_ops 2.6% regression',
            'worked: the Subject is the worked example\'s (whitespace collapsed)', subj)
        return 0
    seed = open(argv[2], encoding='utf-8').read()
    their = re.search(r'archive/\d{8}/(\S+)', seed).group(1)
    got = body.replace(ident, their).replace('/archive/%s/' % ident[:8], '/archive/%s/' % their[:8])
    if '@xxxxxxxxx' in seed:
        got = got.replace('@intel.com', '@xxxxxxxxx')
    lines = [l.rstrip(' \t') for l in got.split('\n')]
    # join the tree URL onto the commit line, as the archive did
    joined = []
    for l in lines:
        if joined and joined[-1].startswith('commit: ') and l.startswith('https://'):
            joined[-1] += ' ' + l
        else:
            joined.append(l)
    norm = re.sub(r'\n{3,}', '\n\n', '\n'.join(joined)).strip('\n')
    start = seed.index('Hello,')
    seed_body = re.sub(r'\n{3,}', '\n\n', '\n'.join(l.rstrip(' \t') for l in seed[start:].split('\n'))).strip('\n')
    norm = norm[norm.index('Hello,'):]
    out(norm == seed_body, 'seed: the body is the seed report once archived the same way', diff(seed_body, norm))
    out(unfold(hdr)['subject'] == seed.split('\n', 1)[0], 'seed: the Subject is the seed\'s first line',
        unfold(hdr)['subject'] + '\n' + seed.split('\n', 1)[0])
    check_headers(hdr, body, 'seed')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
