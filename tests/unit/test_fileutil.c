/* test_fileutil.c - rm_mkdir_p: parents created, existing directories fine,
 * a path through a regular file refused with ENOTDIR; rm_read_fd: reads the
 * descriptor given from its offset and leaves it open, refuses a directory,
 * a FIFO and a file above the limit, naming the file. */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void test_read_fd(void **state)
{
	const char *t = getenv("TMPDIR");
	char *d = rm_path_join(t && *t ? t : "/tmp", "robotmail-unit.XXXXXX");
	char *file, *fifo, *buf = NULL;
	struct rm_error err;
	size_t len = 0;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(d));
	file = rm_path_join(d, "f");
	fifo = rm_path_join(d, "p");
	assert_int_equal(rm_write_file(file, "hello world", 11), 0);
	fd = open(file, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(rm_read_fd(fd, "shown", 64, &buf, &len, &err), 0);
	assert_int_equal(len, 11);
	assert_string_equal(buf, "hello world");
	free(buf);
	/* still open, and read from the offset it is at */
	assert_int_equal(lseek(fd, 6, SEEK_SET), 6);
	assert_int_equal(rm_read_fd(fd, "shown", 64, &buf, &len, &err), 0);
	assert_int_equal(len, 5);
	assert_string_equal(buf, "world");
	free(buf);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(rm_read_fd(fd, "shown", 10, &buf, &len, &err), -1);
	assert_string_equal(err.msg, "'shown': file too large (11 bytes, limit 10)");
	assert_int_equal(close(fd), 0);
	fd = open(d, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(rm_read_fd(fd, "dir", 64, &buf, &len, &err), -1);
	assert_string_equal(err.msg, "'dir': expected a regular file");
	close(fd);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	fd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	assert_int_equal(rm_read_fd(fd, "fifo", 64, &buf, &len, &err), -1);
	assert_string_equal(err.msg, "'fifo': expected a regular file");
	close(fd);
	assert_int_equal(unlink(fifo), 0);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rmdir(d), 0);
	free(fifo);
	free(file);
	free(d);
}

const struct CMUnitTest unit_fileutil_tests[] = {
	cmocka_unit_test(test_mkdir_p),
	cmocka_unit_test(test_read_fd),
};
const size_t unit_fileutil_ntests = sizeof(unit_fileutil_tests) / sizeof(unit_fileutil_tests[0]);
