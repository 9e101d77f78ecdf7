/*
 * test_recache.c - the compiled-pattern cache (bot/recache.c), in a
 * temporary $XDG_CACHE_HOME of its own: the metric rules loaded with the
 * cache off, cold (a cache file written) and warm (read back, nothing
 * written again) give the same answers for every stat name tried; a
 * corrupted, truncated, grown or foreign (magic, format version, PCRE2
 * version, entry bounds, code count) cache file is refused and the answers
 * stay the same; a rule file with a bad pattern fails with the same error
 * and leaves no cache file; a code is handed out only for the exact text
 * and options it was compiled from; ROBOTMAIL_CACHE=off writes nothing.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "unit.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileutil.h"
#include "recache.h"
#include "rules.h"
#include "strbuf.h"
#include "yamlcache.h"

#ifndef RM_DATADIR
#define RM_DATADIR "config"
#endif

static char cache_home[256];

static int setup(void **state)
{
	(void)state;
	return unit_cache_home_open(cache_home, sizeof(cache_home), "recache");
}

static int teardown(void **state)
{
	(void)state;
	return unit_cache_home_close(cache_home);
}

static char *data_path(const char *name)
{
	return rm_path_join(RM_DATADIR, name);
}

static char *read_all(const char *path, size_t *len)
{
	char *buf;
	struct rm_error err;

	assert_int_equal(rm_read_file(path, 1 << 26, &buf, len, &err), 0);
	return buf;
}

static int file_exists(const char *path)
{
	struct stat st;

	return path && stat(path, &st) == 0;
}

static void add_name(char ***v, size_t *n, const char *s)
{
	*v = rm_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = rm_xstrdup(s);
}

static void add_variants(char ***v, size_t *n, const char *p)
{
	char *s;

	add_name(v, n, p);
	s = rm_xstrfmt("x.%s", p);
	add_name(v, n, s);
	free(s);
	s = rm_xstrfmt("%s.y", p);
	add_name(v, n, s);
	free(s);
}

/* Stat names to ask about: fixed ones of every kind, and every pattern
 * text of the rules (as written) bare, after "x." and before ".y". */
static char **names_of(const struct rm_rules *r, size_t *n)
{
	static const char *const fixed[] = {
		"will-it-scale.per_process_ops", "will-it-scale.per_thread_ops",
		"dmesg.WARNING:at_kernel/foo.c:1_bar", "dmesg.timestamp:WARNING:at_x",
		"kmsg.sanitizer:foo", "ltp.uevent01.pass", "ltp.uevent01.fail",
		"xfstests.generic.001.fail", "last_state.is_incomplete_run", "boot_failures",
		"perf-stat.i.cache-misses", "proc-vmstat.nr_free_pages", "meminfo.Active",
		"iostat.sda.util", "lock_stat.x.contentions", "interrupts.CAL:Function_call",
		"time.elapsed_time", "fio.write_bw_MBps", "netperf.Throughput_Mbps",
		"vm-scalability.throughput", "stress-ng.fork.ops_per_sec",
		"nbytes\xc3\xa9.pass", "dmesg.\xc3\xa9rror.fail", "a\nb.pass", "bad\xff.fail", "", ".",
		"boot-meminfo.DirectMap1G", "boot-slabinfo.x", "hackbench.throughput",
	};
	const struct rm_pattern_list *lists[] = { &r->failure, &r->pass, &r->stat_denylist,
						  &r->stat_allowlist, &r->report_allowlist,
						  &r->perf_metrics_patterns, &r->perf_metrics_prefixes };
	char **v = NULL;
	size_t i, k;

	*n = 0;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		add_name(&v, n, fixed[i]);
	for (k = 0; k < sizeof(lists) / sizeof(lists[0]); k++)
		for (i = 0; i < lists[k]->n; i++)
			add_variants(&v, n, lists[k]->patterns[i]);
	for (i = 0; i < r->nthresholds; i++)
		add_variants(&v, n, r->thresholds[i].pattern);
	for (i = 0; i < r->ndirection; i++)
		add_variants(&v, n, r->direction[i].pattern);
	return v;
}

/* Every answer the rules give about each name, as one string. */
static char *answers(const struct rm_rules *r, char **names, size_t n)
{
	struct rm_sb sb = RM_SB_INIT;
	size_t i;

	rm_sb_init(&sb);
	for (i = 0; i < n; i++) {
		const char *s = names[i];

		rm_sb_addf(&sb, "%d%d%d%d%d%d%d%d%d %g\n", rm_rules_is_function_stat(r, s),
			   rm_rules_is_perf_metric(r, s), rm_rules_is_reportable(r, s),
			   rm_rules_keep_stat(r, s), rm_rules_list_match(r, &r->failure, s),
			   rm_rules_list_match(r, &r->stat_denylist, s),
			   rm_rules_list_match(r, &r->perf_metrics_patterns, s),
			   rm_rules_reasonable_change(r, s, 60.0, 2000.0),
			   rm_rules_reasonable_change(r, s, 3.0, 5.0), rm_rules_direction(r, s));
	}
	return rm_sb_detach(&sb, NULL);
}

static void load(struct rm_rules *r, const char *metrics)
{
	char *p = data_path("lkp-programs.yaml");
	struct rm_error err;

	if (rm_rules_load(r, metrics, p, &err))
		fail_msg("load %s: %s", metrics, err.msg);
	free(p);
}

/* The answers of the real rules loaded now (cache as the environment says). */
static char *load_answers(const char *metrics, char **names, size_t n)
{
	struct rm_rules r;
	char *a;

	load(&r, metrics);
	a = answers(&r, names, n);
	rm_rules_free(&r);
	return a;
}

struct fixture {
	char *metrics, *src, *path, *want;
	char **names;
	size_t len, n;
};

static void fixture_init(struct fixture *f)
{
	struct rm_rules r;

	f->metrics = data_path("metrics.yaml");
	f->src = read_all(f->metrics, &f->len);
	f->path = rm_recache_path(f->src, f->len);
	assert_non_null(f->path);
	unlink(f->path);
	setenv("ROBOTMAIL_CACHE", "off", 1);
	load(&r, f->metrics);
	f->names = names_of(&r, &f->n);
	f->want = answers(&r, f->names, f->n);
	rm_rules_free(&r);
	unsetenv("ROBOTMAIL_CACHE");
	assert_false(file_exists(f->path)); /* off: nothing written */
}

static void fixture_free(struct fixture *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	free(f->metrics);
	free(f->src);
	free(f->path);
	free(f->want);
}

static void test_cold_then_warm(void **state)
{
	struct fixture f;
	char *got, *img, *again;
	size_t size, size2, n;

	(void)state;
	fixture_init(&f);
	got = load_answers(f.metrics, f.names, f.n); /* cold */
	assert_string_equal(got, f.want);
	free(got);
	assert_true(file_exists(f.path));
	img = read_all(f.path, &size);
	assert_int_equal(rm_recache_check_image((unsigned char *)img, size, &n), 0);
	assert_true(n >= 50); /* the lists' and rules' alternations, the lazily made ones */
	got = load_answers(f.metrics, f.names, f.n); /* warm */
	assert_string_equal(got, f.want);
	free(got);
	/* a warm run found every code it needed: nothing written again */
	again = read_all(f.path, &size2);
	assert_int_equal(size, size2);
	assert_memory_equal(img, again, size);
	free(img);
	free(again);
	fixture_free(&f);
}

static void fix_sum(unsigned char *img, size_t size)
{
	uint64_t sum = rm_yamlcache_hash(img, size - 8);

	memcpy(img + size - 8, &sum, 8);
}

/* The damaged image img/size is refused, and the rules loaded over it
 * answer as without a cache (and write a valid file again). */
static void refused(struct fixture *f, const unsigned char *img, size_t size)
{
	size_t n;
	char *got, *back;

	assert_int_equal(rm_recache_check_image(img, size, &n), -1);
	assert_int_equal(rm_write_file(f->path, (const char *)img, size), 0);
	got = load_answers(f->metrics, f->names, f->n);
	assert_string_equal(got, f->want);
	free(got);
	back = read_all(f->path, &n);
	assert_int_equal(rm_recache_check_image((unsigned char *)back, n, &n), 0);
	free(back);
}

static void test_bad_images(void **state)
{
	struct fixture f;
	char *got;
	unsigned char *good, *img;
	size_t size, n, i;
	uint32_t v, ent[2];

	(void)state;
	fixture_init(&f);
	got = load_answers(f.metrics, f.names, f.n);
	free(got);
	good = (unsigned char *)read_all(f.path, &size);
	assert_int_equal(rm_recache_check_image(good, size, &n), 0);
	img = rm_xmalloc(size + 16);
	/* a flipped byte in the texts, in the codes, in the checksum */
	for (i = 0; i < 3; i++) {
		size_t at = i == 0 ? 64 + n * 8 + 3 : i == 1 ? size - 100 : size - 1;

		memcpy(img, good, size);
		img[at] ^= 0x20;
		refused(&f, img, size);
	}
	/* truncated, grown, empty-ish */
	memcpy(img, good, size);
	refused(&f, img, size / 2);
	refused(&f, img, size - 8);
	memcpy(img, good, size);
	memset(img + size, 0, 16);
	refused(&f, img, size + 16);
	fix_sum(img, size + 16);
	refused(&f, img, size + 16);
	refused(&f, img, 8);
	/* foreign, the checksum set right: magic, format version, byte
	 * order, PCRE2 version */
	for (i = 0; i < 4; i++) {
		static const size_t at[] = { 0, 8, 12, 16 };

		memcpy(img, good, size);
		img[at[i]] ^= 0x01;
		fix_sum(img, size);
		refused(&f, img, size);
	}
	/* an entry's text running past the texts, a text without its NUL,
	 * more entries than codes (the checksum set right) */
	memcpy(img, good, size);
	memcpy(ent, img + 64, 8);
	ent[1] += 1;
	memcpy(img + 64, ent, 8);
	fix_sum(img, size);
	refused(&f, img, size);
	memcpy(img, good, size);
	memcpy(ent, img + 64, 8);
	ent[1] = 0xffffff00u;
	memcpy(img + 64, ent, 8);
	fix_sum(img, size);
	refused(&f, img, size);
	memcpy(img, good, size);
	memcpy(&v, img + 48, 4); /* struct rhead's n */
	assert_int_equal(v, n);
	v -= 1;
	memcpy(img + 48, &v, 4);
	fix_sum(img, size);
	refused(&f, img, size);
	free(img);
	free(good);
	fixture_free(&f);
}

/* A metric rule file with one pattern changed: the error with the cache
 * on is the error with it off, and no cache file is left for it. */
static void bad_rule_file(const char *src, const char *from, const char *to)
{
	char *dir = rm_xstrfmt("%s/bad", cache_home), *file = rm_path_join(dir, "metrics.yaml");
	char *prog = data_path("lkp-programs.yaml"), *at = strstr(src, from), *text, *pc;
	struct rm_rules r;
	struct rm_error e1, e2;
	int i;

	assert_non_null(at);
	text = rm_xstrfmt("%.*s%s%s", (int)(at - src), src, to, at + strlen(from));
	mkdir(dir, 0700);
	assert_int_equal(rm_write_file(file, text, strlen(text)), 0);
	pc = rm_recache_path(text, strlen(text));
	setenv("ROBOTMAIL_CACHE", "off", 1);
	assert_int_equal(rm_rules_load(&r, file, prog, &e1), -1);
	unsetenv("ROBOTMAIL_CACHE");
	for (i = 0; i < 2; i++) {
		assert_int_equal(rm_rules_load(&r, file, prog, &e2), -1);
		assert_string_equal(e1.msg, e2.msg);
		assert_int_equal(e1.kind, e2.kind);
		assert_false(file_exists(pc));
	}
	unlink(file);
	rmdir(dir);
	free(pc);
	free(text);
	free(prog);
	free(file);
	free(dir);
}

static void test_bad_rule_file_never_cached(void **state)
{
	char *m = data_path("metrics.yaml"), *src;
	size_t len;

	(void)state;
	src = read_all(m, &len);
	/* a list's pattern, a threshold rule's and a direction rule's */
	bad_rule_file(src, "    - '.+\\.pass$'\n", "    - '.+\\.pass$'\n    - 'a(['\n");
	bad_rule_file(src, "    - 'Modules_linked_in'\n", "    - 'Modules_(linked_in'\n");
	bad_rule_file(src, "{pattern: '.*.time.elapsed_time.*'", "{pattern: '.*.time.(elapsed_time.*'");
	bad_rule_file(src, "{pattern: '.+\\.throughput'", "{pattern: '.+\\.throughput)'");
	free(src);
	free(m);
}

static int matches(const void *code, const char *s)
{
	pcre2_match_data *md = pcre2_match_data_create(4, NULL);
	int rc = pcre2_match(code, (PCRE2_SPTR)s, strlen(s), 0, 0, md, NULL);

	pcre2_match_data_free(md);
	return rc >= 0;
}

static void test_exact_keys(void **state)
{
	static const char src[] = "patterns: [a+b]\n";
	struct rm_recache *c;
	int e1, e2;
	size_t o1, o2;
	void *re, *plain;
	char *path = rm_recache_path(src, strlen(src));

	(void)state;
	unlink(path);
	c = rm_recache_open(src, strlen(src));
	assert_false(rm_recache_known(c, "^a+b", 4, 0));
	re = rm_recache_compile(c, "^a+b", 4, 0, &e1, &o1);
	assert_non_null(re);
	pcre2_code_free(re);
	re = rm_recache_compile(c, "^a+b$", 5, PCRE2_UTF, &e1, &o1);
	pcre2_code_free(re);
	/* an error is pcre2_compile's, and never kept */
	assert_null(rm_recache_compile(c, "a(b", 3, 0, &e1, &o1));
	plain = pcre2_compile((PCRE2_SPTR) "a(b", 3, 0, &e2, &o2, NULL);
	assert_null(plain);
	assert_int_equal(e1, e2);
	assert_int_equal(o1, o2);
	assert_false(rm_recache_known(c, "a(b", 3, 0));
	rm_recache_save(c);
	rm_recache_close(c);
	assert_true(file_exists(path));

	c = rm_recache_open(src, strlen(src));
	assert_true(rm_recache_known(c, "^a+b", 4, 0));
	assert_true(rm_recache_known(c, "^a+b$", 5, PCRE2_UTF));
	assert_false(rm_recache_known(c, "^a+b", 4, PCRE2_UTF));  /* other options */
	assert_false(rm_recache_known(c, "^a+b$", 5, 0));
	assert_false(rm_recache_known(c, "^a+b", 3, 0));          /* a prefix of a text */
	assert_false(rm_recache_known(c, "^a+bc", 5, 0));
	re = rm_recache_compile(c, "^a+b", 4, 0, &e1, &o1);       /* the cached code */
	assert_true(matches(re, "aab") && !matches(re, "xab") && !matches(re, "a"));
	pcre2_code_free(re);
	re = rm_recache_compile(c, "^a+b", 4, 0, &e1, &o1);       /* asked twice: compiled */
	assert_true(matches(re, "ab"));
	pcre2_code_free(re);
	rm_recache_close(c);
	/* another source's cache is another file */
	c = rm_recache_open("other", 5);
	assert_false(rm_recache_known(c, "^a+b", 4, 0));
	rm_recache_close(c);
	/* off: no file, plain compiles */
	setenv("ROBOTMAIL_CACHE", "off", 1);
	assert_null(rm_recache_path(src, strlen(src)));
	c = rm_recache_open(src, strlen(src));
	assert_false(rm_recache_known(c, "^a+b", 4, 0));
	re = rm_recache_compile(c, "^a+b", 4, 0, &e1, &o1);
	assert_true(matches(re, "ab"));
	pcre2_code_free(re);
	rm_recache_close(c);
	unsetenv("ROBOTMAIL_CACHE");
	free(path);
}

const struct CMUnitTest unit_recache_tests[] = {
	cmocka_unit_test(test_cold_then_warm),
	cmocka_unit_test(test_bad_images),
	cmocka_unit_test(test_bad_rule_file_never_cached),
	cmocka_unit_test(test_exact_keys),
};
const size_t unit_recache_ntests = sizeof(unit_recache_tests) / sizeof(unit_recache_tests[0]);

int unit_recache_setup(void **state)
{
	return setup(state);
}

int unit_recache_teardown(void **state)
{
	return teardown(state);
}
