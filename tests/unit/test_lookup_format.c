/* test_lookup_format.c - rm_lookup_format: `robotmail commit`'s text for a found
 * commit, every fact on its line and where it came from. */
#include "unit.h"

#include <string.h>

#include "lookup.h"
#include "strbuf.h"

static void test_format_every_fact(void **state)
{
	struct rm_lookup_req r;
	struct rm_trailer tr = { (char *)"Signed-off-by", (char *)"A U Thor <a@example.org>" };
	char *files[] = { (char *)"mm/mlock.c", (char *)"include/linux/mm.h" };
	struct rm_sb out = RM_SB_INIT;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.facts.sha = (char *)"0123456789abcdef0123456789abcdef01234567";
	r.facts.upstream_sha = (char *)"89abcdef";
	r.facts.subject = (char *)"mm: fix it";
	r.facts.author.name = (char *)"A U Thor";
	r.facts.author.email = (char *)"a@example.org";
	r.facts.committer.email = (char *)"c@example.org";
	r.facts.date = (char *)"2025-10-17T09:53:20+02:00";
	r.facts.commit_time = 1760694800;
	r.facts.parent = (char *)"fedcba98";
	r.facts.patch_msgid = (char *)"20251017.1@example.org";
	r.facts.trailers = &tr;
	r.facts.ntrailers = 1;
	r.facts.files = files;
	r.facts.nfiles = 2;
	r.requests = 2;
	rm_sb_init(&out);
	rm_lookup_format(&r, &out);
	assert_string_equal(out.buf,
			    "sha: 0123456789abcdef0123456789abcdef01234567\n"
			    "matched-by-subject: 89abcdef\n"
			    "subject: mm: fix it\n"
			    "author: A U Thor <a@example.org>\n"
			    "committer:  <c@example.org>\n"
			    "date: 2025-10-17T09:53:20+02:00\n"
			    "committed: 2025-10-17T09:53:20Z\n"
			    "parent: fedcba98\n"
			    "patch-message-id: <20251017.1@example.org>\n"
			    "trailer: Signed-off-by: A U Thor <a@example.org>\n"
			    "file: mm/mlock.c\n"
			    "file: include/linux/mm.h\n"
			    "source: network (2 requests)\n");
	rm_sb_release(&out);
}

static void test_format_bare_from_cache(void **state)
{
	struct rm_lookup_req r;
	struct rm_sb out = RM_SB_INIT;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.facts.sha = (char *)"abcd1234";
	r.from_cache = true;
	rm_sb_init(&out);
	rm_lookup_format(&r, &out);
	/* what is missing is left out, but sha, subject and author always show */
	assert_string_equal(out.buf, "sha: abcd1234\nsubject: \nauthor:  <>\nsource: cache (0 requests)\n");
	r.requests = 1;
	rm_sb_release(&out);
	rm_sb_init(&out);
	rm_lookup_format(&r, &out);
	assert_non_null(strstr(out.buf, "source: cache (1 request)\n"));
	rm_sb_release(&out);
}

const struct CMUnitTest unit_lookup_format_tests[] = {
	cmocka_unit_test(test_format_every_fact),
	cmocka_unit_test(test_format_bare_from_cache),
};
const size_t unit_lookup_format_ntests = sizeof(unit_lookup_format_tests) / sizeof(unit_lookup_format_tests[0]);
