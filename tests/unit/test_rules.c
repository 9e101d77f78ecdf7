/* test_rules.c - rules.c's checks at load and its code made when paid: a
 * rule file's wrong pattern is named at load with its file and line, also
 * when its list or rule set is not compiled pattern by pattern (the
 * alternation checks the patterns it can), and the answers stay the same
 * once code is JIT-compiled after enough uses. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "unit.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileutil.h"
#include "strbuf.h"

/* A metrics file with `pass` (its patterns from line 8) and `direction`
 * (full mode, after the lists) as given, the other lists one pattern
 * each.  pass: YAML list items; dir: YAML rule items.  Loads it with the
 * real programs file; returns rm_rules_load's result (err filled). */
static int load_with(const char *pass_mode, const char *pass, const char *dir,
		     struct rm_rules *r, struct rm_error *err)
{
	const struct rm_rules *real = unit_rules();
	const char *t = getenv("TMPDIR");
	char *tmp = rm_path_join(t && *t ? t : "/tmp", "robotmail-unit.XXXXXX");
	char *file;
	struct rm_sb sb = RM_SB_INIT;
	int rc;

	assert_non_null(mkdtemp(tmp));
	rm_sb_init(&sb);
	rm_sb_addf(&sb,
		   "failure:\n  match: start\n  patterns:\n    - 'x\\.fail'\n"
		   "pass:\n  match: %s\n  patterns:\n%s"
		   "stat_denylist:\n  match: search\n  patterns:\n    - '^skip\\.'\n"
		   "stat_allowlist:\n  match: search\n  patterns:\n    - '^keep\\.'\n"
		   "report_allowlist:\n  match: search\n  patterns:\n    - '^report\\.'\n"
		   "perf_metrics_patterns:\n  match: search\n  patterns:\n    - '^perf\\.'\n"
		   "perf_metrics_prefixes:\n  match: prefix\n  patterns:\n    - 'perf-stat.'\n"
		   "perf_metrics_threshold:\n  match: full\n  rules:\n"
		   "    - {pattern: 'vmstat\\..*', value: 10}\n"
		   "direction:\n  match: full\n  rules:\n%s"
		   "linux_test_cases: [ltp]\nother_test_cases: [other]\n",
		   pass_mode, pass, dir);
	file = rm_path_join(tmp, "metrics.yaml");
	assert_int_equal(rm_write_file(file, sb.buf, sb.len), 0);
	rm_error_clear(err);
	rc = rm_rules_load(r, file, real->programs_file, err);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rmdir(tmp), 0);
	rm_sb_release(&sb);
	free(file);
	free(tmp);
	return rc;
}

static void assert_error_names(const struct rm_error *err, const char *line, const char *what)
{
	if (!strstr(err->msg, line) || !strstr(err->msg, what))
		fail_msg("error '%s' does not name %s and %s", err->msg, line, what);
	assert_int_equal(err->kind, RM_ERR_CONFIG);
}

static const char ok_dir[] = "    - {pattern: 'a\\.ops', weight: 1}\n"
			     "    - {pattern: 'b\\..*_latency', weight: -1}\n";

/* The patterns that pass: each alone compiles, and the list answers. */
static void test_rules_good_file_loads(void **state)
{
	struct rm_rules r;
	struct rm_error err;

	(void)state;
	assert_int_equal(load_with("start", "    - 'x\\.pass'\n    - 'y\\.(ok|done)'\n", ok_dir, &r,
				   &err),
			 0);
	assert_true(rm_rules_list_match(&r, &r.pass, "y.done"));
	assert_false(rm_rules_list_match(&r, &r.pass, "y.dont"));
	assert_true(rm_rules_direction(&r, "b.read_latency") < 0);
	assert_true(rm_rules_direction(&r, "a.ops") > 0);
	rm_rules_free(&r);
}

/* A list's wrong pattern is named with its line, whether it is compiled
 * alone (x( cannot be checked by its alternation) or found by its
 * alternation failing (*a), and the first one written is named. */
static void test_rules_list_pattern_errors(void **state)
{
	struct rm_rules r;
	struct rm_error err;

	(void)state;
	/* "x(" and "x)" are each wrong, but their alternation
	 * (?:^x()|(?:^x)) compiles: x( is still named */
	assert_int_equal(load_with("start", "    - 'x('\n    - 'x)'\n", ok_dir, &r, &err), -1);
	assert_error_names(&err, "line 8: pass", "invalid pattern 'x('");
	/* the same in search mode, where a class swallows the next branch */
	assert_int_equal(load_with("search", "    - 'a['\n    - ']'\n", ok_dir, &r, &err), -1);
	assert_error_names(&err, "line 8: pass", "invalid pattern 'a['");
	/* a pattern only its alternation checks, before one compiled alone */
	assert_int_equal(load_with("start", "    - 'ok'\n    - '*a'\n    - 'x('\n", ok_dir, &r,
				   &err),
			 -1);
	assert_error_names(&err, "line 8", "invalid pattern '*a'");
	assert_int_equal(load_with("start", "    - 'ok'\n    - 'z{2,1}'\n", ok_dir, &r, &err), -1);
	assert_error_names(&err, "line 8", "invalid pattern 'z{2,1}'");
}

/* The rules' file: the wrong rule's own line, the first wrong rule
 * written, and a pattern error before a later malformed rule. */
static void test_rules_rule_pattern_errors(void **state)
{
	struct rm_rules r;
	struct rm_error err;
	char *dir;

	(void)state;
	/* found by the marked alternation failing (the direction rules
	 * start at line 36; a list's error names its patterns' line, 8) */
	dir = rm_xstrfmt("%s    - {pattern: '*x', weight: 1}\n", ok_dir);
	assert_int_equal(load_with("start", "    - 'p'\n", dir, &r, &err), -1);
	assert_error_names(&err, "line 38", "invalid pattern '*x'");
	free(dir);
	/* each wrong alone, their alternation compiles */
	assert_int_equal(load_with("start", "    - 'p'\n",
				   "    - {pattern: 'x(', weight: 1}\n"
				   "    - {pattern: 'x)', weight: 1}\n",
				   &r, &err),
			 -1);
	assert_error_names(&err, "line 36", "invalid pattern 'x('");
	/* a wrong pattern before a rule without its weight: the pattern */
	assert_int_equal(load_with("start", "    - 'p'\n",
				   "    - {pattern: 'ok', weight: 1}\n"
				   "    - {pattern: '*x', weight: 1}\n"
				   "    - {pattern: 'late'}\n",
				   &r, &err),
			 -1);
	assert_error_names(&err, "line 37", "invalid pattern '*x'");
	/* and the other way round: the missing weight */
	assert_int_equal(load_with("start", "    - 'p'\n",
				   "    - {pattern: 'ok', weight: 1}\n"
				   "    - {pattern: 'early'}\n"
				   "    - {pattern: '*x', weight: 1}\n",
				   &r, &err),
			 -1);
	assert_error_names(&err, "line 37", "expected {pattern: STRING, weight: NUMBER}");
}

static size_t jit_size(const void *re)
{
	size_t size = 0;

	assert_int_equal(pcre2_pattern_info((const pcre2_code *)re, PCRE2_INFO_JITSIZE, &size), 0);
	return size;
}

/* The direction rules and a list's alternation get JIT code only after
 * enough uses, and answer the same before and after it as rules never
 * JIT-compiled (ROBOTMAIL_NO_JIT). */
static void test_rules_jit_when_paid(void **state)
{
	const struct rm_rules *real = unit_rules();
	struct rm_rules a, b;
	struct rm_error err;
	char name[128];
	const char *nojit = getenv("ROBOTMAIL_NO_JIT");
	uint32_t jit = 0;
	size_t i, slot = (unsigned char)'p';

	(void)state;
	pcre2_config(PCRE2_CONFIG_JIT, &jit);
	assert_int_equal(rm_rules_load(&a, real->metrics_file, real->programs_file, &err), 0);
	assert_int_equal(rm_rules_load(&b, real->metrics_file, real->programs_file, &err), 0);
	assert_non_null(a.direction_any);
	assert_non_null(a.stat_denylist.first[slot]);
	for (i = 0; i < 6000; i++) {
		double da, db;
		bool ka, kb;

		/* real stat names, some with a direction, most without; every
		 * other one of a program of its own: past RM_RULES_GROUPS_MAX
		 * programs the direction rules are asked as a whole */
		snprintf(name, sizeof(name),
			 i % 4 == 1   ? "perf-profile.calltrace.cycles-pp.f%zu.g"
			 : i % 4 == 3 ? "will-it-scale.%zu.ops"
				      : "\xc3\xa9will-it-scale%zu.ops",
			 i);
		if (i % 7 == 0)
			snprintf(name, sizeof(name), "will-it-scale.per_thread_ops");
		if (!nojit)
			setenv("ROBOTMAIL_NO_JIT", "1", 1);
		db = rm_rules_direction(&b, name);
		kb = rm_rules_keep_stat(&b, name);
		if (!nojit)
			unsetenv("ROBOTMAIL_NO_JIT");
		da = rm_rules_direction(&a, name);
		ka = rm_rules_keep_stat(&a, name);
		assert_true(da == db);
		assert_int_equal(ka, kb);
		if (i == 100) {
			/* used about 100 times: not yet worth JIT code */
			assert_non_null(a.stat_denylist.ascii[slot].code);
			assert_int_equal(jit_size(a.direction_any), 0);
			assert_int_equal(jit_size(a.stat_denylist.ascii[slot].code), 0);
		}
	}
	if (jit && !nojit) {
		assert_true(jit_size(a.direction_any) > 0);
		assert_true(jit_size(a.stat_denylist.ascii[slot].code) > 0);
	}
	assert_int_equal(jit_size(b.direction_any), 0);
	rm_rules_free(&a);
	rm_rules_free(&b);
}

/* rm_rules_focus: a stored name found without a lookup answers as the name
 * asked by its text does, for every question; a focus on one stat leaves
 * the answers about another as they are; a stored name of other rules
 * (which deny "skip.*" where the real ones report it: their entries hold
 * other answers) and NULL are ignored. */
static void test_rules_focus_same_answers(void **state)
{
	static const char *const names[] = {
		"will-it-scale.per_thread_ops", "perf-profile.calltrace.cycles-pp.f.g",
		"perf-stat.i.ipc", "ltp.syscalls.pass", "ltp.syscalls.fail", "dmesg.timestamp:x",
		"vmstat.mem.free", "meminfo.Active", "no.such.stat", "skip.me",
	};
	const struct rm_rules *real = unit_rules();
	struct rm_rules a, b;
	struct rm_error err;
	const char *stored[10], *other[10];
	size_t i, n = sizeof(names) / sizeof(names[0]);

	(void)state;
	assert_int_equal(rm_rules_load(&a, real->metrics_file, real->programs_file, &err), 0);
	assert_int_equal(load_with("search", "    - 'x\\.pass'\n", ok_dir, &b, &err), 0);
	assert_true(rm_rules_is_reportable(real, "skip.me"));
	assert_false(rm_rules_is_reportable(&b, "skip.me"));
	rm_rules_focus(&a, NULL); /* before any cache: nothing */
	for (i = 0; i < n; i++) {
		rm_rules_keep_stat_stored(&a, names[i], 0, &stored[i], NULL);
		rm_rules_keep_stat_stored(&b, names[i], 0, &other[i], NULL);
		assert_non_null(stored[i]);
		assert_string_equal(stored[i], names[i]);
		assert_ptr_not_equal(stored[i], other[i]);
	}
	for (i = 0; i < n; i++) {
		const char *k = stored[i], *next = stored[(i + 1) % n];

		rm_rules_focus(&a, k);
		/* asked about another stat while focused on k */
		assert_int_equal(rm_rules_is_reportable(&a, next),
				 rm_rules_is_reportable(real, names[(i + 1) % n]));
		rm_rules_focus(&a, k);
		assert_int_equal(rm_rules_is_reportable(&a, k), rm_rules_is_reportable(real, names[i]));
		assert_int_equal(rm_rules_is_function_stat(&a, k),
				 rm_rules_is_function_stat(real, names[i]));
		assert_int_equal(rm_rules_is_perf_metric(&a, k),
				 rm_rules_is_perf_metric(real, names[i]));
		assert_true(rm_rules_direction(&a, k) == rm_rules_direction(real, names[i]));
		assert_int_equal(rm_rules_reasonable_change(&a, k, 50, 2000),
				 rm_rules_reasonable_change(real, names[i], 50, 2000));
		/* b's copy: ignored by a, then answered by its text */
		rm_rules_focus(&a, other[i]);
		assert_int_equal(rm_rules_is_reportable(&a, other[i]),
				 rm_rules_is_reportable(real, names[i]));
		assert_int_equal(rm_rules_keep_stat(&a, other[i]), rm_rules_keep_stat(real, names[i]));
		assert_true(rm_rules_direction(&a, other[i]) == rm_rules_direction(real, names[i]));
		rm_rules_focus(&a, NULL);
	}
	rm_rules_free(&a);
	rm_rules_free(&b);
}

/* decide() first tries the entry made after the last one answered (a
 * second matrix lists its stats in the first one's order): names asked
 * again in the order they were entered, across several 64 KiB chunks of
 * entries, every other one, and names that are a prefix or an extension
 * of the entry tried, each find their own entry (the copy lent the first
 * time) and the answers a fresh cache gives. */
static void test_rules_next_entry_guess(void **state)
{
	const struct rm_rules *real = unit_rules();
	struct rm_rules a;
	struct rm_error err;
	enum { N = 3000 };
	char (*names)[128] = calloc(N, 128);
	const char **first = calloc(N, sizeof(*first));
	size_t i, pass;

	(void)state;
	assert_non_null(names);
	assert_non_null(first);
	assert_int_equal(rm_rules_load(&a, real->metrics_file, real->programs_file, &err), 0);
	for (i = 0; i < N; i++) {
		bool again = false;

		snprintf(names[i], 128, "%s.f%zu.%s", i % 3 ? "perf-profile.calltrace.cycles-pp" : "meminfo",
			 i, i % 2 ? "Active" : "x");
		rm_rules_keep_stat_stored(&a, names[i], 0, &first[i], &again);
		assert_non_null(first[i]);
	}
	for (pass = 0; pass < 3; pass++) {
		for (i = pass == 1; i < N; i += pass == 1 ? 2 : 1) {
			const char *stored = NULL;
			bool again = false;
			char shorter[128], longer[160];

			assert_int_equal(rm_rules_keep_stat_stored(&a, names[i], 0, &stored, &again),
					 rm_rules_keep_stat(real, names[i]));
			assert_ptr_equal(stored, first[i]);
			if (pass == 2 && i + 1 < N) {
				/* the next entry's name cut short, and made longer */
				snprintf(shorter, sizeof(shorter), "%.*s", (int)strlen(names[i + 1]) - 1,
					 names[i + 1]);
				rm_rules_keep_stat_stored(&a, shorter, 0, &stored, &again);
				assert_string_equal(stored, shorter);
				assert_ptr_not_equal(stored, first[i + 1]);
				rm_rules_focus(&a, first[i]);
				snprintf(longer, sizeof(longer), "%sz", names[i + 1]);
				rm_rules_keep_stat_stored(&a, longer, 0, &stored, &again);
				assert_string_equal(stored, longer);
				rm_rules_focus(&a, first[i]);
			}
		}
	}
	rm_rules_free(&a);
	free(names);
	free(first);
}

/* pattern p alone under mode, as lkp-tests means it (the oracle); NULL
 * for prefix mode (a string compare). */
static pcre2_code *alone(const char *mode, const char *p)
{
	char *text;
	int code;
	PCRE2_SIZE off;
	pcre2_code *re;

	if (!strcmp(mode, "prefix"))
		return NULL;
	text = rm_xstrfmt(!strcmp(mode, "start") ? "^(?:%s)" : !strcmp(mode, "full") ? "^(?:%s)$" : "(?:%s)", p);
	re = pcre2_compile((PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &off, NULL);
	assert_non_null(re);
	free(text);
	return re;
}

/* The required-literal gates in front of a list's alternations (rules.c:
 * a name without any of the literals every match holds skips the
 * alternation) never change an answer: patterns that stress the walk
 * (groups of literal alternatives, quantified characters and groups,
 * escapes, classes, counted repeats, anchors, \Q), each alone as a list
 * (so that its alternation has a gate of its own) and all together, in
 * each match mode, against the pattern matched alone, over 1,500 names
 * built from the patterns' own pieces (so that the literals are there,
 * partly there, at the start or not), before and after a gate is dropped
 * for letting most names through. */
static void test_rules_gates_same_answers(void **state)
{
	static const char *const pats[] = {
		".+\\.(error|warn|fail)[^_]*$", "ab(cd|ef)gh", "(xy|zw)?qrs", "foo(bar|baz)+qux",
		"k+lmn", "ab*cde", "ab?cde", "x\\.y{2}zz", "[abc]def", "^abc.*xyz", "pq(r|st)", "uvw$",
		"aa(bb|c)*dd", "(ab|)cde", "hij(k)lm", "mn\\d+op", "\\(paren\\)", "we(ird|ll)?xx",
		"a.b.c", "e.{2}fgh", "^(?:abc)d", "zz\\Qa.b\\E", "tail\\.pass$", "{#:#}", "lmn(op)?qrs",
		"rst+uv", "xx(yy|zz)", "de[f]gh", "pq.?rst", "bar(baz|qux){2}end", "abc?defg",
		"xyzw*uv",
	};
	static const char *const pieces[] = {
		"a", "b", "c", "d", "ab", "cd", "ef", "gh", "xy", "zw", "qrs", "foo", "bar", "baz", "qux",
		"k", "lmn", "cde", "x.", "yy", "zz", "def", "xyz", "pq", "r", "st", "uvw", "bb", "dd",
		"hij", "lm", "mn", "1", "op", "(paren)", "we", "ird", "ll", "xx", ".", "_", ".error",
		".warn", "fail", "tail", ".pass", "{#:#}", "a.b", "fgh", "e", "-", "rst", "ttuv", "end",
		"abdefg", "xyzuv", "\xc3\xa9", "\n",
	};
	static const char *const modes[] = { "start", "full", "search", "prefix" };
	const size_t npats = sizeof(pats) / sizeof(pats[0]), npieces = sizeof(pieces) / sizeof(pieces[0]);
	char (*names)[128] = rm_xcalloc(1500, sizeof(*names));
	pcre2_match_data *md = pcre2_match_data_create(4, NULL);
	size_t i, m, k, n, which;
	uint32_t seed = 12345;

	(void)state;
	for (n = 0; n < 1500; n++) {
		size_t parts;

		seed = seed * 1103515245u + 12345u;
		parts = 1 + (seed >> 16) % 5;
		for (k = 0; k < parts; k++) {
			seed = seed * 1103515245u + 12345u;
			/* non-ASCII and control characters only now and then */
			i = (seed >> 16) % npieces;
			if (i >= npieces - 2 && (seed >> 8) % 8)
				i = 0;
			strcat(names[n], pieces[i]);
		}
		if (n % 5 == 0) /* a pattern's own text, as a name */
			snprintf(names[n], sizeof(names[n]), "%s", pats[n / 5 % npats]);
	}
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		/* which < npats: that pattern alone; npats: all of them */
		for (which = 0; which <= npats; which++) {
			struct rm_sb list = RM_SB_INIT;
			pcre2_code *re[sizeof(pats) / sizeof(pats[0])];
			struct rm_rules r;
			struct rm_error err;
			size_t lo = which < npats ? which : 0, hi = which < npats ? which + 1 : npats;

			rm_sb_init(&list);
			for (i = lo; i < hi; i++) {
				rm_sb_addf(&list, "    - '%s'\n", pats[i]);
				re[i] = alone(modes[m], pats[i]);
			}
			if (load_with(modes[m], list.buf, ok_dir, &r, &err))
				fail_msg("load: %s", err.msg);
			for (n = 0; n < 1500; n++) {
				bool want = false;

				for (i = lo; i < hi && !want; i++)
					want = re[i] ? pcre2_match(re[i], (PCRE2_SPTR)names[n], strlen(names[n]), 0,
								   0, md, NULL) >= 0
						     : !strncmp(names[n], pats[i], strlen(pats[i]));
				if (rm_rules_list_match(&r, &r.pass, names[n]) != want)
					fail_msg("mode %s, %s: '%s': the list says %d, the patterns alone %d",
						 modes[m], which < npats ? pats[which] : "all", names[n], !want,
						 want);
			}
			for (i = lo; i < hi; i++)
				pcre2_code_free(re[i]);
			rm_rules_free(&r);
			rm_sb_release(&list);
		}
	}
	pcre2_match_data_free(md);
	free(names);
}

const struct CMUnitTest unit_rules_tests[] = {
	cmocka_unit_test(test_rules_good_file_loads),
	cmocka_unit_test(test_rules_list_pattern_errors),
	cmocka_unit_test(test_rules_rule_pattern_errors),
	cmocka_unit_test(test_rules_jit_when_paid),
	cmocka_unit_test(test_rules_focus_same_answers),
	cmocka_unit_test(test_rules_next_entry_guess),
	cmocka_unit_test(test_rules_gates_same_answers),
};
const size_t unit_rules_ntests = sizeof(unit_rules_tests) / sizeof(unit_rules_tests[0]);
