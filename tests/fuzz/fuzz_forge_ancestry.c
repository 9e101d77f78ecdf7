/*
 * fuzz_forge_ancestry.c - libFuzzer target: a forge's ancestry answer.
 *
 * The first byte picks the provider (modulo 3: GitHub's compare, Gitea's
 * compare the other way round, GitLab's merge base), the rest goes to
 * rm_forge_ancestry as the answer's body.  The answer is 1, 0 or -1; -1 and
 * only -1 says why (a non-empty, terminated reason that fits its buffer,
 * also in a buffer far shorter than the reason); the same bytes always give
 * the same answer.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "forge.h"

static const enum rm_provider providers[] = { RM_PROVIDER_GITHUB, RM_PROVIDER_GITEA,
					      RM_PROVIDER_GITLAB };
static const char ancestor[] = "3d47c79463956a7bbf8cfa997664e7dcd7acf8f1";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum rm_provider p;
	char why[256], small[8];
	char *url;
	int rc, again;

	if (size < 1)
		return 0;
	p = providers[data[0] % 3];
	url = rm_forge_ancestry_url(p, "https://forge.example.org/repos/a/b", ancestor,
				    "8807b68269657a8e419152e36c54046ec75247d3");
	if (!url || !strstr(url, ancestor))
		__builtin_trap();
	free(url);
	memset(why, 0x55, sizeof(why));
	rc = rm_forge_ancestry(p, (const char *)data + 1, size - 1, ancestor, why, sizeof(why));
	if (rc < -1 || rc > 1)
		__builtin_trap();
	if (rc == -1 && (!memchr(why, 0, sizeof(why)) || !why[0]))
		__builtin_trap();
	/* the same bytes give the same answer, with a reason cut to a short buffer */
	memset(small, 0x55, sizeof(small));
	again = rm_forge_ancestry(p, (const char *)data + 1, size - 1, ancestor, small,
				  sizeof(small));
	if (again != rc || (rc == -1 && !memchr(small, 0, sizeof(small))))
		__builtin_trap();
	return 0;
}
