/*
 * dynlib_pq.h - libpq (the PostgreSQL client) through dynlib.c: include this instead of
 * <libpq-fe.h>.
 *
 * Owns: the list of the functions robotmail calls in it (RM_DYNLIB_PQ_SYMS)
 * and one macro per name that turns a call into a call through the table
 * (rm_dynlib_pq(), which loads the library on first use).  A new call
 * needs its line in the list and its #define below.  See dynlib.h.
 */
#ifndef RM_DYNLIB_PQ_H
#define RM_DYNLIB_PQ_H

#ifdef LIBPQ_FE_H
#error "include dynlib_pq.h instead of the library's headers"
#endif
#include <libpq-fe.h>

#include "dynlib.h"

#define RM_DYNLIB_PQ_SYMS(X) \
	X(PQclear) \
	X(PQcmdTuples) \
	X(PQconnectdbParams) \
	X(PQconnectionNeedsPassword) \
	X(PQconnectionUsedPassword) \
	X(PQerrorMessage) \
	X(PQexec) \
	X(PQexecParams) \
	X(PQfinish) \
	X(PQfreemem) \
	X(PQgetisnull) \
	X(PQgetvalue) \
	X(PQntuples) \
	X(PQresultErrorField) \
	X(PQresultErrorMessage) \
	X(PQresultStatus) \
	X(PQsetClientEncoding) \
	X(PQstatus) \
	X(PQunescapeBytea)

struct rm_dynlib_pq {
	RM_DYNLIB_PQ_SYMS(RM_DYNLIB_MEMBER)
};

/* The table, loaded on first use (dynlib.h: prints and exits 2 when the
 * library cannot be loaded). */
static inline const struct rm_dynlib_pq *rm_dynlib_pq(void)
{
	const void *t = rm_dynlib_tables[RM_LIB_PQ];

	return t ? t : rm_dynlib_load_or_exit(RM_LIB_PQ);
}

#ifndef RM_DYNLIB_IMPL
#define PQclear(...) (*rm_dynlib_pq()->PQclear)(__VA_ARGS__)
#define PQcmdTuples(...) (*rm_dynlib_pq()->PQcmdTuples)(__VA_ARGS__)
#define PQconnectdbParams(...) (*rm_dynlib_pq()->PQconnectdbParams)(__VA_ARGS__)
#define PQconnectionNeedsPassword(...) (*rm_dynlib_pq()->PQconnectionNeedsPassword)(__VA_ARGS__)
#define PQconnectionUsedPassword(...) (*rm_dynlib_pq()->PQconnectionUsedPassword)(__VA_ARGS__)
#define PQerrorMessage(...) (*rm_dynlib_pq()->PQerrorMessage)(__VA_ARGS__)
#define PQexec(...) (*rm_dynlib_pq()->PQexec)(__VA_ARGS__)
#define PQexecParams(...) (*rm_dynlib_pq()->PQexecParams)(__VA_ARGS__)
#define PQfinish(...) (*rm_dynlib_pq()->PQfinish)(__VA_ARGS__)
#define PQfreemem(...) (*rm_dynlib_pq()->PQfreemem)(__VA_ARGS__)
#define PQgetisnull(...) (*rm_dynlib_pq()->PQgetisnull)(__VA_ARGS__)
#define PQgetvalue(...) (*rm_dynlib_pq()->PQgetvalue)(__VA_ARGS__)
#define PQntuples(...) (*rm_dynlib_pq()->PQntuples)(__VA_ARGS__)
#define PQresultErrorField(...) (*rm_dynlib_pq()->PQresultErrorField)(__VA_ARGS__)
#define PQresultErrorMessage(...) (*rm_dynlib_pq()->PQresultErrorMessage)(__VA_ARGS__)
#define PQresultStatus(...) (*rm_dynlib_pq()->PQresultStatus)(__VA_ARGS__)
#define PQsetClientEncoding(...) (*rm_dynlib_pq()->PQsetClientEncoding)(__VA_ARGS__)
#define PQstatus(...) (*rm_dynlib_pq()->PQstatus)(__VA_ARGS__)
#define PQunescapeBytea(...) (*rm_dynlib_pq()->PQunescapeBytea)(__VA_ARGS__)
#endif

#endif
