/* evidence.c - see evidence.h. */
#define _GNU_SOURCE /* memmem */
#include "evidence.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dynlib_archive.h"
#include "fileutil.h"
#include "strbuf.h"

/* lib/dmesg.rb CALLTRACE_LIMIT_LEN: lines of one trace, and 1.5 times it
 * with the decode_stacktrace listing */
#define TRACE_LINES 100
#define DECODE_LINES 150
#define DECODE_FLAG "Code starting with the faulting instruction"

void rm_evidence_limits_default(struct rm_evidence_limits *l)
{
	l->max_lines = 300;
	l->max_bytes = 64 * 1024;
	l->max_line = 4096;
	l->max_log = RM_EVIDENCE_MAX_LOG;
}

/* e's warnings freed (the rest of e kept). */
static void free_warnings(struct rm_evidence *e)
{
	size_t i;

	for (i = 0; i < e->nwarnings; i++)
		free(e->warnings[i]);
	free(e->warnings);
	e->warnings = NULL;
	e->nwarnings = 0;
}

/* Hand src's warnings on to dst (src keeps none). */
static void move_warnings(struct rm_evidence *dst, struct rm_evidence *src)
{
	size_t i;

	if (dst == src || !src->nwarnings)
		return;
	dst->warnings = rm_xrealloc(dst->warnings, (dst->nwarnings + src->nwarnings) * sizeof(char *));
	for (i = 0; i < src->nwarnings; i++)
		dst->warnings[dst->nwarnings++] = src->warnings[i];
	free(src->warnings);
	src->warnings = NULL;
	src->nwarnings = 0;
}

static void add_warning(struct rm_evidence *e, char *w)
{
	e->warnings = rm_xrealloc(e->warnings, (e->nwarnings + 1) * sizeof(char *));
	e->warnings[e->nwarnings++] = w;
}

void rm_evidence_free(struct rm_evidence *e)
{
	free(e->file);
	free(e->excerpt);
	free(e->problem);
	free_warnings(e);
	memset(e, 0, sizeof(*e));
}

/* ------------------------------------------------------------ lines */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

size_t rm_evidence_line_stamp(const char *s, size_t len, char *buf, size_t bufsize)
{
	size_t i = 0, a, b, n;

	/* (<[0-9]+>|....  :......: )? */
	if (len > 2 && s[0] == '<' && is_digit(s[1])) {
		for (i = 1; i < len && is_digit(s[i]); i++)
			;
		if (i < len && s[i] == '>')
			i++;
		else
			i = 0;
	} else if (len > 15 && s[4] == ' ' && s[5] == ' ' && s[6] == ':' && s[13] == ':' &&
		   s[14] == ' ') {
		i = 15;
	}
	if (i >= len || s[i] != '[')
		return 0;
	for (i++; i < len && s[i] == ' '; i++)
		;
	for (a = i; i < len && is_digit(s[i]); i++)
		;
	if (i - a < 1 || i - a > 6 || i >= len || s[i] != '.')
		return 0;
	for (b = ++i; i < len && is_digit(s[i]); i++)
		;
	if (i - b != 6 || i + 1 >= len || s[i] != ']' || (s[i + 1] != ' ' && s[i + 1] != '['))
		return 0;
	n = i - a;
	if (n + 1 > bufsize)
		return 0;
	memcpy(buf, s + a, n);
	buf[n] = '\0';
	return n;
}

static bool has(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle)) != NULL;
}

static bool at(const char *p, const char *end, const char *word, size_t n)
{
	return (size_t)(end - p) >= n && !memcmp(p, word, n);
}

/* lib/dmesg.rb: the first line of a call trace, a line matching
 * /---\[ cut here | BUG: | WARNING: | INFO: | UBSAN: | kernel BUG at / */
static bool is_trace_start(const char *s, size_t len)
{
	const char *end = s + len;
	size_t i;

	/* one pass over the bytes: a blank followed by a word's first letter,
	 * or the dashes of "---[ cut here " */
	for (i = 0; i + 1 < len; i++) {
		const char *p = s + i + 1;

		if (s[i] == '-') {
			if (at(s + i, end, "---[ cut here ", 14))
				return true;
			continue;
		}
		if (s[i] != ' ')
			continue;
		switch (*p) {
		case 'B':
			if (at(p, end, "BUG: ", 5))
				return true;
			break;
		case 'W':
			if (at(p, end, "WARNING: ", 9))
				return true;
			break;
		case 'I':
			if (at(p, end, "INFO: ", 6))
				return true;
			break;
		case 'U':
			if (at(p, end, "UBSAN: ", 7))
				return true;
			break;
		case 'k':
			if (at(p, end, "kernel BUG at ", 14))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

/* lib/dmesg.rb: /^(===|  ( [0-9a-f]|[0-9a-f]{2}):| +\.\.\.)/, a line of the
 * objdump listing after "Code starting with the faulting instruction" */
static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

static bool is_listing(const char *s, size_t len)
{
	size_t i;

	if (len >= 3 && !memcmp(s, "===", 3))
		return true;
	if (len >= 5 && s[0] == ' ' && s[1] == ' ' && s[4] == ':' &&
	    ((s[2] == ' ' && is_hex(s[3])) || (is_hex(s[2]) && is_hex(s[3]))))
		return true;
	for (i = 0; i < len && s[i] == ' '; i++)
		;
	return i > 0 && i + 3 <= len && !memcmp(s + i, "...", 3);
}

/* ------------------------------------------------------------ the scanner */

struct scanner {
	const struct rm_evidence_limits *lim;
	const char *stamp;      /* the target line's stamp */
	struct rm_sb block;     /* the current trace */
	struct rm_sb tentative; /* lines after its end, kept if a decode listing follows */
	size_t block_lines, tentative_lines, count;
	bool in_trace, end_trace, in_decode, end_decode;
	/* lib/dmesg.rb keeps the lines after a trace's end or its 100th line
	 * (up to line 150 of the block, or the next trace) when
	 * decode_stacktrace ran on the log.  Kept here when the trace itself
	 * holds a decoded listing (seen_decode: DECODE_FLAG inside the block,
	 * as a soft lockup's or an RCU stall's NMI backtrace has: published
	 * case 2412; or a WARNING's Code listing before its end line: 2420,
	 * three lines kept after the end line up to the next trace), or when
	 * one follows within those lines; a trace without one ends at its end
	 * line (test_excerpt_second_trace). */
	bool seen_decode;
	bool found;             /* the target line is in the block */
	bool done;
	bool capped;
	struct rm_sb line;      /* the line being assembled */
	struct rm_sb prev[2];   /* the two lines before this one ([0] the last) */
	bool line_cut;
	/* test mode: the words of a test id ("cgroup", "test_stress", "sh")
	 * that a TAP "not ok" line names, in order */
	char **words;
	size_t nwords;
	/* LTP's ltp-pan output (lkp-tests' programs/ltp/parse before its kirk
	 * runner): blocks "<<<test_start>>>" ... "<<<test_end>>>", each named
	 * by its "tag=<name> stime=..." line; `tag` is the id's test name
	 * ("uevent01" of "ltp.uevent01.fail") */
	char *tag;
	bool ltp;      /* a "<<<test_start>>>" was seen: LTP blocks, not TAP */
	bool ltp_skip; /* the current block names another test */
};

/* The words of a test's subtest path: "kernel-selftests.cgroup.test_stress.sh.fail"
 * with testcase "kernel-selftests" gives cgroup, test_stress, sh. */
static char **test_words(const char *id, const char *testcase, size_t *n)
{
	size_t tl = testcase ? strlen(testcase) : 0, len;
	const char *p = id, *end;
	char **w;

	*n = 0;
	if (tl && !strncmp(id, testcase, tl) && id[tl] == '.')
		p = id + tl + 1;
	len = strlen(p);
	if (len > 5 && !strcmp(p + len - 5, ".fail"))
		len -= 5;
	end = p + len;
	w = rm_xcalloc(len / 2 + 2, sizeof(char *));
	while (p < end) {
		const char *dot = memchr(p, '.', (size_t)(end - p));
		const char *q = dot ? dot : end;

		if (q > p)
			w[(*n)++] = rm_xstrndup(p, (size_t)(q - p));
		p = q + 1;
	}
	return w;
}

/* The test name of an id: "ltp.uevent01.fail" with testcase "ltp" gives
 * "uevent01" (the words joined by their dots).  The caller frees it. */
static char *test_name(const char *id, const char *testcase)
{
	size_t tl = testcase ? strlen(testcase) : 0, len;

	if (tl && !strncmp(id, testcase, tl) && id[tl] == '.')
		id += tl + 1;
	len = strlen(id);
	if (len > 5 && !strcmp(id + len - 5, ".fail"))
		len -= 5;
	return rm_xstrndup(id, len);
}

static void sc_init(struct scanner *sc, const char *stamp, const struct rm_evidence_limits *lim)
{
	memset(sc, 0, sizeof(*sc));
	sc->lim = lim;
	sc->stamp = stamp;
	rm_sb_init(&sc->block);
	rm_sb_init(&sc->tentative);
	rm_sb_init(&sc->line);
	rm_sb_init(&sc->prev[0]);
	rm_sb_init(&sc->prev[1]);
}

static void sc_release(struct scanner *sc)
{
	size_t i;

	for (i = 0; i < sc->nwords; i++)
		free(sc->words[i]);
	free(sc->words);
	free(sc->tag);
	rm_sb_release(&sc->block);
	rm_sb_release(&sc->tentative);
	rm_sb_release(&sc->line);
	rm_sb_release(&sc->prev[0]);
	rm_sb_release(&sc->prev[1]);
}

/* Append a line and its newline to sb, without NUL bytes (a serial console
 * can print them; lkp-tests' dmesg parser drops them too). */
static void add_line(struct rm_sb *sb, const char *s, size_t len)
{
	const char *end = s + len, *z;

	while ((z = memchr(s, '\0', (size_t)(end - s)))) {
		rm_sb_add(sb, s, (size_t)(z - s));
		s = z + 1;
	}
	rm_sb_add(sb, s, (size_t)(end - s));
	rm_sb_addc(sb, '\n');
}

/* Append a line to sb within the limits (lines counted in *n). */
static void keep(struct scanner *sc, struct rm_sb *sb, size_t *n, const char *s, size_t len)
{
	if (sc->block_lines + sc->tentative_lines >= sc->lim->max_lines ||
	    sc->block.len + sc->tentative.len + len + 1 > sc->lim->max_bytes) {
		sc->capped = true;
		return;
	}
	add_line(sb, s, len);
	(*n)++;
}

static void commit_tentative(struct scanner *sc)
{
	rm_sb_add(&sc->block, sc->tentative.buf, sc->tentative.len);
	sc->block_lines += sc->tentative_lines;
	rm_sb_reset(&sc->tentative);
	sc->tentative_lines = 0;
}

/* The block is complete: stop when it holds the target, else forget it. */
static void close_block(struct scanner *sc)
{
	if (sc->found && sc->tentative.len && sc->seen_decode)
		commit_tentative(sc);
	rm_sb_reset(&sc->tentative);
	sc->tentative_lines = 0;
	if (sc->found) {
		sc->done = true;
		return;
	}
	rm_sb_reset(&sc->block);
	sc->block_lines = 0;
	sc->capped = false;
}

/* The message of a kernel-log line: after its "[  12.345678][    T1]"
 * stamps and the blank that follows them. */
static const char *log_message(const char *s, size_t len, size_t *mlen)
{
	const char *p = s, *end = s + len;

	while (p < end && *p == '[') {
		const char *q = memchr(p, ']', (size_t)(end - p));

		if (!q)
			break;
		p = q + 1;
	}
	if (p > s && p < end && *p == ' ')
		p++;
	*mlen = (size_t)(end - p);
	return p;
}

/* A report's banner: a message of ten or more '=' and nothing else (slub's
 * object report, lockdep and KASAN print one before their first line). */
static bool is_banner(const char *s, size_t len)
{
	size_t n, i;
	const char *m = log_message(s, len, &n);

	while (n && (m[n - 1] == ' ' || m[n - 1] == '\r'))
		n--;
	for (i = 0; i < n && m[i] == '='; i++)
		;
	return n >= 10 && i == n;
}

/* A trace begins: the banner just before its first line belongs to it,
 * and an empty message just before the banner too (lockdep prints "\n",
 * then the banner, then "WARNING: possible recursive locking detected"). */
static void keep_banner(struct scanner *sc)
{
	size_t n = 0, i;
	const char *m;

	if (sc->block_lines || !is_banner(sc->prev[0].buf, sc->prev[0].len))
		return;
	m = sc->prev[1].len ? log_message(sc->prev[1].buf, sc->prev[1].len, &n) : NULL;
	for (i = 0; m && i < n && m[i] == ' '; i++)
		;
	if (m && m > sc->prev[1].buf && i == n)
		keep(sc, &sc->block, &sc->block_lines, sc->prev[1].buf, sc->prev[1].len);
	keep(sc, &sc->block, &sc->block_lines, sc->prev[0].buf, sc->prev[0].len);
}

static void sc_line_at(struct scanner *sc, const char *s, size_t len);

/* One line of the log; the two lines before it are remembered (a trace's
 * banner). */
static void sc_line(struct scanner *sc, const char *s, size_t len)
{
	struct rm_sb t;

	sc_line_at(sc, s, len);
	if (len && s[len - 1] == '\r')
		len--;
	t = sc->prev[1];
	sc->prev[1] = sc->prev[0];
	sc->prev[0] = t;
	rm_sb_reset(&sc->prev[0]);
	rm_sb_add(&sc->prev[0], s, len < 512 ? len : 512);
}

static void sc_line_at(struct scanner *sc, const char *s, size_t len)
{
	char st[32];
	bool target = sc->stamp && !sc->found &&
		      rm_evidence_line_stamp(s, len, st, sizeof(st)) && !strcmp(st, sc->stamp);

	if (len && s[len - 1] == '\r')
		len--;
	if (is_trace_start(s, len) || (target && !sc->in_trace)) {
		if (sc->end_trace || sc->in_trace) {
			if (sc->end_trace) {
				close_block(sc);
				if (sc->done)
					return;
			}
		}
		/* a start line inside an open trace (the WARNING line after
		 * "cut here") continues its block, listing seen or not */
		if (!sc->in_trace)
			sc->seen_decode = false;
		sc->in_trace = true;
		sc->end_trace = sc->in_decode = sc->end_decode = false;
		keep_banner(sc);
		keep(sc, &sc->block, &sc->block_lines, s, len);
		sc->count = 1;
	} else if (sc->in_trace && has(s, len, "---[ end trace ")) {
		sc->in_trace = false;
		sc->end_trace = true;
		keep(sc, &sc->block, &sc->block_lines, s, len);
	} else if (sc->in_trace) {
		keep(sc, &sc->block, &sc->block_lines, s, len);
		if (has(s, len, DECODE_FLAG))
			sc->seen_decode = true;
		if (++sc->count > TRACE_LINES) {
			sc->in_trace = false;
			sc->end_trace = true;
		}
	} else if (sc->end_trace && !sc->end_decode) {
		if (!sc->in_decode) {
			sc->count++;
			keep(sc, &sc->tentative, &sc->tentative_lines, s, len);
			if (has(s, len, DECODE_FLAG)) {
				sc->in_decode = true;
				commit_tentative(sc);
			} else if (sc->count > DECODE_LINES) {
				sc->end_decode = true;
				close_block(sc);
			}
		} else if (is_listing(s, len)) {
			keep(sc, &sc->block, &sc->block_lines, s, len);
		} else {
			sc->in_decode = false;
			sc->end_decode = true;
			close_block(sc);
		}
	} else {
		return;
	}
	if (target && (sc->in_trace || sc->end_trace))
		sc->found = true;
}

/* TAP: "ok"/"not ok" result lines, "# ..." diagnostics. */
static bool is_result(const char *s, size_t len)
{
	return at(s, s + len, "ok ", 3) || at(s, s + len, "not ok ", 7);
}

/* Whether words [from, to) appear in the line in order. */
static bool names_range(const struct scanner *sc, const char *s, size_t len, size_t from, size_t to)
{
	const char *p = s, *end = s + len;
	size_t i;

	for (i = from; i < to; i++) {
		const char *q = memmem(p, (size_t)(end - p), sc->words[i], strlen(sc->words[i]));

		if (!q)
			return false;
		p = q + strlen(sc->words[i]);
	}
	return to > from;
}

/* Whether the words appear in the line in order. */
static bool names_words(const struct scanner *sc, const char *s, size_t len)
{
	return names_range(sc, s, len, 0, sc->nwords);
}

/* A subtest's failure inside a test (kselftest's nested TAP): the test's
 * "not ok" line names the first words ("cgroup", "test_cpu") and a nested
 * "# not ok N <subtest>" line of its block the rest ("test_cpucg_max"). */
static bool names_nested(const struct scanner *sc, const char *s, size_t len)
{
	size_t k;

	for (k = sc->nwords ? sc->nwords - 1 : 0; k >= 1; k--) {
		const char *p = sc->block.buf, *end = p + sc->block.len;

		if (!names_range(sc, s, len, 0, k))
			continue;
		while (p && p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

			if (at(p, p + l, "# not ok ", 9) && names_range(sc, p + 9, l - 9, k, sc->nwords))
				return true;
			p = nl ? nl + 1 : NULL;
		}
	}
	return false;
}

/* Drop the first line of the kept context. */
static void drop_first(struct scanner *sc)
{
	const char *nl = memchr(sc->block.buf, '\n', sc->block.len);
	size_t cut = nl ? (size_t)(nl - sc->block.buf) + 1 : sc->block.len;

	memmove(sc->block.buf, sc->block.buf + cut, sc->block.len - cut);
	sc->block.len -= cut;
	sc->block.buf[sc->block.len] = '\0';
	sc->block_lines--;
	sc->capped = true;
}

/* LTP mode: the block of the test whose "tag=" line names it, from its
 * "<<<test_start>>>" up to the next test's "<<<test_start>>>" or the end
 * of the output (so the runner's closing lines after the last test stay
 * with it, as the robot's LTP reports quote them), the first max_lines. */
static void ltp_line(struct scanner *sc, const char *s, size_t len)
{
	size_t tl = strlen(sc->tag);

	if (len == 16 && !memcmp(s, "<<<test_start>>>", 16)) {
		sc->ltp = true;
		if (sc->found) {
			sc->done = true;
			return;
		}
		rm_sb_reset(&sc->block);
		sc->block_lines = 0;
		sc->capped = false;
		sc->ltp_skip = false;
		keep(sc, &sc->block, &sc->block_lines, s, len);
		return;
	}
	if (sc->ltp_skip)
		return;
	if (!sc->found && at(s, s + len, "tag=", 4)) {
		if (len >= 4 + tl && !memcmp(s + 4, sc->tag, tl) && (len == 4 + tl || s[4 + tl] == ' ')) {
			sc->found = true;
		} else {
			sc->ltp_skip = true;
			rm_sb_reset(&sc->block);
			sc->block_lines = 0;
			return;
		}
	}
	keep(sc, &sc->block, &sc->block_lines, s, len);
}

/* Test mode: the lines since the previous TAP result through the first
 * "not ok" line that names the test (or names its test and holds a nested
 * "# not ok" naming the subtest), the last max_lines of them. */
static void tap_line(struct scanner *sc, const char *s, size_t len)
{
	if (len && s[len - 1] == '\r')
		len--;
	if (sc->ltp || (len == 16 && !memcmp(s, "<<<test_start>>>", 16))) {
		ltp_line(sc, s, len);
		return;
	}
	if (is_result(s, len) && !(at(s, s + len, "not ok ", 7) &&
				   (names_words(sc, s, len) || names_nested(sc, s, len)))) {
		rm_sb_reset(&sc->block);
		sc->block_lines = 0;
		sc->capped = false;
		return;
	}
	while (sc->block_lines && (sc->block_lines + 1 > sc->lim->max_lines ||
				   sc->block.len + len + 1 > sc->lim->max_bytes))
		drop_first(sc);
	if (len + 1 <= sc->lim->max_bytes) {
		add_line(&sc->block, s, len);
		sc->block_lines++;
	}
	if (at(s, s + len, "not ok ", 7)) {
		sc->found = true;
		sc->done = true;
	}
}

/* Feed bytes; lines are split here, each cut at max_line bytes.  A line
 * whole in this chunk is scanned where it is; only a line that spans two
 * chunks is assembled. */
static void sc_feed(struct scanner *sc, const char *p, size_t n)
{
	while (n && !sc->done) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) : n;
		size_t room = sc->lim->max_line > sc->line.len ? sc->lim->max_line - sc->line.len : 0;

		if (nl && !sc->line.len) {
			(sc->words ? tap_line : sc_line)(sc, p, take < room ? take : room);
			p = nl + 1;
			n -= take + 1;
			continue;
		}
		rm_sb_add(&sc->line, p, take < room ? take : room);
		if (take > room)
			sc->line_cut = true;
		if (!nl)
			return;
		(sc->words ? tap_line : sc_line)(sc, sc->line.buf, sc->line.len);
		rm_sb_reset(&sc->line);
		sc->line_cut = false;
		p = nl + 1;
		n -= take + 1;
	}
}

/* End of input: a last line without LF, an open block. */
static void sc_finish(struct scanner *sc)
{
	if (!sc->done && sc->line.len)
		(sc->words ? tap_line : sc_line)(sc, sc->line.buf, sc->line.len);
	if (!sc->done && sc->found) {
		/* the log ended: lines after the trace's end stay only when
		 * decode_stacktrace ran on it */
		if (sc->tentative.len && sc->seen_decode)
			commit_tentative(sc);
		sc->done = true;
	}
}

/* Move the result into out. */
static void sc_result(struct scanner *sc, struct rm_evidence *out)
{
	if (sc->done && sc->found && sc->block.len) {
		out->excerpt = rm_sb_detach(&sc->block, NULL);
		out->capped = sc->capped;
	}
}

/* ------------------------------------------------------------ reading */

static void set_problem(struct rm_evidence *out, const char *fmt, const char *a, const char *b)
{
	struct rm_sb sb = RM_SB_INIT;

	if (out->problem)
		return;
	rm_sb_init(&sb);
	rm_sb_addf(&sb, fmt, a, b);
	out->problem = rm_sb_detach(&sb, NULL);
}

/* A log that cannot be read (to its end): the problem, and the same said
 * to the operator. */
static void unreadable(struct rm_evidence *out, const char *fmt, const char *name, struct archive *ar)
{
	const char *why = archive_error_string(ar) ? archive_error_string(ar) : "unknown error";

	set_problem(out, fmt, name, why);
	add_warning(out, rm_xstrfmt("%s: no excerpt from it", out->problem));
}

/* "256 MiB", or "1000 bytes" for a cap that is no whole number of MiB. */
static char *size_words(unsigned long long n)
{
	return n && !(n & ((1ull << 20) - 1)) ? rm_xstrfmt("%llu MiB", n >> 20) :
						 rm_xstrfmt("%llu bytes", n);
}

/* What to cut out of a log: the trace around the line stamped `stamp`
 * (kernel log), or the TAP lines ending at the "not ok" of test `test`. */
struct target {
	const char *stamp;
	const char *test, *testcase;
};

/* Stream the data of an opened raw reader through the scanner. */
static void scan_reader(struct archive *ar, const char *name, const struct target *tg,
			const struct rm_evidence_limits *lim, struct rm_evidence *out)
{
	struct archive_entry *e;
	struct scanner sc;
	char buf[65536];
	la_ssize_t got = 0;
	int r = archive_read_next_header(ar, &e);

	if (r == ARCHIVE_EOF) {
		set_problem(out, "%s is empty%s", name, "");
		return;
	}
	if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
		unreadable(out, "%s cannot be read: %s", name, ar);
		return;
	}
	sc_init(&sc, tg->stamp, lim);
	if (tg->test)
		sc.words = test_words(tg->test, tg->testcase, &sc.nwords);
	if (tg->test)
		sc.tag = test_name(tg->test, tg->testcase);
	/* at most max_log bytes: a chunk that goes past them says the log
	 * holds more (a log of exactly max_log bytes is read whole) */
	while (!sc.done && !out->cut && (got = archive_read_data(ar, buf, sizeof(buf))) > 0) {
		size_t take = (size_t)got;

		if ((unsigned long long)got > lim->max_log - out->bytes) {
			take = (size_t)(lim->max_log - out->bytes);
			out->cut = true;
		}
		out->bytes += take;
		sc_feed(&sc, buf, take);
	}
	if (!sc.done && got < 0)
		unreadable(out, "%s cannot be read to its end (corrupt or truncated): %s", name, ar);
	else
		sc_finish(&sc);
	sc_result(&sc, out);
	if (out->cut) {
		char *cap = size_words(lim->max_log);

		/* the report says it where it says why there is no excerpt (or,
		 * beside an excerpt, report.c); the operator is told */
		if (!out->excerpt && !out->problem && tg->stamp)
			out->problem = rm_xstrfmt(
				"%s has no kernel message stamped [%s] in its first %s (it holds more; read no further)",
				name, tg->stamp, cap);
		else if (!out->excerpt && !out->problem && sc.ltp)
			out->problem = rm_xstrfmt(
				"%s has no LTP test block tagged %s in its first %s (it holds more; read no further)",
				name, sc.tag, cap);
		else if (!out->excerpt && !out->problem)
			out->problem = rm_xstrfmt(
				"%s has no \"not ok\" line naming %s in its first %s (it holds more; read no further)",
				name, tg->test, cap);
		add_warning(out, rm_xstrfmt("%s decompresses to more than %s (the cap on one log, "
					    "against compression bombs): read no further; %s",
					    name, cap,
					    out->excerpt ? "the excerpt comes from the part read, and the report says the log was cut" :
							   "no excerpt in the part read"));
		free(cap);
	}
	if (!out->excerpt && tg->stamp)
		set_problem(out, "%s has no kernel message stamped [%s]", name, tg->stamp);
	if (!out->excerpt && tg->test && sc.ltp)
		set_problem(out, "%s has no LTP test block tagged %s", name, sc.tag);
	if (!out->excerpt && tg->test)
		set_problem(out, "%s has no \"not ok\" line naming %s", name, tg->test);
	sc_release(&sc);
}

static struct archive *raw_reader(void)
{
	struct archive *ar = archive_read_new();

	archive_read_support_filter_all(ar);
	archive_read_support_format_raw(ar);
	archive_read_support_format_empty(ar);
	return ar;
}

/* Scan the file at `path`, naming it `name` in problems. */
static void scan_path(const char *path, const char *name, const struct target *tg,
		      const struct rm_evidence_limits *lim, struct rm_evidence *out)
{
	struct archive *ar = raw_reader();

	if (archive_read_open_filename(ar, path, 65536) != ARCHIVE_OK)
		unreadable(out, "%s cannot be read (corrupt or truncated): %s", name, ar);
	else
		scan_reader(ar, name, tg, lim, out);
	archive_read_free(ar);
}

int rm_evidence_scan_file(const char *path, const char *stamp,
			  const struct rm_evidence_limits *lim, struct rm_evidence *out,
			  struct rm_error *err)
{
	FILE *probe = fopen(path, "rb");
	struct target tg = { stamp, NULL, NULL };

	memset(out, 0, sizeof(*out));
	if (!probe)
		return rm_error_set(err, RM_ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
	fclose(probe);
	if (rm_dynlib_need(RM_LIB_ARCHIVE, err))
		return -1;
	out->file = rm_xstrdup(path);
	scan_path(path, path, &tg, lim, out);
	return 0;
}

/* A log held in memory (an archive member), scanned for the target tg. */
static void scan_memory(const char *name, const void *data, size_t len, const struct target *tg,
			const struct rm_evidence_limits *lim, struct rm_evidence *out)
{
	struct archive *ar = raw_reader();

	memset(out, 0, sizeof(*out));
	out->file = rm_xstrdup(name);
	if (!len)
		set_problem(out, "%s is empty%s", name, "");
	else if (archive_read_open_memory(ar, data, len) != ARCHIVE_OK)
		unreadable(out, "%s cannot be read: %s", name, ar);
	else
		scan_reader(ar, name, tg, lim, out);
	archive_read_free(ar);
}

void rm_evidence_scan_memory(const char *name, const void *data, size_t len, const char *stamp,
			     const struct rm_evidence_limits *lim, struct rm_evidence *out)
{
	struct target tg = { stamp, NULL, NULL };

	scan_memory(name, data, len, &tg, lim, out);
}

void rm_evidence_scan_test_memory(const char *name, const void *data, size_t len,
				  const char *test, const char *testcase,
				  const struct rm_evidence_limits *lim, struct rm_evidence *out)
{
	struct target tg = { NULL, test, testcase };

	scan_memory(name, data, len, &tg, lim, out);
}

/* A member of a tarball, read through the outer reader as the inner raw
 * reader asks for bytes: neither the member nor the log is ever whole in
 * memory. */
struct member_src {
	struct archive *outer;
	char buf[65536];
};

static la_ssize_t member_read(struct archive *inner, void *ctx, const void **buf)
{
	struct member_src *m = ctx;
	la_ssize_t n = archive_read_data(m->outer, m->buf, sizeof(m->buf));

	if (n < 0) {
		archive_set_error(inner, EIO, "%s",
				  archive_error_string(m->outer) ? archive_error_string(m->outer) :
								   "read error");
		return -1;
	}
	*buf = m->buf;
	return n;
}

/* Scan the member `rel` of the tarball `source`; false when there is no
 * such member. */
static bool scan_tar_member(const char *source, const char *rel, const struct target *tg,
			    const struct rm_evidence_limits *lim, struct rm_evidence *out)
{
	struct archive *outer = archive_read_new();
	struct archive_entry *e;
	bool found = false;
	size_t rlen = strlen(rel);

	archive_read_support_filter_all(outer);
	archive_read_support_format_all(outer);
	if (archive_read_open_filename(outer, source, 65536) != ARCHIVE_OK) {
		archive_read_free(outer);
		return false;
	}
	while (archive_read_next_header(outer, &e) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);

		if (name && !strncmp(name, "./", 2))
			name += 2;
		if (!name || strncmp(name, rel, rlen) || name[rlen] ||
		    archive_entry_filetype(e) != AE_IFREG)
			continue;
		found = true;
		if (archive_entry_size_is_set(e) && archive_entry_size(e) == 0) {
			set_problem(out, "%s is empty%s", rel, "");
		} else {
			struct member_src *m = rm_xmalloc(sizeof(*m));
			struct archive *inner = raw_reader();

			m->outer = outer;
			if (archive_read_open(inner, m, NULL, member_read, NULL) != ARCHIVE_OK)
				unreadable(out, "%s cannot be read: %s", rel, inner);
			else
				scan_reader(inner, rel, tg, lim, out);
			archive_read_free(inner);
			free(m);
		}
		break;
	}
	archive_read_free(outer);
	return found;
}

/* Whether the archive has the member `rel`: for a directory, a regular
 * file (links are never followed); for a tarball, decided by scanning. */
static bool dir_has(const char *source, const char *rel, char **abs)
{
	struct stat st;

	*abs = rm_path_join(source, rel);
	return !lstat(*abs, &st) && S_ISREG(st.st_mode);
}

/* The log files of a run, in the order the readers look for them. */
static const char *const dmesg_order[] = { "dmesg.xz", "dmesg", ".dmesg", "kmsg.xz", "kmsg" };
static const char *const kmsg_order[] = { "kmsg.xz", "kmsg", "dmesg.xz", "dmesg", ".dmesg" };

/* Scan the first of the files `names` (n of them) of run `run` that
 * exists; false when it has none. */
static bool scan_run(const struct rm_archive *a, const struct rm_result_root *root, int run,
		     const char *const *names, size_t n, const struct target *tg,
		     const struct rm_evidence_limits *lim, struct rm_evidence *out)
{
	size_t k;

	for (k = 0; k < n; k++) {
		struct rm_sb rel = RM_SB_INIT;
		bool found = false;

		rm_sb_init(&rel);
		rm_sb_addf(&rel, "%s/%d/%s", root->path, run, names[k]);
		memset(out, 0, sizeof(*out));
		if (a->is_tarball) {
			found = scan_tar_member(a->source, rel.buf, tg, lim, out);
		} else {
			char *abs;

			found = dir_has(a->source, rel.buf, &abs);
			if (found)
				scan_path(abs, rel.buf, tg, lim, out);
			free(abs);
		}
		if (found) {
			out->file = rm_sb_detach(&rel, NULL);
			return true;
		}
		rm_evidence_free(out);
		rm_sb_release(&rel);
	}
	return false;
}

/* The test's own output of the first run that failed it: the TAP lines
 * through its "not ok" line. */
int rm_evidence_for_test(const struct rm_archive *a, const struct rm_result_root *root,
			 const char *name, const struct rm_evidence_limits *lim,
			 struct rm_evidence *out, struct rm_error *err)
{
	const char *testcase = rm_job_field(&root->job, "testcase");
	const struct rm_series *s = rm_matrix_get(&root->all, name);
	struct target tg = { NULL, name, testcase };
	struct rm_sb names[2] = { RM_SB_INIT, RM_SB_INIT };
	const char *nv[2];
	struct rm_evidence first, warned;
	bool any = false;
	size_t i;

	memset(out, 0, sizeof(*out));
	memset(&first, 0, sizeof(first));
	memset(&warned, 0, sizeof(warned));
	if (rm_dynlib_need(RM_LIB_ARCHIVE, err))
		return -1;
	if (!testcase || !*testcase || strchr(testcase, '/') || !strcmp(testcase, ".") ||
	    !strcmp(testcase, "..")) {
		set_problem(out, "the job names no testcase whose output could be read%s%s", "", "");
		return 0;
	}
	/* the program's raw output: <testcase>, or gzipped */
	rm_sb_init(&names[0]);
	rm_sb_init(&names[1]);
	rm_sb_adds(&names[0], testcase);
	rm_sb_addf(&names[1], "%s.gz", testcase);
	nv[0] = names[0].buf;
	nv[1] = names[1].buf;
	for (i = 0; i < root->nruns; i++) {
		struct rm_evidence e;

		if (!s || s->is_bad || s->is_string || i >= s->n || !(s->v[i] > 0))
			continue;
		if (!scan_run(a, root, root->runs[i], nv, 2, &tg, lim, &e))
			continue;
		any = true;
		/* every run's warnings go to the operator, whichever result is kept */
		move_warnings(&warned, &e);
		if (e.excerpt) {
			rm_evidence_free(&first);
			*out = e;
			break;
		}
		if (!first.problem)
			first = e;
		else
			rm_evidence_free(&e);
	}
	if (!out->excerpt) {
		if (first.problem)
			*out = first;
		else if (!any)
			set_problem(out, "no output of %s in the runs that failed it (%s)", testcase,
				    root->path);
	}
	move_warnings(out, &warned);
	rm_sb_release(&names[0]);
	rm_sb_release(&names[1]);
	return 0;
}

int rm_evidence_for_failure(const struct rm_archive *a, const struct rm_result_root *root,
			    const char *name, const struct rm_evidence_limits *lim,
			    struct rm_evidence *out, struct rm_error *err)
{
	const char *dot = strchr(name, '.');
	bool kmsg = !strncmp(name, "kmsg.", 5);
	struct rm_sb key = RM_SB_INIT;
	const struct rm_series *ts;
	size_t i;
	bool any_log = false;
	struct rm_evidence first, warned;

	memset(out, 0, sizeof(*out));
	memset(&first, 0, sizeof(first));
	memset(&warned, 0, sizeof(warned));
	if (rm_dynlib_need(RM_LIB_ARCHIVE, err))
		return -1;
	if (!dot || (strncmp(name, "dmesg.", 6) && !kmsg)) {
		set_problem(out, "'%s' is not a kernel-log failure%s", name, "");
		return 0;
	}
	rm_sb_init(&key);
	rm_sb_addf(&key, "%.*s.timestamp:%s", (int)(dot - name), name, dot + 1);
	ts = rm_matrix_get(&root->all, key.buf);
	/* the runs in order; a run without a recorded time for the id is
	 * skipped: its log cannot say where the failure starts */
	for (i = 0; i < root->nruns; i++) {
		char stamp[32];
		struct rm_evidence e;
		struct target tg = { stamp, NULL, NULL };

		if (!ts || ts->is_bad || ts->is_string || i >= ts->n || !(ts->v[i] > 0))
			continue;
		snprintf(stamp, sizeof(stamp), "%.6f", ts->v[i]);
		if (!scan_run(a, root, root->runs[i], kmsg ? kmsg_order : dmesg_order, 5, &tg, lim,
			      &e))
			continue;
		any_log = true;
		/* every run's warnings go to the operator, whichever result is kept */
		move_warnings(&warned, &e);
		if (e.excerpt) {
			rm_evidence_free(&first);
			rm_sb_release(&key);
			*out = e;
			move_warnings(out, &warned);
			return 0;
		}
		if (!first.problem)
			first = e;
		else
			rm_evidence_free(&e);
	}
	if (first.problem) {
		*out = first;
	} else if (!ts) {
		set_problem(out, "the archive records no %s: the excerpt cannot be located", key.buf,
			    "");
	} else if (!any_log) {
		set_problem(out, "no kernel log (dmesg.xz, dmesg, .dmesg, kmsg.xz, kmsg) in the runs of %s%s",
			    root->path, "");
	}
	move_warnings(out, &warned);
	rm_sb_release(&key);
	return 0;
}

/* ------------------------------------------------------------ copying */

int rm_evidence_copy_log(const struct rm_archive *a, const char *rel, const char *dst,
			 struct rm_error *err)
{
	FILE *out;
	char buf[65536];
	bool werr = false;
	int rc = 0;

	if (a->is_tarball && rm_dynlib_need(RM_LIB_ARCHIVE, err))
		return -1;
	out = fopen(dst, "wb");
	if (!out)
		return rm_error_set(err, RM_ERR_INTERNAL, "cannot write '%s': %s", dst,
				    strerror(errno));
	if (a->is_tarball) {
		struct archive *ar = archive_read_new();
		struct archive_entry *e;
		size_t rlen = strlen(rel);
		bool found = false;

		archive_read_support_filter_all(ar);
		archive_read_support_format_all(ar);
		if (archive_read_open_filename(ar, a->source, 65536) != ARCHIVE_OK)
			rc = rm_error_set(err, RM_ERR_INPUT, "cannot open '%s': %s", a->source,
					  archive_error_string(ar) ? archive_error_string(ar) : "unknown error");
		while (!rc && archive_read_next_header(ar, &e) == ARCHIVE_OK) {
			const char *name = archive_entry_pathname(e);
			la_ssize_t n;

			if (name && !strncmp(name, "./", 2))
				name += 2;
			if (!name || strncmp(name, rel, rlen) || name[rlen] ||
			    archive_entry_filetype(e) != AE_IFREG)
				continue;
			found = true;
			while (!werr && (n = archive_read_data(ar, buf, sizeof(buf))) > 0)
				werr = fwrite(buf, 1, (size_t)n, out) != (size_t)n;
			if (n < 0)
				rc = rm_error_set(err, RM_ERR_INPUT, "'%s': cannot read '%s': %s",
						  a->source, rel,
						  archive_error_string(ar) ? archive_error_string(ar) : "unknown error");
			break;
		}
		if (!rc && !found)
			rc = rm_error_set(err, RM_ERR_INPUT, "'%s': no member '%s'", a->source, rel);
		archive_read_free(ar);
	} else {
		char *abs = rm_path_join(a->source, rel);
		FILE *in = fopen(abs, "rb");

		if (!in) {
			rc = rm_error_set(err, RM_ERR_INPUT, "cannot open '%s': %s", abs, strerror(errno));
		} else {
			size_t n;

			while (!werr && (n = fread(buf, 1, sizeof(buf), in)) > 0)
				werr = fwrite(buf, 1, n, out) != n;
			if (ferror(in))
				rc = rm_error_set(err, RM_ERR_INPUT, "cannot read '%s'", abs);
			fclose(in);
		}
		free(abs);
	}
	if ((fclose(out) || werr) && !rc)
		rc = rm_error_set(err, RM_ERR_INTERNAL, "cannot write '%s'", dst);
	return rc;
}
