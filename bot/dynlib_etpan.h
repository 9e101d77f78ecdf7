/*
 * dynlib_etpan.h - libetpan through dynlib.c: include this instead of
 * <libetpan/libetpan.h>.
 *
 * Owns: the list of the functions robotmail calls in it (RM_DYNLIB_ETPAN_SYMS)
 * and one macro per name that turns a call into a call through the table
 * (rm_dynlib_etpan(), which loads the library on first use).  A new call
 * needs its line in the list and its #define below.  See dynlib.h.
 */
#ifndef RM_DYNLIB_ETPAN_H
#define RM_DYNLIB_ETPAN_H

#ifdef LIBETPAN_H
#error "include dynlib_etpan.h instead of the library's headers"
#endif
#include <libetpan/libetpan.h>

/* libetpan 1.9.4 exports these three (mailsmtp.c) without declaring them in
 * its headers (smtp.c says why it calls them) */
int mailsmtp_send_command(mailsmtp *session, char *command);
int mailsmtp_read_response(mailsmtp *session);
int mailesmtp_parse_ehlo(mailsmtp *session);

#include "dynlib.h"

#define RM_DYNLIB_ETPAN_SYMS(X) \
	X(charconv) \
	X(clist_insert_after) \
	X(clist_new) \
	X(maildir_free) \
	X(maildir_message_get) \
	X(maildir_new) \
	X(maildir_update) \
	X(mailesmtp_ehlo) \
	X(mailesmtp_parse_ehlo) \
	X(mailesmtp_rcpt) \
	X(mailimap_capability) \
	X(mailimap_capability_data_free) \
	X(mailimap_connect) \
	X(mailimap_free) \
	X(mailimap_has_idle) \
	X(mailimap_idle) \
	X(mailimap_idle_done) \
	X(mailimap_login) \
	X(mailimap_logout) \
	X(mailimap_new) \
	X(mailimap_select) \
	X(mailimf_address_list_add_mb) \
	X(mailimf_address_list_free) \
	X(mailimf_address_list_new_empty) \
	X(mailimf_date_time_new) \
	X(mailimf_field_new_custom) \
	X(mailimf_fields_add) \
	X(mailimf_fields_free) \
	X(mailimf_fields_new_with_data_all) \
	X(mailimf_fields_write_mem) \
	X(mailimf_mailbox_list_add_mb) \
	X(mailimf_mailbox_list_new_empty) \
	X(mailimf_message_free) \
	X(mailimf_message_parse) \
	X(mailmime_decoded_part_free) \
	X(mailmime_encoded_phrase_parse) \
	X(mailmime_free) \
	X(mailmime_parse) \
	X(mailmime_part_parse) \
	X(mailsmtp_auth) \
	X(mailsmtp_data) \
	X(mailsmtp_data_message) \
	X(mailsmtp_free) \
	X(mailsmtp_helo) \
	X(mailsmtp_new) \
	X(mailsmtp_quit) \
	X(mailsmtp_read_response) \
	X(mailsmtp_reset) \
	X(mailsmtp_send_command) \
	X(mailsmtp_set_timeout) \
	X(mailsmtp_socket_connect) \
	X(mailsmtp_socket_starttls_with_callback) \
	X(mailsmtp_ssl_connect_with_callback) \
	X(mailsmtp_strerror) \
	X(mailstream_certificate_chain_free) \
	X(mailstream_close) \
	X(mailstream_get_certificate_chain) \
	X(mailstream_get_low) \
	X(mailstream_low_free) \
	X(mailstream_low_get_fd) \
	X(mailstream_low_new) \
	X(mailstream_low_set_timeout) \
	X(mailstream_new) \
	X(mailstream_ssl_set_server_name) \
	X(mmap_string_free) \
	X(mmap_string_new)

struct rm_dynlib_etpan {
	RM_DYNLIB_ETPAN_SYMS(RM_DYNLIB_MEMBER)
};

/* The table, loaded on first use (dynlib.h: prints and exits 2 when the
 * library cannot be loaded). */
static inline const struct rm_dynlib_etpan *rm_dynlib_etpan(void)
{
	const void *t = rm_dynlib_tables[RM_LIB_ETPAN];

	return t ? t : rm_dynlib_load_or_exit(RM_LIB_ETPAN);
}

#ifndef RM_DYNLIB_IMPL
#define charconv(...) (*rm_dynlib_etpan()->charconv)(__VA_ARGS__)
#define clist_insert_after(...) (*rm_dynlib_etpan()->clist_insert_after)(__VA_ARGS__)
#define clist_new(...) (*rm_dynlib_etpan()->clist_new)(__VA_ARGS__)
#define maildir_free(...) (*rm_dynlib_etpan()->maildir_free)(__VA_ARGS__)
#define maildir_message_get(...) (*rm_dynlib_etpan()->maildir_message_get)(__VA_ARGS__)
#define maildir_new(...) (*rm_dynlib_etpan()->maildir_new)(__VA_ARGS__)
#define maildir_update(...) (*rm_dynlib_etpan()->maildir_update)(__VA_ARGS__)
#define mailesmtp_ehlo(...) (*rm_dynlib_etpan()->mailesmtp_ehlo)(__VA_ARGS__)
#define mailesmtp_parse_ehlo(...) (*rm_dynlib_etpan()->mailesmtp_parse_ehlo)(__VA_ARGS__)
#define mailesmtp_rcpt(...) (*rm_dynlib_etpan()->mailesmtp_rcpt)(__VA_ARGS__)
#define mailimap_capability(...) (*rm_dynlib_etpan()->mailimap_capability)(__VA_ARGS__)
#define mailimap_capability_data_free(...) (*rm_dynlib_etpan()->mailimap_capability_data_free)(__VA_ARGS__)
#define mailimap_connect(...) (*rm_dynlib_etpan()->mailimap_connect)(__VA_ARGS__)
#define mailimap_free(...) (*rm_dynlib_etpan()->mailimap_free)(__VA_ARGS__)
#define mailimap_has_idle(...) (*rm_dynlib_etpan()->mailimap_has_idle)(__VA_ARGS__)
#define mailimap_idle(...) (*rm_dynlib_etpan()->mailimap_idle)(__VA_ARGS__)
#define mailimap_idle_done(...) (*rm_dynlib_etpan()->mailimap_idle_done)(__VA_ARGS__)
#define mailimap_login(...) (*rm_dynlib_etpan()->mailimap_login)(__VA_ARGS__)
#define mailimap_logout(...) (*rm_dynlib_etpan()->mailimap_logout)(__VA_ARGS__)
#define mailimap_new(...) (*rm_dynlib_etpan()->mailimap_new)(__VA_ARGS__)
#define mailimap_select(...) (*rm_dynlib_etpan()->mailimap_select)(__VA_ARGS__)
#define mailimf_address_list_add_mb(...) (*rm_dynlib_etpan()->mailimf_address_list_add_mb)(__VA_ARGS__)
#define mailimf_address_list_free(...) (*rm_dynlib_etpan()->mailimf_address_list_free)(__VA_ARGS__)
#define mailimf_address_list_new_empty(...) (*rm_dynlib_etpan()->mailimf_address_list_new_empty)(__VA_ARGS__)
#define mailimf_date_time_new(...) (*rm_dynlib_etpan()->mailimf_date_time_new)(__VA_ARGS__)
#define mailimf_field_new_custom(...) (*rm_dynlib_etpan()->mailimf_field_new_custom)(__VA_ARGS__)
#define mailimf_fields_add(...) (*rm_dynlib_etpan()->mailimf_fields_add)(__VA_ARGS__)
#define mailimf_fields_free(...) (*rm_dynlib_etpan()->mailimf_fields_free)(__VA_ARGS__)
#define mailimf_fields_new_with_data_all(...) (*rm_dynlib_etpan()->mailimf_fields_new_with_data_all)(__VA_ARGS__)
#define mailimf_fields_write_mem(...) (*rm_dynlib_etpan()->mailimf_fields_write_mem)(__VA_ARGS__)
#define mailimf_mailbox_list_add_mb(...) (*rm_dynlib_etpan()->mailimf_mailbox_list_add_mb)(__VA_ARGS__)
#define mailimf_mailbox_list_new_empty(...) (*rm_dynlib_etpan()->mailimf_mailbox_list_new_empty)(__VA_ARGS__)
#define mailimf_message_free(...) (*rm_dynlib_etpan()->mailimf_message_free)(__VA_ARGS__)
#define mailimf_message_parse(...) (*rm_dynlib_etpan()->mailimf_message_parse)(__VA_ARGS__)
#define mailmime_decoded_part_free(...) (*rm_dynlib_etpan()->mailmime_decoded_part_free)(__VA_ARGS__)
#define mailmime_encoded_phrase_parse(...) (*rm_dynlib_etpan()->mailmime_encoded_phrase_parse)(__VA_ARGS__)
#define mailmime_free(...) (*rm_dynlib_etpan()->mailmime_free)(__VA_ARGS__)
#define mailmime_parse(...) (*rm_dynlib_etpan()->mailmime_parse)(__VA_ARGS__)
#define mailmime_part_parse(...) (*rm_dynlib_etpan()->mailmime_part_parse)(__VA_ARGS__)
#define mailsmtp_auth(...) (*rm_dynlib_etpan()->mailsmtp_auth)(__VA_ARGS__)
#define mailsmtp_data(...) (*rm_dynlib_etpan()->mailsmtp_data)(__VA_ARGS__)
#define mailsmtp_data_message(...) (*rm_dynlib_etpan()->mailsmtp_data_message)(__VA_ARGS__)
#define mailsmtp_free(...) (*rm_dynlib_etpan()->mailsmtp_free)(__VA_ARGS__)
#define mailsmtp_helo(...) (*rm_dynlib_etpan()->mailsmtp_helo)(__VA_ARGS__)
#define mailsmtp_new(...) (*rm_dynlib_etpan()->mailsmtp_new)(__VA_ARGS__)
#define mailsmtp_quit(...) (*rm_dynlib_etpan()->mailsmtp_quit)(__VA_ARGS__)
#define mailsmtp_read_response(...) (*rm_dynlib_etpan()->mailsmtp_read_response)(__VA_ARGS__)
#define mailsmtp_reset(...) (*rm_dynlib_etpan()->mailsmtp_reset)(__VA_ARGS__)
#define mailsmtp_send_command(...) (*rm_dynlib_etpan()->mailsmtp_send_command)(__VA_ARGS__)
#define mailsmtp_set_timeout(...) (*rm_dynlib_etpan()->mailsmtp_set_timeout)(__VA_ARGS__)
#define mailsmtp_socket_connect(...) (*rm_dynlib_etpan()->mailsmtp_socket_connect)(__VA_ARGS__)
#define mailsmtp_socket_starttls_with_callback(...) (*rm_dynlib_etpan()->mailsmtp_socket_starttls_with_callback)(__VA_ARGS__)
#define mailsmtp_ssl_connect_with_callback(...) (*rm_dynlib_etpan()->mailsmtp_ssl_connect_with_callback)(__VA_ARGS__)
#define mailsmtp_strerror(...) (*rm_dynlib_etpan()->mailsmtp_strerror)(__VA_ARGS__)
#define mailstream_certificate_chain_free(...) (*rm_dynlib_etpan()->mailstream_certificate_chain_free)(__VA_ARGS__)
#define mailstream_close(...) (*rm_dynlib_etpan()->mailstream_close)(__VA_ARGS__)
#define mailstream_get_certificate_chain(...) (*rm_dynlib_etpan()->mailstream_get_certificate_chain)(__VA_ARGS__)
#define mailstream_get_low(...) (*rm_dynlib_etpan()->mailstream_get_low)(__VA_ARGS__)
#define mailstream_low_free(...) (*rm_dynlib_etpan()->mailstream_low_free)(__VA_ARGS__)
#define mailstream_low_get_fd(...) (*rm_dynlib_etpan()->mailstream_low_get_fd)(__VA_ARGS__)
#define mailstream_low_new(...) (*rm_dynlib_etpan()->mailstream_low_new)(__VA_ARGS__)
#define mailstream_low_set_timeout(...) (*rm_dynlib_etpan()->mailstream_low_set_timeout)(__VA_ARGS__)
#define mailstream_new(...) (*rm_dynlib_etpan()->mailstream_new)(__VA_ARGS__)
#define mailstream_ssl_set_server_name(...) (*rm_dynlib_etpan()->mailstream_ssl_set_server_name)(__VA_ARGS__)
#define mmap_string_free(...) (*rm_dynlib_etpan()->mmap_string_free)(__VA_ARGS__)
#define mmap_string_new(...) (*rm_dynlib_etpan()->mmap_string_new)(__VA_ARGS__)
#endif

#endif
