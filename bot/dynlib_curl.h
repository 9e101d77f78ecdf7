/*
 * dynlib_curl.h - libcurl through dynlib.c: include this instead of
 * <curl/curl.h>.
 *
 * Owns: the list of the functions robotmail calls in it (RM_DYNLIB_CURL_SYMS)
 * and one macro per name that turns a call into a call through the table
 * (rm_dynlib_curl(), which loads the library on first use).  A new call
 * needs its line in the list and its #define below.  See dynlib.h.
 */
#ifndef RM_DYNLIB_CURL_H
#define RM_DYNLIB_CURL_H

#ifdef CURLINC_CURL_H
#error "include dynlib_curl.h instead of the library's headers"
#endif
/* curl.h makes curl_easy_setopt/getinfo macros of the same names (gcc's
 * type-checking wrappers, or a check of the argument count): the names are
 * the table's below instead.  The Makefile compiles the modules that use
 * libcurl once more with RM_DYNLIB_CURL_TYPECHECK (to /dev/null), where the
 * two stay curl's wrappers over its own functions, so every option's type is
 * still checked at build time. */
#ifndef RM_DYNLIB_CURL_TYPECHECK
#define CURL_DISABLE_TYPECHECK
#endif
#include <curl/curl.h>

#include "dynlib.h"

#define RM_DYNLIB_CURL_SYMS(X) \
	X(curl_easy_cleanup) \
	X(curl_easy_escape) \
	X(curl_easy_getinfo) \
	X(curl_easy_init) \
	X(curl_easy_perform) \
	X(curl_easy_recv) \
	X(curl_easy_reset) \
	X(curl_easy_send) \
	X(curl_easy_setopt) \
	X(curl_easy_strerror) \
	X(curl_easy_unescape) \
	X(curl_free) \
	X(curl_getdate) \
	X(curl_global_cleanup) \
	X(curl_global_init) \
	X(curl_multi_add_handle) \
	X(curl_multi_cleanup) \
	X(curl_multi_info_read) \
	X(curl_multi_init) \
	X(curl_multi_perform) \
	X(curl_multi_poll) \
	X(curl_multi_remove_handle) \
	X(curl_slist_append) \
	X(curl_slist_free_all) \
	X(curl_url) \
	X(curl_url_cleanup) \
	X(curl_url_get) \
	X(curl_url_set)

struct rm_dynlib_curl {
	RM_DYNLIB_CURL_SYMS(RM_DYNLIB_MEMBER)
};

/* The table, loaded on first use (dynlib.h: prints and exits 2 when the
 * library cannot be loaded). */
static inline const struct rm_dynlib_curl *rm_dynlib_curl(void)
{
	const void *t = rm_dynlib_tables[RM_LIB_CURL];

	return t ? t : rm_dynlib_load_or_exit(RM_LIB_CURL);
}

#ifndef RM_DYNLIB_IMPL
#define curl_easy_cleanup(...) (*rm_dynlib_curl()->curl_easy_cleanup)(__VA_ARGS__)
#define curl_easy_escape(...) (*rm_dynlib_curl()->curl_easy_escape)(__VA_ARGS__)
#ifndef RM_DYNLIB_CURL_TYPECHECK
#undef curl_easy_getinfo
#define curl_easy_getinfo(...) (*rm_dynlib_curl()->curl_easy_getinfo)(__VA_ARGS__)
#endif
#define curl_easy_init(...) (*rm_dynlib_curl()->curl_easy_init)(__VA_ARGS__)
#define curl_easy_perform(...) (*rm_dynlib_curl()->curl_easy_perform)(__VA_ARGS__)
#define curl_easy_recv(...) (*rm_dynlib_curl()->curl_easy_recv)(__VA_ARGS__)
#define curl_easy_reset(...) (*rm_dynlib_curl()->curl_easy_reset)(__VA_ARGS__)
#define curl_easy_send(...) (*rm_dynlib_curl()->curl_easy_send)(__VA_ARGS__)
#ifndef RM_DYNLIB_CURL_TYPECHECK
#undef curl_easy_setopt
#define curl_easy_setopt(...) (*rm_dynlib_curl()->curl_easy_setopt)(__VA_ARGS__)
#endif
#define curl_easy_strerror(...) (*rm_dynlib_curl()->curl_easy_strerror)(__VA_ARGS__)
#define curl_easy_unescape(...) (*rm_dynlib_curl()->curl_easy_unescape)(__VA_ARGS__)
#define curl_free(...) (*rm_dynlib_curl()->curl_free)(__VA_ARGS__)
#define curl_getdate(...) (*rm_dynlib_curl()->curl_getdate)(__VA_ARGS__)
#define curl_global_cleanup(...) (*rm_dynlib_curl()->curl_global_cleanup)(__VA_ARGS__)
#define curl_global_init(...) (*rm_dynlib_curl()->curl_global_init)(__VA_ARGS__)
#define curl_multi_add_handle(...) (*rm_dynlib_curl()->curl_multi_add_handle)(__VA_ARGS__)
#define curl_multi_cleanup(...) (*rm_dynlib_curl()->curl_multi_cleanup)(__VA_ARGS__)
#define curl_multi_info_read(...) (*rm_dynlib_curl()->curl_multi_info_read)(__VA_ARGS__)
#define curl_multi_init(...) (*rm_dynlib_curl()->curl_multi_init)(__VA_ARGS__)
#define curl_multi_perform(...) (*rm_dynlib_curl()->curl_multi_perform)(__VA_ARGS__)
#define curl_multi_poll(...) (*rm_dynlib_curl()->curl_multi_poll)(__VA_ARGS__)
#define curl_multi_remove_handle(...) (*rm_dynlib_curl()->curl_multi_remove_handle)(__VA_ARGS__)
#define curl_slist_append(...) (*rm_dynlib_curl()->curl_slist_append)(__VA_ARGS__)
#define curl_slist_free_all(...) (*rm_dynlib_curl()->curl_slist_free_all)(__VA_ARGS__)
#define curl_url(...) (*rm_dynlib_curl()->curl_url)(__VA_ARGS__)
#define curl_url_cleanup(...) (*rm_dynlib_curl()->curl_url_cleanup)(__VA_ARGS__)
#define curl_url_get(...) (*rm_dynlib_curl()->curl_url_get)(__VA_ARGS__)
#define curl_url_set(...) (*rm_dynlib_curl()->curl_url_set)(__VA_ARGS__)
#endif

#endif
