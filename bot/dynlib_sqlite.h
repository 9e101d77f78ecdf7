/*
 * dynlib_sqlite.h - SQLite through dynlib.c: include this instead of
 * <sqlite3.h> (it includes it itself, for the types and constants:
 * SQLITE_OK, SQLITE_TRANSIENT, sqlite3_stmt ... work as before).
 *
 * Owns: the list of the functions robotmail calls in it (RM_DYNLIB_SQLITE_SYMS)
 * and one macro per name that turns a call into a call through the table
 * (rm_dynlib_sqlite(), which loads the library on first use).  A new call
 * needs its line in the list and its #define below.  See dynlib.h.
 */
#ifndef RM_DYNLIB_SQLITE_H
#define RM_DYNLIB_SQLITE_H

#ifdef SQLITE3_H
#error "include dynlib_sqlite.h instead of the library's headers"
#endif
#include <sqlite3.h>

#include "dynlib.h"

#define RM_DYNLIB_SQLITE_SYMS(X) \
	X(sqlite3_bind_blob64) \
	X(sqlite3_bind_int64) \
	X(sqlite3_bind_null) \
	X(sqlite3_bind_text) \
	X(sqlite3_busy_timeout) \
	X(sqlite3_changes) \
	X(sqlite3_close) \
	X(sqlite3_column_blob) \
	X(sqlite3_column_bytes) \
	X(sqlite3_column_int) \
	X(sqlite3_column_int64) \
	X(sqlite3_column_text) \
	X(sqlite3_column_type) \
	X(sqlite3_create_function) \
	X(sqlite3_errcode) \
	X(sqlite3_errmsg) \
	X(sqlite3_exec) \
	X(sqlite3_extended_errcode) \
	X(sqlite3_finalize) \
	X(sqlite3_free) \
	X(sqlite3_open_v2) \
	X(sqlite3_prepare_v2) \
	X(sqlite3_result_null) \
	X(sqlite3_result_text) \
	X(sqlite3_step) \
	X(sqlite3_system_errno) \
	X(sqlite3_value_bytes) \
	X(sqlite3_value_text)

struct rm_dynlib_sqlite {
	RM_DYNLIB_SQLITE_SYMS(RM_DYNLIB_MEMBER)
};

/* The table, loaded on first use (dynlib.h: prints and exits 2 when the
 * library cannot be loaded). */
static inline const struct rm_dynlib_sqlite *rm_dynlib_sqlite(void)
{
	const void *t = rm_dynlib_tables[RM_LIB_SQLITE];

	return t ? t : rm_dynlib_load_or_exit(RM_LIB_SQLITE);
}

#ifndef RM_DYNLIB_IMPL
#define sqlite3_bind_blob64(...) (*rm_dynlib_sqlite()->sqlite3_bind_blob64)(__VA_ARGS__)
#define sqlite3_bind_int64(...) (*rm_dynlib_sqlite()->sqlite3_bind_int64)(__VA_ARGS__)
#define sqlite3_bind_null(...) (*rm_dynlib_sqlite()->sqlite3_bind_null)(__VA_ARGS__)
#define sqlite3_bind_text(...) (*rm_dynlib_sqlite()->sqlite3_bind_text)(__VA_ARGS__)
#define sqlite3_busy_timeout(...) (*rm_dynlib_sqlite()->sqlite3_busy_timeout)(__VA_ARGS__)
#define sqlite3_changes(...) (*rm_dynlib_sqlite()->sqlite3_changes)(__VA_ARGS__)
#define sqlite3_close(...) (*rm_dynlib_sqlite()->sqlite3_close)(__VA_ARGS__)
#define sqlite3_column_blob(...) (*rm_dynlib_sqlite()->sqlite3_column_blob)(__VA_ARGS__)
#define sqlite3_column_bytes(...) (*rm_dynlib_sqlite()->sqlite3_column_bytes)(__VA_ARGS__)
#define sqlite3_column_int(...) (*rm_dynlib_sqlite()->sqlite3_column_int)(__VA_ARGS__)
#define sqlite3_column_int64(...) (*rm_dynlib_sqlite()->sqlite3_column_int64)(__VA_ARGS__)
#define sqlite3_column_text(...) (*rm_dynlib_sqlite()->sqlite3_column_text)(__VA_ARGS__)
#define sqlite3_column_type(...) (*rm_dynlib_sqlite()->sqlite3_column_type)(__VA_ARGS__)
#define sqlite3_create_function(...) (*rm_dynlib_sqlite()->sqlite3_create_function)(__VA_ARGS__)
#define sqlite3_errcode(...) (*rm_dynlib_sqlite()->sqlite3_errcode)(__VA_ARGS__)
#define sqlite3_errmsg(...) (*rm_dynlib_sqlite()->sqlite3_errmsg)(__VA_ARGS__)
#define sqlite3_exec(...) (*rm_dynlib_sqlite()->sqlite3_exec)(__VA_ARGS__)
#define sqlite3_extended_errcode(...) (*rm_dynlib_sqlite()->sqlite3_extended_errcode)(__VA_ARGS__)
#define sqlite3_finalize(...) (*rm_dynlib_sqlite()->sqlite3_finalize)(__VA_ARGS__)
#define sqlite3_free(...) (*rm_dynlib_sqlite()->sqlite3_free)(__VA_ARGS__)
#define sqlite3_open_v2(...) (*rm_dynlib_sqlite()->sqlite3_open_v2)(__VA_ARGS__)
#define sqlite3_prepare_v2(...) (*rm_dynlib_sqlite()->sqlite3_prepare_v2)(__VA_ARGS__)
#define sqlite3_result_null(...) (*rm_dynlib_sqlite()->sqlite3_result_null)(__VA_ARGS__)
#define sqlite3_result_text(...) (*rm_dynlib_sqlite()->sqlite3_result_text)(__VA_ARGS__)
#define sqlite3_step(...) (*rm_dynlib_sqlite()->sqlite3_step)(__VA_ARGS__)
#define sqlite3_system_errno(...) (*rm_dynlib_sqlite()->sqlite3_system_errno)(__VA_ARGS__)
#define sqlite3_value_bytes(...) (*rm_dynlib_sqlite()->sqlite3_value_bytes)(__VA_ARGS__)
#define sqlite3_value_text(...) (*rm_dynlib_sqlite()->sqlite3_value_text)(__VA_ARGS__)
#endif

#endif
