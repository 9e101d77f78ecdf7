#!/usr/bin/env python3
"""published.py - tests/data cases built from reports the robot published.

    python3 tests/published.py seed STATE_DB CASE/facts.json
        put the commit facts of the case into the store's commit cache (the
        commits are the robot's real ones: no repository here has them), as
        the lookup would have cached them; STATE_DB exists (a run made it)
    python3 tests/published.py check DRYRUN_OUT CASE
        compare the first report of a `--dry-run` output with CASE/published.eml
        (the published mail, body verbatim as archived) and print TAP lines:
        the Subject (whitespace collapsed, as report-format.md 2 says to
        compare), the To: addresses in order when published.eml keeps its
        To:, and the body line by line.  The robot's Message-ID names a
        hash robotmail cannot know, so robotmail's own Message-ID is replaced
        by the published one before comparing (the Closes: and materials
        lines).  Every published line robotmail does not print must be listed
        in CASE/unreachable ("<published line number>: <text>", a line no
        archive can carry, e.g. an operator's sentence), and every listed line
        must really be missing; a line robotmail prints that the published
        body has not is listed as "+<robotmail line number>: <text>" (e.g. a
        table the operator left out).  The case fails on any other difference.

facts.json: [{"tree": NAME, "sha": SHA40, "subject": ..., "author": [NAME, EMAIL]}, ...]
"""
import difflib
import json
import re
import sqlite3
import sys
import time


def seed(db, facts_path):
    con = sqlite3.connect(db)
    for f in json.load(open(facts_path)):
        name, email = f.get('author', ['Ann Author', 'ann@example.org'])
        rec = {'sha': f['sha'], 'subject': f['subject'], 'body': '',
               'author_name': name, 'author_email': email,
               'committer_name': name, 'committer_email': email,
               'date': '2025-01-01T00:00:00Z', 'trailers': [], 'files': []}
        if f.get('patch_msgid'):
            rec['patch_msgid'] = f['patch_msgid']
        con.execute('INSERT OR REPLACE INTO commit_cache (tree, sha, found, facts, fetched_at, expires_at)'
                    ' VALUES (?, ?, 1, ?, ?, NULL)',
                    (f['tree'], f['sha'], json.dumps(rec, sort_keys=True, separators=(',', ':')),
                     int(time.time())))
    con.commit()
    con.close()


def split_mail(raw):
    head, _, body = raw.partition('\n\n')
    head = re.sub(r'\n[ \t]+', ' ', head)
    hdr = {}
    for line in head.split('\n'):
        k, _, v = line.partition(':')
        hdr.setdefault(k.strip().lower(), v.strip())
    return hdr, body


LIST = False


def check(out_path, case):
    name = case.rstrip('/').split('/')[-1]
    raw = open(out_path, 'rb').read()
    m = re.search(rb'(?ms)^DATA\n(.*?\n)\.\n', raw)
    if not m:
        print('not ok - a report was printed')
        return
    # the message in its declared charset (performance reports: ISO-8859-1)
    cs = re.search(rb'(?mi)^Content-Type:.*charset="?([\w-]+)', m.group(1))
    mine_h, mine = split_mail(m.group(1).decode(cs.group(1).decode() if cs else 'utf-8'))
    pub_h, pub = split_mail(open(case + '/published.eml', encoding='utf-8').read())
    mid, pmid = mine_h.get('message-id', '').strip('<>'), pub_h['message-id'].strip('<>')
    if mid:
        mine = mine.replace(mid, pmid)
    ws = lambda s: ' '.join(s.split())
    ok = ws(mine_h.get('subject', '')) == ws(pub_h['subject'])
    print('%s - the Subject is the published one (whitespace collapsed)%s' %
          ('ok' if ok else 'not ok', '' if ok else '\n    mine: %s\n    published: %s' %
           (mine_h.get('subject'), pub_h['subject'])))
    if 'to' in pub_h:
        # a published.eml that keeps its To: (patch reports: the patch's
        # sender, then the commit's author): the same addresses, in order
        addrs = lambda s: re.findall(r'[\w.+=-]+@[\w.-]+', s)
        ok = addrs(mine_h.get('to', '')) == addrs(pub_h['to'])
        print('%s - the To: addresses are the published ones, in order%s' %
              ('ok' if ok else 'not ok', '' if ok else '\n    mine: %s\n    published: %s' %
               (mine_h.get('to'), pub_h['to'])))
    a, b = pub.split('\n'), mine.split('\n')
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    matched = sum(bl.size for bl in sm.get_matching_blocks())
    missing = set(range(len(a)))
    for bl in sm.get_matching_blocks():
        missing -= set(range(bl.a, bl.a + bl.size))
    listed, plus = {}, {}
    try:
        for line in open(case + '/unreachable', encoding='utf-8').read().split('\n'):
            mm = re.match(r'^(\+?)(\d+):(?: (.*))?$', line)
            if mm:
                (plus if mm.group(1) else listed)[int(mm.group(2)) - 1] = mm.group(3) or ''
    except FileNotFoundError:
        pass
    wrong = [n for n in listed if n >= len(a) or a[n] != listed[n]]
    extra = sorted(missing - set(listed))
    gone = sorted(set(listed) - missing)
    added = [j for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag in ('insert', 'replace')
             for j in range(j1, j2)]
    wrong += [j for j in plus if j >= len(b) or b[j] != plus[j] or j not in added]
    added = [j for j in added if j not in plus]
    print('# %s: %d of %d published body lines match byte for byte (%d listed as unreachable, %d printed '
          'lines listed as not published)' % (name, matched, len(a), len(listed), len(plus)))
    if LIST:
        for n in sorted(missing):
            print('%d: %s' % (n + 1, a[n]) if a[n] else '%d:' % (n + 1))
        for j in added + sorted(plus):
            print('+%d: %s' % (j + 1, b[j]) if b[j] else '+%d:' % (j + 1))
        return
    ok = not wrong and not extra and not gone and not added
    detail = ''
    if not ok:
        d = ['published line %d not printed: %r' % (n + 1, a[n]) for n in extra[:20]]
        d += ['listed line %d is printed (or not that text)' % (n + 1) for n in (gone + wrong)[:20]]
        d += ['robotmail line %d is not in the published body: %r' % (j + 1, b[j]) for j in added[:20]]
        detail = '\n    ' + '\n    '.join(d)
    print('%s - the body is the published one byte for byte, but the lines listed in unreachable%s' %
          ('ok' if ok else 'not ok', detail))


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'seed':
        seed(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == 'list':
        # what an unreachable file would list now (to be read, then kept)
        LIST = True
        check(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == 'check':
        check(sys.argv[2], sys.argv[3])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
