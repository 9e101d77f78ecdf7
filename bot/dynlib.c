/*
 * dynlib.c - libcurl, libpq, libetpan, libarchive, GnuTLS and SQLite opened
 * on first use (see dynlib.h).
 *
 * dlopen/dlsym are libc's (glibc 2.34 and later: no -ldl).  Each library
 * is opened RTLD_NOW | RTLD_LOCAL (its own dependencies resolve at once, as
 * a linked-in library's did under -z now) and never closed: the tables stay
 * valid for the life of the process.
 */
#define RM_DYNLIB_IMPL
#include "dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynlib_archive.h"
#include "dynlib_curl.h"
#include "dynlib_etpan.h"
#include "dynlib_gnutls.h"
#include "dynlib_pq.h"
#include "dynlib_sqlite.h"

/* the SONAMEs come from the build machine's libraries (Makefile) */
#if !defined(RM_SONAME_CURL) || !defined(RM_SONAME_PQ) || !defined(RM_SONAME_ETPAN) || \
	!defined(RM_SONAME_ARCHIVE) || !defined(RM_SONAME_GNUTLS) || !defined(RM_SONAME_SQLITE)
#error "RM_SONAME_CURL, _PQ, _ETPAN, _ARCHIVE, _GNUTLS and _SQLITE must be defined (the Makefile does)"
#endif
_Static_assert(sizeof(RM_SONAME_CURL) > 1 && sizeof(RM_SONAME_PQ) > 1 && sizeof(RM_SONAME_ETPAN) > 1 &&
		       sizeof(RM_SONAME_ARCHIVE) > 1 && sizeof(RM_SONAME_GNUTLS) > 1 &&
		       sizeof(RM_SONAME_SQLITE) > 1,
	       "a library's SONAME was not found at build time (Makefile: DYNLIB_SONAMES)");

const void *rm_dynlib_tables[RM_LIB_COUNT];

static struct rm_dynlib_curl curl_table;
static struct rm_dynlib_pq pq_table;
static struct rm_dynlib_etpan etpan_table;
static struct rm_dynlib_archive archive_table;
static struct rm_dynlib_gnutls gnutls_table;
static struct rm_dynlib_sqlite sqlite_table;
static bool curl_ready; /* curl_global_init succeeded */

/* the name of the test hook's variable, and the SONAME, per library */
static const struct {
	const char *env, *soname;
} libs[RM_LIB_COUNT] = {
	[RM_LIB_CURL] = { "ROBOTMAIL_DYNLIB_CURL", RM_SONAME_CURL },
	[RM_LIB_PQ] = { "ROBOTMAIL_DYNLIB_PQ", RM_SONAME_PQ },
	[RM_LIB_ETPAN] = { "ROBOTMAIL_DYNLIB_ETPAN", RM_SONAME_ETPAN },
	[RM_LIB_ARCHIVE] = { "ROBOTMAIL_DYNLIB_ARCHIVE", RM_SONAME_ARCHIVE },
	[RM_LIB_GNUTLS] = { "ROBOTMAIL_DYNLIB_GNUTLS", RM_SONAME_GNUTLS },
	[RM_LIB_SQLITE] = { "ROBOTMAIL_DYNLIB_SQLITE", RM_SONAME_SQLITE },
};

const char *rm_dynlib_soname(enum rm_dynlib_id lib)
{
	const char *env = getenv(libs[lib].env);

	return env && *env ? env : libs[lib].soname;
}

bool rm_dynlib_loaded(enum rm_dynlib_id lib)
{
	return rm_dynlib_tables[lib] != NULL;
}

/* One symbol into its typed member: dlsym's void * copied, not cast (ISO C
 * has no conversion between object and function pointers; POSIX promises
 * they have the same representation). */
#define RM_DYNLIB_LOOKUP(name)                                                              \
	{                                                                                   \
		void *p = dlsym(h, #name);                                                  \
		_Static_assert(sizeof(t->name) == sizeof(p), "a pointer of another size"); \
		if (!p)                                                                     \
			return missing(lib, #name, err);                                    \
		memcpy(&t->name, &p, sizeof(p));                                            \
	}

static int missing(enum rm_dynlib_id lib, const char *name, struct rm_error *err)
{
	const char *why = dlerror();

	return rm_error_set(err, RM_ERR_CONFIG, "cannot load %s: no symbol '%s'%s%s", rm_dynlib_soname(lib),
			    name, why ? ": " : "", why ? why : "");
}

/* Fill lib's table from the handle h; 0, or -1 naming the missing symbol
 * (the table is then not published). */
static int lookup_all(enum rm_dynlib_id lib, void *h, const void **table, struct rm_error *err)
{
	switch (lib) {
	case RM_LIB_CURL: {
		struct rm_dynlib_curl *t = &curl_table;

		RM_DYNLIB_CURL_SYMS(RM_DYNLIB_LOOKUP)
		*table = t;
		return 0;
	}
	case RM_LIB_PQ: {
		struct rm_dynlib_pq *t = &pq_table;

		RM_DYNLIB_PQ_SYMS(RM_DYNLIB_LOOKUP)
		*table = t;
		return 0;
	}
	case RM_LIB_ETPAN: {
		struct rm_dynlib_etpan *t = &etpan_table;

		RM_DYNLIB_ETPAN_SYMS(RM_DYNLIB_LOOKUP)
		*table = t;
		return 0;
	}
	case RM_LIB_ARCHIVE: {
		struct rm_dynlib_archive *t = &archive_table;

		RM_DYNLIB_ARCHIVE_SYMS(RM_DYNLIB_LOOKUP)
		*table = t;
		return 0;
	}
	case RM_LIB_GNUTLS: {
		struct rm_dynlib_gnutls *t = &gnutls_table;

		RM_DYNLIB_GNUTLS_SYMS(RM_DYNLIB_LOOKUP)
		*table = t;
		return 0;
	}
	case RM_LIB_SQLITE: {
		struct rm_dynlib_sqlite *t = &sqlite_table;

		RM_DYNLIB_SQLITE_SYMS(RM_DYNLIB_LOOKUP)
		*table = t;
		return 0;
	}
	case RM_LIB_COUNT:
		break;
	}
	return rm_error_set(err, RM_ERR_INTERNAL, "dynlib: no library %d", (int)lib);
}

int rm_dynlib_need(enum rm_dynlib_id lib, struct rm_error *err)
{
	const char *file;
	const void *table = NULL;
	void *h;

	if ((unsigned)lib >= RM_LIB_COUNT)
		return rm_error_set(err, RM_ERR_INTERNAL, "dynlib: no library %d", (int)lib);
	if (rm_dynlib_tables[lib])
		return 0;
	file = rm_dynlib_soname(lib);
	dlerror();
	h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		size_t n = strlen(file);

		if (!why)
			why = "dlopen failed";
		else if (!strncmp(why, file, n) && !strncmp(why + n, ": ", 2))
			why += n + 2; /* glibc's words start with the file's name */
		return rm_error_set(err, RM_ERR_CONFIG, "cannot load %s: %s", file, why);
	}
	/* a handle that fails stays open: dlclose of a library whose
	 * constructors ran is not worth the risk, and the process ends soon */
	if (lookup_all(lib, h, &table, err))
		return -1;
	if (lib == RM_LIB_CURL) {
		/* libcurl's global set-up, once, before any other call into it
		 * (not thread-safe: robotmail runs one thread) */
		if (curl_table.curl_global_init(CURL_GLOBAL_DEFAULT))
			return rm_error_set(err, RM_ERR_INTERNAL, "cannot initialise libcurl");
		curl_ready = true;
	}
	rm_dynlib_tables[lib] = table;
	return 0;
}

const void *rm_dynlib_load_or_exit(enum rm_dynlib_id lib)
{
	struct rm_error err;

	rm_error_clear(&err);
	if (rm_dynlib_need(lib, &err)) {
		/* the one print outside main.c: a caller that forgot
		 * rm_dynlib_need has no error to return here */
		fprintf(stderr, "robotmail: error: %s\n", err.msg);
		exit(rm_error_exit_code(RM_ERR_CONFIG));
	}
	return rm_dynlib_tables[lib];
}

void rm_dynlib_cleanup(void)
{
	if (curl_ready) {
		curl_table.curl_global_cleanup();
		curl_ready = false;
	}
}
