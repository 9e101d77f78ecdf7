#!/usr/bin/env python3
"""bench-rusage.py OUT CMD [ARG...] - run CMD once, as /usr/bin/time would,
and write "WALL USER SYS MAXRSS" to OUT: seconds to the microsecond (the
kernel's own accounting, read with wait4) and peak RSS in KiB.  GNU time
prints user and sys to 10 ms only, which made the bench's cpu ratios of runs
of 50-300 ms mostly rounding (tests/bench.sh).  stdin, stdout and stderr are
CMD's; the exit code is CMD's (128 + N when signal N ended it).  Not part of
robotmail."""
import os
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: bench-rusage.py OUT CMD [ARG...]\n")
        return 2
    t0 = time.monotonic()
    try:
        pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
    except OSError as e:
        sys.stderr.write("bench-rusage.py: %s: %s\n" % (sys.argv[2], e.strerror))
        return 127
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    with open(sys.argv[1], "w", encoding="ascii") as f:
        f.write("%.6f %.6f %.6f %d\n" % (wall, ru.ru_utime, ru.ru_stime, ru.ru_maxrss))
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


sys.exit(main())
