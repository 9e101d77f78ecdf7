#!/usr/bin/env python3
"""make-examples.py - writes contrib/examples/{mlockmany,mincore}.tar.xz and functional/boot-crash.tar.xz.

The bundled example archives behind `make run`: the result trees of the two
seed reports (tests/gen-fixtures.py), with their commits renamed to commits of
the small local repository that tests/peers/make-test-repo.sh creates (same
subjects), so the example needs no network.  Deterministic: sorted members,
fixed mtime, owner and mode.  Run from the repository root.

functional/boot-crash.tar.xz is a functional example: the boot crash of the data case
tests/data/2301-boot-dmesg-excerpt (tests/gen-functional.py), on the commit of
the mincore example, with its dmesg.xz, so `make run` also sends a functional
report with its boot/dmesg table and kernel-log excerpt.
"""
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

RENAME = {
    # seed head / base (16-hex prefix of the synthetic base) -> test repository commit
    'mlockmany': {'8d596d8b81ef56bf61538d6b4761a7b0d6138280': 'e5e1a8d3a28c98ac2743ad22197185fd9c4fc440',
                  '819bfbd47e49df89': '8f756b95ffe4a7bb2037d8856596585c3235a6f3'},
    'mincore': {'7625cb56733bfd470e9fae69a1b8b78aa8b1d3eb': '8807b68269657a8e419152e36c54046ec75247d3',
                '006943a9b437b2d4': 'b5ac70b750f93ba32446145be56472cf6e5c1e8c'},
}


def write_tar(root, out_file, rename=None):
    """root's files, sorted, fixed mtime/owner/mode, xz-compressed; rename
    maps old commit shas to new ones in paths and contents."""
    import lzma
    rename = rename or {}
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.PAX_FORMAT) as tar:
        files = []
        for dp, dns, fns in os.walk(root):
            for f in fns:
                files.append(os.path.relpath(os.path.join(dp, f), root))
        for rel in sorted(files):
            data = open(os.path.join(root, rel), 'rb').read()
            for old, new in rename.items():
                data = data.replace(old.encode(), new.encode())
                rel = rel.replace(old, new)
            info = tarfile.TarInfo(rel)
            info.size = len(data)
            info.mtime = 1760000000
            info.mode = 0o644
            info.uname = info.gname = 'lkp'
            tar.addfile(info, io.BytesIO(data))
    with open(out_file, 'wb') as fh:
        fh.write(lzma.compress(buf.getvalue(), preset=9))
    print('wrote %s' % out_file)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else 'contrib/examples'
    tmp = tempfile.mkdtemp()
    try:
        boot = os.path.join(tmp, 'boot-crash')
        subprocess.run([sys.executable, 'tests/gen-functional.py',
                        'tests/data/2301-boot-dmesg-excerpt/archive.json', boot], check=True)
        os.makedirs(os.path.join(out, 'functional'), exist_ok=True)
        # (a folder of its own: the suites that copy contrib/examples/*.tar.xz
        # count the two performance reports)
        write_tar(boot, os.path.join(out, 'functional', 'boot-crash.tar.xz'))
        subprocess.run([sys.executable, 'tests/gen-fixtures.py', tmp], check=True, stdout=subprocess.DEVNULL)
        for name, ren in RENAME.items():
            root = os.path.join(tmp, name)
            # full old shas: the commit directory names
            full = {}
            for dp, dns, _ in os.walk(root):
                for d in dns:
                    for old, new in ren.items():
                        if d.startswith(old) and len(d) == 40:
                            full[d] = new
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode='w', format=tarfile.PAX_FORMAT) as tar:
                files = []
                for dp, dns, fns in os.walk(root):
                    for f in fns:
                        files.append(os.path.relpath(os.path.join(dp, f), root))
                for rel in sorted(files):
                    data = open(os.path.join(root, rel), 'rb').read()
                    for old, new in full.items():
                        data = data.replace(old.encode(), new.encode())
                        rel = rel.replace(old, new)
                    info = tarfile.TarInfo(rel)
                    info.size = len(data)
                    info.mtime = 1760000000
                    info.mode = 0o644
                    info.uname = info.gname = 'lkp'
                    tar.addfile(info, io.BytesIO(data))
            import lzma
            with open(os.path.join(out, name + '.tar.xz'), 'wb') as fh:
                fh.write(lzma.compress(buf.getvalue(), preset=9))
            print('wrote %s/%s.tar.xz' % (out, name))
    finally:
        shutil.rmtree(tmp)


if __name__ == '__main__':
    main()
