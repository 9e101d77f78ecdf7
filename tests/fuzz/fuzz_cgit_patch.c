/*
 * fuzz_cgit_patch.c - libFuzzer target: arbitrary bytes as a cgit /patch/
 * response (mbox "From <sha> ..." line, RFC 5322 headers with RFC 2047
 * words and raw UTF-8, message, diffstat, diff).
 *
 * rm_cgit_parse_patch parses them; parsed facts then go through the
 * commit cache's JSON (rm_commit_to_json, rm_commit_from_cache_json), which
 * must keep the sha and the subject: a fact that cannot be cached is looked
 * up again on every report.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "cgit.h"
#include "commit.h"

static void check_line(const char *s)
{
	/* subjects, names and trailer values never carry control characters */
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_commit_facts f, g;
	struct rm_error err;
	size_t i, n;
	char *json;

	rm_error_clear(&err);
	if (rm_cgit_parse_patch(&f, (const char *)data, size, "fuzz/patch", &err)) {
		/* an error must say something, and leave no facts behind */
		if (err.kind == RM_OK || !err.msg[0] || f.sha || f.subject || f.trailers || f.files)
			__builtin_trap();
		return 0;
	}
	if (!f.sha || !f.subject)
		__builtin_trap();
	n = strlen(f.sha);
	if (n < 40 || n > 64 || strspn(f.sha, "0123456789abcdef") != n)
		__builtin_trap();
	check_line(f.subject);
	check_line(f.author.name);
	check_line(f.author.email);
	for (i = 0; i < f.ntrailers; i++) {
		if (!f.trailers[i].key || !f.trailers[i].value)
			__builtin_trap();
		check_line(f.trailers[i].value);
	}
	for (i = 0; i < f.nfiles; i++)
		if (!f.files[i])
			__builtin_trap();

	/* the cache round trip keeps what reports print */
	json = rm_commit_to_json(&f);
	if (!json)
		__builtin_trap();
	if (rm_commit_from_cache_json(&g, json))
		__builtin_trap(); /* the cached entry would read as damaged */
	if (strcmp(f.sha, g.sha) || strcmp(f.subject, g.subject))
		__builtin_trap();
	free(json);
	rm_commit_free(&g);
	rm_commit_free(&f);
	return 0;
}
