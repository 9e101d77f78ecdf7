/* test_strbuf.c - the small shared utilities: strbuf's invariants (buf is
 * never NULL, also with RM_SB_INIT), rm_xstrfmt, the one UTF-8 decoder
 * (strbuf.h) and the one control-character scrubber (text.h); rm_prefault
 * changes no byte (aligned, unaligned, small blocks) and rm_xcalloc_touched
 * zeroes. */
#include "unit.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "text.h"

struct holder {
	int n;
	struct rm_sb sb;
};

static struct holder static_holder = { 1, RM_SB_INIT };

static void test_sb_init_buf_never_null(void **state)
{
	struct rm_sb sb = RM_SB_INIT, sb2;
	char *d;
	size_t len = 99;

	(void)state;
	/* as written by the initializer, before any call */
	assert_non_null(sb.buf);
	assert_string_equal(sb.buf, "");
	assert_int_equal(sb.len, 0);
	assert_non_null(static_holder.sb.buf);
	assert_string_equal(static_holder.sb.buf, "");
	rm_sb_init(&sb2);
	assert_ptr_equal(sb2.buf, sb.buf);
	/* releasing an untouched buffer frees nothing and leaves it valid */
	rm_sb_release(&sb);
	assert_non_null(sb.buf);
	/* the first add copies out of the shared empty string */
	rm_sb_adds(&sb, "abc");
	assert_ptr_not_equal(sb.buf, rm_sb_empty);
	assert_string_equal(rm_sb_empty, "");
	rm_sb_reset(&sb);
	assert_string_equal(sb.buf, "");
	rm_sb_release(&sb);
	assert_ptr_equal(sb.buf, rm_sb_empty);
	/* detaching an untouched buffer still hands out malloc'd memory */
	d = rm_sb_detach(&sb2, &len);
	assert_ptr_not_equal(d, rm_sb_empty);
	assert_string_equal(d, "");
	assert_int_equal(len, 0);
	free(d);
	assert_non_null(sb2.buf);
}

static void test_xstrfmt(void **state)
{
	char *s, *big;
	char want[301];

	(void)state;
	s = rm_xstrfmt("%s.%d", "marker", 5);
	assert_string_equal(s, "marker.5");
	free(s);
	memset(want, 'x', 300);
	want[300] = '\0';
	big = rm_xstrfmt("%s", want);
	assert_string_equal(big, want);
	free(big);
	s = rm_xstrfmt("%s", "");
	assert_string_equal(s, "");
	free(s);
}

static void test_utf8_decode(void **state)
{
	static const struct {
		const char *bytes;
		size_t len;
		unsigned cp;
	} cases[] = {
		{ "A", 1, 'A' },
		{ "\xc2\xb1", 2, 0xb1 },              /* the LKP "±" */
		{ "\xe2\x80\xa8", 3, 0x2028 },
		{ "\xf4\x8f\xbf\xbf", 4, 0x10ffff },
		{ "\xc0\x80", 0, 0xc0 },              /* overlong NUL */
		{ "\xe0\x80\xaf", 0, 0xe0 },          /* overlong '/' */
		{ "\xed\xa0\x80", 0, 0xed },          /* a surrogate */
		{ "\xf4\x90\x80\x80", 0, 0xf4 },      /* above U+10FFFF */
		{ "\x80", 0, 0x80 },                  /* a stray continuation byte */
		{ "\xc3(", 0, 0xc3 },                 /* cut short */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned cp = 0;

		assert_int_equal(rm_utf8_decode((const unsigned char *)cases[i].bytes, &cp), cases[i].len);
		assert_int_equal(cp, cases[i].cp);
	}
}

static void test_one_scrubber(void **state)
{
	char a[] = "a\r\nb\x1b[31m\x7f\t\xc3\xa9z";
	char b[] = "a\r\nb\x1b[31m\x7f\t\xc3\xa9z";
	struct rm_error err;

	(void)state;
	rm_text_scrub(a, '?');
	assert_string_equal(a, "a??b?[31m??\xc3\xa9z"); /* UTF-8 text is kept */
	rm_text_scrub(b, ' ');
	assert_string_equal(b, "a  b [31m  \xc3\xa9z");
	rm_text_scrub(NULL, ' ');
	/* errors go through it: one line, whatever they quote */
	rm_error_set(&err, RM_ERR_INPUT, "bad '%s'", "x\ny\rz");
	assert_string_equal(err.msg, "bad 'x?y?z'");
}

static void test_prefault(void **state)
{
	static const size_t sizes[] = { 0, 1, 4095, 4096, 5 * 4096 + 17, 300000 };
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i] + 3;
		unsigned char *p = rm_xmalloc(n);
		unsigned char *z = rm_xcalloc_touched(n, 1);

		for (j = 0; j < n; j++)
			p[j] = (unsigned char)(j * 7 + 1);
		rm_prefault(p + 3, sizes[i]); /* an unaligned start */
		rm_prefault(p, n);
		for (j = 0; j < n; j++)
			assert_int_equal(p[j], (unsigned char)(j * 7 + 1));
		for (j = 0; j < n; j++)
			assert_int_equal(z[j], 0);
		free(p);
		free(z);
	}
}


/* rm_sort_by_name against qsort with strcmp, on name sets made to reach
 * each path: short and long shared prefixes (one 8-byte key, then the
 * next), names that are prefixes of others, bytes >= 0x80 (unsigned
 * order), the empty name, sorted and reversed input, few and many names,
 * a 20 KiB shared prefix (the stack stays flat).  The elements carry a
 * payload: whole elements move, not only their names. */
static int strcmp_ptrs(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct named_elem {
	double before;
	const char *name;
	size_t payload;
};

static int cmp_named_elem(const void *a, const void *b)
{
	return strcmp(((const struct named_elem *)a)->name, ((const struct named_elem *)b)->name);
}

static void check_sort_by_name(char **names, size_t n)
{
	struct named_elem *got = malloc(n * sizeof(*got)), *want = malloc(n * sizeof(*want));
	size_t i;

	assert_non_null(got);
	assert_non_null(want);
	for (i = 0; i < n; i++) {
		got[i].before = (double)i;
		got[i].name = names[i];
		got[i].payload = i * 7 + 1;
	}
	static unsigned calls;
	uint32_t *at = malloc((n ? n : 1) * sizeof(*at));
	bool with_at = calls++ % 2;

	assert_non_null(at);
	memcpy(want, got, n * sizeof(*got));
	qsort(want, n, sizeof(*want), cmp_named_elem);
	/* with `at` every other time: the same order, and at[i] says where
	 * the element that was at i went */
	rm_sort_by_name(got, n, sizeof(*got), offsetof(struct named_elem, name), with_at ? at : NULL);
	for (i = 0; i < n; i++) {
		assert_ptr_equal(got[i].name, want[i].name);
		assert_int_equal(got[i].payload, want[i].payload);
		assert_true(got[i].before == want[i].before);
		if (with_at)
			assert_true(got[at[i]].payload == i * 7 + 1);
	}
	free(at);
	free(got);
	free(want);
}

static void test_sort_by_name(void **state)
{
	static const char *const stems[] = { "perf-profile.calltrace.cycles-pp.", "perf-profile.children.",
					     "meminfo.", "a", "", "\xc3\xa9t\xc3\xa9.", "zz\x80", "perf-profile.calltrace." };
	size_t sizes[] = { 2, 3, 7, 8, 9, 50, 1000, 20000 }, t, i, j;
	unsigned seed = 12345;

	(void)state;
	for (t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
		size_t n = sizes[t];
		char **names = malloc(n * sizeof(*names));
		size_t made = 0;

		assert_non_null(names);
		/* distinct names: a stem, then a numbered tail of random bytes */
		while (made < n) {
			char buf[96];
			int len;

			seed = seed * 1103515245u + 12345u;
			len = snprintf(buf, sizeof(buf), "%s%zu%c%c", stems[(seed >> 8) % 8], made,
				       (char)(0x21 + (seed >> 16) % 0x5e), (char)(0x80 + (seed >> 24) % 0x7f));
			assert_true(len > 0);
			names[made++] = strdup(buf);
		}
		check_sort_by_name(names, n);
		/* the same, sorted, then reversed */
		qsort(names, n, sizeof(*names), strcmp_ptrs);
		check_sort_by_name(names, n);
		for (i = 0, j = n - 1; i < j; i++, j--) {
			char *x = names[i];

			names[i] = names[j];
			names[j] = x;
		}
		check_sort_by_name(names, n);
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
	/* prefixes of each other ("", "a", "aa", ...) shuffled, and 200
	 * names sharing a 20 KiB prefix */
	{
		char *names[300];
		size_t n = 0;

		for (i = 0; i < 100; i++) {
			names[n] = malloc(i + 1);
			assert_non_null(names[n]);
			memset(names[n], 'a', i);
			names[n++][i] = '\0';
		}
		for (i = 0; i < 200; i++) {
			names[n] = malloc(20 * 1024 + 16);
			assert_non_null(names[n]);
			memset(names[n], 'p', 20 * 1024);
			snprintf(names[n++] + 20 * 1024, 16, "%03zu", (i * 37) % 200);
		}
		for (i = n - 1; i > 0; i--) {
			char *x;

			seed = seed * 1103515245u + 12345u;
			j = (seed >> 8) % (i + 1);
			x = names[i];
			names[i] = names[j];
			names[j] = x;
		}
		check_sort_by_name(names, n);
		for (i = 0; i < n; i++)
			free(names[i]);
	}
}

const struct CMUnitTest unit_strbuf_tests[] = {
	cmocka_unit_test(test_sort_by_name),
	cmocka_unit_test(test_prefault),
	cmocka_unit_test(test_sb_init_buf_never_null),
	cmocka_unit_test(test_xstrfmt),
	cmocka_unit_test(test_utf8_decode),
	cmocka_unit_test(test_one_scrubber),
};
const size_t unit_strbuf_ntests = sizeof(unit_strbuf_tests) / sizeof(unit_strbuf_tests[0]);
