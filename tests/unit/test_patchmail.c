/* test_patchmail.c - rm_patchmail_parse: the subject, and the body's
 * "base-commit:" line of git format-patch --base (report-format.md 3 item
 * 4: what `base:` names). */
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

const struct CMUnitTest unit_patchmail_tests[] = {
	cmocka_unit_test(test_base_commit_line),
	cmocka_unit_test(test_no_base_commit),
};
const size_t unit_patchmail_ntests = sizeof(unit_patchmail_tests) / sizeof(unit_patchmail_tests[0]);
