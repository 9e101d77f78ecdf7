/* test_patchmail.c - rm_patchmail_parse: the subject, the sender, the
 * In-Reply-To (a series' cover letter), and the body's "base-commit:" line
 * of git format-patch --base (report-format.md 3 item 4: a series that
 * names its base gets no `base:` line); rm_patchmail_series_number. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "patchmail.h"

static void parse(const char *mail, struct rm_patch_mail *p)
{
	struct rm_error err;

	assert_int_equal(rm_patchmail_parse(p, mail, strlen(mail), "mail", &err), 0);
}

static void test_base_commit_line(void **state)
{
	struct rm_patch_mail p;

	(void)state;
	parse("From: Ann <ann@example.org>\r\nSubject: [PATCH v4 3/4] mm: thp: x\r\n\r\n"
	      "body\r\nbase-commit: E406D57BE7BD2A4E73EA512C1AE36A40A44E499E\r\n"
	      "-- \r\n2.43.0\r\n",
	      &p);
	assert_string_equal(p.subject, "[PATCH v4 3/4] mm: thp: x");
	assert_non_null(p.base_commit);
	assert_string_equal(p.base_commit, "e406d57be7bd2a4e73ea512c1ae36a40a44e499e");
	rm_patchmail_free(&p);
}

static void test_no_base_commit(void **state)
{
	struct rm_patch_mail p;

	(void)state;
	/* in a header, quoted, short, or with text after the digits: not it */
	parse("From x Mon Sep 17 00:00:00 2001\nSubject: [PATCH] a\n"
	      "X-Note: base-commit: e406d57be7bd2a4e73ea512c1ae36a40a44e499e\n\n"
	      "> base-commit: e406d57be7bd2a4e73ea512c1ae36a40a44e499e\n"
	      "base-commit: e406d57be7bd\n"
	      "base-commit: e406d57be7bd2a4e73ea512c1ae36a40a44e499e (v6.18)\n"
	      "base-commit: g406d57be7bd2a4e73ea512c1ae36a40a44e499e\n",
	      &p);
	assert_null(p.base_commit);
	rm_patchmail_free(&p);
}

static void test_sender_and_in_reply_to(void **state)
{
	struct rm_patch_mail p;

	(void)state;
	parse("From: Luka Bai <lukafocus@example.org>\nSubject: [PATCH 4/5] mm: x\n"
	      "Message-Id: <s-v1-4-ab@example.org>\n"
	      "References: <s-v1-0-ab@example.org>\nIn-Reply-To: <s-v1-0-ab@example.org>\n\n"
	      "From: Luka Bai <luka@example.org>\n\nbody\n",
	      &p);
	/* the header's sender, not the body's From: line (the commit's author) */
	assert_string_equal(p.from, "Luka Bai <lukafocus@example.org>");
	assert_string_equal(p.in_reply_to, "s-v1-0-ab@example.org");
	assert_null(p.base_commit);
	rm_patchmail_free(&p);
	parse("From: ann@example.org\nSubject: [PATCH] a\n\nbody\n", &p);
	assert_string_equal(p.from, "ann@example.org");
	assert_null(p.in_reply_to);
	rm_patchmail_free(&p);
}

static void test_series_number(void **state)
{
	unsigned n = 99, t = 99;

	(void)state;
	assert_int_equal(rm_patchmail_series_number("[PATCH v2 net-next 3/5] net: x", &n, &t), 1);
	assert_int_equal(n, 3);
	assert_int_equal(t, 5);
	assert_int_equal(rm_patchmail_series_number("[PATCH 0/5] mm: cover", &n, &t), 1);
	assert_int_equal(n, 0);
	assert_int_equal(t, 5);
	assert_int_equal(rm_patchmail_series_number("[RFC 6/6] apparmor: x", &n, &t), 1);
	assert_int_equal(n, 6);
	/* no number, one outside the first tag, a date, n over N, N of 0 */
	n = t = 99;
	assert_int_equal(rm_patchmail_series_number("[PATCH] mm: a 1/2 split", &n, &t), 0);
	assert_int_equal(rm_patchmail_series_number("[PATCH v3] x [2/3]", &n, &t), 0);
	assert_int_equal(rm_patchmail_series_number("[PATCH 2025/10/01] x", &n, &t), 0);
	assert_int_equal(rm_patchmail_series_number("[PATCH 6/5] x", &n, &t), 0);
	assert_int_equal(rm_patchmail_series_number("[PATCH 0/0] x", &n, &t), 0);
	assert_int_equal(rm_patchmail_series_number("[PATCH v2 x/5] x", &n, &t), 0);
	assert_int_equal(rm_patchmail_series_number("no tag 1/2", &n, &t), 0);
	assert_int_equal(rm_patchmail_series_number(NULL, &n, &t), 0);
	assert_int_equal(n, 99);
	assert_int_equal(t, 99);
}

const struct CMUnitTest unit_patchmail_tests[] = {
	cmocka_unit_test(test_base_commit_line),
	cmocka_unit_test(test_no_base_commit),
	cmocka_unit_test(test_sender_and_in_reply_to),
	cmocka_unit_test(test_series_number),
};
const size_t unit_patchmail_ntests = sizeof(unit_patchmail_tests) / sizeof(unit_patchmail_tests[0]);
