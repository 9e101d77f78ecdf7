/*
 * dynlib_archive.h - libarchive through dynlib.c: include this instead of
 * <archive.h> <archive_entry.h>.
 *
 * Owns: the list of the functions robotmail calls in it (RM_DYNLIB_ARCHIVE_SYMS)
 * and one macro per name that turns a call into a call through the table
 * (rm_dynlib_archive(), which loads the library on first use).  A new call
 * needs its line in the list and its #define below.  See dynlib.h.
 */
#ifndef RM_DYNLIB_ARCHIVE_H
#define RM_DYNLIB_ARCHIVE_H

#ifdef ARCHIVE_H_INCLUDED
#error "include dynlib_archive.h instead of the library's headers"
#endif
#ifdef ARCHIVE_ENTRY_H_INCLUDED
#error "include dynlib_archive.h instead of the library's headers"
#endif
#include <archive.h>
#include <archive_entry.h>

#include "dynlib.h"

#define RM_DYNLIB_ARCHIVE_SYMS(X) \
	X(archive_entry_filetype) \
	X(archive_filter_bytes) \
	X(archive_filter_code) \
	X(archive_entry_hardlink) \
	X(archive_entry_pathname) \
	X(archive_entry_size) \
	X(archive_entry_size_is_set) \
	X(archive_error_string) \
	X(archive_read_data) \
	X(archive_read_data_skip) \
	X(archive_read_free) \
	X(archive_read_new) \
	X(archive_read_next_header) \
	X(archive_read_open) \
	X(archive_read_open_filename) \
	X(archive_read_open_memory) \
	X(archive_read_support_filter_all) \
	X(archive_read_support_filter_bzip2) \
	X(archive_read_support_filter_gzip) \
	X(archive_read_support_filter_xz) \
	X(archive_read_support_filter_zstd) \
	X(archive_read_support_format_all) \
	X(archive_read_support_format_empty) \
	X(archive_read_support_format_raw) \
	X(archive_read_support_format_tar) \
	X(archive_set_error)

struct rm_dynlib_archive {
	RM_DYNLIB_ARCHIVE_SYMS(RM_DYNLIB_MEMBER)
};

/* The table, loaded on first use (dynlib.h: prints and exits 2 when the
 * library cannot be loaded). */
static inline const struct rm_dynlib_archive *rm_dynlib_archive(void)
{
	const void *t = rm_dynlib_tables[RM_LIB_ARCHIVE];

	return t ? t : rm_dynlib_load_or_exit(RM_LIB_ARCHIVE);
}

#ifndef RM_DYNLIB_IMPL
#define archive_entry_filetype(...) (*rm_dynlib_archive()->archive_entry_filetype)(__VA_ARGS__)
#define archive_filter_bytes(...) (*rm_dynlib_archive()->archive_filter_bytes)(__VA_ARGS__)
#define archive_filter_code(...) (*rm_dynlib_archive()->archive_filter_code)(__VA_ARGS__)
#define archive_entry_hardlink(...) (*rm_dynlib_archive()->archive_entry_hardlink)(__VA_ARGS__)
#define archive_entry_pathname(...) (*rm_dynlib_archive()->archive_entry_pathname)(__VA_ARGS__)
#define archive_entry_size(...) (*rm_dynlib_archive()->archive_entry_size)(__VA_ARGS__)
#define archive_entry_size_is_set(...) (*rm_dynlib_archive()->archive_entry_size_is_set)(__VA_ARGS__)
#define archive_error_string(...) (*rm_dynlib_archive()->archive_error_string)(__VA_ARGS__)
#define archive_read_data(...) (*rm_dynlib_archive()->archive_read_data)(__VA_ARGS__)
#define archive_read_data_skip(...) (*rm_dynlib_archive()->archive_read_data_skip)(__VA_ARGS__)
#define archive_read_free(...) (*rm_dynlib_archive()->archive_read_free)(__VA_ARGS__)
#define archive_read_new(...) (*rm_dynlib_archive()->archive_read_new)(__VA_ARGS__)
#define archive_read_next_header(...) (*rm_dynlib_archive()->archive_read_next_header)(__VA_ARGS__)
#define archive_read_open(...) (*rm_dynlib_archive()->archive_read_open)(__VA_ARGS__)
#define archive_read_open_filename(...) (*rm_dynlib_archive()->archive_read_open_filename)(__VA_ARGS__)
#define archive_read_open_memory(...) (*rm_dynlib_archive()->archive_read_open_memory)(__VA_ARGS__)
#define archive_read_support_filter_all(...) (*rm_dynlib_archive()->archive_read_support_filter_all)(__VA_ARGS__)
#define archive_read_support_filter_bzip2(...) (*rm_dynlib_archive()->archive_read_support_filter_bzip2)(__VA_ARGS__)
#define archive_read_support_filter_gzip(...) (*rm_dynlib_archive()->archive_read_support_filter_gzip)(__VA_ARGS__)
#define archive_read_support_filter_xz(...) (*rm_dynlib_archive()->archive_read_support_filter_xz)(__VA_ARGS__)
#define archive_read_support_filter_zstd(...) (*rm_dynlib_archive()->archive_read_support_filter_zstd)(__VA_ARGS__)
#define archive_read_support_format_all(...) (*rm_dynlib_archive()->archive_read_support_format_all)(__VA_ARGS__)
#define archive_read_support_format_empty(...) (*rm_dynlib_archive()->archive_read_support_format_empty)(__VA_ARGS__)
#define archive_read_support_format_raw(...) (*rm_dynlib_archive()->archive_read_support_format_raw)(__VA_ARGS__)
#define archive_read_support_format_tar(...) (*rm_dynlib_archive()->archive_read_support_format_tar)(__VA_ARGS__)
#define archive_set_error(...) (*rm_dynlib_archive()->archive_set_error)(__VA_ARGS__)
#endif

#endif
