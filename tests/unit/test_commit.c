/* test_commit.c - commit facts: messages, trailers, patch links, the cache
 * records, and the cgit and forge parsers that fill them. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgit.h"
#include "commit.h"
#include "forge.h"

static const char *trailer(const struct rm_commit_facts *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->ntrailers; i++)
		if (!strcmp(f->trailers[i].key, key))
			return f->trailers[i].value;
	return NULL;
}

static void test_message_subject_body_trailers(void **state)
{
	struct rm_commit_facts f;

	(void)state;
	memset(&f, 0, sizeof(f));
	rm_commit_set_message(&f, "mm: a subject\nfolded on two lines\n\nThe body.\n\n"
				  "Signed-off-by: Ann Author <ann@example.org>\n"
				  "Link: https://lore.kernel.org/r/20251014-1-ann@example.org\n"
				  "Cc: list@example.org\n");
	assert_string_equal(f.subject, "mm: a subject folded on two lines");
	assert_int_equal(f.ntrailers, 3);
	assert_string_equal(trailer(&f, "Signed-off-by"), "Ann Author <ann@example.org>");
	assert_string_equal(f.patch_msgid, "20251014-1-ann@example.org");
	rm_commit_free(&f);

	/* git interpret-trailers: a last paragraph of mostly prose is no trailer block */
	rm_commit_set_message(&f, "x: y\n\nText.\n\nReviewed-by: A <a@example.org>\nnot a trailer\n"
				  "nor this\nnor that\nnor more\n");
	assert_int_equal(f.ntrailers, 0);
	assert_null(f.patch_msgid);
	rm_commit_free(&f);
	/* ... but a quarter of trailers with git's own Signed-off-by is one, the
	 * other lines ("[ maintainer's note ]") skipped */
	rm_commit_set_message(&f, "x: y\n\nText.\n\nSigned-off-by: A <a@example.org>\n"
				  "[ m: reworded the changelog ]\nSigned-off-by: M <m@example.org>\n");
	assert_int_equal(f.ntrailers, 2);
	assert_string_equal(f.trailers[1].value, "M <m@example.org>");
	rm_commit_free(&f);
	/* a message that contains "---" keeps its trailers (no patch divider in
	 * a commit message) */
	rm_commit_set_message(&f, "x: y\n\nText.\n---\nMore.\n\nSigned-off-by: A <a@example.org>\n");
	assert_int_equal(f.ntrailers, 1);
	rm_commit_free(&f);
	/* an empty message body: no trailers, no crash */
	rm_commit_set_message(&f, "only a subject");
	assert_string_equal(f.subject, "only a subject");
	assert_int_equal(f.ntrailers, 0);
	rm_commit_free(&f);
}

/* The patch's Message-ID chosen from message `m` (malloc()ed) or NULL. */
static char *chosen(const char *m)
{
	struct rm_commit_facts f;
	char *id;

	memset(&f, 0, sizeof(f));
	rm_commit_set_message(&f, m);
	id = f.patch_msgid ? strdup(f.patch_msgid) : NULL;
	rm_commit_free(&f);
	return id;
}

static void test_patch_link_choice(void **state)
{
	static const struct {
		const char *trailers, *want;
	} cases[] = {
		/* each form alone */
		{ "Link: https://patch.msgid.link/p1@example.org", "p1@example.org" },
		{ "Link: https://msgid.link/p1@example.org", "p1@example.org" },
		{ "Link: https://lore.kernel.org/r/p2@example.org", "p2@example.org" },
		{ "Link: https://lore.kernel.org/all/p3@example.org/", "p3@example.org" },
		{ "Link: https://lore.kernel.org/linux-mm/p4@example.org/T/", "p4@example.org" },
		{ "Link: https://lkml.kernel.org/r/p5@example.org", "p5@example.org" },
		{ "Message-Id: <p6@example.org>", "p6@example.org" },
		{ "Link: https://example.org/not-a-msgid", NULL },
		/* the patch's own posting beats a discussion and a report */
		{ "Link: https://lore.kernel.org/all/disc@example.org/\n"
		  "Link: https://patch.msgid.link/own@example.org", "own@example.org" },
		{ "Link: https://patch.msgid.link/own@example.org\n"
		  "Link: https://lore.kernel.org/all/disc@example.org/", "own@example.org" },
		{ "Link: https://lore.kernel.org/linux-mm/disc@example.org/\n"
		  "Link: https://lore.kernel.org/r/own@example.org", "own@example.org" },
		{ "Link: https://patch.msgid.link/own@example.org\nMessage-Id: <mid@example.org>",
		  "mid@example.org" },
		/* a Link: right after Reported-by: is the report's, never the patch */
		{ "Reported-by: robot <lkp@example.org>\n"
		  "Link: https://lore.kernel.org/oe-lkp/report-lkp@example.org\n"
		  "Signed-off-by: A <a@example.org>", NULL },
		{ "Reported-by: robot <lkp@example.org>\n"
		  "Link: https://lore.kernel.org/r/report-lkp@example.org\n"
		  "Signed-off-by: A <a@example.org>\n"
		  "Link: https://lore.kernel.org/all/own@example.org/", "own@example.org" },
		/* of equal ones the last (the maintainer's, added when applying) */
		{ "Link: https://lore.kernel.org/r/v1@example.org\n"
		  "Link: https://lore.kernel.org/r/v2@example.org", "v2@example.org" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char msg[1024], *got;

		snprintf(msg, sizeof(msg), "x: y\n\nBody.\n\n%s\n", cases[i].trailers);
		got = chosen(msg);
		if (cases[i].want) {
			assert_non_null(got);
			assert_string_equal(got, cases[i].want);
		} else {
			assert_null(got);
		}
		free(got);
	}
}

static void test_msgid_from_link(void **state)
{
	char *m;

	(void)state;
	m = rm_commit_msgid_from_link("https://lore.kernel.org/all/20251101-x-v2-1-abc%40example.org/");
	assert_string_equal(m, "20251101-x-v2-1-abc@example.org");
	free(m);
	m = rm_commit_msgid_from_link("https://patch.msgid.link/a.b@example.org");
	assert_string_equal(m, "a.b@example.org");
	free(m);
	assert_null(rm_commit_msgid_from_link("https://example.org/a@b"));
	assert_null(rm_commit_msgid_from_link("https://lore.kernel.org/r/no-at-sign"));
}

static void test_cache_json_round_trip(void **state)
{
	struct rm_commit_facts f, g;
	char *json;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.sha = strdup("0123456789abcdef0123456789abcdef01234567");
	f.commit_time = 1760694800;
	rm_commit_set_message(&f, "s: t\n\nSigned-off-by: A <a@example.org>\n");
	rm_commit_add_file(&f, "mm/memory.c", 11);
	rm_commit_add_file(&f, "mm/memory.c", 11);
	assert_int_equal(f.nfiles, 1);
	json = rm_commit_to_json(&f);
	assert_int_equal(rm_commit_from_cache_json(&g, json), 0);
	assert_string_equal(g.sha, f.sha);
	assert_string_equal(g.subject, "s: t");
	assert_int_equal(g.commit_time, 1760694800);
	assert_int_equal(g.ntrailers, 1);
	assert_string_equal(g.files[0], "mm/memory.c");
	rm_commit_free(&g);
	assert_int_equal(rm_commit_from_cache_json(&g, "{\"subject\":\"no sha\"}"), -1);
	assert_int_equal(rm_commit_from_cache_json(&g, "[1"), -1);
	free(json);
	rm_commit_free(&f);
}

static void test_sha_and_dates(void **state)
{
	(void)state;
	assert_true(rm_commit_valid_sha("deadbeef"));
	assert_false(rm_commit_valid_sha("abc"));
	assert_false(rm_commit_valid_sha("abc;rm -rf /"));
	assert_int_equal(rm_commit_date("2025-10-17 09:53:20 +0000"), 1760694800);
	assert_int_equal(rm_commit_date("2025-10-17T11:53:20+02:00"), 1760694800);
	assert_int_equal(rm_commit_date("2025-10-17T09:53:20.000Z"), 1760694800);
	assert_int_equal(rm_commit_date("yesterday"), 0);
	assert_int_equal(rm_commit_date("1760694800 +0200"), 1760694800);
	assert_int_equal(rm_commit_date("Fri, 17 Oct 2025 11:53:20 +0200"), 1760694800);
	assert_int_equal(rm_commit_date("17 Oct 2025 09:53:20 GMT"), 1760694800);
	assert_int_equal(rm_commit_date("2025-10-17T09:53:20"), 1760694800);
	assert_int_equal(rm_commit_date("2025-10-17T09:53:20 +2500"), 0);
	assert_int_equal(rm_commit_date("Fri, 17 Foo 2025 09:53:20 +0000"), 0);
	assert_int_equal(rm_commit_date("2025-13-17T09:53:20Z"), 0);
	assert_int_equal(rm_commit_date("12345"), 0);
}

static const char patch[] =
	"From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
	"From: =?UTF-8?q?J=C3=B6rg?= <joro@example.org>\n"
	"Date: Fri, 17 Oct 2025 09:53:20 +0000\n"
	"Subject: iommu: fix the thing\n"
	"\n"
	"Body.\n"
	"\n"
	"Signed-off-by: J <joro@example.org>\n"
	"---\n"
	" drivers/iommu/x.c | 1 +\n"
	"\n"
	"diff --git a/drivers/iommu/x.c b/drivers/iommu/x.c\n"
	"index 1..2 100644\n";

static const char patch_dashes[] =
	"From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
	"From: A <a@example.org>\n"
	"Subject: b: dashes\n"
	"\n"
	"Text.\n"
	"---\n"
	"After the dashes.\n"
	"\n"
	"Signed-off-by: A <a@example.org>\n"
	"Acked-by: R <r@example.org>\n"
	"---\n"
	" b | 1 +\n"
	"\n"
	"diff --git a/b b/b\n"
	"--- /dev/null\n"
	"+++ b/b\n"
	"-- \n"
	"cgit v1.2.3\n";

static void test_cgit_patch(void **state)
{
	struct rm_commit_facts f;
	struct rm_error err;

	(void)state;
	assert_int_equal(rm_cgit_parse_patch(&f, patch, strlen(patch), "p", &err), 0);
	assert_string_equal(f.sha, "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(f.subject, "iommu: fix the thing");
	assert_string_equal(f.author.name, "Jörg");
	assert_int_equal(f.ntrailers, 1);
	assert_int_equal(f.nfiles, 1);
	assert_string_equal(f.files[0], "drivers/iommu/x.c");
	rm_commit_free(&f);
	assert_int_equal(rm_cgit_parse_patch(&f, "hello", 5, "p", &err), -1);
	assert_non_null(strstr(err.msg, "p: expected a patch"));
	assert_false(rm_cgit_empty_patch("hello", 5));

	/* a "---" line of the message itself: the divider is the last one before the diff */
	assert_int_equal(rm_cgit_parse_patch(&f, patch_dashes, strlen(patch_dashes), "p", &err), 0);
	assert_int_equal(f.ntrailers, 2);
	assert_string_equal(f.trailers[1].key, "Acked-by");
	assert_non_null(strstr(f.body, "After the dashes."));
	assert_int_equal(f.nfiles, 1);
	rm_commit_free(&f);

	/* what cgit answers for an empty commit: no mbox, the signature only */
	assert_true(rm_cgit_empty_patch("-- \ncgit v1.2.3\n\n", 18));
	assert_int_equal(rm_cgit_parse_patch(&f, "-- \ncgit v1.2.3\n\n", 18, "p", &err), -1);
}

static void test_forge_json(void **state)
{
	static const char gh[] =
		"{\"sha\":\"0123456789abcdef0123456789abcdef01234567\",\"commit\":{\"message\":"
		"\"a: b\\n\\nLink: https://patch.msgid.link/x@example.org\",\"author\":{\"name\":\"A\","
		"\"email\":\"a@example.org\",\"date\":\"2025-10-17T09:53:20Z\"},\"committer\":{\"name\":"
		"\"M\",\"email\":\"m@example.org\",\"date\":\"2025-10-17T09:53:20Z\"}},"
		"\"parents\":[{\"sha\":\"1111111111111111111111111111111111111111\"}],"
		"\"files\":[{\"filename\":\"mm/x.c\"}]}";
	static const char gl[] =
		"{\"id\":\"0123456789abcdef0123456789abcdef01234567\",\"message\":\"a: b\\n\","
		"\"author_name\":\"A\",\"author_email\":\"a@example.org\",\"committed_date\":"
		"\"2025-10-17T09:53:20.000+00:00\",\"parent_ids\":[\"1111111111111111111111111111111111111111\"]}";
	struct rm_commit_facts f;
	struct rm_error err;

	(void)state;
	assert_int_equal(rm_forge_parse_commit(&f, RM_PROVIDER_GITHUB, gh, strlen(gh), "gh", &err), 0);
	assert_string_equal(f.subject, "a: b");
	assert_string_equal(f.patch_msgid, "x@example.org");
	assert_string_equal(f.parent, "1111111111111111111111111111111111111111");
	assert_int_equal(f.commit_time, 1760694800);
	assert_string_equal(f.files[0], "mm/x.c");
	rm_commit_free(&f);
	assert_int_equal(rm_forge_parse_commit(&f, RM_PROVIDER_GITLAB, gl, strlen(gl), "gl", &err), 0);
	assert_string_equal(f.author.email, "a@example.org");
	assert_int_equal(f.commit_time, 1760694800);
	rm_commit_free(&f);
	assert_int_equal(rm_forge_parse_commit(&f, RM_PROVIDER_GITHUB, "{}", 2, "gh", &err), -1);
	assert_non_null(strstr(err.msg, "gh: expected a commit object"));
}

/* Issue 15 point 6: every date form a provider gives is read, or the answer
 * fails naming the field; a date read wrong is never kept. */
/* 1970-01-01 is a date like any other (git's test repositories use it): a
 * failure is never told by the value 0 */
static void test_date_at_the_epoch(void **state)
{
	struct rm_error err;
	long long t = -1;

	(void)state;
	rm_error_clear(&err);
	assert_int_equal(rm_commit_read_date("1970-01-01 00:00:00 +0000", "d", "w", &t, &err), 0);
	assert_int_equal(t, 0);
	t = -1;
	assert_int_equal(rm_commit_read_date("1970-01-01T00:00:00+00:00", "d", "w", &t, &err), 0);
	assert_int_equal(t, 0);
	assert_int_equal(rm_commit_read_date("Thu, 1 Jan 1970 01:00:00 +0100", "d", "w", &t, &err), 0);
	assert_int_equal(t, 0);
	assert_int_equal(rm_commit_read_date("1970-13-01 00:00:00 +0000", "d", "w", &t, &err), -1);
	assert_non_null(strstr(err.msg, "field 'd'"));
}

static void test_dates_read_or_fail(void **state)
{
	static const char gh_fmt[] =
		"{\"sha\":\"0123456789abcdef0123456789abcdef01234567\",\"commit\":{\"message\":"
		"\"a: b\\n\",\"author\":{\"name\":\"A\",\"email\":\"a@example.org\",\"date\":\"%s\"},"
		"\"committer\":{\"name\":\"M\",\"email\":\"m@example.org\",\"date\":\"%s\"}}}";
	static const char gl_fmt[] =
		"{\"id\":\"0123456789abcdef0123456789abcdef01234567\",\"message\":\"a: b\\n\","
		"\"authored_date\":\"%s\",\"committed_date\":\"%s\"}";
	static const char page_fmt[] =
		"<table><tr><th>author</th><td>A &lt;a@example.org&gt;</td><td class='right'>%s</td></tr>"
		"<tr><th>committer</th><td>M &lt;m@example.org&gt;</td><td class='right'>%s</td></tr>"
		"<tr><th>commit</th><td colspan='2' class='sha1'><a href='/x/commit/?id=0123456789abcdef"
		"0123456789abcdef01234567'>0123456789abcdef0123456789abcdef01234567</a></td></tr></table>"
		"<div class='commit-subject'>a: b</div><div class='commit-msg'></div>";
	struct rm_commit_facts f;
	struct rm_error err;
	char buf[1024];
	long long t;

	(void)state;
	/* the forms themselves, old cgit's "(UTC)" included */
	assert_int_equal(rm_commit_date("2025-10-17 09:53:20 (UTC)"), 1760694800);
	assert_int_equal(rm_commit_date("2025-10-17 09:53:20 UTC"), 1760694800);
	assert_int_equal(rm_commit_date("Fri, 17 Oct 2025 09:53:20 +0000 (UTC)"), 1760694800);
	assert_int_equal(rm_commit_date("2025-10-17 11:53:20 (CEST)"), 0); /* ambiguous */
	assert_int_equal(rm_commit_read_date(NULL, "f", "w", &t, &err), 0);
	assert_int_equal(t, 0);
	assert_int_equal(rm_commit_read_date("", "f", "w", &t, &err), 0);
	assert_int_equal(rm_commit_read_date("2025-10-17T09:53:20Z", "f", "w", &t, &err), 0);
	assert_int_equal(t, 1760694800);
	assert_int_equal(rm_commit_read_date("17/10/2025\n", "when", "http://example.org/c", &t, &err),
			 -1);
	assert_int_equal(err.kind, RM_ERR_INPUT);
	assert_non_null(strstr(err.msg, "http://example.org/c: field 'when' holds '17/10/2025?'"));

	/* GitHub/Gitea: the committer's and the author's date */
	snprintf(buf, sizeof(buf), gh_fmt, "2025-10-17T09:53:20Z", "Fri Oct 17 09:53:20 2025");
	assert_int_equal(rm_forge_parse_commit(&f, RM_PROVIDER_GITHUB, buf, strlen(buf), "gh", &err),
			 -1);
	assert_non_null(strstr(err.msg, "gh: field 'commit.committer.date' holds 'Fri Oct 17"));
	snprintf(buf, sizeof(buf), gh_fmt, "yesterday", "2025-10-17T09:53:20Z");
	assert_int_equal(rm_forge_parse_commit(&f, RM_PROVIDER_GITEA, buf, strlen(buf), "gt", &err),
			 -1);
	assert_non_null(strstr(err.msg, "gt: field 'commit.author.date' holds 'yesterday'"));
	/* GitLab */
	snprintf(buf, sizeof(buf), gl_fmt, "2025-10-17T09:53:20.000+00:00", "17.10.2025 09:53");
	assert_int_equal(rm_forge_parse_commit(&f, RM_PROVIDER_GITLAB, buf, strlen(buf), "gl", &err),
			 -1);
	assert_non_null(strstr(err.msg, "gl: field 'committed_date' holds '17.10.2025 09:53'"));
	snprintf(buf, sizeof(buf), gl_fmt, "2025-10-17T11:53:20.123+02:00", "2025-10-17T09:53:20Z");
	assert_int_equal(rm_forge_parse_commit(&f, RM_PROVIDER_GITLAB, buf, strlen(buf), "gl", &err),
			 0);
	assert_int_equal(f.commit_time, 1760694800);
	assert_string_equal(f.date, "2025-10-17T11:53:20.123+02:00");
	rm_commit_free(&f);
	/* cgit's commit page: today's form, old cgit's "(UTC)", and one it cannot read */
	memset(&f, 0, sizeof(f));
	snprintf(buf, sizeof(buf), page_fmt, "2025-10-17 11:53:20 +0200", "2025-10-17 09:53:20 (UTC)");
	assert_int_equal(rm_cgit_parse_page(&f, buf, strlen(buf), true, "cg", &err), 0);
	assert_int_equal(f.commit_time, 1760694800);
	assert_string_equal(f.date, "2025-10-17T11:53:20+02:00");
	rm_commit_free(&f);
	memset(&f, 0, sizeof(f));
	snprintf(buf, sizeof(buf), page_fmt, "2025-10-17 09:53:20 (UTC)", "2025-10-17 09:53:20 +0000");
	assert_int_equal(rm_cgit_parse_page(&f, buf, strlen(buf), true, "cg", &err), 0);
	assert_string_equal(f.date, "2025-10-17T09:53:20+00:00");
	rm_commit_free(&f);
	memset(&f, 0, sizeof(f));
	snprintf(buf, sizeof(buf), page_fmt, "2025-10-17 09:53:20 +0000", "2025-10-17 11:53:20 (CEST)");
	assert_int_equal(rm_cgit_parse_page(&f, buf, strlen(buf), false, "cg", &err), -1);
	assert_non_null(strstr(err.msg, "cg: field 'committer date' holds '2025-10-17 11:53:20 (CEST)'"));
	rm_commit_free(&f);
	memset(&f, 0, sizeof(f));
	snprintf(buf, sizeof(buf), page_fmt, "3 hours ago", "2025-10-17 09:53:20 +0000");
	assert_int_equal(rm_cgit_parse_page(&f, buf, strlen(buf), true, "cg", &err), -1);
	assert_non_null(strstr(err.msg, "cg: field 'author date' holds '3 hours ago'"));
	rm_commit_free(&f);
}

const struct CMUnitTest unit_commit_tests[] = {
	cmocka_unit_test(test_message_subject_body_trailers),
	cmocka_unit_test(test_msgid_from_link),
	cmocka_unit_test(test_patch_link_choice),
	cmocka_unit_test(test_cache_json_round_trip),
	cmocka_unit_test(test_sha_and_dates),
	cmocka_unit_test(test_cgit_patch),
	cmocka_unit_test(test_forge_json),
	cmocka_unit_test(test_dates_read_or_fail),
	cmocka_unit_test(test_date_at_the_epoch),
};
const size_t unit_commit_ntests = sizeof(unit_commit_tests) / sizeof(unit_commit_tests[0]);
