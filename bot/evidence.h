/*
 * evidence.h - the kernel-log (or test-output) excerpt of a failure.
 *
 * Owns: finding and reading a run's kernel log (archive-format.md: the
 * readers look for dmesg.xz, dmesg, .dmesg, kmsg.xz, kmsg, in that order; a
 * kmsg.* id looks at kmsg first), decompressed through libarchive's raw
 * reader (xz, gzip, zstd or plain), as a stream with bounded memory
 * whatever the log's size, straight from a result directory or from the
 * member of a tarball; and cutting the excerpt of one failure out of it the
 * way lkp-tests' lib/dmesg.rb `get_crash_calltraces` cuts call traces: from
 * a line with "---[ cut here ", " BUG: ", " WARNING: ", " INFO: ",
 * " UBSAN: " or " kernel BUG at " through "---[ end trace " (at most 100
 * lines), then, when decode_stacktrace ran, its `All code` listing through
 * the `Code starting with the faulting instruction` block; a trace that
 * holds such a listing itself keeps the lines after its end (or its 100th
 * line) up to the next trace, or its 150th line.  The trace cut
 * is the one holding the failure's first message, found by the time
 * lkp-tests recorded for it (`dmesg.timestamp:<id>`, `[%12.6f]`).  Lines
 * are kept as the log has them (timestamps, caller ids, decoded traces).
 *
 * For a test's own failure (`<testcase>.<subtest>.fail`), the test's raw
 * output instead: the TAP lines of the failing subtest through its
 * "not ok" line; for a subtest reported nested inside its test's block
 * (kselftest: "# not ok 8 test_cpucg_max" in the block ending "not ok 2
 * selftests: cgroup: test_cpu"), that whole block.  LTP's ltp-pan output
 * (blocks from "<<<test_start>>>" to "<<<test_end>>>", named by a
 * "tag=<test> stime=..." line; `ltp.<test>.fail`) gives the failing test's
 * block through the next test's start or the end of the output (the
 * runner's closing lines after the last test included, as published LTP
 * reports quote them).
 *
 * A log is decompressed and scanned only up to max_log bytes
 * (RM_EVIDENCE_MAX_LOG): memory is bounded whatever the log's size, and so
 * is time, even for a compression bomb (a few KiB of xz that expand to many
 * GiB).  What was read is used (the excerpt rules apply to it); the result
 * says the log was cut (`cut`, the problem's wording) and carries a warning
 * for the operator, as it does for a log that cannot be read to its end.
 *
 * Must not: choose what to report (report.c), format the report, keep a
 * whole log in memory, print (the caller tells the operator the warnings).
 */
#ifndef RM_EVIDENCE_H
#define RM_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "archive.h"
#include "error.h"

/* The decompressed bytes of one log read at most (the default max_log).
 * A real dmesg of a test run is at most tens of MiB (a boot log is well
 * under 1 MiB; a long stress run with a noisy driver, tens); beyond that a
 * log is broken or hostile.  256 MiB is the cap of one archive member
 * (RM_ARCHIVE_MAX_MEMBER): the same bound whether the log is stored
 * compressed or not, and scanning that much takes ~0.6 s on the CI machine
 * (2 ns a byte, xz or gzip), where a bomb's many GiB took minutes. */
#define RM_EVIDENCE_MAX_LOG (256ull << 20)

/* Caps of one excerpt; a line longer than max_line is cut there. */
struct rm_evidence_limits {
	size_t max_lines; /* default 300 */
	size_t max_bytes; /* default 64 KiB */
	size_t max_line;  /* default 4096 */
	unsigned long long max_log; /* decompressed bytes of one log read; default RM_EVIDENCE_MAX_LOG */
};

struct rm_evidence {
	char *file;      /* the log read, relative to the archive, or NULL */
	char *excerpt;   /* the excerpt, LF-terminated lines, or NULL */
	char *problem;   /* why there is no (complete) excerpt, or NULL */
	bool capped;     /* the excerpt hit a cap of the limits */
	bool cut;        /* the log holds more than max_log bytes: only those were read */
	unsigned long long bytes; /* uncompressed bytes of log read */
	/* for the operator, one sentence each, naming the log (relative to the
	 * archive) and what went wrong: a log cut at max_log, one that cannot
	 * be read (to its end), in any run looked at; the caller prints them
	 * with the archive's name */
	char **warnings;
	size_t nwarnings;
};

void rm_evidence_limits_default(struct rm_evidence_limits *l);
void rm_evidence_free(struct rm_evidence *e);

/* The excerpt of the kernel-log failure `name` ("dmesg.<id>" or
 * "kmsg.<id>") in the runs of `root`: the first run whose log holds the
 * id's first message.  Always fills `out` (owned by the caller, free with
 * rm_evidence_free()): an excerpt, or a problem saying why there is none
 * (no log, no recorded time, a log that cannot be read).  Returns -1 (err
 * set) only when the archive itself cannot be opened again, or libarchive
 * cannot be loaded (dynlib.h). */
int rm_evidence_for_failure(const struct rm_archive *a, const struct rm_result_root *root,
			    const char *name, const struct rm_evidence_limits *lim,
			    struct rm_evidence *out, struct rm_error *err);

/* The excerpt of a test's own failure `name` ("<testcase>.<subtest
 * path>.fail", e.g. "kernel-selftests.cgroup.test_stress.sh.fail") in the
 * runs of `root`: the program's raw output (`<run>/<testcase>`, or .gz) of
 * the first run that failed it, the lines since the previous TAP result
 * line through the first "not ok" line naming the subtest path's words in
 * order (the last max_lines of them).  Fills `out` as
 * rm_evidence_for_failure() does. */
int rm_evidence_for_test(const struct rm_archive *a, const struct rm_result_root *root,
			 const char *name, const struct rm_evidence_limits *lim,
			 struct rm_evidence *out, struct rm_error *err);

/* Copy the log `rel` (an rm_evidence's file) of archive `a` as it is
 * stored (compressed or not) to `dst`, in chunks.  Returns -1 with err set
 * when it cannot be read or written. */
int rm_evidence_copy_log(const struct rm_archive *a, const char *rel, const char *dst,
			 struct rm_error *err);

/* The scanner alone, for tests and benchmarks: the excerpt around the line
 * stamped `stamp` ("12.841558") in a log file on disk (any compression
 * libarchive's raw reader knows).  Fills out as above; returns -1 with err
 * set when the file cannot be opened. */
int rm_evidence_scan_file(const char *path, const char *stamp,
			  const struct rm_evidence_limits *lim, struct rm_evidence *out,
			  struct rm_error *err);
/* The same over bytes in memory. */
void rm_evidence_scan_memory(const char *name, const void *data, size_t len, const char *stamp,
			     const struct rm_evidence_limits *lim, struct rm_evidence *out);

/* The test-output scanner alone (rm_evidence_for_test's cut) over bytes in
 * memory: `test` is the failure id ("ltp.uevent01.fail"), `testcase` the
 * job's ("ltp"). */
void rm_evidence_scan_test_memory(const char *name, const void *data, size_t len,
				  const char *test, const char *testcase,
				  const struct rm_evidence_limits *lim, struct rm_evidence *out);

/* The "[ 12.841558]" stamp of a log line as "12.841558" (len digits written
 * to buf, NUL-terminated), or 0 when the line has none.  Lines may start
 * with "<N>" or a kmsg "kern  :err   : " prefix (lib/dmesg.rb). */
size_t rm_evidence_line_stamp(const char *line, size_t len, char *buf, size_t bufsize);

#endif
