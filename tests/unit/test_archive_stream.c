/* test_archive_stream.c - the cap on what a compressed tarball unpacks to
 * (RM_ARCHIVE_MAX_STREAM; rm_archive_opts.max_stream lowers it here to stay
 * fast): a .tar.xz whose stream, skipped members included, passes the cap is
 * refused at the next member with an error naming the archive, the member
 * and the cap; under the cap it is read on; an uncompressed tarball (its
 * members skipped by seeking) is not counted. */
#include "unit.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "fileutil.h"
#include "strbuf.h"

/* A tarball at path (xz-compressed when xz): result/junk.bin of `junk`
 * zero bytes (a member robotmail skips), then result/after.txt. */
static void make_tar(const char *path, bool xz, size_t junk)
{
	struct archive *w = archive_write_new();
	struct archive_entry *en = archive_entry_new();
	char *zeros = calloc(1, junk);

	assert_non_null(zeros);
	assert_int_equal(archive_write_set_format_pax_restricted(w), ARCHIVE_OK);
	if (xz)
		assert_int_equal(archive_write_add_filter_xz(w), ARCHIVE_OK);
	assert_int_equal(archive_write_open_filename(w, path), ARCHIVE_OK);
	archive_entry_set_filetype(en, AE_IFREG);
	archive_entry_set_perm(en, 0644);
	archive_entry_set_pathname(en, "result/junk.bin");
	archive_entry_set_size(en, (la_int64_t)junk);
	assert_int_equal(archive_write_header(w, en), ARCHIVE_OK);
	assert_int_equal(archive_write_data(w, zeros, junk), (la_ssize_t)junk);
	archive_entry_clear(en);
	archive_entry_set_filetype(en, AE_IFREG);
	archive_entry_set_perm(en, 0644);
	archive_entry_set_pathname(en, "result/after.txt");
	archive_entry_set_size(en, 3);
	assert_int_equal(archive_write_header(w, en), ARCHIVE_OK);
	assert_int_equal(archive_write_data(w, "hi\n", 3), 3);
	assert_int_equal(archive_write_close(w), ARCHIVE_OK);
	archive_write_free(w);
	archive_entry_free(en);
	free(zeros);
}

/* rm_archive_open's error for path under max_stream (never succeeds: these
 * tarballs hold no result root); the caller frees it. */
static char *open_error(const char *path, unsigned long long max_stream)
{
	struct rm_archive a;
	struct rm_archive_opts o;
	struct rm_error err;

	memset(&o, 0, sizeof(o));
	o.max_stream = max_stream;
	rm_error_clear(&err);
	assert_int_equal(rm_archive_open(&a, path, unit_rules(), &o, &err), -1);
	return strdup(err.msg);
}

static void test_stream_cap(void **state)
{
	const char *t = getenv("TMPDIR");
	char *dir = rm_path_join(t && *t ? t : "/tmp", "robotmail-unit.XXXXXX");
	char *xz, *plain, *msg, *want;

	(void)state;
	assert_non_null(mkdtemp(dir));
	xz = rm_path_join(dir, "bomb.tar.xz");
	plain = rm_path_join(dir, "bomb.tar");
	make_tar(xz, true, 3u << 20);
	make_tar(plain, false, 3u << 20);
	assert_true(RM_ARCHIVE_MAX_STREAM == 4ull << 30);

	/* past a 1 MiB cap: refused at the member after the 3 MiB one */
	msg = open_error(xz, 1u << 20);
	want = rm_xstrfmt("'%s': the compressed tarball unpacks to more than 1 MiB (at member 2 'result/after.txt'); refused",
			  xz);
	assert_string_equal(msg, want);
	free(want);
	free(msg);
	/* under a 16 MiB cap, and by default: read on (to "no result root") */
	msg = open_error(xz, 16u << 20);
	assert_null(strstr(msg, "unpacks to"));
	free(msg);
	msg = open_error(xz, 0);
	assert_null(strstr(msg, "unpacks to"));
	free(msg);
	/* an uncompressed tarball is not counted */
	msg = open_error(plain, 1u << 20);
	assert_null(strstr(msg, "unpacks to"));
	free(msg);

	unlink(xz);
	unlink(plain);
	rmdir(dir);
	free(dir);
	free(xz);
	free(plain);
}

const struct CMUnitTest unit_archive_stream_tests[] = {
	cmocka_unit_test(test_stream_cap),
};
const size_t unit_archive_stream_ntests = sizeof(unit_archive_stream_tests) / sizeof(unit_archive_stream_tests[0]);
