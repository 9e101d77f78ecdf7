/*
 * dynlib_gnutls.h - GnuTLS through dynlib.c: include this instead of
 * <gnutls/gnutls.h> <gnutls/x509.h>.
 *
 * Owns: the list of the functions robotmail calls in it (RM_DYNLIB_GNUTLS_SYMS;
 * gnutls_free is a variable, its address is the table's member)
 * and one macro per name that turns a call into a call through the table
 * (rm_dynlib_gnutls(), which loads the library on first use).  A new call
 * needs its line in the list and its #define below.  See dynlib.h.
 */
#ifndef RM_DYNLIB_GNUTLS_H
#define RM_DYNLIB_GNUTLS_H

#ifdef GNUTLS_GNUTLS_H
#error "include dynlib_gnutls.h instead of the library's headers"
#endif
#ifdef GNUTLS_X509_H
#error "include dynlib_gnutls.h instead of the library's headers"
#endif
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "dynlib.h"

#define RM_DYNLIB_GNUTLS_SYMS(X) \
	X(gnutls_certificate_verification_status_print) \
	X(gnutls_free) \
	X(gnutls_x509_crt_deinit) \
	X(gnutls_x509_crt_import) \
	X(gnutls_x509_crt_init) \
	X(gnutls_x509_trust_list_add_system_trust) \
	X(gnutls_x509_trust_list_add_trust_file) \
	X(gnutls_x509_trust_list_deinit) \
	X(gnutls_x509_trust_list_init) \
	X(gnutls_x509_trust_list_verify_crt2)

struct rm_dynlib_gnutls {
	RM_DYNLIB_GNUTLS_SYMS(RM_DYNLIB_MEMBER)
};

/* The table, loaded on first use (dynlib.h: prints and exits 2 when the
 * library cannot be loaded). */
static inline const struct rm_dynlib_gnutls *rm_dynlib_gnutls(void)
{
	const void *t = rm_dynlib_tables[RM_LIB_GNUTLS];

	return t ? t : rm_dynlib_load_or_exit(RM_LIB_GNUTLS);
}

#ifndef RM_DYNLIB_IMPL
#define gnutls_certificate_verification_status_print(...) (*rm_dynlib_gnutls()->gnutls_certificate_verification_status_print)(__VA_ARGS__)
/* gnutls_free is a variable holding a function pointer, and <gnutls/gnutls.h>
 * wraps it in a macro of the same name (that also sets its argument to NULL) */
#undef gnutls_free
#define gnutls_free(...) (*rm_dynlib_gnutls()->gnutls_free)(__VA_ARGS__)
#define gnutls_x509_crt_deinit(...) (*rm_dynlib_gnutls()->gnutls_x509_crt_deinit)(__VA_ARGS__)
#define gnutls_x509_crt_import(...) (*rm_dynlib_gnutls()->gnutls_x509_crt_import)(__VA_ARGS__)
#define gnutls_x509_crt_init(...) (*rm_dynlib_gnutls()->gnutls_x509_crt_init)(__VA_ARGS__)
#define gnutls_x509_trust_list_add_system_trust(...) (*rm_dynlib_gnutls()->gnutls_x509_trust_list_add_system_trust)(__VA_ARGS__)
#define gnutls_x509_trust_list_add_trust_file(...) (*rm_dynlib_gnutls()->gnutls_x509_trust_list_add_trust_file)(__VA_ARGS__)
#define gnutls_x509_trust_list_deinit(...) (*rm_dynlib_gnutls()->gnutls_x509_trust_list_deinit)(__VA_ARGS__)
#define gnutls_x509_trust_list_init(...) (*rm_dynlib_gnutls()->gnutls_x509_trust_list_init)(__VA_ARGS__)
#define gnutls_x509_trust_list_verify_crt2(...) (*rm_dynlib_gnutls()->gnutls_x509_trust_list_verify_crt2)(__VA_ARGS__)
#endif

#endif
