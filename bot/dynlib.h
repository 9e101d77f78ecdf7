/*
 * dynlib.h - libcurl, libpq, libetpan, libarchive, GnuTLS and SQLite, opened
 * with dlopen(3) the first time a command uses them.
 *
 * Why: linked in, those five libraries and theirs (52 shared objects in all:
 * OpenSSL, Kerberos, LDAP, SASL, libxml2, ICU ...) cost every start ~25 ms
 * of cpu in the dynamic loader, ~29M instructions, even for `--version`
 * or a `compare` of a directory that uses none of them.  SQLite alone
 * (one library, no dependencies) costs ~0.8-1.0 ms of every start, and
 * `compare DIR`, `--version` and `help` never open a store.  robotmail is
 * linked against jansson, PCRE2 and libyaml only; the others come in here.
 *
 * Owns: the list of every function robotmail calls in each of the six
 * libraries (an X-macro per library in dynlib_<lib>.h), loading a library
 * and looking all its symbols up at once, the library's SONAME (taken from
 * the build machine's .so by the Makefile: RM_SONAME_<LIB>), libcurl's
 * global set-up and clean-up (curl_global_init right after libcurl is
 * loaded, curl_global_cleanup in rm_dynlib_cleanup).
 * Must not: know what a library is used for; print, except the one line of
 * rm_dynlib_load_or_exit below.
 *
 * How modules use it: a module includes "dynlib_curl.h" (or _pq, _etpan,
 * _archive, _gnutls, _sqlite) INSTEAD of the library's own headers (it includes them
 * itself; including them first is a compile error) and calls the library as
 * before: each name is a macro for the pointer in the library's table,
 * e.g. curl_easy_init(...) is (*rm_dynlib_curl()->curl_easy_init)(...).
 * A function not in the list does not link (robotmail has no -lcurl), so
 * a new call means a new line in the list (and its #define: a unit test,
 * test_dynlib.c, fails to build when one is missing).
 *
 * The rule: every entry point that needs a library (a commit lookup, SMTP,
 * listen, the SQLite or PostgreSQL store, a public-inbox delivery (its
 * msgmap.sqlite3), reading a tarball or an xz log, building or parsing a
 * message ...) calls rm_dynlib_need(RM_LIB_X, err) before its
 * first call into it and returns its error: a library that cannot be
 * loaded is an environment the operator must fix (RM_ERR_CONFIG, exit 2),
 * "cannot load libcurl-gnutls.so.4: <dlerror>".  The accessor the macros
 * go through loads on demand too, so a path that forgot the need call still
 * works when the library is there; when it is not, it prints one line
 * naming the library and exits 2 (never a call through NULL).
 *
 * Test hook (fault injection): ROBOTMAIL_DYNLIB_<LIB> (CURL, PQ, ETPAN,
 * ARCHIVE, GNUTLS, SQLITE) names the file dlopen is given instead of the SONAME,
 * e.g. a missing one to see the error.
 *
 * Not thread-safe: robotmail runs one thread.
 */
#ifndef RM_DYNLIB_H
#define RM_DYNLIB_H

#include <stdbool.h>

#include "error.h"

enum rm_dynlib_id {
	RM_LIB_CURL,
	RM_LIB_PQ,
	RM_LIB_ETPAN,
	RM_LIB_ARCHIVE,
	RM_LIB_GNUTLS,
	RM_LIB_SQLITE,
	RM_LIB_COUNT
};

/* Load library `lib` (once; later calls return 0 at once) and look up
 * every symbol of its list.  0, or -1 with err (RM_ERR_CONFIG) naming the
 * file and dlerror's words, or the missing symbol. */
int rm_dynlib_need(enum rm_dynlib_id lib, struct rm_error *err);

/* Whether `lib` is loaded in this process (by rm_dynlib_need or on demand). */
bool rm_dynlib_loaded(enum rm_dynlib_id lib);

/* The file dlopen is given for `lib`: the SONAME, or the test hook's value.
 * Static storage or the environment's; never NULL. */
const char *rm_dynlib_soname(enum rm_dynlib_id lib);

/* libcurl's global clean-up when it was loaded; nothing otherwise.  Called
 * once by main.c before it returns.  The libraries stay mapped. */
void rm_dynlib_cleanup(void);

/* For the accessors of dynlib_<lib>.h: each library's table once loaded,
 * else NULL. */
extern const void *rm_dynlib_tables[RM_LIB_COUNT];

/* Load `lib` and return its table; on failure print
 * "robotmail: error: cannot load ...: ..." on stderr and exit(2). */
const void *rm_dynlib_load_or_exit(enum rm_dynlib_id lib);

/* A table member: a pointer typed like the library's own declaration. */
#define RM_DYNLIB_MEMBER(name) __typeof__(&name) name;

#endif
