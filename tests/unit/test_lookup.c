/* test_lookup.c - the asking rule of lookup.c over a fake commit cache (an
 * unknown commit asked again after 60 s, doubling up to the cap; a fresh
 * ask before giving up; nothing counted without a writable cache; malformed
 * answers temporary, then permanent), and forge.c's skim of JSON answers
 * (the diffs dropped, whatever the pieces they arrive in). */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fileutil.h"
#include "forge.h"
#include "lookup.h"
#include "strbuf.h"

#define SHA "0123456789abcdef0123456789abcdef01234567"

/* one miss record, as a store would keep it */
struct fake {
	bool have;
	struct rm_commit_miss rec;
	int puts;
};

static int f_get(void *ctx, const char *tree, const char *sha, char **json, bool *found)
{
	(void)ctx, (void)tree, (void)sha;
	*json = NULL;
	*found = false;
	return 0; /* the miss records speak for misses */
}

static int f_miss_get(void *ctx, const char *tree, const char *sha, struct rm_commit_miss *m)
{
	struct fake *f = ctx;

	(void)tree, (void)sha;
	if (!f->have)
		return 0;
	*m = f->rec;
	return 1;
}

static int f_miss_put(void *ctx, const char *tree, const char *sha, const struct rm_commit_miss *m)
{
	struct fake *f = ctx;

	(void)tree, (void)sha;
	f->have = true;
	f->rec = *m;
	f->puts++;
	return 0;
}

/* an empty clone: every commit is unknown to it */
static char *empty_clone(void)
{
	const char *t = getenv("TMPDIR");
	char *d = rm_path_join(t && *t ? t : "/tmp", "robotmail-unit.XXXXXX");
	struct rm_sb cmd = RM_SB_INIT;

	assert_non_null(mkdtemp(d));
	rm_sb_init(&cmd);
	rm_sb_addf(&cmd, "git init -q '%s'", d);
	assert_int_equal(system(cmd.buf), 0);
	rm_sb_release(&cmd);
	return d;
}

static void remove_dir(char *d)
{
	struct rm_sb cmd = RM_SB_INIT;

	rm_sb_init(&cmd);
	rm_sb_addf(&cmd, "rm -rf '%s'", d);
	assert_int_equal(system(cmd.buf), 0);
	rm_sb_release(&cmd);
	free(d);
}

static void ask(struct rm_lookup_req *r, const struct rm_tree_cfg *t, const struct rm_commit_cache *c,
		long long fresh_after)
{
	struct rm_gitweb_opts o;
	struct rm_error err;

	memset(&o, 0, sizeof(o));
	memset(r, 0, sizeof(*r));
	r->tree = t;
	r->sha = SHA;
	r->fresh_after = fresh_after;
	assert_int_equal(rm_lookup_run(r, 1, &o, c, &err), 0);
}

static void test_unknown_waits_grow(void **state)
{
	char *dir = empty_clone();
	struct rm_tree_cfg t;
	struct fake f;
	struct rm_commit_cache c = { &f, f_get, NULL, f_miss_get, f_miss_put, 300 };
	struct rm_lookup_req r;
	static const long long waits[] = { 60, 120, 240, 300, 300 };
	long long now, first = 0;
	size_t i;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(&f, 0, sizeof(f));
	t.name = "t";
	t.provider = RM_PROVIDER_LOCAL_GIT;
	t.api = dir;
	for (i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
		now = (long long)time(NULL);
		if (!i)
			first = now;
		ask(&r, &t, &c, 0);
		assert_int_equal(r.status, RM_LOOKUP_UNKNOWN);
		assert_false(r.from_cache);
		assert_int_equal(r.miss.attempts, i + 1);
		assert_int_equal(f.puts, i + 1);
		assert_int_equal(f.rec.attempts, i + 1);
		assert_int_equal(f.rec.next_at - f.rec.last_at, waits[i]);
		assert_true(f.rec.first_at >= first && f.rec.first_at <= f.rec.last_at);
		assert_true(f.rec.last_at >= now && f.rec.last_at <= (long long)time(NULL));
		if (!i)
			first = f.rec.first_at;
		assert_int_equal(f.rec.first_at, first); /* the first ask of the row stays */
		assert_string_equal(f.rec.failure, "");
		/* not due: answered from the record, nothing asked or counted */
		ask(&r, &t, &c, 0);
		assert_int_equal(r.status, RM_LOOKUP_UNKNOWN);
		assert_true(r.from_cache);
		assert_int_equal(r.requests, 0);
		assert_int_equal(r.miss.attempts, i + 1);
		assert_int_equal(f.puts, i + 1);
		f.rec.next_at = now - 1; /* the wait is over */
	}
	/* about to give up: a miss asked before fresh_after is asked again */
	f.rec.next_at = (long long)time(NULL) + 3600;
	f.rec.last_at = (long long)time(NULL) - 100;
	ask(&r, &t, &c, (long long)time(NULL) - 50);
	assert_false(r.from_cache);
	assert_int_equal(r.miss.attempts, 6);
	ask(&r, &t, &c, (long long)time(NULL) - 50); /* asked after it: the record holds */
	assert_true(r.from_cache);
	assert_int_equal(r.miss.attempts, 6);
	/* a read-only cache (a dry run): the same answer, nothing written */
	c.miss_put = NULL;
	f.rec.next_at = 0;
	ask(&r, &t, &c, 0);
	assert_false(r.from_cache);
	assert_int_equal(r.miss.attempts, 7);
	assert_int_equal(f.rec.attempts, 6);
	assert_int_equal(f.puts, 6);
	remove_dir(dir);
}

static void test_malformed_records(void **state)
{
	struct rm_tree_cfg t;
	struct fake f;
	struct rm_commit_cache c = { &f, f_get, NULL, f_miss_get, f_miss_put, 3600 };
	struct rm_lookup_req r;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(&f, 0, sizeof(f));
	t.name = "t";
	t.provider = RM_PROVIDER_GITHUB;
	t.api = "http://127.0.0.1:9/repos/o/r"; /* never asked: the records are not due */
	f.have = true;
	f.rec.attempts = 2;
	f.rec.first_at = f.rec.last_at = (long long)time(NULL);
	f.rec.next_at = f.rec.last_at + 600;
	snprintf(f.rec.failure, sizeof(f.rec.failure), "http://x/c: expected a JSON object");
	ask(&r, &t, &c, 0);
	assert_int_equal(r.status, RM_LOOKUP_FAILED);
	assert_int_equal(r.error_kind, RM_ERR_TEMP);
	assert_non_null(strstr(r.error, "malformed response: http://x/c: expected a JSON object (2 of 3"));
	f.rec.attempts = RM_LOOKUP_MALFORMED_MAX;
	ask(&r, &t, &c, 0);
	assert_int_equal(r.status, RM_LOOKUP_FAILED);
	assert_int_equal(r.error_kind, RM_ERR_INPUT);
	assert_non_null(strstr(r.error, "does not parse 3 times in a row since"));
	assert_non_null(strstr(r.error, "http://x/c: expected a JSON object"));
	assert_int_equal(f.puts, 0);
}

/* the skim of `in`, fed in pieces of `step` bytes */
static char *skim(const char *in, size_t step)
{
	struct rm_forge_skim k;
	struct rm_sb out = RM_SB_INIT;
	size_t i, n = strlen(in);

	rm_sb_init(&out);
	rm_forge_skim(&k, NULL, 0, NULL);
	for (i = 0; i < n; i += step)
		rm_forge_skim(&k, in + i, n - i < step ? n - i : step, &out);
	return rm_sb_detach(&out, NULL);
}

static void test_skim(void **state)
{
	static const char in[] =
		"{\"sha\": \"abc\", \"files\": [{\"filename\": \"a \\\"q\\\" b.c\", \"patch\": "
		"\"@@ -1 +1 @@\\n-\\\"x\\\\\\\" \\\"patch\\\": \\\"y\\\"\\n\"}, {\"status\": \"patch\", "
		"\"filename\": \"c.c\", \"patch\" :\"zz\"}], \"diff\":\"d\", \"diffs\": \"kept\"}";
	static const char want[] =
		"{\"sha\": \"abc\", \"files\": [{\"filename\": \"a \\\"q\\\" b.c\", \"patch\": "
		"\"\"}, {\"status\": \"patch\", \"filename\": \"c.c\", \"patch\" :\"\"}], \"diff\":\"\", "
		"\"diffs\": \"kept\"}";
	size_t step;

	(void)state;
	for (step = 1; step <= sizeof(in); step++) {
		char *got = skim(in, step);

		assert_string_equal(got, want);
		free(got);
	}
}

/* Ancestry (issue 18's "no longer seen"): the forges' URLs and answers,
 * and the providers that tell none, said as such. */
static void test_ancestry(void **state)
{
	struct rm_tree_cfg t;
	struct rm_gitweb_opts o;
	struct rm_error err;
	char why[128], *u;

	(void)state;
	u = rm_forge_ancestry_url(RM_PROVIDER_GITHUB, "https://api.example.org/repos/o/r", "abc1", SHA);
	assert_string_equal(u, "https://api.example.org/repos/o/r/compare/abc1..." SHA);
	free(u);
	u = rm_forge_ancestry_url(RM_PROVIDER_GITLAB, "https://gl.example.org/api/v4/projects/7", "abc1", SHA);
	assert_string_equal(u, "https://gl.example.org/api/v4/projects/7/repository/merge_base"
			       "?refs%5B%5D=abc1&refs%5B%5D=" SHA);
	free(u);
	/* Gitea: the other way round (the commits abc1 has and SHA has not) */
	u = rm_forge_ancestry_url(RM_PROVIDER_GITEA, "https://gitea.example.org/api/v1/repos/o/r", "abc1", SHA);
	assert_string_equal(u, "https://gitea.example.org/api/v1/repos/o/r/compare/" SHA "...abc1");
	free(u);
	assert_null(rm_forge_ancestry_url(RM_PROVIDER_CGIT, "https://git.example.org/linux.git", "abc1", SHA));
#define GH(body) rm_forge_ancestry(RM_PROVIDER_GITHUB, body, strlen(body), "abc1", why, sizeof(why))
	assert_int_equal(GH("{\"status\": \"ahead\", \"ahead_by\": 3}"), 1);
	assert_int_equal(GH("{\"status\": \"identical\"}"), 1);
	assert_int_equal(GH("{\"status\": \"behind\"}"), 0);
	assert_int_equal(GH("{\"status\": \"diverged\"}"), 0);
	assert_int_equal(GH("{\"status\": \"sideways\"}"), -1);
	assert_non_null(strstr(why, "sideways"));
	assert_int_equal(GH("<html>"), -1);
	assert_int_equal(GH("{\"message\": \"Not Found\"}"), -1);
#undef GH
#define GL(body) rm_forge_ancestry(RM_PROVIDER_GITLAB, body, strlen(body), "ABC1", why, sizeof(why))
	assert_int_equal(GL("{\"id\": \"abc1230000000000000000000000000000000000\"}"), 1);
	assert_int_equal(GL("{\"id\": \"def4560000000000000000000000000000000000\"}"), 0);
	assert_int_equal(GL("{\"id\": 7}"), -1);
#undef GL
#define GT(body) rm_forge_ancestry(RM_PROVIDER_GITEA, body, strlen(body), "abc1", why, sizeof(why))
	assert_int_equal(GT("{\"commits\": [], \"total_commits\": 0}"), 1);
	assert_int_equal(GT("{\"commits\": [{\"sha\": \"abc1\"}], \"total_commits\": 1}"), 0);
	assert_int_equal(GT("{\"total_commits\": -1}"), -1);
	assert_int_equal(GT("{\"total_commits\": \"0\"}"), -1);
	assert_int_equal(GT("{\"commits\": []}"), -1);
	assert_non_null(strstr(why, "total_commits"));
	assert_int_equal(GT("[0]"), -1);
#undef GT
	/* providers without ancestry: cannot be known, never "no" */
	memset(&t, 0, sizeof(t));
	memset(&o, 0, sizeof(o));
	t.name = (char *)"linus";
	t.provider = RM_PROVIDER_CGIT;
	t.api = (char *)"https://git.example.org/linux.git";
	assert_int_equal(rm_lookup_is_ancestor(&t, &o, "abc1", SHA, &err), -1);
	assert_non_null(strstr(err.msg, "tells no ancestry"));
	t.provider = RM_PROVIDER_GITEA;
	assert_int_equal(rm_lookup_is_ancestor(&t, &o, "abc1", SHA, &err), -1);
	assert_int_equal(rm_lookup_is_ancestor(&t, &o, "not a sha", SHA, &err), -1);
	assert_non_null(strstr(err.msg, "no commit sha"));
}

const struct CMUnitTest unit_lookup_tests[] = {
	cmocka_unit_test(test_unknown_waits_grow),
	cmocka_unit_test(test_malformed_records),
	cmocka_unit_test(test_skim),
	cmocka_unit_test(test_ancestry),
};
const size_t unit_lookup_ntests = sizeof(unit_lookup_tests) / sizeof(unit_lookup_tests[0]);
