#!/usr/bin/env python3
"""check-config-docs.py - every configuration key is in three places.

usage: check-config-docs.py bot/config.c config/robotmail.yaml contrib/robotmail.1

The keys config.c accepts (each `*_key` function's strcmp(key, "...")), the
keys config/robotmail.yaml shows (set or commented out), and the keys the man
page documents must be the same sets.  Prints TAP lines."""
import re
import sys

SECTIONS = {'robot_key': 'robot', 'links_key': 'links', 'paths_key': 'paths',
            'gitweb_key': 'gitweb', 'delivery_key': 'delivery',
            'recipients_key': 'recipients', 'tree_key': 'trees', 'top_key': ''}


def from_c(path):
    src = open(path).read()
    keys = set()
    for m in re.finditer(r'\nstatic int (\w+_key)\(.*?\n}\n', src, re.S):
        sec = SECTIONS.get(m.group(1))
        if sec is None:
            continue
        for k in re.findall(r'!strcmp\(key, "([a-z_]+)"\)', m.group(0)):
            if sec == '' and k in ('robot', 'links', 'paths', 'gitweb', 'trees', 'delivery', 'recipients'):
                continue
            if k == 'password':
                continue  # accepted only to refuse it with a helpful message
            keys.add('%s.%s' % (sec, k) if sec else k)
    return keys


def from_yaml(path):
    keys, sec = set(), None
    for line in open(path):
        m = re.match(r'^(?:# ?)?([a-z_]+):', line)
        if m:
            k = m.group(1)
            if k in ('robot', 'links', 'paths', 'gitweb', 'trees', 'delivery', 'recipients'):
                sec = k
            else:
                keys.add(k)
                sec = None
            continue
        m = re.match(r'^  (?:- |# )?([a-z_]+):', line) if sec and sec != 'trees' else None
        if m:
            keys.add('%s.%s' % (sec, m.group(1)))
            continue
        if sec == 'trees':
            m = re.match(r'^  (?:- )?([a-z_]+):|^    (?:# )?([a-z_]+):', line)
            if m:
                keys.add('trees.' + (m.group(1) or m.group(2)))
            for k in re.findall(r'\b(mail_to|mail_cc|token_file|token_env|patches)\b', line) if line.startswith('#') else []:
                keys.add('trees.' + k)
    return keys


def from_man(path):
    text = open(path).read().replace('\\-', '-').replace('\\fB', '').replace('\\fR', '').replace('\\fI', '')
    return text


def main():
    c, y, man = from_c(sys.argv[1]), from_yaml(sys.argv[2]), from_man(sys.argv[3])
    ok = True

    def report(name, missing):
        nonlocal ok
        if missing:
            ok = False
            print('not ok - %s' % name)
            print('    missing: ' + ', '.join(sorted(missing)))
        else:
            print('ok - %s' % name)
    report('every key config.c accepts is shown in config/robotmail.yaml', c - y)
    report('config/robotmail.yaml shows no key config.c refuses', y - c)
    undocumented = set()
    for k in c:
        sec, _, key = k.rpartition('.')
        if sec == 'trees':
            if not re.search(r'^\.(?:TP\n\.B|BR) .*\b%s\b' % re.escape(key), man, re.M) and \
               not re.search(r'\n\.B %s\n' % re.escape(key), man):
                undocumented.add(k)
        elif not re.search(r'\b%s\b' % re.escape(k), man):
            undocumented.add(k)
    report('the man page documents every configuration key (%d keys)' % len(c), undocumented)
    # issue 15 point 7: a worked api: line per provider, in both documents
    yaml_text = open(sys.argv[2]).read()
    apis = {'cgit': r'provider: cgit\s+api: https://\S+\.git',
            'github': r'api: https://api\.github\.com/repos/OWNER/REPO',
            'github enterprise': r'api: https://\S+/api/v3/repos/OWNER/REPO',
            'gitea/forgejo': r'api: https://\S+/api/v1/repos/OWNER/REPO',
            'gitlab with a project path': r'api: https://\S+/api/v4/projects/GROUP%2FPROJECT',
            'local git': r'provider: local-git\s+api: /\S+'}
    report('config/robotmail.yaml gives a worked api: line per provider',
           {k for k, rx in apis.items() if not re.search(rx, yaml_text)})
    man_apis = dict(apis, cgit=r'\n\.B cgit\napi: https://\S+\.git',
                    **{'local git': r'\n\.B local-git\napi: /\S+'})
    report('the man page gives a worked api: line per provider',
           {k for k, rx in man_apis.items() if not re.search(rx, man)})
    # ... and a table of each HTTP status and git error with what robotmail does
    lookups = man.partition('.SH COMMIT LOOKUPS')[2].partition('.SH ')[0]
    rows = re.findall(r'^\.TP\n\.B (.*)\n((?:(?!\.TP).*\n)*)', lookups, re.M)
    need = ['200', '404', '422', '401', '403', '429', '503', '5xx', 'over 16 MiB',
            'does not parse', 'bad revision', 'dubious ownership', 'missing clone']
    missing = {n for n in need if not any(n in head and re.search(r'exit (1|2|75)\b', body)
                                          for head, body in rows)}
    if not re.search(r'https to\s+http', lookups):
        missing.add('https -> http redirect')
    report('the man page lists each HTTP status and git error with its exit code (%d rows)'
           % len(rows), missing)
    return 0 if ok else 1


sys.exit(main())
