/*
 * fuzz_maintainers.c - libFuzzer target: arbitrary bytes as a MAINTAINERS
 * file and an opt-out file for the recipient builder.
 *
 * The input is split at its first NUL: the bytes before it are the
 * MAINTAINERS file (F:/X:/N: patterns to M:/R:/L: entries), the rest the
 * opt-out file (addresses and /regex/ lines).  rm_recipients_build runs for
 * a commit touching a few paths, with trailers; every address that comes out
 * must be valid and appear once.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "error.h"
#include "commit.h"
#include "message.h"
#include "recipients.h"

static int fd_m = -1, fd_o = -1;
static char path_m[64], path_o[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd_m = memfd_create("MAINTAINERS", MFD_CLOEXEC);
	fd_o = memfd_create("opt-out", MFD_CLOEXEC);
	if (fd_m < 0 || fd_o < 0)
		abort();
	snprintf(path_m, sizeof(path_m), "/proc/self/fd/%d", fd_m);
	snprintf(path_o, sizeof(path_o), "/proc/self/fd/%d", fd_o);
	return 0;
}

static void put(int fd, const uint8_t *d, size_t n)
{
	if (ftruncate(fd, 0) || pwrite(fd, d, n, 0) != (ssize_t)n)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t nm = nul ? (size_t)(nul - data) : size;
	struct rm_config cfg;
	struct rm_error err;
	struct rm_commit_facts f;
	struct rm_trailer tr[3] = { { "Signed-off-by", "A <a@example.org>" },
				    { "Cc", "list@vger.example.org" },
				    { "Reviewed-by", "\"B\" <b@example.org>" } };
	char *files[] = { "mm/memory.c", "drivers/iommu/x.c", "include/linux/mm.h" };
	struct rm_recipients_in in;
	struct rm_recipients r;
	size_t i, k;

	put(fd_m, data, nm);
	put(fd_o, nul ? nul + 1 : data, nul ? size - nm - 1 : 0);
	if (rm_config_load(&cfg, NULL, &err))
		abort();
	cfg.maintainers = strdup(path_m);
	cfg.opt_out = strdup(path_o);
	cfg.maintainers_cap = 20;
	memset(&f, 0, sizeof(f));
	f.author.name = "Ann";
	f.author.email = "ann@example.org";
	f.trailers = tr;
	f.ntrailers = 3;
	f.files = files;
	f.nfiles = 3;
	memset(&in, 0, sizeof(in));
	in.cfg = &cfg;
	in.head = &f;
	in.testcase = "stress-ng";
	if (rm_recipients_build(&r, &in, &err) == 0) {
		for (i = 0; i < r.nto + r.ncc; i++) {
			const char *a = i < r.nto ? r.to[i].addr : r.cc[i - r.nto].addr;

			if (!rm_address_valid(a))
				__builtin_trap();
			for (k = 0; k < i; k++) {
				const char *b = k < r.nto ? r.to[k].addr : r.cc[k - r.nto].addr;

				if (!strcasecmp(a, b))
					__builtin_trap();
			}
		}
		if (r.nto + r.ncc > (size_t)cfg.max_recipients)
			__builtin_trap();
	} else if (!err.msg[0]) {
		__builtin_trap();
	}
	rm_recipients_free(&r);
	rm_config_free(&cfg);
	return 0;
}
