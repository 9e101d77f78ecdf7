/*
 * fuzz_tarball.c - libFuzzer target: arbitrary bytes as a result archive
 * file (.tar, .tar.gz, .tar.xz, .tar.zst: libarchive detects the filter).
 *
 * The bytes go to one reused in-memory file (memfd; a mkstemp file under
 * $TMPDIR when memfd is unavailable), which rm_archive_open reads as a
 * tarball: member checks, job.yaml and matrix/stats parsing, grouping.
 * When it opens, every group is compared and rendered.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"

static int fuzz_fd = -1;
static char fuzz_path[4096];

static void cleanup(void)
{
	if (fuzz_fd >= 0 && strncmp(fuzz_path, "/proc/", 6))
		unlink(fuzz_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_load_rules();
	fuzz_fd = memfd_create("robotmail-fuzz.tar", MFD_CLOEXEC);
	if (fuzz_fd >= 0) {
		snprintf(fuzz_path, sizeof(fuzz_path), "/proc/self/fd/%d", fuzz_fd);
		if (access(fuzz_path, R_OK) == 0)
			return 0;
		close(fuzz_fd);
	}
	{
		const char *tmp = getenv("TMPDIR");

		snprintf(fuzz_path, sizeof(fuzz_path), "%s/robotmail-fuzz-XXXXXX.tar",
			 tmp && *tmp ? tmp : "/tmp");
		fuzz_fd = mkstemps(fuzz_path, 4);
		if (fuzz_fd < 0) {
			perror("fuzz_tarball: mkstemps");
			abort();
		}
		atexit(cleanup);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rm_archive a;
	struct rm_error err;
	size_t off = 0;

	if (ftruncate(fuzz_fd, 0))
		abort();
	while (off < size) {
		ssize_t n = pwrite(fuzz_fd, data + off, size - off, (off_t)off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	rm_error_clear(&err);
	if (rm_archive_open(&a, fuzz_path, &fuzz_rules, NULL, &err)) {
		if (err.kind == RM_OK || !err.msg[0])
			abort();
		return 0;
	}
	if (!a.ngroups)
		abort(); /* rm_archive_open promises at least one pair */
	fuzz_compare_all(&a);
	rm_archive_free(&a);
	return 0;
}
