/* test_dynlib.c - the six libraries opened on first use (bot/dynlib.h):
 * every listed name is mapped to its table (checked when this file is
 * compiled), each library loads with every symbol, a library that cannot
 * be loaded is -1 with a clear RM_ERR_CONFIG error, and the accessor the
 * macros use prints one line and exits 2 instead of calling through NULL. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dynlib_archive.h"
#include "dynlib_curl.h"
#include "dynlib_etpan.h"
#include "dynlib_gnutls.h"
#include "dynlib_pq.h"
#include "deliver.h"
#include "dynlib_sqlite.h"
#include "store.h"

/* A name of a list without its #define would call the library's own symbol
 * (and not link in robotmail): the macro must turn name(x) into more. */
#define UNIT_STR(x) #x
#define UNIT_XSTR(x) UNIT_STR(x)
#define UNIT_MAPPED(name) \
	_Static_assert(sizeof(UNIT_XSTR(name(x))) > sizeof(#name "(x)"), #name " has no #define in its dynlib_<lib>.h");
RM_DYNLIB_CURL_SYMS(UNIT_MAPPED)
RM_DYNLIB_PQ_SYMS(UNIT_MAPPED)
RM_DYNLIB_ETPAN_SYMS(UNIT_MAPPED)
RM_DYNLIB_ARCHIVE_SYMS(UNIT_MAPPED)
RM_DYNLIB_GNUTLS_SYMS(UNIT_MAPPED)
RM_DYNLIB_SQLITE_SYMS(UNIT_MAPPED)

static const char *const env_names[RM_LIB_COUNT] = {
	"ROBOTMAIL_DYNLIB_CURL", "ROBOTMAIL_DYNLIB_PQ", "ROBOTMAIL_DYNLIB_ETPAN",
	"ROBOTMAIL_DYNLIB_ARCHIVE", "ROBOTMAIL_DYNLIB_GNUTLS", "ROBOTMAIL_DYNLIB_SQLITE",
};

static void test_need_loads_each(void **state)
{
	struct rm_error err;
	int lib;

	(void)state;
	for (lib = 0; lib < RM_LIB_COUNT; lib++) {
		const char *so = rm_dynlib_soname((enum rm_dynlib_id)lib);

		assert_non_null(strstr(so, ".so."));
		rm_error_clear(&err);
		assert_int_equal(rm_dynlib_need((enum rm_dynlib_id)lib, &err), 0);
		assert_true(rm_dynlib_loaded((enum rm_dynlib_id)lib));
		assert_int_equal(err.kind, RM_OK);
		/* once loaded, again is nothing */
		assert_int_equal(rm_dynlib_need((enum rm_dynlib_id)lib, &err), 0);
	}
	/* calls through the tables reach the libraries */
	{
		struct archive *a = archive_read_new();
		CURL *c = curl_easy_init();
		sqlite3 *db = NULL;
		sqlite3_stmt *st = NULL;

		assert_non_null(a);
		assert_non_null(c);
		assert_int_equal(archive_read_free(a), ARCHIVE_OK);
		curl_easy_cleanup(c);
		/* SQLite's constants from its own header work through the table */
		assert_int_equal(sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT ?1 || 'b'", -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_bind_text(st, 1, "a", -1, SQLITE_TRANSIENT), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0), "ab");
		assert_int_equal(sqlite3_finalize(st), SQLITE_OK);
		assert_int_equal(sqlite3_close(db), SQLITE_OK);
	}
}

/* The test hook names a missing file: -1, RM_ERR_CONFIG, the file and
 * dlopen's words; the table the process had stays as it was. */
static void test_need_fails_cleanly(void **state)
{
	struct rm_error err;
	const void *saved;

	(void)state;
	saved = rm_dynlib_tables[RM_LIB_PQ];
	rm_dynlib_tables[RM_LIB_PQ] = NULL;
	setenv(env_names[RM_LIB_PQ], "/nonexistent/robotmail-unit/libpq.so.5", 1);
	rm_error_clear(&err);
	assert_int_equal(rm_dynlib_need(RM_LIB_PQ, &err), -1);
	assert_int_equal(err.kind, RM_ERR_CONFIG);
	assert_int_equal(rm_error_exit_code(err.kind), 2);
	assert_non_null(strstr(err.msg, "cannot load /nonexistent/robotmail-unit/libpq.so.5: "));
	assert_non_null(strstr(err.msg, "No such file"));
	assert_false(rm_dynlib_loaded(RM_LIB_PQ));
	/* a library that lacks a symbol of the list: named */
	setenv(env_names[RM_LIB_PQ], "libc.so.6", 1);
	rm_error_clear(&err);
	assert_int_equal(rm_dynlib_need(RM_LIB_PQ, &err), -1);
	assert_int_equal(err.kind, RM_ERR_CONFIG);
	assert_non_null(strstr(err.msg, "cannot load libc.so.6: no symbol 'PQ"));
	assert_false(rm_dynlib_loaded(RM_LIB_PQ));
	unsetenv(env_names[RM_LIB_PQ]);
	rm_dynlib_tables[RM_LIB_PQ] = saved;
}

/* The SQLite store's open, and a public-inbox transport's (it reads the
 * inbox's msgmap.sqlite3), need the library first: with it missing, -1
 * with RM_ERR_CONFIG naming the file (exit 2), no store or transport; a
 * read-only open of a store that does not exist yet needs no library. */
static void test_store_needs_sqlite(void **state)
{
	struct rm_error err;
	struct rm_store *st = (struct rm_store *)&err;
	struct rm_transport *t = (struct rm_transport *)&err;
	struct rm_smtp_cfg smtp;

	(void)state;
	rm_dynlib_tables[RM_LIB_SQLITE] = NULL; /* as if never loaded */
	setenv(env_names[RM_LIB_SQLITE], "/nonexistent/robotmail-unit/libsqlite3.so.0", 1);
	rm_error_clear(&err);
	assert_int_equal(rm_store_open(&st, ":memory:", RM_STORE_READWRITE, &err), -1);
	assert_null(st);
	assert_int_equal(err.kind, RM_ERR_CONFIG);
	assert_int_equal(rm_error_exit_code(err.kind), 2);
	assert_non_null(strstr(err.msg, "cannot load /nonexistent/robotmail-unit/libsqlite3.so.0: "));
	assert_false(rm_dynlib_loaded(RM_LIB_SQLITE));
	memset(&smtp, 0, sizeof(smtp));
	smtp.pi_address = "ci@lists.example.org";
	rm_error_clear(&err);
	assert_int_equal(rm_deliver_open(&t, "public-inbox:/nonexistent/robotmail-unit/inbox", &smtp, &err), -1);
	assert_null(t);
	assert_int_equal(err.kind, RM_ERR_CONFIG);
	assert_non_null(strstr(err.msg, "cannot load /nonexistent/robotmail-unit/libsqlite3.so.0: "));
	assert_false(rm_dynlib_loaded(RM_LIB_SQLITE));
	rm_error_clear(&err);
	assert_int_equal(rm_store_open(&st, "/nonexistent/robotmail-unit/state.db", RM_STORE_READONLY, &err), 0);
	assert_null(st);
	assert_false(rm_dynlib_loaded(RM_LIB_SQLITE));
	unsetenv(env_names[RM_LIB_SQLITE]);
	/* and with the library there, the same open works */
	rm_error_clear(&err);
	assert_int_equal(rm_store_open(&st, ":memory:", RM_STORE_READWRITE, &err), 0);
	assert_non_null(st);
	assert_true(rm_dynlib_loaded(RM_LIB_SQLITE));
	assert_string_equal(rm_store_backend(st), "sqlite");
	rm_store_close(st);
}

/* A path that forgot rm_dynlib_need, with the library missing: the
 * accessor prints one line and exits 2 (in a child process). */
static void test_accessor_exits(void **state)
{
	int fds[2], status;
	char buf[512];
	ssize_t n;
	size_t got = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		rm_dynlib_tables[RM_LIB_ARCHIVE] = NULL;
		setenv(env_names[RM_LIB_ARCHIVE], "/nonexistent/robotmail-unit/libarchive.so.13", 1);
		(void)archive_read_new(); /* through the accessor */
		_exit(0);
	}
	close(fds[1]);
	while (got < sizeof(buf) - 1 && (n = read(fds[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 2);
	assert_non_null(strstr(buf, "robotmail: error: cannot load /nonexistent/robotmail-unit/libarchive.so.13: "));
	assert_non_null(strchr(buf, '\n'));
	assert_string_equal(strchr(buf, '\n') + 1, ""); /* one line */
}

const struct CMUnitTest unit_dynlib_tests[] = {
	cmocka_unit_test(test_need_loads_each),
	cmocka_unit_test(test_need_fails_cleanly),
	cmocka_unit_test(test_store_needs_sqlite),
	cmocka_unit_test(test_accessor_exits),
};
const size_t unit_dynlib_ntests = sizeof(unit_dynlib_tests) / sizeof(unit_dynlib_tests[0]);
