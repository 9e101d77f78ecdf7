/*
 * fuzz_forge_json.c - libFuzzer target: a JSON forge response.
 *
 * The first byte picks the provider (modulo 3: GitHub, Gitea/Forgejo,
 * GitLab), the rest goes to rm_forge_parse_commit as the body of a commit
 * response.  Parsed facts must be complete and survive the cache's JSON.
 * The same bytes skimmed (rm_forge_skim: the diffs dropped as they arrive)
 * give the same output whole or in two pieces, never longer than the input,
 * and a commit that parses still parses without its diffs.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "commit.h"
#include "forge.h"
#include "strbuf.h"

static const enum rm_provider providers[] = { RM_PROVIDER_GITHUB, RM_PROVIDER_GITEA,
					      RM_PROVIDER_GITLAB };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_commit_facts f, g;
	struct rm_error err;
	enum rm_provider p;
	size_t i, n;
	char *json;

	if (size < 1)
		return 0;
	p = providers[data[0] % 3];
	rm_error_clear(&err);
	{
		/* the same bytes as a repository check and as a GitLab diff page:
		 * any answer, never a crash; a diff page's files are strings */
		char why[256];
		size_t entries;

		memset(&g, 0, sizeof(g));
		if (rm_forge_check_repo(p, p == RM_PROVIDER_GITLAB ? "https://gitlab.example.org/api/v4/projects/a%2Fb" :
								      "https://forge.example.org/repos/a/b",
					(const char *)data + 1, size - 1, why, sizeof(why)) &&
		    strlen(why) >= sizeof(why))
			__builtin_trap();
		if (!rm_forge_gitlab_diff(&g, (const char *)data + 1, size - 1, "fuzz/diff.json", &entries,
					  &err))
			for (i = 0; i < g.nfiles; i++)
				if (!g.files[i])
					__builtin_trap();
		rm_commit_free(&g);
		rm_error_clear(&err);
	}
	{
		struct rm_forge_skim k;
		struct rm_sb whole = RM_SB_INIT, parts = RM_SB_INIT;
		size_t cut = size > 1 ? data[0] % (size - 1) : 0;

		rm_sb_init(&whole);
		rm_sb_init(&parts);
		rm_forge_skim(&k, NULL, 0, NULL);
		rm_forge_skim(&k, (const char *)data + 1, size - 1, &whole);
		rm_forge_skim(&k, NULL, 0, NULL);
		rm_forge_skim(&k, (const char *)data + 1, cut, &parts);
		rm_forge_skim(&k, (const char *)data + 1 + cut, size - 1 - cut, &parts);
		if (whole.len != parts.len || memcmp(whole.buf, parts.buf, whole.len) ||
		    whole.len > size - 1)
			__builtin_trap();
		if (!rm_forge_parse_commit(&f, p, (const char *)data + 1, size - 1, "fuzz/commit.json",
					   &err)) {
			rm_commit_free(&f);
			if (rm_forge_parse_commit(&g, p, whole.buf, whole.len, "fuzz/skimmed.json", &err))
				__builtin_trap();
			rm_commit_free(&g);
		}
		rm_error_clear(&err);
		rm_sb_release(&whole);
		rm_sb_release(&parts);
	}
	if (rm_forge_parse_commit(&f, p, (const char *)data + 1, size - 1, "fuzz/commit.json", &err)) {
		if (err.kind == RM_OK || !err.msg[0] || f.sha || f.subject || f.trailers || f.files)
			__builtin_trap();
		return 0;
	}
	if (!f.sha || !f.subject || !f.body)
		__builtin_trap();
	n = strlen(f.sha);
	if (n < 40 || strspn(f.sha, "0123456789abcdefABCDEF") != n)
		__builtin_trap();
	for (i = 0; f.subject[i]; i++)
		if ((unsigned char)f.subject[i] < 0x20)
			__builtin_trap();
	for (i = 0; i < f.ntrailers; i++)
		if (!f.trailers[i].key || !f.trailers[i].value)
			__builtin_trap();
	for (i = 0; i < f.nfiles; i++)
		if (!f.files[i])
			__builtin_trap();

	json = rm_commit_to_json(&f);
	if (!json)
		__builtin_trap();
	if (rm_commit_from_cache_json(&g, json))
		__builtin_trap();
	if (strcmp(f.sha, g.sha) || strcmp(f.subject, g.subject) || g.nfiles != f.nfiles ||
	    g.ntrailers != f.ntrailers)
		__builtin_trap();
	free(json);
	rm_commit_free(&g);
	rm_commit_free(&f);
	return 0;
}
