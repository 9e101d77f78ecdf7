/* test_fileutil.c - rm_mkdir_p: parents created, existing directories fine,
 * a path through a regular file refused with ENOTDIR. */
#include "unit.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fileutil.h"
#include "strbuf.h"

static void test_mkdir_p(void **state)
{
	const char *t = getenv("TMPDIR");
	char *d = rm_path_join(t && *t ? t : "/tmp", "robotmail-unit.XXXXXX");
	char *deep, *file, *under;
	struct rm_sb cmd = RM_SB_INIT;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(d));
	deep = rm_path_join(d, "a/b//c/");
	assert_int_equal(rm_mkdir_p(deep), 0);
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(rm_mkdir_p(deep), 0); /* existing: fine */
	file = rm_path_join(d, "file");
	assert_int_equal(rm_write_file(file, "x", 1), 0);
	errno = 0;
	assert_int_equal(rm_mkdir_p(file), -1);
	assert_int_equal(errno, ENOTDIR);
	under = rm_path_join(file, "sub");
	errno = 0;
	assert_int_equal(rm_mkdir_p(under), -1);
	assert_int_equal(errno, ENOTDIR);
	rm_sb_init(&cmd);
	rm_sb_addf(&cmd, "rm -rf '%s'", d);
	assert_int_equal(system(cmd.buf), 0);
	rm_sb_release(&cmd);
	free(under);
	free(file);
	free(deep);
	free(d);
}

const struct CMUnitTest unit_fileutil_tests[] = {
	cmocka_unit_test(test_mkdir_p),
};
const size_t unit_fileutil_ntests = sizeof(unit_fileutil_tests) / sizeof(unit_fileutil_tests[0]);
